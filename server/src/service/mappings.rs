//! Mapping templates, shared by a client's team, and the universal column suggestions learnt
//! from confirmed mappings.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sqlx::AnyConnection;

use crate::access::Need;
use crate::db::mappings as db;
use crate::error::{ApiError, ApiResult};
use crate::ids::ClientId;
use crate::realtime::{Event, Topic};
use crate::service::{Actor, Audit, Change, Scope, scope_of};
use crate::state::AppState;

/// Longest template name.
pub const MAX_TEMPLATE_NAME: usize = 200;
/// Most columns in a template.
pub const MAX_TEMPLATE_COLUMNS: usize = 1000;

/// A saved mapping template.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct MappingTemplate {
    /// Id.
    pub id: String,
    /// The client whose team shares it.
    pub client_id: ClientId,
    /// Name.
    pub name: String,
    /// The lever it was made for.
    pub lever_id: Option<String>,
    /// The source file's columns.
    pub source_columns: Vec<String>,
    /// Standard column to source column.
    pub mapping: BTreeMap<String, String>,
    /// When it was saved.
    pub created_at: String,
}

impl MappingTemplate {
    /// The view of a stored template.
    pub fn from_row(r: db::TemplateRow) -> MappingTemplate {
        MappingTemplate {
            source_columns: serde_json::from_str(&r.source_columns).unwrap_or_default(),
            mapping: serde_json::from_str(&r.target_mapping).unwrap_or_default(),
            id: r.id,
            client_id: r.client_id.into(),
            name: r.template_name,
            lever_id: r.lever_id,
            created_at: r.created_at,
        }
    }
}

/// A template to save.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct NewMappingTemplate {
    /// Name (required, trimmed).
    pub name: String,
    /// The lever.
    #[serde(default)]
    pub lever_id: Option<String>,
    /// The source file's columns.
    pub source_columns: Vec<String>,
    /// Standard column to source column (at least one).
    pub mapping: BTreeMap<String, String>,
}

/// A client's templates, newest first (optionally one lever's).
pub async fn list(
    state: &AppState,
    scope: &Scope,
    lever_id: Option<&str>,
) -> ApiResult<Vec<MappingTemplate>> {
    let lever = lever_id.map(str::trim).filter(|l| !l.is_empty());
    Ok(db::list(&state.db.pool, &scope.client_id, lever)
        .await?
        .into_iter()
        .map(MappingTemplate::from_row)
        .collect())
}

/// Saves a template for the client's team.
pub async fn create(
    state: &AppState,
    scope: &Scope,
    input: NewMappingTemplate,
) -> ApiResult<MappingTemplate> {
    if !scope.rights.allow(Need::Write) {
        return Err(ApiError::read_only());
    }
    let name = input.name.trim();
    if name.is_empty() {
        return Err(ApiError::validation(
            "Please enter a name for the template.",
        ));
    }
    if name.chars().count() > MAX_TEMPLATE_NAME {
        return Err(ApiError::validation(format!(
            "Template name is longer than {MAX_TEMPLATE_NAME} characters"
        )));
    }
    let mapping: BTreeMap<String, String> = input
        .mapping
        .into_iter()
        .filter(|(k, v)| !k.trim().is_empty() && !v.trim().is_empty())
        .collect();
    if mapping.is_empty() {
        return Err(ApiError::validation(
            "A template needs at least one mapped column",
        ));
    }
    if input.source_columns.len() > MAX_TEMPLATE_COLUMNS || mapping.len() > MAX_TEMPLATE_COLUMNS {
        return Err(ApiError::validation("Too many columns in the template"));
    }
    let lever_id = input.lever_id.filter(|l| !l.is_empty() && l != "tbd");
    if let Some(l) = &lever_id
        && crate::db::levers::get(&state.db.pool, l).await?.is_none()
    {
        return Err(ApiError::validation("Lever not found"));
    }
    let id = crate::db::new_id();
    let now = crate::db::now();
    let source_columns =
        serde_json::to_string(&input.source_columns).map_err(|e| ApiError::Internal(e.into()))?;
    let target_mapping =
        serde_json::to_string(&mapping).map_err(|e| ApiError::Internal(e.into()))?;
    let mut change = Change::begin_unannounced(state).await?;
    db::insert(
        change.conn(),
        &db::NewTemplate {
            id: &id,
            client_id: &scope.client_id,
            name,
            lever_id: lever_id.as_deref(),
            source_columns: &source_columns,
            target_mapping: &target_mapping,
            created_by: &scope.user().id,
            now: &now,
        },
    )
    .await?;
    let row = db::get(change.conn(), &id)
        .await?
        .ok_or_else(|| ApiError::Internal(anyhow::anyhow!("the new template is missing")))?;
    change
        .commit_unannounced(
            scope.actor.audited(),
            Audit {
                event_type: "mapping_template_created",
                entity_type: "column_mapping",
                entity_id: &id,
                details: serde_json::json!({"client_id": scope.client_id.as_str(), "name": name}),
                severity: "info",
            },
        )
        .await?;
    Ok(MappingTemplate::from_row(row))
}

