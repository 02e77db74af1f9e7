//! Levers and their standard columns (the mapping dialog's list): a lever's column definitions
//! when it has any, the engine's standard columns with the specification's fallback required set
//! otherwise.

use serde::Serialize;

use crate::db::levers as db;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// A lever as screens show it.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Lever {
    /// Id.
    pub id: String,
    /// The analysis code (`pse`, `rgla`, `mdb`, `institutions`, `corporates`, `sovereigns`).
    pub code: Option<String>,
    /// Name.
    pub name: String,
    /// Category.
    pub category: String,
}

/// A column category in the mapping dialog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ColumnCategory {
    /// Needed by every analysis.
    Core,
    /// Needed by some levers.
    Analysis,
    /// Improves the analysis.
    Optional,
}

/// A column's data type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum DataType {
    /// Text or codes.
    Text,
    /// Numbers.
    Numeric,
    /// Dates.
    Date,
    /// Yes/no.
    Boolean,
}

impl DataType {
    /// From the engine's type.
    pub fn from_engine(t: analysis::columns::ColumnType) -> DataType {
        use analysis::columns::ColumnType as T;
        match t {
            T::Text => DataType::Text,
            T::Numeric => DataType::Numeric,
            T::Date => DataType::Date,
            T::Boolean => DataType::Boolean,
        }
    }

    fn parse(s: &str) -> DataType {
        match s.trim().to_ascii_lowercase().as_str() {
            "numeric" | "number" => DataType::Numeric,
            "date" => DataType::Date,
            "boolean" | "bool" => DataType::Boolean,
            _ => DataType::Text,
        }
    }
}

/// A standard column of a lever.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct StandardColumn {
    /// Name, as in mappings and processed files.
    pub name: String,
    /// What it holds.
    pub description: String,
    /// Category.
    pub category: ColumnCategory,
    /// Must be mapped.
    pub is_required: bool,
    /// Data type.
    pub data_type: DataType,
}

/// Every lever, by name.
pub async fn list(state: &AppState) -> ApiResult<Vec<Lever>> {
    Ok(crate::db::clients::levers(&state.db.pool)
        .await?
        .into_iter()
        .map(|l| Lever {
            id: l.id,
            code: l.code,
            name: l.lever_name,
            category: l.lever_category,
        })
        .collect())
}

/// The engine's standard columns with the required set of `lever` (the specification's
/// fallbacks per lever; the engine's own flags without a known lever).
pub fn fallback_columns(lever: Option<analysis::model::Lever>) -> Vec<StandardColumn> {
    use analysis::columns::{ColumnCategory as C, STANDARD_COLUMNS};
    let required = lever.map(|l| analysis::mapping::required_columns(l, None));
    STANDARD_COLUMNS
        .iter()
        .map(|c| StandardColumn {
            name: c.name.to_owned(),
            description: c.description.to_owned(),
            category: match c.category {
                C::Core => ColumnCategory::Core,
                C::Analysis => ColumnCategory::Analysis,
                C::Optional => ColumnCategory::Optional,
            },
            is_required: match &required {
                Some(r) => r.contains(&c.field),
                None => c.is_required,
            },
            data_type: DataType::from_engine(c.data_type),
        })
        .collect()
}

/// A lever's standard columns: its definitions in display order, else the fallbacks.
pub async fn columns(state: &AppState, lever_id: &str) -> ApiResult<Vec<StandardColumn>> {
    let lever = db::get(&state.db.pool, lever_id)
        .await?
        .ok_or_else(|| ApiError::not_found("Lever not found"))?;
    let defined = db::column_definitions(&state.db.pool, lever_id).await?;
    if defined.is_empty() {
        let engine_lever = lever
            .code
            .as_deref()
            .and_then(analysis::model::Lever::parse)
            .or_else(|| analysis::model::Lever::parse(&lever.lever_name));
        return Ok(fallback_columns(engine_lever));
    }
    Ok(defined
        .into_iter()
        .map(|d| StandardColumn {
            name: d.column_name,
            description: d.description,
            category: match d.category.trim().to_ascii_lowercase().as_str() {
                "core" => ColumnCategory::Core,
                "analysis" => ColumnCategory::Analysis,
                _ => ColumnCategory::Optional,
            },
            is_required: d.is_required != 0,
            data_type: DataType::parse(&d.column_type),
        })
        .collect())
}
