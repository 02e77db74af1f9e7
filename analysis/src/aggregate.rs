//! File aggregates: what the screens and the Q&A agent ask about a file without reading it
//! again. Totals (rows, exposure, RWAs before and after, saving) by match status, applied rule,
//! article, credit quality step, country, currency, maturity bucket and asset class; the top 20
//! savings and exposures; not-matched and error rows by reason; data-quality counts.
//!
//! Computed in the run's one pass: each chunk is totalled in row order on its worker (group keys
//! are looked up in place; a key is copied only the first time a chunk sees it, the top-20 lists
//! reuse their entries' buffers), and the writer merges the chunk totals in file order, so the
//! figures do not depend on the number of threads.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::columns::{FIELD_COUNT, StandardField};
use crate::engine::{Decision, Flags, REASONS};
use crate::model::{ExposureRow, MatchStatus};
use crate::rules::RuleSet;

/// Distinct values tracked one by one per grouping (asset classes, countries, currencies);
/// further values are summed under "(other)".
pub const MAX_GROUP_KEYS: usize = 1000;
/// Rows in each top list.
pub const TOP_ROWS: usize = 20;

/// Totals of one group.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GroupSummary {
    /// The group: an Applied_Rule text (empty when none applied), an asset class, an article, a
    /// status, a CQS, a country, a currency or a maturity bucket.
    pub key: String,
    /// The rule's Regulatory_Reference (rules only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub regulatory_reference: Option<String>,
    /// Rows.
    pub rows: u64,
    /// Matched rows.
    pub matched: u64,
    /// Sum of Exposure_Amount.
    pub exposure_amount: f64,
    /// RWAs before (amount x current weight).
    #[serde(default)]
    pub rwa_before: f64,
    /// RWAs after (amount x suggested weight).
    #[serde(default)]
    pub rwa_after: f64,
    /// Sum of Capital_Saving (RWA reduction).
    pub rwa_saving: f64,
}

/// One row of a top list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TopRow {
    /// The data row (1 = the first row below the header).
    pub row: u64,
    /// Exposure_ID (empty when the file has none).
    pub exposure_id: String,
    /// Exposure_Amount.
    pub exposure_amount: f64,
    /// The current weight used, in percent.
    pub current_rw_pct: f64,
    /// The suggested weight, in percent.
    pub suggested_rw_pct: f64,
    /// Capital_Saving.
    pub capital_saving: f64,
    /// Match_Status.
    pub status: MatchStatus,
    /// Applied_Rule.
    pub applied_rule: String,
}

/// Rows not matched or in error for one reason.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReasonCount {
    /// not_matched or error.
    pub status: MatchStatus,
    /// The reason's key (`nif_not_found`, `missing_nif`, ...; see `engine::REASONS`).
    pub reason: String,
    /// Rows.
    pub rows: u64,
    /// Their Exposure_Amount.
    pub exposure_amount: f64,
}

/// Data-quality counts.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DataQuality {
    /// Blank cells per mapped standard column.
    pub missing: BTreeMap<String, u64>,
    /// Cells that could not be read per mapped standard column (a number that is not one, a
    /// Maturity that is neither a date nor a count, a CQS outside 1 to 6, a date that is not one,
    /// a yes/no that is neither).
    pub unreadable: BTreeMap<String, u64>,
    /// Rows with at least one engine flag (the flags are counted one by one in the summary).
    pub flagged_rows: u64,
}

/// One group of a rule-set comparison: rows that went from one rule (or article) under the
/// run's rule set to one under the compared rule set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComparisonGroup {
    /// Under the run's rule set: the Applied_Rule (or the deciding article); empty when none.
    pub from: String,
    /// Its Regulatory_Reference (rules only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_reference: Option<String>,
    /// Under the compared rule set.
    pub to: String,
    /// Its Regulatory_Reference (rules only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to_reference: Option<String>,
    /// Rows.
    pub rows: u64,
    /// Their Exposure_Amount.
    pub exposure_amount: f64,
    /// Their saving under the run's rule set.
    pub rwa_saving: f64,
    /// Their saving under the compared rule set.
    pub compare_rwa_saving: f64,
    /// `compare_rwa_saving - rwa_saving`.
    pub difference: f64,
}

/// One step of the comparison's waterfall.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WaterfallStep {
    /// What moved: `start`, `from rule -> to rule (articles)`, `end`.
    pub label: String,
    /// The step's change of the saving (the start and end: the savings themselves).
    pub amount: f64,
    /// The saving after the step.
    pub cumulative: f64,
}

