//! End-to-end cases: files in `tests/fixtures/files/` run through `analyze` (and the CLI entry
//! points), with expected weights and savings computed by hand from the rules (EU-CRR3, reporting
//! date 2025-06-30, client country ES).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use analysis::cli::{AnalyzeArgs, GenerateArgs, analyze_to_file, run_analyze, run_generate};
use analysis::engine::{Engine, EngineContext};
use analysis::ingest::{Input, Limits};
use analysis::model::Lever;
use analysis::output::OutputKind;
use analysis::pipeline::{
    AnalysisReport, AnalyzeOptions, LeverChoice, OutputTarget, RunControl, RwFormat, analyze,
};
use analysis::refdata::RefData;
use analysis::rules::RuleSet;
use calamine::Reader;
use chrono::NaiveDate;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/files")
        .join(name)
}

fn date() -> NaiveDate {
    NaiveDate::from_ymd_opt(2025, 6, 30).unwrap()
}

fn engine_with(refdata: Arc<RefData>, ruleset: &str) -> Engine {
    Engine::new(
        RuleSet::by_id(ruleset).unwrap(),
        refdata,
        EngineContext::new(date()),
    )
}

fn pse_engine() -> Engine {
    let rd = RefData::load_dir(&fixture("pse_refdata")).unwrap();
    engine_with(Arc::new(rd), "EU-CRR3")
}

fn opts(lever: Lever) -> AnalyzeOptions {
    AnalyzeOptions {
        lever: LeverChoice::Fixed(lever),
        ..AnalyzeOptions::default()
    }
}

fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("analysis-pipeline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// `capopt analyze` arguments for `pse_en.csv` with the fixture reference data, writing to
/// `output`; tests change what they need.
fn cli_args(output: PathBuf) -> AnalyzeArgs {
    AnalyzeArgs {
        input: fixture("pse_en.csv"),
        lever: "pse".into(),
        mapping: None,
        refdata: Some(fixture("pse_refdata")),
        ruleset: None,
        reporting_date: Some(date()),
        client_country: "ES".into(),
        cet1_capital: None,
        total_rwas: None,
        output,
        summary: None,
        threads: Some(2),
        max_file_mb: 20,
        maturity_unit: None,
        risk_weight_format: None,
        compare_ruleset: None,
        trace_row: None,
    }
}

/// Parses a processed CSV into header and rows.
fn read_csv(bytes: &[u8], delimiter: u8) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::str::from_utf8(bytes)
        .unwrap()
        .trim_start_matches('\u{feff}');
    let mut r = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .from_reader(text.as_bytes());
    let h = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r
        .records()
        .map(|x| x.unwrap().iter().map(String::from).collect())
        .collect();
    (h, rows)
}

fn col(h: &[String], name: &str) -> usize {
    h.iter()
        .position(|x| x == name)
        .unwrap_or_else(|| panic!("no column {name} in {h:?}"))
}

fn run_bytes(name: &str, engine: &Engine, o: &AnalyzeOptions) -> (AnalysisReport, Vec<u8>) {
    let data = std::fs::read(fixture(name)).unwrap();
    let mut out = Vec::new();
    let r = analyze(
        Input::Bytes { name, data: &data },
        engine,
        o,
        OutputTarget::Buffer(&mut out),
    )
    .unwrap();
    (r, out)
}

#[test]
fn pse_english_percent_file() {
    let engine = pse_engine();
    let (r, out) = run_bytes("pse_en.csv", &engine, &opts(Lever::Pse));
    let s = &r.summary;
    assert_eq!((s.rows, s.matched, s.not_matched, s.errors), (8, 6, 2, 0));
    assert_eq!(s.risk_weight_format.format, RwFormat::Percent);
    assert!(!s.risk_weight_format.ambiguous);
    // 500,000 + 400,000 + 400,000 + 30,000 + 500 + 0 + 0 + 0
    assert_eq!(s.total_rwa_saving, 1_330_500.0);
    assert_eq!(s.output_file_name, "optimized_pse_en.csv");
    let (h, rows) = read_csv(&out, b',');
    assert_eq!(&h[11..], analysis::output::ADDED_COLUMNS);
    let sugg = col(&h, "Suggested_Risk_Weight");
    let delta = col(&h, "RW_Delta");
    let saving = col(&h, "Capital_Saving");
    let status = col(&h, "Match_Status");
    let details = col(&h, "Match_Details");
    let rule = col(&h, "Applied_Rule");
    let reference = col(&h, "Regulatory_Reference");
    let expect = [
        ("50", "50", "500000", "matched", "PSE_UNRATED"),
        ("0", "20", "400000", "matched", "PSE_AS_CG > SOV_DOMESTIC"),
        ("20", "80", "400000", "matched", ""),
        ("20", "30", "30000", "matched", ""),
        ("50", "50", "500", "matched", ""),
        ("100", "0", "0", "not_matched", ""),
        ("100", "0", "0", "not_matched", ""),
        ("20", "0", "0", "matched", "PSE_UNRATED"),
    ];
    for (i, (sg, dl, sv, st, ru)) in expect.iter().enumerate() {
        let row = &rows[i];
        assert_eq!(row[sugg], *sg, "row {}", i + 1);
        assert_eq!(row[delta], *dl, "row {}", i + 1);
        assert_eq!(row[saving], *sv, "row {}", i + 1);
        assert_eq!(row[status], *st, "row {}", i + 1);
        assert_eq!(row[col(&h, "Analysis_Type")], "PSE");
        if !ru.is_empty() {
            assert_eq!(row[rule], *ru, "row {}", i + 1);
        }
    }
    assert_eq!(rows[0][reference], "CRR Art. 116(1) Table 2");
    assert!(
        rows[5][details].contains("not found in Spanish PSE database"),
        "{}",
        rows[5][details]
    );
    assert!(
        rows[6][details].starts_with("Missing required fields: NIF"),
        "{}",
        rows[6][details]
    );
    // The formula in Legal_Name is neutralised; the original cells are kept otherwise.
    assert_eq!(
        rows[7][col(&h, "Legal_Name")],
        "'=HYPERLINK(\"http://x\",\"y\")"
    );
    assert_eq!(rows[0][col(&h, "Exposure_Amount")], "1,000,000.00");
    // By rule and by asset class.
    let total_by_rule: f64 = s.by_rule.iter().map(|g| g.rwa_saving).sum();
    assert_eq!(total_by_rule, 1_330_500.0);
    assert_eq!(s.by_asset_class.len(), 1);
    assert_eq!(s.by_asset_class[0].key, "Public Sector Entities");
    assert_eq!(s.by_asset_class[0].rows, 8);
    assert!(
        s.flags
            .get("current RW below regulatory RW")
            .is_some_and(|n| *n == 1),
        "{:?}",
        s.flags
    );
}

