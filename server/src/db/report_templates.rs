//! Report templates (migration 0021): name, type, sections and branding (JSON text), active flag.

use sqlx::{AnyConnection, AnyExecutor, FromRow};

/// A stored template.
#[derive(Debug, Clone, FromRow)]
pub struct TemplateRow {
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Description.
    pub description: String,
    /// `basel_iii`, `eba` or `custom`.
    pub template_type: String,
    /// Sections, JSON.
    pub sections: String,
    /// Branding, JSON.
    pub branding: String,
    /// 1 when offered to clients.
    pub is_active: i64,
    /// Creator.
    pub created_by: Option<String>,
    /// Creation time.
    pub created_at: String,
    /// Last change.
    pub updated_at: String,
}

const COLUMNS: &str = "SELECT id, name, description, template_type, sections, branding, is_active, \
    created_by, created_at, updated_at FROM report_templates";

/// Every template (`active_only`: the active ones), by name.
#[tracing::instrument(skip(ex), err)]
pub async fn list<'e>(
    ex: impl AnyExecutor<'e>,
    active_only: bool,
) -> sqlx::Result<Vec<TemplateRow>> {
    let filter = if active_only {
        " WHERE is_active = 1"
    } else {
        ""
    };
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{COLUMNS}{filter} ORDER BY lower(name), id"
    )))
    .fetch_all(ex)
    .await
}

/// One template.
#[tracing::instrument(skip(ex), err)]
pub async fn get<'e>(ex: impl AnyExecutor<'e>, id: &str) -> sqlx::Result<Option<TemplateRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!("{COLUMNS} WHERE id = $1")))
        .bind(id)
        .fetch_optional(ex)
        .await
}

/// Inserts a template.
#[tracing::instrument(skip(conn, row), fields(id = %row.id), err)]
pub async fn insert(conn: &mut AnyConnection, row: &TemplateRow) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO report_templates (id, name, description, template_type, sections, branding, \
         is_active, created_by, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    )
    .bind(&row.id)
    .bind(&row.name)
    .bind(&row.description)
    .bind(&row.template_type)
    .bind(&row.sections)
    .bind(&row.branding)
    .bind(row.is_active)
    .bind(&row.created_by)
    .bind(&row.created_at)
    .bind(&row.updated_at)
    .execute(conn)
    .await?;
    Ok(())
}

/// What an edit changes (the type is fixed at creation).
#[derive(Debug)]
pub struct TemplateChange<'a> {
    /// Name.
    pub name: &'a str,
    /// Description.
    pub description: &'a str,
    /// Sections, JSON.
    pub sections: &'a str,
    /// Branding, JSON.
    pub branding: &'a str,
    /// 1 when offered to clients.
    pub is_active: i64,
    /// When.
    pub now: &'a str,
}

/// Updates a template; `false` when it does not exist.
#[tracing::instrument(skip(conn, change), err)]
pub async fn update(
    conn: &mut AnyConnection,
    id: &str,
    change: &TemplateChange<'_>,
) -> sqlx::Result<bool> {
    let done = sqlx::query(
        "UPDATE report_templates SET name = $2, description = $3, sections = $4, branding = $5, \
         is_active = $6, updated_at = $7 WHERE id = $1",
    )
    .bind(id)
    .bind(change.name)
    .bind(change.description)
    .bind(change.sections)
    .bind(change.branding)
    .bind(change.is_active)
    .bind(change.now)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Deletes a template; `false` when it did not exist.
#[tracing::instrument(skip(conn), err)]
pub async fn delete(conn: &mut AnyConnection, id: &str) -> sqlx::Result<bool> {
    let done = sqlx::query("DELETE FROM report_templates WHERE id = $1")
        .bind(id)
        .execute(conn)
        .await?;
    Ok(done.rows_affected() == 1)
}
