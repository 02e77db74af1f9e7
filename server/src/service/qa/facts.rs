//! The figures of a run's analysis kept with the run for the Q&A agent
//! (`processing_runs.facts`, migration 0019): the summary's totals and breakdowns, without the
//! mapping, warnings or traces. Written once by the run's completion, read by every question, so
//! an answer never reads the file again (a question about one exposure excepted).

use std::collections::BTreeMap;

use analysis::aggregate::{FileAggregates, GroupSummary};
use serde::{Deserialize, Serialize};

/// A completed run's totals and breakdowns.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct RunFacts {
    /// Data rows.
    pub rows: u64,
    /// Rows matched.
    pub matched: u64,
    /// Rows not matched.
    pub not_matched: u64,
    /// Rows in error.
    pub errors: u64,
    /// Sum of Exposure_Amount.
    pub total_exposure: f64,
    /// RWAs before.
    pub rwa_before: f64,
    /// RWAs after.
    pub rwa_after: f64,
    /// The RWA reduction.
    pub total_rwa_saving: f64,
    /// The lever analysed (`pse`, ...).
    pub lever: String,
    /// The rule set.
    pub rule_set: String,
    /// Totals by Applied_Rule.
    pub by_rule: Vec<GroupSummary>,
    /// Totals by Asset_Class.
    pub by_asset_class: Vec<GroupSummary>,
    /// Rows per engine flag.
    pub flags: BTreeMap<String, u64>,
    /// Status, article, CQS, country, currency and maturity groups, the top rows, reasons and
    /// data quality.
    pub aggregates: FileAggregates,
}

impl RunFacts {
    /// The facts of an analysis.
    pub fn from_summary(s: &analysis::pipeline::AnalysisSummary) -> RunFacts {
        RunFacts {
            rows: s.rows,
            matched: s.matched,
            not_matched: s.not_matched,
            errors: s.errors,
            total_exposure: s.total_exposure,
            rwa_before: s.rwa_before,
            rwa_after: s.rwa_after,
            total_rwa_saving: s.total_rwa_saving,
            lever: s.lever.as_str().to_string(),
            rule_set: s.rule_set.clone(),
            by_rule: s.by_rule.clone(),
            by_asset_class: s.by_asset_class.clone(),
            flags: s.flags.clone(),
            aggregates: s.aggregates.clone(),
        }
    }
}
