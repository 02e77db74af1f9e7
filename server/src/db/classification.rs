//! Reviewed classifications (`classification_feedback`): a person's decision on the lever the
//! classifier proposed in an enhanced-AI run. See `service::classification`.

use sqlx::{AnyConnection, AnyExecutor, FromRow};

/// A stored review.
#[derive(Debug, Clone, FromRow)]
pub struct FeedbackRow {
    /// The reviewed run.
    pub run_id: String,
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
    /// Reviewed lever code.
    pub reviewed_lever: &'a str,
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
            reviewed_lever, explanation, created_by, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (run_id) DO UPDATE SET reviewed_lever = excluded.reviewed_lever,
            explanation = excluded.explanation, created_by = excluded.created_by,
            created_at = excluded.created_at",
    )
    .bind(f.id)
    .bind(f.run_id)
    .bind(f.client_id)
    .bind(f.headers)
    .bind(f.proposed_lever)
    .bind(f.reviewed_lever)
    .bind(f.explanation)
    .bind(f.created_by)
    .bind(f.now)
    .execute(conn)
    .await?;
    Ok(())
}

/// The most recent `limit` reviews, oldest first.
#[tracing::instrument(skip(ex), err)]
pub async fn recent<'e>(ex: impl AnyExecutor<'e>, limit: i64) -> sqlx::Result<Vec<FeedbackRow>> {
    let mut rows: Vec<FeedbackRow> = sqlx::query_as(
        "SELECT run_id, headers, proposed_lever, reviewed_lever, created_at
         FROM classification_feedback ORDER BY created_at DESC, id DESC LIMIT $1",
    )
    .bind(limit)
    .fetch_all(ex)
    .await?;
    rows.reverse();
    Ok(rows)
}
