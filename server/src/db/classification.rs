//! Reviewed classifications (`classification_feedback`): a person's decision on the lever the
//! classifier proposed in an enhanced-AI run, and the training lists over each file's latest
//! ended enhanced-AI run. See `service::classification`.

use sqlx::{AnyConnection, AnyExecutor, FromRow};

/// A stored review, as the classifier reads it.
#[derive(Debug, Clone, FromRow)]
pub struct FeedbackRow {
    /// The reviewed run.
    pub run_id: String,
    /// The run's client.
    pub client_id: String,
    /// JSON array of the file's column names.
    pub headers: String,
    /// The lever code the classifier proposed (`None`: none).
    pub proposed_lever: Option<String>,
    /// The lever code a person approved or corrected it to.
    pub reviewed_lever: String,
    /// When.
    pub created_at: String,
}

/// A review to store.
#[derive(Debug)]
pub struct NewFeedback<'a> {
    /// Id.
    pub id: &'a str,
    /// The reviewed run.
    pub run_id: &'a str,
    /// Its client.
    pub client_id: &'a str,
    /// JSON array of the file's column names.
    pub headers: &'a str,
    /// Proposed lever code.
    pub proposed_lever: Option<&'a str>,
    /// Reviewed lever code (`''` for a rejection without a lever).
    pub reviewed_lever: &'a str,
    /// `approval` or `rejection`.
    pub feedback_type: &'a str,
    /// -0.2 when the lever was corrected, else 0.1.
    pub confidence_delta: f64,
    /// The run an approval queued.
    pub follow_up_run_id: Option<&'a str>,
    /// The reviewer's words.
    pub explanation: &'a str,
    /// The reviewer.
    pub created_by: Option<&'a str>,
    /// Now.
    pub now: &'a str,
}

/// Stores a review; a later review of the same run replaces the earlier one.
#[tracing::instrument(skip(conn), err)]
pub async fn upsert(conn: &mut AnyConnection, f: &NewFeedback<'_>) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO classification_feedback (id, run_id, client_id, headers, proposed_lever,
            reviewed_lever, feedback_type, confidence_delta, follow_up_run_id, explanation,
            created_by, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
         ON CONFLICT (run_id) DO UPDATE SET reviewed_lever = excluded.reviewed_lever,
            feedback_type = excluded.feedback_type, confidence_delta = excluded.confidence_delta,
            follow_up_run_id = excluded.follow_up_run_id, explanation = excluded.explanation,
            created_by = excluded.created_by, created_at = excluded.created_at",
    )
    .bind(f.id)
    .bind(f.run_id)
    .bind(f.client_id)
    .bind(f.headers)
    .bind(f.proposed_lever)
    .bind(f.reviewed_lever)
    .bind(f.feedback_type)
    .bind(f.confidence_delta)
    .bind(f.follow_up_run_id)
    .bind(f.explanation)
    .bind(f.created_by)
    .bind(f.now)
    .execute(conn)
    .await?;
    Ok(())
}

const FEEDBACK_COLS: &str =
    "run_id, client_id, headers, proposed_lever, reviewed_lever, created_at";

/// The most recent `limit` approvals of every client, oldest first.
#[tracing::instrument(skip(ex), err)]
pub async fn recent<'e>(ex: impl AnyExecutor<'e>, limit: i64) -> sqlx::Result<Vec<FeedbackRow>> {
    let mut rows: Vec<FeedbackRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {FEEDBACK_COLS} FROM classification_feedback WHERE feedback_type = 'approval'
         ORDER BY created_at DESC, id DESC LIMIT $1"
    )))
    .bind(limit)
    .fetch_all(ex)
    .await?;
    rows.reverse();
    Ok(rows)
}

/// The most recent `limit` approvals of one client (`own`), or of every other client, oldest
/// first.
#[tracing::instrument(skip(ex), err)]
pub async fn recent_of<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
    own: bool,
    limit: i64,
) -> sqlx::Result<Vec<FeedbackRow>> {
    let op = if own { "=" } else { "<>" };
    let mut rows: Vec<FeedbackRow> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {FEEDBACK_COLS} FROM classification_feedback
         WHERE client_id {op} $1 AND feedback_type = 'approval'
         ORDER BY created_at DESC, id DESC LIMIT $2"
    )))
    .bind(client_id)
    .bind(limit)
    .fetch_all(ex)
    .await?;
    rows.reverse();
    Ok(rows)
}

