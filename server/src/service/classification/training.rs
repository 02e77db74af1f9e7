//! Enhanced Classification Training (spec 001 section 2.10; administrators): the lever each
//! file's latest ended enhanced-AI run classified, listed for review ([`list`]: Pending Review,
//! Recently Reviewed (the newest 20), All), one classification with the engine's evidence, the
//! stored file's columns and smart suggestions ([`get`]), and the decisions: [`approve`] records
//! the review (confidence delta 0.1, or -0.2 when the lever was corrected), gives the file the
//! chosen lever and queues its processing under it (a chosen lever bypasses the confidence
//! check), saves the mapping as a template of the client when it is new, all in one transaction;
//! [`reject`] records the refusal. Decisions are published after the commit on `admin:classification`
//! and on the client's files topic.
//!
//! A review's status: `approved` or `rejected` once decided; before, `requires_review`, except a
//! failed run, which counts as rejected (spec section 4). Only the latest ended enhanced-AI run of
//! a file is an item; the run an approval queues (a run with a chosen lever) does not replace it.

use std::collections::BTreeMap;

use analysis::classify::Classification;
use analysis::model::Lever;
use serde::{Deserialize, Serialize};

use super::{Decision, Learning};
use crate::access::{self, Need};
use crate::db::classification::{self as db, TrainingRow, TrainingTab};
use crate::db::clients::LeverRow;
use crate::error::{ApiError, ApiResult};
use crate::realtime::events::ClassificationReviewed;
use crate::realtime::{Event, Topic};
use crate::service::files::admin::queue_with_lever;
use crate::service::files::files_topic;
use crate::service::files::inspect::{Competitor, Inspection};
use crate::service::levers::DataType;
use crate::service::mappings::MappingTemplate;
use crate::service::runs::{RunOptions, RunSnapshot, RunState};
use crate::service::{Actor, Audit, Change};
use crate::state::AppState;

/// Items per page by default (specification: 10).
pub const PAGE_SIZE: i64 = 10;
/// Largest page asked for.
pub const MAX_PAGE_SIZE: i64 = 50;
/// The Recently Reviewed list keeps the newest this many (specification: 20).
pub const REVIEWED_KEPT: i64 = 20;
/// What an approval or rejection without words records (specification).
pub const NO_FEEDBACK: &str = "No specific feedback provided by admin";
/// Longest feedback text.
pub const MAX_FEEDBACK: usize = 5000;
/// Suggestions listed: the most likely levers from this probability.
pub const SUGGESTION_MIN: f64 = 0.05;
/// Most suggestions listed.
pub const MAX_SUGGESTIONS: usize = 3;
/// The admin-wide topic of the training lists.
pub const TOPIC_AREA: &str = "classification";

/// Where a classification is in its review.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS,
)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ReviewStatus {
    /// Waiting for an administrator.
    RequiresReview,
    /// Approved (with the proposed lever or a correction).
    Approved,
    /// Rejected, or the run failed.
    Rejected,
}

/// One classification in the lists.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct TrainingItem {
    /// The enhanced-AI run that classified the file.
    pub id: String,
    /// The file.
    pub file_id: String,
    /// Its name.
    pub file_name: String,
    /// The file's client.
    pub client_id: String,
    /// The client's name.
    pub client_name: String,
    /// The proposed lever's code (`None`: the classifier found no lever).
    pub predicted_lever: Option<String>,
    /// The id of the lever with that code.
    pub predicted_lever_id: Option<String>,
    /// Its name.
    pub predicted_lever_name: Option<String>,
    /// The classification's confidence (0..1).
    pub confidence: Option<f64>,
    /// One line of reasons.
    pub classification_reason: String,
    /// The run's state: `completed`, `pending_review` (below the threshold) or `failed`.
    pub run_state: RunState,
    /// Why the run failed.
    pub error: Option<String>,
    /// The review's status.
    pub status: ReviewStatus,
    /// When it was reviewed.
    pub reviewed_at: Option<String>,
    /// Who reviewed it (e-mail address).
    pub reviewed_by: Option<String>,
    /// The lever the reviewer chose (its id, when it still exists).
    pub reviewed_lever_id: Option<String>,
    /// Its name.
    pub reviewed_lever_name: Option<String>,
    /// Whether the reviewer chose another lever than the one proposed.
    pub corrected: bool,
    /// The reviewer's words.
    pub feedback: Option<String>,
    /// The review's confidence delta (0.1, or -0.2 when corrected).
    pub confidence_delta: Option<f64>,
    /// The processing run the approval queued.
    pub follow_up_run_id: Option<String>,
    /// When the run was queued.
    pub created_at: String,
}

