//! Shared by every scenario: preparing a database, starting `capopt serve`, signing in through the
//! HTTP API, reading a process's memory, and percentiles.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use serde::Serialize;
use tokio::io::{AsyncBufReadExt, BufReader};

/// The demo accounts' password (seeded by `server::seed::seed_demo`).
pub(crate) const DEMO_PASSWORD: &str = "Demo-Password-1";
/// The signing secret shared by every started instance, so a session works on all of them.
pub(crate) const JWT_SECRET: &str = "load-test-secret-load-test-secret-0123456789";

/// A throwaway directory removed on drop.
pub(crate) struct TempDir(pub PathBuf);

impl TempDir {
    pub(crate) fn new(prefix: &str) -> anyhow::Result<TempDir> {
        let p = std::env::temp_dir().join(format!("{prefix}-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&p)?;
        Ok(TempDir(p))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A fresh PostgreSQL database next to `base_url` (dropped by [`drop_postgres`]).
pub(crate) async fn fresh_postgres(base_url: &str) -> anyhow::Result<(String, String)> {
    sqlx::any::install_default_drivers();
    let name = format!("capopt_load_{}", uuid::Uuid::new_v4().simple());
    let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(base_url)
        .await
        .context("connect to PostgreSQL")?;
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut conn)
        .await?;
    let (prefix, _) = base_url
        .rsplit_once('/')
        .context("database URL without a path")?;
    Ok((format!("{prefix}/{name}"), name))
}

/// Drops a database made by [`fresh_postgres`].
pub(crate) async fn drop_postgres(base_url: &str, name: &str) {
    if let Ok(mut conn) = <sqlx::AnyConnection as sqlx::Connection>::connect(base_url).await {
        let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
            "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
        )))
        .execute(&mut conn)
        .await;
    }
}

/// One extra client with one user, created for the load test.
#[derive(Debug, Clone)]
pub(crate) struct LoadClient {
    pub email: String,
}

/// Creates the schema, the demo data and `extra` more clients (each with one user who can sign
/// in with the demo password) directly in the database, before any server starts.
pub(crate) async fn prepare_database(
    data_dir: &Path,
    database_url: Option<String>,
    extra: usize,
) -> anyhow::Result<Vec<LoadClient>> {
    let config = server::config::Config::for_tests(data_dir.to_path_buf(), database_url);
    let state = server::build_state(config).await?;
    server::seed::seed_demo(&state, DEMO_PASSWORD).await?;
    let hash = server::auth::password::hash(DEMO_PASSWORD)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let now = server::db::now();
    let mut out = Vec::with_capacity(extra);
    let mut tx = state.db.pool.begin().await?;
    for i in 0..extra {
        let name = format!("Load Client {:03}", i + 1);
        let email = format!("load-{:03}@load.example", i + 1);
        let client_id = server::db::clients::insert(
            &mut *tx,
            &server::db::clients::NewClient {
                name: &name,
                description: "Created by the load test",
                from_date: None,
                created_by: None,
                official_cet1_capital: None,
                official_total_rwas: None,
                official_cet1_ratio: None,
            },
        )
        .await?;
        let user_id = server::db::users::insert(
            &mut *tx,
            &server::db::users::NewUser {
                email: &email,
                password_hash: Some(&hash),
                name: "Load",
                last_name: &format!("User {:03}", i + 1),
                role: "user",
                company: Some(&name),
                terms_accepted_at: Some(&now),
                password_changed_at: Some(&now),
            },
        )
        .await?;
        server::db::users::add_to_client(&mut *tx, &client_id, &user_id, None).await?;
        out.push(LoadClient { email });
    }
    tx.commit().await?;
    state.db.pool.close().await;
    Ok(out)
}

/// A running `capopt serve` child process.
pub(crate) struct Instance {
    pub child: tokio::process::Child,
    pub base: String,
    pub pid: u32,
}

/// Starts `capopt serve` on an ephemeral port and waits until it listens.
pub(crate) async fn start_instance(
    bin: &Path,
    data_dir: &Path,
    database_url: Option<&str>,
    redis_url: Option<&str>,
) -> anyhow::Result<Instance> {
    start_instance_with(bin, data_dir, database_url, redis_url, &[]).await
}

/// The niceness this process runs at (Linux, `/proc/self/stat`; 0 elsewhere or if unreadable).
pub(crate) fn own_nice() -> i32 {
    nice_of("self")
}

