//! Processing runs: a run of the analysis engine over one of a client's files, as domain data
//! (state, stage, progress, result, cancel). Uploads queue them ([`enqueue`], inside the upload's
//! transaction); the workers of `jobs::runs` claim, run and complete them; the API reads them
//! ([`get`], [`list`]) and cancels them ([`cancel`]).
//!
//! States: `queued` → `running` → `completed` | `failed` | `pending_review` | `cancelled` (a
//! queued run can be cancelled at once). Stages: `queued`, `reading`, `classifying`, `mapping`,
//! `evaluating`, `writing`, `recording`, `done`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sqlx::AnyConnection;

use crate::access::Need;
use crate::db::runs::{self as db, RunRow};
use crate::error::{ApiError, ApiResult};
use crate::ids::{ClientId, RunId, UserId};
use crate::realtime::events::FileChange;
use crate::realtime::{Event, Topic};
use crate::service::{Actor, Audit, AuditActor, Change, scope_of};
use crate::state::AppState;

/// Claims a run gets before it fails (an instance died holding it each time).
pub const MAX_ATTEMPTS: i64 = 3;
/// Runs listed by [`list`].
pub const LIST_LIMIT: i64 = 50;

/// How a file is processed.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS,
)]
#[ts(export)]
pub enum RunMode {
    /// The user picks the lever and maps the columns.
    #[serde(rename = "manual")]
    Manual,
    /// The run classifies the lever and maps the columns itself.
    #[serde(rename = "enhanced-ai")]
    EnhancedAi,
}

impl RunMode {
    /// The stored (and wire) name.
    pub fn as_str(self) -> &'static str {
        match self {
            RunMode::Manual => "manual",
            RunMode::EnhancedAi => "enhanced-ai",
        }
    }

    fn parse(s: &str) -> RunMode {
        if s == "manual" {
            RunMode::Manual
        } else {
            RunMode::EnhancedAi
        }
    }
}

/// Where a run is in its life.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS,
)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum RunState {
    /// Waiting for a worker.
    Queued,
    /// A worker holds it.
    Running,
    /// Done: the file's results and the client's savings are written.
    Completed,
    /// Ended with an error (`error` says why).
    Failed,
    /// Enhanced AI was not confident enough of the lever (below 0.7): zero savings until
    /// someone reviews the file.
    PendingReview,
    /// Cancelled by a user.
    Cancelled,
}

impl RunState {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            RunState::Queued => "queued",
            RunState::Running => "running",
            RunState::Completed => "completed",
            RunState::Failed => "failed",
            RunState::PendingReview => "pending_review",
            RunState::Cancelled => "cancelled",
        }
    }

    /// Parses a stored name.
    pub fn parse(s: &str) -> Option<RunState> {
        Some(match s {
            "queued" => RunState::Queued,
            "running" => RunState::Running,
            "completed" => RunState::Completed,
            "failed" => RunState::Failed,
            "pending_review" => RunState::PendingReview,
            "cancelled" => RunState::Cancelled,
            _ => return None,
        })
    }

    /// Whether the run has ended.
    pub fn is_final(self) -> bool {
        !matches!(self, RunState::Queued | RunState::Running)
    }
}

/// What a running run is doing.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS,
)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum RunStage {
    /// Not started.
    Queued,
    /// Reading the file.
    Reading,
    /// Classifying the lever (enhanced AI).
    Classifying,
    /// Mapping the columns.
    Mapping,
    /// Evaluating the rows.
    Evaluating,
    /// Writing the processed file.
    Writing,
    /// Recording the results and savings.
    Recording,
    /// Ended.
    Done,
}

impl RunStage {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStage::Queued => "queued",
            RunStage::Reading => "reading",
            RunStage::Classifying => "classifying",
            RunStage::Mapping => "mapping",
            RunStage::Evaluating => "evaluating",
            RunStage::Writing => "writing",
            RunStage::Recording => "recording",
            RunStage::Done => "done",
        }
    }

    /// Parses a stored name (unknown: queued).
    pub fn parse(s: &str) -> RunStage {
        match s {
            "reading" => RunStage::Reading,
            "classifying" => RunStage::Classifying,
            "mapping" => RunStage::Mapping,
            "evaluating" => RunStage::Evaluating,
            "writing" => RunStage::Writing,
            "recording" => RunStage::Recording,
            "done" => RunStage::Done,
            _ => RunStage::Queued,
        }
    }
}

