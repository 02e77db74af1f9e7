//! Product settings administrators change at run time (`app_settings`, migration 0009): one row
//! per key, the value as text.

use sqlx::{AnyConnection, AnyExecutor};

/// Whether confirmed mappings feed the universal suggestions and auto-mapping uses them
/// (`1` or `0`).
pub const GLOBAL_LEARNING: &str = "universal_mappings.global_learning";
/// Words per chunk of the knowledge base's indexing (a number, 50 to 1000).
pub const CHUNK_WORDS: &str = "knowledge.chunk_words";

/// A setting with who changed it last.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Entry {
    /// The value.
    pub value: String,
    /// The name of who changed it (`None`: set by a migration, or the user is gone).
    pub updated_by: Option<String>,
    /// When.
    pub updated_at: String,
}

/// A setting with its author, if stored.
#[tracing::instrument(skip(ex), err)]
pub async fn entry<'e>(ex: impl AnyExecutor<'e>, key: &str) -> sqlx::Result<Option<Entry>> {
    sqlx::query_as(
        "SELECT s.value,
            CASE WHEN u.id IS NULL THEN NULL ELSE TRIM(u.name || ' ' || u.last_name) END AS updated_by,
            s.updated_at
         FROM app_settings s LEFT JOIN users u ON u.id = s.updated_by WHERE s.key = $1",
    )
    .bind(key)
    .fetch_optional(ex)
    .await
}

/// A setting's value, if stored.
#[tracing::instrument(skip(ex), err)]
pub async fn get<'e>(ex: impl AnyExecutor<'e>, key: &str) -> sqlx::Result<Option<String>> {
    let row: Option<(String,)> = sqlx::query_as("SELECT value FROM app_settings WHERE key = $1")
        .bind(key)
        .fetch_optional(ex)
        .await?;
    Ok(row.map(|r| r.0))
}

/// Stores a setting.
#[tracing::instrument(skip(conn), err)]
pub async fn set(
    conn: &mut AnyConnection,
    key: &str,
    value: &str,
    user_id: &str,
    now: &str,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO app_settings (key, value, updated_by, updated_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (key) DO UPDATE SET value = $2, updated_by = $3, updated_at = $4",
    )
    .bind(key)
    .bind(value)
    .bind(user_id)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(())
}