/// The items of each list.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct TrainingCounts {
    /// Pending Review.
    #[ts(type = "number")]
    pub pending: i64,
    /// Recently Reviewed (at most [`REVIEWED_KEPT`]).
    #[ts(type = "number")]
    pub reviewed: i64,
    /// All.
    #[ts(type = "number")]
    pub all: i64,
}

/// One page of a list.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct TrainingPage {
    /// The page's items.
    pub items: Vec<TrainingItem>,
    /// Items of the list, over every page.
    #[ts(type = "number")]
    pub total: i64,
    /// The page (from 1).
    #[ts(type = "number")]
    pub page: i64,
    /// Items per page.
    #[ts(type = "number")]
    pub page_size: i64,
    /// Every list's items.
    pub counts: TrainingCounts,
    /// The measured accuracy of the classifier against every review so far (`None`: no
    /// review yet).
    pub learning: Option<Learning>,
}

/// The lists' query.
#[derive(Debug, Clone, Default, Deserialize, utoipa::IntoParams)]
pub struct TrainingQuery {
    /// `pending` (default), `reviewed` or `all`.
    pub tab: Option<String>,
    /// The page, from 1.
    pub page: Option<i64>,
    /// Items per page (1 to 50; default 10).
    pub page_size: Option<i64>,
}

/// A piece of the classifier's evidence.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct EvidenceItem {
    /// `header`, `identifier`, `reference`, `name`, `asset_class` or `feedback`.
    pub kind: String,
    /// The lever it supports (code).
    pub lever: String,
    /// Score it added (negative: taken away by a correction).
    pub weight: f64,
    /// What was seen.
    pub description: String,
}

/// Identifiers or names of the file found in a reference list.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct IdentifierHits {
    /// The list: `PSE`, `RGLA`, `MDB`, `institution`, `sovereign`.
    pub list: String,
    /// The lever the hits support (code).
    pub lever: String,
    /// Found in it.
    #[ts(type = "number")]
    pub found: u64,
    /// Looked up.
    #[ts(type = "number")]
    pub of: u64,
}

/// A column of the file as the review shows it.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AnalysedColumn {
    /// The column name.
    pub name: String,
    /// The detected type (from the first rows; `None` when the file could not be read again).
    pub data_type: Option<DataType>,
    /// What the classifier read it as (`nif`, `lei`, `name`, `asset_class`, `country`,
    /// `collateral`, `scra`), if anything.
    pub role: Option<String>,
    /// How: `header` (its name) or `values` (identifiers in its cells).
    pub recognised_by: Option<String>,
    /// The standard column the auto-mapping gives it.
    pub standard_column: Option<String>,
    /// The auto-mapping's confidence in that (0..1).
    pub confidence: Option<f64>,
}

/// The classification analysis card: the engine's real evidence.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ClassificationAnalysis {
    /// The proposed lever's code.
    pub lever: Option<String>,
    /// Its name.
    pub lever_name: Option<String>,
    /// Confidence (0..1).
    pub confidence: f64,
    /// One line of reasons.
    pub reason: String,
    /// The file's columns.
    pub columns: Vec<AnalysedColumn>,
    /// The evidence, strongest first.
    pub evidence: Vec<EvidenceItem>,
    /// Identifiers and names found in the reference lists.
    pub identifier_hits: Vec<IdentifierHits>,
    /// Every other lever's probability, most likely first.
    pub competitors: Vec<Competitor>,
    /// What past reviews said when the file was classified.
    pub learning: Option<Learning>,
}

