//! Mapping templates (`column_mappings`) and universal column suggestions.

use sqlx::{AnyConnection, AnyExecutor, FromRow};

/// A mapping template.
#[derive(Debug, Clone, FromRow)]
pub struct TemplateRow {
    /// Id.
    pub id: String,
    /// The client whose team shares it.
    pub client_id: String,
    /// Name.
    pub template_name: String,
    /// The lever it was made for.
    pub lever_id: Option<String>,
    /// JSON array of the source file's columns.
    pub source_columns: String,
    /// JSON object standard column -> source column.
    pub target_mapping: String,
    /// Creation time.
    pub created_at: String,
}

const COLS: &str =
    "id, client_id, template_name, lever_id, source_columns, target_mapping, created_at";

/// A client's templates, newest first, optionally those of one lever.
#[tracing::instrument(skip(ex), err)]
pub async fn list<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
    lever_id: Option<&str>,
) -> sqlx::Result<Vec<TemplateRow>> {
    match lever_id {
        Some(lever) => sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {COLS} FROM column_mappings WHERE client_id = $1 AND lever_id = $2 ORDER BY created_at DESC, id DESC"
        )))
        .bind(client_id)
        .bind(lever)
        .fetch_all(ex)
        .await,
        None => sqlx::query_as(sqlx::AssertSqlSafe(format!(
            "SELECT {COLS} FROM column_mappings WHERE client_id = $1 ORDER BY created_at DESC, id DESC"
        )))
        .bind(client_id)
        .fetch_all(ex)
        .await,
    }
}

/// One template.
#[tracing::instrument(skip(ex), err)]
pub async fn get<'e>(ex: impl AnyExecutor<'e>, id: &str) -> sqlx::Result<Option<TemplateRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLS} FROM column_mappings WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(ex)
    .await
}

/// A template to save.
#[derive(Debug)]
pub struct NewTemplate<'a> {
    /// Id.
    pub id: &'a str,
    /// The client.
    pub client_id: &'a str,
    /// Name (trimmed).
    pub name: &'a str,
    /// The lever.
    pub lever_id: Option<&'a str>,
    /// JSON array.
    pub source_columns: &'a str,
    /// JSON object.
    pub target_mapping: &'a str,
    /// Who saved it.
    pub created_by: &'a str,
    /// Now.
    pub now: &'a str,
}

/// Saves a template.
#[tracing::instrument(skip(conn), err)]
pub async fn insert(conn: &mut AnyConnection, t: &NewTemplate<'_>) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO column_mappings (id, client_id, template_name, lever_id, source_columns, target_mapping, is_default, created_by, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, 0, $7, $8, $8)",
    )
    .bind(t.id)
    .bind(t.client_id)
    .bind(t.name)
    .bind(t.lever_id)
    .bind(t.source_columns)
    .bind(t.target_mapping)
    .bind(t.created_by)
    .bind(t.now)
    .execute(conn)
    .await?;
    Ok(())
}

/// Removes a template.
#[tracing::instrument(skip(conn), err)]
pub async fn delete(conn: &mut AnyConnection, id: &str) -> sqlx::Result<bool> {
    let r = sqlx::query("DELETE FROM column_mappings WHERE id = $1")
        .bind(id)
        .execute(conn)
        .await?;
    Ok(r.rows_affected() > 0)
}

/// A universal suggestion: a source column name seen mapped to a standard column.
#[derive(Debug, Clone, FromRow)]
pub struct SuggestionRow {
    /// Normalised source column name (trimmed, lower case).
    pub source_column_name: String,
    /// Standard column.
    pub target_column_name: String,
    /// Times confirmed.
    pub usage_count: i64,
    /// 0 to 1.
    pub confidence_score: f64,
}

/// The enabled suggestions for these normalised source names, most used first.
#[tracing::instrument(skip(ex, sources), err)]
pub async fn suggestions_for<'e>(
    ex: impl AnyExecutor<'e>,
    sources: &[String],
) -> sqlx::Result<Vec<SuggestionRow>> {
    if sources.is_empty() {
        return Ok(Vec::new());
    }
    // Placeholders only ($1..$n); the names are bound.
    let marks: Vec<String> = (1..=sources.len()).map(|i| format!("${i}")).collect();
    let sql = format!(
        "SELECT source_column_name, target_column_name, usage_count, confidence_score
         FROM universal_column_suggestions
         WHERE enabled = 1 AND source_column_name IN ({})
         ORDER BY usage_count DESC, confidence_score DESC, target_column_name",
        marks.join(", ")
    );
    let mut query = sqlx::query_as(sqlx::AssertSqlSafe(sql));
    for s in sources {
        query = query.bind(s.clone());
    }
    query.fetch_all(ex).await
}