/// The run's own checks of its output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RunChecks {
    /// Rows the engine could not evaluate.
    #[ts(type = "number")]
    pub error_rows: u64,
    /// Values that could not be read (amounts, weights, maturities).
    #[ts(type = "number")]
    pub unreadable_values: u64,
    /// Rows carrying an engine flag.
    #[ts(type = "number")]
    pub flagged_rows: u64,
    /// Whether the row totals add up (matched + not matched + errors = rows; the RWA saving
    /// equals RWAs before minus after).
    pub totals_reconciled: bool,
}

/// What a finished run found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RunResult {
    /// The lever analysed (chosen or classified).
    pub lever_id: Option<String>,
    /// Its name.
    pub lever_name: Option<String>,
    /// RWA reduction.
    pub savings_rwas: f64,
    /// CET1 basis points, through the one bps function and the client's figures (0 without
    /// them).
    pub savings_bps: f64,
    /// Classification confidence (enhanced AI).
    pub confidence: Option<f64>,
    /// Data rows.
    #[ts(type = "number")]
    pub rows: u64,
    /// Rows matched.
    #[ts(type = "number")]
    pub matched: u64,
    /// Rows not matched.
    #[ts(type = "number")]
    pub not_matched: u64,
    /// Rows in error.
    #[ts(type = "number")]
    pub errors: u64,
    /// Standard columns mapped.
    #[ts(type = "number")]
    pub mapped_columns: u64,
    /// The classifier's evidence (JSON), in enhanced-AI mode.
    #[ts(type = "unknown | null")]
    pub classification: Option<serde_json::Value>,
    /// The run's checks.
    pub checks: RunChecks,
    /// The reporting date the engine measured maturities from and chose its rule set by
    /// (`yyyy-mm-dd`); absent in results stored before it was kept. The explainability screens
    /// evaluate the run's original again on this date.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub reporting_date: Option<String>,
}

/// A run as screens show it; also the payload of `run.progress`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RunSnapshot {
    /// Id.
    pub id: RunId,
    /// Client.
    pub client_id: ClientId,
    /// File.
    pub file_id: String,
    /// Mode.
    pub mode: RunMode,
    /// State.
    pub state: RunState,
    /// Stage.
    pub stage: RunStage,
    /// Rows read so far.
    #[ts(type = "number")]
    pub rows_read: i64,
    /// Data rows in the file, when known before the end (CSV: its lines less the header).
    #[ts(type = "number | null")]
    pub rows_total: Option<i64>,
    /// Rows evaluated.
    #[ts(type = "number")]
    pub rows_done: i64,
    /// Rows matched so far.
    #[ts(type = "number")]
    pub rows_matched: i64,
    /// 0..100.
    pub percent: f64,
    /// The run's event sequence: apply only events with a greater `seq` than a snapshot's.
    #[ts(type = "number")]
    pub seq: i64,
    /// Claims so far (more than 1 after an instance died holding it).
    #[ts(type = "number")]
    pub attempts: i64,
    /// Why it failed.
    pub error: Option<String>,
    /// Queued at.
    pub created_at: String,
    /// Started at.
    pub started_at: Option<String>,
    /// Ended at.
    pub finished_at: Option<String>,
    /// The result, once completed (or pending review).
    pub result: Option<RunResult>,
}

/// The share of the work done, from the stage and the rows (a stage's weight, rows within the
/// evaluating stage). Never 100 before the run has ended.
pub fn percent(state: RunState, stage: RunStage, rows_done: i64, rows_total: Option<i64>) -> f64 {
    if state.is_final() {
        return 100.0;
    }
    let p = match stage {
        RunStage::Queued => 0.0,
        RunStage::Reading => 2.0,
        RunStage::Classifying => 4.0,
        RunStage::Mapping => 6.0,
        RunStage::Evaluating => match rows_total {
            Some(t) if t > 0 => 8.0 + 84.0 * (rows_done as f64 / t as f64).min(1.0),
            _ => 8.0,
        },
        RunStage::Writing => 93.0,
        RunStage::Recording => 97.0,
        RunStage::Done => 99.0,
    };
    (p * 10.0).round() / 10.0
}

impl RunSnapshot {
    /// The snapshot of a stored run.
    pub fn from_row(r: &RunRow) -> RunSnapshot {
        let state = RunState::parse(&r.state).unwrap_or(RunState::Failed);
        let stage = RunStage::parse(&r.stage);
        RunSnapshot {
            id: r.id.clone().into(),
            client_id: r.client_id.clone().into(),
            file_id: r.file_id.clone(),
            mode: RunMode::parse(&r.mode),
            state,
            stage,
            rows_read: r.rows_read,
            rows_total: r.rows_total,
            rows_done: r.rows_done,
            rows_matched: r.rows_matched,
            percent: percent(state, stage, r.rows_done, r.rows_total),
            seq: r.seq,
            attempts: r.attempts,
            error: r.error.clone(),
            created_at: r.created_at.clone(),
            started_at: r.started_at.clone(),
            finished_at: r.finished_at.clone(),
            result: r
                .result
                .as_deref()
                .and_then(|s| serde_json::from_str(s).ok()),
        }
    }
}