/// The same file under a second rule set (`--compare-ruleset`): both savings and what moved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The run's rule set (the output file's).
    pub rule_set: String,
    /// The compared rule set.
    pub compare_rule_set: String,
    /// Rows matched under the compared rule set.
    pub compare_matched: u64,
    /// The total RWA saving under the run's rule set.
    pub rwa_saving: f64,
    /// The total RWA saving under the compared rule set.
    pub compare_rwa_saving: f64,
    /// RWAs after, under the compared rule set.
    pub compare_rwa_after: f64,
    /// `compare_rwa_saving - rwa_saving`.
    pub difference: f64,
    /// By (rule under the run's set, rule under the compared set), largest difference first
    /// (by size), then unchanged groups.
    pub by_rule: Vec<ComparisonGroup>,
    /// By (deciding article under each), the same order.
    pub by_article: Vec<ComparisonGroup>,
    /// From the run's saving to the compared saving, one step per rule pair whose saving
    /// differs (largest first).
    pub waterfall: Vec<WaterfallStep>,
}

/// The file aggregates of a run (the summary's `aggregates`; totals by Applied_Rule and by
/// Asset_Class are the summary's `by_rule` and `by_asset_class`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FileAggregates {
    /// By Match_Status: matched, not_matched, error (in that order).
    pub by_status: Vec<GroupSummary>,
    /// By the article that gave the weight (the last table of the Applied_Rule path, e.g.
    /// `CRR Art. 114(4)` for `PSE_AS_CG > SOV_DOMESTIC`; empty when no rule applied), largest
    /// saving first.
    pub by_article: Vec<GroupSummary>,
    /// By the file's credit quality step: `1` to `6`, `none` (blank or unrated), `invalid`.
    pub by_cqs: Vec<GroupSummary>,
    /// By Country as written (upper case; `(blank)`), largest saving first.
    pub by_country: Vec<GroupSummary>,
    /// By Currency as written (upper case; `(blank)`), largest saving first.
    pub by_currency: Vec<GroupSummary>,
    /// By residual maturity: `past due`, `<= 3 months` (92 days), `3-12 months`, `1-5 years`,
    /// `> 5 years`, `no maturity`.
    pub by_maturity_bucket: Vec<GroupSummary>,
    /// The 20 largest savings (rows with a positive saving), largest first.
    pub top_savings: Vec<TopRow>,
    /// The 20 largest exposures, largest first.
    pub top_exposures: Vec<TopRow>,
    /// Not-matched and error rows by reason, most rows first.
    pub reasons: Vec<ReasonCount>,
    /// Data-quality counts.
    pub data_quality: DataQuality,
}

/// The sums of a group.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Sums {
    rows: u64,
    matched: u64,
    exposure: f64,
    before: f64,
    after: f64,
    saving: f64,
}

/// One row's contribution.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RowVals {
    pub(crate) matched: bool,
    pub(crate) exposure: f64,
    pub(crate) before: f64,
    pub(crate) after: f64,
    pub(crate) saving: f64,
}

impl Sums {
    #[inline]
    fn add(&mut self, v: &RowVals) {
        self.rows += 1;
        self.matched += u64::from(v.matched);
        self.exposure += v.exposure;
        self.before += v.before;
        self.after += v.after;
        self.saving += v.saving;
    }

    fn merge(&mut self, o: &Sums) {
        self.rows += o.rows;
        self.matched += o.matched;
        self.exposure += o.exposure;
        self.before += o.before;
        self.after += o.after;
        self.saving += o.saving;
    }

    fn summary(&self, key: String, reference: Option<String>) -> GroupSummary {
        GroupSummary {
            key,
            regulatory_reference: reference,
            rows: self.rows,
            matched: self.matched,
            exposure_amount: round2(self.exposure),
            rwa_before: round2(self.before),
            rwa_after: round2(self.after),
            rwa_saving: round2(self.saving),
        }
    }
}

/// Largest saving first, then by key.
fn sort_groups(v: &mut [GroupSummary]) {
    v.sort_by(|a, b| {
        b.rwa_saving
            .total_cmp(&a.rwa_saving)
            .then(a.key.cmp(&b.key))
    });
}

/// Rounds to cents.
pub(crate) fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// Adds `sums` under `k`, or under "(other)" when the map is full.
fn put(map: &mut FxHashMap<String, Sums>, k: &str, sums: &Sums) {
    if let Some(a) = map.get_mut(k) {
        a.merge(sums);
        return;
    }
    let k = if map.len() >= MAX_GROUP_KEYS {
        "(other)".to_string()
    } else {
        k.to_string()
    };
    map.entry(k).or_default().merge(sums);
}

