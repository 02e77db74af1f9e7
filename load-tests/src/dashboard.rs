//! The dashboards at scale: `--clients` (1,000) clients with `--months` (36) months of savings
//! history each (a lever breakdown over the six levers in every row) and `--files` (200,000)
//! files, written into a fresh database (SQLite, or PostgreSQL with `--database-url`), a release
//! `capopt serve` on it, then every request the admin dashboard makes (metric cards for each
//! period, the evolution chart in each view, the overview's charts for each window, Lever and
//! Client Performance, a client's lever breakdown) by an administrator, and the client dashboard
//! by a client's user, each repeated: p95 per screen (targets: admin 100 ms, client 50 ms) and per
//! request.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, bail};
use chrono::Datelike;
use serde::Serialize;

use crate::common::{self, Percentiles, Session, TempDir};

/// Options of `load-tests dashboard`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The `capopt` binary (a release build for figures).
    #[arg(long)]
    server_bin: PathBuf,
    /// Clients to write.
    #[arg(long, default_value_t = 1_000)]
    clients: usize,
    /// Months of savings history per client (ending with the current month).
    #[arg(long, default_value_t = 36)]
    months: usize,
    /// Files to write.
    #[arg(long, default_value_t = 200_000)]
    files: usize,
    /// Times each request is repeated.
    #[arg(long, default_value_t = 20)]
    repeat: usize,
    /// A PostgreSQL server (`postgres://user@host/db`): a fresh database is created next to it
    /// (and dropped afterwards); SQLite in a temporary directory otherwise.
    #[arg(long)]
    database_url: Option<String>,
    /// Where to write the JSON results.
    #[arg(long)]
    out: Option<PathBuf>,
    /// The admin dashboard's p95 target in milliseconds.
    #[arg(long, default_value_t = 100.0)]
    target_admin_p95_ms: f64,
    /// The client dashboard's p95 target in milliseconds.
    #[arg(long, default_value_t = 50.0)]
    target_client_p95_ms: f64,
}

#[derive(Debug, Serialize)]
struct Results {
    database: &'static str,
    clients: usize,
    months: usize,
    history_rows: usize,
    files: usize,
    seed_secs: f64,
    admin: Percentiles,
    admin_p95_ms: f64,
    client: Percentiles,
    client_p95_ms: f64,
    /// p95 of each request, in milliseconds.
    by_request: BTreeMap<String, f64>,
    passed: bool,
}

/// Six levers' monthly additions for client `c` (deterministic, varied by client).
fn monthly_adds(c: usize) -> [f64; 6] {
    let k = (c % 17) as f64;
    [
        400_000.0 + 20_000.0 * k,
        250_000.0 + 10_000.0 * k,
        90_000.0 + 5_000.0 * k,
        if c.is_multiple_of(3) { 0.0 } else { 150_000.0 },
        120_000.0 + 1_000.0 * k,
        if c.is_multiple_of(5) { 60_000.0 } else { 0.0 },
    ]
}

/// A savings-history row as seeded: client, year, month, total RWAs, total bps, growth rate, lever
/// breakdown (JSON), change in RWAs and in bps.
type HistoryRow = (String, i64, i64, f64, f64, f64, String, f64, f64);