/// A run to queue (from an upload).
#[derive(Debug, Clone)]
pub struct NewRun {
    /// The client.
    pub client_id: ClientId,
    /// The file (`client_files.id`).
    pub file_id: String,
    /// Who asked.
    pub user_id: UserId,
    /// The mode.
    pub mode: RunMode,
    /// The lever (manual mode; `None`: the run classifies).
    pub lever_id: Option<String>,
    /// Standard column to the file's column.
    pub mapping: Option<BTreeMap<String, String>>,
    /// `decimal` or `percent` (the user's override).
    pub risk_weight_format: Option<String>,
    /// `days`, `months` or `years` (the user's override).
    pub maturity_unit: Option<String>,
}

/// The options stored with a run (JSON in `processing_runs.options`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunOptions {
    /// Standard column to the file's column.
    pub mapping: Option<BTreeMap<String, String>>,
    /// `decimal` or `percent`.
    pub risk_weight_format: Option<String>,
    /// `days`, `months` or `years`.
    pub maturity_unit: Option<String>,
}

/// The cancellation flags of the runs this instance's workers are running, by run id: a cancel
/// handled by this instance stops its own run at once (others learn it from their next progress
/// store, within a second).
pub static LOCAL_RUNS: std::sync::LazyLock<
    dashmap::DashMap<String, std::sync::Arc<std::sync::atomic::AtomicBool>>,
> = std::sync::LazyLock::new(dashmap::DashMap::new);

/// Wakes this instance's workers early (a hint: they poll anyway).
pub static WAKE: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// Queues a run of a file, in the caller's transaction (the upload's): the run exists exactly
/// when the file does. Refuses unknown option values with a clear message. The workers pick it up
/// within their polling interval (at once on this instance, after the commit).
pub async fn enqueue(conn: &mut AnyConnection, run: NewRun) -> ApiResult<RunId> {
    if let Some(f) = run.risk_weight_format.as_deref()
        && !matches!(f, "decimal" | "percent")
    {
        return Err(ApiError::validation(
            "Risk weight format must be decimal or percent",
        ));
    }
    if let Some(u) = run.maturity_unit.as_deref()
        && !matches!(u, "days" | "months" | "years")
    {
        return Err(ApiError::validation(
            "Maturity unit must be days, months or years",
        ));
    }
    if let Some(m) = &run.mapping
        && m.iter().any(|(k, v)| k.trim().is_empty() || v.is_empty())
    {
        return Err(ApiError::validation(
            "A mapping links a standard column to a column of the file",
        ));
    }
    let lever_id = match run.mode {
        RunMode::EnhancedAi => None,
        RunMode::Manual => run.lever_id.clone().filter(|l| !l.is_empty()),
    };
    let options = RunOptions {
        mapping: run.mapping,
        risk_weight_format: run.risk_weight_format,
        maturity_unit: run.maturity_unit,
    };
    let options = serde_json::to_string(&options).map_err(|e| ApiError::Internal(e.into()))?;
    let id = RunId::random();
    let now = crate::db::now();
    db::insert(
        conn,
        &db::NewRunRow {
            id: &id,
            client_id: &run.client_id,
            file_id: &run.file_id,
            user_id: &run.user_id,
            mode: run.mode.as_str(),
            lever_id: lever_id.as_deref(),
            options: &options,
            max_attempts: MAX_ATTEMPTS,
            now: &now,
        },
    )
    .await?;
    WAKE.notify_waiters();
    Ok(id)
}

/// The snapshot of a run read in the caller's transaction (the upload's answer).
pub async fn snapshot_in(conn: &mut AnyConnection, id: &RunId) -> ApiResult<RunSnapshot> {
    let row = db::get(conn, id)
        .await?
        .ok_or_else(|| ApiError::not_found("Run not found"))?;
    Ok(RunSnapshot::from_row(&row))
}

/// The latest run of a file, if any (for file views).
pub async fn latest_for_file(
    conn: &mut AnyConnection,
    file_id: &str,
) -> ApiResult<Option<RunSnapshot>> {
    Ok(db::latest_for_file(conn, file_id)
        .await?
        .map(|r| RunSnapshot::from_row(&r)))
}

