//! Processing runs against the command line: (1) one large CSV uploaded through the API and
//! processed, from the end of the upload to the run completed (output stored, savings committed),
//! against `capopt analyze` on the same file, with the server's resident memory; (2) many
//! clients uploading at once: every run completes exactly once, the time to completion, and the
//! latency of a light GET meanwhile.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde::Serialize;
use serde_json::{Value, json};

use crate::common::{self, Session, TempDir};

/// Options of `load-tests runs`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The `capopt` binary (a release build for figures).
    #[arg(long)]
    server_bin: PathBuf,
    /// Rows of the large file.
    #[arg(long, default_value_t = 1_000_000)]
    rows: usize,
    /// Clients uploading at once in the concurrent part.
    #[arg(long, default_value_t = 20)]
    clients: usize,
    /// Rows of each concurrent client's file.
    #[arg(long, default_value_t = 10_000)]
    client_rows: usize,
    /// Times the clients upload at once (more light-GET samples).
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// Skip the large-file part.
    #[arg(long)]
    skip_large: bool,
    /// Where to write the JSON results.
    #[arg(long)]
    out: Option<PathBuf>,
}

#[derive(Debug, Serialize)]
struct Large {
    rows: usize,
    file_mb: f64,
    cli_secs: f64,
    upload_secs: f64,
    server_secs: f64,
    ratio: f64,
    rss_before_mb: f64,
    rss_peak_mb: f64,
    rss_growth_mb: f64,
    server_savings_rwas: f64,
    cli_savings_rwas: f64,
    same_savings: bool,
}

#[derive(Debug, Serialize)]
struct Concurrent {
    /// `RUN_NICE` of the server.
    run_nice: u8,
    clients: usize,
    rounds: usize,
    rows_each: usize,
    completed: usize,
    completed_once: bool,
    to_completion_p50_secs: f64,
    to_completion_p95_secs: f64,
    to_completion_max_secs: f64,
    /// The light GET with no run under way (the machine's own noise), just before.
    light_get_idle: common::Percentiles,
    /// The light GET while the runs go.
    light_get: common::Percentiles,
}

#[derive(Debug, Serialize)]
struct Results {
    large: Option<Large>,
    /// The server as configured by default (`RUN_NICE=10`, `RUN_IDLE=true`).
    concurrent: Concurrent,
    /// The same with the engine threads at the web requests' priority (`RUN_NICE=0`,
    /// `RUN_IDLE=false`), in the same run, for comparison.
    concurrent_nice0: Concurrent,
    passed: bool,
}

/// Uploads a file for enhanced-AI processing; its run's id and its file's id.
pub(crate) async fn upload(
    s: &Session,
    client: Option<&str>,
    name: &str,
    bytes: Vec<u8>,
) -> anyhow::Result<(String, String)> {
    let form = reqwest::multipart::Form::new()
        .part(
            "file",
            reqwest::multipart::Part::bytes(bytes).file_name(name.to_string()),
        )
        .text(
            "options",
            json!({"mode": "enhanced-ai", "leverId": null, "process": true, "mapping": null,
                "riskWeightFormat": null, "maturityUnit": null})
            .to_string(),
        );
    let q = client.map(|c| format!("?client={c}")).unwrap_or_default();
    let r = s
        .http
        .post(format!("{}/api/files{q}", s.base))
        .header("x-csrf-token", &s.csrf)
        .multipart(form)
        .send()
        .await?;
    let st = r.status();
    let v: Value = r.json().await?;
    if !st.is_success() {
        bail!("upload: HTTP {st} {v}");
    }
    Ok((
        v["run"]["id"].as_str().context("no run")?.to_string(),
        v["file"]["id"].as_str().context("no file")?.to_string(),
    ))
}

