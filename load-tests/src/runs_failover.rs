//! Processing runs across two instances on PostgreSQL and Redis: many runs queued at once, one
//! instance killed (SIGKILL) while it holds some of them; every run must complete exactly once
//! (the other instance claims the dead one's runs when their lease expires), each file's savings
//! equal its run's result, the client's total equals the sum of its files, and no run is left
//! queued or running. Reports how long after the kill the last taken-over run finished.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::bail;
use serde::Serialize;
use serde_json::Value;

use crate::common::{self, Session, TempDir};

/// Options of `load-tests runs-failover`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The `capopt` binary.
    #[arg(long)]
    server_bin: PathBuf,
    /// PostgreSQL base URL (a fresh database is created there and dropped afterwards).
    #[arg(long)]
    database_url: String,
    /// Redis URL (events between the instances).
    #[arg(long, default_value = "redis://127.0.0.1:6379")]
    redis_url: String,
    /// Runs queued at once.
    #[arg(long, default_value_t = 100)]
    runs: usize,
    /// Rows of each file.
    #[arg(long, default_value_t = 5_000)]
    rows: usize,
    /// Runs completed before the first instance is killed.
    #[arg(long, default_value_t = 10)]
    kill_after: usize,
    /// Where to write the JSON results.
    #[arg(long)]
    out: Option<PathBuf>,
}

#[derive(Debug, Serialize)]
struct Results {
    runs: usize,
    rows_each: usize,
    completed: usize,
    not_completed: Vec<String>,
    taken_over: usize,
    attempts_max: i64,
    files_match_runs: bool,
    client_total_matches_files: bool,
    completed_before_kill: usize,
    last_taken_over_finished_secs_after_kill: Option<f64>,
    all_done_secs_after_kill: f64,
    output_objects: usize,
    passed: bool,
}

fn secs_since(ts: &str, t0: chrono::DateTime<chrono::Utc>) -> Option<f64> {
    let t = chrono::DateTime::parse_from_rfc3339(ts).ok()?;
    Some((t.with_timezone(&chrono::Utc) - t0).num_milliseconds() as f64 / 1000.0)
}

/// Runs the scenario; `Ok(false)` when a check failed.
pub(crate) async fn run(args: Args) -> anyhow::Result<bool> {
    let dir = TempDir::new("capopt-load-failover")?;
    let data = dir.0.join("data");
    let (url, name) = common::fresh_postgres(&args.database_url).await?;
    let result = scenario(&args, &dir.0, &data, &url).await;
    common::drop_postgres(&args.database_url, &name).await;
    let results = result?;
    let text = serde_json::to_string_pretty(&results)?;
    println!("{text}");
    if let Some(p) = &args.out {
        std::fs::write(p, &text)?;
    }
    Ok(results.passed)
}

async fn scenario(
    args: &Args,
    dir: &std::path::Path,
    data: &std::path::Path,
    url: &str,
) -> anyhow::Result<Results> {
    common::prepare_database(data, Some(url.to_string()), 0).await?;
    let input = dir.join("exposures.csv");
    common::generate_pse(&args.server_bin, args.rows, &input)?;
    let bytes = std::fs::read(&input)?;
    let envs = [("RUN_CONCURRENCY", "2")];
    let mut a = common::start_instance_with(
        &args.server_bin,
        data,
        Some(url),
        Some(&args.redis_url),
        &envs,
    )
    .await?;
    let b = common::start_instance_with(
        &args.server_bin,
        data,
        Some(url),
        Some(&args.redis_url),
        &envs,
    )
    .await?;
    let sa = Session::login(&a.base, "user@bank-a.example").await?;
    let sb = Session::login(&b.base, "user@bank-a.example").await?;

    // Queue every run, half through each instance.
    let mut ids = Vec::new();
    for i in 0..args.runs {
        let s = if i % 2 == 0 { &sa } else { &sb };
        ids.push(crate::runs::upload(s, None, &format!("file-{i}.csv"), bytes.clone()).await?);
    }

    // Kill the first instance once some runs are done (it then holds running runs).
    let deadline = Instant::now() + Duration::from_secs(600);
    let completed_before_kill = loop {
        let list = sb.get_json("/api/runs").await?;
        let done = list.as_array().map_or(0, |l| {
            l.iter().filter(|r| r["state"] == "completed").count()
        });
        if done >= args.kill_after || Instant::now() > deadline {
            break done;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    a.child.start_kill()?;
    let _ = a.child.wait().await;
    let killed_at = chrono::Utc::now();
    let t_kill = Instant::now();

    // Wait for every run through the survivor.
    let mut finals: Vec<Value> = Vec::new();
    for (run, _) in &ids {
        loop {
            let v = sb.get_json(&format!("/api/runs/{run}")).await?;
            if !matches!(v["state"].as_str(), Some("queued" | "running")) {
                finals.push(v);
                break;
            }
            if Instant::now() > deadline {
                bail!("run {run} not done: {v}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    let all_done = t_kill.elapsed().as_secs_f64();

    let completed = finals.iter().filter(|v| v["state"] == "completed").count();
    let not_completed: Vec<String> = finals
        .iter()
        .filter(|v| v["state"] != "completed")
        .map(|v| format!("{} {} {}", v["id"], v["state"], v["error"]))
        .collect();
    let taken: Vec<&Value> = finals
        .iter()
        .filter(|v| v["attempts"].as_i64().unwrap_or(0) > 1)
        .collect();
    let attempts_max = finals
        .iter()
        .filter_map(|v| v["attempts"].as_i64())
        .max()
        .unwrap_or(0);
    let last_taken = taken
        .iter()
        .filter_map(|v| v["finishedAt"].as_str())
        .filter_map(|t| secs_since(t, killed_at))
        .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))));

    let mut files_match_runs = true;
    let mut sum = 0.0;
    for ((_, file), run) in ids.iter().zip(&finals) {
        let f = sb.get_json(&format!("/api/files/{file}")).await?;
        let fs = f["savingsRwas"].as_f64().unwrap_or(f64::NAN);
        files_match_runs &= fs == run["result"]["savingsRwas"].as_f64().unwrap_or(f64::NAN);
        sum += fs;
    }
    let db = server::db::Db::connect(url).await?;
    let (total,): (f64,) =
        sqlx::query_as("SELECT cet1_savings_rwas FROM clients WHERE name = 'Bank A'")
            .fetch_one(&db.pool)
            .await?;
    db.pool.close().await;
    let client_total_matches_files = (total - sum).abs() <= 1e-6 * sum.abs().max(1.0);
    let output_objects = walk(&data.join("objects"))
        .into_iter()
        .filter(|p| p.components().any(|c| c.as_os_str() == "output"))
        .count();
    drop(b);

    let passed = completed == args.runs && files_match_runs && client_total_matches_files;
    Ok(Results {
        runs: args.runs,
        rows_each: args.rows,
        completed,
        not_completed,
        taken_over: taken.len(),
        attempts_max,
        files_match_runs,
        client_total_matches_files,
        completed_before_kill,
        last_taken_over_finished_secs_after_kill: last_taken,
        all_done_secs_after_kill: all_done,
        output_objects,
        passed,
    })
}

fn walk(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