/// The topic of one run.
pub fn run_topic(client_id: &str, run_id: &str) -> Topic {
    Topic::Run {
        client_id: client_id.to_string(),
        run_id: run_id.to_string(),
    }
}

/// A run, for a caller who may read its client's data.
pub async fn get(state: &AppState, actor: Actor, id: &str) -> ApiResult<RunSnapshot> {
    let row = db::get(&state.db.pool, id)
        .await?
        .ok_or_else(|| ApiError::not_found("Run not found"))?;
    scope_of(state, actor, &row.client_id, Need::Read).await?;
    Ok(RunSnapshot::from_row(&row))
}

/// A client's recent runs (newest first), optionally of one state, for a caller who may read
/// the client's data.
pub async fn list(
    state: &AppState,
    scope: &crate::service::Scope,
    run_state: Option<&str>,
) -> ApiResult<Vec<RunSnapshot>> {
    if let Some(s) = run_state
        && RunState::parse(s).is_none()
    {
        return Err(ApiError::validation(
            "State must be queued, running, completed, failed, pending_review or cancelled",
        ));
    }
    let rows = db::list_for_client(&state.db.pool, &scope.client_id, run_state, LIST_LIMIT).await?;
    Ok(rows.iter().map(RunSnapshot::from_row).collect())
}

fn files_topic(client_id: &str) -> Topic {
    Topic::Client {
        client_id: client_id.to_string(),
        area: "files",
    }
}

fn file_change(client_id: &str, file_id: &str) -> Event {
    Event::FileUpdated(FileChange {
        client_id: client_id.to_string(),
        file_id: file_id.to_string(),
    })
}

/// The audit name of the server acting for a run's user.
fn run_actor(row: &RunRow) -> AuditActor<'_> {
    AuditActor {
        user_id: row.user_id.as_deref(),
        ip: "server",
    }
}

/// Cancels a run, for a caller who may write the client's data: a queued run is cancelled at
/// once (its file goes back to `uploaded`); a running run is asked to stop, and its worker ends
/// it between two chunks with nothing written. An ended run cannot be cancelled.
pub async fn cancel(state: &AppState, actor: Actor, id: &str) -> ApiResult<RunSnapshot> {
    let row = db::get(&state.db.pool, id)
        .await?
        .ok_or_else(|| ApiError::not_found("Run not found"))?;
    scope_of(state, actor.clone(), &row.client_id, Need::Write).await?;
    let mut change = Change::begin(state, files_topic(&row.client_id)).await?;
    let now = crate::db::now();
    if db::cancel_queued(change.conn(), id, &now).await? {
        db::set_file_status(change.conn(), &row.file_id, "uploaded", None).await?;
        let snap = snapshot_in(change.conn(), &row.id.clone().into()).await?;
        change
            .also(
                Topic::Admin { area: "files" },
                file_change(&row.client_id, &row.file_id),
            )
            .await?;
        change.also_run_progress(snap.clone());
        change
            .commit(
                &actor,
                file_change(&row.client_id, &row.file_id),
                Audit {
                    event_type: "run_cancelled",
                    entity_type: "processing_run",
                    entity_id: id,
                    details: serde_json::json!({ "fileId": row.file_id, "state": "queued" }),
                    severity: "info",
                },
            )
            .await?;
        return Ok(snap);
    }
    drop(change);
    if db::request_cancel(&state.db.pool, id).await? {
        if let Some(flag) = LOCAL_RUNS.get(id) {
            flag.store(true, std::sync::atomic::Ordering::Release);
        }
        let row = db::get(&state.db.pool, id)
            .await?
            .ok_or_else(|| ApiError::not_found("Run not found"))?;
        return Ok(RunSnapshot::from_row(&row));
    }
    Err(ApiError::Conflict {
        code: "run_ended",
        message: "The run has already ended".into(),
    })
}

/// The outcome of a run, as its worker found it.
#[derive(Debug)]
pub enum Outcome {
    /// Analysed: results written to the file, savings synced.
    Completed {
        /// The processed output's key (stored write-once before the completion).
        processed_key: String,
        /// The result.
        result: RunResult,
        /// The analysis' totals and breakdowns, kept with the run for the Q&A agent (`None`
        /// stores none: the agent then answers from the result's counts only).
        facts: Option<Box<crate::service::qa::facts::RunFacts>>,
    },
    /// Classified below the confidence threshold: zero savings until reviewed.
    PendingReview {
        /// The result (classification evidence, zero savings).
        result: RunResult,
    },
    /// Failed with a message for the user.
    Failed {
        /// Why.
        message: String,
        /// What the run found before it failed: an enhanced-AI run's classification when the
        /// analysis of the classified lever then failed (kept so the proposal can be reviewed).
        result: Option<RunResult>,
    },
    /// Stopped at a user's request.
    Cancelled,
}

