//! Lever justification templates (migration 0025): name, category, content, default flag.

use sqlx::{AnyConnection, AnyExecutor, FromRow};

/// A stored template with its creator's name.
#[derive(Debug, Clone, FromRow)]
pub struct JustificationRow {
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
    /// `regulatory`, `internal` or `custom`.
    pub category: String,
    /// The template text.
    pub template_content: String,
    /// 1 for the default template.
    pub is_default: i64,
    /// Creator's name (name and last name), when the user still exists.
    pub created_by_name: Option<String>,
    /// Creation time.
    pub created_at: String,
    /// Last change.
    pub updated_at: String,
}

const COLUMNS: &str = "SELECT t.id, t.name, t.category, t.template_content, t.is_default, \
    CASE WHEN u.id IS NULL THEN NULL ELSE TRIM(u.name || ' ' || u.last_name) END AS created_by_name, \
    t.created_at, t.updated_at FROM justification_templates t LEFT JOIN users u ON u.id = t.created_by";

/// Every template, newest first.
#[tracing::instrument(skip(ex), err)]
pub async fn list<'e>(ex: impl AnyExecutor<'e>) -> sqlx::Result<Vec<JustificationRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{COLUMNS} ORDER BY t.created_at DESC, t.id DESC"
    )))
    .fetch_all(ex)
    .await
}

/// One template.
#[tracing::instrument(skip(ex), err)]
pub async fn get<'e>(ex: impl AnyExecutor<'e>, id: &str) -> sqlx::Result<Option<JustificationRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!("{COLUMNS} WHERE t.id = $1")))
        .bind(id)
        .fetch_optional(ex)
        .await
}

/// The default template, if one is marked.
#[tracing::instrument(skip(ex), err)]
pub async fn default_template<'e>(
    ex: impl AnyExecutor<'e>,
) -> sqlx::Result<Option<JustificationRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{COLUMNS} WHERE t.is_default = 1 ORDER BY t.updated_at DESC LIMIT 1"
    )))
    .fetch_optional(ex)
    .await
}

/// What a template holds.
#[derive(Debug)]
pub struct JustificationWrite<'a> {
    /// Name.
    pub name: &'a str,
    /// Category.
    pub category: &'a str,
    /// Content.
    pub template_content: &'a str,
    /// 1 for the default.
    pub is_default: i64,
    /// When.
    pub now: &'a str,
}

/// Inserts a template.
#[tracing::instrument(skip(conn, w), err)]
pub async fn insert(
    conn: &mut AnyConnection,
    id: &str,
    created_by: &str,
    w: &JustificationWrite<'_>,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO justification_templates (id, name, category, template_content, is_default, \
         created_by, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)",
    )
    .bind(id)
    .bind(w.name)
    .bind(w.category)
    .bind(w.template_content)
    .bind(w.is_default)
    .bind(created_by)
    .bind(w.now)
    .execute(conn)
    .await?;
    Ok(())
}

/// Updates a template; `false` when it does not exist.
#[tracing::instrument(skip(conn, w), err)]
pub async fn update(
    conn: &mut AnyConnection,
    id: &str,
    w: &JustificationWrite<'_>,
) -> sqlx::Result<bool> {
    let done = sqlx::query(
        "UPDATE justification_templates SET name = $2, category = $3, template_content = $4, \
         is_default = $5, updated_at = $6 WHERE id = $1",
    )
    .bind(id)
    .bind(w.name)
    .bind(w.category)
    .bind(w.template_content)
    .bind(w.is_default)
    .bind(w.now)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Makes every template but `keep` not the default.
#[tracing::instrument(skip(conn), err)]
pub async fn clear_default_except(conn: &mut AnyConnection, keep: &str) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE justification_templates SET is_default = 0 WHERE is_default = 1 AND id <> $1",
    )
    .bind(keep)
    .execute(conn)
    .await?;
    Ok(())
}

/// Deletes a template; `false` when it did not exist.
#[tracing::instrument(skip(conn), err)]
pub async fn delete(conn: &mut AnyConnection, id: &str) -> sqlx::Result<bool> {
    let done = sqlx::query("DELETE FROM justification_templates WHERE id = $1")
        .bind(id)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}