/// Totals by a text key, at most [`MAX_GROUP_KEYS`] keys (then "(other)"). Consecutive rows
/// with the same key (the usual case: one country for long runs) are summed in a pending entry
/// and go to the map once per run.
#[derive(Debug, Default)]
pub(crate) struct Groups {
    map: FxHashMap<String, Sums>,
    pending_key: String,
    pending: Sums,
    has_pending: bool,
}

impl Groups {
    /// Adds a row under `key`; copies the key into the map only the first time it is seen.
    #[inline]
    fn add(&mut self, key: &str, v: &RowVals) {
        if self.has_pending && self.pending_key == key {
            self.pending.add(v);
            return;
        }
        self.flush();
        self.pending_key.push_str(key);
        self.pending.add(v);
        self.has_pending = true;
    }

    /// Moves the pending run into the map.
    pub(crate) fn flush(&mut self) {
        if !self.has_pending {
            return;
        }
        self.has_pending = false;
        let p = std::mem::take(&mut self.pending);
        put(&mut self.map, &self.pending_key, &p);
        self.pending_key.clear();
    }

    fn clear(&mut self) {
        self.map.clear();
        self.pending_key.clear();
        self.pending = Sums::default();
        self.has_pending = false;
    }

    /// Adds another's totals (flushed).
    fn merge(&mut self, o: &Groups) {
        self.flush();
        for (k, v) in &o.map {
            put(&mut self.map, k, v);
        }
    }

    /// Largest saving first, then by key.
    pub(crate) fn sorted(&self) -> Vec<GroupSummary> {
        let mut v: Vec<GroupSummary> = self
            .map
            .iter()
            .map(|(k, s)| s.summary(k.clone(), None))
            .collect();
        sort_groups(&mut v);
        v
    }
}

/// Sums of a comparison group.
#[derive(Debug, Default, Clone, Copy)]
struct PairSums {
    rows: u64,
    exposure: f64,
    saving: f64,
    compare_saving: f64,
}

/// Comparison totals by (key under the run's set, key under the compared set).
#[derive(Debug, Default)]
pub(crate) struct PairTotals<K> {
    entries: Vec<((K, K), PairSums)>,
    last: usize,
}

impl<K: Copy + Eq> PairTotals<K> {
    #[inline]
    fn add(&mut self, k: (K, K), exposure: f64, saving: f64, compare_saving: f64) {
        let i = match self.entries.get(self.last) {
            Some(e) if e.0 == k => self.last,
            _ => match self.entries.iter().position(|e| e.0 == k) {
                Some(i) => i,
                None => {
                    self.entries.push((k, PairSums::default()));
                    self.entries.len() - 1
                }
            },
        };
        self.last = i;
        let e = &mut self.entries[i].1;
        e.rows += 1;
        e.exposure += exposure;
        e.saving += saving;
        e.compare_saving += compare_saving;
    }

    fn merge(&mut self, o: &PairTotals<K>) {
        for (k, v) in &o.entries {
            match self.entries.iter_mut().find(|e| e.0 == *k) {
                Some(e) => {
                    e.1.rows += v.rows;
                    e.1.exposure += v.exposure;
                    e.1.saving += v.saving;
                    e.1.compare_saving += v.compare_saving;
                }
                None => self.entries.push((*k, *v)),
            }
        }
    }

    fn clear(&mut self) {
        self.entries.clear();
        self.last = 0;
    }
}

/// The totals of the compared rule set.
#[derive(Debug, Default)]
pub(crate) struct CompareTotals {
    matched: u64,
    saving: f64,
    rwa_after: f64,
    by_rule: PairTotals<u64>,
    by_article: PairTotals<u16>,
}

impl CompareTotals {
    fn reset(&mut self) {
        self.matched = 0;
        self.saving = 0.0;
        self.rwa_after = 0.0;
        self.by_rule.clear();
        self.by_article.clear();
    }

    fn merge(&mut self, o: &CompareTotals) {
        self.matched += o.matched;
        self.saving += o.saving;
        self.rwa_after += o.rwa_after;
        self.by_rule.merge(&o.by_rule);
        self.by_article.merge(&o.by_article);
    }