/// The final progress figures of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Figures {
    /// Rows read.
    pub rows_read: i64,
    /// Rows total, when known.
    pub rows_total: Option<i64>,
    /// Rows done.
    pub rows_done: i64,
    /// Rows matched.
    pub rows_matched: i64,
}

/// Ends a claimed run with its outcome in ONE transaction: the run's state (guarded by its owner
/// and attempt, and by its being still running), its file's record (status, processed flag,
/// output key, lever, savings in RWAs and bps), the file's pending validation when results
/// landed ([`crate::service::validations::open_for_result`], with the client's pending count),
/// the client's savings and the current month's history row recomputed
/// ([`crate::service::savings::resync_client`]), a changelog entry and the audit record; the
/// events (`run.progress` final, `file.updated`, `validation.created`, `savings.changed`) are
/// published after the commit. Returns false, writing nothing, when the run is no longer this
/// attempt's (completed already, taken over after a lost lease, cancelled while queued again,
/// or deleted with its file): completing twice writes the effects once.
pub async fn finish(
    state: &AppState,
    run: &RunRow,
    owner: &str,
    outcome: Outcome,
    figures: Figures,
    seq: i64,
) -> ApiResult<bool> {
    let mut change = Change::begin(state, files_topic(&run.client_id)).await?;
    let now = crate::db::now();
    let (run_state, error, result, lever_id) = match &outcome {
        Outcome::Completed { result, .. } => {
            ("completed", None, Some(result), result.lever_id.clone())
        }
        Outcome::PendingReview { result } => (
            "pending_review",
            None,
            Some(result),
            result.lever_id.clone(),
        ),
        Outcome::Failed { message, result } => {
            ("failed", Some(message.clone()), result.as_ref(), None)
        }
        Outcome::Cancelled => ("cancelled", Some("Cancelled".to_string()), None, None),
    };
    let result_json = match result {
        Some(r) => Some(serde_json::to_string(r).map_err(|e| ApiError::Internal(e.into()))?),
        None => None,
    };
    let facts_json = match &outcome {
        Outcome::Completed { facts: Some(f), .. } => {
            Some(serde_json::to_string(f).map_err(|e| ApiError::Internal(e.into()))?)
        }
        _ => None,
    };
    let finished = db::finish(
        change.conn(),
        &run.id,
        owner,
        run.attempts,
        &db::Finish {
            state: run_state,
            lever_id: lever_id.as_deref(),
            error: error.as_deref(),
            result: result_json.as_deref(),
            facts: facts_json.as_deref(),
            progress: db::ProgressWrite {
                stage: "done",
                rows_read: figures.rows_read,
                rows_total: figures.rows_total,
                rows_done: figures.rows_done,
                rows_matched: figures.rows_matched,
                seq,
            },
            now: &now,
        },
    )
    .await?;
    if !finished {
        // Dropping the change rolls back and announces nothing.
        return Ok(false);
    }
    // The file may be gone (deleted meanwhile): its runs went with it, so `finish` above
    // already answered false; a row updated or not, nothing else depends on it.
    // The file as it was, for its edit history (results change its lever, savings, processed).
    let before = crate::db::files::get(change.conn(), &run.file_id).await?;
    match &outcome {
        Outcome::Completed {
            processed_key,
            result,
            ..
        } => {
            db::set_file_result(
                change.conn(),
                &run.file_id,
                &db::FileResult {
                    status: "processed",
                    processed: true,
                    processed_object_key: Some(processed_key),
                    lever_id: result.lever_id.as_deref(),
                    savings_rwas: result.savings_rwas,
                    savings_bps: result.savings_bps,
                },
            )
            .await?;
        }
        Outcome::PendingReview { result } => {
            db::set_file_result(
                change.conn(),
                &run.file_id,
                &db::FileResult {
                    status: "pending_review",
                    processed: false,
                    processed_object_key: None,
                    lever_id: result.lever_id.as_deref(),
                    savings_rwas: 0.0,
                    savings_bps: 0.0,
                },
            )
            .await?;
        }
        Outcome::Failed { message, .. } => {
            db::set_file_status(change.conn(), &run.file_id, "failed", Some(message)).await?;
        }
        Outcome::Cancelled => {
            db::set_file_status(change.conn(), &run.file_id, "uploaded", None).await?;
        }
    }
    // A landed result opens its file's pending validation in this transaction (once per run;
    // the file's earlier pending one is superseded). A result pending review opens none: the
    // classification review comes first (see `service::validations`).
    if let Outcome::Completed { result, .. } = &outcome {
        crate::service::validations::open_for_result(&mut change, run, result).await?;
    }
    if let Some(before) = &before
        && let Some(after) = crate::db::files::get(change.conn(), &run.file_id).await?
    {
        crate::service::files::history::record_diff(
            change.conn(),
            before,
            &after,
            run.user_id.as_deref(),
        )
        .await?;
    }
    change
        .also(
            Topic::Admin { area: "files" },
            file_change(&run.client_id, &run.file_id),
        )
        .await?;
    if matches!(
        outcome,
        Outcome::Completed { .. } | Outcome::PendingReview { .. }
    ) {
        crate::service::savings::resync_and_announce(&mut change, &run.client_id).await?;
    }
    let description = match &outcome {
        Outcome::Completed { result, .. } => format!(
            "File processed: {} rows, {} matched, {:.2} RWAs saved ({:.2} bps)",
            result.rows, result.matched, result.savings_rwas, result.savings_bps
        ),
        Outcome::PendingReview { result } => format!(
            "File pending review: lever classified with {:.0}% confidence",
            result.confidence.unwrap_or(0.0) * 100.0
        ),
        Outcome::Failed { message, .. } => format!("File processing failed: {message}"),
        Outcome::Cancelled => "File processing cancelled".to_string(),
    };
    db::changelog_insert(
        change.conn(),
        &format!("run_{run_state}"),
        &description,
        "processing",
        run.user_id.as_deref(),
    )
    .await?;
    let snap = snapshot_in(change.conn(), &run.id.clone().into()).await?;
    change.also_run_progress(snap);
    change
        .commit_by(
            run_actor(run),
            file_change(&run.client_id, &run.file_id),
            Audit {
                event_type: match run_state {
                    "completed" => "run_completed",
                    "pending_review" => "run_pending_review",
                    "failed" => "run_failed",
                    _ => "run_cancelled",
                },
                entity_type: "processing_run",
                entity_id: &run.id,
                details: serde_json::json!({
                    "fileId": run.file_id,
                    "attempt": run.attempts,
                    "error": error,
                    "savingsRwas": result.map(|r| r.savings_rwas),
                }),
                severity: if run_state == "failed" {
                    "warning"
                } else {
                    "info"
                },
            },
        )
        .await?;
    Ok(true)
}

