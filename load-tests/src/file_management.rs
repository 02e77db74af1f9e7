//! File Management at scale: `--files` (100,000) files over `--clients` (200) clients written
//! into a fresh database (SQLite, or PostgreSQL with `--database-url`), a release `capopt serve`
//! on it, and every combination of the list's filters (free text matching some files or none,
//! client, lever category, category and lever, date range, status) asked for page 1, a deep page
//! and the last page, under each sort, by an administrator through `GET /api/admin/files`:
//! latency percentiles over all requests and per combination (target: p95 <= 50 ms).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, bail};
use serde::Serialize;
use serde_json::Value;

use crate::common::{self, Session, TempDir};

/// Options of `load-tests file-management`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The `capopt` binary (a release build for figures).
    #[arg(long)]
    server_bin: PathBuf,
    /// Files to write.
    #[arg(long, default_value_t = 100_000)]
    files: usize,
    /// Clients they belong to.
    #[arg(long, default_value_t = 200)]
    clients: usize,
    /// Times each request is repeated.
    #[arg(long, default_value_t = 3)]
    repeat: usize,
    /// A PostgreSQL server (`postgres://user@host/db`): a fresh database is created next to it
    /// (and dropped afterwards); SQLite in a temporary directory otherwise.
    #[arg(long)]
    database_url: Option<String>,
    /// Where to write the JSON results.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Keep the database (SQLite's directory, PostgreSQL's name are printed) to look at the
    /// query plans.
    #[arg(long)]
    keep: bool,
    /// The p95 target in milliseconds.
    #[arg(long, default_value_t = 50.0)]
    target_p95_ms: f64,
}

#[derive(Debug, Serialize)]
struct Combo {
    query: String,
    total: i64,
    p50_ms: f64,
    p95_ms: f64,
    max_ms: f64,
}

#[derive(Debug, Serialize)]
struct Results {
    database: &'static str,
    files: usize,
    clients: usize,
    seed_secs: f64,
    combinations: usize,
    requests: usize,
    all: common::Percentiles,
    p95_ms: f64,
    /// Combinations whose own p95 is above the target.
    combinations_over_target: usize,
    worst_combinations: Vec<Combo>,
    by_sort: BTreeMap<String, f64>,
    passed: bool,
}

/// Words file names are made of (the free-text search looks for one of them).
const WORDS: [&str; 12] = [
    "exposures",
    "pse",
    "rgla",
    "mdb",
    "loans",
    "sovereign",
    "corporate",
    "collateral",
    "q1",
    "q2",
    "q3",
    "q4",
];