/// One training list item: a file's latest ended enhanced-AI run with its file, client and
/// review.
#[derive(Debug, Clone, FromRow)]
pub struct TrainingRow {
    /// The run.
    pub id: String,
    /// Its client.
    pub client_id: String,
    /// The client's name.
    pub client_name: String,
    /// The file.
    pub file_id: String,
    /// The file's name.
    pub file_name: String,
    /// The file's type (`csv`, `xlsx`, `pdf`, ...).
    pub file_type: String,
    /// `completed`, `pending_review` or `failed`.
    pub state: String,
    /// The run's failure message.
    pub error: Option<String>,
    /// JSON options of the run (its mapping).
    pub options: String,
    /// JSON result of the run.
    pub result: Option<String>,
    /// Queued at.
    pub created_at: String,
    /// Ended at.
    pub finished_at: Option<String>,
    /// The review: `approval` or `rejection` (`None`: not reviewed).
    pub feedback_type: Option<String>,
    /// The reviewed lever's code.
    pub reviewed_lever: Option<String>,
    /// The reviewer's words.
    pub explanation: Option<String>,
    /// -0.2 or 0.1.
    pub confidence_delta: Option<f64>,
    /// The run an approval queued.
    pub follow_up_run_id: Option<String>,
    /// When it was reviewed.
    pub reviewed_at: Option<String>,
    /// The reviewer.
    pub reviewed_by: Option<String>,
    /// The reviewer's e-mail address.
    pub reviewer_email: Option<String>,
}

/// The lists' tabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrainingTab {
    /// Not reviewed, and the run did not fail.
    Pending,
    /// Reviewed, or the run failed (which counts as rejected); newest review first.
    Reviewed,
    /// Every item, newest run first.
    All,
}

const TRAINING_COLS: &str = "r.id, r.client_id, c.name AS client_name, r.file_id, \
    f.name AS file_name, f.file_type, r.state, r.error, r.options, r.result, r.created_at, \
    r.finished_at, fb.feedback_type, fb.reviewed_lever, fb.explanation, fb.confidence_delta, \
    fb.follow_up_run_id, fb.created_at AS reviewed_at, fb.created_by AS reviewed_by, \
    u.email AS reviewer_email";

/// Every file's latest ended enhanced-AI run (a later run of another mode, such as the one an
/// approval queues, does not hide it).
const TRAINING_FROM: &str = "FROM processing_runs r
    JOIN client_files f ON f.id = r.file_id
    JOIN clients c ON c.id = r.client_id
    LEFT JOIN classification_feedback fb ON fb.run_id = r.id
    LEFT JOIN users u ON u.id = fb.created_by
    WHERE r.mode = 'enhanced-ai' AND r.state IN ('completed', 'pending_review', 'failed')
      AND NOT EXISTS (
          SELECT 1 FROM processing_runs n
          WHERE n.file_id = r.file_id AND n.mode = 'enhanced-ai'
            AND n.state IN ('completed', 'pending_review', 'failed')
            AND (n.created_at > r.created_at OR (n.created_at = r.created_at AND n.id > r.id)))";

const PENDING: &str = "fb.run_id IS NULL AND r.state <> 'failed'";

/// One page of a tab: `limit` items from `offset`.
#[tracing::instrument(skip(ex), err)]
pub async fn training_page<'e>(
    ex: impl AnyExecutor<'e>,
    tab: TrainingTab,
    limit: i64,
    offset: i64,
) -> sqlx::Result<Vec<TrainingRow>> {
    let (filter, order) = match tab {
        TrainingTab::Pending => (format!("AND {PENDING}"), "r.created_at DESC, r.id DESC"),
        TrainingTab::Reviewed => (
            format!("AND NOT ({PENDING})"),
            "COALESCE(fb.created_at, r.finished_at, r.created_at) DESC, r.id DESC",
        ),
        TrainingTab::All => (String::new(), "r.created_at DESC, r.id DESC"),
    };
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {TRAINING_COLS} {TRAINING_FROM} {filter} ORDER BY {order} LIMIT $1 OFFSET $2"
    )))
    .bind(limit)
    .bind(offset)
    .fetch_all(ex)
    .await
}

/// The items of the lists: (pending, all).
#[tracing::instrument(skip(ex), err)]
pub async fn training_counts<'e>(ex: impl AnyExecutor<'e>) -> sqlx::Result<(i64, i64)> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT COALESCE(SUM(CASE WHEN {PENDING} THEN 1 ELSE 0 END), 0), COUNT(*) {TRAINING_FROM}"
    )))
    .fetch_one(ex)
    .await
}

/// One run as a training item, if it is one (its file's latest ended enhanced-AI run).
#[tracing::instrument(skip(ex), err)]
pub async fn training_item<'e>(
    ex: impl AnyExecutor<'e>,
    run_id: &str,
) -> sqlx::Result<Option<TrainingRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {TRAINING_COLS} {TRAINING_FROM} AND r.id = $1"
    )))
    .bind(run_id)
    .fetch_optional(ex)
    .await
}
