//! The built-in engine: answers the Q&A chips (total exposures, key findings, main risk factors,
//! optimisation opportunities), their variants and questions naming an exposure, from the
//! figures of a [`QaContext`] only. Deterministic and offline; what the figures cannot answer it
//! says so. Replies use the spec's format: numbered headers, bullets and `Key: value` lines.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use analysis::aggregate::{GroupSummary, TopRow};

use super::{AiError, AiProvider, ExposureData, FileData, KnowledgeData, Progress, QaContext};
use crate::service::qa::facts::RunFacts;

/// Rows listed at most in a ranking (top savings, concentrations).
const TOP: usize = 3;

/// The built-in engine.
#[derive(Debug, Clone, Copy, Default)]
pub struct Builtin;

#[async_trait::async_trait]
impl AiProvider for Builtin {
    fn name(&self) -> &'static str {
        "builtin"
    }

    async fn answer(
        &self,
        question: &str,
        ctx: &QaContext,
        _progress: Progress<'_>,
    ) -> Result<String, AiError> {
        Ok(answer(question, ctx))
    }

    async fn extract_levers(
        &self,
        doc: &super::ExtractionInput,
    ) -> Result<Vec<crate::knowledge::levers::ExtractedLever>, AiError> {
        Ok(crate::knowledge::levers::propose(&doc.blocks))
    }

    async fn write_section(
        &self,
        req: &super::sections::SectionRequest,
        ctx: &QaContext,
        _progress: Progress<'_>,
    ) -> Result<String, AiError> {
        super::sections::write(req, ctx)
    }
}

/// What a question asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Intent {
    /// Count, amount, by asset class.
    Totals,
    /// Savings, matched share, biggest savings.
    Findings,
    /// Concentrations, unmatched and flagged rows.
    Risks,
    /// Missing fields, entities not in the reference data.
    Opportunities,
    /// What the regulation says: answered from the knowledge base.
    Regulatory,
}

/// Whether a question asks what the regulation says (the knowledge base answers it).
pub fn is_regulatory(question: &str) -> bool {
    let q = format!(" {} ", question.to_lowercase());
    has(
        &q,
        &[
            "article",
            " art.",
            " art ",
            " crr",
            "regulation",
            "regulatory",
            "basel",
            " eba ",
            "directive",
            "legal basis",
            "which rule",
            "what rule",
            "the rule",
            "the law",
        ],
    )
}

fn has(q: &str, words: &[&str]) -> bool {
    words.iter().any(|w| q.contains(w))
}

/// The intents of a question (none: a question the engine cannot answer, unless it names an
/// exposure).
pub fn intents(question: &str) -> Vec<Intent> {
    let q = question.to_lowercase();
    let mut out = Vec::new();
    if has(
        &q,
        &[
            "finding",
            "summar",
            "overview",
            "saving",
            "result",
            "matched share",
            "highlight",
        ],
    ) {
        out.push(Intent::Findings);
    }
    if has(
        &q,
        &[
            "risk",
            "concentrat",
            "countr",
            "cqs",
            "credit quality",
            "maturit",
            "unmatched",
            "not matched",
            "flag",
            "counterpart",
        ],
    ) {
        out.push(Intent::Risks);
    }
    if has(
        &q,
        &[
            "opportunit",
            "optimi",
            "improv",
            "reduce",
            "lower",
            "missing",
            "reference data",
        ],
    ) {
        out.push(Intent::Opportunities);
    }
    if has(
        &q,
        &[
            "total",
            "how many",
            "amount",
            "asset class",
            "number of",
            "size",
            "portfolio",
        ],
    ) || (out.is_empty() && q.contains("exposure") && !is_regulatory(question))
    {
        out.push(Intent::Totals);
    }
    if is_regulatory(question) {
        // What the regulation says, and the client's figures only when it asks about them too.
        let own = format!(" {q} ");
        if !has(
            &own,
            &[
                " my ",
                " our ",
                "file",
                "portfolio",
                "these exposures",
                "this exposure",
            ],
        ) {
            out.clear();
        }
        out.push(Intent::Regulatory);
    }
    out.sort();
    out.dedup();
    out
}