/// A smart suggestion: a lever the evidence supports.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct LeverSuggestion {
    /// The lever's code.
    pub lever: String,
    /// Its id.
    pub lever_id: Option<String>,
    /// Its name.
    pub lever_name: Option<String>,
    /// Its probability (0..1).
    pub confidence: f64,
    /// The evidence for it.
    pub reasons: Vec<String>,
}

/// One classification to review.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct TrainingReview {
    /// The item.
    pub item: TrainingItem,
    /// The engine's evidence (`None`: the run stored none, such as a failed run).
    pub analysis: Option<ClassificationAnalysis>,
    /// Levers the evidence supports, most likely first.
    pub suggestions: Vec<LeverSuggestion>,
    /// The stored file's columns, first rows and suggested mapping.
    pub inspection: Option<Inspection>,
    /// Why the file could not be read again.
    pub inspection_error: Option<String>,
    /// The mapping the run used (standard column to the file's column), if one was given.
    pub mapping: Option<BTreeMap<String, String>>,
    /// The processing run an approval queued, as it is now.
    pub follow_up: Option<RunSnapshot>,
}

/// An approval.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct ApproveReview {
    /// The lever the file is processed with (the proposed one, or a correction).
    pub lever_id: String,
    /// The reviewer's words (empty: 'No specific feedback provided by admin').
    #[serde(default)]
    pub feedback: String,
    /// Standard column to the file's column (`None`: the run's own mapping, or the automatic
    /// one).
    #[serde(default)]
    #[ts(optional)]
    pub mapping: Option<BTreeMap<String, String>>,
    /// The template the mapping came from (then no template is saved).
    #[serde(default)]
    #[ts(optional)]
    pub template_id: Option<String>,
    /// `decimal` or `percent`.
    #[serde(default)]
    #[ts(optional)]
    pub risk_weight_format: Option<String>,
    /// `days`, `months` or `years`.
    #[serde(default)]
    #[ts(optional)]
    pub maturity_unit: Option<String>,
}

/// A rejection.
#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct RejectReview {
    /// The reviewer's words (empty: 'No specific feedback provided by admin').
    #[serde(default)]
    pub feedback: String,
    /// The lever selected when rejecting, if any.
    #[serde(default)]
    #[ts(optional)]
    pub lever_id: Option<String>,
}

/// What a decision did.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ReviewOutcome {
    /// The item as decided.
    pub item: TrainingItem,
    /// The processing run an approval queued.
    pub run: Option<RunSnapshot>,
    /// The mapping template an approval saved (a new mapping without a template).
    pub template: Option<MappingTemplate>,
}

fn parse_tab(tab: Option<&str>) -> ApiResult<TrainingTab> {
    Ok(match tab.map(str::trim).unwrap_or("") {
        "" | "pending" => TrainingTab::Pending,
        "reviewed" => TrainingTab::Reviewed,
        "all" => TrainingTab::All,
        _ => {
            return Err(ApiError::validation(
                "The list must be pending, reviewed or all",
            ));
        }
    })
}

/// The levers by code and by id.
struct Levers(Vec<LeverRow>);

impl Levers {
    async fn load(state: &AppState) -> ApiResult<Levers> {
        Ok(Levers(crate::db::clients::levers(&state.db.pool).await?))
    }

    fn by_code(&self, code: &str) -> Option<&LeverRow> {
        self.0.iter().find(|l| l.code.as_deref() == Some(code))
    }
}

/// The classification a run stored, as the engine wrote it (with the server's `headers` and
/// `learning` beside it).
struct Stored {
    c: Option<Classification>,
    learning: Option<Learning>,
}

fn stored(result: Option<&str>) -> Stored {
    let json = result
        .and_then(|r| serde_json::from_str::<serde_json::Value>(r).ok())
        .and_then(|mut v| v.get_mut("classification").map(serde_json::Value::take));
    let learning = json
        .as_ref()
        .and_then(|j| j.get("learning"))
        .and_then(|l| serde_json::from_value(l.clone()).ok());
    Stored {
        c: json.and_then(|j| serde_json::from_value(j).ok()),
        learning,
    }
}