/// Deletes a template of a client the caller may change (404 for anyone else's).
pub async fn delete(state: &AppState, actor: &Actor, id: &str) -> ApiResult<()> {
    let row = db::get(&state.db.pool, id)
        .await?
        .ok_or_else(|| ApiError::not_found("Template not found"))?;
    if crate::access::decide(&actor.user, &row.client_id).is_none() {
        return Err(ApiError::not_found("Template not found"));
    }
    let scope = scope_of(state, actor.clone(), &row.client_id, Need::Write).await?;
    let mut change = Change::begin_unannounced(state).await?;
    if !db::delete(change.conn(), id).await? {
        return Err(ApiError::not_found("Template not found"));
    }
    change
        .commit_unannounced(
            scope.actor.audited(),
            Audit {
                event_type: "mapping_template_deleted",
                entity_type: "column_mapping",
                entity_id: id,
                details: serde_json::json!({"client_id": row.client_id, "name": row.template_name}),
                severity: "info",
            },
        )
        .await?;
    Ok(())
}

/// The key a source column name is learnt under: trimmed, lower case.
pub fn suggestion_key(source: &str) -> String {
    source.trim().to_lowercase()
}

/// Counts a confirmed mapping in the universal suggestions, in the caller's transaction and
/// best-effort: a failure is logged and changes nothing else (a savepoint keeps the caller's
/// transaction usable).
pub async fn learn_in(conn: &mut AnyConnection, mapping: &BTreeMap<String, String>) {
    use sqlx::Connection;
    let result: sqlx::Result<()> = async {
        // Global learning off: confirmed mappings are not counted.
        if !learning_on(&mut *conn).await? {
            return Ok(());
        }
        let mut sp = conn.begin().await?;
        let now = crate::db::now();
        for (target, source) in mapping {
            let source = suggestion_key(source);
            if source.is_empty() || target.trim().is_empty() || source.chars().count() > 200 {
                continue;
            }
            db::upsert_suggestion(&mut sp, &crate::db::new_id(), &source, target.trim(), &now)
                .await?;
        }
        sp.commit().await
    }
    .await;
    if let Err(e) = result {
        tracing::warn!(error = %e, "could not record the universal column suggestions");
    }
}

/// Enabled universal suggestions for these source columns: (standard column, source column,
/// score), most used first.
pub async fn suggestions_for(
    state: &AppState,
    sources: &[String],
) -> ApiResult<Vec<(String, String, f64)>> {
    // Global learning off: auto-mapping ignores the universal suggestions.
    if !learning_on(&state.db.pool).await? {
        return Ok(Vec::new());
    }
    let keys: Vec<String> = sources.iter().map(|s| suggestion_key(s)).collect();
    let rows = db::suggestions_for(&state.db.pool, &keys).await?;
    let mut out = Vec::new();
    for r in rows {
        for s in sources
            .iter()
            .filter(|s| suggestion_key(s) == r.source_column_name)
        {
            out.push((r.target_column_name.clone(), s.clone(), r.confidence_score));
        }
    }
    Ok(out)
}

/// Whether global learning is on (the stored setting; on when it was never stored).
async fn learning_on<'e>(ex: impl sqlx::AnyExecutor<'e>) -> sqlx::Result<bool> {
    Ok(
        crate::db::settings::get(ex, crate::db::settings::GLOBAL_LEARNING)
            .await?
            .is_none_or(|v| v != "0"),
    )
}

/// Above this confidence a suggestion counts as high confidence.
pub const HIGH_CONFIDENCE: f64 = 0.8;
/// The confidence of a suggestion an administrator adds.
pub const NEW_SUGGESTION_CONFIDENCE: f64 = 0.8;
/// The usage count of a suggestion an administrator adds.
pub const NEW_SUGGESTION_USAGE: i64 = 1;
/// Longest source column name of a suggestion.
pub const MAX_SUGGESTION_NAME: usize = 200;