/// Writes `months` months of history for every client (running totals, lever breakdowns, the
/// change of each row) and sets each client's totals to its latest month.
async fn seed_history(
    pool: &sqlx::AnyPool,
    clients: &[String],
    levers: &[String],
    months: usize,
) -> anyhow::Result<usize> {
    let today = chrono::Utc::now().date_naive();
    let cur = today.year() as i64 * 12 + today.month0() as i64;
    let now = server::db::now();
    const ROWS: usize = 300;
    let mut pending: Vec<HistoryRow> = Vec::new();
    let mut written = 0;
    let mut tx = pool.begin().await?;
    for (ci, client) in clients.iter().enumerate() {
        let adds = monthly_adds(ci);
        let mut prev = (0.0, 0.0);
        for m in 0..months {
            let i = cur - (months - 1 - m) as i64;
            let (year, month) = (i.div_euclid(12), i.rem_euclid(12) + 1);
            let mut breakdown = serde_json::Map::new();
            let mut total = 0.0;
            for (li, add) in adds.iter().enumerate() {
                let v = add * (m + 1) as f64;
                if v > 0.0 {
                    breakdown.insert(levers[li % levers.len()].clone(), serde_json::json!(v));
                }
                total += v;
            }
            // bps of a bank with 50bn of RWAs and 6.5bn of CET1 capital, linear.
            let bps = total / 50e9 * 0.13 * 10_000.0;
            let growth = if prev.0 > 0.0 {
                (total - prev.0) / prev.0 * 100.0
            } else {
                0.0
            };
            pending.push((
                client.clone(),
                year,
                month,
                total,
                bps,
                growth,
                serde_json::Value::Object(breakdown).to_string(),
                total - prev.0,
                bps - prev.1,
            ));
            prev = (total, bps);
        }
        sqlx::query(
            "UPDATE clients SET cet1_savings_rwas = $1, cet1_savings_bps = $2, last_updated = $3 WHERE id = $4",
        )
        .bind(prev.0)
        .bind(prev.1)
        .bind(&now)
        .bind(client)
        .execute(&mut *tx)
        .await?;
        while pending.len() >= ROWS || (ci + 1 == clients.len() && !pending.is_empty()) {
            let batch: Vec<_> = pending.drain(..ROWS.min(pending.len())).collect();
            let mut sql = String::from(
                "INSERT INTO savings_history (id, client_id, year, month, total_rwas, total_bps, \
                 monthly_growth_rate, lever_breakdown, created_at, updated_at, delta_rwas, delta_bps) VALUES ",
            );
            for j in 0..batch.len() {
                let b = j * 11;
                if j > 0 {
                    sql.push_str(", ");
                }
                sql.push_str(&format!(
                    "(${}, ${}, ${}, ${}, ${}, ${}, ${}, ${}, ${}, ${}, ${}, ${})",
                    b + 1,
                    b + 2,
                    b + 3,
                    b + 4,
                    b + 5,
                    b + 6,
                    b + 7,
                    b + 8,
                    b + 9,
                    b + 9,
                    b + 10,
                    b + 11
                ));
            }
            let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
            for (client, year, month, total, bps, growth, breakdown, dr, db) in &batch {
                q = q
                    .bind(uuid::Uuid::new_v4().to_string())
                    .bind(client.clone())
                    .bind(*year)
                    .bind(*month)
                    .bind(*total)
                    .bind(*bps)
                    .bind(*growth)
                    .bind(breakdown.clone())
                    .bind(now.clone())
                    .bind(*dr)
                    .bind(*db);
            }
            q.execute(&mut *tx).await.context("inserting history")?;
            written += batch.len();
        }
    }
    tx.commit().await?;
    Ok(written)
}

async fn timed(s: &Session, path: &str) -> anyhow::Result<u64> {
    let t = Instant::now();
    let r = s.http.get(format!("{}{}", s.base, path)).send().await?;
    let st = r.status();
    let body = r.bytes().await?;
    let us = t.elapsed().as_micros() as u64;
    if !st.is_success() {
        bail!("GET {path}: HTTP {st} {}", String::from_utf8_lossy(&body));
    }
    Ok(us)
}