    /// Adds one row's decisions under both rule sets.
    #[inline]
    pub(crate) fn account(
        &mut self,
        d: &Decision<'_>,
        d2: &Decision<'_>,
        er: &ExposureRow<'_>,
        saving: f64,
        saving2: f64,
    ) {
        let amt = er
            .exposure_amount
            .filter(|a| a.is_finite() && *a >= 0.0)
            .unwrap_or(0.0);
        self.matched += u64::from(d2.status == MatchStatus::Matched);
        self.saving += saving2;
        self.rwa_after += amt * d2.suggested_rw_pct / 100.0;
        self.by_rule.add(
            (d.applied_rule.key(), d2.applied_rule.key()),
            amt,
            saving,
            saving2,
        );
        self.by_article.add(
            (
                d.regulatory_reference.decisive_index().unwrap_or(u16::MAX),
                d2.regulatory_reference.decisive_index().unwrap_or(u16::MAX),
            ),
            amt,
            saving,
            saving2,
        );
    }

    /// The comparison for the summary; `saving` is the run's total saving.
    pub(crate) fn comparison(&self, rules: &RuleSet, compare: &RuleSet, saving: f64) -> Comparison {
        let group = |from: (String, Option<String>), to: (String, Option<String>), s: &PairSums| {
            ComparisonGroup {
                from: from.0,
                from_reference: from.1,
                to: to.0,
                to_reference: to.1,
                rows: s.rows,
                exposure_amount: round2(s.exposure),
                rwa_saving: round2(s.saving),
                compare_rwa_saving: round2(s.compare_saving),
                difference: round2(s.compare_saving - s.saving),
            }
        };
        let order = |v: &mut Vec<ComparisonGroup>| {
            v.sort_by(|a, b| {
                b.difference
                    .abs()
                    .total_cmp(&a.difference.abs())
                    .then(a.from.cmp(&b.from))
                    .then(a.to.cmp(&b.to))
            });
        };
        let mut by_rule: Vec<ComparisonGroup> = self
            .by_rule
            .entries
            .iter()
            .map(|((a, b), s)| {
                let (ra, fa) = rule_texts(rules, *a);
                let (rb, fb) = rule_texts(compare, *b);
                group((ra, Some(fa)), (rb, Some(fb)), s)
            })
            .collect();
        order(&mut by_rule);
        // Tables sharing an article are one group.
        let mut arts: BTreeMap<(&str, &str), PairSums> = BTreeMap::new();
        for ((a, b), s) in &self.by_article.entries {
            let ta = rules
                .tables()
                .get(usize::from(*a))
                .map_or("", |t| t.reference());
            let tb = compare
                .tables()
                .get(usize::from(*b))
                .map_or("", |t| t.reference());
            let e = arts.entry((ta, tb)).or_default();
            e.rows += s.rows;
            e.exposure += s.exposure;
            e.saving += s.saving;
            e.compare_saving += s.compare_saving;
        }
        let mut by_article: Vec<ComparisonGroup> = arts
            .into_iter()
            .map(|((a, b), s)| group((a.to_string(), None), (b.to_string(), None), &s))
            .collect();
        order(&mut by_article);
        let start = round2(saving);
        let mut waterfall = vec![WaterfallStep {
            label: format!("saving under {}", rules.id()),
            amount: start,
            cumulative: start,
        }];
        let mut cum = start;
        for g in by_rule.iter().filter(|g| g.difference != 0.0) {
            cum = round2(cum + g.difference);
            let side = |r: &str, f: &Option<String>| {
                if r.is_empty() {
                    "no rule".to_string()
                } else {
                    format!("{r} ({})", f.as_deref().unwrap_or(""))
                }
            };
            waterfall.push(WaterfallStep {
                label: format!(
                    "{} -> {}",
                    side(&g.from, &g.from_reference),
                    side(&g.to, &g.to_reference)
                ),
                amount: g.difference,
                cumulative: cum,
            });
        }
        let end = round2(self.saving);
        waterfall.push(WaterfallStep {
            label: format!("saving under {}", compare.id()),
            amount: end,
            cumulative: end,
        });
        Comparison {
            rule_set: rules.id().to_string(),
            compare_rule_set: compare.id().to_string(),
            compare_matched: self.matched,
            rwa_saving: start,
            compare_rwa_saving: end,
            compare_rwa_after: round2(self.rwa_after),
            difference: round2(self.saving - saving),
            by_rule,
            by_article,
            waterfall,
        }
    }
}

/// Totals by a small integer key (a rule path, a table): a short list searched from the last
/// key used, so consecutive rows of the same rule cost one comparison.
#[derive(Debug, Default)]
pub(crate) struct KeyedSums<K> {
    entries: Vec<(K, Sums)>,
    last: usize,
}

