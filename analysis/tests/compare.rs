//! CRR2 against CRR3 on the same file (`--compare-ruleset`), worked out by hand from the rule
//! tables: `fixtures/hand/corp_crr2_en.csv` at reporting date 2025-06-30 (EU-CRR3) compared with
//! EU-CRR2. D01 is a CQS 3 corporate: 75 % under CRR3 Table 6, 100 % under CRR2 (saving 250,000
//! against 0); D02 CQS 2: 50 % under both (500,000); D03 unrated with 250,000 of cash in euros:
//! 75 % under both (250,000).

use std::path::{Path, PathBuf};

use analysis::cli::{AnalyzeArgs, describe, run_analyze};
use chrono::NaiveDate;

fn hand() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hand")
}

fn args(name: &str, out: &str, compare: Option<&str>) -> AnalyzeArgs {
    let dir = std::env::temp_dir().join(format!("analysis-compare-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    AnalyzeArgs {
        input: hand().join(format!("{name}.csv")),
        lever: "corporates".into(),
        mapping: None,
        refdata: Some(hand().join("refdata")),
        ruleset: None,
        reporting_date: NaiveDate::from_ymd_opt(2025, 6, 30),
        client_country: "ES".into(),
        cet1_capital: None,
        total_rwas: None,
        output: dir.join(out),
        summary: None,
        threads: Some(2),
        max_file_mb: 20,
        maturity_unit: None,
        risk_weight_format: None,
        compare_ruleset: compare.map(str::to_string),
        trace_row: None,
    }
}

#[test]
fn crr3_against_crr2_by_rule_article_and_waterfall() {
    let a = args("corp_crr2_en", "cmp.csv", Some("EU-CRR2"));
    let r = run_analyze(&a).unwrap();
    let s = &r.summary;
    assert_eq!(s.rule_set, "EU-CRR3");
    assert_eq!(s.total_rwa_saving, 1_000_000.0);
    let c = s.comparison.as_ref().expect("a comparison");
    assert_eq!(
        (c.rule_set.as_str(), c.compare_rule_set.as_str()),
        ("EU-CRR3", "EU-CRR2")
    );
    assert_eq!(
        (c.rwa_saving, c.compare_rwa_saving, c.difference),
        (1e6, 750_000.0, -250_000.0)
    );
    assert_eq!(c.compare_matched, 3);
    // RWAs after under CRR2: 100 % + 50 % + 75 % of 1m each.
    assert_eq!(c.compare_rwa_after, 2_250_000.0);
    let g = &c.by_rule[0];
    assert_eq!(
        (g.from.as_str(), g.to.as_str()),
        ("CORP_RATED", "CORP_RATED")
    );
    assert_eq!(g.from_reference.as_deref(), Some("CRR Art. 122(1) Table 6"));
    assert_eq!(
        (
            g.rows,
            g.exposure_amount,
            g.rwa_saving,
            g.compare_rwa_saving,
            g.difference
        ),
        (2, 2e6, 750_000.0, 500_000.0, -250_000.0)
    );
    let g = &c.by_rule[1];
    assert_eq!(g.from, "CORP_UNRATED > FCSM_CASH_SAME_CCY");
    assert_eq!((g.rows, g.difference), (1, 0.0));
    assert_eq!(c.by_rule.len(), 2);
    let arts: Vec<(&str, &str, f64)> = c
        .by_article
        .iter()
        .map(|g| (g.from.as_str(), g.to.as_str(), g.difference))
        .collect();
    assert_eq!(
        arts,
        [
            (
                "CRR Art. 122(1) Table 6",
                "CRR Art. 122(1) Table 6",
                -250_000.0
            ),
            ("CRR Art. 222(6)", "CRR Art. 222(6)", 0.0),
        ]
    );
    let w: Vec<(&str, f64, f64)> = c
        .waterfall
        .iter()
        .map(|s| (s.label.as_str(), s.amount, s.cumulative))
        .collect();
    assert_eq!(
        w,
        [
            ("saving under EU-CRR3", 1e6, 1e6),
            (
                "CORP_RATED (CRR Art. 122(1) Table 6) -> CORP_RATED (CRR Art. 122(1) Table 6)",
                -250_000.0,
                750_000.0
            ),
            ("saving under EU-CRR2", 750_000.0, 750_000.0),
        ]
    );
    assert!(
        describe(&r).contains("under EU-CRR2: RWA saving 750000.00 (-250000.00 against EU-CRR3)")
    );
    // The processed file is the run's rule set's, the same as without the comparison.
    let b = args("corp_crr2_en", "plain.csv", None);
    let plain = run_analyze(&b).unwrap();
    assert!(plain.summary.comparison.is_none());
    assert_eq!(
        std::fs::read(&a.output).unwrap(),
        std::fs::read(&b.output).unwrap()
    );
}

#[test]
fn a_rule_set_against_itself_moves_nothing_and_an_unknown_one_is_refused() {
    let r = run_analyze(&args("corp_crr3_en", "self.csv", Some("EU-CRR3"))).unwrap();
    let c = r.summary.comparison.unwrap();
    assert_eq!(c.difference, 0.0);
    assert_eq!(c.compare_rwa_saving, r.summary.total_rwa_saving);
    assert!(
        c.by_rule
            .iter()
            .all(|g| g.from == g.to && g.difference == 0.0)
    );
    assert_eq!(c.waterfall.len(), 2);
    let e = run_analyze(&args("corp_crr3_en", "bad.csv", Some("EU-CRR9")))
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("Unknown rule set: EU-CRR9"), "{e}");
}
