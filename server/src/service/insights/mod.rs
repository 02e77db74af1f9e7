//! AI explainability (the client's AI Insights screen): the decisions of the client's own
//! completed processing runs, one per exposure row, searchable and paged here; for one decision
//! the engine's decision trace, the row's fields, a confidence computed from four factors, the
//! classifier's weighted tokens of the run, similar earlier decisions of the client; and an
//! export of that analysis as JSON or CSV.
//!
//! Everything is read from what a finished run keeps (its file's stored original, its options,
//! its lever, its stored result and reporting date) and from the client's validations; the
//! decisions are evaluated again by the engine ([`index`]) and never sent whole to the browser.
//! Readers of the client's data (members, viewers, administrators) may read all of it; nothing
//! here writes.

pub mod confidence;
pub mod export;
pub mod history;
pub mod index;
pub mod tokens;

use analysis::model::MatchStatus;
use serde::Serialize;

use crate::db::insights::{self as db, InsightRunRow};
use crate::error::{ApiError, ApiResult};
use crate::service::Scope;
use crate::service::runs::{RunMode, RunResult};
use crate::state::AppState;

use index::RowView;

/// Runs listed at most.
pub const RUNS_LIMIT: i64 = 100;
/// Decisions per page by default.
pub const PAGE_SIZE: usize = 50;
/// Decisions per page at most.
pub const MAX_PAGE_SIZE: usize = 100;

/// A completed run the screen can explain.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct InsightRun {
    /// Id.
    pub id: String,
    /// Its file.
    pub file_id: String,
    /// The file's name.
    pub file_name: String,
    /// Manual or enhanced AI.
    pub mode: RunMode,
    /// The lever analysed.
    pub lever_name: Option<String>,
    /// Data rows.
    #[ts(type = "number")]
    pub rows: u64,
    /// Queued at.
    pub created_at: String,
    /// Ended at.
    pub finished_at: Option<String>,
    /// The validation of its result: `pending`, `approved`, `rejected`, `superseded`, or none.
    pub validation_status: Option<String>,
}

/// The row totals of a run's decisions.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct InsightTotals {
    /// Data rows.
    #[ts(type = "number")]
    pub rows: u64,
    /// Matched.
    #[ts(type = "number")]
    pub matched: u64,
    /// Not matched.
    #[ts(type = "number")]
    pub not_matched: u64,
    /// In error.
    #[ts(type = "number")]
    pub errors: u64,
    /// With a proposed weight below the current one.
    #[ts(type = "number")]
    pub changed: u64,
    /// The RWA reduction.
    pub rwa_saving: f64,
}

/// How important a token is, relative to the strongest one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Importance {
    /// From two thirds of the strongest weight.
    High,
    /// From one third.
    Medium,
    /// Below.
    Low,
}

/// One weighted token of the classifier's evidence.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct InsightToken {
    /// The word or what was seen (`nif`, `PSE list`, `NIF key Q`).
    pub token: String,
    /// Score it added to its lever (negative: taken by a correction).
    pub weight: f64,
    /// Its importance.
    pub importance: Importance,
    /// The lever it scored for (`pse`, ...).
    pub lever: String,
    /// `header`, `identifier`, `reference`, `name`, `asset_class` or `feedback`.
    pub kind: String,
    /// What was seen, in words.
    pub detail: String,
}

/// The Token Analysis of a run.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct InsightTokens {
    /// `run` (the classification the run stored) or `recomputed` (the classifier on the same
    /// file now, for a run whose lever a person chose).
    pub source: String,
    /// The lever the classifier proposed.
    pub lever: Option<String>,
    /// Its confidence, 0..1.
    pub confidence: Option<f64>,
    /// The tokens, strongest first.
    pub tokens: Vec<InsightToken>,
    /// High-impact tokens.
    pub high: u32,
    /// Medium-impact tokens.
    pub medium: u32,
    /// Low-impact tokens.
    pub low: u32,
    /// Where the tokens come from, in words.
    pub note: String,
}