/// A universal column suggestion: a source column name seen mapped to a standard column.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct UniversalSuggestion {
    /// Id.
    pub id: String,
    /// The source column name (trimmed, lower case).
    pub source_column_name: String,
    /// The standard column.
    pub target_column_name: String,
    /// 0 to 1.
    pub confidence_score: f64,
    /// Times a confirmed mapping used it.
    #[ts(type = "number")]
    pub usage_count: i64,
    /// Whether auto-mapping may use it.
    pub enabled: bool,
    /// When it was first seen or added.
    pub created_at: String,
}

impl UniversalSuggestion {
    fn from_row(r: db::SuggestionAdminRow) -> UniversalSuggestion {
        UniversalSuggestion {
            id: r.id,
            source_column_name: r.source_column_name,
            target_column_name: r.target_column_name,
            confidence_score: r.confidence_score,
            usage_count: r.usage_count,
            enabled: r.enabled != 0,
            created_at: r.created_at,
        }
    }
}

/// The figures of the Universal Column Mappings screen.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SuggestionStats {
    /// Suggestions.
    #[ts(type = "number")]
    pub total: i64,
    /// Enabled ones.
    #[ts(type = "number")]
    pub enabled: i64,
    /// Confidence above 0.8.
    #[ts(type = "number")]
    pub high_confidence: i64,
    /// Usage counts added up.
    #[ts(type = "number")]
    pub total_usage: i64,
}

/// The Universal Column Mappings screen: the global-learning setting, the figures and every
/// suggestion, most confident first.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct UniversalSuggestions {
    /// Whether confirmed mappings feed the suggestions and auto-mapping uses them.
    pub global_learning: bool,
    /// The figures.
    pub stats: SuggestionStats,
    /// The suggestions.
    pub items: Vec<UniversalSuggestion>,
}

/// A suggestion an administrator adds.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct NewSuggestion {
    /// The source column name (required).
    pub source_column_name: String,
    /// The standard column (required).
    pub target_column_name: String,
}

/// A suggestion's switch.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct SuggestionEnabled {
    /// Whether auto-mapping may use it.
    pub enabled: bool,
}

/// The global-learning setting.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct GlobalLearning {
    /// On: confirmed mappings feed the suggestions and auto-mapping uses the enabled ones.
    pub enabled: bool,
}

/// The message of an add without both names (the specification's).
pub const BOTH_NAMES: &str = "Please enter both source and target column names";

/// The screen's data (administrators).
pub async fn universal(state: &AppState, actor: &Actor) -> ApiResult<UniversalSuggestions> {
    actor.user.require_admin()?;
    let global_learning = learning_on(&state.db.pool).await?;
    let (total, enabled, high_confidence, total_usage) =
        db::suggestion_stats(&state.db.pool, HIGH_CONFIDENCE).await?;
    let items = db::list_suggestions(&state.db.pool)
        .await?
        .into_iter()
        .map(UniversalSuggestion::from_row)
        .collect();
    Ok(UniversalSuggestions {
        global_learning,
        stats: SuggestionStats {
            total,
            enabled,
            high_confidence,
            total_usage,
        },
        items,
    })
}

/// Turns global learning on or off (administrators).
pub async fn set_global_learning(
    state: &AppState,
    actor: &Actor,
    enabled: bool,
) -> ApiResult<GlobalLearning> {
    actor.user.require_admin()?;
    let mut change = Change::begin(state, mappings_topic()).await?;
    crate::db::settings::set(
        change.conn(),
        crate::db::settings::GLOBAL_LEARNING,
        if enabled { "1" } else { "0" },
        &actor.user.id,
        &crate::db::now(),
    )
    .await?;
    change
        .commit(
            actor,
            Event::SuggestionsChanged,
            Audit {
                event_type: "global_learning_changed",
                entity_type: "app_setting",
                entity_id: crate::db::settings::GLOBAL_LEARNING,
                details: serde_json::json!({ "enabled": enabled }),
                severity: "info",
            },
        )
        .await?;
    Ok(GlobalLearning { enabled })
}

/// The topic of Universal Column Mappings (`admin:mappings`).
fn mappings_topic() -> Topic {
    Topic::Admin { area: "mappings" }
}