/// The niceness of process `pid` ("self" for this one), from its main thread's `/proc` entry.
pub(crate) fn nice_of(pid: &str) -> i32 {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            // Fields after the command name (which may hold spaces) start after the last ')';
            // nice is the 19th field of the line, the 17th after it.
            let rest = &stat[stat.rfind(')')? + 1..];
            rest.split_whitespace().nth(16)?.parse().ok()
        })
        .unwrap_or(0)
}

/// The command that starts a server: at the normal priority even when the load generator was
/// given a higher one (`nice -n -10 load-tests ...`, so that the sockets standing in for browsers,
/// which run on other machines, do not wait for a core behind the server's engine threads). A
/// child inherits its parent's niceness; `nice -n N` puts it back to 0.
fn server_command(bin: &Path) -> tokio::process::Command {
    match own_nice() {
        n if n < 0 => {
            let mut cmd = tokio::process::Command::new("nice");
            cmd.arg("-n").arg((-n).to_string()).arg(bin);
            cmd
        }
        _ => tokio::process::Command::new(bin),
    }
}

/// [`start_instance`] with further environment variables (`MAX_UPLOAD_MB`, `RUN_CONCURRENCY`).
pub(crate) async fn start_instance_with(
    bin: &Path,
    data_dir: &Path,
    database_url: Option<&str>,
    redis_url: Option<&str>,
    envs: &[(&str, &str)],
) -> anyhow::Result<Instance> {
    let mut cmd = server_command(bin);
    cmd.envs(envs.iter().copied());
    cmd.arg("serve")
        .env("PORT", "0")
        .env("DATA_DIR", data_dir)
        .env("SEED_DEMO", "0")
        .env("JWT_SECRET", JWT_SECRET)
        .env(
            "RUST_LOG",
            std::env::var("SERVER_LOG").unwrap_or_else(|_| "warn".into()),
        )
        .stdout(Stdio::piped())
        .kill_on_drop(true);
    match database_url {
        Some(u) => cmd.env("DATABASE_URL", u),
        None => cmd.env_remove("DATABASE_URL"),
    };
    match redis_url {
        Some(u) => cmd.env("REDIS_URL", u),
        None => cmd.env_remove("REDIS_URL"),
    };
    let mut child = cmd
        .spawn()
        .with_context(|| format!("starting {}", bin.display()))?;
    let pid = child.id().context("server exited at once")?;
    let mut lines = BufReader::new(child.stdout.take().context("no stdout")?).lines();
    let base = tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(line) = lines.next_line().await? {
            if let Some(i) = line.find("http://") {
                return Ok::<_, anyhow::Error>(line[i..].trim().to_string());
            }
        }
        bail!("capopt serve exited before listening")
    })
    .await
    .context("capopt serve did not listen within 60 s")??;
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Ok(Instance { child, base, pid })
}

/// Resident memory of a process in KiB (`VmRSS` of `/proc/<pid>/status`).
pub(crate) fn rss_kib(pid: u32) -> anyhow::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let line = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .context("no VmRSS line")?;
    Ok(line
        .split_whitespace()
        .nth(1)
        .context("bad VmRSS line")?
        .parse()?)
}

/// A signed-in HTTP session on one instance.
#[derive(Clone)]
pub(crate) struct Session {
    pub http: reqwest::Client,
    pub base: String,
    /// The `Cookie` header a browser would send (access and CSRF cookies).
    pub cookie: String,
    pub csrf: String,
}

impl Session {
    /// Signs in through `POST /api/auth/login`.
    pub(crate) async fn login(base: &str, email: &str) -> anyhow::Result<Session> {
        use reqwest::cookie::CookieStore;
        let jar = Arc::new(reqwest::cookie::Jar::default());
        let http = reqwest::Client::builder()
            .cookie_provider(jar.clone())
            .pool_max_idle_per_host(4)
            .build()?;
        http.get(format!("{base}/api/health"))
            .send()
            .await?
            .error_for_status()?;
        let url: reqwest::Url = format!("{base}/api/ws").parse()?;
        let csrf = cookie_value(&jar, &url, "capopt_csrf").context("no CSRF cookie")?;
        let r = http
            .post(format!("{base}/api/auth/login"))
            .header("x-csrf-token", &csrf)
            .json(&serde_json::json!({"email": email, "password": DEMO_PASSWORD}))
            .send()
            .await?;
        if !r.status().is_success() {
            bail!(
                "login {email}: HTTP {} {}",
                r.status(),
                r.text().await.unwrap_or_default()
            );
        }
        let cookie = jar
            .cookies(&url)
            .context("no cookies after login")?
            .to_str()?
            .to_string();
        // The server hands out a new CSRF token at sign-in.
        let csrf = cookie_value(&jar, &url, "capopt_csrf").context("no CSRF cookie")?;
        Ok(Session {
            http,
            base: base.to_string(),
            cookie,
            csrf,
        })
    }