fn p95(v: &[u64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_unstable();
    if s.is_empty() {
        return 0.0;
    }
    s[((s.len() as f64 * 0.95).ceil() as usize).clamp(1, s.len()) - 1] as f64 / 1000.0
}

/// Runs the scenario; `Ok(false)` when a target was missed.
pub(crate) async fn run(args: Args) -> anyhow::Result<bool> {
    let dir = TempDir::new("capopt-load-dashboard")?;
    let data = dir.0.join("data");
    let pg = match &args.database_url {
        Some(base) => Some(common::fresh_postgres(base).await?),
        None => None,
    };
    let url = pg.as_ref().map(|(u, _)| u.clone());
    let result = run_on(&args, &data, url).await;
    if let (Some(base), Some((_, name))) = (&args.database_url, &pg) {
        common::drop_postgres(base, name).await;
    }
    result
}

async fn run_on(args: &Args, data: &std::path::Path, url: Option<String>) -> anyhow::Result<bool> {
    let database = if url.is_some() { "postgres" } else { "sqlite" };
    let extra = common::prepare_database(data, url.clone(), args.clients).await?;
    let t = Instant::now();
    let history_rows;
    {
        let config = server::config::Config::for_tests(data.to_path_buf(), url.clone());
        let state = server::build_state(config).await?;
        let pool = state.db.pool.clone();
        let (clients, levers, admin) = crate::file_management::seed_targets(&pool).await?;
        history_rows = seed_history(&pool, &clients, &levers, args.months).await?;
        crate::file_management::seed_files(&pool, args.files, &clients, &levers, &admin).await?;
        if url.is_some() {
            sqlx::query("VACUUM ANALYZE").execute(&pool).await?;
        }
        pool.close().await;
    }
    let seed_secs = t.elapsed().as_secs_f64();
    eprintln!(
        "{database}: {} clients x {} months ({history_rows} history rows) and {} files written in {seed_secs:.1} s",
        args.clients, args.months, args.files
    );

    let instance = common::start_instance_with(
        &args.server_bin,
        data,
        url.as_deref(),
        None,
        &[("RUN_CONCURRENCY", "0")],
    )
    .await?;
    let admin = Session::login(&instance.base, "admin@example.com").await?;
    let user_email = &extra.first().context("no load client")?.email;
    let user = Session::login(&instance.base, user_email).await?;
    let clients = admin.get_json("/api/admin/dashboard/clients").await?;
    let some_client = clients[0]["clientId"]
        .as_str()
        .context("no client row")?
        .to_string();
    let year = chrono::Utc::now().year();

    let mut admin_paths: Vec<String> = Vec::new();
    for period in ["all", "year", "quarter", "month"] {
        admin_paths.push(format!("/api/admin/dashboard/metrics?period={period}"));
    }
    for view in ["yearly", "monthly", "weekly"] {
        admin_paths.push(format!("/api/admin/dashboard/evolution?view={view}"));
    }
    admin_paths.push(format!(
        "/api/admin/dashboard/evolution?view=monthly&year={}",
        year - 1
    ));
    for window in ["last30Days", "last90Days", "last12Months", "allTime"] {
        admin_paths.push(format!("/api/admin/dashboard/overview?window={window}"));
    }
    admin_paths.push("/api/admin/dashboard/levers".into());
    admin_paths.push("/api/admin/dashboard/clients".into());
    admin_paths.push("/api/admin/dashboard/clients?search=client%2005".into());
    admin_paths.push(format!("/api/admin/dashboard/clients/{some_client}/levers"));

    // Warm-up (connections, statement caches), not counted.
    for p in &admin_paths {
        timed(&admin, p).await?;
    }
    timed(&user, "/api/dashboard").await?;

    let mut by: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    let mut admin_all = Vec::new();
    let mut client_all = Vec::new();
    for _ in 0..args.repeat {
        for p in &admin_paths {
            let us = timed(&admin, p).await?;
            admin_all.push(us);
            by.entry(p.clone()).or_default().push(us);
        }
        for _ in 0..5 {
            let us = timed(&user, "/api/dashboard").await?;
            client_all.push(us);
            by.entry("/api/dashboard".into()).or_default().push(us);
        }
    }
    let admin_p95 = p95(&admin_all);
    let client_p95 = p95(&client_all);
    let results = Results {
        database,
        clients: args.clients,
        months: args.months,
        history_rows,
        files: args.files,
        seed_secs,
        admin: Percentiles::of(admin_all),
        admin_p95_ms: admin_p95,
        client: Percentiles::of(client_all),
        client_p95_ms: client_p95,
        by_request: by.into_iter().map(|(k, v)| (k, p95(&v))).collect(),
        passed: admin_p95 <= args.target_admin_p95_ms && client_p95 <= args.target_client_p95_ms,
    };
    let text = serde_json::to_string_pretty(&results)?;
    println!("{text}");
    if let Some(out) = &args.out {
        std::fs::write(out, &text)?;
    }
    drop(instance);
    Ok(results.passed)
}
