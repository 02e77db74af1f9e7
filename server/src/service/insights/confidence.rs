//! The confidence of a decision: four factors, each a score out of 100 computed from the
//! decision and the client's records, with the sentence that says how, and their mean.
//!
//! - **Regulatory rule match**: 0 when no rule of the lever's procedure applied (not matched, or
//!   an error); else 100 less a fixed deduction for each flag that weakens the match (matched by
//!   name instead of an identifier, not in the reference list, credit quality step from the file,
//!   a maturity or currency the rule could not read, ...): [`DEDUCTIONS`].
//! - **Historical consistency**: the share of the client's earlier results of the same lever that
//!   approvers approved (approved / (approved + rejected), validations of other runs); 50 (neutral)
//!   before any was decided.
//! - **Data completeness**: the lever's required fields present and readable in the row, of all
//!   of them.
//! - **Expert validation**: the validation of this run's result: approved 100, rejected 0,
//!   pending, superseded or none 50.

use analysis::engine::Flags;
use analysis::model::MatchStatus;
use analysis::pipeline::{FieldCheck, FieldState};

use super::index::RowView;
use super::{InsightConfidence, InsightFactor};
use crate::db::insights::InsightRunRow;
use crate::error::ApiResult;
use crate::state::AppState;

/// Points a flag takes from the rule match, and why.
pub const DEDUCTIONS: [(Flags, f64, &str); 11] = [
    (
        Flags::NEEDS_REVIEW,
        30.0,
        "a person must review it (collateral flagged without values, or similar)",
    ),
    (
        Flags::MATCHED_BY_NAME,
        20.0,
        "matched by name, not by an identifier",
    ),
    (
        Flags::NOT_IN_REFERENCE,
        20.0,
        "not in the reference list: the file's own data was used",
    ),
    (Flags::INVALID_LEI, 20.0, "the LEI failed its check digits"),
    (
        Flags::CQS_FROM_FILE,
        10.0,
        "credit quality step taken from the file, not the reference list",
    ),
    (
        Flags::CQS_CONFLICT,
        10.0,
        "the file's credit quality step differs from the reference list's",
    ),
    (
        Flags::RESIDUAL_AS_ORIGINAL,
        10.0,
        "the file's maturity was taken as the original maturity",
    ),
    (
        Flags::MATURITY_MISSING,
        10.0,
        "no maturity: short-term treatments were not considered",
    ),
    (
        Flags::MATURITY_UNREADABLE,
        10.0,
        "the maturity could not be read",
    ),
    (
        Flags::CURRENCY_MISSING,
        10.0,
        "no currency: domestic-currency treatments were not applied",
    ),
    (
        Flags::CURRENT_RW_DEFAULTED,
        10.0,
        "no current weight: 100 % assumed",
    ),
];

/// The factors that are the same for every row of a run.
#[derive(Debug, Clone)]
pub struct RunFactors {
    /// Historical consistency.
    pub historical: InsightFactor,
    /// Expert validation.
    pub expert: InsightFactor,
}

fn round1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

fn factor(key: &str, label: &str, score: f64, how: String, details: Vec<String>) -> InsightFactor {
    InsightFactor {
        key: key.to_string(),
        label: label.to_string(),
        score: round1(score.clamp(0.0, 100.0)),
        how,
        details,
    }
}

/// The date part of a timestamp.
fn day(ts: &str) -> &str {
    ts.get(..10).unwrap_or(ts)
}

