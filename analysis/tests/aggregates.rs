//! File aggregates, worked out by hand from the rules (EU-CRR3, reporting date 2025-06-30; the
//! reference data of `fixtures/hand/refdata`: Q8100001J an unrated Spanish PSE, 116(3) 20 %
//! when short-term, else Table 2 by Spain's CQS 2, 50 %).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use analysis::engine::{Engine, EngineContext};
use analysis::ingest::Input;
use analysis::model::{Lever, MatchStatus};
use analysis::pipeline::{
    AnalysisSummary, AnalyzeOptions, GroupSummary, LeverChoice, OutputTarget, analyze,
};
use analysis::refdata::RefData;
use analysis::rules::RuleSet;
use chrono::NaiveDate;

fn hand() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hand")
}

fn engine() -> Engine {
    Engine::new(
        RuleSet::by_id("EU-CRR3").unwrap(),
        Arc::new(RefData::load_dir(&hand().join("refdata")).unwrap()),
        EngineContext::new(NaiveDate::from_ymd_opt(2025, 6, 30).unwrap()),
    )
}

fn run(name: &str, data: &[u8], threads: usize, chunk_rows: usize) -> AnalysisSummary {
    let o = AnalyzeOptions {
        lever: LeverChoice::Fixed(Lever::Pse),
        threads,
        chunk_rows,
        ..AnalyzeOptions::default()
    };
    analyze(
        Input::Bytes { name, data },
        &engine(),
        &o,
        OutputTarget::Discard,
    )
    .unwrap()
    .summary
}

fn group<'a>(g: &'a [GroupSummary], key: &str) -> &'a GroupSummary {
    g.iter()
        .find(|x| x.key == key)
        .unwrap_or_else(|| panic!("no group {key} in {g:?}"))
}

/// (rows, exposure, RWAs before, RWAs after, saving)
fn figures(g: &GroupSummary) -> (u64, f64, f64, f64, f64) {
    (
        g.rows,
        g.exposure_amount,
        g.rwa_before,
        g.rwa_after,
        g.rwa_saving,
    )
}

