//! Decision traces, lever by lever: the tests in the article's order with their outcomes,
//! worked out by hand from the rules (EU-CRR3 from 2025-06-30, EU-CRR2 before; the reference
//! data of `fixtures/hand/refdata`), and always the same decision as `Engine::evaluate`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use analysis::engine::{Engine, EngineContext};
use analysis::model::{ExposureRow, Lever, MatchStatus};
use analysis::refdata::RefData;
use analysis::rules::RuleSet;
use analysis::trace::DecisionTrace;
use chrono::NaiveDate;

fn hand() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hand")
}

fn engine(date: (i32, u32, u32)) -> Engine {
    let d = NaiveDate::from_ymd_opt(date.0, date.1, date.2).unwrap();
    Engine::new(
        RuleSet::for_reporting_date(d),
        Arc::new(RefData::load_dir(&hand().join("refdata")).unwrap()),
        EngineContext::new(d),
    )
}

fn date(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).unwrap()
}

/// Traces the row, checks it takes `evaluate`'s decision, returns (test, outcome) pairs.
fn trace(
    e: &Engine,
    lever: Lever,
    row: &ExposureRow<'_>,
) -> (DecisionTrace, Vec<(String, String)>) {
    let t = e.trace(lever, row);
    let d = e.evaluate(lever, row);
    assert_eq!(t.status, d.status);
    assert_eq!(t.suggested_rw_pct, d.suggested_rw_pct);
    assert_eq!(t.regulatory_rw_pct, d.regulatory_rw_pct);
    assert_eq!(t.applied_rule, d.applied_rule.to_string());
    assert_eq!(t.regulatory_reference, d.regulatory_reference.to_string());
    assert_eq!(t.details, d.details.to_string());
    let pairs = t
        .steps
        .iter()
        .map(|s| (s.test.clone(), s.outcome.clone()))
        .collect();
    (t, pairs)
}

fn expect(got: &[(String, String)], want: &[(&str, &str)]) {
    let got: Vec<(&str, &str)> = got.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    assert_eq!(got, want);
}

fn input<'t>(t: &'t DecisionTrace, test: &str, name: &str) -> &'t str {
    let s = t
        .steps
        .iter()
        .find(|s| s.test == test)
        .unwrap_or_else(|| panic!("no step {test}"));
    s.inputs
        .iter()
        .find(|i| i.name == name)
        .map(|i| i.value.as_str())
        .unwrap_or_else(|| panic!("no input {name} in {s:?}"))
}

#[test]
fn pse_unrated_long_term() {
    let e = engine((2025, 6, 30));
    let row = ExposureRow {
        nif: "Q8100001J",
        current_rw_pct: Some(100.0),
        exposure_amount: Some(1e6),
        maturity_date: Some(date(2030, 6, 30)),
        residual_maturity_days: Some(1826.0),
        currency: "EUR",
        country: "ES",
        ..Default::default()
    };
    let (t, steps) = trace(&e, Lever::Pse, &row);
    // Listed as treated like the central government? no; original maturity <= 3 months? no
    // (2030-06-30); own rating? none; central government CQS 2 -> Table 2 -> 50 %.
    expect(
        &steps,
        &[
            ("current risk weight usable?", "yes"),
            ("NIF in the PSE reference list?", "yes: Agencia Mano Uno"),
            ("listed as treated like the central government?", "no"),
            ("original maturity <= 3 months?", "no"),
            ("own rating?", "none"),
            ("weight of PSE_UNRATED", "50%"),
            (
                "regulatory weight above the current weight?",
                "no: 50% suggested",
            ),
        ],
    );
    assert_eq!(t.steps[2].article, "CRR Art. 116(4)");
    assert_eq!(t.steps[5].article, "CRR Art. 116(1) Table 2");
    assert_eq!(
        input(&t, "weight of PSE_UNRATED", "basis"),
        "unrated; central government ES CQS 2"
    );
    assert_eq!(
        input(&t, "original maturity <= 3 months?", "maturity date"),
        "2030-06-30"
    );
    assert_eq!(
        input(
            &t,
            "original maturity <= 3 months?",
            "reporting date + 3 months"
        ),
        "2025-09-30"
    );
    assert_eq!(t.rule_set.id, "EU-CRR3");
    assert_eq!(t.rule_set.valid_from, Some(date(2025, 1, 1)));
    let entry = &t.reference_entries[0];
    assert_eq!(
        (
            entry.list.as_str(),
            entry.key.as_str(),
            entry.name.as_str(),
            entry.as_of.as_str()
        ),
        ("PSE", "Q8100001J", "Agencia Mano Uno", "2025-06-30")
    );
    assert!(entry.source.starts_with("hand check ("), "{}", entry.source);
    assert_eq!((t.status, t.suggested_rw_pct), (MatchStatus::Matched, 50.0));
}