/// Historical consistency and expert validation of a run.
pub async fn run_factors(state: &AppState, run: &InsightRunRow) -> ApiResult<RunFactors> {
    let lever = run.lever_name.as_deref().unwrap_or("this");
    let historical = match run.lever_id.as_deref() {
        Some(lever_id) => {
            let (approved, rejected) = crate::db::insights::decided_counts(
                &state.db.pool,
                &run.client_id,
                lever_id,
                &run.id,
            )
            .await?;
            let decided = approved + rejected;
            if decided == 0 {
                factor(
                    "historical_consistency",
                    "Historical consistency",
                    50.0,
                    format!(
                        "No earlier result of the {lever} lever has been approved or rejected for this client yet: neutral 50 %."
                    ),
                    Vec::new(),
                )
            } else {
                factor(
                    "historical_consistency",
                    "Historical consistency",
                    approved as f64 * 100.0 / decided as f64,
                    format!(
                        "{approved} of {decided} earlier results of the {lever} lever decided by approvers were approved ({rejected} rejected)."
                    ),
                    Vec::new(),
                )
            }
        }
        None => factor(
            "historical_consistency",
            "Historical consistency",
            50.0,
            "The run has no lever to compare with: neutral 50 %.".into(),
            Vec::new(),
        ),
    };
    let by = run.validated_by_name.as_deref().unwrap_or("an approver");
    let on = run.validated_at.as_deref().map(day).unwrap_or("");
    let expert = match run.validation_status.as_deref() {
        Some("approved") => factor(
            "expert_validation",
            "Expert validation",
            100.0,
            format!("This result was approved by {by} on {on}."),
            Vec::new(),
        ),
        Some("rejected") => factor(
            "expert_validation",
            "Expert validation",
            0.0,
            format!(
                "This result was rejected by {by} on {on}{}.",
                run.rejection_reason
                    .as_deref()
                    .map(|r| format!(": {r}"))
                    .unwrap_or_default()
            ),
            Vec::new(),
        ),
        Some("pending") => factor(
            "expert_validation",
            "Expert validation",
            50.0,
            "This result awaits an approver's decision: 50 % until it is decided.".into(),
            Vec::new(),
        ),
        Some("superseded") => factor(
            "expert_validation",
            "Expert validation",
            50.0,
            "A newer result of the same file replaced this one before it was decided: 50 %.".into(),
            Vec::new(),
        ),
        _ => factor(
            "expert_validation",
            "Expert validation",
            50.0,
            "No validation was opened for this result: 50 %.".into(),
            Vec::new(),
        ),
    };
    Ok(RunFactors { historical, expert })
}

/// The regulatory rule match of a row.
pub fn rule_match(row: &RowView<'_>) -> InsightFactor {
    let label = "Regulatory rule match";
    match row.row.status {
        MatchStatus::Error => factor(
            "rule_match",
            label,
            0.0,
            format!(
                "The engine could not evaluate the row, so no rule applied: {}",
                row.details
            ),
            Vec::new(),
        ),
        MatchStatus::NotMatched => factor(
            "rule_match",
            label,
            0.0,
            format!(
                "No rule of the lever's procedure applied; the current weight is kept: {}",
                row.details
            ),
            Vec::new(),
        ),
        MatchStatus::Matched => {
            let mut score = 100.0;
            let mut details = Vec::new();
            for (flag, points, why) in DEDUCTIONS {
                if row.row.flags.contains(flag) {
                    score -= points;
                    details.push(format!("-{points:.0}: {why}"));
                }
            }
            let how = if details.is_empty() {
                format!(
                    "Matched by the rule {} ({}) with nothing that weakens the match: 100 %.",
                    row.applied_rule, row.reference
                )
            } else {
                format!(
                    "Matched by the rule {} ({}): 100 less {} deduction{}.",
                    row.applied_rule,
                    row.reference,
                    details.len(),
                    if details.len() == 1 { "" } else { "s" }
                )
            };
            factor("rule_match", label, score, how, details)
        }
    }
}

/// The data completeness of a row (its fields' states when known).
pub fn completeness(row: &RowView<'_>, fields: Option<&[FieldCheck]>) -> InsightFactor {
    let label = "Data completeness";
    let (present, total) = (row.row.required_present, row.row.required_total);
    if total == 0 {
        return factor(
            "data_completeness",
            label,
            100.0,
            "The lever requires no field.".into(),
            Vec::new(),
        );
    }
    let details = fields
        .map(|fs| {
            fs.iter()
                .filter(|f| f.required)
                .map(|f| {
                    let state = match f.state {
                        FieldState::Present => "present",
                        FieldState::Blank => "blank",
                        FieldState::Unreadable => "unreadable",
                        FieldState::NotMapped => "not mapped",
                    };
                    match &f.column {
                        Some(c) if c != &f.field => format!("{} (column {c}): {state}", f.field),
                        _ => format!("{}: {state}", f.field),
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    factor(
        "data_completeness",
        label,
        f64::from(present) * 100.0 / f64::from(total),
        format!("{present} of {total} required fields are present and readable in the row."),
        details,
    )
}

/// The four factors of a row and their mean.
pub fn breakdown(
    row: &RowView<'_>,
    fields: Option<&[FieldCheck]>,
    run: &RunFactors,
) -> InsightConfidence {
    let factors = vec![
        rule_match(row),
        run.historical.clone(),
        completeness(row, fields),
        run.expert.clone(),
    ];
    let overall = round1(factors.iter().map(|f| f.score).sum::<f64>() / factors.len() as f64);
    InsightConfidence { overall, factors }
}

/// The mean of the four factors of a row (the list's confidence).
pub fn overall(row: &RowView<'_>, run: &RunFactors) -> f64 {
    breakdown(row, None, run).overall
}