#[test]
fn maturity_buckets_articles_tops_and_quality_of_the_hand_file() {
    let data = std::fs::read(hand().join("pse_maturity_bare_en.csv")).unwrap();
    let s = run("pse_maturity_bare_en.csv", &data, 2, 64);
    let a = &s.aggregates;
    // M01 3 months, M05 and M13 92 days, M07 90 days, M12 half a month: 116(3) 20 %.
    // 1m x 4 + 4m = 8m; before 1m x 4 + 4m x 50 % = 6m; after 20 % of 8m = 1.6m; saving 4.4m.
    let b = &a.by_maturity_bucket;
    assert_eq!(
        figures(group(b, "<= 3 months")),
        (5, 8e6, 6e6, 1.6e6, 4.4e6)
    );
    // M04 4 months, M06 93 days: 50 %.
    assert_eq!(figures(group(b, "3-12 months")), (2, 2e6, 2e6, 1e6, 1e6));
    // M02 60 months (1,826.25 days, five years to the day), M11 3 years.
    assert_eq!(figures(group(b, "1-5 years")), (2, 2e6, 2e6, 1e6, 1e6));
    // M03 120 months, 2m.
    assert_eq!(figures(group(b, "> 5 years")), (1, 2e6, 2e6, 1e6, 1e6));
    // M08 pronto, M09 -3, M10 blank.
    assert_eq!(
        figures(group(b, "no maturity")),
        (3, 3e6, 3e6, 1.5e6, 1.5e6)
    );
    assert!(b.iter().all(|g| g.key != "past due"));
    let order: Vec<&str> = b.iter().map(|g| g.key.as_str()).collect();
    assert_eq!(
        order,
        [
            "<= 3 months",
            "3-12 months",
            "1-5 years",
            "> 5 years",
            "no maturity"
        ]
    );
    // By the deciding article: Table 2 (8 rows, 4.5m) before 116(3) (5 rows, 4.4m).
    let art = &a.by_article;
    assert_eq!(art.len(), 2);
    assert_eq!(art[0].key, "CRR Art. 116(1) Table 2");
    assert_eq!(figures(&art[0]), (8, 9e6, 9e6, 4.5e6, 4.5e6));
    assert_eq!(art[1].key, "CRR Art. 116(3)");
    assert_eq!(art[1].rwa_saving, 4.4e6);
    // One status, one country, one currency, no CQS column.
    assert_eq!(a.by_status.len(), 1);
    // Before: 1m x 11 + 2m (M03) at 100 %, 4m (M12) at 50 % = 15m; after = 15m - 8.9m.
    assert_eq!(
        figures(group(&a.by_status, "matched")),
        (13, 17e6, 15e6, 6.1e6, 8.9e6)
    );
    assert_eq!(group(&a.by_country, "ES").rows, 13);
    assert_eq!(group(&a.by_currency, "EUR").rows, 13);
    assert_eq!(group(&a.by_cqs, "none").rows, 13);
    assert!(a.reasons.is_empty());
    // Top savings: M12 1.2m, M03 1m, then 800k in row order, then 500k in row order.
    let rows: Vec<u64> = a.top_savings.iter().map(|t| t.row).collect();
    assert_eq!(rows, [12, 3, 1, 5, 7, 13, 2, 4, 6, 8, 9, 10, 11]);
    let top = &a.top_savings[0];
    assert_eq!(top.exposure_id, "M12");
    assert_eq!(
        (
            top.exposure_amount,
            top.current_rw_pct,
            top.suggested_rw_pct,
            top.capital_saving
        ),
        (4e6, 50.0, 20.0, 1.2e6)
    );
    assert_eq!(top.applied_rule, "PSE_SHORT");
    assert_eq!(top.status, MatchStatus::Matched);
    let rows: Vec<u64> = a.top_exposures.iter().map(|t| t.row).collect();
    assert_eq!(rows, [12, 3, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 13]);
    // Data quality: M10's Maturity blank, the LEI column empty; pronto and -3 unreadable.
    let q = &a.data_quality;
    assert_eq!(q.missing.get("Maturity"), Some(&1));
    assert_eq!(q.missing.get("LEI"), Some(&13));
    assert_eq!(q.missing.get("NIF"), None);
    assert_eq!(q.unreadable.get("Maturity"), Some(&2));
    assert_eq!(q.unreadable.len(), 1);
    // Flagged: the five short-term rows (maturity taken as original maturity) and the three
    // without a usable maturity.
    assert_eq!(q.flagged_rows, 8);
    // The same file cut into chunks of 64 rows on two threads or 1 row on one gives the same.
    let one = run("pse_maturity_bare_en.csv", &data, 1, 1);
    assert_eq!(one.aggregates, s.aggregates);
}