/// Marks a claimed run's file as processing and announces the run's start (after the claim).
pub async fn announce_started(state: &AppState, run: &RunRow) -> ApiResult<()> {
    let mut change = Change::begin(state, files_topic(&run.client_id)).await?;
    db::set_file_status(change.conn(), &run.file_id, "processing", None).await?;
    change
        .also(
            Topic::Admin { area: "files" },
            file_change(&run.client_id, &run.file_id),
        )
        .await?;
    change.also_run_progress(RunSnapshot::from_row(run));
    if run.attempts == 1 {
        db::changelog_insert(
            change.conn(),
            "run_started",
            "File processing started",
            "processing",
            run.user_id.as_deref(),
        )
        .await?;
    }
    change
        .commit_by(
            run_actor(run),
            file_change(&run.client_id, &run.file_id),
            Audit {
                event_type: "run_started",
                entity_type: "processing_run",
                entity_id: &run.id,
                details: serde_json::json!({ "fileId": run.file_id, "attempt": run.attempts }),
                severity: "info",
            },
        )
        .await?;
    Ok(())
}

/// Fails the runs whose lease expired after their last allowed claim (their instance died each
/// time), with a message; returns how many.
pub async fn fail_exhausted(state: &AppState) -> ApiResult<usize> {
    let now = crate::db::now();
    let rows = db::exhausted(&state.db.pool, &now).await?;
    let mut n = 0;
    for run in rows {
        let message = format!(
            "Processing stopped {} times before it could finish; the file was not processed. Upload it again or contact support.",
            run.attempts
        );
        let mut change = Change::begin(state, files_topic(&run.client_id)).await?;
        if !db::fail_exhausted(change.conn(), &run.id, &message, &now).await? {
            continue;
        }
        db::set_file_status(change.conn(), &run.file_id, "failed", Some(&message)).await?;
        change
            .also(
                Topic::Admin { area: "files" },
                file_change(&run.client_id, &run.file_id),
            )
            .await?;
        let snap = snapshot_in(change.conn(), &run.id.clone().into()).await?;
        change.also_run_progress(snap);
        change
            .commit_by(
                run_actor(&run),
                file_change(&run.client_id, &run.file_id),
                Audit {
                    event_type: "run_failed",
                    entity_type: "processing_run",
                    entity_id: &run.id,
                    details: serde_json::json!({ "fileId": run.file_id, "attempts": run.attempts, "error": message }),
                    severity: "warning",
                },
            )
            .await?;
        n += 1;
    }
    Ok(n)
}

