//! Maturity as users write it, through `capopt analyze` (`cli::run_analyze`): bare numbers in the
//! unit the header names (else months), dates, numbers with their unit, unreadable values
//! flagged, the unit given by the user, and the unit in the mapping result. Expected figures are
//! worked out by hand: a month is 365.25 / 12 = 30.4375 days, three months or less is 92 days or
//! fewer; Q8100001J is an unrated Spanish PSE (CRR3: 116(3) 20 % when short, else Table 2 by
//! Spain's CQS 2, 50 %).

use std::path::{Path, PathBuf};

use analysis::cli::{AnalyzeArgs, run_analyze};
use analysis::mapping::{MaturityUnit, auto_map, maturity_unit_from_header};
use analysis::pipeline::UnitSource;
use chrono::NaiveDate;

fn hand() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hand")
}

fn args(name: &str, unit: Option<MaturityUnit>) -> AnalyzeArgs {
    let dir = std::env::temp_dir().join(format!("analysis-maturity-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    AnalyzeArgs {
        input: hand().join(format!("{name}.csv")),
        lever: "pse".into(),
        mapping: None,
        refdata: Some(hand().join("refdata")),
        ruleset: None,
        reporting_date: NaiveDate::from_ymd_opt(2025, 6, 30),
        client_country: "ES".into(),
        cet1_capital: None,
        total_rwas: None,
        output: dir.join(format!("{name}-{unit:?}.csv")),
        summary: None,
        threads: Some(2),
        max_file_mb: 20,
        maturity_unit: unit,
        risk_weight_format: None,
        compare_ruleset: None,
        trace_row: None,
    }
}

/// Suggested weight (percent file) and saving per Exposure_ID.
fn results(path: &Path) -> Vec<(String, f64, f64, String)> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let h = r.headers().unwrap().clone();
    let col = |n: &str| h.iter().position(|x| x == n).unwrap();
    let (id, sw, sv, md) = (
        col("Exposure_ID"),
        col("Suggested_Risk_Weight"),
        col("Capital_Saving"),
        col("Match_Details"),
    );
    r.records()
        .map(|x| {
            let x = x.unwrap();
            (
                x[id].to_string(),
                x[sw].parse().unwrap(),
                x[sv].parse().unwrap(),
                x[md].to_string(),
            )
        })
        .collect()
}

#[test]
fn bare_numbers_are_months_by_default_and_every_form_is_counted() {
    let a = args("pse_maturity_bare_en", None);
    let r = run_analyze(&a).unwrap();
    let m = r.summary.maturity.clone().expect("a Maturity column");
    assert_eq!(m.column, "Maturity");
    assert_eq!(
        (m.unit, m.unit_source),
        (MaturityUnit::Months, UnitSource::Default)
    );
    // 3, 60, 120, 4, 0.5 | 2025-09-30, 2025-10-01, 30/09/2025 | 90d, 3 years | blank | pronto, -3
    assert_eq!(
        (
            m.numbers,
            m.dates,
            m.numbers_with_unit,
            m.blank,
            m.unreadable
        ),
        (5, 3, 2, 1, 2)
    );
    assert_eq!(r.summary.flags.get("maturity unreadable"), Some(&2));
    let w = &r.summary.warnings;
    assert!(
        w.iter()
            .any(|w| w.contains("read as months") && w.contains("(5 in the first rows)")),
        "{w:?}"
    );
    assert!(
        w.iter()
            .any(|w| w.starts_with("2 Maturity value(s) could not be read")),
        "{w:?}"
    );
    let rows = results(&a.output);
    let m08 = rows.iter().find(|r| r.0 == "M08").unwrap();
    assert!(
        m08.3.ends_with(
            "Maturity \"pronto\" could not be read (a date, a number of months, or a number with its unit such as 90 days): short-term treatment not considered, check it"
        ),
        "{}",
        m08.3
    );
    // A readable maturity says nothing about it.
    let m02 = rows.iter().find(|r| r.0 == "M02").unwrap();
    assert!(!m02.3.contains("could not be read"));
}

