//! Database access. One set of portable SQL runs on SQLite and PostgreSQL through sqlx's `Any`
//! driver (see `migrations/README.md` for the portable subset). Queries are free functions per
//! entity group taking an executor, so handlers, WebSocket code and background work share them.

use std::str::FromStr;
use std::time::Duration;

use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{AnyPool, Executor};

pub mod board;
pub mod clients;
pub mod files;
pub mod levers;
pub mod mappings;
pub mod misc;
pub mod reports;
pub mod runs;
pub mod savings;
pub mod sessions;
pub mod users;

/// Which database engine is behind the pool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// Embedded SQLite file.
    Sqlite,
    /// PostgreSQL server.
    Postgres,
}

/// The database handle kept in the application state.
#[derive(Debug, Clone)]
pub struct Db {
    /// The connection pool.
    pub pool: AnyPool,
    /// The engine in use.
    pub backend: Backend,
}

impl Db {
    /// Connects to `url` (creating the SQLite file and its directory if needed) and applies the
    /// migrations.
    pub async fn connect(url: &str) -> anyhow::Result<Db> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            Backend::Postgres
        } else if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else {
            anyhow::bail!("unsupported DATABASE_URL (expected sqlite:// or postgres://): {url}");
        };
        if backend == Backend::Sqlite
            && let Some(path) = sqlite_path(url)
            && let Some(dir) = std::path::Path::new(&path).parent()
            && !dir.as_os_str().is_empty()
        {
            std::fs::create_dir_all(dir)?;
        }
        let sqlite_file = match backend {
            Backend::Sqlite => sqlite_path(url),
            Backend::Postgres => None,
        };
        if let Some(path) = &sqlite_file {
            restrict_to_owner(path, true)?;
        }
        let opts = AnyConnectOptions::from_str(url)?;
        let pool = AnyPoolOptions::new()
            .max_connections(if backend == Backend::Sqlite { 8 } else { 16 })
            .min_connections(1)
            .acquire_timeout(Duration::from_secs(10))
            .after_connect(move |conn, _meta| {
                Box::pin(async move {
                    if backend == Backend::Sqlite {
                        conn.execute("PRAGMA journal_mode = WAL").await?;
                        conn.execute("PRAGMA busy_timeout = 10000").await?;
                        conn.execute("PRAGMA foreign_keys = ON").await?;
                        conn.execute("PRAGMA synchronous = NORMAL").await?;
                    }
                    Ok(())
                })
            })
            .connect_with(opts)
            .await?;
        sqlx::migrate!("../migrations").run(&pool).await?;
        if let Some(path) = &sqlite_file {
            // SQLite gives its journal files the database file's mode; older ones are fixed here.
            for suffix in ["-wal", "-shm", "-journal"] {
                restrict_to_owner(&format!("{path}{suffix}"), false)?;
            }
        }
        Ok(Db { pool, backend })
    }

    /// Checks that the database answers.
    pub async fn ping(&self) -> sqlx::Result<()> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    /// Whether the database holds no users yet (a fresh install).
    pub async fn is_empty(&self) -> sqlx::Result<bool> {
        let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM users")
            .fetch_one(&self.pool)
            .await?;
        Ok(n == 0)
    }
}

/// Makes a database file readable and writable by the server's user only (0600), creating it
/// so when `create` (before SQLite creates it with the process umask).
fn restrict_to_owner(path: &str, create: bool) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        let p = std::path::Path::new(path);
        if create && !p.exists() {
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o600)
                .open(p)?;
        }
        if p.exists() {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o600))?;
        }
    }
    #[cfg(not(unix))]
    let _ = (path, create);
    Ok(())
}

fn sqlite_path(url: &str) -> Option<String> {
    let rest = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))?;
    let path = rest.split('?').next()?;
    if path.is_empty() || path == ":memory:" {
        None
    } else {
        Some(path.to_string())
    }
}

/// The current time as stored in the database: RFC 3339 UTC with microseconds, fixed width.
pub fn now() -> String {
    ts(chrono::Utc::now())
}

/// Formats a time the way the database stores it.
pub fn ts(t: chrono::DateTime<chrono::Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()
}

/// Parses a stored time.
pub fn parse_ts(s: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    chrono::DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|t| t.with_timezone(&chrono::Utc))
}

/// A new random id.
pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}
