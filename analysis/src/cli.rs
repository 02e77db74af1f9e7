//! Command-line front ends: `analyze` (a file in, the processed file and a summary out) and
//! `generate-exposures` (realistic synthetic test files). The `capopt` server binary embeds
//! [`AnalyzeArgs`] and [`GenerateArgs`] as subcommands; `analysis-cli` runs them standalone.
//! Only with the `cli` feature.
//!
//! This is the part of the crate that writes files: [`analyze_to_file`] writes the processed
//! file to a temporary name beside the target and renames it on success (a failed or cancelled
//! run leaves nothing), `--summary` writes the summary, `generate-exposures` writes a file.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::NaiveDate;

use crate::engine::{Engine, EngineContext};
use crate::error::{Error, Result};
use crate::ingest::{Input, Limits};
use crate::mapping::{ColumnMapping, MaturityUnit};
use crate::model::Lever;
use crate::output::OutputKind;
use crate::pipeline::{
    AnalysisReport, AnalyzeOptions, BankFigures, LeverChoice, OutputTarget, RunControl,
    analyze_with,
};
use crate::refdata::RefData;
use crate::rules::RuleSet;

/// `analyze`: analyses an exposure file and writes the processed file.
#[derive(Debug, Clone, clap::Args)]
pub struct AnalyzeArgs {
    /// The exposure file (CSV, XLSX, XLS or ODS).
    #[arg(long)]
    pub input: PathBuf,
    /// The lever: pse, rgla, mdb, institutions, corporates, sovereigns, or auto to classify
    /// the file first.
    #[arg(long, default_value = "auto")]
    pub lever: String,
    /// A JSON mapping of standard columns to the file's columns
    /// (`{"Exposure_Amount": "Importe", ...}` or a saved template with `target_mapping`);
    /// auto-mapped when absent.
    #[arg(long)]
    pub mapping: Option<PathBuf>,
    /// A directory of reference-data CSVs (pse.csv, rgla.csv, mdb.csv, institutions.csv,
    /// sovereigns.csv); the built-in lists when absent.
    #[arg(long)]
    pub refdata: Option<PathBuf>,
    /// Rule set id (EU-CRR2, EU-CRR3, SPEC-LEGACY, SPEC-LEGACY-ADMIN); the regulation in force
    /// on the reporting date when absent.
    #[arg(long)]
    pub ruleset: Option<String>,
    /// Reporting date, YYYY-MM-DD; today when absent.
    #[arg(long, value_parser = parse_date_arg)]
    pub reporting_date: Option<NaiveDate>,
    /// The client's home country (ISO alpha-2).
    #[arg(long, default_value = "ES")]
    pub client_country: String,
    /// The bank's CET1 capital (with --total-rwas: basis points in the summary).
    #[arg(long, requires = "total_rwas", allow_negative_numbers = true)]
    pub cet1_capital: Option<f64>,
    /// The bank's total RWAs (with --cet1-capital).
    #[arg(long, requires = "cet1_capital", allow_negative_numbers = true)]
    pub total_rwas: Option<f64>,
    /// The processed file to write (.csv or .xlsx; the input's kind for other names).
    #[arg(long)]
    pub output: PathBuf,
    /// Where to write the summary as JSON.
    #[arg(long)]
    pub summary: Option<PathBuf>,
    /// Worker threads (default: one per core).
    #[arg(long, allow_negative_numbers = true)]
    pub threads: Option<usize>,
    /// Largest input file accepted, in megabytes.
    #[arg(long, default_value_t = 2048, allow_negative_numbers = true)]
    pub max_file_mb: u64,
    /// The unit of the Maturity column's bare numbers: days, months or years (días, meses,
    /// años). When absent, the unit the header names, else months (the specification's unit).
    #[arg(long, value_parser = parse_unit_arg)]
    pub maturity_unit: Option<MaturityUnit>,
    /// The risk-weight notation of the file: percent (20 means 20 %) or decimal (0.2 means
    /// 20 %). When absent, detected from the values.
    #[arg(long, value_parser = parse_rw_format_arg)]
    pub risk_weight_format: Option<crate::pipeline::RwFormat>,
    /// A second rule set to evaluate every row under as well (for example EU-CRR2 beside the
    /// reporting date's EU-CRR3): the summary then compares both savings by rule and article.
    #[arg(long)]
    pub compare_ruleset: Option<String>,
    /// Also trace the decision of this data row (1 = the first row below the header): every
    /// test of the rule procedure with its inputs and outcome, printed and put in the summary.
    #[arg(long)]
    pub trace_row: Option<u64>,
}