/// The standard column a suggestion may target: a standard column of the engine (its own
/// spelling) or a column some lever defines.
async fn target_column(state: &AppState, name: &str) -> ApiResult<String> {
    if let Some(f) = analysis::columns::StandardField::from_name(name) {
        return Ok(f.name().to_owned());
    }
    crate::db::levers::defined_column_name(&state.db.pool, name)
        .await?
        .ok_or_else(|| {
            ApiError::validation(format!(
                "Target column \"{name}\" is not a standard column (for example Exposure_Amount or NIF)"
            ))
        })
}

/// Adds a suggestion with confidence 0.8 and usage 1 (administrators); 409 when the pair exists.
pub async fn add_suggestion(
    state: &AppState,
    actor: &Actor,
    input: NewSuggestion,
) -> ApiResult<UniversalSuggestion> {
    actor.user.require_admin()?;
    let source = suggestion_key(&input.source_column_name);
    let target = input.target_column_name.trim();
    if source.is_empty() || target.is_empty() {
        return Err(ApiError::validation(BOTH_NAMES));
    }
    if source.chars().count() > MAX_SUGGESTION_NAME || target.chars().count() > MAX_SUGGESTION_NAME
    {
        return Err(ApiError::validation(format!(
            "Column names must be at most {MAX_SUGGESTION_NAME} characters"
        )));
    }
    if source.chars().any(char::is_control) || target.chars().any(char::is_control) {
        return Err(ApiError::validation(
            "Column names must not contain control characters",
        ));
    }
    let target = target_column(state, target).await?;
    let id = crate::db::new_id();
    let mut change = Change::begin(state, mappings_topic()).await?;
    if !db::insert_suggestion(
        change.conn(),
        &id,
        &source,
        &target,
        NEW_SUGGESTION_CONFIDENCE,
        NEW_SUGGESTION_USAGE,
        &crate::db::now(),
    )
    .await?
    {
        return Err(ApiError::Conflict {
            code: "duplicate_suggestion",
            message: format!("A suggestion from \"{source}\" to {target} already exists"),
        });
    }
    let row = db::get_suggestion(change.conn(), &id)
        .await?
        .ok_or_else(|| ApiError::Internal(anyhow::anyhow!("the new suggestion is missing")))?;
    change
        .commit(
            actor,
            Event::SuggestionsChanged,
            Audit {
                event_type: "universal_suggestion_created",
                entity_type: "universal_column_suggestion",
                entity_id: &id,
                details: serde_json::json!({ "source": source, "target": target }),
                severity: "info",
            },
        )
        .await?;
    Ok(UniversalSuggestion::from_row(row))
}

/// Enables or disables a suggestion (administrators).
pub async fn set_suggestion_enabled(
    state: &AppState,
    actor: &Actor,
    id: &str,
    enabled: bool,
) -> ApiResult<UniversalSuggestion> {
    actor.user.require_admin()?;
    let mut change = Change::begin(state, mappings_topic()).await?;
    if !db::set_suggestion_enabled(change.conn(), id, enabled, &crate::db::now()).await? {
        return Err(ApiError::not_found("Suggestion not found"));
    }
    let row = db::get_suggestion(change.conn(), id)
        .await?
        .ok_or_else(|| ApiError::not_found("Suggestion not found"))?;
    change
        .commit(
            actor,
            Event::SuggestionsChanged,
            Audit {
                event_type: if enabled {
                    "universal_suggestion_enabled"
                } else {
                    "universal_suggestion_disabled"
                },
                entity_type: "universal_column_suggestion",
                entity_id: id,
                details: serde_json::json!({ "source": row.source_column_name, "target": row.target_column_name }),
                severity: "info",
            },
        )
        .await?;
    Ok(UniversalSuggestion::from_row(row))
}

/// Removes a suggestion (administrators).
pub async fn delete_suggestion(state: &AppState, actor: &Actor, id: &str) -> ApiResult<()> {
    actor.user.require_admin()?;
    let mut change = Change::begin(state, mappings_topic()).await?;
    let row = db::get_suggestion(change.conn(), id)
        .await?
        .ok_or_else(|| ApiError::not_found("Suggestion not found"))?;
    if !db::delete_suggestion(change.conn(), id).await? {
        return Err(ApiError::not_found("Suggestion not found"));
    }
    change
        .commit(
            actor,
            Event::SuggestionsChanged,
            Audit {
                event_type: "universal_suggestion_deleted",
                entity_type: "universal_column_suggestion",
                entity_id: id,
                details: serde_json::json!({ "source": row.source_column_name, "target": row.target_column_name }),
                severity: "info",
            },
        )
        .await?;
    Ok(())
}
