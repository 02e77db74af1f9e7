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

/// The name of a column some lever defines, matched case-insensitively.
#[tracing::instrument(skip(ex), err)]
pub async fn defined_column_name<'e>(
    ex: impl AnyExecutor<'e>,
    name: &str,
) -> sqlx::Result<Option<String>> {
    let row: Option<(String,)> = sqlx::query_as(
        "SELECT column_name FROM lever_column_definitions WHERE lower(column_name) = lower($1)
         ORDER BY column_name LIMIT 1",
    )
    .bind(name)
    .fetch_optional(ex)
    .await?;
    Ok(row.map(|r| r.0))
}

/// The required columns' names of each lever that has an analysis code and column definitions:
/// (code, names), in display order.
#[tracing::instrument(skip(ex), err)]
pub async fn required_by_code<'e>(ex: impl AnyExecutor<'e>) -> sqlx::Result<Vec<(String, String)>> {
    sqlx::query_as(
        "SELECT l.code, d.column_name FROM lever_column_definitions d
         JOIN levers l ON l.id = d.lever_id
         WHERE l.code IS NOT NULL AND d.is_required = 1
         ORDER BY l.code, d.display_order, d.column_name",
    )
    .fetch_all(ex)
    .await
}

/// Sets the display order of each of a lever's definitions (`ids[i]` gets `i + 1`); returns how
/// many rows changed.
#[tracing::instrument(skip(conn, ids), err)]
pub async fn reorder_definitions(
    conn: &mut sqlx::AnyConnection,
    lever_id: &str,
    ids: &[String],
    now: &str,
) -> sqlx::Result<u64> {
    let mut n = 0;
    for (i, id) in ids.iter().enumerate() {
        let r = sqlx::query(
            "UPDATE lever_column_definitions SET display_order = $1, updated_at = $2
             WHERE id = $3 AND lever_id = $4",
        )
        .bind(i as i64 + 1)
        .bind(now)
        .bind(id)
        .bind(lever_id)
        .execute(&mut *conn)
        .await?;
        n += r.rows_affected();
    }
    Ok(n)
}

/// The largest display order of a lever's definitions (0 without any).
#[tracing::instrument(skip(ex), err)]
pub async fn max_display_order<'e>(ex: impl AnyExecutor<'e>, lever_id: &str) -> sqlx::Result<i64> {
    let (n,): (i64,) = sqlx::query_as(
        "SELECT CAST(COALESCE(MAX(display_order), 0) AS BIGINT) FROM lever_column_definitions WHERE lever_id = $1",
    )
    .bind(lever_id)
    .fetch_one(ex)
    .await?;
    Ok(n)
}

/// Writes a lever's definitions from a list (a lever put back by the demo data gets the
/// engine's standard columns, as migration 0009 gives the six levers).
#[tracing::instrument(skip(conn, rows), err)]
pub async fn insert_definitions(
    conn: &mut sqlx::AnyConnection,
    rows: &[DefinitionRow],
    now: &str,
) -> sqlx::Result<()> {
    for d in rows {
        write_definition(&mut *conn, d, true, now).await?;
    }
    Ok(())
}