impl<K: Copy + Eq> KeyedSums<K> {
    #[inline]
    fn add(&mut self, k: K, v: &RowVals) {
        if let Some(e) = self.entries.get_mut(self.last)
            && e.0 == k
        {
            e.1.add(v);
            return;
        }
        match self.entries.iter().position(|e| e.0 == k) {
            Some(i) => {
                self.last = i;
                self.entries[i].1.add(v);
            }
            None => {
                let mut sums = Sums::default();
                sums.add(v);
                self.entries.push((k, sums));
                self.last = self.entries.len() - 1;
            }
        }
    }

    fn merge(&mut self, o: &KeyedSums<K>) {
        for (k, v) in &o.entries {
            match self.entries.iter_mut().find(|e| e.0 == *k) {
                Some(e) => e.1.merge(v),
                None => self.entries.push((*k, *v)),
            }
        }
    }

    fn clear(&mut self) {
        self.entries.clear();
        self.last = 0;
    }
}

/// The Applied_Rule text and Regulatory_Reference of a rule path key
/// ([`crate::engine::AppliedRule::key`]).
fn rule_texts(rules: &RuleSet, key: u64) -> (String, String) {
    let (mut ids, mut refs) = (Vec::new(), Vec::new());
    for shift in [0, 16, 32] {
        let i = ((key >> shift) & 0xFFFF) as usize;
        if let Some(t) = rules.tables().get(i) {
            ids.push(t.id());
            refs.push(t.reference());
        }
    }
    (ids.join(" > "), refs.join("; "))
}

/// An entry of a top list; its strings are reused when the entry is replaced.
#[derive(Debug, Default, Clone)]
struct TopEntry {
    value: f64,
    row: u64,
    exposure_id: String,
    amount: f64,
    current: f64,
    suggested: f64,
    saving: f64,
    status: Option<MatchStatus>,
    rule: String,
}

impl TopEntry {
    /// True when `self` ranks before (value, row).
    #[inline]
    fn beats(&self, value: f64, row: u64) -> bool {
        self.value > value || (self.value == value && self.row < row)
    }
}

/// The [`TOP_ROWS`] largest values, ties to the earlier row: a total order, so the result does
/// not depend on how the file was cut into chunks.
#[derive(Debug, Default)]
struct TopK {
    entries: Vec<TopEntry>,
    len: usize,
    /// Index of the smallest entry when full.
    min: usize,
}

impl TopK {
    fn reset(&mut self) {
        self.len = 0;
        self.min = 0;
    }

    /// Whether (value, row) enters the list (rows are distinct, so there is no tie).
    #[inline]
    fn wants(&self, value: f64, row: u64) -> bool {
        self.len < TOP_ROWS || !self.entries[self.min].beats(value, row)
    }

    /// The slot to fill for (value, row); call only when [`TopK::wants`].
    fn slot(&mut self) -> &mut TopEntry {
        if self.len < TOP_ROWS {
            if self.entries.len() <= self.len {
                self.entries.push(TopEntry::default());
            }
            self.len += 1;
            let i = self.len - 1;
            &mut self.entries[i]
        } else {
            let i = self.min;
            &mut self.entries[i]
        }
    }

    fn fix_min(&mut self) {
        if self.len < TOP_ROWS {
            return;
        }
        let mut m = 0;
        for i in 1..self.len {
            if self.entries[m].beats(self.entries[i].value, self.entries[i].row) {
                m = i;
            }
        }
        self.min = m;
    }

    fn merge(&mut self, o: &TopK, row_offset: u64) {
        for e in &o.entries[..o.len] {
            let row = e.row + row_offset;
            if self.wants(e.value, row) {
                let s = self.slot();
                s.clone_from(e);
                s.row = row;
                self.fix_min();
            }
        }
    }

    fn sorted(&self) -> Vec<TopRow> {
        let mut v: Vec<&TopEntry> = self.entries[..self.len].iter().collect();
        v.sort_by(|a, b| b.value.total_cmp(&a.value).then(a.row.cmp(&b.row)));
        v.into_iter()
            .map(|e| TopRow {
                row: e.row + 1,
                exposure_id: e.exposure_id.clone(),
                exposure_amount: e.amount,
                current_rw_pct: e.current,
                suggested_rw_pct: e.suggested,
                capital_saving: round2(e.saving),
                status: e.status.unwrap_or(MatchStatus::Matched),
                applied_rule: e.rule.clone(),
            })
            .collect()
    }
}