/// `generate-exposures`: writes a realistic synthetic exposure file.
#[derive(Debug, Clone, clap::Args)]
pub struct GenerateArgs {
    /// The lever the file is for: pse, rgla, mdb, institutions, corporates, sovereigns.
    #[arg(long)]
    pub lever: String,
    /// Number of data rows.
    #[arg(long, allow_negative_numbers = true)]
    pub rows: u64,
    /// The file to write (.csv, or .xlsx for a workbook).
    #[arg(long)]
    pub output: PathBuf,
    /// Random seed (the same seed gives the same file).
    #[arg(long, default_value_t = 42)]
    pub seed: u64,
    /// A directory of reference-data CSVs to draw entities from; the built-in lists when absent.
    #[arg(long)]
    pub refdata: Option<PathBuf>,
}

fn parse_unit_arg(s: &str) -> std::result::Result<MaturityUnit, String> {
    MaturityUnit::parse(s).ok_or_else(|| format!("unknown unit '{s}': use days, months or years"))
}

fn parse_rw_format_arg(s: &str) -> std::result::Result<crate::pipeline::RwFormat, String> {
    crate::pipeline::RwFormat::parse(s)
        .ok_or_else(|| format!("unknown risk-weight notation '{s}': use percent or decimal"))
}

fn parse_date_arg(s: &str) -> std::result::Result<NaiveDate, String> {
    NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d")
        .map_err(|_| format!("invalid date '{s}': use YYYY-MM-DD"))
}

/// Parses a fixed lever, with a clear message.
pub fn parse_lever(s: &str) -> Result<Lever> {
    Lever::parse(s).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "unknown lever '{s}': use pse, rgla, mdb, institutions, corporates or sovereigns"
        ))
    })
}

fn load_refdata(dir: Option<&Path>) -> Result<Arc<RefData>> {
    match dir {
        Some(d) => Ok(Arc::new(RefData::load_dir(d)?)),
        None => Ok(RefData::builtin_shared()),
    }
}