#[test]
fn pse_short_term_and_treated_as_central_government() {
    let e = engine((2025, 6, 30));
    let short = ExposureRow {
        nif: "Q8100001J",
        current_rw_pct: Some(100.0),
        maturity_date: Some(date(2025, 9, 30)),
        residual_maturity_days: Some(92.0),
        currency: "EUR",
        ..Default::default()
    };
    let (t, steps) = trace(&e, Lever::Pse, &short);
    expect(
        &steps[3..],
        &[
            (
                "original maturity <= 3 months?",
                "yes (the Maturity given taken as the original maturity)",
            ),
            ("weight of PSE_SHORT", "20%"),
            (
                "regulatory weight above the current weight?",
                "no: 20% suggested",
            ),
        ],
    );
    assert_eq!(
        input(&t, "original maturity <= 3 months?", "original maturity"),
        "not given (no Origination_Date)"
    );
    // Q8100002H is listed as treated like the central government: Spain, in euros, 114(4).
    let cg = ExposureRow {
        nif: "Q8100002H",
        current_rw_pct: Some(20.0),
        currency: "EUR",
        ..Default::default()
    };
    let (t, steps) = trace(&e, Lever::Pse, &cg);
    expect(
        &steps[2..],
        &[
            ("listed as treated like the central government?", "yes"),
            (
                "EU Member State's central government in its domestic currency?",
                "yes",
            ),
            ("weight of PSE_AS_CG > SOV_DOMESTIC", "0%"),
            (
                "regulatory weight above the current weight?",
                "no: 0% suggested",
            ),
        ],
    );
    let lists: Vec<&str> = t
        .reference_entries
        .iter()
        .map(|e| e.list.as_str())
        .collect();
    assert_eq!(lists, ["PSE", "sovereign"]);
}

#[test]
fn rgla_treated_as_central_government_in_a_foreign_currency() {
    let e = engine((2025, 6, 30));
    let row = ExposureRow {
        nif: "P8100001J",
        current_rw_pct: Some(100.0),
        currency: "USD",
        ..Default::default()
    };
    let (_, steps) = trace(&e, Lever::Rgla, &row);
    // Treated as the central government (115(2)); Spain's central government in dollars is not
    // in its domestic currency: Table 1 by Spain's CQS 2, 20 %.
    expect(
        &steps,
        &[
            ("current risk weight usable?", "yes"),
            (
                "NIF in the RGLA reference list?",
                "yes: Ayuntamiento Mano Uno",
            ),
            ("listed as treated like the central government?", "yes"),
            (
                "EU Member State's central government in its domestic currency?",
                "no",
            ),
            ("weight of RGLA_AS_CG > SOV_T1", "20%"),
            (
                "regulatory weight above the current weight?",
                "no: 20% suggested",
            ),
        ],
    );
}