#[test]
fn pse_spanish_latin1_fraction_file_gives_the_same_savings_in_its_own_notation() {
    let engine = pse_engine();
    let (r, out) = run_bytes("pse_es_latin1.csv", &engine, &opts(Lever::Pse));
    let s = &r.summary;
    assert!(s.mapping_auto);
    assert_eq!(
        s.mapping.0.get("Exposure_Amount").map(String::as_str),
        Some("Importe")
    );
    assert_eq!(
        s.mapping.0.get("Current_Risk_Weight").map(String::as_str),
        Some("Ponderación")
    );
    assert_eq!(s.risk_weight_format.format, RwFormat::Fraction);
    assert_eq!((s.rows, s.matched, s.not_matched), (8, 6, 2));
    assert_eq!(s.total_rwa_saving, 1_330_500.0);
    // Written back with the same delimiter and decimal comma, UTF-8 with a BOM.
    assert!(out.starts_with(b"\xEF\xBB\xBF"));
    let (h, rows) = read_csv(&out, b';');
    assert_eq!(h[7], "Razón social");
    assert_eq!(rows[0][7], "Agència Uno");
    let sugg = col(&h, "Suggested_Risk_Weight");
    let delta = col(&h, "RW_Delta");
    let saving = col(&h, "Capital_Saving");
    let got: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|r| (r[sugg].as_str(), r[delta].as_str(), r[saving].as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("0,5", "0,5", "500000"),
            ("0", "0,2", "400000"),
            ("0,2", "0,8", "400000"),
            ("0,2", "0,3", "30000"),
            ("0,5", "0,5", "500"),
            ("1", "0", "0"),
            ("1", "0", "0"),
            ("0,2", "0", "0"),
        ]
    );
}

#[test]
fn mdb_by_lei_and_by_spanish_name() {
    let engine = engine_with(RefData::builtin_shared(), "EU-CRR3");
    let (r, out) = run_bytes("mdb.csv", &engine, &opts(Lever::Mdb));
    let (h, rows) = read_csv(&out, b',');
    let st = col(&h, "Match_Status");
    let sv = col(&h, "Capital_Saving");
    assert_eq!(rows[0][st], "matched");
    assert_eq!(rows[0][col(&h, "Suggested_Risk_Weight")], "0");
    assert_eq!(rows[0][sv], "100000");
    assert_eq!(rows[1][st], "matched");
    assert_eq!(rows[1][sv], "100000");
    assert_eq!(rows[2][st], "not_matched");
    assert!(
        rows[2][col(&h, "Match_Details")].starts_with("MDB entity not found"),
        "{}",
        rows[2][col(&h, "Match_Details")]
    );
    assert_eq!(r.summary.total_rwa_saving, 200_000.0);
}

#[test]
fn corporates_under_the_specification_rule_set() {
    let engine = engine_with(RefData::builtin_shared(), "SPEC-LEGACY");
    let (r, out) = run_bytes("corporates.csv", &engine, &opts(Lever::Corporates));
    let (h, rows) = read_csv(&out, b',');
    let sugg = col(&h, "Suggested_Risk_Weight");
    // 100 -> 75 with eligible collateral; the 1.0 row is in the same (percent) file, so 1 %.
    assert_eq!(rows[0][sugg], "75");
    assert_eq!(rows[1][sugg], "100");
    assert_eq!(r.summary.rows, 3);
    assert_eq!(rows[0][col(&h, "Capital_Saving")], "250000");
}

