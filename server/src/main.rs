//! `capopt`: the product's one binary.
//!
//! Run with `capopt serve` (see `capopt --help`).

use clap::{Parser, Subcommand};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(name = "capopt", version, about = "Capital Optimization Portal")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Apply migrations, seed demo data on an empty database when SEED_DEMO=1, and serve the API
    /// and web app.
    Serve(server::config::Config),
    /// Create (or promote) an admin account. The password is read from ADMIN_PASSWORD or stdin.
    CreateAdmin(CreateAdmin),
    /// Analyse an exposure file and write the processed file (no server needed).
    Analyze(analysis::cli::AnalyzeArgs),
    /// Write a realistic synthetic exposure file for a lever.
    GenerateExposures(analysis::cli::GenerateArgs),
}

#[derive(clap::Args)]
struct CreateAdmin {
    /// Email of the admin.
    #[arg(long)]
    email: String,
    /// First name.
    #[arg(long, default_value = "Admin")]
    name: String,
    /// Last name.
    #[arg(long, default_value = "")]
    last_name: String,
    #[command(flatten)]
    config: server::config::Config,
}

fn init_tracing(json: bool) {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn,tower_http=warn"));
    if json {
        tracing_subscriber::fmt()
            .with_env_filter(filter)
            .json()
            .init();
    } else {
        tracing_subscriber::fmt().with_env_filter(filter).init();
    }
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    // The analysis commands are synchronous and need no runtime.
    let offline = match &cli.command {
        Command::Analyze(a) => {
            Some(analysis::cli::run_analyze(a).map(|r| println!("{}", analysis::cli::describe(&r))))
        }
        Command::GenerateExposures(g) => Some(
            analysis::cli::run_generate(g)
                .map(|n| println!("{n} rows written to {}", g.output.display())),
        ),
        _ => None,
    };
    if let Some(result) = offline {
        return match result {
            Ok(()) => std::process::ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                std::process::ExitCode::FAILURE
            }
        };
    }
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let result = rt.block_on(async move {
        match cli.command {
            Command::Serve(config) => {
                init_tracing(config.log_json);
                let state = server::build_state(config).await?;
                if !server::seed::seed_if_empty(&state).await? && state.db.is_empty().await? {
                    println!(
                        "No accounts yet: create the first admin with `ADMIN_PASSWORD=... capopt create-admin --email you@bank.example` (or start with SEED_DEMO=1 for the demo accounts)."
                    );
                }
                server::serve(state).await
            }
            Command::CreateAdmin(args) => {
                init_tracing(false);
                let password = match std::env::var("ADMIN_PASSWORD") {
                    Ok(p) => p,
                    Err(_) => {
                        eprintln!("Password for {} (input is visible): ", args.email);
                        let mut line = String::new();
                        std::io::stdin().read_line(&mut line)?;
                        line.trim_end_matches(['\r', '\n']).to_string()
                    }
                };
                let state = server::build_state(args.config).await?;
                server::seed::create_admin(
                    &state,
                    &args.email,
                    &args.name,
                    &args.last_name,
                    &password,
                )
                .await?;
                println!("Admin {} is ready.", args.email.trim().to_lowercase());
                Ok(())
            }
            Command::Analyze(_) | Command::GenerateExposures(_) => Ok(()),
        }
    });
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
