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
    // The engine requires the standard columns among the required definitions, or the lever's
    // fallbacks when there are none (`analysis::mapping::required_columns`): the dialog asks for
    // the same ones.
    let engine_lever = lever
        .code
        .as_deref()
        .and_then(analysis::model::Lever::parse);
    let required_names: Vec<String> = defined
        .iter()
        .filter(|d| d.is_required != 0)
        .map(|d| d.column_name.clone())
        .collect();
    let engine_required: Vec<analysis::columns::StandardField> = match engine_lever {
        Some(l) => analysis::mapping::required_columns(l, Some(&required_names)),
        None => Vec::new(),
    };
    Ok(defined
        .into_iter()
        .map(|d| StandardColumn {
            is_required: d.is_required != 0
                || analysis::columns::StandardField::from_name(&d.column_name)
                    .is_some_and(|f| engine_required.contains(&f)),
            name: d.column_name,
            description: d.description,
            category: match d.category.trim().to_ascii_lowercase().as_str() {
                "core" => ColumnCategory::Core,
                "analysis" => ColumnCategory::Analysis,
                _ => ColumnCategory::Optional,
            },
            data_type: DataType::parse(&d.column_type),
        })
        .collect())
}

/// The required column names from the column definitions of each lever that has an analysis
/// code, for the engine (`AnalyzeOptions::required_columns`; a lever without required standard
/// columns gets the specification's fallbacks there).
pub async fn required_by_lever(
    state: &AppState,
) -> ApiResult<Vec<(analysis::model::Lever, Vec<String>)>> {
    let mut out: Vec<(analysis::model::Lever, Vec<String>)> = Vec::new();
    for (code, name) in db::required_by_code(&state.db.pool).await? {
        let Some(lever) = analysis::model::Lever::parse(&code) else {
            continue;
        };
        match out.iter_mut().find(|(l, _)| *l == lever) {
            Some((_, names)) => names.push(name),
            None => out.push((lever, vec![name])),
        }
    }
    Ok(out)
}

/// The definitions migration 0009 writes for a lever: the engine's standard columns in display
/// order, with the lever's required set (the demo data gives them to a lever it puts back).
pub fn default_definitions(
    lever_id: &str,
    code: &str,
    lever: Option<analysis::model::Lever>,
) -> Vec<db::DefinitionRow> {
    fallback_columns(lever)
        .into_iter()
        .enumerate()
        .map(|(i, c)| db::DefinitionRow {
            id: format!("lcd-{code}-{}", c.name.to_lowercase()),
            lever_id: lever_id.to_owned(),
            column_name: c.name,
            column_type: data_type_name(c.data_type).to_owned(),
            description: c.description,
            is_required: i64::from(c.is_required),
            category: category_name(c.category).to_owned(),
            display_order: i as i64 + 1,
        })
        .collect()
}

/// A lever's column definition as administrators manage it.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ColumnDefinition {
    /// Id.
    pub id: String,
    /// The lever.
    pub lever_id: String,
    /// The column's name.
    pub name: String,
    /// Data type.
    pub data_type: DataType,
    /// What it holds.
    pub description: String,
    /// Must be mapped.
    pub is_required: bool,
    /// Category.
    pub category: ColumnCategory,
    /// Position in the list.
    #[ts(type = "number")]
    pub display_order: i64,
}

/// The fields of a column definition (create and update).
#[derive(Debug, Clone, serde::Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct ColumnDefinitionInput {
    /// The column's name (trimmed, required).
    pub name: String,
    /// `text`, `numeric`, `date` or `boolean`.
    pub data_type: String,
    /// What it holds.
    #[serde(default)]
    pub description: String,
    /// Must be mapped.
    #[serde(default)]
    pub is_required: bool,
    /// `core`, `analysis` or `optional`.
    pub category: String,
    /// Position in the list (absent: after the last on create, unchanged on update).
    #[serde(default)]
    #[ts(type = "number | null")]
    pub display_order: Option<i64>,
}

/// The refusal of a change of column definitions by anyone but an administrator.
pub const ADMINS_ONLY: &str =
    "Access denied: Only administrators can create/update/delete lever column definitions";

fn require_admin(actor: &crate::service::Actor) -> ApiResult<()> {
    if actor.user.is_admin() {
        Ok(())
    } else {
        Err(ApiError::Forbidden(ADMINS_ONLY.into()))
    }
}

fn category_name(c: ColumnCategory) -> &'static str {
    match c {
        ColumnCategory::Core => "core",
        ColumnCategory::Analysis => "analysis",
        ColumnCategory::Optional => "optional",
    }
}

