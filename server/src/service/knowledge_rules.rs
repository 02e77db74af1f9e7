//! Lever and rule extraction in the knowledge base (spec 002 sections 2, 4, 5): propose levers
//! and rules from an indexed document through the AI provider (the built-in extractor, or a
//! configured model asked for the same schema and checked), and save what the reviewer kept as
//! regulatory rules, versioned, on the product's levers.
//!
//! Rules:
//! - Extraction reads the stored original again (the same isolated, bounded extraction as
//!   indexing) and changes nothing; proposals are kept by the reviewer's screen until saved.
//! - Saving checks every lever with the specification's messages first; one problem refuses
//!   the whole save ("Validation Failed"), nothing half-saved. An empty save is "No Data".
//! - The similar-name rule: an extracted lever whose name equals an existing lever's after
//!   lowercasing and stripping non-alphanumerics is saved onto that lever ("A lever with a
//!   similar name already exists. Selecting it."); any other becomes a new lever of the
//!   dictionary (its folder name must be free, as when adding one by hand).
//! - A rule saved under a name its lever already has is the next version; the earlier ones
//!   are taken out of force and kept.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::lever_dictionary;
use super::{Actor, Audit, Change};
use crate::ai::{AiError, ExtractionInput};

use crate::db;
use crate::db::regulatory_rules::{RuleRow, RuleWrite};
use crate::error::{ApiError, ApiResult};
use crate::knowledge::levers::{self, ExtractedLever, LeverIssue, LeverVariable};
use crate::knowledge::{self, Format, Limits};
use crate::realtime::events::Event;
use crate::state::AppState;
use crate::storage::ObjectKey;

/// The similar-name rule's message (spec 002).
pub const SIMILAR_NAME: &str = "A lever with a similar name already exists. Selecting it.";
/// Nothing to save (spec 002: No Data).
pub const NO_DATA: &str = "No Data: there are no levers to save.";
/// A save with validation errors (spec 002: Validation Failed).
pub const VALIDATION_FAILED: &str =
    "Validation Failed: Please fix all validation errors before saving.";
/// Most levers in one save.
pub const MAX_LEVERS: usize = 50;
/// Most rules per lever.
pub const MAX_RULES: usize = 100;
/// Longest name.
const MAX_NAME: usize = 200;
/// Longest description.
const MAX_DESCRIPTION: usize = 5_000;
/// Longest JSON of a rule's conditions or actions.
const MAX_JSON: usize = 20_000;
/// Most rules the Rules tab lists.
pub const MAX_LISTED: i64 = 2_000;

/// What an extraction proposes, with the levers that already exist (for the similar-name rule).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct LeverExtraction {
    /// The document.
    pub document_id: String,
    /// Its name.
    pub document_name: String,
    /// `builtin` or `openai`.
    pub engine: String,
    /// The proposals.
    pub levers: Vec<ExtractedLever>,
    /// The dictionary's levers.
    pub existing_levers: Vec<ExistingLever>,
}

/// A lever of the dictionary.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ExistingLever {
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
}

/// What the reviewer saves.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SaveLeversInput {
    /// The document the levers were extracted from.
    #[serde(default)]
    pub document_id: Option<String>,
    /// The reviewed levers.
    #[serde(default)]
    pub levers: Vec<ExtractedLever>,
}

/// One saved lever.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SavedLever {
    /// The dictionary's lever the rules are on.
    pub lever_id: String,
    /// Its name.
    pub lever_name: String,
    /// A new lever was added (else an existing one was selected by the similar-name rule).
    pub created: bool,
    /// The similar-name message when an existing lever was selected.
    pub message: Option<String>,
    /// Rules written.
    #[ts(type = "number")]
    pub rules: i64,
    /// Of them, new versions of rules the lever had.
    #[ts(type = "number")]
    pub new_versions: i64,
}

/// What a save wrote.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SaveLeversResult {
    /// Per lever, in the order sent.
    pub levers: Vec<SavedLever>,
    /// Rules written in all.
    #[ts(type = "number")]
    pub rules: i64,
}