fn sovereign_xlsx(path: &Path) {
    let mut wb = rust_xlsxwriter::Workbook::new();
    let ws = wb.add_worksheet();
    let head = [
        "Exposure_ID",
        "Asset_Class",
        "Eligible_Collateral",
        "Current_Risk_Weight",
        "Exposure_Amount",
        "Country",
        "Currency",
        "Maturity",
    ];
    for (c, h) in head.iter().enumerate() {
        ws.write_string(0, c as u16, *h).unwrap();
    }
    let rows: [(&str, f64, f64, &str, &str); 3] = [
        ("S1", 0.2, 1_000_000.0, "ES", "EUR"),
        ("S2", 1.0, 1_000_000.0, "ES", "USD"),
        ("S3", 1.0, 50_000.0, "XX", "EUR"),
    ];
    for (i, (id, rw, amt, cty, ccy)) in rows.iter().enumerate() {
        let r = i as u32 + 1;
        ws.write_string(r, 0, *id).unwrap();
        ws.write_string(r, 1, "Central governments").unwrap();
        ws.write_string(r, 2, "No").unwrap();
        ws.write_number(r, 3, *rw).unwrap();
        ws.write_number(r, 4, *amt).unwrap();
        ws.write_string(r, 5, *cty).unwrap();
        ws.write_string(r, 6, *ccy).unwrap();
        let d = rust_xlsxwriter::ExcelDateTime::from_ymd(2030, 1, 1).unwrap();
        let f = rust_xlsxwriter::Format::new().set_num_format("yyyy-mm-dd");
        ws.write_datetime_with_format(r, 7, &d, &f).unwrap();
    }
    wb.save(path).unwrap();
}

#[test]
fn sovereigns_xlsx_in_xlsx_out() {
    let input = tmp("sovereigns.xlsx");
    sovereign_xlsx(&input);
    let output = tmp("optimized_sovereigns.xlsx");
    let engine = engine_with(RefData::builtin_shared(), "EU-CRR3");
    let r = analyze_to_file(
        Input::Path(&input),
        &engine,
        &opts(Lever::Sovereigns),
        &output,
        RunControl::default(),
    )
    .unwrap();
    let s = &r.summary;
    assert_eq!(s.output_kind, OutputKind::Xlsx);
    assert_eq!(s.risk_weight_format.format, RwFormat::Fraction);
    assert_eq!((s.rows, s.matched, s.not_matched), (3, 2, 1));
    // 1,000,000 x 20 % + 1,000,000 x (100 - 20) %
    assert_eq!(s.total_rwa_saving, 1_000_000.0);
    let mut wb: calamine::Xlsx<_> = calamine::open_workbook(&output).unwrap();
    let range = wb.worksheet_range_at(0).unwrap().unwrap();
    let h: Vec<String> = range
        .rows()
        .next()
        .unwrap()
        .iter()
        .map(|c| c.to_string())
        .collect();
    assert_eq!(h[8], "Suggested_Risk_Weight");
    let row1: Vec<&calamine::Data> = range.rows().nth(1).unwrap().iter().collect();
    assert_eq!(row1[8], &calamine::Data::Float(0.0));
    assert_eq!(row1[10], &calamine::Data::Float(200_000.0));
    assert!(
        matches!(row1[4], calamine::Data::Float(v) if *v == 1_000_000.0),
        "numbers stay numbers: {:?}",
        row1[4]
    );
    assert!(
        matches!(row1[7], calamine::Data::DateTime(_)),
        "dates stay dates: {:?}",
        row1[7]
    );
    let row2: Vec<&calamine::Data> = range.rows().nth(2).unwrap().iter().collect();
    assert_eq!(row2[8], &calamine::Data::Float(0.2));
    let row3: Vec<&calamine::Data> = range.rows().nth(3).unwrap().iter().collect();
    assert_eq!(row3[12], &calamine::Data::String("not_matched".into()));
}

#[test]
fn cli_analyze_writes_output_and_summary() {
    let output = tmp("cli_out.csv");
    let summary = tmp("cli_summary.json");
    let args = AnalyzeArgs {
        cet1_capital: Some(13_000_000.0),
        total_rwas: Some(100_000_000.0),
        summary: Some(summary.clone()),
        ..cli_args(output.clone())
    };
    let r = run_analyze(&args).unwrap();
    assert_eq!(r.summary.rule_set, "EU-CRR3");
    let bps = r.summary.bps.unwrap();
    // 10,000 x 13m x 1.3305m / (100m x (100m - 1.3305m))
    let exact = 10_000.0 * 13e6 * 1_330_500.0 / (100e6 * (100e6 - 1_330_500.0));
    assert!(
        (bps.bps_exact - exact).abs() < 1e-9,
        "{} vs {exact}",
        bps.bps_exact
    );
    assert!(bps.bps_linear < bps.bps_exact);
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&summary).unwrap()).unwrap();
    assert_eq!(json["rows"], 8);
    assert_eq!(json["total_rwa_saving"], 1_330_500.0);
    assert!(std::fs::read(&output).unwrap().len() > 100);
}

#[test]
fn cli_refuses_bad_arguments_without_writing() {
    let output = tmp("never.csv");
    let mut args = AnalyzeArgs {
        lever: "nonsense".into(),
        threads: None,
        ..cli_args(output.clone())
    };
    assert!(
        run_analyze(&args)
            .unwrap_err()
            .to_string()
            .contains("unknown lever 'nonsense'")
    );
    args.lever = "pse".into();
    args.ruleset = Some("EU-CRR9".into());
    assert!(
        run_analyze(&args)
            .unwrap_err()
            .to_string()
            .starts_with("Unknown rule set: EU-CRR9")
    );
    args.ruleset = None;
    args.cet1_capital = Some(-1.0);
    args.total_rwas = Some(100.0);
    assert!(
        run_analyze(&args)
            .unwrap_err()
            .to_string()
            .starts_with("Invalid bank figures")
    );
    assert!(!output.exists());
}

