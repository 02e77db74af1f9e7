//! Processing runs (`processing_runs`): insert, the one-statement lease claim, heartbeat and
//! progress, cancel, and the guarded state transitions of completion. See `jobs::runs` for the
//! protocol these statements implement.

use sqlx::{AnyConnection, AnyExecutor, FromRow};

use super::Backend;

/// The columns of a run, in [`RunRow`]'s order.
const COLS: &str = "id, client_id, file_id, user_id, mode, lever_id, options, state, stage, \
    rows_read, rows_total, rows_done, rows_matched, seq, attempts, max_attempts, owner, \
    lease_until, cancel_requested, error, result, created_at, started_at, finished_at, heartbeat_at";

/// A stored run.
#[derive(Debug, Clone, FromRow)]
pub struct RunRow {
    /// Id.
    pub id: String,
    /// Client.
    pub client_id: String,
    /// The file (`client_files.id`).
    pub file_id: String,
    /// Who started it.
    pub user_id: Option<String>,
    /// `manual` or `enhanced-ai`.
    pub mode: String,
    /// The lever chosen (manual) or found by classification (after the run).
    pub lever_id: Option<String>,
    /// JSON options (mapping, risk-weight format, maturity unit).
    pub options: String,
    /// `queued`, `running`, `completed`, `failed`, `pending_review`, `cancelled`.
    pub state: String,
    /// The stage.
    pub stage: String,
    /// Rows read so far.
    pub rows_read: i64,
    /// Rows in the file, when known.
    pub rows_total: Option<i64>,
    /// Rows evaluated.
    pub rows_done: i64,
    /// Rows matched.
    pub rows_matched: i64,
    /// Sequence of the last stored progress event.
    pub seq: i64,
    /// Claims so far.
    pub attempts: i64,
    /// Claims allowed.
    pub max_attempts: i64,
    /// The instance holding the lease.
    pub owner: Option<String>,
    /// When the lease ends.
    pub lease_until: Option<String>,
    /// 1 when a cancel was asked while it ran.
    pub cancel_requested: i64,
    /// The failure message.
    pub error: Option<String>,
    /// JSON result.
    pub result: Option<String>,
    /// Queued at.
    pub created_at: String,
    /// First claimed at.
    pub started_at: Option<String>,
    /// Ended at.
    pub finished_at: Option<String>,
    /// Last heartbeat.
    pub heartbeat_at: Option<String>,
}

/// A new run's row.
#[derive(Debug)]
pub struct NewRunRow<'a> {
    /// Id.
    pub id: &'a str,
    /// Client.
    pub client_id: &'a str,
    /// File.
    pub file_id: &'a str,
    /// Who started it.
    pub user_id: &'a str,
    /// Mode.
    pub mode: &'a str,
    /// Lever.
    pub lever_id: Option<&'a str>,
    /// JSON options.
    pub options: &'a str,
    /// Claims allowed.
    pub max_attempts: i64,
    /// Now.
    pub now: &'a str,
}

/// Inserts a queued run.
#[tracing::instrument(skip(conn), err)]
pub async fn insert(conn: &mut AnyConnection, r: &NewRunRow<'_>) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO processing_runs (id, client_id, file_id, user_id, mode, lever_id, options,
            state, stage, seq, max_attempts, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'queued', 'queued', 1, $8, $9)",
    )
    .bind(r.id)
    .bind(r.client_id)
    .bind(r.file_id)
    .bind(r.user_id)
    .bind(r.mode)
    .bind(r.lever_id)
    .bind(r.options)
    .bind(r.max_attempts)
    .bind(r.now)
    .execute(conn)
    .await?;
    Ok(())
}

/// One run.
#[tracing::instrument(skip(ex), err)]
pub async fn get<'e>(ex: impl AnyExecutor<'e>, id: &str) -> sqlx::Result<Option<RunRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM processing_runs WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(ex)
    .await
}

/// A client's most recent runs, newest first, optionally of one state.
#[tracing::instrument(skip(ex), err)]
pub async fn list_for_client<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
    state: Option<&str>,
    limit: i64,
) -> sqlx::Result<Vec<RunRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM processing_runs WHERE client_id = $1 AND ($2 IS NULL OR state = $2)
         ORDER BY created_at DESC, id DESC LIMIT $3"
    )))
    .bind(client_id)
    .bind(state)
    .bind(limit)
    .fetch_all(ex)
    .await
}