/// A stored regulatory rule (the Rules tab).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RegulatoryRule {
    /// Id.
    pub id: String,
    /// The lever.
    pub lever_id: String,
    /// Its name.
    pub lever_name: String,
    /// Assets, CRMT or CET1 Deductions.
    pub lever_category: String,
    /// condition, calculation or classification.
    pub rule_type: String,
    /// Name.
    pub rule_name: String,
    /// Description.
    pub rule_description: String,
    /// When it applies.
    #[ts(type = "Record<string, unknown>")]
    #[schema(value_type = Object)]
    pub conditions: Value,
    /// What it does.
    #[ts(type = "Record<string, unknown>")]
    #[schema(value_type = Object)]
    pub actions: Value,
    /// Priority (higher first).
    #[ts(type = "number")]
    pub priority: i64,
    /// In force.
    pub is_active: bool,
    /// 1, 2, ...
    #[ts(type = "number")]
    pub version: i64,
    /// Article, paragraph, table.
    pub article_reference: String,
    /// The lever's confidence when saved.
    pub confidence_score: f64,
    /// The lever's variables when saved.
    pub variables: Vec<LeverVariable>,
    /// The document it came from.
    pub source_document_name: Option<String>,
    /// `builtin` or `openai`.
    pub engine: String,
    /// Who saved it.
    pub created_by: Option<String>,
    /// When.
    pub created_at: String,
}

/// The Rules tab's filter.
#[derive(Debug, Clone, Default, Deserialize, utoipa::IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct RulesQuery {
    /// Also the versions out of force.
    #[serde(default)]
    pub all: bool,
}

fn to_wire(r: RuleRow) -> RegulatoryRule {
    RegulatoryRule {
        conditions: serde_json::from_str(&r.conditions).unwrap_or(Value::Null),
        actions: serde_json::from_str(&r.actions).unwrap_or(Value::Null),
        variables: serde_json::from_str(&r.variables).unwrap_or_default(),
        id: r.id,
        lever_id: r.lever_id,
        lever_name: r.lever_name,
        lever_category: r.lever_category,
        rule_type: r.rule_type,
        rule_name: r.rule_name,
        rule_description: r.rule_description,
        priority: r.priority,
        is_active: r.is_active == 1,
        version: r.version,
        article_reference: r.article_reference,
        confidence_score: r.confidence_score,
        source_document_name: r.source_document_name,
        engine: r.engine,
        created_by: r.created_by_name.filter(|n| !n.is_empty()),
        created_at: r.created_at,
    }
}

/// The rules, priority descending then newest first; those in force unless `all`.
pub async fn list(state: &AppState, q: &RulesQuery) -> ApiResult<Vec<RegulatoryRule>> {
    Ok(
        db::regulatory_rules::list(&state.db.pool, q.all, MAX_LISTED)
            .await?
            .into_iter()
            .map(to_wire)
            .collect(),
    )
}

/// Proposes levers and rules from an indexed document.
pub async fn extract(state: &AppState, document_id: &str) -> ApiResult<LeverExtraction> {
    let doc = db::knowledge::get(&state.db.pool, document_id)
        .await?
        .ok_or_else(|| ApiError::not_found("Document not found"))?;
    match doc.status.as_str() {
        "completed" => {}
        "processing" => {
            return Err(ApiError::Conflict {
                code: "document_processing",
                message:
                    "The document is still being processed; extract its levers once it is indexed."
                        .into(),
            });
        }
        _ => {
            return Err(ApiError::validation(format!(
                "Please upload a document. This one could not be read: {}",
                doc.error.as_deref().unwrap_or("it failed to process")
            )));
        }
    }
    let format = Format::parse(&doc.file_type)
        .ok_or_else(|| ApiError::validation("Unsupported file type"))?;
    let key = ObjectKey::parse(&doc.storage_key)
        .map_err(|e| ApiError::Internal(anyhow::anyhow!("knowledge key: {e}")))?;
    let bytes = match state.storage.get_bytes(&key).await {
        Ok(b) => b,
        Err(crate::storage::StorageError::NotFound(_)) => {
            return Err(ApiError::Conflict {
                code: "document_missing",
                message: "The stored document is missing. Upload it again.".into(),
            });
        }
        Err(e) => {
            return Err(ApiError::Internal(anyhow::anyhow!(
                "reading a knowledge document: {e}"
            )));
        }
    };
    let limits = Limits {
        max_bytes: super::knowledge::MAX_FILE_BYTES,
        max_pages: super::knowledge::MAX_PAGES,
        max_time: super::knowledge::MAX_EXTRACT_TIME,
        ..Limits::default()
    };
    let parse =
        tokio::task::spawn_blocking(move || knowledge::extract_isolated(format, &bytes, limits));
    let extracted = match tokio::time::timeout(
        super::knowledge::MAX_EXTRACT_TIME + Duration::from_secs(5),
        parse,
    )
    .await
    {
        Ok(Ok(Ok(x))) => x,
        Ok(Ok(Err(e))) => return Err(ApiError::validation(e.to_string())),
        Ok(Err(e)) => return Err(ApiError::Internal(anyhow::anyhow!("extraction task: {e}"))),
        Err(_) => {
            return Err(ApiError::validation(
                knowledge::ExtractError::TimedOut(format, super::knowledge::MAX_EXTRACT_TIME)
                    .to_string(),
            ));
        }
    };
    let input = ExtractionInput {
        document_name: doc.name.clone(),
        blocks: extracted.blocks,
    };
    let proposals = state.ai.extract_levers(&input).await.map_err(|e| match e {
        AiError::RateLimited { .. } => ApiError::RateLimited(e.reply()),
        AiError::Ungrounded(figures) => ApiError::validation(format!(
            "Extraction error: the model proposed figures the document does not contain ({}); nothing was proposed.",
            figures.join(", ")
        )),
        e @ AiError::Empty => ApiError::validation(format!("Extraction error: {e}")),
        AiError::Failed(m) => {
            tracing::warn!(error = %m, "lever extraction failed");
            ApiError::validation(format!("Extraction error: {m}"))
        }
    })?;
    let existing_levers = db::lever_files::names(&state.db.pool)
        .await?
        .into_iter()
        .map(|(id, name)| ExistingLever { id, name })
        .collect();
    Ok(LeverExtraction {
        document_id: doc.id,
        document_name: doc.name,
        engine: state.ai.name().to_string(),
        levers: proposals,
        existing_levers,
    })
}

