//! Load generators for the product's realtime paths. Each scenario drives a real `capopt serve`
//! process (started here, or one already running) over loopback, prints its figures as JSON and
//! writes them to a results file.
//!
//! Run with `load-tests events --help`.

mod collab;
mod collab_node;
mod common;
mod dashboard;
mod events;
mod file_management;
mod qa;
mod runs;
mod runs_failover;
mod runs_live;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "load-tests", about = "Load generators for the capopt server")]
struct Cli {
    #[command(subcommand)]
    scenario: Scenario,
}

#[derive(Subcommand)]
enum Scenario {
    /// Event fan-out: thousands of authenticated `/api/ws` subscribers spread over clients, board
    /// moves driven through the HTTP API, delivery latency, throughput and memory per connection.
    Events(events::Args),
    /// Collaborative editing: editors typing on one document (propagation latency, server CPU and
    /// memory), a long history (stored bytes per edit, cold load), SIGKILL rounds, and the same
    /// load against Hocuspocus and the y-websocket reference server.
    Collab(collab::Args),
    /// The typing load with the stock providers browsers run (y-websocket's for capopt,
    /// Hocuspocus's for Hocuspocus) from one Node process: latency, deliveries against expected,
    /// messages and bytes per connection by kind, server memory; optional slow readers.
    CollabNode(collab_node::Args),
    /// Processing runs: a large CSV uploaded and processed against `capopt analyze` on the same
    /// file (time ratio, server memory), then many clients uploading at once (time to
    /// completion, each run once, a light GET's latency meanwhile).
    Runs(runs::Args),
    /// The Q&A agent: the chips, a named exposure and a regulatory question on a 1M-row file's
    /// run, p95 against the 200 ms target, a 10k-row file's run as the baseline.
    Qa(qa::Args),
    /// File Management at scale: 100,000 files over 200 clients, every combination of the list's
    /// filters, deep pages and each sort through `GET /api/admin/files` (p95 target 50 ms).
    FileManagement(file_management::Args),
    /// The dashboards at scale: 1,000 clients with 3 years of monthly savings history and
    /// 200,000 files; p95 of the admin dashboard's requests (target 100 ms) and of the client
    /// dashboard's (50 ms).
    Dashboard(dashboard::Args),
    /// Processing runs on two instances (PostgreSQL and Redis), one killed while it holds runs:
    /// every run completes exactly once and the survivor takes over within the lease.
    RunsFailover(runs_failover::Args),
    /// Processing runs followed live: 50 runs in progress at once while administrators watch the
    /// runs view and File Management over `/api/ws` (updates per run per second reaching each,
    /// delivery latency, every run's final state).
    RunsLive(runs_live::Args),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
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
        match cli.scenario {
            Scenario::Events(args) => events::run(args).await,
            Scenario::Collab(args) => collab::run(args).await,
            Scenario::CollabNode(args) => collab_node::run(args).await,
            Scenario::Runs(args) => runs::run(args).await,
            Scenario::Qa(args) => qa::run(args).await,
            Scenario::RunsFailover(args) => runs_failover::run(args).await,
            Scenario::FileManagement(args) => file_management::run(args).await,
            Scenario::RunsLive(args) => runs_live::run(args).await,
            Scenario::Dashboard(args) => dashboard::run(args).await,
        }
    });
    match result {
        Ok(true) => std::process::ExitCode::SUCCESS,
        Ok(false) => {
            eprintln!("load test finished, but some checks failed (see the JSON above)");
            std::process::ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