/// A small deterministic generator (xorshift), so every run writes the same data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Writes the files (and a processing run for every fifth file) in multi-row statements.
pub(crate) async fn seed_files(
    pool: &sqlx::AnyPool,
    files: usize,
    clients: &[String],
    levers: &[String],
    admin: &str,
) -> anyhow::Result<()> {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let start = chrono::Utc::now() - chrono::Duration::days(730);
    const ROWS: usize = 400;
    let mut n = 0;
    while n < files {
        let batch = ROWS.min(files - n);
        let mut sql = String::from(
            "INSERT INTO client_files (id, client_id, name, name_lower, original_name, file_path, file_type, \
             content_type, size_bytes, uploaded_by, uploaded_at, lever_id, processed, savings_rwas, \
             savings_bps, processing_status, object_key) VALUES ",
        );
        let mut rows = Vec::with_capacity(batch);
        for i in 0..batch {
            let k = n + i;
            let client = &clients[rng.below(clients.len() as u64) as usize];
            let lever = (rng.below(10) < 7)
                .then(|| levers[rng.below(levers.len() as u64) as usize].clone());
            let processed = lever.is_some() && rng.below(10) < 6;
            let rwas = if processed {
                (rng.below(5_000_000_000) as f64) / 100.0
            } else {
                0.0
            };
            let at = start + chrono::Duration::seconds(rng.below(730 * 86_400) as i64);
            let name = format!(
                "{}_{}_{}_{k}.csv",
                WORDS[rng.below(WORDS.len() as u64) as usize],
                WORDS[rng.below(WORDS.len() as u64) as usize],
                at.format("%Y%m%d")
            );
            let key = format!("clients/{client}/input/{}.csv", uuid::Uuid::new_v4());
            rows.push((
                uuid::Uuid::new_v4().to_string(),
                client.clone(),
                name,
                server::db::ts(at),
                lever,
                processed,
                rwas,
                key,
            ));
            let b = i * 11;
            if i > 0 {
                sql.push_str(", ");
            }
            // id, client, name, time, lever, processed, rwas, bps, key, uploader, status.
            let p = |j: usize| format!("${}", b + j);
            sql.push_str(&format!(
                "({}, {}, {}, lower({}), {}, {}, 'csv', 'text/csv; charset=utf-8', 2048, {}, {}, {}, {}, {}, {}, {}, {})",
                p(1), p(2), p(3), p(3), p(3), p(9), p(10), p(4), p(5), p(6), p(7), p(8), p(11), p(9)
            ));
        }
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
        for (id, client, name, at, lever, processed, rwas, key) in &rows {
            q = q
                .bind(id.clone())
                .bind(client.clone())
                .bind(name.clone())
                .bind(at.clone())
                .bind(lever.clone())
                .bind(i64::from(*processed))
                .bind(*rwas)
                .bind(*rwas / 1e7)
                .bind(key.clone())
                .bind(admin.to_string())
                .bind(if *processed { "processed" } else { "uploaded" });
        }
        q.execute(pool).await.context("inserting files")?;
        // Runs: every fifth file has one (completed, or failed).
        let with_runs: Vec<_> = rows.iter().step_by(5).collect();
        if !with_runs.is_empty() {
            // id, client, file, user, state, error, time (created and finished).
            let mut sql2 = String::from(
                "INSERT INTO processing_runs (id, client_id, file_id, user_id, mode, state, stage, \
                 error, created_at, finished_at) VALUES ",
            );
            for (i, _) in with_runs.iter().enumerate() {
                let b = i * 7;
                if i > 0 {
                    sql2.push_str(", ");
                }
                sql2.push_str(&format!(
                    "(${}, ${}, ${}, ${}, 'manual', ${}, 'done', ${}, ${}, ${})",
                    b + 1,
                    b + 2,
                    b + 3,
                    b + 4,
                    b + 5,
                    b + 6,
                    b + 7,
                    b + 7
                ));
            }
            let mut q = sqlx::query(sqlx::AssertSqlSafe(sql2));
            for (id, client, _, at, _, processed, _, _) in &with_runs {
                q = q
                    .bind(uuid::Uuid::new_v4().to_string())
                    .bind(client.clone())
                    .bind(id.clone())
                    .bind(admin.to_string())
                    .bind(if *processed { "completed" } else { "failed" })
                    .bind((!*processed).then(|| "No exposure rows could be read".to_string()))
                    .bind(at.clone());
            }
            q.execute(pool).await.context("inserting runs")?;
        }
        n += batch;
    }
    Ok(())
}

/// Every combination of the filters, as query strings (without page and sort).
fn combinations(client: &str, category: &str, lever: &str) -> Vec<String> {
    let mut out = Vec::new();
    for q in ["", "q=sovereign", "q=no-such-file-name"] {
        for c in ["", "client_id="] {
            for cat in 0..3 {
                for dates in ["", "from=2025-06-01&to=2025-06-30"] {
                    for status in ["", "status=processed", "status=unprocessed"] {
                        let mut parts: Vec<String> = Vec::new();
                        if !q.is_empty() {
                            parts.push(q.to_string());
                        }
                        if !c.is_empty() {
                            parts.push(format!("client_id={client}"));
                        }
                        if cat >= 1 {
                            parts.push(format!("category={category}"));
                        }
                        if cat == 2 {
                            parts.push(format!("lever={lever}"));
                        }
                        if !dates.is_empty() {
                            parts.push(dates.to_string());
                        }
                        if !status.is_empty() {
                            parts.push(status.to_string());
                        }
                        out.push(parts.join("&"));
                    }
                }
            }
        }
    }
    out
}

