//! Standalone command line for the analysis crate: `analyze` and `generate-exposures`, the same
//! subcommands the `capopt` server binary embeds.
//!
//! Run with `cargo run --release -p analysis --bin analysis-cli -- analyze --help`.

use clap::{Parser, Subcommand};

/// Exposure-file analysis.
#[derive(Debug, Parser)]
#[command(name = "analysis-cli", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
// Parsed once per process: the size of the arguments does not matter.
#[allow(clippy::large_enum_variant)]
enum Command {
    /// Analyse an exposure file and write the processed file.
    Analyze(analysis::cli::AnalyzeArgs),
    /// Write a realistic synthetic exposure file.
    GenerateExposures(analysis::cli::GenerateArgs),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Analyze(a) => analysis::cli::run_analyze(a).map(|r| {
            println!("{}", analysis::cli::describe(&r));
        }),
        Command::GenerateExposures(g) => analysis::cli::run_generate(g).map(|n| {
            println!("{n} rows written to {}", g.output.display());
        }),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
