//! The Token Analysis of a run: the classifier's weighted evidence, one token per piece: the
//! header words it recognised (`nif`, `garantia`, ...) and what it saw in the rows (identifier
//! shapes, reference-list hits, counterparty-name words, asset classes, earlier reviews). An
//! enhanced-AI run shows the classification it stored (the one that chose its lever); a run
//! whose lever a person chose shows the classifier's evidence on the same file, computed from its
//! first rows as the runs sample them.
//!
//! Importance is relative to the strongest token's weight: high from two thirds of it, medium
//! from one third, low below.

use analysis::classify::{Classification, EvidenceKind};

use super::{Importance, InsightToken, InsightTokens};

/// Rows the runs show the classifier (`jobs::runs`).
pub const SAMPLE_ROWS: usize = 200;

/// The token a piece of evidence that is not a header word shows.
fn label(e: &analysis::classify::Evidence) -> String {
    match e.kind {
        EvidenceKind::Reference => match &e.hits {
            Some(h) => format!("{} list", h.list),
            None => "reference list".into(),
        },
        EvidenceKind::Identifier => {
            let d = e.description.to_lowercase();
            if d.contains("key q") {
                "NIF key Q".into()
            } else if d.contains("key p") || d.contains("key s") || d.contains("keys p") {
                "NIF key P/S".into()
            } else if d.contains("company key") {
                "company NIF".into()
            } else if d.contains("lei") {
                "LEI".into()
            } else {
                "identifiers".into()
            }
        }
        EvidenceKind::Name => format!("{} names", e.lever.as_str().to_uppercase()),
        EvidenceKind::AssetClass => format!("{} asset class", e.lever.as_str().to_uppercase()),
        EvidenceKind::Feedback => "reviewed file".into(),
        EvidenceKind::Header => "header".into(),
    }
}

/// The tokens of a classification. `stored`: whether it is the run's own (else computed now).
pub fn tokens(c: &Classification, stored: bool) -> InsightTokens {
    let mut tokens: Vec<InsightToken> = Vec::new();
    for t in &c.header_tokens {
        tokens.push(InsightToken {
            token: t.token.clone(),
            weight: t.weight,
            importance: Importance::Low,
            lever: t.lever.as_str().to_string(),
            kind: "header".into(),
            detail: format!("column '{}' read as {}", t.header, t.role),
        });
    }
    for e in c.evidence.iter().filter(|e| e.kind != EvidenceKind::Header) {
        tokens.push(InsightToken {
            token: label(e),
            weight: e.weight,
            importance: Importance::Low,
            lever: e.lever.as_str().to_string(),
            kind: e.kind.as_str().into(),
            detail: e.description.clone(),
        });
    }
    let max = tokens
        .iter()
        .map(|t| t.weight.abs())
        .fold(0.0_f64, f64::max);
    let (mut high, mut medium, mut low) = (0u32, 0u32, 0u32);
    for t in &mut tokens {
        let r = if max > 0.0 { t.weight.abs() / max } else { 0.0 };
        t.importance = if r >= 2.0 / 3.0 {
            high += 1;
            Importance::High
        } else if r >= 1.0 / 3.0 {
            medium += 1;
            Importance::Medium
        } else {
            low += 1;
            Importance::Low
        };
        t.weight = (t.weight * 1000.0).round() / 1000.0;
    }
    tokens.sort_by(|a, b| b.weight.abs().total_cmp(&a.weight.abs()));
    let note = if stored {
        "The evidence the classifier weighed when this run chose its lever.".to_string()
    } else {
        format!(
            "This run's lever was chosen by a person; the tokens are the classifier's evidence on the same file (its first {SAMPLE_ROWS} rows), computed now."
        )
    };
    InsightTokens {
        source: if stored { "run" } else { "recomputed" }.into(),
        lever: c.lever.map(|l| l.as_str().to_string()),
        confidence: Some((c.confidence * 1000.0).round() / 1000.0),
        tokens,
        high,
        medium,
        low,
        note,
    }
}