/// A run with what explains it as a whole.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct InsightRunOverview {
    /// The run.
    pub run: InsightRun,
    /// The lever evaluated (`pse`, ...).
    pub lever: String,
    /// The rule set.
    pub rule_set: String,
    /// The reporting date (`yyyy-mm-dd`).
    pub reporting_date: String,
    /// Whether the run stored it (older results: the day it started).
    pub reporting_date_stored: bool,
    /// The decisions' totals.
    pub totals: InsightTotals,
    /// `None` when the decisions add up to the run's stored result; else what differs.
    pub consistency: Option<String>,
    /// The lever's required fields.
    pub required_fields: Vec<String>,
    /// The classifier's weighted tokens.
    pub tokens: InsightTokens,
}

/// One decision of a run (an exposure row).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct InsightDecision {
    /// The row (1 = the first row below the header).
    #[ts(type = "number")]
    pub row: u64,
    /// Exposure_ID (empty when the file has none).
    pub exposure_id: String,
    /// The counterparty's name as the file gives it.
    pub counterparty: String,
    /// Its NIF or LEI as the file gives it.
    pub identifier: String,
    /// The current weight, in percent.
    pub original_rw: f64,
    /// The proposed weight, in percent.
    pub proposed_rw: f64,
    /// The confidence, 0..100 (the mean of the four factors).
    pub confidence: f64,
    /// Regulatory_Reference.
    pub regulatory_basis: String,
    /// Applied_Rule.
    pub applied_rule: String,
    /// Match_Details.
    pub reasoning: String,
    /// `matched`, `not_matched` or `error`.
    pub status: String,
    /// The RWA reduction.
    pub capital_saving: f64,
    /// The decision's flags.
    pub flags: Vec<String>,
}

/// A page of a run's decisions.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct InsightDecisionPage {
    /// The page's decisions, in file order.
    pub items: Vec<InsightDecision>,
    /// Decisions that match the search.
    #[ts(type = "number")]
    pub total: u64,
    /// All the run's decisions.
    #[ts(type = "number")]
    pub rows: u64,
    /// The page, from 1.
    #[ts(type = "number")]
    pub page: u64,
    /// Its size.
    #[ts(type = "number")]
    pub page_size: u64,
}

/// An input a test read.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct InsightTraceInput {
    /// What it is.
    pub name: String,
    /// Its value.
    pub value: String,
}

/// One test of the procedure.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct InsightTraceStep {
    /// The article (`CRR Art. 116(3)`); empty for a lookup.
    pub article: String,
    /// The test, as a question.
    pub test: String,
    /// The inputs it read.
    pub inputs: Vec<InsightTraceInput>,
    /// Its outcome (`yes`, `no`, `50%`, ...).
    pub outcome: String,
}

/// A reference-data entry a decision used.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct InsightReferenceEntry {
    /// The list.
    pub list: String,
    /// The key it was found by.
    pub key: String,
    /// The entry's name.
    pub name: String,
    /// Where the list came from.
    pub source: String,
    /// The entry's date.
    pub as_of: String,
}

/// The engine's decision trace of one row.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct InsightTrace {
    /// The lever.
    pub lever: String,
    /// The rule set.
    pub rule_set: String,
    /// The reporting date.
    pub reporting_date: String,
    /// The tests in the order the procedure took them.
    pub steps: Vec<InsightTraceStep>,
    /// The reference-data entries used.
    pub reference_entries: Vec<InsightReferenceEntry>,
    /// Match_Status.
    pub status: String,
    /// The current weight used, in percent.
    pub current_rw: f64,
    /// The rule's weight before the clamp.
    pub regulatory_rw: Option<f64>,
    /// The proposed weight, in percent.
    pub suggested_rw: f64,
    /// Applied_Rule.
    pub applied_rule: String,
    /// Regulatory_Reference.
    pub regulatory_reference: String,
    /// Match_Details.
    pub details: String,
    /// Flags.
    pub flags: Vec<String>,
}

/// One standard field of the row.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct InsightField {
    /// The standard column.
    pub field: String,
    /// The file's column read for it.
    pub column: Option<String>,
    /// The cell, trimmed.
    pub value: String,
    /// Whether the lever requires it.
    pub required: bool,
    /// `present`, `blank`, `unreadable` or `not_mapped`.
    pub state: String,
}