fn data_type_name(t: DataType) -> &'static str {
    match t {
        DataType::Text => "text",
        DataType::Numeric => "numeric",
        DataType::Date => "date",
        DataType::Boolean => "boolean",
    }
}

fn definition_view(d: db::DefinitionRow) -> ColumnDefinition {
    ColumnDefinition {
        data_type: DataType::parse(&d.column_type),
        category: match d.category.as_str() {
            "core" => ColumnCategory::Core,
            "analysis" => ColumnCategory::Analysis,
            _ => ColumnCategory::Optional,
        },
        is_required: d.is_required != 0,
        id: d.id,
        lever_id: d.lever_id,
        name: d.column_name,
        description: d.description,
        display_order: d.display_order,
    }
}

/// Checks the fields: a non-blank name of at most 100 characters, a known type and category, a
/// description of at most 1000 characters, an order in 0..=10000.
fn checked(
    id: String,
    lever_id: String,
    input: ColumnDefinitionInput,
    default_order: i64,
) -> ApiResult<db::DefinitionRow> {
    let name = input.name.trim();
    if name.is_empty() {
        return Err(ApiError::validation("Column name is required"));
    }
    if name.chars().count() > 100 {
        return Err(ApiError::validation(
            "Column name is longer than 100 characters",
        ));
    }
    let data_type = match input.data_type.trim().to_ascii_lowercase().as_str() {
        "text" => DataType::Text,
        "numeric" => DataType::Numeric,
        "date" => DataType::Date,
        "boolean" => DataType::Boolean,
        other => {
            return Err(ApiError::validation(format!(
                "Column type must be text, numeric, date or boolean, not {other}"
            )));
        }
    };
    let category = match input.category.trim().to_ascii_lowercase().as_str() {
        "core" => ColumnCategory::Core,
        "analysis" => ColumnCategory::Analysis,
        "optional" => ColumnCategory::Optional,
        other => {
            return Err(ApiError::validation(format!(
                "Column category must be core, analysis or optional, not {other}"
            )));
        }
    };
    if input.description.chars().count() > 1000 {
        return Err(ApiError::validation(
            "Description is longer than 1000 characters",
        ));
    }
    let display_order = input.display_order.unwrap_or(default_order);
    if !(0..=10_000).contains(&display_order) {
        return Err(ApiError::validation(
            "Display order must be between 0 and 10000",
        ));
    }
    Ok(db::DefinitionRow {
        id,
        lever_id,
        column_name: name.to_owned(),
        column_type: data_type_name(data_type).to_owned(),
        description: input.description.trim().to_owned(),
        is_required: i64::from(input.is_required),
        category: category_name(category).to_owned(),
        display_order,
    })
}

const DUPLICATE: &str = "This lever already has a column with that name";

/// A lever's definitions with their ids (any signed-in user reads them; administrators change
/// them).
pub async fn definitions(
    state: &AppState,
    actor: &crate::service::Actor,
    lever_id: &str,
) -> ApiResult<Vec<ColumnDefinition>> {
    let _ = actor;
    db::get(&state.db.pool, lever_id)
        .await?
        .ok_or_else(|| ApiError::not_found("Lever not found"))?;
    Ok(db::definitions(&state.db.pool, lever_id)
        .await?
        .into_iter()
        .map(definition_view)
        .collect())
}

/// Adds a column definition to a lever (administrators).
pub async fn create_definition(
    state: &AppState,
    actor: &crate::service::Actor,
    lever_id: &str,
    input: ColumnDefinitionInput,
) -> ApiResult<ColumnDefinition> {
    use crate::error::ResultExt;
    require_admin(actor)?;
    db::get(&state.db.pool, lever_id)
        .await?
        .ok_or_else(|| ApiError::not_found("Lever not found"))?;
    let mut change = crate::service::Change::begin(state, columns_topic()).await?;
    let last = db::max_display_order(change.conn(), lever_id).await?;
    let row = checked(crate::db::new_id(), lever_id.to_owned(), input, last + 1)?;
    db::write_definition(change.conn(), &row, true, &crate::db::now())
        .await
        .on_unique("duplicate_column", DUPLICATE)?;
    change
        .commit(
            actor,
            definitions_changed(lever_id),
            crate::service::Audit {
                event_type: "lever_column_created",
                entity_type: "lever_column_definition",
                entity_id: &row.id,
                details: serde_json::json!({"lever_id": lever_id, "name": row.column_name}),
                severity: "info",
            },
        )
        .await?;
    Ok(definition_view(row))
}