fn item(r: &TrainingRow, levers: &Levers) -> TrainingItem {
    let s = stored(r.result.as_deref());
    let run_state = RunState::parse(&r.state).unwrap_or(RunState::Failed);
    let predicted = s.c.as_ref().and_then(|c| c.lever);
    let predicted_row = predicted.and_then(|l| levers.by_code(l.as_str()));
    let status = match r.feedback_type.as_deref() {
        Some("approval") => ReviewStatus::Approved,
        Some(_) => ReviewStatus::Rejected,
        None if run_state == RunState::Failed => ReviewStatus::Rejected,
        None => ReviewStatus::RequiresReview,
    };
    let reviewed = r
        .reviewed_lever
        .as_deref()
        .filter(|l| !l.is_empty())
        .and_then(|l| levers.by_code(l));
    TrainingItem {
        id: r.id.clone(),
        file_id: r.file_id.clone(),
        file_name: r.file_name.clone(),
        client_id: r.client_id.clone(),
        client_name: r.client_name.clone(),
        predicted_lever: predicted.map(|l| l.as_str().to_string()),
        predicted_lever_id: predicted_row.map(|l| l.id.clone()),
        predicted_lever_name: predicted_row.map(|l| l.lever_name.clone()),
        confidence: s.c.as_ref().map(|c| c.confidence),
        classification_reason: match &s.c {
            Some(c) => c.reason(),
            None => r
                .error
                .clone()
                .unwrap_or_else(|| "No classification stored".into()),
        },
        run_state,
        error: r.error.clone(),
        status,
        reviewed_at: r.reviewed_at.clone(),
        reviewed_by: r.reviewer_email.clone(),
        reviewed_lever_id: reviewed.map(|l| l.id.clone()),
        reviewed_lever_name: reviewed.map(|l| l.lever_name.clone()),
        corrected: r.feedback_type.as_deref() == Some("approval")
            && r.reviewed_lever.as_deref() != predicted.map(Lever::as_str),
        feedback: r.explanation.clone(),
        confidence_delta: r.confidence_delta,
        follow_up_run_id: r.follow_up_run_id.clone(),
        created_at: r.created_at.clone(),
    }
}

/// One page of a list (administrators).
pub async fn list(state: &AppState, actor: &Actor, q: &TrainingQuery) -> ApiResult<TrainingPage> {
    actor.user.require_admin()?;
    let tab = parse_tab(q.tab.as_deref())?;
    let page_size = q.page_size.unwrap_or(PAGE_SIZE);
    if !(1..=MAX_PAGE_SIZE).contains(&page_size) {
        return Err(ApiError::validation(format!(
            "Items per page must be 1 to {MAX_PAGE_SIZE}"
        )));
    }
    let page = q.page.unwrap_or(1).max(1);
    let offset = (page - 1).saturating_mul(page_size);
    let (pending, all) = db::training_counts(&state.db.pool).await?;
    let counts = TrainingCounts {
        pending,
        reviewed: (all - pending).min(REVIEWED_KEPT),
        all,
    };
    let (total, limit) = match tab {
        TrainingTab::Pending => (counts.pending, page_size),
        TrainingTab::All => (counts.all, page_size),
        // The newest 20 only.
        TrainingTab::Reviewed => (counts.reviewed, page_size.min(REVIEWED_KEPT - offset)),
    };
    let rows = if limit > 0 && offset < total {
        db::training_page(&state.db.pool, tab, limit, offset).await?
    } else {
        Vec::new()
    };
    let levers = Levers::load(state).await?;
    let reviews = super::Reviews(
        super::reviews(&state.db.pool)
            .await?
            .into_iter()
            .map(|feedback| super::Reviewed {
                at: String::new(),
                own: false,
                feedback,
            })
            .collect(),
    );
    Ok(TrainingPage {
        items: rows.iter().map(|r| item(r, &levers)).collect(),
        total,
        page,
        page_size,
        counts,
        learning: super::learning(&reviews, &[]),
    })
}

async fn training_row(state: &AppState, run_id: &str) -> ApiResult<TrainingRow> {
    db::training_item(&state.db.pool, run_id)
        .await?
        .ok_or_else(|| ApiError::not_found("Classification not found"))
}