/// One factor of a confidence.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct InsightFactor {
    /// `rule_match`, `historical_consistency`, `data_completeness` or `expert_validation`.
    pub key: String,
    /// Its label.
    pub label: String,
    /// Its score, 0..100.
    pub score: f64,
    /// How it was computed, in words.
    pub how: String,
    /// Its parts (deductions, fields).
    pub details: Vec<String>,
}

/// A decision's confidence: four factors and their mean.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct InsightConfidence {
    /// The mean of the factors, 0..100.
    pub overall: f64,
    /// Regulatory rule match, historical consistency, data completeness, expert validation.
    pub factors: Vec<InsightFactor>,
}

/// One decision with everything that explains it.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct InsightDecisionDetail {
    /// The decision.
    pub decision: InsightDecision,
    /// The engine's trace of it.
    pub trace: InsightTrace,
    /// The row's fields as read.
    pub fields: Vec<InsightField>,
    /// Its confidence.
    pub confidence: InsightConfidence,
}

/// An earlier decision similar to a chosen one.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct InsightCase {
    /// Its run.
    pub run_id: String,
    /// Its run's file.
    pub file_name: String,
    /// Its row.
    #[ts(type = "number")]
    pub row: u64,
    /// Exposure_ID.
    pub exposure_id: String,
    /// The counterparty (name, else identifier).
    pub counterparty: String,
    /// The current weight, in percent.
    pub original_rw: f64,
    /// The proposed weight, in percent.
    pub proposed_rw: f64,
    /// Applied_Rule.
    pub applied_rule: String,
    /// Similarity, 0..100.
    pub similarity: f64,
    /// The outcome of its run's result (`Approved`, `Rejected`, `Pending validation`, ...).
    pub outcome: String,
    /// When its run ended.
    pub date: String,
    /// What matched (`identifier`, `rule`, ...).
    pub matched_on: Vec<String>,
}

/// The Historical Patterns of a decision.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct InsightHistory {
    /// The share of similar earlier decisions that proposed the same weight, 0..100; `None`
    /// without similar ones.
    pub pattern_match: Option<f64>,
    /// Similar earlier decisions of runs that ended in the last 6 months.
    #[ts(type = "number")]
    pub similar_last_6_months: u64,
    /// Similar earlier decisions.
    #[ts(type = "number")]
    pub similar_total: u64,
    /// Earlier runs compared.
    pub runs_compared: u32,
    /// Earlier decisions compared.
    #[ts(type = "number")]
    pub decisions_compared: u64,
    /// The most similar cases, most similar and newest first.
    pub cases: Vec<InsightCase>,
    /// What limited the comparison, if anything.
    pub note: Option<String>,
}

impl InsightHistory {
    fn empty(note: &str) -> InsightHistory {
        InsightHistory {
            pattern_match: None,
            similar_last_6_months: 0,
            similar_total: 0,
            runs_compared: 0,
            decisions_compared: 0,
            cases: Vec::new(),
            note: Some(note.to_string()),
        }
    }
}

/// The search of the decision list.
#[derive(Debug, Clone, Default)]
pub struct DecisionQuery {
    /// Text in the exposure id, counterparty, identifier, rule or reference.
    pub q: Option<String>,
    /// `matched`, `not_matched` or `error`.
    pub status: Option<String>,
    /// From 1.
    pub page: Option<u64>,
    /// 1 to [`MAX_PAGE_SIZE`].
    pub page_size: Option<u64>,
}

fn run_view(r: &InsightRunRow, result: Option<&RunResult>) -> InsightRun {
    InsightRun {
        id: r.id.clone(),
        file_id: r.file_id.clone(),
        file_name: r.file_name.clone(),
        mode: if r.mode == "manual" {
            RunMode::Manual
        } else {
            RunMode::EnhancedAi
        },
        lever_name: r.lever_name.clone(),
        rows: result.map_or(0, |x| x.rows),
        created_at: r.created_at.clone(),
        finished_at: r.finished_at.clone(),
        validation_status: r.validation_status.clone(),
    }
}