#[test]
fn explicit_mapping_file() {
    let mapping = tmp("mapping.json");
    std::fs::write(
        &mapping,
        r#"{"target_mapping": {"NIF": "NIF", "Maturity": "Maturity", "Exposure_Amount": "Exposure_Amount", "Current_Risk_Weight": "Current_Risk_Weight"}}"#,
    )
    .unwrap();
    let output = tmp("mapped.csv");
    let args = AnalyzeArgs {
        mapping: Some(mapping.clone()),
        threads: None,
        ..cli_args(output)
    };
    let r = run_analyze(&args).unwrap();
    assert!(!r.summary.mapping_auto);
    assert_eq!(r.summary.mapping.len(), 4);
    // Without Currency the PSE treated as central government cannot take the domestic-currency
    // 0 % (Art. 114(4)): row E2 gets Table 1 by Spain's CQS 2, 20 %, so 400,000 less saving.
    assert_eq!(r.summary.total_rwa_saving, 930_500.0);
    assert!(
        r.summary.flags.contains_key("currency missing"),
        "{:?}",
        r.summary.flags
    );
    std::fs::write(&mapping, r#"{"NIF": "Tax number", "Maturity": "Maturity"}"#).unwrap();
    let e = run_analyze(&args).unwrap_err().to_string();
    assert!(
        e.starts_with("Source column \"Tax number\" from mapping not found in uploaded file. Available columns: Exposure_ID, Asset_Class"),
        "{e}"
    );
}

#[test]
fn automatic_lever_classification() {
    let engine = pse_engine();
    let (r, _) = run_bytes("pse_en.csv", &engine, &AnalyzeOptions::default());
    assert_eq!(r.summary.lever, Lever::Pse);
    assert!(r.summary.classification.is_some());
}

fn error_of(name: &str, lever: Lever, limits: Limits) -> String {
    let engine = pse_engine();
    let dir = tmp("errors");
    std::fs::create_dir_all(&dir).unwrap();
    let output = dir.join(format!("out_{name}.csv"));
    let o = AnalyzeOptions {
        limits,
        ..opts(lever)
    };
    let e = analyze_to_file(
        Input::Path(&fixture(name)),
        &engine,
        &o,
        &output,
        RunControl::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(!output.exists(), "{name}: no output on failure");
    let dir = output.parent().unwrap();
    assert!(
        !std::fs::read_dir(dir).unwrap().any(|e| e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .ends_with(".partial")),
        "{name}: temporary output removed"
    );
    e
}

#[test]
fn bad_files_fail_cleanly_with_the_products_messages() {
    let d = Limits::default();
    assert_eq!(
        error_of("empty.csv", Lever::Pse, d),
        "The uploaded file appears to be empty or invalid."
    );
    assert_eq!(
        error_of("blank_lines.csv", Lever::Pse, d),
        "The uploaded file appears to be empty or invalid."
    );
    assert_eq!(
        error_of("headers_only.csv", Lever::Pse, d),
        "No data found in CSV file"
    );
    assert_eq!(
        error_of("ragged.csv", Lever::Pse, d),
        "CSV parsing errors: Row 2: Too few fields: expected 5 fields but parsed 2"
    );
    assert_eq!(
        error_of("report.pdf", Lever::Pse, d),
        "Unsupported file type"
    );
    assert_eq!(
        error_of("not_numeric.csv", Lever::Pse, d),
        "Data validation failed: Row 1: Source column \"Exposure_Amount\" contains non-numeric value \"one hundred\" for expected numeric field \"Exposure_Amount\""
    );
    assert!(
        error_of("missing_required.csv", Lever::Pse, d)
            .starts_with("Missing required columns for PSE analysis: NIF, Maturity."),
    );
    let small = Limits {
        max_decompressed_bytes: 16 * 1024 * 1024,
        ..Limits::default()
    };
    assert_eq!(
        error_of("bomb.xlsx", Lever::Pse, small),
        "Failed to parse Excel file: the workbook expands to more than 16777216 bytes when decompressed"
    );
    assert!(error_of("truncated.xlsx", Lever::Pse, d).starts_with("Failed to parse Excel file:"));
    let tiny = Limits {
        max_file_bytes: 100,
        ..Limits::default()
    };
    assert_eq!(
        error_of("pse_en.csv", Lever::Pse, tiny),
        format!(
            "File is too large: {} bytes, the limit is 100 bytes",
            std::fs::metadata(fixture("pse_en.csv")).unwrap().len()
        )
    );
    let few_rows = Limits {
        max_rows: 3,
        ..Limits::default()
    };
    assert_eq!(
        error_of("pse_en.csv", Lever::Pse, few_rows),
        "File has too many rows: more than 3 data rows"
    );
}

#[test]
fn generated_files_round_trip_through_the_cli() {
    let csv_out = tmp("gen.csv");
    let n = run_generate(&GenerateArgs {
        lever: "pse".into(),
        rows: 3000,
        output: csv_out.clone(),
        seed: 7,
        refdata: None,
    })
    .unwrap();
    assert_eq!(n, 3000);
    let xlsx_out = tmp("gen.xlsx");
    run_generate(&GenerateArgs {
        lever: "pse".into(),
        rows: 3000,
        output: xlsx_out.clone(),
        seed: 7,
        refdata: None,
    })
    .unwrap();
    let engine = engine_with(RefData::builtin_shared(), "EU-CRR3");
    let a = analyze(
        Input::Path(&csv_out),
        &engine,
        &opts(Lever::Pse),
        OutputTarget::Discard,
    )
    .unwrap();
    let mut buf = Vec::new();
    let b = analyze(
        Input::Path(&xlsx_out),
        &engine,
        &opts(Lever::Pse),
        OutputTarget::Buffer(&mut buf),
    )
    .unwrap();
    assert_eq!(a.summary.rows, 3000);
    assert_eq!(b.summary.rows, 3000);
    assert_eq!(a.summary.matched, b.summary.matched);
    assert!((a.summary.total_rwa_saving - b.summary.total_rwa_saving).abs() < 0.01);
    assert!(a.summary.matched > 0);
    // Same result whatever the chunking and the number of threads.
    let one = AnalyzeOptions {
        threads: 1,
        chunk_rows: 64,
        ..opts(Lever::Pse)
    };
    let mut out1 = Vec::new();
    let c = analyze(
        Input::Path(&csv_out),
        &engine,
        &one,
        OutputTarget::Buffer(&mut out1),
    )
    .unwrap();
    let four = AnalyzeOptions {
        threads: 4,
        chunk_rows: 100,
        ..opts(Lever::Pse)
    };
    let mut out4 = Vec::new();
    let d = analyze(
        Input::Path(&csv_out),
        &engine,
        &four,
        OutputTarget::Buffer(&mut out4),
    )
    .unwrap();
    assert_eq!(out1, out4);
    assert_eq!(c.summary.total_rwa_saving, d.summary.total_rwa_saving);
    assert_eq!(c.summary.total_rwa_saving, a.summary.total_rwa_saving);
}

fn run_mem(
    name: &str,
    data: &[u8],
    engine: &Engine,
    o: &AnalyzeOptions,
) -> analysis::error::Result<(AnalysisReport, Vec<u8>)> {
    let mut out = Vec::new();
    let r = analyze(
        Input::Bytes { name, data },
        engine,
        o,
        OutputTarget::Buffer(&mut out),
    )?;
    Ok((r, out))
}

#[test]
fn an_out_of_range_or_unreadable_cqs_is_never_read_as_unrated() {
    let engine = engine_with(RefData::builtin_shared(), "EU-CRR3");
    let data = "Exposure_ID,Asset_Class,Eligible_Collateral,Current_Risk_Weight,Exposure_Amount,Legal_Name,Country,Currency,Credit_Quality_Step\n\
C1,Corporate,No,100,1000000,Alpha SA,ES,EUR,7\n\
C2,Corporate,No,100,1000000,Beta SA,ES,EUR,0\n\
C3,Corporate,No,100,1000000,Gamma SA,ES,EUR,abc\n\
C4,Corporate,No,100,1000000,Delta SA,ES,EUR,2.5\n\
C5,Corporate,No,100,1000000,Epsilon SA,ES,EUR,2\n\
C6,Corporate,No,100,1000000,Zeta SA,ES,EUR,\n\
C7,Corporate,No,100,1000000,Eta SA,ES,EUR,NR\n";
    let (r, out) = run_mem(
        "corp.csv",
        data.as_bytes(),
        &engine,
        &opts(Lever::Corporates),
    )
    .unwrap();
    let (h, rows) = read_csv(&out, b',');
    let (st, det, sug) = (
        col(&h, "Match_Status"),
        col(&h, "Match_Details"),
        col(&h, "Suggested_Risk_Weight"),
    );
    for (i, raw) in ["7", "0", "abc", "2.5"].iter().enumerate() {
        assert_eq!(rows[i][st], "not_matched", "{raw}");
        assert_eq!(
            rows[i][det],
            format!("Invalid Credit_Quality_Step: {raw} (expected 1 to 6)")
        );
        // The current weight is kept.
        assert_eq!(rows[i][sug].parse::<f64>().unwrap(), 100.0, "{raw}");
    }
    // A valid CQS, a blank one and "NR" are read as before.
    assert_eq!(rows[4][st], "matched");
    assert_eq!(rows[4][sug].parse::<f64>().unwrap(), 50.0);
    assert_eq!(rows[5][st], "matched");
    assert_eq!(rows[6][st], "matched");
    assert_eq!(r.summary.not_matched, 4);
}

#[test]
fn bytes_that_are_not_text_are_refused() {
    let engine = pse_engine();
    let o = opts(Lever::Pse);
    let good = std::fs::read(fixture("pse_en.csv")).unwrap();
    let err = |data: &[u8]| run_mem("f.csv", data, &engine, &o).unwrap_err().to_string();
    // A UTF-16 byte-order mark, and UTF-16 without one.
    let utf16: Vec<u8> = good.iter().flat_map(|b| [*b, 0]).collect();
    let mut with_bom = b"\xFF\xFE".to_vec();
    with_bom.extend_from_slice(&utf16);
    let msg = "UTF-16 files are not supported: save the file as UTF-8 CSV";
    assert_eq!(err(&with_bom), msg);
    assert_eq!(err(&utf16), msg);
    // NUL bytes in an otherwise valid file.
    let mut nul = good.clone();
    let at = nul.len() / 2;
    nul[at] = 0;
    assert_eq!(err(&nul), "The file is not valid UTF-8 or Latin-1 text");
    // A byte Windows-1252 leaves undefined next to Latin-1 text.
    let mut c1 = good.clone();
    c1.extend_from_slice(b"E99,Sector p\xfablico,No,100,10\x81\n");
    assert_eq!(err(&c1), "The file is not valid UTF-8 or Latin-1 text");
    // The same bytes after a first megabyte of valid text are refused too.
    let mut late = good.clone();
    let line = good.split(|b| *b == b'\n').nth(1).unwrap().to_vec();
    while late.len() < (1 << 20) + 10_000 {
        late.extend_from_slice(&line);
        late.push(b'\n');
    }
    let mut late_nul = late.clone();
    late_nul.extend_from_slice(&line);
    late_nul.extend_from_slice(b"\x00\n");
    assert_eq!(
        err(&late_nul),
        "The file is not valid UTF-8 or Latin-1 text"
    );
    let mut late_latin = late.clone();
    late_latin[100] = 0xe9; // Latin-1 'é' in the first megabyte: the file is Latin-1.
    late_latin.extend_from_slice(&line);
    late_latin.extend_from_slice(b"\x9d\n");
    assert_eq!(
        err(&late_latin),
        "The file is not valid UTF-8 or Latin-1 text"
    );
}

#[test]
fn latin1_spanish_files_keep_working() {
    let engine = pse_engine();
    let text = std::fs::read_to_string(fixture("pse_en.csv")).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    let mut data = format!("{header},Observaci\u{f3}n\n");
    for l in lines.filter(|l| !l.trim().is_empty()) {
        data.push_str(l);
        data.push_str(",Compa\u{f1}\u{ed}a p\u{fa}blica 1\u{ba} 2\u{aa} \u{e1}\u{e9}\n");
    }
    let (latin1, _, bad) = encoding_rs::WINDOWS_1252.encode(&data);
    assert!(!bad);
    let (r, out) = run_mem("f.csv", &latin1, &engine, &opts(Lever::Pse)).unwrap();
    assert_eq!(r.summary.rows, 8);
    let (h, rows) = read_csv(&out, b',');
    assert_eq!(rows[0][col(&h, "Observación")], "Compañía pública 1º 2ª áé");
}

#[test]
fn a_failed_run_leaves_no_file_behind() {
    let engine = pse_engine();
    let dir = tmp("no_output");
    std::fs::create_dir_all(&dir).unwrap();
    let leftovers = || -> Vec<String> {
        std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    };
    // The total RWAs (1,000,000) are less than the file's own RWAs: the basis points fail at the end.
    for (name, lever) in [("pse_en.csv", Lever::Pse)] {
        for out in ["out.csv", "out.xlsx"] {
            let o = AnalyzeOptions {
                bank: Some(analysis::pipeline::BankFigures {
                    cet1_capital: 1000.0,
                    total_rwas: 1_000_000.0,
                }),
                ..opts(lever)
            };
            let e = analyze_to_file(
                Input::Path(&fixture(name)),
                &engine,
                &o,
                &dir.join(out),
                RunControl::default(),
            )
            .unwrap_err()
            .to_string();
            assert!(e.contains("Invalid bank figures"), "{e}");
            assert!(leftovers().is_empty(), "{out}: {:?}", leftovers());
        }
    }
    // Through the command line, with the figures of the report, and with a summary that cannot
    // be written.
    let mut args = AnalyzeArgs {
        cet1_capital: Some(1000.0),
        total_rwas: Some(1_000_000.0),
        threads: None,
        ..cli_args(dir.join("cli.csv"))
    };
    assert!(run_analyze(&args).is_err());
    assert!(leftovers().is_empty(), "{:?}", leftovers());
    args.cet1_capital = Some(1000.0);
    args.total_rwas = Some(5_000_000.0);
    args.summary = Some(dir.join("missing-dir").join("summary.json"));
    let e = run_analyze(&args).unwrap_err().to_string();
    assert!(e.contains("cannot write summary"), "{e}");
    assert!(leftovers().is_empty(), "{:?}", leftovers());
    // Bad input files, bad mappings and bad options: nothing written either.
    args.summary = None;
    for (input, lever) in [
        ("ragged.csv", "pse"),
        ("not_numeric.csv", "pse"),
        ("missing_required.csv", "pse"),
        ("truncated.xlsx", "pse"),
        ("pse_en.csv", "nonsense"),
    ] {
        args.input = fixture(input);
        args.lever = lever.into();
        assert!(run_analyze(&args).is_err(), "{input}");
        assert!(leftovers().is_empty(), "{input}: {:?}", leftovers());
    }
    // And a successful run writes exactly the output.
    args.input = fixture("pse_en.csv");
    args.lever = "pse".into();
    run_analyze(&args).unwrap();
    assert_eq!(leftovers(), vec!["cli.csv".to_string()]);
}

#[test]
fn negative_bank_figures_get_the_bank_figures_message() {
    use clap::Parser;
    #[derive(Debug, clap::Parser)]
    struct Cli {
        #[command(flatten)]
        args: AnalyzeArgs,
    }
    let out = tmp("negative.csv");
    let input = fixture("pse_en.csv");
    let cli = Cli::try_parse_from([
        "analyze".as_ref(),
        "--input".as_ref(),
        input.as_os_str(),
        "--lever".as_ref(),
        "pse".as_ref(),
        "--cet1-capital".as_ref(),
        "-5".as_ref(),
        "--total-rwas".as_ref(),
        "1e9".as_ref(),
        "--output".as_ref(),
        out.as_os_str(),
    ] as [&std::ffi::OsStr; 11])
    .unwrap();
    assert_eq!(cli.args.cet1_capital, Some(-5.0));
    let e = run_analyze(&cli.args).unwrap_err().to_string();
    assert!(e.starts_with("Invalid bank figures"), "{e}");
    assert!(
        e.contains("CET1 capital must be a positive amount, found -5"),
        "{e}"
    );
    assert!(!out.exists());
}

#[test]
fn decimal_commas_in_a_comma_separated_file_are_written_as_quoted_cells() {
    // Spanish amounts quoted in a comma-separated file: the file's notation is decimal comma,
    // so the savings written back carry decimal commas and must be quoted to stay one field.
    let data = "Exposure_ID,NIF,Exposure_Amount,Current_Risk_Weight,Maturity,Currency\n\
                A,Q9900001J,\"1.234.567,89\",100,2030-01-01,EUR\n\
                B,Q9900001J,\"2.000.000,00\",100,2030-01-01,EUR\n";
    let (r, out) = run_mem("es.csv", data.as_bytes(), &pse_engine(), &opts(Lever::Pse)).unwrap();
    let (h, rows) = read_csv(&out, b',');
    assert_eq!(rows.len(), 2);
    for row in &rows {
        assert_eq!(row.len(), h.len(), "{row:?}");
    }
    let saving = col(&h, "Capital_Saving");
    // Agencia Uno: unrated PSE, Spain CQS 2 -> Table 2: 50 %.
    assert_eq!(rows[0][col(&h, "Suggested_Risk_Weight")], "50");
    assert!(rows[0][saving] == "617283,94" || rows[0][saving] == "617283,95");
    assert_eq!(rows[1][saving], "1000000");
    assert!((r.summary.total_rwa_saving - 1_617_283.945).abs() < 0.01);
    // A file whose delimiter is not the decimal separator keeps its numbers unquoted.
    let semi = data
        .replace(',', ";")
        .replace("\"1.234.567;89\"", "1.234.567,89");
    let semi = semi.replace("\"2.000.000;00\"", "2.000.000,00");
    let (_, out) = run_mem("es.csv", semi.as_bytes(), &pse_engine(), &opts(Lever::Pse)).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains(";617283,9"), "{text}");
    assert!(!text.contains("\"617283"), "{text}");
}

#[test]
fn an_output_that_is_not_a_regular_file_is_written_in_place_never_replaced() {
    use std::io::Read;
    use std::os::unix::fs::FileTypeExt;
    // A FIFO stands for `/dev/null` and the other special files: the processed file goes into
    // it, and it is still a FIFO afterwards (renaming a temporary file over it would replace it
    // with a plain file).
    let dir = tmp("special_output");
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("pipe.csv");
    let _ = std::fs::remove_file(&fifo);
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut text = String::new();
            std::fs::File::open(&fifo)
                .unwrap()
                .read_to_string(&mut text)
                .unwrap();
            text
        })
    };
    let mut args = cli_args(fifo.clone());
    let r = run_analyze(&args).unwrap();
    // Checked before waiting for the reader, which would wait for ever on a replaced FIFO.
    let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(kind.is_fifo(), "{kind:?}");
    let text = reader.join().unwrap();
    let (h, rows) = read_csv(text.as_bytes(), b',');
    assert_eq!(rows.len() as u64, r.summary.rows);
    assert!(h.iter().any(|c| c == "Suggested_Risk_Weight"));
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        vec!["pipe.csv".to_string()],
        "no temporary file left"
    );

    // Through a symbolic link, the file it points at receives the output; the link stays.
    let target = dir.join("target.csv");
    let link = dir.join("link.csv");
    std::fs::write(&target, "old").unwrap();
    std::os::unix::fs::symlink(&target, &link).unwrap();
    args.output = link.clone();
    run_analyze(&args).unwrap();
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        std::fs::read_to_string(&target)
            .unwrap()
            .contains("Suggested_Risk_Weight")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_reference_directory_never_borrows_the_synthetic_lists() {
    // Only sovereigns.csv: the PSE list is empty (the built-in PSE list is synthetic and must not
    // stand in for the bank's), so every row says so; the MDB list stays the regulation's.
    let dir = tmp("refdata_only_sovereigns");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("sovereigns.csv"),
        "country,domestic_currency,cqs,eu_member\r\nES,EUR,2,Y\r\n",
    )
    .unwrap();
    let rd = RefData::load_dir(&dir).unwrap();
    assert!(rd.pse().is_empty() && rd.rgla().is_empty() && rd.institutions().is_empty());
    assert!(rd.pse().source().to_string().contains("pse.csv not found"));
    assert!(!rd.mdb().is_empty(), "the regulation's MDB list is kept");
    let engine = engine_with(Arc::new(rd), "EU-CRR3");
    let (r, out) = run_bytes("pse_en.csv", &engine, &opts(Lever::Pse));
    // Every row with a NIF is an error for want of a list (E7 has no NIF at all).
    assert_eq!(r.summary.errors, r.summary.rows - 1);
    assert_eq!(r.summary.total_rwa_saving, 0.0);
    let (h, rows) = read_csv(&out, b',');
    for row in rows.iter().filter(|row| !row[col(&h, "NIF")].is_empty()) {
        assert_eq!(row[col(&h, "Match_Details")], "PSE reference data is empty");
    }
}