/// Changes a column definition (administrators).
pub async fn update_definition(
    state: &AppState,
    actor: &crate::service::Actor,
    id: &str,
    input: ColumnDefinitionInput,
) -> ApiResult<ColumnDefinition> {
    use crate::error::ResultExt;
    require_admin(actor)?;
    let old = db::definition(&state.db.pool, id)
        .await?
        .ok_or_else(|| ApiError::not_found("Column definition not found"))?;
    let row = checked(
        old.id.clone(),
        old.lever_id.clone(),
        input,
        old.display_order,
    )?;
    let mut change = crate::service::Change::begin(state, columns_topic()).await?;
    if !db::write_definition(change.conn(), &row, false, &crate::db::now())
        .await
        .on_unique("duplicate_column", DUPLICATE)?
    {
        return Err(ApiError::not_found("Column definition not found"));
    }
    change
        .commit(
            actor,
            definitions_changed(&row.lever_id),
            crate::service::Audit {
                event_type: "lever_column_updated",
                entity_type: "lever_column_definition",
                entity_id: id,
                details: serde_json::json!({"lever_id": row.lever_id, "from": old.column_name, "name": row.column_name}),
                severity: "info",
            },
        )
        .await?;
    Ok(definition_view(row))
}

/// Removes a column definition (administrators).
pub async fn delete_definition(
    state: &AppState,
    actor: &crate::service::Actor,
    id: &str,
) -> ApiResult<()> {
    require_admin(actor)?;
    let old = db::definition(&state.db.pool, id)
        .await?
        .ok_or_else(|| ApiError::not_found("Column definition not found"))?;
    let mut change = crate::service::Change::begin(state, columns_topic()).await?;
    if !db::delete_definition(change.conn(), id).await? {
        return Err(ApiError::not_found("Column definition not found"));
    }
    change
        .commit(
            actor,
            definitions_changed(&old.lever_id),
            crate::service::Audit {
                event_type: "lever_column_deleted",
                entity_type: "lever_column_definition",
                entity_id: id,
                details: serde_json::json!({"lever_id": old.lever_id, "name": old.column_name}),
                severity: "info",
            },
        )
        .await?;
    Ok(())
}

/// The topic of Column Configuration (`admin:columns`).
fn columns_topic() -> crate::realtime::Topic {
    crate::realtime::Topic::Admin { area: "columns" }
}

/// The event of a change to a lever's column definitions.
fn definitions_changed(lever_id: &str) -> crate::realtime::Event {
    crate::realtime::Event::DefinitionsChanged(crate::realtime::events::LeverChange {
        lever_id: lever_id.to_owned(),
    })
}

/// A new order of a lever's column definitions: every one of its ids, once, first to last.
#[derive(Debug, Clone, serde::Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct ColumnOrder {
    /// The definitions' ids in their new order.
    pub ids: Vec<String>,
}

/// Reorders a lever's column definitions (administrators): display orders 1, 2, 3 ... in the
/// given order, all written in one transaction. The ids must be exactly the lever's definitions.
pub async fn reorder_definitions(
    state: &AppState,
    actor: &crate::service::Actor,
    lever_id: &str,
    order: ColumnOrder,
) -> ApiResult<Vec<ColumnDefinition>> {
    require_admin(actor)?;
    db::get(&state.db.pool, lever_id)
        .await?
        .ok_or_else(|| ApiError::not_found("Lever not found"))?;
    let mut change = crate::service::Change::begin(state, columns_topic()).await?;
    let current = db::definitions(change.conn(), lever_id).await?;
    let mut given = order.ids.clone();
    given.sort();
    given.dedup();
    let mut have: Vec<String> = current.iter().map(|d| d.id.clone()).collect();
    have.sort();
    if given.len() != order.ids.len() || given != have {
        return Err(ApiError::validation(
            "The order must list each of the lever's column definitions once",
        ));
    }
    db::reorder_definitions(change.conn(), lever_id, &order.ids, &crate::db::now()).await?;
    let rows = db::definitions(change.conn(), lever_id).await?;
    change
        .commit(
            actor,
            definitions_changed(lever_id),
            crate::service::Audit {
                event_type: "lever_columns_reordered",
                entity_type: "lever",
                entity_id: lever_id,
                details: serde_json::json!({ "order": order.ids }),
                severity: "info",
            },
        )
        .await?;
    Ok(rows.into_iter().map(definition_view).collect())
}