/// Maturity values by form.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct MaturityForms {
    pub(crate) dates: u64,
    pub(crate) numbers: u64,
    pub(crate) with_unit: u64,
    pub(crate) blank: u64,
    pub(crate) unreadable: u64,
}

impl MaturityForms {
    fn merge(&mut self, o: &MaturityForms) {
        self.dates += o.dates;
        self.numbers += o.numbers;
        self.with_unit += o.with_unit;
        self.blank += o.blank;
        self.unreadable += o.unreadable;
    }
}

const CQS_KEYS: [&str; 8] = ["none", "1", "2", "3", "4", "5", "6", "invalid"];
const BUCKETS: [&str; 6] = [
    "past due",
    "<= 3 months",
    "3-12 months",
    "1-5 years",
    "> 5 years",
    "no maturity",
];
const STATUSES: [MatchStatus; 3] = [
    MatchStatus::Matched,
    MatchStatus::NotMatched,
    MatchStatus::Error,
];

fn status_index(s: MatchStatus) -> usize {
    match s {
        MatchStatus::Matched => 0,
        MatchStatus::NotMatched => 1,
        MatchStatus::Error => 2,
    }
}

/// The totals of a chunk, then of the run.
#[derive(Debug, Default)]
pub(crate) struct Totals {
    pub(crate) rows: u64,
    pub(crate) matched: u64,
    pub(crate) not_matched: u64,
    pub(crate) errors: u64,
    pub(crate) exposure: f64,
    pub(crate) rwa_before: f64,
    pub(crate) rwa_after: f64,
    pub(crate) saving: f64,
    by_rule: KeyedSums<u64>,
    pub(crate) by_class: Groups,
    by_article: KeyedSums<u16>,
    by_country: Groups,
    by_currency: Groups,
    by_status: [Sums; 3],
    by_cqs: [Sums; 8],
    by_bucket: [Sums; 6],
    reasons: [[(u64, f64); REASONS.len()]; 3],
    top_savings: TopK,
    top_exposures: TopK,
    /// Rows per flag bit.
    flags: [u64; 16],
    pub(crate) flagged_rows: u64,
    pub(crate) missing: [u64; FIELD_COUNT],
    pub(crate) unreadable: [u64; FIELD_COUNT],
    pub(crate) maturity: MaturityForms,
    /// Under the compared rule set, when the run compares.
    pub(crate) compare: CompareTotals,
}

/// Scratch buffers of a worker.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    pub(crate) text: String,
}

/// `s` trimmed and upper-cased (written into `out` when it was not already), or `(blank)`.
#[inline]
fn upper_key<'k>(out: &'k mut String, s: &'k str) -> &'k str {
    let s = s.trim_ascii();
    if s.is_empty() {
        return "(blank)";
    }
    if !s.bytes().any(|b| b.is_ascii_lowercase() || b >= 0x80) {
        return s;
    }
    out.clear();
    for c in s.chars() {
        out.extend(c.to_uppercase());
    }
    out.as_str()
}

impl Totals {
    /// Empties the totals, keeping the maps' capacity and the top lists' buffers.
    pub(crate) fn reset(&mut self) {
        self.rows = 0;
        self.matched = 0;
        self.not_matched = 0;
        self.errors = 0;
        self.exposure = 0.0;
        self.rwa_before = 0.0;
        self.rwa_after = 0.0;
        self.saving = 0.0;
        self.by_rule.clear();
        self.by_article.clear();
        for g in [
            &mut self.by_class,
            &mut self.by_country,
            &mut self.by_currency,
        ] {
            g.clear();
        }
        self.by_status = [Sums::default(); 3];
        self.by_cqs = [Sums::default(); 8];
        self.by_bucket = [Sums::default(); 6];
        self.reasons = [[(0, 0.0); REASONS.len()]; 3];
        self.top_savings.reset();
        self.top_exposures.reset();
        self.flags = [0; 16];
        self.flagged_rows = 0;
        self.missing = [0; FIELD_COUNT];
        self.unreadable = [0; FIELD_COUNT];
        self.maturity = MaturityForms::default();
        self.compare.reset();
    }

    /// Ends a chunk: the groups' pending runs go to their maps.
    pub(crate) fn flush(&mut self) {
        for g in [
            &mut self.by_class,
            &mut self.by_country,
            &mut self.by_currency,
        ] {
            g.flush();
        }
    }