fn analysis_of(
    c: &Classification,
    learning: Option<Learning>,
    inspection: Option<&Inspection>,
    levers: &Levers,
) -> ClassificationAnalysis {
    let lever_name = c
        .lever
        .and_then(|l| levers.by_code(l.as_str()))
        .map(|l| l.lever_name.clone());
    // The file's columns: as read again now (types), else the names the classifier saw.
    let names: Vec<String> = match inspection {
        Some(i) => i.columns.iter().map(|c| c.name.clone()).collect(),
        None => c.columns.iter().map(|r| r.column.clone()).collect(),
    };
    let columns = names
        .iter()
        .map(|name| {
            let role = c.columns.iter().find(|r| &r.column == name);
            let mapped = inspection.and_then(|i| {
                i.suggested_mapping
                    .iter()
                    .find(|(_, source)| *source == name)
                    .map(|(target, _)| (target.clone(), i.suggestion_scores.get(target).copied()))
            });
            AnalysedColumn {
                name: name.clone(),
                data_type: inspection.and_then(|i| {
                    i.columns
                        .iter()
                        .find(|x| &x.name == name)
                        .map(|x| x.data_type)
                }),
                role: role.map(|r| r.role.clone()),
                recognised_by: role.map(|r| r.by.clone()),
                standard_column: mapped.as_ref().map(|m| m.0.clone()),
                confidence: mapped.and_then(|m| m.1),
            }
        })
        .collect();
    let mut competitors: Vec<Competitor> = c
        .scores
        .iter()
        .filter(|(l, _)| Some(*l) != c.lever)
        .map(|(l, s)| Competitor {
            lever: l.as_str().to_string(),
            score: (*s * 1000.0).round() / 1000.0,
        })
        .collect();
    competitors.sort_by(|a, b| b.score.total_cmp(&a.score));
    ClassificationAnalysis {
        lever: c.lever.map(|l| l.as_str().to_string()),
        lever_name,
        confidence: c.confidence,
        reason: c.reason(),
        columns,
        evidence: c
            .evidence
            .iter()
            .map(|e| EvidenceItem {
                kind: e.kind.as_str().to_string(),
                lever: e.lever.as_str().to_string(),
                weight: (e.weight * 1000.0).round() / 1000.0,
                description: e.description.clone(),
            })
            .collect(),
        identifier_hits: c
            .evidence
            .iter()
            .filter_map(|e| {
                e.hits.as_ref().map(|h| IdentifierHits {
                    list: h.list.clone(),
                    lever: e.lever.as_str().to_string(),
                    found: h.found,
                    of: h.of,
                })
            })
            .collect(),
        competitors,
        learning,
    }
}

/// The smart suggestions: the levers with a probability of at least [`SUGGESTION_MIN`], most
/// likely first, each with its evidence.
fn suggestions(c: &Classification, levers: &Levers) -> Vec<LeverSuggestion> {
    let mut scored: Vec<(Lever, f64)> = c
        .scores
        .iter()
        .copied()
        .filter(|(_, s)| *s >= SUGGESTION_MIN)
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    // Without any evidence every lever is equally (un)likely: nothing to suggest.
    if c.lever.is_none() {
        return Vec::new();
    }
    scored
        .into_iter()
        .take(MAX_SUGGESTIONS)
        .map(|(l, s)| {
            let row = levers.by_code(l.as_str());
            LeverSuggestion {
                lever: l.as_str().to_string(),
                lever_id: row.map(|r| r.id.clone()),
                lever_name: row.map(|r| r.lever_name.clone()),
                confidence: s,
                reasons: c
                    .evidence
                    .iter()
                    .filter(|e| e.lever == l && e.weight > 0.0)
                    .take(3)
                    .map(|e| e.description.clone())
                    .collect(),
            }
        })
        .collect()
}

