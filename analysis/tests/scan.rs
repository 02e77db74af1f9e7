//! `scan_decisions` and `explain_row`: every row's decision as `analyze` writes it, without
//! writing anything, and one row's trace with the fields the lever requires (the explainability
//! screens evaluate a run's original again with them).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use analysis::engine::{Engine, EngineContext};
use analysis::ingest::Input;
use analysis::model::{Lever, MatchStatus};
use analysis::output::OutputKind;
use analysis::pipeline::{
    AnalyzeOptions, FieldState, LeverChoice, OutputTarget, analyze, explain_row, scan_decisions,
    trace_row,
};
use analysis::refdata::RefData;
use analysis::rules::RuleSet;
use chrono::NaiveDate;

fn hand() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hand")
}

fn engine() -> Engine {
    let d = NaiveDate::from_ymd_opt(2025, 6, 30).unwrap();
    Engine::new(
        RuleSet::for_reporting_date(d),
        Arc::new(RefData::load_dir(&hand().join("refdata")).unwrap()),
        EngineContext::new(d),
    )
}

fn pse() -> AnalyzeOptions {
    AnalyzeOptions {
        lever: LeverChoice::Fixed(Lever::Pse),
        output_kind: Some(OutputKind::Csv),
        ..AnalyzeOptions::default()
    }
}

#[test]
fn every_row_takes_the_decision_analyze_writes() {
    let e = engine();
    let path = hand().join("pse_crr3_en.csv");
    let mut seen = Vec::new();
    let scan = scan_decisions(Input::Path(&path), &e, &pse(), &mut |r| {
        let mut rule = String::new();
        r.decision.applied_rule.write_to(&mut rule);
        seen.push((
            r.row,
            r.exposure.exposure_id.to_string(),
            r.decision.suggested_rw_pct,
            r.decision.status.as_str().to_string(),
            rule,
            (r.required_present, r.required_total),
        ));
        true
    })
    .unwrap();
    assert_eq!(scan.rows, 24);
    assert_eq!(scan.lever, Lever::Pse);
    assert!(scan.required.iter().any(|f| f == "Maturity"));
    assert!(scan.mapping.iter().any(|(f, c)| f == "NIF" && c == "NIF"));

    let mut out = Vec::new();
    analyze(
        Input::Path(&path),
        &e,
        &pse(),
        OutputTarget::Buffer(&mut out),
    )
    .unwrap();
    let mut rdr = csv::Reader::from_reader(out.as_slice());
    let headers = rdr.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (id, sugg, status, rule) = (
        col("Exposure_ID"),
        col("Suggested_Risk_Weight"),
        col("Match_Status"),
        col("Applied_Rule"),
    );
    let written: Vec<_> = rdr.records().map(|r| r.unwrap()).collect();
    assert_eq!(written.len(), seen.len());
    for (i, (w, s)) in written.iter().zip(&seen).enumerate() {
        assert_eq!(s.0, i as u64 + 1);
        assert_eq!(w[id], s.1);
        assert_eq!(w[sugg].parse::<f64>().unwrap(), s.2, "{}", s.1);
        assert_eq!(w[status], s.3, "{}", s.1);
        assert_eq!(w[rule], s.4, "{}", s.1);
    }
    // P01: every required field present; P24: its Maturity is blank.
    assert_eq!(seen[0].5.0, seen[0].5.1);
    assert_eq!(seen[23].5.0 + 1, seen[23].5.1);
}

#[test]
fn a_visitor_can_stop_the_scan() {
    let e = engine();
    let path = hand().join("pse_crr3_en.csv");
    let mut calls = 0;
    scan_decisions(Input::Path(&path), &e, &pse(), &mut |_| {
        calls += 1;
        false
    })
    .unwrap();
    assert_eq!(calls, 1);
}

#[test]
fn one_row_is_explained_with_its_fields() {
    let e = engine();
    let path = hand().join("pse_crr3_en.csv");
    // P01: unrated, Spain CQS 2 -> 116(1) Table 2, 50 %.
    let x = explain_row(Input::Path(&path), &e, &pse(), 1).unwrap();
    assert_eq!(
        x.trace,
        trace_row(Input::Path(&path), &e, &pse(), 1).unwrap()
    );
    assert_eq!(x.trace.status, MatchStatus::Matched);
    assert_eq!(x.trace.suggested_rw_pct, 50.0);
    assert_eq!(x.trace.regulatory_reference, "CRR Art. 116(1) Table 2");
    let nif = x.fields.iter().find(|f| f.field == "NIF").unwrap();
    assert_eq!(
        (nif.column.as_deref(), nif.value.as_str(), nif.state),
        (Some("NIF"), "Q8100001J", FieldState::Present)
    );
    // P24: no maturity, a required field.
    let x = explain_row(Input::Path(&path), &e, &pse(), 24).unwrap();
    let maturity = x.fields.iter().find(|f| f.field == "Maturity").unwrap();
    assert!(maturity.required);
    assert_eq!(maturity.state, FieldState::Blank);
    assert_eq!(maturity.value, "");
    // P18: no current weight (unreadable is a blank here).
    let x = explain_row(Input::Path(&path), &e, &pse(), 18).unwrap();
    let rw = x
        .fields
        .iter()
        .find(|f| f.field == "Current_Risk_Weight")
        .unwrap();
    assert_eq!(rw.state, FieldState::Blank);
    let err = explain_row(Input::Path(&path), &e, &pse(), 25)
        .unwrap_err()
        .to_string();
    assert_eq!(err, "row 25 does not exist: the file has 24 data rows");
}
