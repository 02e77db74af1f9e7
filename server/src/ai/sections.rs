//! The report editor's AI text assistant: one section's text written from the client's own
//! figures (its files' latest completed runs, the same [`QaContext`] the Q&A agent answers
//! from).
//!
//! The built-in engine ([`write`]) writes plain paragraphs for the section's type (a summary
//! the totals and the saving, a capital section the saving by lever and by rule with the
//! articles applied, a regulatory one the articles and what stays unmatched, ...) and for the
//! topics the request names (the Q&A agent's intents); it follows no other instruction. A model
//! is given the request, the section and [`data_text`], and its text is checked against them
//! as the Q&A agent's answers are.

use std::collections::BTreeMap;

use super::builtin::{self, Intent, count, eur, exposures, share};
use super::{AiError, FileData, QaContext};

/// Longest request.
pub const MAX_PROMPT_CHARS: usize = 2000;
/// Longest current content sent with a request (the rest is not read).
pub const MAX_CONTENT_CHARS: usize = 20_000;
/// Longest section title.
pub const MAX_TITLE_CHARS: usize = 200;
/// Groups named in a paragraph (the largest savings first).
const MAX_GROUPS: usize = 5;

/// The section types a request may name (the spec's report section types).
pub use crate::service::report_templates::SECTION_KINDS as SECTION_TYPES;

/// What the user asked for, about which section.
#[derive(Debug, Clone, Default)]
pub struct SectionRequest {
    /// The section's title.
    pub title: String,
    /// One of [`SECTION_TYPES`].
    pub kind: String,
    /// The section's current text.
    pub content: String,
    /// The user's request.
    pub prompt: String,
}

/// The instructions a model is given (the spec: section title, type, current content and the
/// request; a professional banking tone; only the content).
pub const SYSTEM: &str = "You write one section of a bank's regulatory capital report. Keep a \
professional banking tone. Return only the section's content: plain paragraphs separated by a \
blank line, no title, no headings, no preamble and no closing remarks. Use only the figures \
given in DATA, written exactly as they appear there; if DATA does not hold a figure the request \
asks for, say that it is not available instead of estimating it.";

/// The user message a model is given for `req`.
pub fn model_request(req: &SectionRequest) -> String {
    format!(
        "Section title: {}\nSection type: {}\nCurrent content:\n{}\n\nRequest: {}",
        req.title,
        req.kind,
        if req.content.trim().is_empty() {
            "(empty)"
        } else {
            &req.content
        },
        req.prompt
    )
}

/// What a model's text is checked against: the Q&A agent's data, every paragraph the built-in
/// engine can write, and the section's own content and request.
pub fn data_text(req: &SectionRequest, ctx: &QaContext) -> String {
    let mut data = builtin::data_text(ctx);
    let every = Paragraphs::ALL.iter().filter_map(|p| p.write(ctx));
    for p in every {
        data.push('\n');
        data.push_str(&p);
    }
    data.push('\n');
    data.push_str(&req.content);
    data.push('\n');
    data.push_str(&req.prompt);
    data
}

/// The paragraphs the engine writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Paragraphs {
    Scope,
    Overview,
    Saving,
    ByLever,
    ByRule,
    Unmatched,
    Closing,
}

impl Paragraphs {
    const ALL: [Paragraphs; 7] = [
        Paragraphs::Scope,
        Paragraphs::Overview,
        Paragraphs::Saving,
        Paragraphs::ByLever,
        Paragraphs::ByRule,
        Paragraphs::Unmatched,
        Paragraphs::Closing,
    ];

    fn write(self, ctx: &QaContext) -> Option<String> {
        match self {
            Paragraphs::Scope => scope(ctx),
            Paragraphs::Overview => overview(ctx),
            Paragraphs::Saving => saving(ctx),
            Paragraphs::ByLever => by_lever(&ctx.files),
            Paragraphs::ByRule => by_rule(&ctx.files),
            Paragraphs::Unmatched => unmatched(&ctx.files),
            Paragraphs::Closing => closing(ctx),
        }
    }
}

