//! Levers' column definitions (the levers themselves are in `db::clients`).

use sqlx::{AnyExecutor, FromRow};

pub use super::clients::LeverRow;

/// One lever by id.
#[tracing::instrument(skip(ex), err)]
pub async fn get<'e>(ex: impl AnyExecutor<'e>, id: &str) -> sqlx::Result<Option<LeverRow>> {
    sqlx::query_as(
        "SELECT id, code, lever_name, description, lever_category FROM levers WHERE id = $1",
    )
    .bind(id)
    .fetch_optional(ex)
    .await
}

/// A column definition of a lever.
#[derive(Debug, Clone, FromRow)]
pub struct ColumnDefinitionRow {
    /// The standard column's name.
    pub column_name: String,
    /// `text`, `numeric`, `date` or `boolean`.
    pub column_type: String,
    /// Description.
    pub description: String,
    /// 1 when the column must be mapped.
    pub is_required: i64,
    /// `core`, `analysis` or `optional`.
    pub category: String,
}

/// A lever's column definitions in display order.
#[tracing::instrument(skip(ex), err)]
pub async fn column_definitions<'e>(
    ex: impl AnyExecutor<'e>,
    lever_id: &str,
) -> sqlx::Result<Vec<ColumnDefinitionRow>> {
    sqlx::query_as(
        "SELECT column_name, column_type, description, is_required, category
         FROM lever_column_definitions WHERE lever_id = $1 ORDER BY display_order, column_name",
    )
    .bind(lever_id)
    .fetch_all(ex)
    .await
}

/// A column definition with its id and order (the administrators' view).
#[derive(Debug, Clone, FromRow)]
pub struct DefinitionRow {
    /// Id.
    pub id: String,
    /// The lever.
    pub lever_id: String,
    /// The column's name.
    pub column_name: String,
    /// `text`, `numeric`, `date` or `boolean`.
    pub column_type: String,
    /// Description.
    pub description: String,
    /// 1 when the column must be mapped.
    pub is_required: i64,
    /// `core`, `analysis` or `optional`.
    pub category: String,
    /// Position in the list.
    pub display_order: i64,
}

const DEF_COLS: &str =
    "id, lever_id, column_name, column_type, description, is_required, category, display_order";

/// A lever's definitions with their ids, in display order.
#[tracing::instrument(skip(ex), err)]
pub async fn definitions<'e>(
    ex: impl AnyExecutor<'e>,
    lever_id: &str,
) -> sqlx::Result<Vec<DefinitionRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {DEF_COLS} FROM lever_column_definitions WHERE lever_id = $1 ORDER BY display_order, column_name"
    )))
    .bind(lever_id)
    .fetch_all(ex)
    .await
}

/// One definition.
#[tracing::instrument(skip(ex), err)]
pub async fn definition<'e>(
    ex: impl AnyExecutor<'e>,
    id: &str,
) -> sqlx::Result<Option<DefinitionRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {DEF_COLS} FROM lever_column_definitions WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(ex)
    .await
}

/// Inserts (`insert`) or updates a definition with all its fields.
#[tracing::instrument(skip(conn), err)]
pub async fn write_definition(
    conn: &mut sqlx::AnyConnection,
    d: &DefinitionRow,
    insert: bool,
    now: &str,
) -> sqlx::Result<bool> {
    let sql = if insert {
        "INSERT INTO lever_column_definitions (id, lever_id, column_name, column_type, description, is_required, category, display_order, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)"
    } else {
        "UPDATE lever_column_definitions SET lever_id = $2, column_name = $3, column_type = $4, description = $5, is_required = $6, category = $7, display_order = $8, updated_at = $9
         WHERE id = $1"
    };
    let r = sqlx::query(sql)
        .bind(&d.id)
        .bind(&d.lever_id)
        .bind(&d.column_name)
        .bind(&d.column_type)
        .bind(&d.description)
        .bind(d.is_required)
        .bind(&d.category)
        .bind(d.display_order)
        .bind(now)
        .execute(conn)
        .await?;
    Ok(r.rows_affected() > 0)
}

/// Removes a definition.
#[tracing::instrument(skip(conn), err)]
pub async fn delete_definition(conn: &mut sqlx::AnyConnection, id: &str) -> sqlx::Result<bool> {
    let r = sqlx::query("DELETE FROM lever_column_definitions WHERE id = $1")
        .bind(id)
        .execute(conn)
        .await?;
    Ok(r.rows_affected() > 0)
}