/// Counts one confirmation of `source -> target` (inserted with a count of 1, else + 1).
#[tracing::instrument(skip(conn), err)]
pub async fn upsert_suggestion(
    conn: &mut AnyConnection,
    id: &str,
    source: &str,
    target: &str,
    now: &str,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO universal_column_suggestions (id, source_column_name, target_column_name, usage_count, created_at, updated_at)
         VALUES ($1, $2, $3, 1, $4, $4)
         ON CONFLICT (source_column_name, target_column_name)
         DO UPDATE SET usage_count = universal_column_suggestions.usage_count + 1, updated_at = $4",
    )
    .bind(id)
    .bind(source)
    .bind(target)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(())
}

/// A universal suggestion as administrators manage it.
#[derive(Debug, Clone, FromRow)]
pub struct SuggestionAdminRow {
    /// Id.
    pub id: String,
    /// Normalised source column name.
    pub source_column_name: String,
    /// Standard column.
    pub target_column_name: String,
    /// Times confirmed.
    pub usage_count: i64,
    /// 0 to 1.
    pub confidence_score: f64,
    /// 1 when auto-mapping may use it.
    pub enabled: i64,
    /// When it was first seen or added.
    pub created_at: String,
}

const SUGGESTION_COLS: &str = "id, source_column_name, target_column_name, usage_count, confidence_score, enabled, created_at";

/// Every suggestion, most confident first.
#[tracing::instrument(skip(ex), err)]
pub async fn list_suggestions<'e>(
    ex: impl AnyExecutor<'e>,
) -> sqlx::Result<Vec<SuggestionAdminRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {SUGGESTION_COLS} FROM universal_column_suggestions
         ORDER BY confidence_score DESC, usage_count DESC, source_column_name, target_column_name"
    )))
    .fetch_all(ex)
    .await
}

/// One suggestion.
#[tracing::instrument(skip(ex), err)]
pub async fn get_suggestion<'e>(
    ex: impl AnyExecutor<'e>,
    id: &str,
) -> sqlx::Result<Option<SuggestionAdminRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {SUGGESTION_COLS} FROM universal_column_suggestions WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(ex)
    .await
}

/// The figures of the suggestions: (total, enabled, confidence above `high`, usage total).
#[tracing::instrument(skip(ex), err)]
pub async fn suggestion_stats<'e>(
    ex: impl AnyExecutor<'e>,
    high: f64,
) -> sqlx::Result<(i64, i64, i64, i64)> {
    sqlx::query_as(
        "SELECT COUNT(*),
            CAST(COALESCE(SUM(CASE WHEN enabled = 1 THEN 1 ELSE 0 END), 0) AS BIGINT),
            CAST(COALESCE(SUM(CASE WHEN confidence_score > $1 THEN 1 ELSE 0 END), 0) AS BIGINT),
            CAST(COALESCE(SUM(usage_count), 0) AS BIGINT)
         FROM universal_column_suggestions",
    )
    .bind(high)
    .fetch_one(ex)
    .await
}

/// Adds a suggestion with its confidence and usage; `false` when the pair exists already.
#[tracing::instrument(skip(conn), err)]
pub async fn insert_suggestion(
    conn: &mut AnyConnection,
    id: &str,
    source: &str,
    target: &str,
    confidence: f64,
    usage: i64,
    now: &str,
) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "INSERT INTO universal_column_suggestions (id, source_column_name, target_column_name, usage_count, confidence_score, enabled, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, 1, $6, $6)
         ON CONFLICT (source_column_name, target_column_name) DO NOTHING",
    )
    .bind(id)
    .bind(source)
    .bind(target)
    .bind(usage)
    .bind(confidence)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(r.rows_affected() > 0)
}

/// Enables or disables a suggestion.
#[tracing::instrument(skip(conn), err)]
pub async fn set_suggestion_enabled(
    conn: &mut AnyConnection,
    id: &str,
    enabled: bool,
    now: &str,
) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "UPDATE universal_column_suggestions SET enabled = $2, updated_at = $3 WHERE id = $1",
    )
    .bind(id)
    .bind(i64::from(enabled))
    .bind(now)
    .execute(conn)
    .await?;
    Ok(r.rows_affected() > 0)
}

/// Removes a suggestion.
#[tracing::instrument(skip(conn), err)]
pub async fn delete_suggestion(conn: &mut AnyConnection, id: &str) -> sqlx::Result<bool> {
    let r = sqlx::query("DELETE FROM universal_column_suggestions WHERE id = $1")
        .bind(id)
        .execute(conn)
        .await?;
    Ok(r.rows_affected() > 0)
}