/// `1234567.891` as `1,234,567.89`.
pub fn num(x: f64) -> String {
    let s = format!("{:.2}", x.abs());
    let (int, frac) = s.split_once('.').unwrap_or((&s, "00"));
    let mut grouped = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    format!("{}{grouped}.{frac}", if x < 0.0 { "-" } else { "" })
}

/// A count with thousands separators.
pub fn count(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `1 exposure`, `2 exposures`.
pub fn exposures(n: u64) -> String {
    if n == 1 {
        "1 exposure".to_string()
    } else {
        format!("{} exposures", count(n))
    }
}

/// An amount in euros.
pub fn eur(x: f64) -> String {
    format!("EUR {}", num(x))
}

/// `part` of `whole` in percent, two decimals (`-` without a whole).
pub fn share(part: f64, whole: f64) -> String {
    if whole.abs() < f64::EPSILON {
        "-".into()
    } else {
        format!("{:.2}%", part / whole * 100.0)
    }
}

/// The figures of all the context's files together.
#[derive(Debug, Default)]
struct Totals {
    files: usize,
    rows: u64,
    matched: u64,
    not_matched: u64,
    errors: u64,
    saving: f64,
    bps: f64,
    /// Files whose run kept its breakdowns.
    with_facts: usize,
    exposure: f64,
    rwa_before: f64,
    rwa_after: f64,
}

fn totals(files: &[FileData]) -> Totals {
    let mut t = Totals {
        files: files.len(),
        ..Totals::default()
    };
    for f in files {
        t.rows += f.result.rows;
        t.matched += f.result.matched;
        t.not_matched += f.result.not_matched;
        t.errors += f.result.errors;
        t.saving += f.result.savings_rwas;
        t.bps += f.result.savings_bps;
        if let Some(x) = &f.facts {
            t.with_facts += 1;
            t.exposure += x.total_exposure;
            t.rwa_before += x.rwa_before;
            t.rwa_after += x.rwa_after;
        }
    }
    t
}

/// Groups of every file's breakdown merged by key, largest exposure amount first.
fn merged(
    files: &[FileData],
    pick: impl Fn(&super::RunFacts) -> &Vec<GroupSummary>,
) -> Vec<GroupSummary> {
    let mut by: BTreeMap<String, GroupSummary> = BTreeMap::new();
    for f in files {
        let Some(x) = &f.facts else { continue };
        for g in pick(x) {
            let e = by.entry(g.key.clone()).or_insert_with(|| GroupSummary {
                key: g.key.clone(),
                ..GroupSummary::default()
            });
            e.rows += g.rows;
            e.matched += g.matched;
            e.exposure_amount += g.exposure_amount;
            e.rwa_before += g.rwa_before;
            e.rwa_after += g.rwa_after;
            e.rwa_saving += g.rwa_saving;
            if e.regulatory_reference.is_none() {
                e.regulatory_reference = g.regulatory_reference.clone();
            }
        }
    }
    let mut v: Vec<GroupSummary> = by.into_values().filter(|g| g.rows > 0).collect();
    v.sort_by(|a, b| {
        b.exposure_amount
            .total_cmp(&a.exposure_amount)
            .then_with(|| a.key.cmp(&b.key))
    });
    v
}

fn group_key(k: &str) -> &str {
    if k.is_empty() { "(none)" } else { k }
}

/// The reasons of not-matched and error rows, in words.
pub fn reason_text(reason: &str) -> &'static str {
    match reason {
        "missing_fields" => "required fields are blank",
        "missing_nif" => "the NIF is blank",
        "missing_lei_and_name" => "neither LEI nor name is given",
        "invalid_nif" => "the NIF's check character is wrong",
        "invalid_lei" => "the LEI's check digits are wrong",
        "reference_empty" => "the reference data of the lever is empty",
        "nif_not_found" => "the NIF is not in the reference data",
        "mdb_not_found" => "the bank is not in the multilateral development bank list",
        "ambiguous_name" => "the name matches more than one entity",
        "country_not_found" => "the country is not in the reference data",
        "no_analysis_function" => "the lever has no analysis",
        "not_corporate" => "the counterparty is not a corporate",
        "institution_unassessed" => "the institution has no assessment",
        "spec_generic_not_applicable" => "no generic rule applies",
        "invalid_current_rw" => "the current risk weight cannot be read",
        "invalid_amount" => "the exposure amount cannot be read",
        "invalid_cqs" => "the credit quality step is not 1 to 6",
        "no_rule" => "no rule applies",
        _ => "other reasons",
    }
}