/// The paragraphs for a section type and the topics its request names, in reading order.
fn plan(req: &SectionRequest) -> Vec<Paragraphs> {
    use Paragraphs as P;
    let mut plan = match req.kind.as_str() {
        "summary" => vec![P::Overview, P::Saving, P::ByLever],
        "introduction" => vec![P::Scope, P::Overview],
        "capital" => vec![P::Saving, P::ByLever, P::ByRule],
        "regulatory" => vec![P::ByRule, P::Unmatched],
        "conclusion" => vec![P::Saving, P::Unmatched, P::Closing],
        _ => Vec::new(),
    };
    for intent in builtin::intents(&req.prompt) {
        plan.extend(match intent {
            Intent::Totals => vec![P::Overview],
            Intent::Findings => vec![P::Saving, P::ByLever],
            Intent::Risks | Intent::Opportunities => vec![P::Unmatched],
            Intent::Regulatory => vec![P::ByRule],
        });
    }
    let lower = req.prompt.to_lowercase();
    if ["saving", "capital", "rwa", "cet1"]
        .iter()
        .any(|w| lower.contains(w))
    {
        plan.push(P::Saving);
    }
    if lower.contains("lever") {
        plan.push(P::ByLever);
    }
    if ["rule", "article", "weight"]
        .iter()
        .any(|w| lower.contains(w))
    {
        plan.push(P::ByRule);
    }
    if plan.is_empty() {
        plan = vec![P::Overview, P::Saving];
    }
    plan.sort();
    plan.dedup();
    plan
}

/// The built-in engine's text for `req`: paragraphs separated by a blank line, every figure
/// from `ctx`. Fails, saying why, when the client has no processed file to write from.
pub fn write(req: &SectionRequest, ctx: &QaContext) -> Result<String, AiError> {
    if ctx.files.is_empty() {
        return Err(AiError::Failed(format!(
            "{} has no processed file with results yet, so there are no figures to write from",
            ctx.client_name
        )));
    }
    let paragraphs: Vec<String> = plan(req).into_iter().filter_map(|p| p.write(ctx)).collect();
    Ok(paragraphs.join("\n\n"))
}

fn files_phrase(n: usize) -> String {
    if n == 1 {
        "one processed file".into()
    } else {
        format!("{n} processed files")
    }
}

fn scope(ctx: &QaContext) -> Option<String> {
    let mut levers: Vec<&str> = ctx
        .files
        .iter()
        .filter_map(|f| f.result.lever_name.as_deref())
        .collect();
    levers.sort_unstable();
    levers.dedup();
    let levers = if levers.is_empty() {
        String::new()
    } else {
        format!(" under the {} optimisation levers", levers.join(", "))
    };
    Some(format!(
        "This section presents the capital optimisation analysis of {}'s exposures{levers}, \
         based on the latest completed run of each of its {}. Each exposure was matched against \
         the reference entity data and given the risk weight the regulation allows for it.",
        ctx.client_name,
        files_phrase(ctx.files.len())
    ))
}

fn overview(ctx: &QaContext) -> Option<String> {
    let rows: u64 = ctx.files.iter().map(|f| f.result.rows).sum();
    let matched: u64 = ctx.files.iter().map(|f| f.result.matched).sum();
    let with_facts: Vec<&FileData> = ctx.files.iter().filter(|f| f.facts.is_some()).collect();
    let amount: f64 = with_facts
        .iter()
        .filter_map(|f| f.facts.as_ref())
        .map(|x| x.total_exposure)
        .sum();
    let amount = if with_facts.is_empty() {
        String::new()
    } else {
        format!(" with a total exposure amount of {}", eur(amount))
    };
    Some(format!(
        "{} covers {}{amount}. Of these, {} ({}) were matched against the reference entity data.",
        capitalised(&files_phrase(ctx.files.len())),
        exposures(rows),
        count(matched),
        share(matched as f64, rows as f64)
    ))
}

fn saving(ctx: &QaContext) -> Option<String> {
    let saving: f64 = ctx.files.iter().map(|f| f.result.savings_rwas).sum();
    let bps: f64 = ctx.files.iter().map(|f| f.result.savings_bps).sum();
    let facts: Vec<_> = ctx.files.iter().filter_map(|f| f.facts.as_ref()).collect();
    let before: f64 = facts.iter().map(|x| x.rwa_before).sum();
    let after: f64 = facts.iter().map(|x| x.rwa_after).sum();
    let range = if facts.len() == ctx.files.len() && before > 0.0 {
        format!(
            " reduce risk-weighted assets from {} to {}, a saving of {} ({} of the original \
             risk-weighted assets)",
            eur(before),
            eur(after),
            eur(saving),
            share(saving, before)
        )
    } else {
        format!(" reduce risk-weighted assets by {}", eur(saving))
    };
    Some(format!(
        "The proposed risk weights{range}, worth {bps:.2} basis points of CET1 ratio."
    ))
}

