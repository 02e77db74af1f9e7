//! Mapping templates, shared by a client's team, and the universal column suggestions learnt
//! from confirmed mappings.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sqlx::AnyConnection;

use crate::access::Need;
use crate::db::mappings as db;
use crate::error::{ApiError, ApiResult};
use crate::ids::ClientId;
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
    fn from_row(r: db::TemplateRow) -> MappingTemplate {
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
