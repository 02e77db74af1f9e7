//! Export Analysis: what the screen shows of a run (and of one decision, when one is chosen) as
//! a file: JSON (the screen's own data) or CSV (one line per fact: section, item, value,
//! detail; cells that a spreadsheet would read as formulas are neutralised).

use serde::Serialize;

use super::{
    DecisionQuery, InsightDecisionDetail, InsightHistory, InsightRunOverview, decision, decisions,
    overview, patterns,
};
use crate::error::{ApiError, ApiResult};
use crate::service::Scope;
use crate::state::AppState;

/// A file to download.
#[derive(Debug, Clone)]
pub struct ExportFile {
    /// Its name.
    pub name: String,
    /// Its media type.
    pub content_type: &'static str,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Analysis {
    exported_at: String,
    run: InsightRunOverview,
    #[serde(skip_serializing_if = "Option::is_none")]
    decision: Option<InsightDecisionDetail>,
    #[serde(skip_serializing_if = "Option::is_none")]
    historical_patterns: Option<InsightHistory>,
    /// Without a chosen decision: the run's first decisions (at most a page).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    first_decisions: Vec<super::InsightDecision>,
}

/// A name made of letters, digits, dots, dashes and underscores only.
fn file_stem(name: &str) -> String {
    let stem = std::path::Path::new(name)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let s: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .take(80)
        .collect();
    if s.is_empty() { "run".into() } else { s }
}

/// The analysis of a run (and of row `row`) as a `json` or `csv` file.
pub async fn export(
    state: &AppState,
    scope: &Scope,
    run_id: &str,
    row: Option<u64>,
    format: &str,
) -> ApiResult<ExportFile> {
    let csv = match format.trim().to_ascii_lowercase().as_str() {
        "" | "json" => false,
        "csv" => true,
        _ => return Err(ApiError::validation("Format must be json or csv")),
    };
    let run = overview(state, scope, run_id).await?;
    let (decision, history, first) = match row {
        Some(r) => (
            Some(decision(state, scope, run_id, r).await?),
            Some(patterns(state, scope, run_id, r).await?),
            Vec::new(),
        ),
        None => (
            None,
            None,
            decisions(
                state,
                scope,
                run_id,
                DecisionQuery {
                    page_size: Some(super::MAX_PAGE_SIZE as u64),
                    ..DecisionQuery::default()
                },
            )
            .await?
            .items,
        ),
    };
    let a = Analysis {
        exported_at: crate::db::now(),
        run,
        decision,
        historical_patterns: history,
        first_decisions: first,
    };
    let base = match row {
        Some(r) => format!("ai-analysis-{}-row-{r}", file_stem(&a.run.run.file_name)),
        None => format!("ai-analysis-{}", file_stem(&a.run.run.file_name)),
    };
    if csv {
        Ok(ExportFile {
            name: format!("{base}.csv"),
            content_type: "text/csv; charset=utf-8",
            bytes: to_csv(&a),
        })
    } else {
        Ok(ExportFile {
            name: format!("{base}.json"),
            content_type: "application/json",
            bytes: serde_json::to_vec_pretty(&a).map_err(|e| ApiError::Internal(e.into()))?,
        })
    }
}

struct Csv(Vec<u8>);

impl Csv {
    fn line(&mut self, section: &str, item: &str, value: &str, detail: &str) {
        for (i, cell) in [section, item, value, detail].iter().enumerate() {
            if i > 0 {
                self.0.push(b',');
            }
            analysis::output::write_csv_cell(&mut self.0, cell.as_bytes(), b',', true);
        }
        self.0.push(b'\n');
    }
}

fn pct(x: f64) -> String {
    let r = (x * 10_000.0).round() / 10_000.0;
    format!("{r}%")
}