const SORTS: [&str; 6] = [
    "uploaded_at",
    "name",
    "client",
    "savings_rwas",
    "savings_bps",
    "status",
];

async fn timed(s: &Session, path: &str) -> anyhow::Result<(u64, Value)> {
    let t = Instant::now();
    let r = s.http.get(format!("{}{}", s.base, path)).send().await?;
    let st = r.status();
    let v: Value = r.json().await?;
    let us = t.elapsed().as_micros() as u64;
    if !st.is_success() {
        bail!("GET {path}: HTTP {st} {v}");
    }
    Ok((us, v))
}

/// Runs the scenario; `Ok(false)` when the target was missed.
pub(crate) async fn run(args: Args) -> anyhow::Result<bool> {
    let dir = TempDir::new("capopt-load-files")?;
    let data = dir.0.join("data");
    let pg = match &args.database_url {
        Some(base) => Some(common::fresh_postgres(base).await?),
        None => None,
    };
    let url = pg.as_ref().map(|(u, _)| u.clone());
    let result = run_on(&args, &data, url).await;
    if args.keep {
        eprintln!("data kept in {}", dir.0.display());
        std::mem::forget(dir);
    }
    if let (Some(base), Some((_, name))) = (&args.database_url, &pg) {
        if args.keep {
            eprintln!("database {name} kept");
        } else {
            common::drop_postgres(base, name).await;
        }
    }
    result
}