    /// Adds a chunk's totals (flushed); `row_offset` is the number of data rows before the
    /// chunk.
    pub(crate) fn merge(&mut self, o: &Totals, row_offset: u64) {
        self.rows += o.rows;
        self.matched += o.matched;
        self.not_matched += o.not_matched;
        self.errors += o.errors;
        self.exposure += o.exposure;
        self.rwa_before += o.rwa_before;
        self.rwa_after += o.rwa_after;
        self.saving += o.saving;
        self.by_rule.merge(&o.by_rule);
        self.by_class.merge(&o.by_class);
        self.by_article.merge(&o.by_article);
        self.by_country.merge(&o.by_country);
        self.by_currency.merge(&o.by_currency);
        for (a, b) in self.by_status.iter_mut().zip(&o.by_status) {
            a.merge(b);
        }
        for (a, b) in self.by_cqs.iter_mut().zip(&o.by_cqs) {
            a.merge(b);
        }
        for (a, b) in self.by_bucket.iter_mut().zip(&o.by_bucket) {
            a.merge(b);
        }
        for (a, b) in self.reasons.iter_mut().zip(&o.reasons) {
            for (x, y) in a.iter_mut().zip(b) {
                x.0 += y.0;
                x.1 += y.1;
            }
        }
        self.top_savings.merge(&o.top_savings, row_offset);
        self.top_exposures.merge(&o.top_exposures, row_offset);
        for (a, b) in self.flags.iter_mut().zip(&o.flags) {
            *a += b;
        }
        self.flagged_rows += o.flagged_rows;
        for (a, b) in self.missing.iter_mut().zip(&o.missing) {
            *a += b;
        }
        for (a, b) in self.unreadable.iter_mut().zip(&o.unreadable) {
            *a += b;
        }
        self.maturity.merge(&o.maturity);
        self.compare.merge(&o.compare);
    }

    /// Adds one decision. `row` is the row's index in its chunk. Allocates nothing once the
    /// chunk has seen the row's keys and the top lists are warm.
    pub(crate) fn account(
        &mut self,
        s: &mut Scratch,
        d: &Decision<'_>,
        er: &ExposureRow<'_>,
        saving: f64,
        row: u64,
    ) {
        let t = self;
        t.rows += 1;
        let matched = d.status == MatchStatus::Matched;
        match d.status {
            MatchStatus::Matched => t.matched += 1,
            MatchStatus::NotMatched => t.not_matched += 1,
            MatchStatus::Error => t.errors += 1,
        }
        // A negative amount is an error row and counts for nothing.
        let amt = er
            .exposure_amount
            .filter(|a| a.is_finite() && *a >= 0.0)
            .unwrap_or(0.0);
        let v = RowVals {
            matched,
            exposure: amt,
            before: amt * d.current_rw_pct / 100.0,
            after: amt * d.suggested_rw_pct / 100.0,
            saving,
        };
        t.exposure += v.exposure;
        t.rwa_before += v.before;
        t.rwa_after += v.after;
        t.saving += v.saving;

        t.by_rule.add(d.applied_rule.key(), &v);
        let class = er.asset_class.trim_ascii();
        t.by_class
            .add(if class.is_empty() { "(blank)" } else { class }, &v);
        t.by_article.add(
            d.regulatory_reference.decisive_index().unwrap_or(u16::MAX),
            &v,
        );
        t.by_country.add(upper_key(&mut s.text, er.country), &v);
        t.by_currency.add(upper_key(&mut s.text, er.currency), &v);

        let si = status_index(d.status);
        t.by_status[si].add(&v);
        let ci = match er.cqs {
            _ if !er.invalid_cqs.is_empty() => 7,
            Some(c @ 1..=6) => usize::from(c),
            Some(_) => 7,
            None => 0,
        };
        t.by_cqs[ci].add(&v);
        let bucket = match er.residual_maturity_days.filter(|d| d.is_finite()) {
            None => 5,
            Some(x) if x < 0.0 => 0,
            Some(x) if x <= crate::engine::SHORT_TERM_MAX_DAYS => 1,
            Some(x) if x <= 366.0 => 2,
            Some(x) if x <= 5.0 * 365.25 => 3,
            Some(_) => 4,
        };
        t.by_bucket[bucket].add(&v);
        if !matched {
            let r = &mut t.reasons[si][d.details.reason_index()];
            r.0 += 1;
            r.1 += amt;
        }

        if saving > 0.0 && t.top_savings.wants(saving, row) {
            fill(t.top_savings.slot(), saving, row, d, er, amt, saving);
            t.top_savings.fix_min();
        }
        if er.exposure_amount.is_some() && t.top_exposures.wants(amt, row) {
            fill(t.top_exposures.slot(), amt, row, d, er, amt, saving);
            t.top_exposures.fix_min();
        }

        if !d.flags.is_empty() {
            t.flagged_rows += 1;
            let mut bits = d.flags.bits();
            while bits != 0 {
                t.flags[bits.trailing_zeros() as usize] += 1;
                bits &= bits - 1;
            }
        }
    }