/// The bounds of a save beyond the specification's field rules.
fn bounds(levers: &[ExtractedLever]) -> ApiResult<()> {
    if levers.len() > MAX_LEVERS {
        return Err(ApiError::validation(format!(
            "Save at most {MAX_LEVERS} levers at once."
        )));
    }
    for l in levers {
        if l.rules.len() > MAX_RULES {
            return Err(ApiError::validation(format!(
                "{}: at most {MAX_RULES} rules per lever.",
                l.lever_name
            )));
        }
        let long = |s: &str, max: usize| s.chars().count() > max;
        if long(&l.lever_name, MAX_NAME) || long(&l.article_reference, MAX_NAME) {
            return Err(ApiError::validation(format!(
                "Lever names and article references must be at most {MAX_NAME} characters."
            )));
        }
        if long(&l.description, MAX_DESCRIPTION) || l.variables.len() > MAX_RULES {
            return Err(ApiError::validation(format!(
                "{}: the description must be at most {MAX_DESCRIPTION} characters.",
                l.lever_name
            )));
        }
        for r in &l.rules {
            if long(&r.rule_name, MAX_NAME)
                || long(&r.article_reference, MAX_NAME)
                || long(&r.rule_description, MAX_DESCRIPTION)
                || r.conditions.to_string().len() > MAX_JSON
                || r.actions.to_string().len() > MAX_JSON
            {
                return Err(ApiError::validation(format!(
                    "{}: rule {} is too long (names {MAX_NAME} characters, descriptions {MAX_DESCRIPTION}, conditions and actions {MAX_JSON}).",
                    l.lever_name, r.rule_name
                )));
            }
        }
    }
    Ok(())
}

fn issues_message(issues: &[LeverIssue], levers: &[ExtractedLever]) -> String {
    let listed: Vec<String> = issues
        .iter()
        .take(5)
        .map(|i| {
            let name = levers
                .get(i.lever)
                .map(|l| l.lever_name.trim())
                .filter(|n| !n.is_empty())
                .map_or_else(|| format!("lever {}", i.lever + 1), str::to_string);
            format!("{name}: {}", i.message)
        })
        .collect();
    let more = issues.len().saturating_sub(listed.len());
    format!(
        "{VALIDATION_FAILED} {}{}",
        listed.join("; "),
        if more > 0 {
            format!(" (and {more} more)")
        } else {
            String::new()
        }
    )
}

/// The dictionary's category for an extracted lever's.
fn dictionary_category(category: &str) -> &'static str {
    match category {
        "CRMT" => "CRMT",
        "CET1 Deductions" => "CET1 deductions",
        _ => "Assets",
    }
}