#[test]
fn mdb_by_name_and_not_found() {
    let e = engine((2025, 6, 30));
    let row = ExposureRow {
        legal_name: "Banco Mundial",
        current_rw_pct: Some(100.0),
        ..Default::default()
    };
    let (t, steps) = trace(&e, Lever::Mdb, &row);
    expect(
        &steps,
        &[
            ("current risk weight usable?", "yes"),
            (
                "name in the MDB and international organisation list?",
                "yes: IBRD",
            ),
            (
                "which kind of body?",
                "an Art. 117(2) multilateral development bank",
            ),
            ("weight of MDB_LISTED", "0%"),
            (
                "regulatory weight above the current weight?",
                "no: 0% suggested",
            ),
        ],
    );
    assert_eq!(t.reference_entries[0].list, "MDB");
    assert_eq!(
        t.reference_entries[0].name,
        "International Bank for Reconstruction and Development"
    );
    let unknown = ExposureRow {
        legal_name: "Banco Inexistente",
        current_rw_pct: Some(100.0),
        ..Default::default()
    };
    let (t, steps) = trace(&e, Lever::Mdb, &unknown);
    assert_eq!(t.status, MatchStatus::NotMatched);
    let last = steps.last().unwrap();
    assert_eq!(last.0, "result");
    assert_eq!(last.1, "not_matched: current weight 100% kept");
    assert!(t.reference_entries.is_empty());
}

#[test]
fn institution_rated_from_the_reference_list() {
    let e = engine((2025, 6, 30));
    let row = ExposureRow {
        lei: "HANDBANKDOS000000275",
        current_rw_pct: Some(100.0),
        maturity_date: Some(date(2030, 1, 1)),
        residual_maturity_days: Some(1646.0),
        currency: "EUR",
        country: "ES",
        ..Default::default()
    };
    let (t, steps) = trace(&e, Lever::Institutions, &row);
    // CQS 2 from the list; not short-term; CRR3 ECRA Table 3: 30 %.
    expect(
        &steps,
        &[
            ("current risk weight usable?", "yes"),
            (
                "institution in the reference list (by LEI, then by name)?",
                "yes: Banco Mano Dos SA",
            ),
            ("own rating?", "CQS 2"),
            ("original maturity <= 3 months?", "no"),
            ("weight of INST_RATED", "30%"),
            (
                "regulatory weight above the current weight?",
                "no: 30% suggested",
            ),
        ],
    );
    assert_eq!(t.reference_entries[0].key, "HANDBANKDOS000000275");
}

#[test]
fn corporate_unrated_with_the_sovereign_floor_and_a_clamp() {
    // CRR2 (reporting date 2024-06-30): unrated corporate 100 %; Italy CQS 3 weighs 50 %, not
    // higher; current weight 80 % is below 100 %: kept.
    let e = engine((2024, 6, 30));
    let row = ExposureRow {
        asset_class: "Corporate",
        current_rw_pct: Some(80.0),
        exposure_amount: Some(1e6),
        country: "IT",
        currency: "EUR",
        eligible_collateral: Some(false),
        ..Default::default()
    };
    let (t, steps) = trace(&e, Lever::Corporates, &row);
    expect(
        &steps,
        &[
            ("current risk weight usable?", "yes"),
            ("a corporate exposure?", "yes"),
            ("own rating?", "none: unrated"),
            (
                "central government's weight higher than the unrated weight?",
                "no",
            ),
            (
                "eligible financial collateral with a value and a weight?",
                "no",
            ),
            ("weight of CORP_UNRATED", "100%"),
            (
                "regulatory weight above the current weight?",
                "yes: current 80% kept, saving 0",
            ),
        ],
    );
    assert_eq!(t.rule_set.id, "EU-CRR2");
    assert_eq!(
        input(
            &t,
            "central government's weight higher than the unrated weight?",
            "sovereign weight"
        ),
        "50%"
    );
    assert!(
        t.flags
            .contains(&"current RW below regulatory RW".to_string())
    );
}

#[test]
fn sovereign_domestic_currency() {
    let e = engine((2025, 6, 30));
    let row = ExposureRow {
        country: "ES",
        currency: "EUR",
        current_rw_pct: Some(20.0),
        ..Default::default()
    };
    let (t, steps) = trace(&e, Lever::Sovereigns, &row);
    expect(
        &steps,
        &[
            ("current risk weight usable?", "yes"),
            ("the European Central Bank?", "no"),
            ("own rating?", "CQS 2 (reference data)"),
            (
                "EU Member State's central government in its domestic currency?",
                "yes",
            ),
            ("weight of SOV_DOMESTIC", "0%"),
            (
                "regulatory weight above the current weight?",
                "no: 0% suggested",
            ),
        ],
    );
    assert_eq!(t.steps[3].article, "CRR Art. 114(4)");
}