/// The reasons whose rows are entities the reference data does not hold.
const NOT_IN_REFERENCE: [&str; 4] = [
    "nif_not_found",
    "mdb_not_found",
    "country_not_found",
    "institution_unassessed",
];

struct Writer {
    out: String,
    n: usize,
}

impl Writer {
    fn header(&mut self, title: &str) {
        self.n += 1;
        if !self.out.is_empty() {
            self.out.push('\n');
        }
        let _ = writeln!(self.out, "{}. {title}", self.n);
    }
    fn kv(&mut self, key: &str, value: &str) {
        let _ = writeln!(self.out, "- {key}: {value}");
    }
    fn bullet(&mut self, text: &str) {
        let _ = writeln!(self.out, "- {text}");
    }
}

fn scope_line(w: &mut Writer, ctx: &QaContext) {
    match &ctx.focus {
        Some(f) => w.kv("Scope", &format!("the file {f}")),
        None => w.kv(
            "Scope",
            &format!(
                "all files of {} with a completed analysis ({})",
                ctx.client_name,
                ctx.files.len()
            ),
        ),
    }
}

fn without_facts(w: &mut Writer, files: &[FileData]) {
    let old: Vec<&str> = files
        .iter()
        .filter(|f| f.facts.is_none())
        .map(|f| f.file_name.as_str())
        .collect();
    if !old.is_empty() {
        w.bullet(&format!(
            "Not included in the breakdowns: {} (analysed before breakdowns were kept; \
             process it again to include it)",
            old.join(", ")
        ));
    }
}

fn section_totals(w: &mut Writer, ctx: &QaContext) {
    let t = totals(&ctx.files);
    w.header("Total exposures");
    scope_line(w, ctx);
    w.kv("Files analysed", &count(t.files as u64));
    w.kv("Exposures", &count(t.rows));
    if t.with_facts > 0 {
        w.kv("Total exposure amount", &eur(t.exposure));
        w.kv("RWAs before optimisation", &eur(t.rwa_before));
    }
    w.kv(
        "Matched exposures",
        &format!(
            "{} ({})",
            count(t.matched),
            share(t.matched as f64, t.rows as f64)
        ),
    );
    if ctx.files.len() > 1 {
        for f in &ctx.files {
            match &f.facts {
                Some(x) => w.bullet(&format!(
                    "{}: {}, {}",
                    f.file_name,
                    exposures(x.rows),
                    eur(x.total_exposure)
                )),
                None => w.bullet(&format!("{}: {}", f.file_name, exposures(f.result.rows))),
            }
        }
    }
    w.header("Exposures by asset class");
    let classes = merged(&ctx.files, |x| &x.by_asset_class);
    if classes.is_empty() || classes.iter().all(|g| g.key == "(blank)") {
        w.bullet("The files give no asset class for their exposures.");
    } else {
        for g in &classes {
            w.kv(
                group_key(&g.key),
                &format!(
                    "{}, {} ({})",
                    exposures(g.rows),
                    eur(g.exposure_amount),
                    share(g.exposure_amount, t.exposure)
                ),
            );
        }
    }
    without_facts(w, &ctx.files);
}