/// Claims the next run for `owner` (see `db::runs::claim`), with a lease of `lease`.
pub async fn claim(
    state: &AppState,
    owner: &str,
    lease: std::time::Duration,
) -> ApiResult<Option<RunRow>> {
    let now = chrono::Utc::now();
    let until = now + chrono::Duration::from_std(lease).unwrap_or(chrono::Duration::seconds(15));
    let mut conn = state.db.pool.acquire().await?;
    Ok(db::claim(
        &mut conn,
        state.db.backend,
        owner,
        &crate::db::ts(now),
        &crate::db::ts(until),
    )
    .await?)
}

/// Stores a running run's progress and extends its lease: `Some(cancel requested)` while the run
/// is still this owner's attempt, `None` when it is not (stop, write nothing).
pub async fn heartbeat(
    state: &AppState,
    run: &RunRow,
    owner: &str,
    stage: RunStage,
    figures: Figures,
    seq: i64,
    lease: std::time::Duration,
) -> ApiResult<Option<bool>> {
    let now = chrono::Utc::now();
    let until = now + chrono::Duration::from_std(lease).unwrap_or(chrono::Duration::seconds(15));
    Ok(db::heartbeat(
        &state.db.pool,
        &run.id,
        owner,
        run.attempts,
        &db::ProgressWrite {
            stage: stage.as_str(),
            rows_read: figures.rows_read,
            rows_total: figures.rows_total,
            rows_done: figures.rows_done,
            rows_matched: figures.rows_matched,
            seq,
        },
        &crate::db::ts(now),
        &crate::db::ts(until),
    )
    .await?)
}

/// The file and client facts a run needs; `None` when its file is gone.
pub async fn run_input(state: &AppState, file_id: &str) -> ApiResult<Option<db::RunInput>> {
    Ok(db::run_input(&state.db.pool, file_id).await?)
}

/// A lever's id and name by its analysis code.
pub async fn lever_by_code(state: &AppState, code: &str) -> ApiResult<Option<(String, String)>> {
    Ok(db::lever_by_code(&state.db.pool, code).await?)
}

/// A lever's analysis code and name by id.
pub async fn lever_by_id(
    state: &AppState,
    id: &str,
) -> ApiResult<Option<(Option<String>, String)>> {
    Ok(db::lever_by_id(&state.db.pool, id).await?)
}

/// A client's official figures (for the bps of a file).
pub async fn client_figures(
    state: &AppState,
    client_id: &str,
) -> ApiResult<crate::db::savings::Figures> {
    let mut conn = state.db.pool.acquire().await?;
    crate::service::savings::figures(&mut conn, client_id).await
}

/// A run in the administrators' list: its snapshot (which `run.progress` events on `admin:runs`
/// replace) and the names of its client, file and lever.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AdminRun {
    /// The run.
    pub run: RunSnapshot,
    /// Its client's name.
    pub client_name: String,
    /// Its file's name.
    pub file_name: String,
    /// Its lever's name (chosen, or found by classification).
    pub lever_name: Option<String>,
}

impl AdminRun {
    fn from_row(r: &db::AdminRunRow) -> AdminRun {
        AdminRun {
            run: RunSnapshot::from_row(&r.run),
            client_name: r.client_name.clone(),
            file_name: r.file_name.clone(),
            lever_name: r.lever_name.clone(),
        }
    }
}

/// One page of the administrators' run list.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AdminRunPage {
    /// The runs, newest first.
    pub items: Vec<AdminRun>,
    /// Runs matching the filters.
    #[ts(type = "number")]
    pub total: i64,
    /// The page (from 1).
    #[ts(type = "number")]
    pub page: i64,
    /// Runs per page.
    #[ts(type = "number")]
    pub page_size: i64,
}

/// Page sizes of the administrators' run list.
pub const ADMIN_PAGE_SIZES: [i64; 4] = [5, 10, 20, 50];

/// The filters and page of the administrators' run list (`None`/empty: any).
#[derive(Debug, Clone, Default)]
pub struct AdminRunQuery {
    /// One state.
    pub state: Option<String>,
    /// One client.
    pub client_id: Option<String>,
    /// The page, from 1 (default 1).
    pub page: Option<i64>,
    /// 5, 10, 20 or 50 (default 10).
    pub page_size: Option<i64>,
}