/// The latest run of each file of a client (for file lists).
#[tracing::instrument(skip(ex), err)]
pub async fn latest_for_files<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
) -> sqlx::Result<Vec<RunRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM processing_runs r WHERE client_id = $1 AND created_at = (
            SELECT MAX(created_at) FROM processing_runs r2 WHERE r2.file_id = r.file_id)
         ORDER BY created_at DESC"
    )))
    .bind(client_id)
    .fetch_all(ex)
    .await
}

/// The latest run of one file.
#[tracing::instrument(skip(ex), err)]
pub async fn latest_for_file<'e>(
    ex: impl AnyExecutor<'e>,
    file_id: &str,
) -> sqlx::Result<Option<RunRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM processing_runs WHERE file_id = $1
         ORDER BY created_at DESC, id DESC LIMIT 1"
    )))
    .bind(file_id)
    .fetch_optional(ex)
    .await
}

/// The one-statement claim: the oldest queued run, or a running run whose lease expired and
/// that has claims left, becomes this owner's with a fresh lease; `attempts` counts the claim
/// and `seq` starts the attempt's range (attempts x 2^32). The repeated condition in the outer
/// `WHERE` makes PostgreSQL re-check the row after the subquery's lock (so two instances never
/// both claim a run); `FOR UPDATE SKIP LOCKED` lets them claim different runs at once. SQLite
/// serialises writers, so the same statement without the locking clause is enough there.
#[tracing::instrument(skip(conn), err)]
pub async fn claim(
    conn: &mut AnyConnection,
    backend: Backend,
    owner: &str,
    now: &str,
    lease_until: &str,
) -> sqlx::Result<Option<RunRow>> {
    let lock = match backend {
        Backend::Postgres => " FOR UPDATE SKIP LOCKED",
        Backend::Sqlite => "",
    };
    let claimable = "(state = 'queued' OR (state = 'running' AND lease_until < $2 \
                     AND attempts < max_attempts))";
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "UPDATE processing_runs SET state = 'running', owner = $1, lease_until = $3,
            attempts = attempts + 1, seq = (attempts + 1) * 4294967296, stage = 'reading',
            rows_read = 0, rows_done = 0, rows_matched = 0,
            started_at = COALESCE(started_at, $2), heartbeat_at = $2
         WHERE id = (SELECT id FROM processing_runs WHERE {claimable}
                     ORDER BY created_at, id LIMIT 1{lock})
           AND {claimable}
         RETURNING {COLS}"
    )))
    .bind(owner)
    .bind(now)
    .bind(lease_until)
    .fetch_optional(conn)
    .await
}

/// Running runs whose lease expired after their last allowed claim (the instance died every
/// time): they are failed by the caller.
#[tracing::instrument(skip(ex), err)]
pub async fn exhausted<'e>(ex: impl AnyExecutor<'e>, now: &str) -> sqlx::Result<Vec<RunRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM processing_runs
         WHERE state = 'running' AND lease_until < $1 AND attempts >= max_attempts
         ORDER BY created_at LIMIT 20"
    )))
    .bind(now)
    .fetch_all(ex)
    .await
}

/// The progress a worker stores (at most about once a second, and at each stage boundary).
#[derive(Debug, Clone)]
pub struct ProgressWrite<'a> {
    /// Stage.
    pub stage: &'a str,
    /// Rows read.
    pub rows_read: i64,
    /// Rows total, when known.
    pub rows_total: Option<i64>,
    /// Rows done.
    pub rows_done: i64,
    /// Rows matched.
    pub rows_matched: i64,
    /// The event sequence number published with it.
    pub seq: i64,
}

