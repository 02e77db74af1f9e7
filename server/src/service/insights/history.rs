//! Historical Patterns: the decisions of the client's earlier runs of the same lever that
//! resemble a chosen decision, with their outcome (the validation of their run's result) and
//! date.
//!
//! Similarity of an earlier decision with the chosen one, out of 1: the same counterparty
//! identifier (NIF or LEI) 0.5, or else the same counterparty name 0.4; the same rule path
//! (Applied_Rule and Regulatory_Reference) 0.3; the same current weight 0.1; the same match
//! status 0.1. A decision from [`SIMILAR_FROM`] counts as similar. The pattern match is the share
//! of similar decisions that proposed the same weight as the chosen one.
//!
//! Bounded: the [`MAX_RUNS`] most recent earlier runs of the lever, and no more than
//! [`MAX_ROWS`] decisions in all (the runs' decisions come from the same cache as the lists).

use std::collections::HashMap;

use super::index::{self, DecisionIndex, RowView};
use super::{InsightCase, InsightHistory};
use crate::db::insights::InsightRunRow;
use crate::error::ApiResult;
use crate::service::runs::RunResult;
use crate::state::AppState;

/// Earlier runs compared at most.
pub const MAX_RUNS: i64 = 10;
/// Earlier decisions compared at most.
pub const MAX_ROWS: usize = 500_000;
/// Similarity from which an earlier decision counts as similar.
pub const SIMILAR_FROM: f64 = 0.5;
/// Similar cases listed.
pub const CASES: usize = 5;
/// The window of the recent count, in days (about 6 months).
pub const RECENT_DAYS: i64 = 183;

fn same_text(a: &str, b: &str) -> bool {
    !a.trim().is_empty() && a.trim().eq_ignore_ascii_case(b.trim())
}

/// The similarity of an earlier decision with the chosen one, and what matched.
pub fn similarity(
    chosen: &RowView<'_>,
    earlier: &RowView<'_>,
    same_rule: bool,
) -> (f64, Vec<&'static str>) {
    let mut s = 0.0;
    let mut on = Vec::new();
    if same_text(chosen.identifier, earlier.identifier) {
        s += 0.5;
        on.push("identifier");
    } else if same_text(chosen.counterparty, earlier.counterparty) {
        s += 0.4;
        on.push("counterparty name");
    }
    if same_rule {
        s += 0.3;
        on.push("rule");
    }
    if (chosen.row.current_rw_pct - earlier.row.current_rw_pct).abs() < 1e-9 {
        s += 0.1;
        on.push("current weight");
    }
    if chosen.row.status == earlier.row.status {
        s += 0.1;
        on.push("status");
    }
    ((s * 100.0_f64).round() / 100.0, on)
}

fn outcome(run: &InsightRunRow) -> String {
    match run.validation_status.as_deref() {
        Some("approved") => "Approved",
        Some("rejected") => "Rejected",
        Some("pending") => "Pending validation",
        Some("superseded") => "Superseded",
        _ => "Not validated",
    }
    .to_string()
}

fn days_ago(ts: &str, now: chrono::DateTime<chrono::Utc>) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(ts)
        .ok()
        .map(|t| (now - t.with_timezone(&chrono::Utc)).num_days())
}

/// The historical patterns of one decision of a run.
pub async fn patterns(
    state: &AppState,
    run: &InsightRunRow,
    chosen_index: &DecisionIndex,
    row: u64,
) -> ApiResult<InsightHistory> {
    let Some(chosen) = chosen_index.get(row) else {
        return Err(crate::error::ApiError::not_found("Decision not found"));
    };
    let Some(lever_id) = run.lever_id.as_deref() else {
        return Ok(InsightHistory::empty(
            "This run has no lever: there is nothing to compare with.",
        ));
    };
    let earlier = crate::db::insights::earlier_runs(
        &state.db.pool,
        &run.client_id,
        lever_id,
        &run.created_at,
        &run.id,
        MAX_RUNS,
    )
    .await?;
    let now = chrono::Utc::now();
    let mut similar_total = 0u64;
    let mut recent = 0u64;
    let mut same_weight = 0u64;
    let mut compared = 0usize;
    let mut runs_compared = 0u32;
    let mut skipped: Vec<String> = Vec::new();
    let mut cases: Vec<(f64, String, InsightCase)> = Vec::new();
    for past in &earlier {
        if compared >= MAX_ROWS {
            break;
        }
        let Some(result) = past
            .result
            .as_deref()
            .and_then(|r| serde_json::from_str::<RunResult>(r).ok())
        else {
            continue;
        };
        let idx = match index::index(state, past, &result).await {
            Ok(i) => i,
            Err(e) => {
                skipped.push(format!("{} ({e})", past.file_name));
                continue;
            }
        };
        runs_compared += 1;
        // The rule paths of the earlier run that equal the chosen one's.
        let mut same_rule: HashMap<u32, bool> = HashMap::new();
        let date = past
            .finished_at
            .clone()
            .unwrap_or_else(|| past.created_at.clone());
        let is_recent = days_ago(&date, now).is_some_and(|d| d <= RECENT_DAYS);
        for e in idx.iter() {
            if compared >= MAX_ROWS {
                break;
            }
            compared += 1;
            let rule = *same_rule.entry(e.rule_key()).or_insert_with(|| {
                e.applied_rule == chosen.applied_rule && e.reference == chosen.reference
            });
            let (sim, on) = similarity(&chosen, &e, rule);
            if sim + 1e-9 < SIMILAR_FROM {
                continue;
            }
            similar_total += 1;
            if is_recent {
                recent += 1;
            }
            if (e.row.suggested_rw_pct - chosen.row.suggested_rw_pct).abs() < 1e-9 {
                same_weight += 1;
            }
            let better = cases.len() < CASES
                || cases
                    .last()
                    .is_some_and(|(s, d, _)| sim > *s || (sim == *s && date > *d));
            if better {
                cases.push((
                    sim,
                    date.clone(),
                    InsightCase {
                        run_id: past.id.clone(),
                        file_name: past.file_name.clone(),
                        row: e.row.row,
                        exposure_id: e.exposure_id.to_string(),
                        counterparty: if e.counterparty.is_empty() {
                            e.identifier.to_string()
                        } else {
                            e.counterparty.to_string()
                        },
                        original_rw: e.row.current_rw_pct,
                        proposed_rw: e.row.suggested_rw_pct,
                        applied_rule: e.applied_rule.to_string(),
                        similarity: (sim * 100.0).round(),
                        outcome: outcome(past),
                        date: date.clone(),
                        matched_on: on.iter().map(|s| s.to_string()).collect(),
                    },
                ));
                cases.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| b.1.cmp(&a.1)));
                cases.truncate(CASES);
            }
        }
    }
    let mut notes = Vec::new();
    if earlier.is_empty() {
        notes.push("No earlier completed run of this lever for this client.".to_string());
    }
    if compared >= MAX_ROWS {
        notes.push(format!(
            "Compared with the first {MAX_ROWS} earlier decisions only."
        ));
    }
    if !skipped.is_empty() {
        notes.push(format!("Not compared: {}.", skipped.join("; ")));
    }
    Ok(InsightHistory {
        pattern_match: if similar_total > 0 {
            Some((same_weight as f64 * 1000.0 / similar_total as f64).round() / 10.0)
        } else {
            None
        },
        similar_last_6_months: recent,
        similar_total,
        runs_compared,
        decisions_compared: compared as u64,
        cases: cases.into_iter().map(|(_, _, c)| c).collect(),
        note: if notes.is_empty() {
            None
        } else {
            Some(notes.join(" "))
        },
    })
}