#[test]
fn a_unit_given_by_the_user_wins_over_the_default() {
    // The same file read in days: 3, 60, 4 and 0.5 days are short-term, 120 days is not.
    let a = args("pse_maturity_bare_en", Some(MaturityUnit::Days));
    let r = run_analyze(&a).unwrap();
    let m = r.summary.maturity.clone().unwrap();
    assert_eq!(
        (m.unit, m.unit_source),
        (MaturityUnit::Days, UnitSource::Given)
    );
    assert!(
        !r.summary
            .warnings
            .iter()
            .any(|w| w.contains("read as months"))
    );
    let rows = results(&a.output);
    let get = |id: &str| {
        let r = rows.iter().find(|r| r.0 == id).unwrap();
        (r.1, r.2)
    };
    assert_eq!(get("M01"), (20.0, 800_000.0));
    assert_eq!(get("M02"), (20.0, 800_000.0));
    assert_eq!(get("M03"), (50.0, 1_000_000.0));
    assert_eq!(get("M04"), (20.0, 800_000.0));
    assert_eq!(get("M12"), (20.0, 1_200_000.0));
    // Numbers with a unit and dates are read the same whatever the column's unit.
    assert_eq!(get("M07"), (20.0, 800_000.0));
    assert_eq!(get("M11"), (50.0, 500_000.0));
    assert_eq!(get("M05"), (20.0, 800_000.0));
    assert_eq!(get("M06"), (50.0, 500_000.0));
    // 800,000 x 6 (M01, M02, M04, M05, M07, M13) + 1,200,000 (M12) + 500,000 x 5 (M06, M08,
    // M09, M10, M11) + 1,000,000 (M03)
    assert_eq!(
        r.summary.total_rwa_saving,
        4_800_000.0 + 1_200_000.0 + 2_500_000.0 + 1_000_000.0
    );
    // In years, 0.5 is six months: long.
    let a = args("pse_maturity_bare_en", Some(MaturityUnit::Years));
    run_analyze(&a).unwrap();
    let rows = results(&a.output);
    let m12 = rows.iter().find(|r| r.0 == "M12").unwrap();
    assert_eq!((m12.1, m12.2), (50.0, 0.0));
}

#[test]
fn the_header_names_the_unit() {
    let r = run_analyze(&args("pse_maturity_days_es", None)).unwrap();
    let m = r.summary.maturity.unwrap();
    assert_eq!(m.column, "Vencimiento (días)");
    assert_eq!(
        (m.unit, m.unit_source),
        (MaturityUnit::Days, UnitSource::Header)
    );
    assert_eq!((m.numbers, m.numbers_with_unit, m.dates), (4, 1, 1));
    let r = run_analyze(&args("pse_maturity_years_es", None)).unwrap();
    let m = r.summary.maturity.unwrap();
    assert_eq!(
        (m.unit, m.unit_source),
        (MaturityUnit::Years, UnitSource::Header)
    );
    assert_eq!(m.unreadable, 1);
}

#[test]
fn header_words_name_units() {
    use MaturityUnit::{Days, Months, Years};
    for (h, u) in [
        ("Maturity (days)", Some(Days)),
        ("Vencimiento (días)", Some(Days)),
        ("plazo_dias", Some(Days)),
        ("MaturityDays", Some(Days)),
        ("Days to maturity", Some(Days)),
        ("Maturity (months)", Some(Months)),
        ("Plazo meses", Some(Months)),
        ("Residual maturity [m]", Some(Months)),
        ("Term (yrs)", Some(Years)),
        ("Vencimiento años", Some(Years)),
        ("VencimientoAnos", Some(Years)),
        ("Maturity_Y", Some(Years)),
        ("Maturity", None),
        ("Fecha de vencimiento", None),
        ("Vencimiento", None),
        ("Maturity date", None),
        // One letter alone, or first, is no unit; two units are no unit.
        ("M", None),
        ("d maturity", None),
        ("Maturity days or months", None),
    ] {
        assert_eq!(maturity_unit_from_header(h), u, "{h}");
    }
    let cols: Vec<String> = ["ID", "Importe", "Vencimiento (años)", "NIF"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let s = auto_map(&cols);
    let m = s.iter().find(|s| s.target == "Maturity").unwrap();
    assert_eq!(m.source, "Vencimiento (años)");
    assert_eq!(m.maturity_unit, Some(Years));
    let plain: Vec<String> = vec!["Maturity".into()];
    assert_eq!(auto_map(&plain)[0].maturity_unit, Some(Months));
    assert!(
        s.iter()
            .filter(|s| s.target != "Maturity")
            .all(|s| s.maturity_unit.is_none())
    );
}

#[test]
fn the_command_line_traces_a_row() {
    let mut a = args("pse_maturity_bare_en", None);
    a.trace_row = Some(1);
    let r = run_analyze(&a).unwrap();
    // M01: 3 months, short-term under 116(3).
    let t = r.summary.trace.as_ref().expect("a trace");
    assert_eq!(t.applied_rule, "PSE_SHORT");
    let text = analysis::cli::describe(&r);
    assert!(
        text.contains(
            "original maturity <= 3 months? yes (the Maturity given taken as the original maturity)"
        ),
        "{text}"
    );
    assert!(text.contains("residual maturity (days) 91.31"), "{text}");
    // A row that does not exist fails the command and leaves no output.
    a.trace_row = Some(99);
    a.output = a.output.with_file_name("trace-missing.csv");
    let e = run_analyze(&a).unwrap_err().to_string();
    assert_eq!(e, "row 99 does not exist: the file has 13 data rows");
    assert!(!a.output.exists());
}