/// One classification to review, with the engine's evidence, the stored file read again and
/// the processing run an approval queued (administrators).
pub async fn get(state: &AppState, actor: &Actor, run_id: &str) -> ApiResult<TrainingReview> {
    actor.user.require_admin()?;
    let row = training_row(state, run_id).await?;
    access::require(&actor.user, &row.client_id, Need::Admin)?;
    let levers = Levers::load(state).await?;
    let file = crate::db::files::get(&state.db.pool, &row.file_id).await?;
    let (inspection, inspection_error) = match &file {
        Some(f) => match crate::service::files::inspect::inspect_stored(state, f).await {
            Ok(i) => (Some(i), None),
            Err(e @ (ApiError::Database(_) | ApiError::Internal(_))) => {
                tracing::warn!(run = run_id, error = %e, "reading a reviewed file again failed");
                (None, Some("The file could not be read again.".to_string()))
            }
            Err(e) => (None, Some(e.to_string())),
        },
        None => (None, Some("The file was deleted".to_string())),
    };
    let s = stored(row.result.as_deref());
    let options: RunOptions = serde_json::from_str(&row.options).unwrap_or_default();
    let follow_up = match &row.follow_up_run_id {
        Some(id) => crate::db::runs::get(&state.db.pool, id)
            .await?
            .map(|r| RunSnapshot::from_row(&r)),
        None => None,
    };
    Ok(TrainingReview {
        item: item(&row, &levers),
        analysis: s
            .c
            .as_ref()
            .map(|c| analysis_of(c, s.learning.clone(), inspection.as_ref(), &levers)),
        suggestions: s
            .c
            .as_ref()
            .map(|c| suggestions(c, &levers))
            .unwrap_or_default(),
        inspection,
        inspection_error,
        mapping: options.mapping,
        follow_up,
    })
}

fn feedback_text(feedback: &str) -> ApiResult<String> {
    let f = feedback.trim();
    if f.chars().count() > MAX_FEEDBACK {
        return Err(ApiError::validation(format!(
            "Feedback is longer than {MAX_FEEDBACK} characters"
        )));
    }
    Ok(if f.is_empty() {
        NO_FEEDBACK.to_string()
    } else {
        f.to_string()
    })
}

/// Reads the item again under the change's lock and refuses a decided one.
async fn undecided(change: &mut Change<'_>, run_id: &str) -> ApiResult<TrainingRow> {
    let row = db::training_item(change.conn(), run_id)
        .await?
        .ok_or_else(|| ApiError::not_found("Classification not found"))?;
    if row.feedback_type.is_some() {
        return Err(ApiError::Conflict {
            code: "already_reviewed",
            message: "This classification has already been reviewed".into(),
        });
    }
    if row.state == "failed" {
        return Err(ApiError::Conflict {
            code: "run_failed",
            message: "The run of this classification failed: process the file again instead".into(),
        });
    }
    Ok(row)
}