    /// Rows per flag name.
    pub(crate) fn flag_counts(&self) -> BTreeMap<String, u64> {
        (0u32..16)
            .filter(|&b| self.flags[b as usize] > 0)
            .filter_map(|b| Flags::name_of_bit(b).map(|n| (n.to_string(), self.flags[b as usize])))
            .collect()
    }

    /// Totals by Applied_Rule (with its Regulatory_Reference), largest saving first.
    pub(crate) fn by_rule(&self, rules: &RuleSet) -> Vec<GroupSummary> {
        let mut v: Vec<GroupSummary> = self
            .by_rule
            .entries
            .iter()
            .map(|(k, sums)| {
                let (rule, reference) = rule_texts(rules, *k);
                sums.summary(rule, Some(reference))
            })
            .collect();
        sort_groups(&mut v);
        v
    }

    /// The aggregates for the summary.
    pub(crate) fn aggregates(&self, rules: &RuleSet) -> FileAggregates {
        let fixed = |sums: &[Sums], keys: &[&str]| -> Vec<GroupSummary> {
            sums.iter()
                .zip(keys)
                .filter(|(s, _)| s.rows > 0)
                .map(|(s, k)| s.summary(k.to_string(), None))
                .collect()
        };
        let mut reasons: Vec<ReasonCount> = Vec::new();
        for (si, per) in self.reasons.iter().enumerate() {
            for (ri, (rows, exposure)) in per.iter().enumerate() {
                if *rows > 0 {
                    reasons.push(ReasonCount {
                        status: STATUSES[si],
                        reason: REASONS[ri].to_string(),
                        rows: *rows,
                        exposure_amount: round2(*exposure),
                    });
                }
            }
        }
        reasons.sort_by(|a, b| b.rows.cmp(&a.rows).then(a.reason.cmp(&b.reason)));
        let per_field = |counts: &[u64; FIELD_COUNT]| -> BTreeMap<String, u64> {
            StandardField::all()
                .filter(|f| counts[f.index()] > 0)
                .map(|f| (f.name().to_string(), counts[f.index()]))
                .collect()
        };
        let status_keys: Vec<&str> = STATUSES.iter().map(|s| s.as_str()).collect();
        FileAggregates {
            by_status: fixed(&self.by_status, &status_keys),
            by_article: {
                // Tables that share an article are one group.
                let mut by_text: BTreeMap<&str, Sums> = BTreeMap::new();
                for (i, sums) in &self.by_article.entries {
                    let text = rules
                        .tables()
                        .get(usize::from(*i))
                        .map_or("", |t| t.reference());
                    by_text.entry(text).or_default().merge(sums);
                }
                let mut v: Vec<GroupSummary> = by_text
                    .into_iter()
                    .map(|(k, s)| s.summary(k.to_string(), None))
                    .collect();
                sort_groups(&mut v);
                v
            },
            by_cqs: fixed(&self.by_cqs, &CQS_KEYS),
            by_country: self.by_country.sorted(),
            by_currency: self.by_currency.sorted(),
            by_maturity_bucket: fixed(&self.by_bucket, &BUCKETS),
            top_savings: self.top_savings.sorted(),
            top_exposures: self.top_exposures.sorted(),
            reasons,
            data_quality: DataQuality {
                missing: per_field(&self.missing),
                unreadable: per_field(&self.unreadable),
                flagged_rows: self.flagged_rows,
            },
        }
    }
}

/// Fills a top-list entry, reusing its strings.
fn fill(
    e: &mut TopEntry,
    value: f64,
    row: u64,
    d: &Decision<'_>,
    er: &ExposureRow<'_>,
    amt: f64,
    saving: f64,
) {
    e.value = value;
    e.row = row;
    e.exposure_id.clear();
    e.exposure_id.push_str(er.exposure_id);
    e.amount = amt;
    e.current = d.current_rw_pct;
    e.suggested = d.suggested_rw_pct;
    e.saving = saving;
    e.status = Some(d.status);
    e.rule.clear();
    d.applied_rule.write_to(&mut e.rule);
}