#[test]
fn command_line_mistakes_get_plain_messages() {
    let base = cli_args(tmp("cli_mistakes.csv"));
    let err = |a: &AnalyzeArgs| run_analyze(a).unwrap_err().to_string();
    let mut a = base.clone();
    a.lever = "foo".into();
    assert_eq!(
        err(&a),
        "unknown lever 'foo': use pse, rgla, mdb, institutions, corporates or sovereigns"
    );
    let mut a = base.clone();
    a.refdata = Some(PathBuf::from("/nonexistent-refdata"));
    assert_eq!(
        err(&a),
        "Failed to load reference data: /nonexistent-refdata is not a directory"
    );
    let mut a = base.clone();
    a.output = PathBuf::from("/nonexistent-folder/out.csv");
    assert_eq!(
        err(&a),
        "Failed to write the processed file: cannot write /nonexistent-folder/out.csv: the folder /nonexistent-folder does not exist"
    );
}

#[test]
fn mixed_notations_repeated_columns_and_negative_amounts_are_reported() {
    let data = "Exposure_ID,NIF,Exposure_Amount,Current_Risk_Weight,Maturity,Currency,Exposure_Amount\n\
                A,Q9900001J,\"1,500.25\",100,2030-01-01,EUR,7\n\
                B,Q9900001J,\"2.250,75\",100,2030-01-01,EUR,7\n\
                C,Q9900001J,-5000,100,2030-01-01,EUR,7\n";
    let (r, out) = run_mem(
        "mixed.csv",
        data.as_bytes(),
        &pse_engine(),
        &opts(Lever::Pse),
    )
    .unwrap();
    let w = r.summary.warnings.join("\n");
    assert!(w.contains("Exposure_Amount mixes number notations"), "{w}");
    assert!(
        w.contains("The file has 2 columns named \"Exposure_Amount\": the first (column 3)"),
        "{w}"
    );
    // Each value read in the notation it shows; the negative amount is an error row worth nothing.
    let (h, rows) = read_csv(&out, b',');
    let saving = col(&h, "Capital_Saving");
    assert_eq!(rows[0][saving], "750.13");
    assert_eq!(rows[1][saving], "1125.38");
    assert_eq!(rows[2][col(&h, "Match_Status")], "error");
    assert_eq!(
        rows[2][col(&h, "Match_Details")],
        "Invalid Exposure_Amount: -5000 (an exposure value cannot be negative)"
    );
    assert_eq!(rows[2][saving], "0");
    assert!((r.summary.total_exposure - 3751.0).abs() < 1e-9);
}