#[test]
fn missing_identifier_and_unreadable_maturity() {
    let e = engine((2025, 6, 30));
    let row = ExposureRow {
        current_rw_pct: None,
        ..Default::default()
    };
    let (t, steps) = trace(&e, Lever::Pse, &row);
    expect(
        &steps,
        &[
            ("current risk weight usable?", "missing: 100% assumed"),
            ("NIF given?", "no"),
            ("result", "not_matched: current weight 100% kept"),
        ],
    );
    assert_eq!(t.details, "Missing required fields: NIF");
    let row = ExposureRow {
        nif: "Q8100001J",
        current_rw_pct: Some(100.0),
        invalid_maturity: "pronto",
        ..Default::default()
    };
    let (t, steps) = trace(&e, Lever::Pse, &row);
    assert_eq!(
        steps[3],
        (
            "original maturity <= 3 months?".into(),
            "unknown: no usable maturity".into()
        )
    );
    assert_eq!(
        input(
            &t,
            "original maturity <= 3 months?",
            "Maturity (unreadable)"
        ),
        "pronto"
    );
    assert!(t.flags.contains(&"maturity unreadable".to_string()));
}

#[test]
fn a_trace_serialises_and_reads_back() {
    let e = engine((2025, 6, 30));
    let row = ExposureRow {
        nif: "Q8100001J",
        current_rw_pct: Some(100.0),
        currency: "EUR",
        ..Default::default()
    };
    let t = e.trace(Lever::Pse, &row);
    let json = serde_json::to_value(&t).unwrap();
    assert_eq!(json["lever"], "pse");
    assert_eq!(json["rule_set"]["id"], "EU-CRR3");
    assert_eq!(json["steps"][1]["test"], "NIF in the PSE reference list?");
    assert_eq!(json["steps"][1]["inputs"][0]["name"], "NIF");
    assert_eq!(json["steps"][1]["inputs"][0]["value"], "Q8100001J");
    let back: DecisionTrace = serde_json::from_value(json).unwrap();
    assert_eq!(back, t);
    // The same row traced twice gives the same trace.
    assert_eq!(e.trace(Lever::Pse, &row), t);
}

#[test]
fn a_row_of_a_file_traced_as_the_run_reads_it() {
    use analysis::ingest::Input;
    use analysis::pipeline::{AnalyzeOptions, LeverChoice, trace_row};
    let e = engine((2025, 6, 30));
    let path = hand().join("pse_maturity_bare_en.csv");
    let opts = AnalyzeOptions {
        lever: LeverChoice::Fixed(Lever::Pse),
        ..AnalyzeOptions::default()
    };
    // Row 12 is M12: Maturity 0.5, read as half a month (15.22 days), current weight 50 %.
    let t = trace_row(Input::Path(&path), &e, &opts, 12).unwrap();
    assert_eq!(t.applied_rule, "PSE_SHORT");
    assert_eq!((t.current_rw_pct, t.suggested_rw_pct), (50.0, 20.0));
    assert_eq!(
        input(
            &t,
            "original maturity <= 3 months?",
            "residual maturity (days)"
        ),
        "15.22"
    );
    // Row 8 is M08: "pronto" cannot be read.
    let t = trace_row(Input::Path(&path), &e, &opts, 8).unwrap();
    assert_eq!(
        input(
            &t,
            "original maturity <= 3 months?",
            "Maturity (unreadable)"
        ),
        "pronto"
    );
    assert_eq!(t.suggested_rw_pct, 50.0);
    // With the lever classified, as `analyze` does with `Auto`.
    let auto = AnalyzeOptions::default();
    assert_eq!(
        trace_row(Input::Path(&path), &e, &auto, 1).unwrap().lever,
        Lever::Pse
    );
    let err = |row| {
        trace_row(Input::Path(&path), &e, &opts, row)
            .unwrap_err()
            .to_string()
    };
    assert_eq!(err(14), "row 14 does not exist: the file has 13 data rows");
    assert!(err(0).contains("numbered from 1"));
}