fn section_findings(w: &mut Writer, ctx: &QaContext) {
    let t = totals(&ctx.files);
    w.header("Key findings");
    scope_line(w, ctx);
    w.kv("RWA reduction", &eur(t.saving));
    if t.bps.abs() > 0.0 {
        w.kv("CET1 impact", &format!("{:.2} bps", t.bps));
    } else {
        w.kv(
            "CET1 impact",
            "not computed (the client's official CET1 figures are not set, or there is no saving)",
        );
    }
    if t.with_facts > 0 {
        w.kv("RWAs before", &eur(t.rwa_before));
        w.kv("RWAs after", &eur(t.rwa_after));
    }
    w.kv(
        "Matched exposures",
        &format!(
            "{} of {} ({})",
            count(t.matched),
            count(t.rows),
            share(t.matched as f64, t.rows as f64)
        ),
    );
    w.kv("Not matched", &count(t.not_matched));
    w.kv("In error", &count(t.errors));
    w.header("Biggest savings");
    let top = largest(
        &ctx.files,
        |x| &x.aggregates.top_savings,
        |r| r.capital_saving,
    );
    if top.is_empty() {
        w.bullet("No exposure has a saving.");
    }
    for (file, r) in top.iter().take(TOP) {
        w.bullet(&format!(
            "{} ({file}, row {}): {} RWA reduction, risk weight {:.2}% to {:.2}% ({})",
            row_id(r),
            r.row,
            eur(r.capital_saving),
            r.current_rw_pct,
            r.suggested_rw_pct,
            r.applied_rule
        ));
    }
    let rules = merged(&ctx.files, |x| &x.by_rule);
    let mut rules: Vec<&GroupSummary> = rules.iter().filter(|g| g.rwa_saving > 0.0).collect();
    rules.sort_by(|a, b| b.rwa_saving.total_cmp(&a.rwa_saving));
    if !rules.is_empty() {
        w.header("Savings by rule");
        for g in rules.iter().take(TOP) {
            w.kv(
                &g.key,
                &format!(
                    "{}, {} RWA reduction{}",
                    exposures(g.rows),
                    eur(g.rwa_saving),
                    g.regulatory_reference
                        .as_deref()
                        .map(|r| format!(" ({r})"))
                        .unwrap_or_default()
                ),
            );
        }
    }
    without_facts(w, &ctx.files);
}

/// The kept top rows of every file (`pick`), each with its file's name, largest `by` first.
fn largest<'a>(
    files: &'a [FileData],
    pick: impl Fn(&'a RunFacts) -> &'a Vec<TopRow>,
    by: impl Fn(&TopRow) -> f64,
) -> Vec<(&'a str, &'a TopRow)> {
    let mut rows: Vec<(&str, &TopRow)> = files
        .iter()
        .filter_map(|f| f.facts.as_ref().map(|x| (f.file_name.as_str(), x)))
        .flat_map(|(name, x)| pick(x).iter().map(move |r| (name, r)))
        .collect();
    rows.sort_by(|a, b| by(b.1).total_cmp(&by(a.1)));
    rows
}

/// A kept row's exposure id, or '(no id)'.
fn row_id(r: &TopRow) -> &str {
    if r.exposure_id.is_empty() {
        "(no id)"
    } else {
        &r.exposure_id
    }
}

fn concentration(w: &mut Writer, title: &str, groups: &[GroupSummary], total: f64) {
    w.header(title);
    if groups.is_empty() {
        w.bullet("Not available: no file with kept breakdowns.");
        return;
    }
    for g in groups.iter().take(TOP) {
        w.kv(
            group_key(&g.key),
            &format!(
                "{} ({} of the amount, {})",
                eur(g.exposure_amount),
                share(g.exposure_amount, total),
                exposures(g.rows)
            ),
        );
    }
    if groups.len() > TOP {
        w.bullet(&format!("{} more groups", groups.len() - TOP));
    }
}

