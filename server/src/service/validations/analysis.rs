//! The analysis text of a validated result: plain sentences written only from the run's stored
//! figures (rows, matches, errors, savings, the run's own checks and, in enhanced AI mode, the
//! classifier's evidence and the competing levers), shown in the 'Validation Details' dialog
//! instead of 'No AI analysis available for this file.'.

use crate::service::runs::{RunMode, RunResult};

fn pct(part: u64, of: u64) -> String {
    if of == 0 {
        "0".into()
    } else {
        format!("{:.1}", part as f64 * 100.0 / of as f64)
    }
}

fn thousands(n: u64) -> String {
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

fn euros(x: f64) -> String {
    let sign = if x < 0.0 { "-" } else { "" };
    format!("{sign}€{}", thousands(x.abs().round() as u64))
}

/// The analysis of a run's result in plain sentences, written only from its stored figures: rows,
/// matches, errors, the savings, the run's own checks and, in enhanced AI mode, the classifier's
/// evidence and the competing levers.
pub fn analysis_text(mode: RunMode, r: &RunResult) -> String {
    let lever = r.lever_name.as_deref().unwrap_or("an undetermined lever");
    let mut parts = Vec::new();
    parts.push(format!(
        "{} rows were analysed under {lever}: {} matched the reference data ({} %), {} were not matched and {} could not be evaluated.",
        thousands(r.rows),
        thousands(r.matched),
        pct(r.matched, r.rows),
        thousands(r.not_matched),
        thousands(r.errors),
    ));
    parts.push(format!(
        "{} standard columns were mapped.",
        thousands(r.mapped_columns)
    ));
    if r.savings_rwas > 0.0 {
        if r.savings_bps > 0.0 {
            parts.push(format!(
                "The proposed risk weights reduce RWAs by {}, {:.2} bps of CET1 ratio with the client's figures.",
                euros(r.savings_rwas),
                r.savings_bps
            ));
        } else {
            parts.push(format!(
                "The proposed risk weights reduce RWAs by {}; no bps are given without the client's official CET1 capital and total RWAs.",
                euros(r.savings_rwas)
            ));
        }
    } else {
        parts.push("No row's proposed risk weight is below its current one: the file brings no RWA savings.".into());
    }
    let c = &r.checks;
    let mut checks = vec![if c.totals_reconciled {
        "the row totals and the RWA saving reconcile".to_string()
    } else {
        "the row totals or the RWA saving do NOT reconcile".to_string()
    }];
    if c.unreadable_values > 0 {
        checks.push(format!(
            "{} values could not be read",
            thousands(c.unreadable_values)
        ));
    }
    if c.flagged_rows > 0 {
        checks.push(format!(
            "{} rows carry an engine flag to review",
            thousands(c.flagged_rows)
        ));
    }
    parts.push(format!("Checks: {}.", checks.join("; ")));
    if mode == RunMode::EnhancedAi {
        let classified = r.classification.as_ref().and_then(|j| {
            serde_json::from_value::<analysis::classify::Classification>(j.clone()).ok()
        });
        match (r.confidence, classified) {
            (Some(conf), Some(c)) => {
                parts.push(format!(
                    "The lever was classified with {:.1} % confidence: {}",
                    conf * 100.0,
                    c.reason().trim_end_matches('.')
                ));
                let winner = c.lever;
                let mut rivals: Vec<_> = c
                    .scores
                    .iter()
                    .filter(|(l, p)| Some(*l) != winner && *p >= 0.05)
                    .collect();
                rivals.sort_by(|a, b| b.1.total_cmp(&a.1));
                if !rivals.is_empty() {
                    let list: Vec<String> = rivals
                        .iter()
                        .take(3)
                        .map(|(l, p)| format!("{} {:.0} %", l.as_str(), p * 100.0))
                        .collect();
                    parts.push(format!("Competing levers: {}.", list.join(", ")));
                }
            }
            (Some(conf), None) => parts.push(format!(
                "The lever was classified with {:.1} % confidence.",
                conf * 100.0
            )),
            _ => {}
        }
    } else {
        parts.push(
            "The lever and the column mapping were chosen by the uploader (manual mode).".into(),
        );
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::runs::RunChecks;

    fn result() -> RunResult {
        RunResult {
            lever_id: Some("lever-pse".into()),
            lever_name: Some("Public Sector Entities (PSE)".into()),
            savings_rwas: 12_345_678.4,
            savings_bps: 3.214,
            confidence: None,
            rows: 1200,
            matched: 950,
            not_matched: 230,
            errors: 20,
            mapped_columns: 6,
            classification: None,
            checks: RunChecks {
                error_rows: 20,
                unreadable_values: 3,
                flagged_rows: 0,
                totals_reconciled: true,
            },
            reporting_date: None,
        }
    }

    #[test]
    fn the_analysis_says_what_the_result_holds() {
        let text = analysis_text(RunMode::Manual, &result());
        assert!(text.contains("1,200 rows were analysed under Public Sector Entities (PSE)"));
        assert!(text.contains("950 matched the reference data (79.2 %)"));
        assert!(text.contains("230 were not matched and 20 could not be evaluated"));
        assert!(text.contains("reduce RWAs by €12,345,678, 3.21 bps"));
        assert!(text.contains("3 values could not be read"));
        assert!(text.contains("manual mode"));
        let mut none = result();
        none.savings_rwas = 0.0;
        none.savings_bps = 0.0;
        assert!(analysis_text(RunMode::Manual, &none).contains("no RWA savings"));
    }
}
