//! The typing load with the stock providers browsers run (`load-tests/node/driver.mjs`:
//! y-websocket's provider for capopt, Hocuspocus's provider for Hocuspocus, yjs, the editors
//! spread over `--driver-processes` Node processes), against capopt and Hocuspocus side by side, at several sizes, plus an optional run
//! with slow readers among fast ones. Each run gets a freshly started server and a fresh
//! document; the driver reports latency, deliveries against expected (and duplicates), and per
//! connection the messages and bytes per second by kind; this harness adds the server's CPU,
//! resident and peak memory.
//!
//! Run with `load-tests collab-node --help`.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, bail};
use serde_json::{Value, json};

use crate::collab::{NodeServer, cpu_seconds, peak_rss_kib, start_node};
use crate::common;

/// Options of the stock-provider comparison.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct Args {
    /// The `capopt` binary (release build for figures).
    #[arg(long)]
    pub server_bin: PathBuf,
    /// Editor counts, one run per count and server.
    #[arg(long, value_delimiter = ',', default_value = "50,150,300")]
    pub editors: Vec<usize>,
    /// Updates per second per editor.
    #[arg(long, default_value_t = 5.0)]
    pub rate: f64,
    /// Seconds of typing per run.
    #[arg(long, default_value_t = 20)]
    pub seconds: u64,
    /// Editors that record latency.
    #[arg(long, default_value_t = 10)]
    pub observers: usize,
    /// Also move the caret (awareness) with every edit.
    #[arg(long)]
    pub awareness: bool,
    /// Also run `slow_among` editors with this many slow readers, and without them, on capopt.
    #[arg(long, default_value_t = 0)]
    pub slow: usize,
    /// Fast editors of the slow-client runs.
    #[arg(long, default_value_t = 50)]
    pub slow_among: usize,
    /// Skip Hocuspocus.
    #[arg(long)]
    pub capopt_only: bool,
    /// Node processes the driver spreads the editors over (one process's event loop, applying
    /// every other editor's updates, falls behind first at 150 editors and more).
    #[arg(long, default_value_t = 2)]
    pub driver_processes: usize,
    /// Directory of the Node driver and reference servers (after `npm ci` there).
    #[arg(long, default_value = "load-tests/node")]
    pub node_dir: PathBuf,
    /// Write the JSON results here too.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// A server under test: where it listens, its process, the cookie a browser would send.
struct Under {
    base: String,
    pid: u32,
    cookie: String,
    doc: String,
}