/// Approves a classification (administrators), in one transaction: the review is recorded
/// (confidence delta 0.1, or -0.2 when `lever_id` is not the proposed lever), the file gets the
/// lever and its processing run is queued with it (see
/// `service::files::admin::queue_with_lever`: a chosen lever is not checked against the
/// confidence threshold), with the given mapping or the run's own; a mapping given without a
/// template and unlike every template of the client is saved as a template of the client's team
/// (a failure to save it is logged only) and counted in the universal suggestions. Published on
/// the client's files topic and `admin:classification` after the commit.
pub async fn approve(
    state: &AppState,
    actor: &Actor,
    run_id: &str,
    input: ApproveReview,
) -> ApiResult<ReviewOutcome> {
    actor.user.require_admin()?;
    let lever_id = input.lever_id.trim();
    if lever_id.is_empty() || lever_id == "tbd" {
        return Err(ApiError::validation(
            "Please select a valid lever before processing",
        ));
    }
    let lever = crate::db::levers::get(&state.db.pool, lever_id)
        .await?
        .ok_or_else(|| ApiError::validation("Invalid lever ID"))?;
    let Some(code) = lever.code.clone().filter(|c| Lever::parse(c).is_some()) else {
        return Err(ApiError::validation(format!(
            "The lever '{}' has no analysis rules: choose another lever",
            lever.lever_name
        )));
    };
    let feedback = feedback_text(&input.feedback)?;
    let mapping = match input.mapping {
        Some(m) => {
            let m: BTreeMap<String, String> = m
                .into_iter()
                .map(|(k, v)| (k.trim().to_string(), v))
                .filter(|(k, v)| !k.is_empty() && !v.is_empty())
                .collect();
            if m.len() > crate::service::mappings::MAX_TEMPLATE_COLUMNS {
                return Err(ApiError::validation("Too many columns in the mapping"));
            }
            (!m.is_empty()).then_some(m)
        }
        None => None,
    };
    let template_id = input.template_id.filter(|t| !t.trim().is_empty());
    let row = training_row(state, run_id).await?;
    access::require(&actor.user, &row.client_id, Need::Admin)?;
    let client = row.client_id.clone();

    let mut change = Change::begin(state, files_topic(&client)).await?;
    let row = undecided(&mut change, run_id).await?;
    let run = crate::db::runs::get(change.conn(), run_id)
        .await?
        .ok_or_else(|| ApiError::not_found("Classification not found"))?;
    if super::stored_classification(&run).is_none() {
        return Err(ApiError::Conflict {
            code: "not_classified",
            message: "This run stored no classification to review".into(),
        });
    }
    let own: RunOptions = serde_json::from_str(&run.options).unwrap_or_default();
    let options = RunOptions {
        mapping: mapping.clone().or(own.mapping),
        risk_weight_format: input.risk_weight_format.or(own.risk_weight_format),
        maturity_unit: input.maturity_unit.or(own.maturity_unit),
    };
    let queued =
        queue_with_lever(&mut change, actor, &row.file_id, &lever.id, Some(options)).await?;
    let follow_up = queued.run.id.to_string();
    let recorded = super::record_review(
        change.conn(),
        &run,
        Decision {
            approved: true,
            lever_code: Some(&code),
            by: Some(actor.user.id.as_str()),
            explanation: &feedback,
            follow_up_run_id: Some(&follow_up),
        },
    )
    .await?
    .ok_or_else(|| ApiError::Internal(anyhow::anyhow!("the review was not recorded")))?;
    let template = match (&mapping, &template_id) {
        (Some(m), None) => save_new_template(&mut change, actor, &row, &lever, m).await,
        _ => None,
    };
    if let Some(m) = &mapping {
        crate::service::mappings::learn_in(change.conn(), m).await;
    }
    change
        .also(
            Topic::Admin { area: TOPIC_AREA },
            Event::ClassificationReviewed(ClassificationReviewed {
                client_id: client.clone(),
                file_id: row.file_id.clone(),
                run_id: run_id.to_string(),
                status: "approved".into(),
            }),
        )
        .await?;
    change
        .commit(
            actor,
            Event::FileUpdated(crate::realtime::events::FileChange {
                client_id: client.clone(),
                file_id: row.file_id.clone(),
            }),
            Audit {
                event_type: "classification_approved",
                entity_type: "processing_run",
                entity_id: run_id,
                details: serde_json::json!({
                    "client_id": client,
                    "file_id": row.file_id,
                    "proposed_lever": recorded.proposed,
                    "lever_id": lever.id,
                    "corrected": recorded.corrected,
                    "confidence_delta": recorded.confidence_delta,
                    "follow_up_run_id": follow_up,
                    "template_id": template.as_ref().map(|t| t.id.clone()),
                }),
                severity: "info",
            },
        )
        .await?;
    let levers = Levers::load(state).await?;
    Ok(ReviewOutcome {
        item: item(&training_row(state, run_id).await?, &levers),
        run: Some(queued.run),
        template,
    })
}