/// Runs `analyze`. The processed file is written only when the whole run succeeds.
pub fn run_analyze(args: &AnalyzeArgs) -> Result<AnalysisReport> {
    let lever = if args.lever.trim().eq_ignore_ascii_case("auto") {
        LeverChoice::Auto
    } else {
        LeverChoice::Fixed(parse_lever(&args.lever)?)
    };
    let mapping = match &args.mapping {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| {
                Error::Output(format!("cannot read mapping file {}: {e}", p.display()))
            })?;
            Some(ColumnMapping::from_json(&text)?)
        }
        None => None,
    };
    let reporting_date = args
        .reporting_date
        .unwrap_or_else(|| chrono::Utc::now().date_naive());
    let rules = match &args.ruleset {
        Some(id) => RuleSet::by_id(id)?,
        None => RuleSet::for_reporting_date(reporting_date),
    };
    let refdata = load_refdata(args.refdata.as_deref())?;
    let country = args.client_country.trim().to_ascii_uppercase();
    if country.len() != 2 || !country.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(Error::Output(format!(
            "invalid client country '{}': use an ISO alpha-2 code such as ES",
            args.client_country
        )));
    }
    let ctx = EngineContext {
        reporting_date,
        client_country: country,
    };
    let engine = Engine::new(rules, refdata, ctx);
    let bank = match (args.cet1_capital, args.total_rwas) {
        (Some(c), Some(r)) => Some(BankFigures {
            cet1_capital: c,
            total_rwas: r,
        }),
        _ => None,
    };
    if args.output == args.input {
        return Err(Error::Output(
            "the output file must differ from the input file".into(),
        ));
    }
    let opts = AnalyzeOptions {
        lever,
        mapping,
        required_columns: None,
        output_kind: OutputKind::from_name(&args.output.to_string_lossy()),
        limits: Limits {
            max_file_bytes: args.max_file_mb.saturating_mul(1024 * 1024),
            ..Limits::default()
        },
        bank,
        threads: args.threads.unwrap_or(0),
        maturity_unit: args.maturity_unit,
        risk_weight_format: args.risk_weight_format,
        compare_rule_set: match &args.compare_ruleset {
            Some(id) => Some(RuleSet::by_id(id)?),
            None => None,
        },
        ..AnalyzeOptions::default()
    };
    let mut report = analyze_to_file(
        Input::Path(&args.input),
        &engine,
        &opts,
        &args.output,
        RunControl::default(),
    )?;
    if let Some(row) = args.trace_row {
        let fixed = AnalyzeOptions {
            lever: LeverChoice::Fixed(report.summary.lever),
            mapping: Some(report.summary.mapping.clone()),
            ..opts.clone()
        };
        match crate::pipeline::trace_row(Input::Path(&args.input), &engine, &fixed, row) {
            Ok(t) => report.summary.trace = Some(t),
            Err(e) => {
                if !is_special_file(&args.output) {
                    let _ = std::fs::remove_file(&args.output);
                }
                return Err(e);
            }
        }
    }
    if let Some(p) = &args.summary {
        let written = serde_json::to_string_pretty(&report.summary)
            .map_err(|e| Error::Output(e.to_string()))
            .and_then(|json| {
                std::fs::write(p, json).map_err(|e| {
                    Error::Output(format!("cannot write summary {}: {e}", p.display()))
                })
            });
        if let Err(e) = written {
            // A run without its summary failed: leave no processed file either.
            if !is_special_file(&args.output) {
                let _ = std::fs::remove_file(&args.output);
            }
            return Err(e);
        }
    }
    Ok(report)
}