/// What the seeding writes for: the extra clients `common::prepare_database` made (by name), the
/// levers and the administrator's id.
pub(crate) async fn seed_targets(
    pool: &sqlx::AnyPool,
) -> anyhow::Result<(Vec<String>, Vec<String>, String)> {
    let clients: Vec<String> = sqlx::query_as::<_, (String,)>(
        "SELECT id FROM clients WHERE name LIKE 'Load Client %' ORDER BY name",
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .map(|r| r.0)
    .collect();
    let levers: Vec<String> = sqlx::query_as::<_, (String,)>("SELECT id FROM levers ORDER BY id")
        .fetch_all(pool)
        .await?
        .into_iter()
        .map(|r| r.0)
        .collect();
    let (admin,): (String,) =
        sqlx::query_as("SELECT id FROM users WHERE email = 'admin@example.com'")
            .fetch_one(pool)
            .await?;
    Ok((clients, levers, admin))
}

async fn run_on(args: &Args, data: &std::path::Path, url: Option<String>) -> anyhow::Result<bool> {
    let database = if url.is_some() { "postgres" } else { "sqlite" };
    common::prepare_database(data, url.clone(), args.clients).await?;
    let t = Instant::now();
    {
        let config = server::config::Config::for_tests(data.to_path_buf(), url.clone());
        let state = server::build_state(config).await?;
        let pool = state.db.pool.clone();
        let (clients, levers, admin) = seed_targets(&pool).await?;
        seed_files(&pool, args.files, &clients, &levers, &admin).await?;
        // What autovacuum does after a bulk load on PostgreSQL (statistics and visibility map);
        // SQLite keeps no statistics unless asked, and the server does not ask.
        if url.is_some() {
            sqlx::query("VACUUM ANALYZE").execute(&pool).await?;
        }
        pool.close().await;
    }
    let seed_secs = t.elapsed().as_secs_f64();
    eprintln!(
        "{database}: {} files over {} clients written in {seed_secs:.1} s",
        args.files, args.clients
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
    let first = admin.get_json("/api/admin/files?page_size=50").await?;
    let total = first["total"].as_i64().context("no total")?;
    if total < args.files as i64 {
        bail!("the list counts {total} files, fewer than written");
    }
    let sample = &first["items"][0];
    let client = sample["clientId"]
        .as_str()
        .context("no client")?
        .to_string();
    // A lever with its category.
    let levers = admin.get_json("/api/levers").await?;
    let lever = levers
        .as_array()
        .and_then(|l| l.iter().find(|l| l["category"] == "Assets"))
        .context("no Assets lever")?;
    let (lever_id, category) = (
        lever["id"].as_str().unwrap_or_default().to_string(),
        lever["category"].as_str().unwrap_or_default().to_string(),
    );

    let combos = combinations(&client, &category, &lever_id);
    let mut all = Vec::new();
    let mut worst = Vec::new();
    let mut by_sort: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for (ci, filter) in combos.iter().enumerate() {
        let sep = if filter.is_empty() { "" } else { "&" };
        let (_, v) = timed(
            &admin,
            &format!("/api/admin/files?{filter}{sep}page_size=10"),
        )
        .await?;
        let matched = v["total"].as_i64().unwrap_or(0);
        let last = (matched.max(1) + 9) / 10;
        let deep = (last / 2).max(1);
        let mut times = Vec::new();
        for r in 0..args.repeat {
            // Page 1 under the default order, the last and a middle page under the combination's
            // sort (one of seven, each direction), and page 1 with 50 rows.
            let sort = SORTS[(ci + r) % SORTS.len()];
            let dir = if (ci + r) % 2 == 0 { "desc" } else { "asc" };
            for path in [
                format!("/api/admin/files?{filter}{sep}page=1&page_size=10"),
                format!(
                    "/api/admin/files?{filter}{sep}sort={sort}&dir={dir}&page={last}&page_size=10"
                ),
                format!(
                    "/api/admin/files?{filter}{sep}sort={sort}&dir={dir}&page={deep}&page_size=10"
                ),
                format!("/api/admin/files?{filter}{sep}sort={sort}&dir={dir}&page=1&page_size=50"),
            ] {
                let (us, v) = timed(&admin, &path).await?;
                if v["total"].as_i64() != Some(matched) {
                    bail!("{path}: total {} instead of {matched}", v["total"]);
                }
                times.push(us);
                all.push(us);
                by_sort.entry(sort.to_string()).or_default().push(us);
            }
        }
        let p = common::Percentiles::of(times.clone());
        let mut sorted = times;
        sorted.sort_unstable();
        let p95 = sorted[((sorted.len() as f64 * 0.95).ceil() as usize).clamp(1, sorted.len()) - 1]
            as f64
            / 1000.0;
        worst.push(Combo {
            query: if filter.is_empty() {
                "(no filter)".into()
            } else {
                filter.clone()
            },
            total: matched,
            p50_ms: p.p50_ms,
            p95_ms: p95,
            max_ms: p.max_ms,
        });
    }
    let mut sorted = all.clone();
    sorted.sort_unstable();
    let p95 = sorted[((sorted.len() as f64 * 0.95).ceil() as usize).clamp(1, sorted.len()) - 1]
        as f64
        / 1000.0;
    let over = worst
        .iter()
        .filter(|c| c.p95_ms > args.target_p95_ms)
        .count();
    worst.sort_by(|a, b| b.p95_ms.total_cmp(&a.p95_ms));
    worst.truncate(8);
    let by_sort = by_sort
        .into_iter()
        .map(|(k, mut v)| {
            v.sort_unstable();
            let p =
                v[((v.len() as f64 * 0.95).ceil() as usize).clamp(1, v.len()) - 1] as f64 / 1000.0;
            (k, p)
        })
        .collect();
    let results = Results {
        database,
        files: args.files,
        clients: args.clients,
        seed_secs,
        combinations: combos.len(),
        requests: all.len(),
        all: common::Percentiles::of(all),
        p95_ms: p95,
        combinations_over_target: over,
        passed: p95 <= args.target_p95_ms,
        worst_combinations: worst,
        by_sort,
    };
    let text = serde_json::to_string_pretty(&results)?;
    println!("{text}");
    if let Some(out) = &args.out {
        std::fs::write(out, &text)?;
    }
    drop(instance);
    Ok(results.passed)
}