fn section_risks(w: &mut Writer, ctx: &QaContext) {
    let t = totals(&ctx.files);
    concentration(
        w,
        "Concentration by country",
        &merged(&ctx.files, |x| &x.aggregates.by_country),
        t.exposure,
    );
    concentration(
        w,
        "Concentration by credit quality step",
        &merged(&ctx.files, |x| &x.aggregates.by_cqs),
        t.exposure,
    );
    concentration(
        w,
        "Concentration by maturity",
        &merged(&ctx.files, |x| &x.aggregates.by_maturity_bucket),
        t.exposure,
    );
    w.header("Largest single exposures");
    w.bullet(
        "The kept figures do not group exposures by counterparty; the largest single exposures \
         are shown instead.",
    );
    let top = largest(
        &ctx.files,
        |x| &x.aggregates.top_exposures,
        |r| r.exposure_amount,
    );
    for (file, r) in top.iter().take(TOP) {
        w.bullet(&format!(
            "{} ({file}, row {}): {} ({} of the amount), {}",
            row_id(r),
            r.row,
            eur(r.exposure_amount),
            share(r.exposure_amount, t.exposure),
            r.status.as_str().replace('_', " ")
        ));
    }
    w.header("Unmatched and flagged exposures");
    w.kv("Not matched", &count(t.not_matched));
    w.kv("In error", &count(t.errors));
    let mut reasons: BTreeMap<&str, (u64, f64)> = BTreeMap::new();
    let mut flagged = 0;
    let mut flags: BTreeMap<&str, u64> = BTreeMap::new();
    for x in ctx.files.iter().filter_map(|f| f.facts.as_ref()) {
        for r in &x.aggregates.reasons {
            let e = reasons.entry(r.reason.as_str()).or_default();
            e.0 += r.rows;
            e.1 += r.exposure_amount;
        }
        flagged += x.aggregates.data_quality.flagged_rows;
        for (k, v) in &x.flags {
            *flags.entry(k.as_str()).or_default() += v;
        }
    }
    let mut reasons: Vec<_> = reasons.into_iter().collect();
    reasons.sort_by(|a, b| b.1.0.cmp(&a.1.0).then_with(|| a.0.cmp(b.0)));
    for (reason, (rows, amount)) in reasons {
        w.bullet(&format!(
            "{}, {}: {}",
            exposures(rows),
            eur(amount),
            reason_text(reason)
        ));
    }
    if t.with_facts > 0 {
        w.kv("Flagged exposures", &count(flagged));
        for (k, v) in flags.iter().filter(|(_, v)| **v > 0) {
            w.bullet(&format!("{k}: {}", count(*v)));
        }
    }
    without_facts(w, &ctx.files);
}

/// The reasons whose rows would be evaluated again with their data corrected or completed.
const DATA_TO_FIX: [&str; 7] = [
    "missing_fields",
    "missing_nif",
    "missing_lei_and_name",
    "invalid_nif",
    "invalid_lei",
    "invalid_cqs",
    "invalid_current_rw",
];

fn sum_reasons<'a>(files: &'a [FileData], keep: &[&str]) -> BTreeMap<&'a str, (u64, f64)> {
    let mut out: BTreeMap<&str, (u64, f64)> = BTreeMap::new();
    for x in files.iter().filter_map(|f| f.facts.as_ref()) {
        for r in x
            .aggregates
            .reasons
            .iter()
            .filter(|r| keep.contains(&r.reason.as_str()))
        {
            let e = out.entry(r.reason.as_str()).or_default();
            e.0 += r.rows;
            e.1 += r.exposure_amount;
        }
    }
    out
}