    /// The same session, used against another instance (sessions live in the shared database).
    pub(crate) fn on(&self, base: &str) -> Session {
        Session {
            base: base.to_string(),
            ..self.clone()
        }
    }

    pub(crate) async fn get_json(&self, path: &str) -> anyhow::Result<serde_json::Value> {
        let r = self
            .http
            .get(format!("{}{}", self.base, path))
            .send()
            .await?;
        let st = r.status();
        let v: serde_json::Value = r.json().await?;
        if !st.is_success() {
            bail!("GET {path}: HTTP {st} {v}");
        }
        Ok(v)
    }

    /// A `PATCH` with a JSON body; returns the status and the body.
    pub(crate) async fn patch(
        &self,
        path: &str,
        body: &serde_json::Value,
    ) -> anyhow::Result<(u16, serde_json::Value)> {
        let r = self
            .http
            .patch(format!("{}{}", self.base, path))
            .header("x-csrf-token", &self.csrf)
            .json(body)
            .send()
            .await?;
        let st = r.status().as_u16();
        let v = r.json().await.unwrap_or(serde_json::Value::Null);
        Ok((st, v))
    }

    /// A state-changing call; returns the status, the `x-event-seq` header and the body.
    pub(crate) async fn post(
        &self,
        path: &str,
        body: &serde_json::Value,
    ) -> anyhow::Result<(u16, Option<i64>, serde_json::Value)> {
        let r = self
            .http
            .post(format!("{}{}", self.base, path))
            .header("x-csrf-token", &self.csrf)
            .json(body)
            .send()
            .await?;
        let st = r.status().as_u16();
        let seq = r
            .headers()
            .get("x-event-seq")
            .and_then(|v| v.to_str().ok())
            .and_then(|s| s.parse().ok());
        let v = r.json().await.unwrap_or(serde_json::Value::Null);
        Ok((st, seq, v))
    }
}

fn cookie_value(jar: &reqwest::cookie::Jar, url: &reqwest::Url, name: &str) -> Option<String> {
    use reqwest::cookie::CookieStore;
    let h = jar.cookies(url)?;
    h.to_str()
        .ok()?
        .split("; ")
        .filter_map(|kv| kv.split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

/// Latency percentiles in milliseconds.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Percentiles {
    pub samples: usize,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
}

impl Percentiles {
    /// From samples in microseconds.
    pub(crate) fn of(mut micros: Vec<u64>) -> Percentiles {
        micros.sort_unstable();
        let at = |q: f64| -> f64 {
            if micros.is_empty() {
                return 0.0;
            }
            let i = ((micros.len() as f64 * q).ceil() as usize).clamp(1, micros.len()) - 1;
            micros[i] as f64 / 1000.0
        };
        Percentiles {
            samples: micros.len(),
            p50_ms: at(0.50),
            p90_ms: at(0.90),
            p95_ms: at(0.95),
            p99_ms: at(0.99),
            max_ms: at(1.0),
        }
    }
}

/// Runs the `capopt` binary with `args` (its output discarded); an error when it fails.
pub(crate) fn capopt(bin: &Path, args: &[&str]) -> anyhow::Result<()> {
    let st = std::process::Command::new(bin)
        .args(args)
        .stdout(Stdio::null())
        .status()?;
    if !st.success() {
        anyhow::bail!("capopt {args:?} failed");
    }
    Ok(())
}

/// Writes a generated PSE exposure file of `rows` rows to `output` (`capopt generate-exposures`).
pub(crate) fn generate_pse(bin: &Path, rows: usize, output: &Path) -> anyhow::Result<()> {
    let rows = rows.to_string();
    let output = output.to_str().ok_or_else(|| anyhow::anyhow!("path"))?;
    capopt(
        bin,
        &[
            "generate-exposures",
            "--lever",
            "pse",
            "--rows",
            &rows,
            "--output",
            output,
        ],
    )
}