/// Stores progress and extends the lease, if this owner still holds the run in this attempt.
/// Returns `Some(cancel_requested)`, or `None` when the run is no longer this owner's (its lease
/// was taken over, or it was cancelled or deleted): the worker must stop and write nothing.
#[tracing::instrument(skip(ex), err)]
pub async fn heartbeat<'e>(
    ex: impl AnyExecutor<'e>,
    id: &str,
    owner: &str,
    attempt: i64,
    p: &ProgressWrite<'_>,
    now: &str,
    lease_until: &str,
) -> sqlx::Result<Option<bool>> {
    let row: Option<(i64,)> = sqlx::query_as(
        "UPDATE processing_runs SET stage = $1, rows_read = $2, rows_total = $3, rows_done = $4,
            rows_matched = $5, seq = $6, heartbeat_at = $7, lease_until = $8
         WHERE id = $9 AND owner = $10 AND attempts = $11 AND state = 'running'
         RETURNING cancel_requested",
    )
    .bind(p.stage)
    .bind(p.rows_read)
    .bind(p.rows_total)
    .bind(p.rows_done)
    .bind(p.rows_matched)
    .bind(p.seq)
    .bind(now)
    .bind(lease_until)
    .bind(id)
    .bind(owner)
    .bind(attempt)
    .fetch_optional(ex)
    .await?;
    Ok(row.map(|(c,)| c != 0))
}

/// Cancels a queued run at once; returns whether it was queued.
#[tracing::instrument(skip(conn), err)]
pub async fn cancel_queued(conn: &mut AnyConnection, id: &str, now: &str) -> sqlx::Result<bool> {
    let n = sqlx::query(
        "UPDATE processing_runs SET state = 'cancelled', stage = 'done', seq = seq + 1,
            finished_at = $2, error = 'Cancelled'
         WHERE id = $1 AND state = 'queued'",
    )
    .bind(id)
    .bind(now)
    .execute(conn)
    .await?
    .rows_affected();
    Ok(n == 1)
}

/// Asks a running run to stop; returns whether it was running.
#[tracing::instrument(skip(ex), err)]
pub async fn request_cancel<'e>(ex: impl AnyExecutor<'e>, id: &str) -> sqlx::Result<bool> {
    let n = sqlx::query(
        "UPDATE processing_runs SET cancel_requested = 1 WHERE id = $1 AND state = 'running'",
    )
    .bind(id)
    .execute(ex)
    .await?
    .rows_affected();
    Ok(n == 1)
}

/// The end of a run, written by its owner in the completion transaction.
#[derive(Debug)]
pub struct Finish<'a> {
    /// `completed`, `failed`, `pending_review` or `cancelled`.
    pub state: &'a str,
    /// The lever analysed (classified in enhanced-AI mode).
    pub lever_id: Option<&'a str>,
    /// The failure message.
    pub error: Option<&'a str>,
    /// JSON result.
    pub result: Option<&'a str>,
    /// JSON of the analysis' totals and breakdowns (`service::qa::facts::RunFacts`), completed
    /// runs only.
    pub facts: Option<&'a str>,
    /// The final figures.
    pub progress: ProgressWrite<'a>,
    /// Now.
    pub now: &'a str,
}

/// Ends a run, guarded by its owner and attempt (and its running state): a second or late
/// completion (a retried attempt, a duplicated call, an owner whose lease was taken over) changes
/// nothing and returns false. The caller writes the run's effects only when this returns true,
/// in the same transaction.
#[tracing::instrument(skip(conn, f), err)]
pub async fn finish(
    conn: &mut AnyConnection,
    id: &str,
    owner: &str,
    attempt: i64,
    f: &Finish<'_>,
) -> sqlx::Result<bool> {
    let n = sqlx::query(
        "UPDATE processing_runs SET state = $1, stage = $2, lever_id = COALESCE($3, lever_id),
            error = $4, result = $5, rows_read = $6, rows_total = $7, rows_done = $8,
            rows_matched = $9, seq = $10, finished_at = $11, heartbeat_at = $11,
            lease_until = NULL, facts = $15
         WHERE id = $12 AND owner = $13 AND attempts = $14 AND state = 'running'",
    )
    .bind(f.state)
    .bind(f.progress.stage)
    .bind(f.lever_id)
    .bind(f.error)
    .bind(f.result)
    .bind(f.progress.rows_read)
    .bind(f.progress.rows_total)
    .bind(f.progress.rows_done)
    .bind(f.progress.rows_matched)
    .bind(f.progress.seq)
    .bind(f.now)
    .bind(id)
    .bind(owner)
    .bind(attempt)
    .bind(f.facts)
    .execute(conn)
    .await?
    .rows_affected();
    Ok(n == 1)
}

