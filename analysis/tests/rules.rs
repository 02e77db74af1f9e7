//! Data-driven rule tests: every row of `fixtures/rules/cases.csv` is a hand-computed case
//! (inputs, expected weight, rule, article, status, saving, Match_Details text, flags), evaluated
//! against the reference data in `fixtures/rules/refdata/` (the CSV layout of the issue).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use analysis::engine::{Engine, EngineContext};
use analysis::model::{ExposureRow, Lever, MatchStatus};
use analysis::refdata::RefData;
use analysis::rules::RuleSet;
use chrono::NaiveDate;

/// Counts heap allocations per thread, to check that `Engine::evaluate` allocates nothing.
struct CountingAlloc;

thread_local! {
    static ALLOCATIONS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

// SAFETY: forwards every call unchanged to the system allocator; only counts.
#[allow(unsafe_code)]
unsafe impl std::alloc::GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: same contract as the caller's.
        unsafe { std::alloc::System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: same contract as the caller's.
        unsafe { std::alloc::System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

fn allocations() -> u64 {
    ALLOCATIONS.with(|c| c.get())
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rules")
}

fn refdata() -> Arc<RefData> {
    Arc::new(RefData::load_dir(&fixtures().join("refdata")).expect("fixture reference data loads"))
}

fn opt_f64(s: &str) -> Option<f64> {
    if s.trim().is_empty() {
        None
    } else {
        Some(s.trim().parse().expect("number in fixture"))
    }
}

fn opt_bool(s: &str) -> Option<bool> {
    match s.trim() {
        "" => None,
        "Yes" | "Y" | "yes" => Some(true),
        _ => Some(false),
    }
}

#[test]
fn hand_computed_cases() {
    let refdata = refdata();
    let mut rdr = csv::Reader::from_path(fixtures().join("cases.csv")).expect("cases.csv");
    let headers = rdr.headers().expect("headers").clone();
    let col = |name: &str| {
        headers
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("column {name}"))
    };
    let mut failures = Vec::new();
    let mut count = 0;
    let mut other_refdata: std::collections::HashMap<String, Arc<RefData>> = Default::default();
    for rec in rdr.records() {
        let rec = rec.expect("record");
        let get = |name: &str| rec.get(col(name)).unwrap_or("");
        count += 1;
        let id = get("id").to_string();
        let date = NaiveDate::parse_from_str(get("reporting_date"), "%Y-%m-%d").expect("date");
        let rules = match get("rule_set") {
            "" => RuleSet::for_reporting_date(date),
            rs => RuleSet::by_id(rs).expect("rule set"),
        };
        let mut ctx = EngineContext::new(date);
        if !get("client_country").is_empty() {
            ctx.client_country = get("client_country").to_string();
        }
        // A case may name another reference directory under fixtures/rules/ (a short layout, a
        // list without some entity); missing files there fall back to the built-in lists.
        let case_refdata = match get("refdata") {
            "" => Arc::clone(&refdata),
            dir => Arc::clone(other_refdata.entry(dir.to_string()).or_insert_with(|| {
                Arc::new(
                    RefData::load_dir(&fixtures().join(dir)).expect("case reference data loads"),
                )
            })),
        };
        let engine = Engine::new(rules, case_refdata, ctx);
        let lever = Lever::parse(get("lever")).expect("lever");
        let maturity_date = match get("maturity_date") {
            "" => None,
            d => Some(NaiveDate::parse_from_str(d, "%Y-%m-%d").expect("maturity date")),
        };
        // The residual day count the pipeline derives from a maturity date.
        let residual =
            opt_f64(get("residual_days")).or(maturity_date.map(|m| (m - date).num_days() as f64));
        let amount = opt_f64(get("amount"));
        let row = ExposureRow {
            exposure_id: &id,
            asset_class: get("asset_class"),
            eligible_collateral: opt_bool(get("eligible")),
            current_rw_pct: opt_f64(get("current_rw")),
            exposure_amount: amount,
            nif: get("nif"),
            lei: get("lei"),
            legal_name: get("legal_name"),
            residual_maturity_days: residual,
            original_maturity_days: opt_f64(get("original_days")),
            currency: get("currency"),
            country: get("country"),
            cqs: opt_f64(get("cqs")).map(|c| c as u8),
            invalid_cqs: "",
            invalid_maturity: "",
            collateral_value: opt_f64(get("coll_value")),
            collateral_rw_pct: opt_f64(get("coll_rw")),
            maturity_date,
            scra_grade: get("scra_grade"),
            collateral_type: get("coll_type"),
            collateral_currency: get("coll_ccy"),
        };
        let d = engine.evaluate(lever, &row);
        let mut errs = Vec::new();
        // Tracing re-evaluates the row through the same procedure: the same decision.
        let tr = engine.trace(lever, &row);
        if (
            tr.status,
            tr.suggested_rw_pct,
            tr.details.as_str(),
            tr.applied_rule.as_str(),
        ) != (
            d.status,
            d.suggested_rw_pct,
            d.details.to_string().as_str(),
            d.applied_rule.to_string().as_str(),
        ) {
            errs.push(format!("trace differs: {tr:?}"));
        }
        if tr.steps.last().is_none() {
            errs.push("empty trace".to_string());
        }
        let exp_rw: f64 = get("exp_rw").parse().expect("exp_rw");
        if (d.suggested_rw_pct - exp_rw).abs() > 1e-9 {
            errs.push(format!("suggested {} != {exp_rw}", d.suggested_rw_pct));
        }
        if d.suggested_rw_pct > d.current_rw_pct + 1e-12 {
            errs.push("suggestion above the current weight".to_string());
        }
        let status = d.status.as_str();
        if status != get("exp_status") {
            errs.push(format!("status {status} != {}", get("exp_status")));
        }
        let rule = d.applied_rule.to_string();
        if rule != get("exp_rule") {
            errs.push(format!("rule \"{rule}\" != \"{}\"", get("exp_rule")));
        }
        let reference = d.regulatory_reference.to_string();
        if reference != get("exp_reference") {
            errs.push(format!(
                "reference \"{reference}\" != \"{}\"",
                get("exp_reference")
            ));
        }
        let saving = amount.map(|a| d.capital_saving(a)).unwrap_or(0.0);
        let exp_saving: f64 = get("exp_saving").parse().expect("exp_saving");
        if (saving - exp_saving).abs() > 1e-6 {
            errs.push(format!("saving {saving} != {exp_saving}"));
        }
        let details = d.details.to_string();
        let mut fast = String::new();
        d.details.write_to(&mut fast);
        fast.push('|');
        d.applied_rule.write_to(&mut fast);
        fast.push('|');
        d.regulatory_reference.write_to(&mut fast);
        if fast != format!("{details}|{rule}|{reference}") {
            errs.push(format!(
                "write_to gives \"{fast}\", Display gives \"{details}|{rule}|{reference}\""
            ));
        }
        if !get("exp_details").is_empty() && !details.contains(get("exp_details")) {
            errs.push(format!(
                "details \"{details}\" lacks \"{}\"",
                get("exp_details")
            ));
        }
        let flags: Vec<&str> = d.flags.names().collect();
        match get("exp_flags") {
            "" => {}
            "none" => {
                if !d.flags.is_empty() {
                    errs.push(format!("flags {flags:?}, expected none"));
                }
            }
            exp => {
                for f in exp.split(';') {
                    if !flags.contains(&f) {
                        errs.push(format!("flag \"{f}\" missing from {flags:?}"));
                    }
                }
            }
        }
        if d.status != MatchStatus::Matched && d.rw_delta_pct() != 0.0 {
            errs.push("an unmatched row changed the weight".to_string());
        }
        if !errs.is_empty() {
            failures.push(format!(
                "{id} ({}): {} | details: {details}",
                get("note"),
                errs.join("; ")
            ));
        }
    }
    assert!(count >= 100, "only {count} cases");
    assert!(
        failures.is_empty(),
        "{} of {count} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn fixture_directory_replaces_lists_and_keeps_the_rest_builtin() {
    let r = refdata();
    assert_eq!(r.pse().len(), 7);
    assert_eq!(r.rgla().len(), 6);
    assert_eq!(r.mdb().len(), 9);
    assert_eq!(r.institutions().len(), 4);
    assert_eq!(r.sovereigns().len(), 11);
    // A directory with only pse.csv: the other lists fall back to the built-in ones.
    let dir = std::env::temp_dir().join(format!("capopt-rules-only-pse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(fixtures().join("refdata/pse.csv"), dir.join("pse.csv")).unwrap();
    let partial = RefData::load_dir(&dir).unwrap();
    assert_eq!(partial.pse().len(), 7);
    assert_eq!(partial.mdb().len(), RefData::builtin_shared().mdb().len());
    assert!(partial.sources().to_string().contains("pse: 7 rows"));
    // An empty pse.csv (header only) gives the specification's error on every PSE row.
    std::fs::write(dir.join("pse.csv"), "nif,legal_name,country,entity_cqs,own_gov_cqs,treated_as_central_government,source,as_of\n").unwrap();
    let empty = Arc::new(RefData::load_dir(&dir).unwrap());
    let date = NaiveDate::from_ymd_opt(2025, 6, 30).unwrap();
    let engine = Engine::new(
        RuleSet::for_reporting_date(date),
        empty,
        EngineContext::new(date),
    );
    let row = ExposureRow {
        nif: "Q9900001J",
        current_rw_pct: Some(100.0),
        ..Default::default()
    };
    let d = engine.evaluate(Lever::Pse, &row);
    assert_eq!(d.status, MatchStatus::Error);
    assert_eq!(d.details.to_string(), "PSE reference data is empty");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_reference_files_fail_with_file_and_line() {
    let dir = std::env::temp_dir().join(format!("capopt-rules-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("rgla.csv"),
        "nif,legal_name,rgla_type,country,entity_cqs,treated_as_central_government,source,as_of\nP2807900B,Madrid,municipio,ES,,Y,x,2025\nP2807900C,Typo,municipio,ES,,Y,x,2025\n",
    )
    .unwrap();
    let e = RefData::load_dir(&dir).unwrap_err().to_string();
    assert_eq!(
        e,
        "Failed to load RGLA reference data: rgla.csv line 3: NIF \"P2807900C\": invalid check character (expected B)"
    );
    std::fs::write(dir.join("rgla.csv"), "nif\nP2807900B\nP2807900B\n").unwrap();
    assert!(
        RefData::load_dir(&dir)
            .unwrap_err()
            .to_string()
            .contains("duplicate NIF P2807900B")
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert!(RefData::load_dir(Path::new("/nonexistent/capopt")).is_err());
}

#[test]
fn evaluate_never_panics_on_odd_rows() {
    let refdata = RefData::builtin_shared();
    let date = NaiveDate::from_ymd_opt(2025, 6, 30).unwrap();
    let odd = [
        "",
        " ",
        "\u{0}",
        "ÑÑÑÑÑÑÑÑÑ",
        "ES",
        "ESESESESESES",
        "Q",
        "99999999999999999999",
        "😀😀😀",
        "P-2807900-B",
        "5493006YXS1U5GIHE750",
        "a,b;c",
        "A+",
        "∞",
    ];
    for id in RuleSet::available() {
        let engine = Engine::new(
            RuleSet::by_id(id).unwrap(),
            Arc::clone(&refdata),
            EngineContext::new(date),
        );
        for lever in Lever::ALL {
            for (i, s) in odd.iter().enumerate() {
                for cur in [
                    None,
                    Some(f64::NAN),
                    Some(f64::INFINITY),
                    Some(-1.0),
                    Some(0.0),
                    Some(1e300),
                ] {
                    let row = ExposureRow {
                        asset_class: s,
                        nif: s,
                        lei: s,
                        legal_name: s,
                        currency: s,
                        country: s,
                        scra_grade: s,
                        collateral_type: s,
                        collateral_currency: s,
                        current_rw_pct: cur,
                        cqs: Some(i as u8),
                        exposure_amount: Some(if i % 2 == 0 { f64::NAN } else { 1e6 }),
                        collateral_value: Some(i as f64 * 1e5),
                        collateral_rw_pct: Some(i as f64 * 10.0),
                        eligible_collateral: Some(i % 3 == 0),
                        residual_maturity_days: Some(if i % 2 == 0 { f64::NAN } else { -5.0 }),
                        original_maturity_days: Some(i as f64 * 30.0),
                        maturity_date: NaiveDate::from_ymd_opt(2025 + i as i32, 1, 1),
                        ..Default::default()
                    };
                    let d = engine.evaluate(lever, &row);
                    // Non-finite current weights count as missing (100 %), so the suggestion is
                    // always a number and never above the current weight.
                    assert!(
                        d.suggested_rw_pct.is_finite() && d.suggested_rw_pct <= d.current_rw_pct
                    );
                    let _ = (
                        d.details.to_string(),
                        d.applied_rule.to_string(),
                        d.regulatory_reference.to_string(),
                    );
                    assert!(d.capital_saving(1e6).is_finite());
                }
            }
        }
    }
}

#[test]
fn builtin_data_matches_generated_files() {
    // Most rows of a generated PSE file match the built-in list; the mix of unknown, malformed
    // and blank identifiers shows up as not_matched.
    let refdata = RefData::builtin_shared();
    let mut buf = Vec::new();
    analysis::generate::generate_exposures(Lever::Pse, 2000, 7, &refdata, &mut buf).unwrap();
    let mut rdr = csv::Reader::from_reader(buf.as_slice());
    let h = rdr.headers().unwrap().clone();
    let nif_col = h.iter().position(|x| x == "NIF").unwrap();
    let date = NaiveDate::from_ymd_opt(2025, 12, 31).unwrap();
    let engine = Engine::new(
        RuleSet::for_reporting_date(date),
        Arc::clone(&refdata),
        EngineContext::new(date),
    );
    let (mut matched, mut total) = (0, 0);
    for rec in rdr.records() {
        let rec = rec.unwrap();
        let row = ExposureRow {
            nif: &rec[nif_col],
            current_rw_pct: Some(100.0),
            currency: "EUR",
            ..Default::default()
        };
        total += 1;
        if engine.evaluate(Lever::Pse, &row).status == MatchStatus::Matched {
            matched += 1;
        }
    }
    let share = matched as f64 / total as f64;
    assert!((0.8..0.95).contains(&share), "matched share {share}");
}

#[test]
fn evaluate_allocates_nothing() {
    let refdata = RefData::builtin_shared();
    let date = NaiveDate::from_ymd_opt(2025, 12, 31).unwrap();
    // Realistic rows of every lever (built before counting).
    let mut files = Vec::new();
    for lever in Lever::ALL {
        let mut buf = Vec::new();
        analysis::generate::generate_exposures(lever, 500, 3, &refdata, &mut buf).unwrap();
        let mut rdr = csv::Reader::from_reader(buf.as_slice());
        let h: Vec<String> = rdr.headers().unwrap().iter().map(str::to_string).collect();
        let recs: Vec<csv::StringRecord> = rdr.records().map(|r| r.unwrap()).collect();
        files.push((lever, h, recs));
    }
    let engines: Vec<Engine> = RuleSet::available()
        .into_iter()
        .map(|id| {
            Engine::new(
                RuleSet::by_id(id).unwrap(),
                Arc::clone(&refdata),
                EngineContext::new(date),
            )
        })
        .collect();
    let mut rows = Vec::new();
    for (lever, h, recs) in &files {
        let col = |n: &str| h.iter().position(|x| x == n);
        let f = |r: &csv::StringRecord, n: &str| -> String {
            col(n).and_then(|c| r.get(c)).unwrap_or("").to_string()
        };
        for r in recs {
            rows.push((
                *lever,
                [
                    f(r, "Asset_Class"),
                    f(r, "NIF"),
                    f(r, "LEI"),
                    f(r, "Legal_Name"),
                    f(r, "Currency"),
                    f(r, "Country"),
                    f(r, "SCRA_Grade"),
                    f(r, "Collateral_Type"),
                    f(r, "Collateral_Currency"),
                    f(r, "Current_Risk_Weight"),
                    f(r, "Exposure_Amount"),
                    f(r, "Credit_Quality_Step"),
                    f(r, "Collateral_Value"),
                    f(r, "Collateral_Risk_Weight"),
                    f(r, "Eligible_Collateral"),
                    f(r, "Maturity"),
                ],
            ));
        }
    }
    let exposures: Vec<(Lever, ExposureRow<'_>)> = rows
        .iter()
        .map(|(lever, v)| {
            let m = NaiveDate::parse_from_str(&v[15], "%Y-%m-%d").ok();
            (
                *lever,
                ExposureRow {
                    asset_class: &v[0],
                    nif: &v[1],
                    lei: &v[2],
                    legal_name: &v[3],
                    currency: &v[4],
                    country: &v[5],
                    scra_grade: &v[6],
                    collateral_type: &v[7],
                    collateral_currency: &v[8],
                    current_rw_pct: opt_f64(&v[9]),
                    exposure_amount: opt_f64(&v[10]),
                    cqs: opt_f64(&v[11]).map(|c| c as u8),
                    collateral_value: opt_f64(&v[12]),
                    collateral_rw_pct: opt_f64(&v[13]),
                    eligible_collateral: opt_bool(&v[14]),
                    maturity_date: m,
                    residual_maturity_days: m.map(|d| (d - date).num_days() as f64),
                    ..Default::default()
                },
            )
        })
        .collect();
    let mut matched = 0u64;
    let before = allocations();
    for engine in &engines {
        for (lever, row) in &exposures {
            let d = engine.evaluate(*lever, row);
            matched += u64::from(d.status == MatchStatus::Matched);
        }
    }
    let during = allocations() - before;
    assert!(matched > 5_000, "only {matched} matched rows");
    assert_eq!(
        during,
        0,
        "Engine::evaluate allocated {during} times over {} rows",
        exposures.len() * engines.len()
    );
}