pub(crate) async fn wait_done(s: &Session, run: &str, limit: Duration) -> anyhow::Result<Value> {
    let t = Instant::now();
    loop {
        let v = s.get_json(&format!("/api/runs/{run}")).await?;
        match v["state"].as_str() {
            Some("queued" | "running") => {}
            _ => return Ok(v),
        }
        if t.elapsed() > limit {
            bail!("run {run} not done after {limit:?}: {v}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Runs the scenario; `Ok(false)` when a check failed.
pub(crate) async fn run(args: Args) -> anyhow::Result<bool> {
    let dir = TempDir::new("capopt-load-runs")?;
    let clients = common::prepare_database(&dir.0.join("data"), None, args.clients).await?;
    let bin = args.server_bin.clone();
    let mut passed = true;

    let large = if args.skip_large {
        None
    } else {
        let input = dir.0.join("large.csv");
        common::generate_pse(&bin, args.rows, &input)?;
        let out = dir.0.join("optimized_large.csv");
        let summary = dir.0.join("summary.json");
        let t = Instant::now();
        common::capopt(
            &bin,
            &[
                "analyze",
                "--input",
                input.to_str().unwrap(),
                "--lever",
                "auto",
                "--output",
                out.to_str().unwrap(),
                "--summary",
                summary.to_str().unwrap(),
            ],
        )?;
        let cli_secs = t.elapsed().as_secs_f64();
        let cli: Value = serde_json::from_str(&std::fs::read_to_string(&summary)?)?;
        let bytes = std::fs::read(&input)?;
        let file_mb = bytes.len() as f64 / 1e6;
        let inst = common::start_instance_with(
            &bin,
            &dir.0.join("data"),
            None,
            None,
            &[("MAX_UPLOAD_MB", "2000"), ("RUN_CONCURRENCY", "2")],
        )
        .await?;
        let s = Session::login(&inst.base, "user@bank-a.example").await?;
        let rss_before = common::rss_kib(inst.pid)?;
        let pid = inst.pid;
        let peak = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(rss_before));
        let peak2 = peak.clone();
        let sampler = tokio::spawn(async move {
            while let Ok(k) = common::rss_kib(pid) {
                peak2.fetch_max(k, std::sync::atomic::Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        });
        let t = Instant::now();
        let (run, _) = upload(&s, None, "large.csv", bytes).await?;
        let upload_secs = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let done = wait_done(&s, &run, Duration::from_secs(1800)).await?;
        let server_secs = t.elapsed().as_secs_f64();
        sampler.abort();
        let rss_peak = peak
            .load(std::sync::atomic::Ordering::Relaxed)
            .max(common::rss_kib(pid)?);
        drop(inst);
        if done["state"] != "completed" {
            bail!("large run ended {done}");
        }
        let server_savings = done["result"]["savingsRwas"].as_f64().unwrap_or(f64::NAN);
        let cli_savings = cli["total_rwa_saving"].as_f64().unwrap_or(f64::NAN);
        let ratio = server_secs / cli_secs;
        let same = server_savings == cli_savings;
        passed &= same;
        Some(Large {
            rows: args.rows,
            file_mb,
            cli_secs,
            upload_secs,
            server_secs,
            ratio,
            rss_before_mb: rss_before as f64 / 1024.0,
            rss_peak_mb: rss_peak as f64 / 1024.0,
            rss_growth_mb: rss_peak.saturating_sub(rss_before) as f64 / 1024.0,
            server_savings_rwas: server_savings,
            cli_savings_rwas: cli_savings,
            same_savings: same,
        })
    };

    // Concurrent clients, with a light GET measured meanwhile: the engine threads at the web
    // requests' priority, then as the server runs them by default.
    let input = dir.0.join("small.csv");
    common::generate_pse(&bin, args.client_rows, &input)?;
    let bytes = std::fs::read(&input)?;
    let concurrent_nice0 = concurrent(&bin, &dir.0, &clients, &bytes, &args, 0).await?;
    let concurrent = concurrent(&bin, &dir.0, &clients, &bytes, &args, 10).await?;
    passed &= concurrent.completed_once && concurrent_nice0.completed_once;
    let results = Results {
        large,
        concurrent,
        concurrent_nice0,
        passed,
    };
    let text = serde_json::to_string_pretty(&results)?;
    println!("{text}");
    if let Some(p) = args.out {
        std::fs::write(p, &text)?;
    }
    Ok(passed)
}

/// Light GETs (`/api/auth/me` of a user with no upload, every 5 ms) until `stop`: latencies in µs.
fn probe(
    prober: Session,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> tokio::task::JoinHandle<Vec<u64>> {
    tokio::spawn(async move {
        let mut lat = Vec::new();
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            let t = Instant::now();
            if prober.get_json("/api/auth/me").await.is_ok() {
                lat.push(t.elapsed().as_micros() as u64);
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        lat
    })
}

/// `args.rounds` times, every client uploads the same file at once on a server with
/// `RUN_NICE=nice`; each run must complete once. The light GET is measured for 2 s before
/// (idle) and during the rounds.
async fn concurrent(
    bin: &std::path::Path,
    dir: &std::path::Path,
    clients: &[common::LoadClient],
    bytes: &[u8],
    args: &Args,
    nice: u8,
) -> anyhow::Result<Concurrent> {
    let nice_env = nice.to_string();
    let inst = common::start_instance_with(
        bin,
        &dir.join("data"),
        None,
        None,
        // At 0 the engine threads are plain threads at the web's priority (the baseline); else
        // the server's default scheduling (idle work at that nice).
        &[
            ("RUN_NICE", &nice_env),
            ("RUN_IDLE", if nice == 0 { "false" } else { "true" }),
        ],
    )
    .await?;
    let mut sessions = Vec::new();
    for c in clients {
        sessions.push(Session::login(&inst.base, &c.email).await?);
    }
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let idle = probe(
        Session::login(&inst.base, "user@bank-b.example").await?,
        stop.clone(),
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let idle = idle.await?;

    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let busy = probe(
        Session::login(&inst.base, "user@bank-b.example").await?,
        stop.clone(),
    );
    let mut times = Vec::new();
    let mut once_all = true;
    for round in 0..args.rounds {
        let mut tasks = Vec::new();
        for (i, s) in sessions.iter().cloned().enumerate() {
            let bytes = bytes.to_vec();
            tasks.push(tokio::spawn(async move {
                let name = format!("client-{i}-nice{nice}-round{round}.csv");
                let (run, file) = upload(&s, None, &name, bytes).await?;
                let t = Instant::now();
                let done = wait_done(&s, &run, Duration::from_secs(900)).await?;
                let secs = t.elapsed().as_secs_f64();
                let f = s.get_json(&format!("/api/files/{file}")).await?;
                let once = done["state"] == "completed"
                    && done["attempts"] == 1
                    && f["savingsRwas"] == done["result"]["savingsRwas"];
                anyhow::Ok((secs, once))
            }));
        }
        for t in tasks {
            let (secs, once) = t.await??;
            times.push(secs);
            once_all &= once;
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let lat = busy.await?;
    drop(inst);
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() as f64 * q).ceil() as usize).clamp(1, times.len()) - 1];
    Ok(Concurrent {
        run_nice: nice,
        clients: clients.len(),
        rounds: args.rounds,
        rows_each: args.client_rows,
        completed: times.len(),
        completed_once: once_all && times.len() == clients.len() * args.rounds,
        to_completion_p50_secs: at(0.5),
        to_completion_p95_secs: at(0.95),
        to_completion_max_secs: at(1.0),
        light_get_idle: common::Percentiles::of(idle),
        light_get: common::Percentiles::of(lat),
    })
}