fn section_opportunities(w: &mut Writer, ctx: &QaContext) {
    let t = totals(&ctx.files);
    w.header("Optimisation opportunities");
    scope_line(w, ctx);
    w.kv("RWA reduction found so far", &eur(t.saving));
    let mut missing: BTreeMap<&str, u64> = BTreeMap::new();
    for x in ctx.files.iter().filter_map(|f| f.facts.as_ref()) {
        for (k, v) in &x.aggregates.data_quality.missing {
            *missing.entry(k.as_str()).or_default() += v;
        }
    }
    w.header("Missing or incorrect data");
    let missing: Vec<_> = missing.into_iter().filter(|(_, n)| *n > 0).collect();
    let to_fix = sum_reasons(&ctx.files, &DATA_TO_FIX);
    let no_cqs = merged(&ctx.files, |x| &x.aggregates.by_cqs)
        .into_iter()
        .find(|g| g.key == "none");
    let no_maturity = merged(&ctx.files, |x| &x.aggregates.by_maturity_bucket)
        .into_iter()
        .find(|g| g.key == "no maturity");
    if missing.is_empty() && to_fix.is_empty() && no_cqs.is_none() && no_maturity.is_none() {
        w.bullet("No blank cell in the mapped columns and no exposure held back by its data.");
    }
    for (field, n) in missing {
        w.bullet(&format!("{field} is blank in {} rows", count(n)));
    }
    if let Some(g) = no_cqs {
        w.bullet(&format!(
            "{}, {}, have no credit quality step: where the counterparty is rated, giving its \
             CQS may lower their risk weight",
            exposures(g.rows),
            eur(g.exposure_amount)
        ));
    }
    if let Some(g) = no_maturity {
        w.bullet(&format!(
            "{}, {}, have no maturity: short-term treatments need it, so giving it may lower \
             their risk weight",
            exposures(g.rows),
            eur(g.exposure_amount)
        ));
    }
    for (reason, (rows, amount)) in to_fix {
        w.bullet(&format!(
            "{}, {}, not matched because {}: correcting the data may let them match",
            exposures(rows),
            eur(amount),
            reason_text(reason)
        ));
    }
    w.header("Entities not in the reference data");
    let not_in_ref = sum_reasons(&ctx.files, &NOT_IN_REFERENCE);
    if not_in_ref.is_empty() {
        w.bullet("No exposure was held back by an entity missing from the reference data.");
    }
    for (reason, (rows, amount)) in not_in_ref {
        w.bullet(&format!(
            "{}, {}: {}; worth adding to the reference data if they are eligible",
            exposures(rows),
            eur(amount),
            reason_text(reason)
        ));
    }
    without_facts(w, &ctx.files);
}

fn section_exposure(w: &mut Writer, e: &ExposureData) {
    let d = &e.detail.decision;
    let id = if d.exposure_id.is_empty() {
        format!("row {}", d.row)
    } else {
        d.exposure_id.clone()
    };
    w.header(&format!("Exposure {id} ({}, row {})", e.file_name, d.row));
    if !d.counterparty.is_empty() {
        w.kv("Counterparty", &d.counterparty);
    }
    if !d.identifier.is_empty() {
        w.kv("Identifier", &d.identifier);
    }
    if let Some(f) = e
        .detail
        .fields
        .iter()
        .find(|f| f.field == "Exposure_Amount" && !f.value.is_empty())
    {
        w.kv("Exposure amount", &f.value);
    }
    w.kv("Status", &d.status.replace('_', " "));
    w.kv("Current risk weight", &format!("{:.2}%", d.original_rw));
    w.kv("Proposed risk weight", &format!("{:.2}%", d.proposed_rw));
    w.kv("RWA reduction", &eur(d.capital_saving));
    if !d.applied_rule.is_empty() {
        w.kv("Applied rule", &d.applied_rule);
    }
    if !d.regulatory_basis.is_empty() {
        w.kv("Regulatory reference", &d.regulatory_basis);
    }
    if !d.reasoning.is_empty() {
        w.kv("Reasoning", &d.reasoning);
    }
    w.kv(
        "Flags",
        &if d.flags.is_empty() {
            "none".to_string()
        } else {
            d.flags.join(", ")
        },
    );
    w.header(&format!("Decision trace of {id}"));
    for s in &e.detail.trace.steps {
        if s.article.is_empty() {
            w.bullet(&format!("{}: {}", s.test, s.outcome));
        } else {
            w.bullet(&format!("{} {}: {}", s.article, s.test, s.outcome));
        }
    }
    w.kv(
        "Rule set",
        &format!(
            "{} (reporting date {})",
            e.detail.trace.rule_set, e.detail.trace.reporting_date
        ),
    );
}

/// Passages quoted in a regulatory answer at most.
const PASSAGES: usize = 3;
/// Characters of a passage quoted at most.
const PASSAGE_CHARS: usize = 700;