fn parse_result(r: &InsightRunRow) -> Option<RunResult> {
    r.result
        .as_deref()
        .and_then(|s| serde_json::from_str::<RunResult>(s).ok())
}

/// The client's completed runs, newest first (at most [`RUNS_LIMIT`]).
pub async fn runs(state: &AppState, scope: &Scope) -> ApiResult<Vec<InsightRun>> {
    let rows = db::completed_runs(&state.db.pool, &scope.client_id, RUNS_LIMIT).await?;
    Ok(rows
        .iter()
        .map(|r| run_view(r, parse_result(r).as_ref()))
        .collect())
}

/// A run of the scope's client that ended with results: the run, its result.
async fn completed_run(
    state: &AppState,
    scope: &Scope,
    run_id: &str,
) -> ApiResult<(InsightRunRow, RunResult)> {
    let run = db::run(&state.db.pool, run_id)
        .await?
        .filter(|r| r.client_id == scope.client_id.as_str())
        .ok_or_else(|| ApiError::not_found("Run not found"))?;
    if run.state != "completed" {
        return Err(ApiError::Conflict {
            code: "run_not_completed",
            message: format!(
                "This run has no decisions to explain: it is {}",
                run.state.replace('_', " ")
            ),
        });
    }
    let result = parse_result(&run).ok_or_else(|| ApiError::Conflict {
        code: "run_not_completed",
        message: "This run has no stored result".into(),
    })?;
    Ok((run, result))
}

fn decision_view(v: &RowView<'_>, confidence: f64) -> InsightDecision {
    InsightDecision {
        row: v.row.row,
        exposure_id: v.exposure_id.to_string(),
        counterparty: v.counterparty.to_string(),
        identifier: v.identifier.to_string(),
        original_rw: v.row.current_rw_pct,
        proposed_rw: v.row.suggested_rw_pct,
        confidence,
        regulatory_basis: v.reference.to_string(),
        applied_rule: v.applied_rule.to_string(),
        reasoning: v.details.to_string(),
        status: v.row.status.as_str().to_string(),
        capital_saving: (v.row.capital_saving * 100.0).round() / 100.0,
        flags: v.row.flags.names().map(str::to_string).collect(),
    }
}

/// A run's overview: the run, the decisions' totals and their agreement with the stored result,
/// and the classifier's tokens.
pub async fn overview(
    state: &AppState,
    scope: &Scope,
    run_id: &str,
) -> ApiResult<InsightRunOverview> {
    let (run, result) = completed_run(state, scope, run_id).await?;
    let idx = index::index(state, &run, &result).await?;
    let stored_classification = result
        .classification
        .as_ref()
        .and_then(|v| serde_json::from_value::<analysis::classify::Classification>(v.clone()).ok());
    let tokens = match stored_classification {
        Some(c) => tokens::tokens(&c, true),
        None => {
            let recipe = index::recipe(state, &run, &result).await?;
            let p = index::preview(state, &recipe, tokens::SAMPLE_ROWS).await?;
            let headers: Vec<&str> = p.info.headers.iter().map(String::as_str).collect();
            let rows: Vec<Vec<&str>> = p
                .rows
                .iter()
                .map(|r| r.iter().map(String::as_str).collect())
                .collect();
            let c = analysis::classify::classify(
                &headers,
                &rows,
                &analysis::refdata::RefData::builtin_shared(),
            );
            tokens::tokens(&c, false)
        }
    };
    let t = idx.totals;
    Ok(InsightRunOverview {
        run: run_view(&run, Some(&result)),
        lever: idx.lever.as_str().to_string(),
        rule_set: idx.rule_set.clone(),
        reporting_date: idx.reporting_date.to_string(),
        reporting_date_stored: idx.reporting_date_stored,
        totals: InsightTotals {
            rows: t.rows,
            matched: t.matched,
            not_matched: t.not_matched,
            errors: t.errors,
            changed: t.changed,
            rwa_saving: (t.rwa_saving * 100.0).round() / 100.0,
        },
        consistency: idx.consistency(&result),
        required_fields: idx.scan.required.clone(),
        tokens,
    })
}