/// Every client's runs, newest first, filtered and paged by the database (administrators).
pub async fn list_admin(
    state: &AppState,
    actor: &Actor,
    q: AdminRunQuery,
) -> ApiResult<AdminRunPage> {
    actor.user.require_admin()?;
    let run_state = q.state.as_deref().map(str::trim).filter(|s| !s.is_empty());
    if let Some(s) = run_state
        && RunState::parse(s).is_none()
    {
        return Err(ApiError::validation(
            "Status must be queued, running, completed, failed, pending_review or cancelled",
        ));
    }
    let client_id = q
        .client_id
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    let page = q.page.unwrap_or(1);
    if !(1..=1_000_000).contains(&page) {
        return Err(ApiError::validation("Page must be 1 or more"));
    }
    let page_size = q.page_size.unwrap_or(10);
    if !ADMIN_PAGE_SIZES.contains(&page_size) {
        return Err(ApiError::validation("Page size must be 5, 10, 20 or 50"));
    }
    let filter = db::AdminRunFilter {
        state: run_state,
        client_id,
    };
    let total = db::count_admin(&state.db.pool, filter).await?;
    let rows = db::list_admin(&state.db.pool, filter, page_size, (page - 1) * page_size).await?;
    Ok(AdminRunPage {
        items: rows.iter().map(AdminRun::from_row).collect(),
        total,
        page,
        page_size,
    })
}

/// One run with its names (administrators; the runs screen reads a run it learns of from an
/// event).
pub async fn get_admin(state: &AppState, actor: &Actor, id: &str) -> ApiResult<AdminRun> {
    actor.user.require_admin()?;
    let row = db::get_admin(&state.db.pool, id)
        .await?
        .ok_or_else(|| ApiError::not_found("Run not found"))?;
    Ok(AdminRun::from_row(&row))
}

/// Queues a new run of a failed run's file with the same mode, lever and options, for a caller
/// who may write the client's data (the access decision; the API offers it to administrators).
/// Refused (409) unless the run failed and is its file's latest run. The new run is announced on
/// the run's topic and `admin:runs` like any queued run; the file goes back to `queued`.
pub async fn retry(state: &AppState, actor: Actor, id: &str) -> ApiResult<RunSnapshot> {
    let row = db::get(&state.db.pool, id)
        .await?
        .ok_or_else(|| ApiError::not_found("Run not found"))?;
    let scope = scope_of(state, actor.clone(), &row.client_id, Need::Write).await?;
    let mut change = Change::begin(state, files_topic(&row.client_id)).await?;
    // Read again in the change: a concurrent retry of the same run queues one run only.
    let row = db::get(change.conn(), id)
        .await?
        .ok_or_else(|| ApiError::not_found("Run not found"))?;
    if row.state != RunState::Failed.as_str() {
        return Err(ApiError::Conflict {
            code: "run_not_failed",
            message: "Only a failed run can be retried".into(),
        });
    }
    match db::latest_for_file(change.conn(), &row.file_id).await? {
        Some(latest) if latest.id != row.id => {
            return Err(ApiError::Conflict {
                code: "run_superseded",
                message: "This file has been processed again since this run: retry its latest run"
                    .into(),
            });
        }
        _ => {}
    }
    let options: RunOptions = serde_json::from_str(&row.options).unwrap_or_default();
    let mode = RunMode::parse(&row.mode);
    let new_id = enqueue(
        change.conn(),
        NewRun {
            client_id: row.client_id.clone().into(),
            file_id: row.file_id.clone(),
            user_id: scope.user().id.clone(),
            mode,
            lever_id: row.lever_id.clone(),
            mapping: options.mapping,
            risk_weight_format: options.risk_weight_format,
            maturity_unit: options.maturity_unit,
        },
    )
    .await?;
    db::set_file_status(change.conn(), &row.file_id, "queued", None).await?;
    let snap = snapshot_in(change.conn(), &new_id).await?;
    change
        .also(
            Topic::Admin { area: "files" },
            file_change(&row.client_id, &row.file_id),
        )
        .await?;
    change.also_run_progress(snap.clone());
    change
        .commit(
            &actor,
            file_change(&row.client_id, &row.file_id),
            Audit {
                event_type: "run_retried",
                entity_type: "processing_run",
                entity_id: &new_id,
                details: serde_json::json!({ "fileId": row.file_id, "retryOf": row.id }),
                severity: "info",
            },
        )
        .await?;
    Ok(snap)
}