fn pages(k: &KnowledgeData) -> Option<String> {
    match (k.page_from, k.page_to) {
        (Some(a), Some(b)) if b > a => Some(format!("pages {a}-{b}")),
        (Some(a), _) => Some(format!("page {a}")),
        _ => None,
    }
}

fn quote(text: &str) -> String {
    let t = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if t.chars().count() <= PASSAGE_CHARS {
        return t;
    }
    let cut: String = t.chars().take(PASSAGE_CHARS).collect();
    let end = cut.rfind(' ').unwrap_or(cut.len());
    format!("{}…", &cut[..end])
}

fn section_regulatory(w: &mut Writer, ctx: &QaContext) {
    w.header("What the regulation says");
    if ctx.knowledge.is_empty() {
        w.bullet(
            "The knowledge base holds no passage about this. An administrator can upload the \
             regulation's text in the AI Knowledge Base; I answer regulatory questions from it.",
        );
        return;
    }
    for k in ctx.knowledge.iter().take(PASSAGES) {
        let mut source = vec![k.document_name.clone()];
        if let Some(a) = k.article.as_deref().filter(|a| !a.is_empty()) {
            source.push(a.to_string());
        }
        if let Some(p) = pages(k) {
            source.push(p);
        }
        w.kv("Source", &source.join(", "));
        if let Some(h) = k.heading.as_deref().filter(|h| !h.is_empty()) {
            w.kv("Section", h);
        }
        w.bullet(&quote(&k.text));
    }
}

/// The text the engine cannot answer.
pub const CANNOT_ANSWER: &str = "I can't answer that from your files' analysis results.";

/// The built-in answer to `question`.
pub fn answer(question: &str, ctx: &QaContext) -> String {
    let mut w = Writer {
        out: String::new(),
        n: 0,
    };
    let intents = intents(question);
    if ctx.files.is_empty() && intents.contains(&Intent::Regulatory) {
        section_regulatory(&mut w, ctx);
        return w.out;
    }
    if ctx.files.is_empty() {
        w.header("No analysed files");
        w.bullet(&match &ctx.focus {
            Some(f) => format!(
                "The file {f} has no completed analysis yet, so I have nothing to answer from."
            ),
            None => "None of your files has a completed analysis yet, so I have nothing to \
                     answer from."
                .to_string(),
        });
        w.bullet("Upload a file and let its processing finish, then ask again.");
        return w.out;
    }
    for e in &ctx.exposures {
        section_exposure(&mut w, e);
    }
    if ctx.more_matches > 0 {
        w.bullet(&format!(
            "{} more exposures match; name an exposure id to see another one",
            count(ctx.more_matches)
        ));
    }
    if ctx.exposures.is_empty() && !ctx.not_found.is_empty() {
        w.header("Exposure not found");
        w.bullet(&format!(
            "No exposure id, NIF or LEI {} is in {}.",
            ctx.not_found.join(", "),
            match &ctx.focus {
                Some(f) => format!("the file {f}"),
                None => "your analysed files".to_string(),
            }
        ));
    }
    if !ctx.unsearchable.is_empty() {
        w.bullet(&format!(
            "Not searched: {} (the stored original of its analysis could not be read)",
            ctx.unsearchable.join(", ")
        ));
    }
    for i in &intents {
        match i {
            Intent::Totals => section_totals(&mut w, ctx),
            Intent::Findings => section_findings(&mut w, ctx),
            Intent::Risks => section_risks(&mut w, ctx),
            Intent::Opportunities => section_opportunities(&mut w, ctx),
            Intent::Regulatory => section_regulatory(&mut w, ctx),
        }
    }
    if w.out.is_empty() {
        w.header("I can't answer that");
        w.bullet(CANNOT_ANSWER);
        w.bullet(
            "I can answer: total exposures (count, amount, by asset class), key findings \
             (savings, matched share, biggest savings), main risk factors (concentrations, \
             unmatched and flagged exposures), optimisation opportunities, questions naming \
             an exposure id, NIF or LEI, and what the regulation says (from the knowledge base).",
        );
    }
    w.out
}