/// Whether `p` exists and is something other than a regular file or a directory (a device, a
/// FIFO, a socket): such a target is written in place and never removed or replaced.
pub fn is_special_file(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Removes a temporary output file unless disarmed.
struct TempGuard(Option<PathBuf>);

impl Drop for TempGuard {
    fn drop(&mut self) {
        if let Some(p) = self.0.take() {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// Runs [`analyze_with`] into the file `path`: the output goes to a temporary file beside it
/// (`.<name>.<pid>.partial`), renamed over `path` only when the whole run succeeded, so a failed
/// or cancelled run leaves no file. The output format is `opts.output_kind`, else the target's
/// extension (`.csv`, `.xlsx`), else the input's kind. An existing target that is not a regular
/// file (`/dev/null`, a FIFO) is written in place.
pub fn analyze_to_file(
    input: Input<'_>,
    engine: &Engine,
    opts: &AnalyzeOptions,
    path: &Path,
    control: RunControl<'_>,
) -> Result<AnalysisReport> {
    // A folder that does not exist is said at once, before any of the input is read.
    let parent = path.parent().filter(|d| !d.as_os_str().is_empty());
    if parent.is_some_and(|d| !d.is_dir()) {
        return Err(Error::Output(format!(
            "cannot write {}: the folder {} does not exist",
            path.display(),
            parent.map(|d| d.display().to_string()).unwrap_or_default()
        )));
    }
    let mut opts = opts.clone();
    if opts.output_kind.is_none() {
        opts.output_kind = OutputKind::from_name(&path.to_string_lossy());
    }
    let special = is_special_file(path);
    // Through a symbolic link the file it points at is replaced, not the link.
    let target = if special {
        path.to_path_buf()
    } else {
        std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
    };
    let temp = if special {
        target.clone()
    } else {
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        target.with_file_name(format!(".{name}.{}.partial", std::process::id()))
    };
    let mut guard = TempGuard((!special).then(|| temp.clone()));
    let mut file = std::fs::File::create(&temp)
        .map_err(|e| Error::Output(format!("cannot create {}: {e}", temp.display())))?;
    let report = analyze_with(
        input,
        engine,
        &opts,
        OutputTarget::Writer(&mut file),
        control,
    )?;
    drop(file);
    if !special {
        std::fs::rename(&temp, &target).map_err(|e| Error::Output(e.to_string()))?;
        guard.0 = None;
    }
    Ok(report)
}

/// A short human-readable account of a run, for the terminal.
pub fn describe(report: &AnalysisReport) -> String {
    let s = &report.summary;
    let mut out = format!(
        "{} ({:?}) analysed as {} under {}: {} rows, {} matched, {} not matched, {} errors\nRWA saving: {:.2} (RWAs {:.2} -> {:.2})",
        s.file_name,
        s.input_kind,
        s.analysis_type,
        s.rule_set,
        s.rows,
        s.matched,
        s.not_matched,
        s.errors,
        s.total_rwa_saving,
        s.rwa_before,
        s.rwa_after
    );
    if let Some(b) = &s.bps {
        out.push_str(&format!(
            "\nCET1 gain: {:.2} bps (linear {:.2} bps)",
            b.bps_exact, b.bps_linear
        ));
    }
    if let Some(c) = &s.comparison {
        out.push_str(&format!(
            "\nunder {}: RWA saving {:.2} ({:+.2} against {}); {} rows matched",
            c.compare_rule_set, c.compare_rwa_saving, c.difference, c.rule_set, c.compare_matched
        ));
        for step in c
            .waterfall
            .iter()
            .skip(1)
            .take(c.waterfall.len().saturating_sub(2))
        {
            out.push_str(&format!("\n  {:+.2}  {}", step.amount, step.label));
        }
    }
    if let Some(t) = &s.trace {
        out.push_str(&format!(
            "\ntrace of the row ({}, {}):",
            t.rule_set.id,
            t.lever.as_str()
        ));
        for step in &t.steps {
            let inputs: Vec<String> = step
                .inputs
                .iter()
                .map(|i| format!("{} {}", i.name, i.value))
                .collect();
            out.push_str(&format!("\n  {} {}", step.test, step.outcome));
            if !step.article.is_empty() {
                out.push_str(&format!(" [{}]", step.article));
            }
            if !inputs.is_empty() {
                out.push_str(&format!(" ({})", inputs.join("; ")));
            }
        }
    }
    for w in &s.warnings {
        out.push_str(&format!("\nwarning: {w}"));
    }
    out.push_str(&format!(
        "\nwritten in {:.3} s ({:.0} rows/s)",
        report.timings.total_secs,
        s.rows as f64 / report.timings.total_secs.max(1e-9)
    ));
    out
}

/// Runs `generate-exposures`. Returns the number of rows written.
pub fn run_generate(args: &GenerateArgs) -> Result<u64> {
    let lever = parse_lever(&args.lever)?;
    if args.rows == 0 {
        return Err(Error::Output("--rows must be at least 1".into()));
    }
    let rows = usize::try_from(args.rows)
        .map_err(|_| Error::Output("--rows is too large for this machine".into()))?;
    let refdata = load_refdata(args.refdata.as_deref())?;
    let kind = OutputKind::from_name(&args.output.to_string_lossy()).unwrap_or(OutputKind::Csv);
    match kind {
        OutputKind::Csv => {
            let f = std::fs::File::create(&args.output).map_err(|e| {
                Error::Output(format!("cannot create {}: {e}", args.output.display()))
            })?;
            let mut w = std::io::BufWriter::with_capacity(1 << 20, f);
            crate::generate::generate_exposures(lever, rows, args.seed, &refdata, &mut w)?;
            std::io::Write::flush(&mut w).map_err(|e| Error::Output(e.to_string()))?;
        }
        OutputKind::Xlsx => {
            let mut csv = Vec::new();
            crate::generate::generate_exposures(lever, rows, args.seed, &refdata, &mut csv)?;
            crate::output::csv_to_xlsx(&csv, &args.output)?;
        }
    }
    Ok(args.rows)
}