fn parse_status(s: Option<&str>) -> ApiResult<Option<MatchStatus>> {
    match s.map(str::trim).filter(|s| !s.is_empty() && *s != "all") {
        None => Ok(None),
        Some("matched") => Ok(Some(MatchStatus::Matched)),
        Some("not_matched") => Ok(Some(MatchStatus::NotMatched)),
        Some("error") => Ok(Some(MatchStatus::Error)),
        Some(_) => Err(ApiError::validation(
            "Status must be matched, not_matched or error",
        )),
    }
}

/// A page of a run's decisions matching a search, in file order.
pub async fn decisions(
    state: &AppState,
    scope: &Scope,
    run_id: &str,
    q: DecisionQuery,
) -> ApiResult<InsightDecisionPage> {
    let status = parse_status(q.status.as_deref())?;
    let page_size = q.page_size.unwrap_or(PAGE_SIZE as u64);
    if page_size == 0 || page_size > MAX_PAGE_SIZE as u64 {
        return Err(ApiError::validation(format!(
            "Page size must be between 1 and {MAX_PAGE_SIZE}"
        )));
    }
    let page = q.page.unwrap_or(1).max(1);
    let needle = q.q.unwrap_or_default();
    if needle.chars().count() > 200 {
        return Err(ApiError::validation("The search is at most 200 characters"));
    }
    let (run, result) = completed_run(state, scope, run_id).await?;
    let idx = index::index(state, &run, &result).await?;
    let factors = confidence::run_factors(state, &run).await?;
    let skip = usize::try_from((page - 1).saturating_mul(page_size)).unwrap_or(usize::MAX);
    let take = usize::try_from(page_size).unwrap_or(PAGE_SIZE);
    let mut total = 0u64;
    let mut items = Vec::with_capacity(take);
    for (i, v) in idx.search(&needle, status).enumerate() {
        total += 1;
        if i >= skip && items.len() < take {
            items.push(decision_view(&v, confidence::overall(&v, &factors)));
        }
    }
    Ok(InsightDecisionPage {
        items,
        total,
        rows: idx.len() as u64,
        page,
        page_size,
    })
}

/// The reclassified decisions of a completed run (those whose proposed weight is below the
/// current one): at most `limit`, largest RWA reduction first (then file order), with how many
/// there are and their mean confidence, and the run with its stored result and decision totals.
/// The lever justification memo is written from them.
pub struct Reclassified {
    /// The run.
    pub run: InsightRunRow,
    /// Its stored result.
    pub result: RunResult,
    /// The decisions listed.
    pub items: Vec<InsightDecision>,
    /// All the reclassified decisions.
    pub total: u64,
    /// Their mean confidence, 0..100 (none when nothing was reclassified).
    pub mean_confidence: Option<f64>,
    /// The decisions' totals.
    pub totals: index::IndexTotals,
    /// The rule set they were taken under.
    pub rule_set: String,
    /// The reporting date used.
    pub reporting_date: String,
}