/// Saves the reviewed levers and their rules, all or nothing.
pub async fn save(
    state: &AppState,
    actor: &Actor,
    input: SaveLeversInput,
) -> ApiResult<SaveLeversResult> {
    let levers = input.levers;
    if levers.is_empty()
        || levers
            .iter()
            .all(|l| l.rules.is_empty() && l.lever_name.trim().is_empty())
    {
        return Err(ApiError::validation(NO_DATA));
    }
    bounds(&levers)?;
    let issues = levers::check(&levers);
    if !issues.is_empty() {
        return Err(ApiError::validation(issues_message(&issues, &levers)));
    }
    // The same lever twice in one save would race its own versions.
    for (i, l) in levers.iter().enumerate() {
        if levers[..i]
            .iter()
            .any(|o| levers::name_key(&o.lever_name) == levers::name_key(&l.lever_name))
        {
            return Err(ApiError::validation(format!(
                "{VALIDATION_FAILED} {} appears twice; merge its rules into one lever.",
                l.lever_name.trim()
            )));
        }
    }
    let mut change = Change::begin(state, super::knowledge::knowledge_topic()).await?;
    let source = match input.document_id.as_deref() {
        Some(id) => Some(
            db::knowledge::get(change.conn(), id)
                .await?
                .ok_or_else(|| ApiError::not_found("Document not found"))?,
        ),
        None => None,
    };
    let engine = state.ai.name();
    let now = crate::db::now();
    let user = actor.user.id.to_string();
    let mut saved = Vec::new();
    let mut total = 0i64;
    for l in &levers {
        let name = l.lever_name.trim();
        let key = levers::name_key(name);
        let existing = db::lever_files::names(change.conn())
            .await?
            .into_iter()
            .find(|(_, n)| levers::name_key(n) == key);
        let (lever_id, lever_name, created) = match existing {
            Some((id, n)) => (id, n, false),
            None => {
                let id = crate::db::new_id();
                lever_dictionary::check_unique(change.conn(), &id, name).await?;
                db::lever_files::insert_lever(
                    change.conn(),
                    &id,
                    name,
                    l.description.trim(),
                    dictionary_category(&l.lever_category),
                    &now,
                )
                .await?;
                change
                    .also(
                        lever_dictionary::levers_topic(),
                        lever_dictionary::changed(&id),
                    )
                    .await?;
                (id, name.to_string(), true)
            }
        };
        let variables = serde_json::to_string(&l.variables).unwrap_or_else(|_| "[]".into());
        let mut new_versions = 0;
        for r in &l.rules {
            let rule_name = r.rule_name.trim();
            let version = db::regulatory_rules::latest_version(change.conn(), &lever_id, rule_name)
                .await?
                + 1;
            if version > 1 {
                new_versions += 1;
            }
            if r.is_active {
                db::regulatory_rules::deactivate(change.conn(), &lever_id, rule_name, &now).await?;
            }
            db::regulatory_rules::insert(
                change.conn(),
                &crate::db::new_id(),
                &RuleWrite {
                    lever_id: &lever_id,
                    lever_category: &l.lever_category,
                    rule_type: &r.rule_type,
                    rule_name,
                    rule_description: r.rule_description.trim(),
                    conditions: &r.conditions.to_string(),
                    actions: &r.actions.to_string(),
                    priority: r.priority,
                    is_active: i64::from(r.is_active),
                    version,
                    article_reference: r.article_reference.trim(),
                    confidence_score: l.confidence_score,
                    variables: &variables,
                    source_document_id: source.as_ref().map(|d| d.id.as_str()),
                    source_document_name: source.as_ref().map(|d| d.name.as_str()),
                    engine,
                    created_by: &user,
                    now: &now,
                },
            )
            .await?;
        }
        let rules = i64::try_from(l.rules.len()).unwrap_or(i64::MAX);
        total += rules;
        saved.push(SavedLever {
            lever_id,
            lever_name,
            created,
            message: (!created).then(|| SIMILAR_NAME.to_string()),
            rules,
            new_versions,
        });
    }
    let details = json!({
        "document": source.as_ref().map(|d| d.name.clone()),
        "levers": saved.iter().map(|s| json!({"lever": s.lever_name, "created": s.created, "rules": s.rules})).collect::<Vec<_>>(),
        "engine": engine,
    });
    let entity = source.as_ref().map_or("", |d| d.id.as_str()).to_string();
    change
        .commit(
            actor,
            Event::KnowledgeRulesChanged,
            Audit {
                event_type: "regulatory_rules_saved",
                entity_type: "knowledge_document",
                entity_id: &entity,
                details,
                severity: "info",
            },
        )
        .await?;
    Ok(SaveLeversResult {
        levers: saved,
        rules: total,
    })
}