fn by_lever(files: &[FileData]) -> Option<String> {
    let mut by: BTreeMap<&str, (usize, f64, f64)> = BTreeMap::new();
    for f in files {
        let name = f.result.lever_name.as_deref().unwrap_or("Unassigned lever");
        let e = by.entry(name).or_default();
        e.0 += 1;
        e.1 += f.result.savings_rwas;
        e.2 += f.result.savings_bps;
    }
    if by.len() < 2 && files.len() < 2 {
        return None;
    }
    let mut v: Vec<_> = by.into_iter().collect();
    v.sort_by(|a, b| b.1.1.total_cmp(&a.1.1).then_with(|| a.0.cmp(b.0)));
    let parts: Vec<String> = v
        .iter()
        .map(|(name, (n, s, bps))| {
            format!(
                "{name}, {} ({} file{}, {bps:.2} bps)",
                eur(*s),
                n,
                if *n == 1 { "" } else { "s" }
            )
        })
        .collect();
    Some(format!(
        "By lever, the saving comes from {}.",
        parts.join("; ")
    ))
}

fn by_rule(files: &[FileData]) -> Option<String> {
    let mut by: BTreeMap<String, (Option<String>, u64, f64)> = BTreeMap::new();
    for f in files {
        let Some(x) = &f.facts else { continue };
        for g in &x.by_rule {
            if g.key.is_empty() || g.rwa_saving <= 0.0 {
                continue;
            }
            let e = by.entry(g.key.clone()).or_default();
            if e.0.is_none() {
                e.0 = g.regulatory_reference.clone();
            }
            e.1 += g.rows;
            e.2 += g.rwa_saving;
        }
    }
    if by.is_empty() {
        return None;
    }
    let mut v: Vec<_> = by.into_iter().collect();
    v.sort_by(|a, b| b.1.2.total_cmp(&a.1.2).then_with(|| a.0.cmp(&b.0)));
    let parts: Vec<String> = v
        .iter()
        .take(MAX_GROUPS)
        .map(|(rule, (reference, rows, s))| {
            let reference = reference
                .as_deref()
                .filter(|r| !r.trim().is_empty())
                .map(|r| format!(" ({r})"))
                .unwrap_or_default();
            format!("{rule}{reference}: {}, {} saved", exposures(*rows), eur(*s))
        })
        .collect();
    let more = if v.len() > MAX_GROUPS {
        format!(
            " {} further rules account for the rest.",
            v.len() - MAX_GROUPS
        )
    } else {
        String::new()
    };
    Some(format!(
        "The reductions rest on these rules of the regulation: {}.{more}",
        parts.join("; ")
    ))
}

fn unmatched(files: &[FileData]) -> Option<String> {
    let rows: u64 = files.iter().map(|f| f.result.rows).sum();
    let not_matched: u64 = files.iter().map(|f| f.result.not_matched).sum();
    let errors: u64 = files.iter().map(|f| f.result.errors).sum();
    if not_matched == 0 && errors == 0 {
        return Some(format!(
            "Every one of the {} was matched against the reference entity data and processed \
             without error.",
            exposures(rows)
        ));
    }
    let mut s = format!(
        "{} ({}) could not be matched against the reference entity data and keep their current \
         risk weight",
        capitalised(&exposures(not_matched)),
        share(not_matched as f64, rows as f64)
    );
    if errors > 0 {
        s.push_str(&format!(
            ", and {} could not be processed because of errors in their data",
            exposures(errors)
        ));
    }
    s.push_str(
        ". Completing their identifiers, or adding the entities to the reference data, would let \
         the regulation's treatment be assessed for them too.",
    );
    Some(s)
}

fn closing(ctx: &QaContext) -> Option<String> {
    Some(format!(
        "These results are the latest of {}'s {}; they change as files are processed again and \
         as the approvers validate the proposed treatments.",
        ctx.client_name,
        files_phrase(ctx.files.len())
    ))
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}