/// Fails a run whose claims are exhausted (guarded: only while it is still running with an
/// expired lease and no claims left).
#[tracing::instrument(skip(conn), err)]
pub async fn fail_exhausted(
    conn: &mut AnyConnection,
    id: &str,
    message: &str,
    now: &str,
) -> sqlx::Result<bool> {
    let n = sqlx::query(
        "UPDATE processing_runs SET state = 'failed', stage = 'done', error = $2,
            seq = seq + 1, finished_at = $3, lease_until = NULL
         WHERE id = $1 AND state = 'running' AND lease_until < $3 AND attempts >= max_attempts",
    )
    .bind(id)
    .bind(message)
    .bind(now)
    .execute(conn)
    .await?
    .rows_affected();
    Ok(n == 1)
}

/// What a run needs of its file and client.
#[derive(Debug, Clone, FromRow)]
pub struct RunInput {
    /// The file's display name (sanitised original name).
    pub name: String,
    /// The original name as uploaded (sanitised); empty for older rows.
    pub original_name: String,
    /// The stored original's key.
    pub object_key: Option<String>,
    /// The client's country (ISO alpha-2).
    pub country: String,
}

/// The file and client facts a run reads; `None` when the file is gone.
#[tracing::instrument(skip(ex), err)]
pub async fn run_input<'e>(
    ex: impl AnyExecutor<'e>,
    file_id: &str,
) -> sqlx::Result<Option<RunInput>> {
    sqlx::query_as(
        "SELECT f.name, f.original_name, f.object_key, c.country
         FROM client_files f JOIN clients c ON c.id = f.client_id WHERE f.id = $1",
    )
    .bind(file_id)
    .fetch_optional(ex)
    .await
}

/// A lever's id and name by its analysis code (`pse`, `mdb`, ...).
#[tracing::instrument(skip(ex), err)]
pub async fn lever_by_code<'e>(
    ex: impl AnyExecutor<'e>,
    code: &str,
) -> sqlx::Result<Option<(String, String)>> {
    sqlx::query_as("SELECT id, lever_name FROM levers WHERE lower(code) = lower($1)")
        .bind(code)
        .fetch_optional(ex)
        .await
}

/// A lever's code and name by id.
#[tracing::instrument(skip(ex), err)]
pub async fn lever_by_id<'e>(
    ex: impl AnyExecutor<'e>,
    id: &str,
) -> sqlx::Result<Option<(Option<String>, String)>> {
    sqlx::query_as("SELECT code, lever_name FROM levers WHERE id = $1")
        .bind(id)
        .fetch_optional(ex)
        .await
}

/// Sets a file's processing status (and clears or sets its error).
#[tracing::instrument(skip(ex), err)]
pub async fn set_file_status<'e>(
    ex: impl AnyExecutor<'e>,
    file_id: &str,
    status: &str,
    error: Option<&str>,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE client_files SET processing_status = $1, processing_error = $2 WHERE id = $3",
    )
    .bind(status)
    .bind(error)
    .bind(file_id)
    .execute(ex)
    .await?;
    Ok(())
}

/// A run's results on its file.
#[derive(Debug)]
pub struct FileResult<'a> {
    /// `processed` or `pending_review`.
    pub status: &'a str,
    /// Whether the file counts as processed (its savings count).
    pub processed: bool,
    /// The processed output's key.
    pub processed_object_key: Option<&'a str>,
    /// The lever analysed.
    pub lever_id: Option<&'a str>,
    /// RWA savings.
    pub savings_rwas: f64,
    /// Basis points.
    pub savings_bps: f64,
}

/// Writes a run's results on its file; false when the file is gone.
#[tracing::instrument(skip(ex), err)]
pub async fn set_file_result<'e>(
    ex: impl AnyExecutor<'e>,
    file_id: &str,
    r: &FileResult<'_>,
) -> sqlx::Result<bool> {
    let n = sqlx::query(
        "UPDATE client_files SET processing_status = $1, processing_error = NULL, processed = $2,
            processed_object_key = $3, lever_id = COALESCE($4, lever_id), savings_rwas = $5,
            savings_bps = $6
         WHERE id = $7",
    )
    .bind(r.status)
    .bind(i64::from(r.processed))
    .bind(r.processed_object_key)
    .bind(r.lever_id)
    .bind(r.savings_rwas)
    .bind(r.savings_bps)
    .bind(file_id)
    .execute(ex)
    .await?
    .rows_affected();
    Ok(n == 1)
}