/// See [`Reclassified`].
pub async fn reclassified(
    state: &AppState,
    scope: &Scope,
    run_id: &str,
    limit: usize,
) -> ApiResult<Reclassified> {
    let (run, result) = completed_run(state, scope, run_id).await?;
    let idx = index::index(state, &run, &result).await?;
    let factors = confidence::run_factors(state, &run).await?;
    let mut changed: Vec<(RowView<'_>, f64)> = idx
        .iter()
        .filter(|v| v.row.suggested_rw_pct < v.row.current_rw_pct)
        .map(|v| (v, confidence::overall(&v, &factors)))
        .collect();
    let total = changed.len() as u64;
    let mean_confidence =
        (total > 0).then(|| changed.iter().map(|(_, c)| c).sum::<f64>() / total as f64);
    changed.sort_by(|(a, _), (b, _)| {
        b.row
            .capital_saving
            .total_cmp(&a.row.capital_saving)
            .then(a.row.row.cmp(&b.row.row))
    });
    let items = changed
        .iter()
        .take(limit)
        .map(|(v, c)| decision_view(v, *c))
        .collect();
    Ok(Reclassified {
        items,
        total,
        mean_confidence,
        totals: idx.totals,
        rule_set: idx.rule_set.clone(),
        reporting_date: idx.reporting_date.to_string(),
        run,
        result,
    })
}

/// The rows of a completed run of the scope's client whose exposure id, NIF or LEI is `id`
/// (any case), in file order (the Q&A agent's named exposures).
pub async fn rows_named(
    state: &AppState,
    scope: &Scope,
    run_id: &str,
    id: &str,
) -> ApiResult<Vec<u64>> {
    let (run, result) = completed_run(state, scope, run_id).await?;
    let idx = index::index(state, &run, &result).await?;
    Ok(idx
        .search(id, None)
        .filter(|v| v.exposure_id.eq_ignore_ascii_case(id) || v.identifier.eq_ignore_ascii_case(id))
        .map(|v| v.row.row)
        .collect())
}

fn trace_view(t: &analysis::trace::DecisionTrace) -> InsightTrace {
    InsightTrace {
        lever: t.lever.as_str().to_string(),
        rule_set: t.rule_set.id.clone(),
        reporting_date: t.reporting_date.to_string(),
        steps: t
            .steps
            .iter()
            .map(|s| InsightTraceStep {
                article: s.article.clone(),
                test: s.test.clone(),
                inputs: s
                    .inputs
                    .iter()
                    .map(|i| InsightTraceInput {
                        name: i.name.clone(),
                        value: i.value.clone(),
                    })
                    .collect(),
                outcome: s.outcome.clone(),
            })
            .collect(),
        reference_entries: t
            .reference_entries
            .iter()
            .map(|e| InsightReferenceEntry {
                list: e.list.clone(),
                key: e.key.clone(),
                name: e.name.clone(),
                source: e.source.clone(),
                as_of: e.as_of.clone(),
            })
            .collect(),
        status: t.status.as_str().to_string(),
        current_rw: t.current_rw_pct,
        regulatory_rw: t.regulatory_rw_pct,
        suggested_rw: t.suggested_rw_pct,
        applied_rule: t.applied_rule.clone(),
        regulatory_reference: t.regulatory_reference.clone(),
        details: t.details.clone(),
        flags: t.flags.clone(),
    }
}

/// One decision with its trace, fields and confidence.
pub async fn decision(
    state: &AppState,
    scope: &Scope,
    run_id: &str,
    row: u64,
) -> ApiResult<InsightDecisionDetail> {
    let (run, result) = completed_run(state, scope, run_id).await?;
    let idx = index::index(state, &run, &result).await?;
    let v = idx
        .get(row)
        .ok_or_else(|| ApiError::not_found("Decision not found"))?;
    let explained = index::explain(state, &run, &result, row).await?;
    let factors = confidence::run_factors(state, &run).await?;
    let conf = confidence::breakdown(&v, Some(&explained.fields), &factors);
    Ok(InsightDecisionDetail {
        decision: decision_view(&v, conf.overall),
        trace: trace_view(&explained.trace),
        fields: explained
            .fields
            .iter()
            .map(|f| InsightField {
                field: f.field.clone(),
                column: f.column.clone(),
                value: f.value.clone(),
                required: f.required,
                state: match f.state {
                    analysis::pipeline::FieldState::Present => "present",
                    analysis::pipeline::FieldState::Blank => "blank",
                    analysis::pipeline::FieldState::Unreadable => "unreadable",
                    analysis::pipeline::FieldState::NotMapped => "not_mapped",
                }
                .to_string(),
            })
            .collect(),
        confidence: conf,
    })
}

/// The Historical Patterns of one decision.
pub async fn patterns(
    state: &AppState,
    scope: &Scope,
    run_id: &str,
    row: u64,
) -> ApiResult<InsightHistory> {
    let (run, result) = completed_run(state, scope, run_id).await?;
    let idx = index::index(state, &run, &result).await?;
    history::patterns(state, &run, &idx, row).await
}