/// Weights written as 1 read as decimal fractions by the values (100 %); the user's choice of
/// percent reads them as 1 % instead, says that the values suggested otherwise, and writes the
/// suggested weights as percentages.
#[test]
fn the_users_risk_weight_notation_overrides_the_detected_one() {
    let engine = pse_engine();
    let data = "Exposure_ID,Current_Risk_Weight,Exposure_Amount,NIF,Maturity\nE1,1,1000000,Q9900001J,2030-01-01\nE2,1,2000000,Q9900002H,2030-01-01\n";
    let run = |o: &AnalyzeOptions| {
        let mut out = Vec::new();
        let r = analyze(
            Input::Bytes {
                name: "ones.csv",
                data: data.as_bytes(),
            },
            &engine,
            o,
            OutputTarget::Buffer(&mut out),
        )
        .unwrap();
        (r, out)
    };
    let (detected, _) = run(&opts(Lever::Pse));
    assert_eq!(
        detected.summary.risk_weight_format.format,
        RwFormat::Fraction
    );
    assert!(
        detected.summary.total_rwa_saving > 0.0,
        "100 % weights save"
    );
    let chosen = AnalyzeOptions {
        risk_weight_format: Some(RwFormat::Percent),
        ..opts(Lever::Pse)
    };
    let (r, out) = run(&chosen);
    let s = &r.summary;
    assert_eq!(s.risk_weight_format.format, RwFormat::Percent);
    assert!(!s.risk_weight_format.ambiguous);
    assert!(
        s.warnings
            .iter()
            .any(|w| w.contains("as set in the mapping")),
        "{:?}",
        s.warnings
    );
    assert_eq!(s.total_rwa_saving, 0.0, "1 % weights save nothing");
    let (h, rows) = read_csv(&out, b',');
    let cur = col(&h, "Current_Risk_Weight");
    for row in &rows {
        assert_eq!(row[cur], "1", "the current weight is written as read");
    }
}
