//! Database access. One set of portable SQL runs on SQLite and PostgreSQL through sqlx's `Any`
//! driver (see `migrations/README.md` for the portable subset). Queries are free functions per
//! entity group taking an executor, so handlers, WebSocket code and background work share them.

use std::str::FromStr;
use std::time::Duration;

use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{AnyPool, Executor};

pub mod admin_clients;
pub mod admin_users;
pub mod board;
pub mod classification;
pub mod clients;
pub mod dashboard;
pub mod file_admin;
pub mod files;
pub mod insights;
pub mod justifications;
pub mod knowledge;
pub mod lever_files;
pub mod levers;
pub mod mappings;
pub mod misc;
pub mod profile;
pub mod qa;
pub mod regulatory_rules;
pub mod report_media;
pub mod report_templates;
pub mod report_versions;
pub mod reports;
pub mod runs;
pub mod savings;
pub mod scenarios;
pub mod sessions;
pub mod settings;
pub mod users;
pub mod validations;

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
                        // Reads through the operating system's page cache without a copy per
                        // page (long index walks such as the file lists').
                        conn.execute("PRAGMA mmap_size = 268435456").await?;
                        // Statistics for the query planner, as SQLite recommends at each new
                        // connection: tables are analysed (sampled) only when they have none
                        // or grew tenfold since (the administrators' file list relies on them
                        // to choose between its indexes).
                        conn.execute("PRAGMA analysis_limit = 1000").await?;
                        conn.execute("PRAGMA optimize = 0x10002").await?;
                    }
                    Ok(())
                })
            })
            .connect_with(opts)
            .await?;
        sqlx::migrate!("../migrations").run(&pool).await?;
        match backend {
            // The connections opened before the migrations saw no tables to analyse.
            Backend::Sqlite => {
                pool.execute("PRAGMA optimize = 0x10002").await?;
            }
            Backend::Postgres => postgres_name_search(&pool).await,
        }
        // The knowledge base's full-text index, per dialect (its DDL is not portable).
        knowledge::set_up_search(&pool, backend).await?;
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

    /// Opens a transaction that will write. On SQLite it takes the write lock at once
    /// (`BEGIN IMMEDIATE`): a deferred transaction that reads first and writes later fails with
    /// "database is locked" if another connection wrote in between (WAL cannot upgrade a stale
    /// read snapshot, whatever the busy timeout), while an immediate one waits its turn.
    pub async fn begin_write(&self) -> sqlx::Result<sqlx::Transaction<'static, sqlx::Any>> {
        match self.backend {
            Backend::Sqlite => self.pool.begin_with("BEGIN IMMEDIATE").await,
            Backend::Postgres => self.pool.begin().await,
        }
    }

    /// Whether the database holds no users yet (a fresh install).
    pub async fn is_empty(&self) -> sqlx::Result<bool> {
        let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM users")
            .fetch_one(&self.pool)
            .await?;
        Ok(n == 0)
    }
}

/// PostgreSQL only, outside the shared migrations (SQLite has no such index): a trigram index on
/// the lower-cased file names (`name_lower`, migration 0018), so that the administrators'
/// free-text search (`LIKE '%...%'`) reads the files whose names hold the text instead of every
/// row. `pg_trgm` is a trusted extension (the
/// database's owner may create it); without it the search still works, reading every row, and a
/// warning says so. Idempotent, and harmless when several instances start together.
async fn postgres_name_search(pool: &AnyPool) {
    for statement in [
        "CREATE EXTENSION IF NOT EXISTS pg_trgm",
        "DROP INDEX IF EXISTS client_files_name_trgm",
        "CREATE INDEX IF NOT EXISTS client_files_name_lower_trgm ON client_files USING gin (name_lower gin_trgm_ops)",
    ] {
        if let Err(e) = pool.execute(statement).await {
            tracing::warn!(error = %e, statement, "file name search index unavailable: searches read every file row");
            return;
        }
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

#[cfg(test)]
mod tests {
    use super::Db;

    async fn scratch() -> (Db, std::path::PathBuf) {
        let dir = std::env::temp_dir().join(format!("capopt-db-{}", super::new_id()));
        std::fs::create_dir_all(&dir).unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.join("t.db").display());
        let db = Db::connect(&url).await.unwrap();
        sqlx::query("CREATE TABLE t (x BIGINT)")
            .execute(&db.pool)
            .await
            .unwrap();
        (db, dir)
    }

    /// Why writes begin with `begin_write`: a deferred transaction that read before another
    /// connection wrote cannot write any more on SQLite; an immediate one makes the other
    /// writer wait, and both writes land.
    #[tokio::test]
    async fn a_change_that_reads_first_is_not_refused_when_another_connection_writes() {
        let (db, dir) = scratch().await;
        let count = "SELECT COUNT(*) FROM t";

        let mut deferred = db.pool.begin().await.unwrap();
        let _: (i64,) = sqlx::query_as(count)
            .fetch_one(&mut *deferred)
            .await
            .unwrap();
        sqlx::query("INSERT INTO t VALUES (1)")
            .execute(&db.pool)
            .await
            .unwrap();
        let refused = sqlx::query("INSERT INTO t VALUES (2)")
            .execute(&mut *deferred)
            .await;
        assert!(refused.is_err(), "a deferred read-then-write is refused");
        drop(deferred);

        let mut immediate = db.begin_write().await.unwrap();
        let _: (i64,) = sqlx::query_as(count)
            .fetch_one(&mut *immediate)
            .await
            .unwrap();
        let pool = db.pool.clone();
        let other =
            tokio::spawn(
                async move { sqlx::query("INSERT INTO t VALUES (3)").execute(&pool).await },
            );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        sqlx::query("INSERT INTO t VALUES (4)")
            .execute(&mut *immediate)
            .await
            .expect("the immediate transaction writes");
        immediate.commit().await.unwrap();
        other
            .await
            .unwrap()
            .expect("the other writer waited its turn");
        let (n,): (i64,) = sqlx::query_as(count).fetch_one(&db.pool).await.unwrap();
        assert_eq!(n, 3);
        db.pool.close().await;
        let _ = std::fs::remove_dir_all(dir);
    }
}