fn to_csv(a: &Analysis) -> Vec<u8> {
    let mut c = Csv(Vec::new());
    c.line("section", "item", "value", "detail");
    let r = &a.run;
    c.line("run", "file", &r.run.file_name, &r.run.id);
    c.line(
        "run",
        "lever",
        r.run.lever_name.as_deref().unwrap_or(&r.lever),
        "",
    );
    c.line("run", "rule set", &r.rule_set, "");
    c.line("run", "reporting date", &r.reporting_date, "");
    c.line("run", "rows", &r.totals.rows.to_string(), "");
    c.line("run", "matched", &r.totals.matched.to_string(), "");
    c.line("run", "not matched", &r.totals.not_matched.to_string(), "");
    c.line("run", "errors", &r.totals.errors.to_string(), "");
    c.line(
        "run",
        "RWA saving",
        &format!("{:.2}", r.totals.rwa_saving),
        "",
    );
    c.line(
        "run",
        "consistency with the stored result",
        if r.consistency.is_none() {
            "consistent"
        } else {
            "differs"
        },
        r.consistency.as_deref().unwrap_or(""),
    );
    for t in &r.tokens.tokens {
        let importance = match t.importance {
            super::Importance::High => "high",
            super::Importance::Medium => "medium",
            super::Importance::Low => "low",
        };
        c.line(
            "token",
            &t.token,
            &t.weight.to_string(),
            &format!("{importance}; {}; {}", t.lever, t.detail),
        );
    }
    if let Some(d) = &a.decision {
        let x = &d.decision;
        c.line("decision", "row", &x.row.to_string(), "");
        c.line("decision", "exposure id", &x.exposure_id, "");
        c.line("decision", "counterparty", &x.counterparty, &x.identifier);
        c.line("decision", "original weight", &pct(x.original_rw), "");
        c.line("decision", "proposed weight", &pct(x.proposed_rw), "");
        c.line("decision", "status", &x.status, "");
        c.line(
            "decision",
            "regulatory basis",
            &x.regulatory_basis,
            &x.applied_rule,
        );
        c.line("decision", "reasoning", &x.reasoning, "");
        c.line("decision", "confidence", &pct(x.confidence), "");
        for (i, s) in d.trace.steps.iter().enumerate() {
            let inputs: Vec<String> = s
                .inputs
                .iter()
                .map(|i| format!("{}={}", i.name, i.value))
                .collect();
            c.line(
                "trace",
                &format!("{}. {}", i + 1, s.test),
                &s.outcome,
                &format!(
                    "{}{}{}",
                    s.article,
                    if s.article.is_empty() { "" } else { "; " },
                    inputs.join("; ")
                ),
            );
        }
        for e in &d.trace.reference_entries {
            c.line(
                "reference entry",
                &e.list,
                &e.name,
                &format!("{}; {}; {}", e.key, e.source, e.as_of),
            );
        }
        for f in &d.fields {
            c.line(
                "field",
                &f.field,
                &f.value,
                &format!("{}{}", f.state, if f.required { "; required" } else { "" }),
            );
        }
        for f in &d.confidence.factors {
            c.line("confidence", &f.label, &pct(f.score), &f.how);
        }
    }
    if let Some(h) = &a.historical_patterns {
        c.line(
            "history",
            "pattern match",
            &h.pattern_match.map(pct).unwrap_or_default(),
            "",
        );
        c.line(
            "history",
            "similar decisions in the last 6 months",
            &h.similar_last_6_months.to_string(),
            "",
        );
        for (i, k) in h.cases.iter().enumerate() {
            c.line(
                "similar case",
                &format!("{}. {} row {}", i + 1, k.file_name, k.row),
                &pct(k.similarity),
                &format!(
                    "{}; {} -> {}; {}; {}",
                    k.exposure_id,
                    pct(k.original_rw),
                    pct(k.proposed_rw),
                    k.outcome,
                    k.date
                ),
            );
        }
    }
    for x in &a.first_decisions {
        c.line(
            "decision list",
            &format!("row {}", x.row),
            &format!("{} -> {}", pct(x.original_rw), pct(x.proposed_rw)),
            &format!("{}; {}; {}", x.exposure_id, x.regulatory_basis, x.reasoning),
        );
    }
    c.0
}
