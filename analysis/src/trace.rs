//! Decision traces: for one exposure row, the path the rule procedure took, test by test in
//! the article's order, with the inputs each test read and its outcome; the rule set; the
//! reference-data entry used, with its source and date; and the decision.
//!
//! A trace is computed on demand by [`crate::engine::Engine::trace`], which re-evaluates the row
//! through the same procedure as [`crate::engine::Engine::evaluate`] with a recorder switched on.
//! The procedure builds a step only when the recorder is on (each step is a closure the hot path
//! never calls), so evaluating a file pays one branch per test and allocates nothing for traces.
//! The explainability and validation screens show it; it is serde-serialisable and its texts
//! are stable.

use std::cell::RefCell;

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::model::{Lever, MatchStatus};

/// One input a test read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceInput {
    /// What it is (`NIF`, `treated_as_central_government`, `Maturity`, ...).
    pub name: String,
    /// Its value as used.
    pub value: String,
}

/// One test of the procedure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceStep {
    /// The article or table the test belongs to (`CRR Art. 116(3)`); empty for a lookup.
    pub article: String,
    /// The test, as a question (`original maturity <= 3 months?`).
    pub test: String,
    /// The inputs it read.
    pub inputs: Vec<TraceInput>,
    /// Its outcome (`yes`, `no`, `not found`, `50%`, ...).
    pub outcome: String,
}

impl TraceStep {
    pub(crate) fn new(article: &str, test: &str, inputs: &[(&str, String)], outcome: &str) -> Self {
        TraceStep {
            article: article.to_string(),
            test: test.to_string(),
            inputs: inputs
                .iter()
                .map(|(n, v)| TraceInput {
                    name: (*n).to_string(),
                    value: v.clone(),
                })
                .collect(),
            outcome: outcome.to_string(),
        }
    }
}

/// The reference-data entry a decision used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReferenceEntry {
    /// The list: `PSE`, `RGLA`, `MDB`, `institution`, `sovereign`.
    pub list: String,
    /// The key it was found by (a NIF, a LEI, a name, a country).
    pub key: String,
    /// The entry's name.
    pub name: String,
    /// Where the list came from (`built-in`, a file path) and, when the entry gives one, its own
    /// source.
    pub source: String,
    /// The entry's date, when the list gives one.
    pub as_of: String,
}

/// The rule set a decision was taken under.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleSetInfo {
    /// Its id (`EU-CRR3`).
    pub id: String,
    /// First day it applies.
    pub valid_from: Option<NaiveDate>,
    /// Last day it applies.
    pub valid_to: Option<NaiveDate>,
}

/// The path of one decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecisionTrace {
    /// The lever.
    pub lever: Lever,
    /// The rule set.
    pub rule_set: RuleSetInfo,
    /// The reporting date maturities were measured from.
    pub reporting_date: NaiveDate,
    /// The tests, in the order the procedure took them.
    pub steps: Vec<TraceStep>,
    /// The reference-data entries used (the counterparty; its sovereign when one was read).
    pub reference_entries: Vec<ReferenceEntry>,
    /// Match_Status.
    pub status: MatchStatus,
    /// The current weight used, in percent.
    pub current_rw_pct: f64,
    /// The rule's weight before the clamp.
    pub regulatory_rw_pct: Option<f64>,
    /// Suggested_Risk_Weight, in percent.
    pub suggested_rw_pct: f64,
    /// Applied_Rule.
    pub applied_rule: String,
    /// Regulatory_Reference.
    pub regulatory_reference: String,
    /// Match_Details.
    pub details: String,
    /// The decision's flags.
    pub flags: Vec<String>,
}

/// Collects the steps of one evaluation.
#[derive(Debug, Default)]
pub(crate) struct Recorder {
    pub(crate) steps: RefCell<Vec<TraceStep>>,
    pub(crate) entries: RefCell<Vec<ReferenceEntry>>,
}

impl Recorder {
    pub(crate) fn step(&self, s: TraceStep) {
        if let Ok(mut v) = self.steps.try_borrow_mut() {
            v.push(s);
        }
    }

    pub(crate) fn entry(&self, e: ReferenceEntry) {
        if let Ok(mut v) = self.entries.try_borrow_mut()
            && !v.contains(&e)
        {
            v.push(e);
        }
    }
}

/// A percentage as the traces write it (`50%`, `37.5%`).
pub(crate) fn pct_text(v: f64) -> String {
    let r = (v * 10_000.0).round() / 10_000.0;
    format!("{r}%")
}

/// `yes` or `no`.
pub(crate) fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}
