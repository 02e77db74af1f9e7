//! The Q&A agent's reads and its conversations (`qa_messages`, migration 0019; the runs' kept
//! figures in `processing_runs.facts`).

use sqlx::{AnyConnection, AnyExecutor, FromRow};

/// A completed run of a client's file, with what the agent answers from.
#[derive(Debug, Clone, FromRow)]
pub struct QaRunRow {
    /// The run.
    pub id: String,
    /// Its file.
    pub file_id: String,
    /// The file's name.
    pub file_name: String,
    /// The stored result (JSON of `service::runs::RunResult`).
    pub result: Option<String>,
    /// The kept figures (JSON of `service::qa::facts::RunFacts`), `None` for older runs.
    pub facts: Option<String>,
    /// When it ended.
    pub finished_at: Option<String>,
}

/// The completed runs of the client's files (of one file when `file_id` is given), the newest
/// first; the caller keeps each file's first.
#[tracing::instrument(skip(ex), err)]
pub async fn completed_runs<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
    file_id: Option<&str>,
) -> sqlx::Result<Vec<QaRunRow>> {
    sqlx::query_as(
        "SELECT r.id, r.file_id, f.name AS file_name, r.result, r.facts, r.finished_at
         FROM processing_runs r JOIN client_files f ON f.id = r.file_id
         WHERE r.client_id = $1 AND f.client_id = $1 AND r.state = 'completed'
           AND ($2 = '' OR r.file_id = $2)
         ORDER BY r.finished_at DESC, r.id",
    )
    .bind(client_id)
    .bind(file_id.unwrap_or(""))
    .fetch_all(ex)
    .await
}

/// The name of a file of the client; `None` when the client has no such file.
#[tracing::instrument(skip(ex), err)]
pub async fn file_name<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
    file_id: &str,
) -> sqlx::Result<Option<String>> {
    sqlx::query_scalar("SELECT name FROM client_files WHERE id = $1 AND client_id = $2")
        .bind(file_id)
        .bind(client_id)
        .fetch_optional(ex)
        .await
}

/// One message of a conversation.
#[derive(Debug, Clone, FromRow)]
pub struct QaMessageRow {
    /// Id.
    pub id: String,
    /// The file the question focused on.
    pub file_id: Option<String>,
    /// `user` or `assistant`.
    pub role: String,
    /// The text.
    pub content: String,
    /// The engine that answered.
    pub provider: Option<String>,
    /// Written at.
    pub created_at: String,
}

/// The last `limit` messages of a user's conversation about a client, oldest first.
#[tracing::instrument(skip(ex), err)]
pub async fn messages<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
    user_id: &str,
    limit: i64,
) -> sqlx::Result<Vec<QaMessageRow>> {
    let mut rows: Vec<QaMessageRow> = sqlx::query_as(
        "SELECT id, file_id, role, content, provider, created_at FROM qa_messages
         WHERE client_id = $1 AND user_id = $2 ORDER BY seq DESC LIMIT $3",
    )
    .bind(client_id)
    .bind(user_id)
    .bind(limit)
    .fetch_all(ex)
    .await?;
    rows.reverse();
    Ok(rows)
}

/// A message to write.
#[derive(Debug, Clone)]
pub struct NewMessage<'a> {
    /// Id.
    pub id: &'a str,
    /// The client.
    pub client_id: &'a str,
    /// The user.
    pub user_id: &'a str,
    /// The focused file.
    pub file_id: Option<&'a str>,
    /// `user` or `assistant`.
    pub role: &'a str,
    /// The text.
    pub content: &'a str,
    /// The engine that answered.
    pub provider: Option<&'a str>,
    /// Now.
    pub created_at: &'a str,
}

/// Appends a message to its conversation (after the conversation's last).
#[tracing::instrument(skip(conn, m), err)]
pub async fn insert_message(conn: &mut AnyConnection, m: &NewMessage<'_>) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO qa_messages (id, client_id, user_id, file_id, seq, role, content, provider,
            created_at)
         SELECT $1, $2, $3, $4, COALESCE(MAX(seq), 0) + 1, $5, $6, $7, $8
         FROM qa_messages WHERE client_id = $2 AND user_id = $3",
    )
    .bind(m.id)
    .bind(m.client_id)
    .bind(m.user_id)
    .bind(m.file_id)
    .bind(m.role)
    .bind(m.content)
    .bind(m.provider)
    .bind(m.created_at)
    .execute(conn)
    .await?;
    Ok(())
}

/// Deletes a user's conversation about a client; the messages deleted.
#[tracing::instrument(skip(conn), err)]
pub async fn clear(conn: &mut AnyConnection, client_id: &str, user_id: &str) -> sqlx::Result<u64> {
    Ok(
        sqlx::query("DELETE FROM qa_messages WHERE client_id = $1 AND user_id = $2")
            .bind(client_id)
            .bind(user_id)
            .execute(conn)
            .await?
            .rows_affected(),
    )
}