/// Adds a changelog entry.
#[tracing::instrument(skip(ex), err)]
pub async fn changelog_insert<'e>(
    ex: impl AnyExecutor<'e>,
    entry_type: &str,
    description: &str,
    category: &str,
    actor_id: Option<&str>,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO changelog (id, entry_type, description, category, actor_id, created_at)
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(super::new_id())
    .bind(entry_type)
    .bind(description)
    .bind(category)
    .bind(actor_id)
    .bind(super::now())
    .execute(ex)
    .await?;
    Ok(())
}

/// A run with the names the administrators' list shows.
#[derive(Debug, Clone, FromRow)]
pub struct AdminRunRow {
    /// The run.
    #[sqlx(flatten)]
    pub run: RunRow,
    /// Its client's name.
    pub client_name: String,
    /// Its file's name (the user's, as uploaded).
    pub file_name: String,
    /// Its lever's name (chosen, or found by classification), if any.
    pub lever_name: Option<String>,
}

/// The filters of the administrators' run list (`None`: any).
#[derive(Debug, Clone, Copy, Default)]
pub struct AdminRunFilter<'a> {
    /// One state.
    pub state: Option<&'a str>,
    /// One client.
    pub client_id: Option<&'a str>,
}

/// One page of every client's runs, newest first, with the client, file and lever names.
#[tracing::instrument(skip(ex), err)]
pub async fn list_admin<'e>(
    ex: impl AnyExecutor<'e>,
    filter: AdminRunFilter<'_>,
    limit: i64,
    offset: i64,
) -> sqlx::Result<Vec<AdminRunRow>> {
    let cols: Vec<String> = COLS.split(',').map(|c| format!("r.{}", c.trim())).collect();
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {}, c.name AS client_name,
            CASE WHEN f.original_name = '' THEN f.name ELSE f.original_name END AS file_name,
            l.lever_name AS lever_name
         FROM processing_runs r
         JOIN clients c ON c.id = r.client_id
         JOIN client_files f ON f.id = r.file_id
         LEFT JOIN levers l ON l.id = r.lever_id
         WHERE ($1 IS NULL OR r.state = $1) AND ($2 IS NULL OR r.client_id = $2)
         ORDER BY r.created_at DESC, r.id DESC LIMIT $3 OFFSET $4",
        cols.join(", ")
    )))
    .bind(filter.state)
    .bind(filter.client_id)
    .bind(limit)
    .bind(offset)
    .fetch_all(ex)
    .await
}

/// How many runs the administrators' list has with these filters.
#[tracing::instrument(skip(ex), err)]
pub async fn count_admin<'e>(
    ex: impl AnyExecutor<'e>,
    filter: AdminRunFilter<'_>,
) -> sqlx::Result<i64> {
    let (n,): (i64,) = sqlx::query_as(
        "SELECT COUNT(*) FROM processing_runs r
         WHERE ($1 IS NULL OR r.state = $1) AND ($2 IS NULL OR r.client_id = $2)",
    )
    .bind(filter.state)
    .bind(filter.client_id)
    .fetch_one(ex)
    .await?;
    Ok(n)
}

/// One run with the names of the administrators' list.
#[tracing::instrument(skip(ex), err)]
pub async fn get_admin<'e>(
    ex: impl AnyExecutor<'e>,
    id: &str,
) -> sqlx::Result<Option<AdminRunRow>> {
    let cols: Vec<String> = COLS.split(',').map(|c| format!("r.{}", c.trim())).collect();
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {}, c.name AS client_name,
            CASE WHEN f.original_name = '' THEN f.name ELSE f.original_name END AS file_name,
            l.lever_name AS lever_name
         FROM processing_runs r
         JOIN clients c ON c.id = r.client_id
         JOIN client_files f ON f.id = r.file_id
         LEFT JOIN levers l ON l.id = r.lever_id
         WHERE r.id = $1",
        cols.join(", ")
    )))
    .bind(id)
    .fetch_optional(ex)
    .await
}