/// The data a model is given: every section the engine can write about the context (the same
/// figures, in the same words), so that a model's answer can be checked against it.
pub fn data_text(ctx: &QaContext) -> String {
    let mut data = answer(
        "total exposures, key findings, main risk factors, optimisation opportunities",
        ctx,
    );
    if ctx.regulatory {
        let only_passages = QaContext {
            files: Vec::new(),
            ..ctx.clone()
        };
        data.push('\n');
        data.push_str(&answer("article", &only_passages));
    }
    data
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_grouped_and_rounded() {
        assert_eq!(num(1_750_000.0), "1,750,000.00");
        assert_eq!(num(999.999), "1,000.00");
        assert_eq!(num(-1234.5), "-1,234.50");
        assert_eq!(num(0.0), "0.00");
        assert_eq!(count(1_000_000), "1,000,000");
        assert_eq!(share(2.0, 3.0), "66.67%");
        assert_eq!(share(1.0, 0.0), "-");
    }

    #[test]
    fn the_chips_and_their_variants_have_intents() {
        assert_eq!(
            intents("Total exposures in this file"),
            vec![Intent::Totals]
        );
        assert_eq!(
            intents("How many exposures do I have?"),
            vec![Intent::Totals]
        );
        assert_eq!(intents("Summarise key findings"), vec![Intent::Findings]);
        assert_eq!(
            intents("What are the main risk factors?"),
            vec![Intent::Risks]
        );
        assert_eq!(
            intents("Show optimisation opportunities"),
            vec![Intent::Opportunities]
        );
        assert_eq!(intents("What is the weather tomorrow?"), vec![]);
        // "country" is not "count".
        assert_eq!(
            intents("Any concentration by country?"),
            vec![Intent::Risks]
        );
        assert_eq!(intents("The number of exposures"), vec![Intent::Totals]);
    }

    #[test]
    fn regulatory_questions_are_answered_from_the_knowledge_base() {
        assert_eq!(
            intents("What does Article 116 say about public sector entities?"),
            vec![Intent::Regulatory]
        );
        assert_eq!(
            intents("Which CRR rule lowers the risk weight of regional governments?"),
            vec![Intent::Regulatory]
        );
        assert_eq!(
            intents("Which regulation explains the risk factors in my file?"),
            vec![Intent::Risks, Intent::Regulatory]
        );
        assert!(!is_regulatory("What are the main risk factors?"));
        assert!(!is_regulatory("Key findings for the partial file"));

        let mut ctx = QaContext {
            client_name: "Bank".into(),
            regulatory: true,
            ..QaContext::default()
        };
        let none = answer("What does Article 116 say?", &ctx);
        assert!(
            none.starts_with("1. What the regulation says\n- The knowledge base holds no passage"),
            "{none}"
        );
        ctx.knowledge.push(KnowledgeData {
            document_name: "crr.pdf".into(),
            heading: Some("Part Three > Article 116".into()),
            page_from: Some(12),
            page_to: Some(13),
            article: Some("Article 116(1)".into()),
            text:
                "Exposures to public sector entities shall be  risk-weighted\naccording to Table 2."
                    .into(),
        });
        let a = answer("What does Article 116 say?", &ctx);
        assert_eq!(
            a,
            "1. What the regulation says\n- Source: crr.pdf, Article 116(1), pages 12-13\n\
             - Section: Part Three > Article 116\n\
             - Exposures to public sector entities shall be risk-weighted according to Table 2.\n"
        );
        // A model is given the passages with the figures.
        assert!(data_text(&ctx).contains("Article 116(1), pages 12-13"));
        assert!(quote(&"word ".repeat(300)).chars().count() <= PASSAGE_CHARS + 1);
    }

    #[test]
    fn no_files_is_said_plainly() {
        let ctx = QaContext {
            client_name: "Bank".into(),
            ..QaContext::default()
        };
        let a = answer("total exposures", &ctx);
        assert!(a.starts_with("1. No analysed files\n"), "{a}");
        assert!(a.contains("None of your files has a completed analysis yet"));
    }
}