#[test]
fn reasons_countries_currencies_and_steps() {
    // R1 matched (50 %, saving 500); R2 no NIF; R3 a NIF with a wrong check letter; R4 a valid NIF
    // not in the list; R5 a negative amount (error, counts for nothing); R6 matched, CQS 9
    // written (invalid), lower-case country and currency.
    let csv = "\
Exposure_ID,Current_Risk_Weight,Exposure_Amount,NIF,Maturity,Currency,Country,Credit_Quality_Step
R1,100,1000,Q8100001J,2030-01-01,EUR,ES,2
R2,100,2000,,2030-01-01,EUR,ES,
R3,100,3000,Q8100001A,2030-01-01,USD,FR,
R4,100,4000,Q9900001J,2030-01-01,,,
R5,100,-5000,Q8100001J,2030-01-01,EUR,ES,
R6,100,6000,Q8100001J,2030-01-01,eur,es,9
";
    let s = run("reasons.csv", csv.as_bytes(), 2, 64);
    let a = &s.aggregates;
    let reasons: Vec<(MatchStatus, &str, u64, f64)> = a
        .reasons
        .iter()
        .map(|r| (r.status, r.reason.as_str(), r.rows, r.exposure_amount))
        .collect();
    // The Match_Details of each: "Invalid Exposure_Amount" (an error), "Invalid
    // Credit_Quality_Step: 9" (R6: the engine refuses a CQS it cannot read rather than take
    // it as unrated), an invalid NIF, "Missing required fields: NIF", "NIF ... not found in
    // Spanish PSE database". Most rows first, then by key.
    assert_eq!(
        reasons,
        [
            (MatchStatus::Error, "invalid_amount", 1, 0.0),
            (MatchStatus::NotMatched, "invalid_cqs", 1, 6000.0),
            (MatchStatus::NotMatched, "invalid_nif", 1, 3000.0),
            (MatchStatus::NotMatched, "missing_fields", 1, 2000.0),
            (MatchStatus::NotMatched, "nif_not_found", 1, 4000.0),
        ]
    );
    assert_eq!((s.matched, s.not_matched, s.errors), (1, 4, 1));
    assert_eq!(group(&a.by_cqs, "invalid").rows, 1);
    assert_eq!(group(&a.by_cqs, "2").rows, 1);
    assert_eq!(group(&a.by_cqs, "none").rows, 4);
    assert_eq!(
        a.data_quality.unreadable.get("Credit_Quality_Step"),
        Some(&1)
    );
    // Countries and currencies upper-cased; blanks grouped.
    assert_eq!(group(&a.by_country, "ES").rows, 4);
    assert_eq!(group(&a.by_country, "FR").rows, 1);
    assert_eq!(group(&a.by_country, "(blank)").rows, 1);
    assert_eq!(group(&a.by_currency, "EUR").rows, 4);
    assert_eq!(group(&a.by_currency, "USD").exposure_amount, 3000.0);
    assert_eq!(group(&a.by_currency, "(blank)").rows, 1);
    // Statuses in their order; the error row's amount counts for nothing.
    let st: Vec<&str> = a.by_status.iter().map(|g| g.key.as_str()).collect();
    assert_eq!(&st[..2], ["matched", "not_matched"]);
    assert_eq!(group(&a.by_status, "error").exposure_amount, 0.0);
    assert_eq!(group(&a.by_status, "not_matched").exposure_amount, 15000.0);
    assert_eq!(
        figures(group(&a.by_status, "matched")),
        (1, 1000.0, 1000.0, 500.0, 500.0)
    );
    // Top exposures: 6,000 then 4,000, 3,000, 2,000, 1,000, and the negative amount as 0.
    let ids: Vec<&str> = a
        .top_exposures
        .iter()
        .map(|t| t.exposure_id.as_str())
        .collect();
    assert_eq!(ids, ["R6", "R4", "R3", "R2", "R1", "R5"]);
    // Missing: NIF (R2), Currency and Country (R4), Credit_Quality_Step (R2 to R5).
    let q = &a.data_quality;
    assert_eq!(q.missing.get("NIF"), Some(&1));
    assert_eq!(q.missing.get("Currency"), Some(&1));
    assert_eq!(q.missing.get("Country"), Some(&1));
    assert_eq!(q.missing.get("Credit_Quality_Step"), Some(&4));
}

#[test]
fn the_top_lists_keep_twenty_and_do_not_depend_on_chunks_or_threads() {
    // 100 rows with amounts 1,000 x ((i x 37) mod 100 + 1): every amount from 1,000 to 100,000
    // once. All matched at 50 % from 100 %: saving = amount / 2.
    let mut csv = String::from("Exposure_ID,Current_Risk_Weight,Exposure_Amount,NIF,Maturity\n");
    for i in 0..100u64 {
        let amount = 1000 * ((i * 37) % 100 + 1);
        csv.push_str(&format!("X{i},100,{amount},Q8100001J,2030-01-01\n"));
    }
    let s = run("many.csv", csv.as_bytes(), 3, 64);
    let a = &s.aggregates;
    assert_eq!(a.top_savings.len(), 20);
    assert_eq!(a.top_exposures.len(), 20);
    let amounts: Vec<f64> = a.top_exposures.iter().map(|t| t.exposure_amount).collect();
    let want: Vec<f64> = (81..=100).rev().map(|k| f64::from(k) * 1000.0).collect();
    assert_eq!(amounts, want);
    let savings: Vec<f64> = a.top_savings.iter().map(|t| t.capital_saving).collect();
    let want: Vec<f64> = (81..=100).rev().map(|k| f64::from(k) * 500.0).collect();
    assert_eq!(savings, want);
    // 100,000 is row i with 37 i mod 100 = 99: i = 27 (999 = 9 x 100 + 99), data row 28.
    assert_eq!(a.top_exposures[0].row, 28);
    assert_eq!(a.top_exposures[0].exposure_id, "X27");
    for (threads, chunk) in [(1, 64), (2, 64), (1, 1000)] {
        assert_eq!(
            run("many.csv", csv.as_bytes(), threads, chunk).aggregates,
            s.aggregates
        );
    }
}
