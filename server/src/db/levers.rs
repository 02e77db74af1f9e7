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