/// Saves `mapping` as a template of the client's team unless one of its templates maps the same
/// (in the caller's transaction, under a savepoint: a failure is logged and saves nothing).
async fn save_new_template(
    change: &mut Change<'_>,
    actor: &Actor,
    row: &TrainingRow,
    lever: &LeverRow,
    mapping: &BTreeMap<String, String>,
) -> Option<MappingTemplate> {
    use sqlx::Connection;
    let result: ApiResult<Option<MappingTemplate>> = async {
        let existing = crate::db::mappings::list(change.conn(), &row.client_id, None).await?;
        let same = existing.iter().any(|t| {
            serde_json::from_str::<BTreeMap<String, String>>(&t.target_mapping)
                .is_ok_and(|m| &m == mapping)
        });
        if same {
            return Ok(None);
        }
        let sources: Vec<&String> = {
            let mut s: Vec<&String> = mapping.values().collect();
            s.sort();
            s.dedup();
            s
        };
        let name: String = format!("{} - {}", lever.lever_name, row.file_name)
            .chars()
            .take(crate::service::mappings::MAX_TEMPLATE_NAME)
            .collect();
        let id = crate::db::new_id();
        let source_columns =
            serde_json::to_string(&sources).map_err(|e| ApiError::Internal(e.into()))?;
        let target_mapping =
            serde_json::to_string(mapping).map_err(|e| ApiError::Internal(e.into()))?;
        let mut sp = change.conn().begin().await?;
        crate::db::mappings::insert(
            &mut sp,
            &crate::db::mappings::NewTemplate {
                id: &id,
                client_id: &row.client_id,
                name: &name,
                lever_id: Some(&lever.id),
                source_columns: &source_columns,
                target_mapping: &target_mapping,
                created_by: &actor.user.id,
                now: &crate::db::now(),
            },
        )
        .await?;
        let saved = crate::db::mappings::get(&mut *sp, &id).await?;
        sp.commit().await?;
        Ok(saved.map(MappingTemplate::from_row))
    }
    .await;
    match result {
        Ok(t) => t,
        Err(e) => {
            tracing::warn!(run = %row.id, error = %e, "saving the review's mapping template failed");
            None
        }
    }
}

/// Rejects a classification (administrators): the review is recorded as a rejection; the file
/// is not processed. Published on the client's files topic and `admin:classification` after the
/// commit.
pub async fn reject(
    state: &AppState,
    actor: &Actor,
    run_id: &str,
    input: RejectReview,
) -> ApiResult<ReviewOutcome> {
    actor.user.require_admin()?;
    let feedback = feedback_text(&input.feedback)?;
    let lever_code = match input.lever_id.as_deref().map(str::trim) {
        None | Some("" | "tbd") => None,
        Some(id) => crate::db::levers::get(&state.db.pool, id)
            .await?
            .ok_or_else(|| ApiError::validation("Invalid lever ID"))?
            .code
            .filter(|c| Lever::parse(c).is_some()),
    };
    let row = training_row(state, run_id).await?;
    access::require(&actor.user, &row.client_id, Need::Admin)?;
    let client = row.client_id.clone();
    let mut change = Change::begin(state, files_topic(&client)).await?;
    let row = undecided(&mut change, run_id).await?;
    let run = crate::db::runs::get(change.conn(), run_id)
        .await?
        .ok_or_else(|| ApiError::not_found("Classification not found"))?;
    let recorded = super::record_review(
        change.conn(),
        &run,
        Decision {
            approved: false,
            lever_code: lever_code.as_deref(),
            by: Some(actor.user.id.as_str()),
            explanation: &feedback,
            follow_up_run_id: None,
        },
    )
    .await?
    .ok_or_else(|| ApiError::Conflict {
        code: "not_classified",
        message: "This run stored no classification to review".into(),
    })?;
    let event = Event::ClassificationReviewed(ClassificationReviewed {
        client_id: client.clone(),
        file_id: row.file_id.clone(),
        run_id: run_id.to_string(),
        status: "rejected".into(),
    });
    change
        .also(Topic::Admin { area: TOPIC_AREA }, event.clone())
        .await?;
    change
        .commit(
            actor,
            event,
            Audit {
                event_type: "classification_rejected",
                entity_type: "processing_run",
                entity_id: run_id,
                details: serde_json::json!({
                    "client_id": client,
                    "file_id": row.file_id,
                    "proposed_lever": recorded.proposed,
                    "confidence_delta": recorded.confidence_delta,
                }),
                severity: "info",
            },
        )
        .await?;
    let levers = Levers::load(state).await?;
    Ok(ReviewOutcome {
        item: item(&training_row(state, run_id).await?, &levers),
        run: None,
        template: None,
    })
}
