//! What the explainability screens read: a client's completed processing runs with their file's
//! name and their result's validation, and the client's decided validations of a lever.

use sqlx::{AnyExecutor, FromRow};

/// A completed run with its file's name, its lever's name and its validation.
#[derive(Debug, Clone, FromRow)]
pub struct InsightRunRow {
    /// Id.
    pub id: String,
    /// Client.
    pub client_id: String,
    /// File.
    pub file_id: String,
    /// `manual` or `enhanced-ai`.
    pub mode: String,
    /// The run's state.
    pub state: String,
    /// The lever analysed (chosen, or found by classification).
    pub lever_id: Option<String>,
    /// Its name.
    pub lever_name: Option<String>,
    /// Its analysis code (`pse`, ...).
    pub lever_code: Option<String>,
    /// JSON options (mapping, risk-weight format, maturity unit).
    pub options: String,
    /// JSON result.
    pub result: Option<String>,
    /// Queued at.
    pub created_at: String,
    /// Claimed at.
    pub started_at: Option<String>,
    /// Ended at.
    pub finished_at: Option<String>,
    /// The file's name (the user's, as uploaded).
    pub file_name: String,
    /// The status of the validation of its result (`pending`, `approved`, `rejected`,
    /// `superseded`), if one was opened.
    pub validation_status: Option<String>,
    /// When it was decided.
    pub validated_at: Option<String>,
    /// Who decided it (name and last name, else email).
    pub validated_by_name: Option<String>,
    /// Why it was rejected.
    pub rejection_reason: Option<String>,
}

const SELECT: &str = "SELECT r.id, r.client_id, r.file_id, r.mode, r.state, r.lever_id,
        l.lever_name, l.code AS lever_code, r.options, r.result, r.created_at, r.started_at,
        r.finished_at,
        CASE WHEN f.original_name = '' THEN f.name ELSE f.original_name END AS file_name,
        v.status AS validation_status, v.validated_at,
        CASE WHEN u.id IS NULL THEN NULL WHEN trim(u.name || ' ' || u.last_name) = '' THEN u.email
             ELSE trim(u.name || ' ' || u.last_name) END AS validated_by_name,
        v.rejection_reason
     FROM processing_runs r
     JOIN client_files f ON f.id = r.file_id
     LEFT JOIN levers l ON l.id = r.lever_id
     LEFT JOIN file_validations v ON v.run_id = r.id
     LEFT JOIN users u ON u.id = v.validated_by";

/// A client's completed runs, newest first (at most `limit`).
#[tracing::instrument(skip(ex), err)]
pub async fn completed_runs<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
    limit: i64,
) -> sqlx::Result<Vec<InsightRunRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{SELECT} WHERE r.client_id = $1 AND r.state = 'completed'
         ORDER BY r.created_at DESC, r.id DESC LIMIT $2"
    )))
    .bind(client_id)
    .bind(limit)
    .fetch_all(ex)
    .await
}

/// One run (any state) with its file, lever and validation.
#[tracing::instrument(skip(ex), err)]
pub async fn run<'e>(ex: impl AnyExecutor<'e>, id: &str) -> sqlx::Result<Option<InsightRunRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!("{SELECT} WHERE r.id = $1")))
        .bind(id)
        .fetch_optional(ex)
        .await
}

/// A client's completed runs of a lever queued before `before` (other than `except`), newest
/// first (at most `limit`): the past decisions the historical patterns compare with.
#[tracing::instrument(skip(ex), err)]
pub async fn earlier_runs<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
    lever_id: &str,
    before: &str,
    except: &str,
    limit: i64,
) -> sqlx::Result<Vec<InsightRunRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{SELECT} WHERE r.client_id = $1 AND r.state = 'completed' AND r.lever_id = $2
           AND r.created_at <= $3 AND r.id <> $4
         ORDER BY r.created_at DESC, r.id DESC LIMIT $5"
    )))
    .bind(client_id)
    .bind(lever_id)
    .bind(before)
    .bind(except)
    .bind(limit)
    .fetch_all(ex)
    .await
}

/// How many of a client's validations of a lever's results were approved and how many rejected,
/// leaving out the validation of one run.
#[tracing::instrument(skip(ex), err)]
pub async fn decided_counts<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
    lever_id: &str,
    except_run: &str,
) -> sqlx::Result<(i64, i64)> {
    sqlx::query_as(
        "SELECT COALESCE(SUM(CASE WHEN status = 'approved' THEN 1 ELSE 0 END), 0),
                COALESCE(SUM(CASE WHEN status = 'rejected' THEN 1 ELSE 0 END), 0)
         FROM file_validations
         WHERE client_id = $1 AND lever_id = $2 AND run_id <> $3
           AND status IN ('approved', 'rejected')",
    )
    .bind(client_id)
    .bind(lever_id)
    .bind(except_run)
    .fetch_one(ex)
    .await
}