async fn drive(
    args: &Args,
    target: &str,
    under: &Under,
    editors: usize,
    slow: usize,
) -> anyhow::Result<Value> {
    let config = json!({
        "target": target,
        "base": under.base,
        "doc": under.doc,
        "cookie": under.cookie,
        "editors": editors,
        "rate": args.rate,
        "seconds": args.seconds,
        "observers": args.observers.min(editors),
        "slow": slow,
        "awareness": args.awareness,
        "processes": args.driver_processes.clamp(1, editors.max(1)),
    });
    let cpu0 = cpu_seconds(under.pid)?;
    let t0 = std::time::Instant::now();
    let out = tokio::process::Command::new("node")
        .arg("driver.mjs")
        .arg(config.to_string())
        .current_dir(&args.node_dir)
        .kill_on_drop(true)
        .output()
        .await
        .context("node driver.mjs (run npm ci in load-tests/node first)")?;
    let wall = t0.elapsed().as_secs_f64();
    if !out.status.success() {
        bail!(
            "{target} at {editors} editors: driver failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let mut v: Value = serde_json::from_slice(&out.stdout)
        .with_context(|| format!("driver output: {}", String::from_utf8_lossy(&out.stdout)))?;
    v["serverCpuPercent"] = json!(((cpu_seconds(under.pid)? - cpu0) / wall * 100.0).round());
    v["serverRssMib"] = json!((common::rss_kib(under.pid)? as f64 / 1024.0).round());
    v["serverPeakRssMib"] = json!((peak_rss_kib(under.pid)? as f64 / 1024.0).round());
    eprintln!("{target} {editors} editors: {v}");
    Ok(v)
}

async fn capopt_run(
    args: &Args,
    dir: &std::path::Path,
    editors: usize,
    slow: usize,
) -> anyhow::Result<Value> {
    let inst = common::start_instance(&args.server_bin, dir, None, None).await?;
    let session = common::Session::login(&inst.base, "user@bank-a.example").await?;
    let (st, _, body) = session
        .post(
            "/api/reports",
            &json!({ "name": format!("Stock providers {editors}") }),
        )
        .await?;
    if st != 201 {
        bail!("create report: HTTP {st} {body}");
    }
    let under = Under {
        base: inst.base.clone(),
        pid: inst.pid,
        cookie: session.cookie.clone(),
        doc: body["id"].as_str().context("report id")?.to_string(),
    };
    let v = drive(args, "capopt", &under, editors, slow).await;
    drop(inst);
    v
}

async fn hocuspocus_run(args: &Args, editors: usize) -> anyhow::Result<Value> {
    let NodeServer { child, base, pid } = start_node(&args.node_dir, "hocuspocus.mjs").await?;
    let under = Under {
        base,
        pid,
        cookie: String::new(),
        doc: format!("stock-{editors}"),
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let v = drive(args, "hocuspocus", &under, editors, 0).await;
    drop(child);
    v
}

fn row(v: &Value) -> String {
    let rx = &v["perConnectionReceived"];
    let kind = |k: &str| {
        format!(
            "{} / {}",
            rx[k]["messagesPerSecond"], rx[k]["bytesPerSecond"]
        )
    };
    format!(
        "| {} | {} | {} / {} | {} of {} ({} dup) | {} | {} | {} | {} | {} MiB (peak {}) |",
        v["target"].as_str().unwrap_or("?"),
        v["editors"],
        v["latencyMs"]["p50"]
            .as_f64()
            .map_or("-".into(), |x| format!("{x:.1}")),
        v["latencyMs"]["p99"]
            .as_f64()
            .map_or("-".into(), |x| format!("{x:.1}")),
        v["deliveries"],
        v["expectedDeliveries"],
        v["duplicateDeliveries"],
        v["reconnects"],
        kind("update"),
        kind("step2"),
        kind("awareness"),
        v["serverRssMib"],
        v["serverPeakRssMib"],
    )
}

pub(crate) async fn run(args: Args) -> anyhow::Result<bool> {
    let dir = common::TempDir::new("capopt-load-collab-node")?;
    common::prepare_database(&dir.0, None, 0).await?;
    let mut runs = Vec::new();
    for &n in &args.editors {
        match capopt_run(&args, &dir.0, n, 0).await {
            Ok(v) => runs.push(v),
            Err(e) => eprintln!("capopt {n}: {e:#}"),
        }
        if !args.capopt_only {
            match hocuspocus_run(&args, n).await {
                Ok(v) => runs.push(v),
                Err(e) => eprintln!("hocuspocus {n}: {e:#}"),
            }
        }
    }
    let mut slow_runs = Vec::new();
    if args.slow > 0 {
        for slow in [0, args.slow] {
            match capopt_run(&args, &dir.0, args.slow_among + slow, slow).await {
                Ok(v) => slow_runs.push(v),
                Err(e) => eprintln!("capopt slow {slow}: {e:#}"),
            }
        }
    }
    println!(
        "| server | editors | p50 / p99 ms | deliveries of expected | reconnects | update msg/s / B/s per conn | sync step 2 | awareness | RSS |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for v in runs.iter().chain(&slow_runs) {
        println!("{}", row(v));
    }
    let text = serde_json::to_string_pretty(&json!({
        "scenario": "collab-node",
        "runs": runs,
        "slowClientRuns": slow_runs,
    }))?;
    println!("{text}");
    if let Some(out) = &args.out {
        std::fs::write(out, &text)?;
    }
    Ok(true)
}
