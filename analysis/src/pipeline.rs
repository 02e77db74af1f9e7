//! The end-to-end entry point: a file in, the processed file and a summary out.
//!
//! ```text
//! reader (calling thread)      workers (N threads)               writer (1 thread)
//! read_rows -> RowChunk  --->  ExposureRow -> Engine::evaluate  --->  reorder by sequence,
//!   first chunk: plan          format output cells, aggregate          write CSV bytes or
//!   (mapping, styles, RW           per-worker totals                   XLSX rows, recycle
//!    format, lever)                                                    chunks and buffers
//! ```
//!
//! CSV is streamed and never loaded whole; chunks and output buffers are recycled, so the hot
//! path allocates nothing per row once warm. Memory is bounded by the number of chunks in
//! flight (bounded channels), not by the file size.
//!
//! A run reads an [`Input`] (bytes, a reader, or a file opened for reading) and writes the
//! processed file to an [`OutputTarget`] (a writer, a buffer, or nowhere). It creates, renames
//! and deletes no file of its own: a caller that writes to a file writes to a temporary name and
//! renames it on success (the `cli` feature's `analyze_to_file` does). On failure, including
//! cancellation, what was written to a writer is incomplete and must be discarded; a
//! [`OutputTarget::Buffer`] is emptied.
//!
//! [`analyze_with`] takes a [`RunControl`]: a progress callback (called at most once per
//! [`RunControl::progress_interval`], 100 ms by default) and a cancellation flag, checked between
//! chunks, that ends the run with [`Error::Cancelled`]. Each run starts its own threads,
//! [`AnalyzeOptions::threads`] workers plus one writer beside the calling thread (which reads),
//! so several runs share the cores by giving each a cap.

use std::collections::BTreeMap;

use std::fmt::Write as _;
use std::io::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

pub use crate::aggregate::{
    Comparison, ComparisonGroup, DataQuality, FileAggregates, GroupSummary, ReasonCount, TopRow,
    WaterfallStep,
};
use crate::aggregate::{MaturityForms, Scratch, Totals, round2};
use crate::columns::{ColumnType, StandardField, detect_columns};
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::ingest::number::{DecimalStyle, parse_number, write_number};
use crate::ingest::values::{
    CqsCell, Maturity, MaturityUnit, excel_serial_to_date, parse_bool, parse_date, rating_to_cqs,
    read_cqs_cell, read_maturity,
};
use crate::ingest::{
    BlockError, CellKind, CsvBlock, FileKind, Input, Limits, RowChunk, RowRef, RowSink, SourceInfo,
    read_rows,
};
use crate::mapping::{
    ColumnMapping, MappingError, ResolvedMapping, required_columns, sanitize, suggested_mapping,
    validate,
};
use crate::model::{ExposureRow, Lever, MatchStatus};
use crate::output::{
    ADDED_COLUMNS, CsvFormat, OutputKind, needs_neutralising, needs_quoting, neutralise,
    output_file_name, write_csv_cell,
};

/// Which lever to analyse a file under.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LeverChoice {
    /// The given lever.
    Fixed(Lever),
    /// Classify the file first, then analyse it under the lever found.
    Auto,
}

/// The bank's own figures, for basis points of CET1 ratio.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BankFigures {
    /// CET1 capital.
    pub cet1_capital: f64,
    /// Total risk exposure amount (RWAs).
    pub total_rwas: f64,
}

impl BankFigures {
    fn to_savings(self) -> crate::savings::BankFigures {
        crate::savings::BankFigures {
            total_rwas: self.total_rwas,
            cet1_capital: self.cet1_capital,
            reported_ratio: None,
        }
    }
}

/// Options of a run.
#[derive(Debug, Clone)]
pub struct AnalyzeOptions {
    /// The lever, or classification.
    pub lever: LeverChoice,
    /// A mapping from standard columns to the file's columns; auto-mapped when `None`.
    pub mapping: Option<ColumnMapping>,
    /// The lever's required columns from its column definitions; the product's fallbacks when
    /// `None`.
    pub required_columns: Option<Vec<String>>,
    /// Output format; the input's kind when `None` (CSV for CSV, XLSX for spreadsheets).
    pub output_kind: Option<OutputKind>,
    /// Hostile-file bounds.
    pub limits: Limits,
    /// The bank's figures, for basis points.
    pub bank: Option<BankFigures>,
    /// Worker threads of this run (0: one per core). The run also uses the calling thread (it
    /// reads) and one writer thread; give each of several concurrent runs a cap so they share
    /// the cores.
    pub threads: usize,
    /// Rows per chunk.
    pub chunk_rows: usize,
    /// The unit of the Maturity column's bare numbers; from the header when `None`, else months
    /// (see [`crate::mapping::maturity_unit_from_header`]).
    pub maturity_unit: Option<MaturityUnit>,
    /// The risk-weight notation, when the user chose it (the mapping dialog,
    /// `--risk-weight-format`); detected from the values when `None`.
    pub risk_weight_format: Option<RwFormat>,
    /// A second rule set to evaluate every row under as well (`--compare-ruleset`): the
    /// summary's `comparison` then gives both savings and what moved. The processed file is
    /// the run's rule set's.
    pub compare_rule_set: Option<Arc<crate::rules::RuleSet>>,
}

impl Default for AnalyzeOptions {
    fn default() -> Self {
        AnalyzeOptions {
            lever: LeverChoice::Auto,
            mapping: None,
            required_columns: None,
            output_kind: None,
            limits: Limits::default(),
            bank: None,
            threads: 0,
            chunk_rows: 8 * 1024,
            maturity_unit: None,
            risk_weight_format: None,
            compare_rule_set: None,
        }
    }
}

/// Where the processed file goes.
pub enum OutputTarget<'a> {
    /// A writer, written from the run's writer thread. CSV is streamed to it; an XLSX workbook
    /// is assembled (its sheet in a temporary file of the system's temporary folder, as
    /// `rust_xlsxwriter`'s constant-memory mode does) and written to it at the end. On failure
    /// what was written is incomplete: discard it.
    Writer(&'a mut (dyn std::io::Write + Send)),
    /// Memory; emptied when the run fails.
    Buffer(&'a mut Vec<u8>),
    /// Nowhere: the rows are analysed, nothing is formatted or written (for measurements).
    Discard,
}

impl std::fmt::Debug for OutputTarget<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            OutputTarget::Writer(_) => "Writer",
            OutputTarget::Buffer(_) => "Buffer",
            OutputTarget::Discard => "Discard",
        })
    }
}

/// The stage a run is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Opening the file and reading its header and first chunk.
    Reading,
    /// Choosing the lever from the headers and first rows (only when the lever is `Auto`).
    Classifying,
    /// Mapping and validating the columns, detecting number and risk-weight notations.
    Mapping,
    /// Reading, evaluating and writing the rows (streamed together).
    Evaluating,
    /// Every row is evaluated: finishing the processed file (flushing CSV, compressing XLSX).
    Writing,
}

impl Stage {
    fn from_u8(v: u8) -> Stage {
        match v {
            0 => Stage::Reading,
            1 => Stage::Classifying,
            2 => Stage::Mapping,
            3 => Stage::Evaluating,
            _ => Stage::Writing,
        }
    }
}

/// A progress report of a running analysis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    /// The stage.
    pub stage: Stage,
    /// Data rows read from the file so far.
    pub rows_read: u64,
    /// Rows evaluated and handed to the output, in file order.
    pub rows_done: u64,
    /// Of the rows done, those matched.
    pub rows_matched: u64,
}

/// How a caller watches and stops a run.
#[derive(Clone, Copy)]
pub struct RunControl<'a> {
    /// Called with the run's progress, never more often than `progress_interval` and never
    /// from two threads at once (the reader and the writer thread both report). Stages shorter
    /// than the interval may not be seen; the final figures are in the report.
    pub progress: Option<&'a (dyn Fn(&Progress) + Sync)>,
    /// Smallest time between two progress calls (100 ms by default).
    pub progress_interval: Duration,
    /// When set, the run stops at the next chunk boundary (about 8,000 rows or 1 MB) and
    /// returns [`Error::Cancelled`]; nothing is written to a buffer, and what went to a writer
    /// is incomplete.
    pub cancel: Option<&'a AtomicBool>,
}

impl Default for RunControl<'_> {
    fn default() -> Self {
        RunControl {
            progress: None,
            progress_interval: Duration::from_millis(100),
            cancel: None,
        }
    }
}

impl std::fmt::Debug for RunControl<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunControl")
            .field("progress", &self.progress.is_some())
            .field("progress_interval", &self.progress_interval)
            .field("cancel", &self.cancel)
            .finish()
    }
}

/// The shared progress state of a run and the throttle of its callback.
struct Reporter<'a> {
    control: RunControl<'a>,
    last: Mutex<Option<Instant>>,
    stage: AtomicU8,
    rows_read: AtomicU64,
    rows_done: AtomicU64,
    rows_matched: AtomicU64,
}

impl<'a> Reporter<'a> {
    fn new(control: RunControl<'a>) -> Self {
        Reporter {
            control,
            last: Mutex::new(None),
            stage: AtomicU8::new(Stage::Reading as u8),
            rows_read: AtomicU64::new(0),
            rows_done: AtomicU64::new(0),
            rows_matched: AtomicU64::new(0),
        }
    }

    fn cancelled(&self) -> bool {
        self.control
            .cancel
            .is_some_and(|c| c.load(Ordering::Relaxed))
    }

    fn check(&self) -> Result<()> {
        if self.cancelled() {
            Err(Error::Cancelled)
        } else {
            Ok(())
        }
    }

    fn stage(&self, s: Stage) {
        self.stage.store(s as u8, Ordering::Relaxed);
        self.tick();
    }

    /// Calls the callback when the interval has passed since the last call.
    fn tick(&self) {
        let Some(cb) = self.control.progress else {
            return;
        };
        let Ok(mut last) = self.last.lock() else {
            return;
        };
        let now = Instant::now();
        if last.is_some_and(|l| now.duration_since(l) < self.control.progress_interval) {
            return;
        }
        cb(&Progress {
            stage: Stage::from_u8(self.stage.load(Ordering::Relaxed)),
            rows_read: self.rows_read.load(Ordering::Relaxed),
            rows_done: self.rows_done.load(Ordering::Relaxed),
            rows_matched: self.rows_matched.load(Ordering::Relaxed),
        });
        // Measured after the call, so a slow callback never gets called back to back.
        *last = Some(Instant::now());
    }
}

/// The risk-weight notation of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RwFormat {
    /// 20 means 20 %.
    Percent,
    /// 0.2 means 20 %.
    Fraction,
}

impl RwFormat {
    /// Parses a notation as users name it: `percent` (or `%`), `decimal` or `fraction`.
    pub fn parse(s: &str) -> Option<RwFormat> {
        match s.trim().to_ascii_lowercase().as_str() {
            "percent" | "percentage" | "%" => Some(RwFormat::Percent),
            "decimal" | "fraction" => Some(RwFormat::Fraction),
            _ => None,
        }
    }

    /// The notation in words, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            RwFormat::Percent => "percentages (20 means 20 %)",
            RwFormat::Fraction => "decimal fractions (0.2 means 20 %)",
        }
    }
}

/// How the risk-weight notation was decided.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RwFormatInfo {
    /// The notation used to read and write weights.
    pub format: RwFormat,
    /// True when the file mixes notations (the minority is above a tenth of the votes) or
    /// has weights that fit either (between 1 and 12.5) and nothing else: check the output.
    pub ambiguous: bool,
    /// Values read as percent (above 12.5, or with a `%` sign).
    pub percent_votes: u64,
    /// Values read as fractions (above 0, at most 1).
    pub fraction_votes: u64,
    /// Values that fit either notation (above 1, at most 12.5).
    pub neutral_values: u64,
}

/// How the lever was classified.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClassificationInfo {
    /// Confidence in 0..1.
    pub confidence: f64,
    /// The classifier's reason.
    pub reason: String,
}

/// CET1 basis points gained, with the bank's figures.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct BpsSummary {
    /// The bank's figures used.
    pub figures: BankFigures,
    /// Exact portfolio gain: 10,000 x C x dR / (R x (R - dR)).
    pub bps_exact: f64,
    /// Linear approximation: 10,000 x C x dR / R^2 (additive per row).
    pub bps_linear: f64,
    /// RWAs per basis point (R^2 / (10,000 x C)).
    pub rwa_per_bp: f64,
}

/// The summary of a run (serialisable; `--summary` writes it as JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnalysisSummary {
    /// Input file name.
    pub file_name: String,
    /// Input format.
    pub input_kind: FileKind,
    /// Processed file name (sanitised, `optimized_` prefix).
    pub output_file_name: String,
    /// Processed file format.
    pub output_kind: OutputKind,
    /// The lever analysed.
    pub lever: Lever,
    /// The classification, when the lever came from it.
    pub classification: Option<ClassificationInfo>,
    /// Analysis_Type written in the file.
    pub analysis_type: String,
    /// Rule set id.
    pub rule_set: String,
    /// Reporting date.
    pub reporting_date: NaiveDate,
    /// Client country.
    pub client_country: String,
    /// The mapping applied (standard column to file column).
    pub mapping: ColumnMapping,
    /// True when the mapping was suggested automatically.
    pub mapping_auto: bool,
    /// Data rows.
    pub rows: u64,
    /// Rows matched.
    pub matched: u64,
    /// Rows not matched.
    pub not_matched: u64,
    /// Rows in error.
    pub errors: u64,
    /// Sum of Exposure_Amount.
    pub total_exposure: f64,
    /// RWAs before (amount x current weight).
    pub rwa_before: f64,
    /// RWAs after (amount x suggested weight).
    pub rwa_after: f64,
    /// Sum of Capital_Saving: the RWA reduction.
    pub total_rwa_saving: f64,
    /// Basis points, with the bank's figures.
    pub bps: Option<BpsSummary>,
    /// Risk-weight notation.
    pub risk_weight_format: RwFormatInfo,
    /// Decimal notation of the amounts.
    pub decimal_style: DecimalStyle,
    /// How the Maturity column was read (unit, where it came from, values by form); `None`
    /// when no column is mapped to Maturity.
    pub maturity: Option<MaturityInfo>,
    /// Totals by Applied_Rule, largest saving first.
    pub by_rule: Vec<GroupSummary>,
    /// Totals by Asset_Class, largest saving first.
    pub by_asset_class: Vec<GroupSummary>,
    /// Count of rows per engine flag.
    pub flags: BTreeMap<String, u64>,
    /// Totals by status, article, CQS, country, currency and maturity bucket, the top 20
    /// savings and exposures, rows by reason, data-quality counts.
    pub aggregates: FileAggregates,
    /// The same file under a second rule set, when asked (`compare_rule_set`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comparison: Option<Comparison>,
    /// The decision trace of one row, when the command line asks for it (`--trace-row`; see
    /// [`trace_row`]); runs never fill it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<crate::trace::DecisionTrace>,
    /// Things the user should know (ambiguous notation, empty identifiers, ...).
    pub warnings: Vec<String>,
}

/// Where the unit of a Maturity column's bare numbers came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnitSource {
    /// The header names it (`Maturity (days)`, `Plazo_meses`).
    Header,
    /// The header names none: months, the specification's unit.
    Default,
    /// Given by the caller (`AnalyzeOptions::maturity_unit`, `--maturity-unit`).
    Given,
}

/// How the Maturity column was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MaturityInfo {
    /// The file's column mapped to Maturity.
    pub column: String,
    /// The unit its bare numbers were read in.
    pub unit: MaturityUnit,
    /// Where the unit came from.
    pub unit_source: UnitSource,
    /// Values read as dates (dates written as text, spreadsheet dates and date serials).
    pub dates: u64,
    /// Bare numbers, read in `unit`.
    pub numbers: u64,
    /// Numbers with their own unit (`90d`, `3 meses`).
    pub numbers_with_unit: u64,
    /// Blank cells.
    pub blank: u64,
    /// Values that could not be read (flagged "maturity unreadable" on their rows).
    pub unreadable: u64,
}

/// Wall-clock figures of a run.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Timings {
    /// Whole run, seconds.
    pub total_secs: f64,
    /// Bytes of input read.
    pub input_bytes: u64,
}

/// What a run returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnalysisReport {
    /// The summary.
    pub summary: AnalysisSummary,
    /// Timings.
    pub timings: Timings,
}

/// Rows of the first chunk used to detect notations.
const DETECTION_SAMPLE: usize = 65_536;
/// Data rows an XLSX sheet holds below its header.
const XLSX_MAX_ROWS: u64 = 1_048_575;

/// Everything the workers and the writer need, decided from the headers and the first chunk.
#[derive(Debug)]
struct Plan {
    input_kind: FileKind,
    lever: Lever,
    classification: Option<ClassificationInfo>,
    map: ResolvedMapping,
    mapping: ColumnMapping,
    mapping_auto: bool,
    styles: Vec<DecimalStyle>,
    rw: RwFormatInfo,
    keep: Vec<usize>,
    out_headers: Vec<String>,
    csv: CsvFormat,
    output_kind: OutputKind,
    format_output: bool,
    numeric_cols: Vec<bool>,
    maturity_unit: MaturityUnit,
    maturity_unit_source: UnitSource,
    /// The mapped standard columns and their file columns, for the data-quality counts.
    mapped: Vec<(StandardField, usize)>,
    /// The lever's required standard columns (all mapped: the plan refuses a mapping without).
    required: Vec<StandardField>,
    /// The file's column names.
    headers: Vec<String>,
    analysis_type: &'static str,
    reporting_date: NaiveDate,
    warnings: Vec<String>,
}

impl Plan {
    #[inline]
    fn number(&self, row: &RowRef<'_>, f: StandardField) -> Option<crate::ingest::Number> {
        let c = self.map.col(f)?;
        parse_number(row.get(c), self.styles[c])
    }

    #[inline]
    fn weight_pct(&self, row: &RowRef<'_>, f: StandardField) -> Option<f64> {
        let n = self.number(row, f)?;
        Some(if n.percent || self.rw.format == RwFormat::Percent {
            n.value
        } else {
            n.value * 100.0
        })
    }

    #[inline]
    fn text<'r>(&self, row: &RowRef<'r>, f: StandardField) -> &'r str {
        match self.map.col(f) {
            Some(c) => trim_text(row.text(c)),
            None => "",
        }
    }

    /// Builds the engine's view of a row, counting its Maturity's form. Allocates nothing.
    fn exposure<'r>(&self, row: &RowRef<'r>, forms: &mut MaturityForms) -> ExposureRow<'r> {
        use StandardField as F;
        let (mut maturity_date, mut residual, mut invalid_maturity) = (None, None, "");
        if let Some(c) = self.map.col(F::Maturity) {
            match read_maturity(row.get(c), self.maturity_unit) {
                Maturity::Date(d) => {
                    forms.dates += 1;
                    maturity_date = Some(d);
                    residual = Some((d - self.reporting_date).num_days() as f64);
                }
                Maturity::Days { days, unit_written } => {
                    if unit_written {
                        forms.with_unit += 1;
                    } else {
                        forms.numbers += 1;
                    }
                    residual = Some(days);
                }
                Maturity::Blank => forms.blank += 1,
                Maturity::Unreadable => {
                    forms.unreadable += 1;
                    invalid_maturity = row.text(c).trim();
                }
            }
        }
        // The Credit_Quality_Step cell wins; blank or "no rating" falls back to the Rating column;
        // anything else is kept as written so the engine refuses it rather than reading unrated.
        let (mut cqs, mut invalid_cqs) = (None, "");
        if let Some(c) = self.map.col(F::CreditQualityStep) {
            match read_cqs_cell(row.get(c)) {
                CqsCell::Step(s) => cqs = Some(s),
                CqsCell::Invalid => {
                    let t = row.text(c).trim();
                    invalid_cqs = if t.is_empty() { "?" } else { t };
                }
                CqsCell::Unrated => {}
            }
        }
        if cqs.is_none() && invalid_cqs.is_empty() {
            cqs = self
                .map
                .col(F::Rating)
                .and_then(|c| rating_to_cqs(row.get(c)));
        }
        ExposureRow {
            exposure_id: self.text(row, F::ExposureId),
            asset_class: self.text(row, F::AssetClass),
            eligible_collateral: self
                .map
                .col(F::EligibleCollateral)
                .and_then(|c| parse_bool(row.get(c))),
            current_rw_pct: self.weight_pct(row, F::CurrentRiskWeight),
            exposure_amount: self.number(row, F::ExposureAmount).map(|n| n.value),
            nif: self.text(row, F::Nif),
            lei: self.text(row, F::Lei),
            legal_name: self.text(row, F::LegalName),
            residual_maturity_days: residual,
            // The original maturity: from the origination date to the maturity date.
            original_maturity_days: match (maturity_date, self.map.col(F::OriginationDate)) {
                (Some(end), Some(c)) => date_cell(row, c)
                    .filter(|start| *start <= end)
                    .map(|start| (end - start).num_days() as f64),
                _ => None,
            },
            currency: self.text(row, F::Currency),
            country: self.text(row, F::Country),
            cqs,
            invalid_cqs,
            invalid_maturity,
            collateral_value: self.number(row, F::CollateralValue).map(|n| n.value),
            collateral_rw_pct: self.weight_pct(row, F::CollateralRiskWeight),
            maturity_date,
            scra_grade: self.text(row, F::ScraGrade),
            collateral_type: self.text(row, F::CollateralType),
            collateral_currency: self.text(row, F::CollateralCurrency),
        }
    }

    /// Counts the row's blank and unreadable mapped cells. Allocates nothing.
    fn data_quality(&self, row: &RowRef<'_>, er: &ExposureRow<'_>, t: &mut Totals) {
        for &(f, c) in &self.mapped {
            let cell = row.get(c);
            // Most cells hold no padding: trim only those that may be blank.
            let blank = match (cell.first(), cell.last()) {
                (None, _) => true,
                (Some(a), Some(z))
                    if a.is_ascii_whitespace()
                        || *a == 0xC2
                        || z.is_ascii_whitespace()
                        || *z == 0xA0 =>
                {
                    crate::ingest::values::trim(cell).is_empty()
                }
                _ => false,
            };
            if blank {
                t.missing[f.index()] += 1;
                continue;
            }
            if unreadable(f, row, c, er) {
                t.unreadable[f.index()] += 1;
            }
        }
    }

    /// The name of the file's column `c`.
    fn mapping_header(&self, c: usize) -> Option<String> {
        self.headers.get(c).cloned()
    }

    /// The state of a standard field's cell in a row: not mapped, blank, unreadable or present.
    fn field_state(&self, row: &RowRef<'_>, er: &ExposureRow<'_>, f: StandardField) -> FieldState {
        let Some(c) = self.map.col(f) else {
            return FieldState::NotMapped;
        };
        if crate::ingest::values::trim(row.get(c)).is_empty() {
            FieldState::Blank
        } else if unreadable(f, row, c, er) {
            FieldState::Unreadable
        } else {
            FieldState::Present
        }
    }

    /// A weight in percent, in the file's notation.
    #[inline]
    fn to_file_rw(&self, pct: f64) -> f64 {
        match self.rw.format {
            RwFormat::Percent => pct,
            RwFormat::Fraction => pct / 100.0,
        }
    }

    #[inline]
    fn rw_decimals(&self) -> u32 {
        match self.rw.format {
            RwFormat::Percent => 4,
            RwFormat::Fraction => 6,
        }
    }
}

/// `s.trim()`, skipping the Unicode-aware scan when both ends are printable ASCII (nothing to
/// trim), as most cells are.
#[inline]
fn trim_text(s: &str) -> &str {
    let printable = |b: &u8| *b > b' ' && *b < 0x7F;
    match (s.as_bytes().first(), s.as_bytes().last()) {
        (Some(a), Some(z)) if printable(a) && printable(z) => s,
        _ => s.trim(),
    }
}

/// True when a mapped, non-blank cell of a standard field could not be read as its type.
#[inline]
fn unreadable(f: StandardField, row: &RowRef<'_>, c: usize, er: &ExposureRow<'_>) -> bool {
    use StandardField as F;
    match f {
        F::ExposureAmount => er.exposure_amount.is_none(),
        F::CurrentRiskWeight => er.current_rw_pct.is_none(),
        F::CollateralValue => er.collateral_value.is_none(),
        F::CollateralRiskWeight => er.collateral_rw_pct.is_none(),
        F::Maturity => !er.invalid_maturity.is_empty(),
        F::CreditQualityStep => !er.invalid_cqs.is_empty(),
        F::EligibleCollateral => er.eligible_collateral.is_none(),
        F::OriginationDate => date_cell(row, c).is_none(),
        _ => false,
    }
}

/// Votes on the risk-weight notation.
fn detect_rw_format<'a, I: IntoIterator<Item = &'a [u8]>>(
    cells: I,
    style: DecimalStyle,
) -> RwFormatInfo {
    let (mut pct, mut frac, mut neutral) = (0u64, 0u64, 0u64);
    for cell in cells {
        let Some(n) = parse_number(cell, style) else {
            continue;
        };
        if n.percent || n.value > 12.5 {
            pct += 1;
        } else if n.value > 0.0 && n.value <= 1.0 {
            frac += 1;
        } else if n.value > 1.0 {
            neutral += 1;
        }
    }
    let votes = pct + frac;
    let format = if frac > pct {
        RwFormat::Fraction
    } else {
        RwFormat::Percent
    };
    let minority = pct.min(frac);
    let ambiguous = (votes > 0 && minority * 10 > votes) || (votes == 0 && neutral > 0);
    RwFormatInfo {
        format,
        ambiguous,
        percent_votes: pct,
        fraction_votes: frac,
        neutral_values: neutral,
    }
}

/// Per-row output kept for the spreadsheet writer.
#[derive(Debug, Clone, Copy)]
struct RowResult {
    suggested: f64,
    delta: f64,
    saving: f64,
    status: MatchStatus,
    details: (u32, u32),
    rule: (u32, u32),
    reference: (u32, u32),
}

/// A worker's output for one chunk, recycled.
#[derive(Debug, Default)]
struct WorkOut {
    csv: Vec<u8>,
    results: Vec<RowResult>,
    arena: String,
    /// The chunk's totals, merged by the writer in file order: the sums do not depend on how
    /// many workers there are or which worker took which chunk.
    totals: Totals,
}

/// Analyses one chunk: evaluates every row, accounts it, and formats the output.
fn process_chunk(
    plan: &Plan,
    engine: &Engine,
    compare: Option<&Engine>,
    chunk: &RowChunk,
    out: &mut WorkOut,
    s: &mut Scratch,
    rules: &mut RuleCells,
) {
    out.csv.clear();
    out.results.clear();
    out.arena.clear();
    out.totals.reset();
    let t = &mut out.totals;
    let sep = plan.csv.decimal.separator();
    let delim = plan.csv.delimiter;
    let rw_dec = plan.rw_decimals();
    // Rows of an unquoted CSV block are written back as they stand when every column is kept.
    let joined = chunk.joined() == Some(delim);
    let keep_all = plan.keep.iter().copied().eq(0..chunk.ncols());
    for i in 0..chunk.len() {
        let row = chunk.row(i);
        let er = plan.exposure(&row, &mut t.maturity);
        let d = engine.evaluate(plan.lever, &er);
        let saving = match er.exposure_amount {
            Some(a) => d.capital_saving(a),
            None => 0.0,
        };
        t.account(s, &d, &er, saving, i as u64);
        if let Some(e2) = compare {
            let d2 = e2.evaluate(plan.lever, &er);
            let saving2 = match er.exposure_amount {
                Some(a) => d2.capital_saving(a),
                None => 0.0,
            };
            t.compare.account(&d, &d2, &er, saving, saving2);
        }
        plan.data_quality(&row, &er, t);
        if !plan.format_output {
            continue;
        }
        let suggested = plan.to_file_rw(d.suggested_rw_pct);
        let delta = plan.to_file_rw(d.rw_delta_pct());
        match plan.output_kind {
            OutputKind::Csv => {
                let o = &mut out.csv;
                if joined
                    && keep_all
                    && !(0..chunk.ncols()).any(|c| {
                        let cell = row.get(c);
                        matches!(
                            cell.first(),
                            Some(b'=' | b'@' | b'\t' | b'\r' | b'+' | b'-')
                        ) && needs_neutralising(cell)
                    })
                {
                    // The row as the file wrote it (no cell of a joined chunk needs quoting).
                    o.extend_from_slice(row.bytes());
                    o.push(delim);
                } else if !joined && needs_quoting(row.bytes(), delim) {
                    // The row's cells lie end to end: one scan tells whether any needs quoting.
                    for &c in &plan.keep {
                        write_csv_cell(o, row.get(c), delim, true);
                        o.push(delim);
                    }
                } else {
                    for &c in &plan.keep {
                        let cell = row.get(c);
                        if matches!(
                            cell.first(),
                            Some(b'=' | b'@' | b'\t' | b'\r' | b'+' | b'-')
                        ) && needs_neutralising(cell)
                        {
                            o.push(b'\'');
                        }
                        o.extend_from_slice(cell);
                        o.push(delim);
                    }
                }
                write_number_cell(o, suggested, rw_dec, sep, delim);
                o.push(delim);
                write_number_cell(o, delta, rw_dec, sep, delim);
                o.push(delim);
                write_number_cell(o, saving, 2, sep, delim);
                o.push(delim);
                o.extend_from_slice(plan.analysis_type.as_bytes());
                o.push(delim);
                o.extend_from_slice(d.status.as_str().as_bytes());
                o.push(delim);
                // Match_Details straight into the output, then checked: most need no quoting.
                let start = o.len();
                let _ = d.details.render(&mut ByteText(o));
                let text = &o[start..];
                let neutral = needs_neutralising(text);
                if neutral || needs_quoting(text, delim) {
                    if !neutral && memchr::memchr(b'"', text).is_none() {
                        // Quoted as it stands (what `write_csv_cell` writes).
                        o.insert(start, b'"');
                        o.push(b'"');
                    } else {
                        let tmp = &mut rules.spare;
                        tmp.clear();
                        tmp.extend_from_slice(text);
                        o.truncate(start);
                        write_csv_cell(o, tmp, delim, true);
                    }
                }
                o.push(delim);
                rules.write(o, &d, delim, &mut s.text);
            }
            OutputKind::Xlsx => {
                let a = &mut out.arena;
                let span = |a: &mut String, f: &dyn std::fmt::Display| {
                    let start = a.len() as u32;
                    let _ = write!(a, "{f}");
                    (start, a.len() as u32)
                };
                let details = span(a, &d.details);
                let rule = span(a, &d.applied_rule);
                let reference = span(a, &d.regulatory_reference);
                out.results.push(RowResult {
                    suggested,
                    delta,
                    saving,
                    status: d.status,
                    details,
                    rule,
                    reference,
                });
            }
        }
    }
    out.totals.flush();
}

/// Appends text to a byte buffer through `fmt::Write`.
struct ByteText<'a>(&'a mut Vec<u8>);

impl std::fmt::Write for ByteText<'_> {
    #[inline]
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// The last three cells of a CSV output row (Applied_Rule, Regulatory_Reference and the line
/// end), written once per rule path a worker meets and copied after that. A run's rule set has
/// a handful of paths; at most [`RuleCells::MAX`] are kept, the others are written each time.
#[derive(Default)]
struct RuleCells {
    paths: Vec<(u64, u64, Vec<u8>)>,
    /// A text being quoted.
    spare: Vec<u8>,
}

impl RuleCells {
    const MAX: usize = 64;

    /// A rule path as a number: its tables' indices, 16 bits each (`None` when an index could
    /// be mistaken for "no table").
    fn key(tables: &[Option<&crate::rules::RuleTable>; 3]) -> Option<u64> {
        let mut k = 0u64;
        for (i, t) in tables.iter().enumerate() {
            let v = match t {
                Some(t) if t.index() == u16::MAX => return None,
                Some(t) => u64::from(t.index()),
                None => u64::from(u16::MAX),
            };
            k |= v << (16 * i);
        }
        Some(k)
    }

    #[inline]
    fn write(
        &mut self,
        o: &mut Vec<u8>,
        d: &crate::engine::Decision<'_>,
        delim: u8,
        text: &mut String,
    ) {
        let keys = Self::key(&d.applied_rule.tables).zip(Self::key(&d.regulatory_reference.0));
        if let Some((a, b)) = keys
            && let Some((_, _, cells)) = self.paths.iter().find(|(x, y, _)| *x == a && *y == b)
        {
            o.extend_from_slice(cells);
            return;
        }
        let start = o.len();
        text.clear();
        d.applied_rule.write_to(text);
        write_csv_cell(o, text.as_bytes(), delim, true);
        o.push(delim);
        text.clear();
        d.regulatory_reference.write_to(text);
        write_csv_cell(o, text.as_bytes(), delim, true);
        o.push(b'\n');
        if let Some((a, b)) = keys
            && self.paths.len() < Self::MAX
        {
            self.paths.push((a, b, o[start..].to_vec()));
        }
    }
}

/// Writes a number as a CSV cell: quoted when its decimal separator is the file's delimiter
/// (decimal commas in a comma-separated file), so the cell stays one field.
fn write_number_cell(o: &mut Vec<u8>, v: f64, decimals: u32, sep: u8, delim: u8) {
    if sep != delim {
        write_number(o, v, decimals, sep);
        return;
    }
    let start = o.len();
    o.push(b'"');
    write_number(o, v, decimals, sep);
    if o[start + 1..].contains(&delim) {
        o.push(b'"');
    } else {
        o.remove(start);
    }
}

/// Messages between the threads.
struct Job {
    seq: u64,
    chunk: RowChunk,
    out: WorkOut,
    /// CSV records to parse into `chunk` first (after the first chunk of a CSV file).
    raw: Option<CsvBlock>,
    /// The block's parse error, reported in file order by the writer.
    error: Option<BlockError>,
}

/// Buffers coming back from the writer for reuse.
type Recycled = (RowChunk, WorkOut, Option<Vec<u8>>);

/// Where the writer puts bytes.
enum Sink<'a> {
    CsvWriter(std::io::BufWriter<&'a mut (dyn std::io::Write + Send)>),
    CsvBuffer(&'a mut Vec<u8>),
    Xlsx(Box<XlsxOut>, XlsxDest<'a>),
    Discard,
}

enum XlsxDest<'a> {
    Writer(&'a mut (dyn std::io::Write + Send)),
    Buffer(&'a mut Vec<u8>),
}

struct XlsxOut {
    workbook: rust_xlsxwriter::Workbook,
    next_row: u32,
    date_format: rust_xlsxwriter::Format,
}

fn xerr(e: rust_xlsxwriter::XlsxError) -> Error {
    Error::Output(e.to_string())
}

impl XlsxOut {
    fn new(headers: &[String]) -> Result<XlsxOut> {
        let mut workbook = rust_xlsxwriter::Workbook::new();
        // Fast compression: the sheet XML compresses well at any level, and level 1 is several
        // times quicker than the default on large sheets.
        workbook.set_zip_compression_level(1);
        let bold = rust_xlsxwriter::Format::new().set_bold();
        let ws = workbook
            .add_worksheet_with_constant_memory()
            .map_err(xerr)?;
        ws.set_name("Optimized").map_err(xerr)?;
        for (c, h) in headers.iter().enumerate() {
            ws.write_string_with_format(0, c as u16, neutralise(h).as_ref(), &bold)
                .map_err(xerr)?;
        }
        Ok(XlsxOut {
            workbook,
            next_row: 1,
            date_format: rust_xlsxwriter::Format::new().set_num_format("yyyy-mm-dd"),
        })
    }

    fn write_chunk(&mut self, plan: &Plan, chunk: &RowChunk, out: &WorkOut) -> Result<()> {
        let ws = self.workbook.worksheet_from_index(0).map_err(xerr)?;
        for i in 0..chunk.len() {
            let r = self.next_row;
            let row = chunk.row(i);
            let mut col: u16 = 0;
            for &c in &plan.keep {
                let cell = row.text(c);
                match row.kind(c) {
                    CellKind::Number => {
                        if let Some(n) = parse_number(cell.as_bytes(), DecimalStyle::Point) {
                            ws.write_number(r, col, n.value).map_err(xerr)?;
                        }
                    }
                    CellKind::Bool => {
                        ws.write_boolean(r, col, cell == "TRUE").map_err(xerr)?;
                    }
                    CellKind::Date => match rust_xlsxwriter::ExcelDateTime::parse_from_str(cell) {
                        Ok(dt) => {
                            ws.write_datetime_with_format(r, col, &dt, &self.date_format)
                                .map_err(xerr)?;
                        }
                        Err(_) => {
                            ws.write_string(r, col, cell).map_err(xerr)?;
                        }
                    },
                    CellKind::Text | CellKind::Error => {
                        if cell.is_empty() {
                        } else if plan.numeric_cols[c]
                            && let Some(n) =
                                parse_number(cell.as_bytes(), plan.styles[c]).filter(|n| !n.percent)
                        {
                            ws.write_number(r, col, n.value).map_err(xerr)?;
                        } else {
                            ws.write_string(r, col, neutralise(cell).as_ref())
                                .map_err(xerr)?;
                        }
                    }
                }
                col += 1;
            }
            let res = &out.results[i];
            let text = |span: (u32, u32)| &out.arena[span.0 as usize..span.1 as usize];
            let round = |v: f64, d: i32| {
                let f = 10f64.powi(d);
                (v * f).round() / f
            };
            let rw_dec = plan.rw_decimals() as i32;
            ws.write_number(r, col, round(res.suggested, rw_dec))
                .map_err(xerr)?;
            ws.write_number(r, col + 1, round(res.delta, rw_dec))
                .map_err(xerr)?;
            ws.write_number(r, col + 2, round(res.saving, 2))
                .map_err(xerr)?;
            ws.write_string(r, col + 3, plan.analysis_type)
                .map_err(xerr)?;
            ws.write_string(r, col + 4, res.status.as_str())
                .map_err(xerr)?;
            for (k, span) in [res.details, res.rule, res.reference]
                .into_iter()
                .enumerate()
            {
                let t = text(span);
                if !t.is_empty() {
                    ws.write_string(r, col + 5 + k as u16, neutralise(t).as_ref())
                        .map_err(xerr)?;
                }
            }
            self.next_row += 1;
        }
        Ok(())
    }
}

impl Sink<'_> {
    fn write(&mut self, plan: &Plan, chunk: &RowChunk, out: &WorkOut) -> Result<()> {
        match self {
            Sink::CsvWriter(w) => w
                .write_all(&out.csv)
                .map_err(|e| Error::Output(e.to_string())),
            Sink::CsvBuffer(b) => {
                b.extend_from_slice(&out.csv);
                Ok(())
            }
            Sink::Xlsx(x, _) => x.write_chunk(plan, chunk, out),
            Sink::Discard => Ok(()),
        }
    }

    fn finish(self) -> Result<()> {
        match self {
            Sink::CsvWriter(mut w) => w.flush().map_err(|e| Error::Output(e.to_string())),
            Sink::CsvBuffer(_) | Sink::Discard => Ok(()),
            Sink::Xlsx(mut x, dest) => match dest {
                XlsxDest::Writer(w) => {
                    let bytes = x.workbook.save_to_buffer().map_err(xerr)?;
                    w.write_all(&bytes)
                        .and_then(|()| w.flush())
                        .map_err(|e| Error::Output(e.to_string()))
                }
                XlsxDest::Buffer(b) => {
                    *b = x.workbook.save_to_buffer().map_err(xerr)?;
                    Ok(())
                }
            },
        }
    }
}

/// The reader side: builds the plan from the first chunk, then feeds the workers.
struct Feeder<'e, 'o> {
    engine: &'e Engine,
    opts: &'o AnalyzeOptions,
    reporter: &'o Reporter<'o>,
    format_output: bool,
    info: Option<SourceInfo>,
    plan: Option<Arc<Plan>>,
    plan_tx: Option<mpsc::SyncSender<Arc<Plan>>>,
    job_tx: Option<mpsc::SyncSender<(Arc<Plan>, Job)>>,
    recycle_rx: mpsc::Receiver<Recycled>,
    spare_outs: Vec<WorkOut>,
    spare_chunks: Vec<RowChunk>,
    spare_blocks: Vec<Vec<u8>>,
    allocated: usize,
    max_chunks: usize,
    seq: u64,
    rows: u64,
}

impl Feeder<'_, '_> {
    fn build_plan(&mut self, chunk: &RowChunk) -> Result<Plan> {
        let info = self
            .info
            .as_ref()
            .ok_or(crate::ingest::IngestError::Empty)?;
        let headers = info.headers.clone();
        let first_rows: Vec<Vec<String>> = (0..chunk.len().min(10))
            .map(|i| {
                chunk
                    .row(i)
                    .iter()
                    .map(|b| String::from_utf8_lossy(b).into_owned())
                    .collect()
            })
            .collect();
        let mut warnings = Vec::new();
        let (lever, classification) = match self.opts.lever {
            LeverChoice::Fixed(l) => (l, None),
            LeverChoice::Auto => {
                self.reporter.stage(Stage::Classifying);
                let (l, confidence, reason) = classify_lever(&headers, chunk, self.engine)?;
                if confidence < CLASSIFICATION_THRESHOLD {
                    warnings.push(format!(
                        "The lever was classified with {:.0}% confidence, below the {:.0}% threshold: review it before using the results ({reason})",
                        confidence * 100.0,
                        CLASSIFICATION_THRESHOLD * 100.0
                    ));
                }
                (l, Some(ClassificationInfo { confidence, reason }))
            }
        };
        self.reporter.stage(Stage::Mapping);
        let (mapping, mapping_auto) = match &self.opts.mapping {
            Some(m) => {
                let s = sanitize(m, &headers)?;
                if let Some(first) = s.not_found.first() {
                    let src =
                        m.0.values()
                            .find(|v| {
                                !v.trim().is_empty()
                                    && crate::mapping::find_column(&headers, v).is_none()
                            })
                            .cloned()
                            .unwrap_or_default();
                    let _ = first;
                    return Err(MappingError::SourceNotFound {
                        source_column: src,
                        available: headers.join(", "),
                    }
                    .into());
                }
                (s.mapping, false)
            }
            None => {
                let m = suggested_mapping(&headers);
                if m.is_empty() {
                    return Err(MappingError::NoValidMappings.into());
                }
                (m, true)
            }
        };
        let required = required_columns(lever, self.opts.required_columns.as_deref());
        let report = validate(&mapping, lever, &required, &headers, &first_rows);
        warnings.extend(report.warnings.iter().cloned());
        report.into_result()?;
        let map = ResolvedMapping::new(&mapping, &headers);
        // A mapped column whose name the file repeats (ingest renamed the repeats `_2`, `_3`):
        // the first one is read.
        for f in StandardField::all() {
            if let Some(c) = map.col(f) {
                let name = headers[c].trim();
                let repeats = (2..)
                    .take_while(|n| {
                        let renamed = format!("{name}_{n}");
                        headers.iter().any(|h| h.eq_ignore_ascii_case(&renamed))
                    })
                    .count();
                if repeats > 0 {
                    warnings.push(format!(
                        "The file has {} columns named \"{name}\": the first (column {}) was read as {}.",
                        repeats + 1,
                        c + 1,
                        f.name()
                    ));
                }
            }
        }

        // Decimal style per column, with the file's delimiter as a hint.
        let sample = chunk.len().min(DETECTION_SAMPLE);
        let fallback = if info.delimiter == Some(';') {
            DecimalStyle::Comma
        } else {
            DecimalStyle::Unknown
        };
        let numeric_fields = [
            StandardField::ExposureAmount,
            StandardField::CurrentRiskWeight,
            StandardField::CollateralValue,
            StandardField::CollateralRiskWeight,
        ];
        let file_style = DecimalStyle::detect(
            numeric_fields
                .iter()
                .filter_map(|f| map.col(*f))
                .flat_map(|c| (0..sample).map(move |i| chunk.row(i).get(c))),
            fallback,
        );
        let mut styles = vec![file_style; headers.len()];
        for f in numeric_fields {
            if let Some(c) = map.col(f) {
                let (point, comma) = DecimalStyle::votes((0..sample).map(|i| chunk.row(i).get(c)));
                styles[c] = DecimalStyle::from_votes(point, comma, file_style);
                if point > 0 && comma > 0 {
                    warnings.push(format!(
                        "{} mixes number notations: {point} values written 1,234.56 and {comma} written 1.234,56 in the first rows. Each value that shows its notation was read in it; values that fit either were read as {}. Check the column.",
                        headers[c],
                        match styles[c] {
                            DecimalStyle::Comma => "1.234,56",
                            _ => "1,234.56",
                        }
                    ));
                }
            }
        }
        // The unit of the Maturity column's bare numbers: given, else named by the header, else
        // months (the specification's unit).
        let maturity_col = map.col(StandardField::Maturity);
        let header_unit =
            maturity_col.and_then(|c| crate::mapping::maturity_unit_from_header(&headers[c]));
        let (maturity_unit, maturity_unit_source) = match (self.opts.maturity_unit, header_unit) {
            (Some(u), _) => (u, UnitSource::Given),
            (None, Some(u)) => (u, UnitSource::Header),
            (None, None) => (MaturityUnit::Months, UnitSource::Default),
        };
        if let (Some(c), UnitSource::Default) = (maturity_col, maturity_unit_source) {
            let bare = (0..sample)
                .filter(|&i| {
                    matches!(
                        read_maturity(chunk.row(i).get(c), MaturityUnit::Months),
                        Maturity::Days {
                            unit_written: false,
                            ..
                        }
                    )
                })
                .count();
            if bare > 0 {
                warnings.push(format!(
                    "{} holds numbers without a unit ({bare} in the first rows): they were read as months, the specification's unit, since the header names none. If they are days or years, set the unit in the mapping.",
                    headers[c]
                ));
            }
        }
        let rw = match map.col(StandardField::CurrentRiskWeight) {
            Some(c) => detect_rw_format((0..sample).map(|i| chunk.row(i).get(c)), styles[c]),
            None => RwFormatInfo {
                format: RwFormat::Percent,
                ambiguous: false,
                percent_votes: 0,
                fraction_votes: 0,
                neutral_values: 0,
            },
        };
        let rw = match self.opts.risk_weight_format {
            // The user's choice: the values' votes stay in the summary for the record.
            Some(format) => {
                if format != rw.format && (rw.percent_votes > 0 || rw.fraction_votes > 0) {
                    warnings.push(format!(
                        "The risk weights were read as {} as set in the mapping, although their values suggest {}. Check Current_Risk_Weight.",
                        format.describe(),
                        rw.format.describe()
                    ));
                }
                RwFormatInfo {
                    format,
                    ambiguous: false,
                    ..rw
                }
            }
            None => rw,
        };
        if rw.ambiguous {
            warnings.push(format!(
                "The risk-weight notation is ambiguous ({} values read as percent, {} as decimal fractions, {} fit either); the file was read as {}. Check Current_Risk_Weight.",
                rw.percent_votes,
                rw.fraction_votes,
                rw.neutral_values,
                match rw.format {
                    RwFormat::Percent => "percent",
                    RwFormat::Fraction => "decimal fractions",
                }
            ));
        }
        let output_kind = self
            .opts
            .output_kind
            .unwrap_or(if info.kind.is_spreadsheet() {
                OutputKind::Xlsx
            } else {
                OutputKind::Csv
            });
        let keep: Vec<usize> = (0..headers.len())
            .filter(|&c| {
                !ADDED_COLUMNS
                    .iter()
                    .any(|a| a.eq_ignore_ascii_case(&headers[c]))
            })
            .collect();
        let out_headers: Vec<String> = keep
            .iter()
            .map(|&c| headers[c].clone())
            .chain(ADDED_COLUMNS.iter().map(|s| s.to_string()))
            .collect();
        let csv = match (info.kind, output_kind) {
            (FileKind::Csv, OutputKind::Csv) => CsvFormat {
                delimiter: info.delimiter.map_or(b',', |d| d as u8),
                decimal: if file_style == DecimalStyle::Comma {
                    DecimalStyle::Comma
                } else {
                    DecimalStyle::Point
                },
                bom: matches!(
                    info.encoding,
                    Some(
                        crate::ingest::TextEncoding::Utf8Bom | crate::ingest::TextEncoding::Latin1
                    )
                ),
            },
            _ => CsvFormat::default(),
        };
        let detected = detect_columns(&headers, &first_rows);
        let numeric_cols = detected
            .iter()
            .map(|d| d.data_type == ColumnType::Numeric)
            .collect();
        if output_kind == OutputKind::Xlsx && out_headers.len() > 16_384 {
            return Err(Error::Output("too many columns for a spreadsheet".into()));
        }
        Ok(Plan {
            input_kind: info.kind,
            lever,
            classification,
            map,
            mapping,
            mapping_auto,
            styles,
            rw,
            keep,
            out_headers,
            csv,
            output_kind,
            format_output: self.format_output,
            numeric_cols,
            maturity_unit,
            maturity_unit_source,
            mapped: StandardField::all()
                .filter_map(|f| map.col(f).map(|c| (f, c)))
                .collect(),
            required,
            headers: headers.clone(),
            analysis_type: analysis_type(lever),
            reporting_date: self.engine.context().reporting_date,
            warnings,
        })
    }
}

impl RowSink<Error> for Feeder<'_, '_> {
    fn start(&mut self, info: &SourceInfo) -> Result<()> {
        self.info = Some(info.clone());
        Ok(())
    }

    fn chunk(&mut self, chunk: RowChunk) -> Result<Option<RowChunk>> {
        self.reporter.check()?;
        if self.plan.is_none() {
            let plan = Arc::new(self.build_plan(&chunk)?);
            if let Some(tx) = self.plan_tx.take() {
                // The writer may have failed already; its error is reported from its thread.
                let _ = tx.send(plan.clone());
            }
            self.plan = Some(plan);
            self.reporter.stage(Stage::Evaluating);
        }
        let plan = self.plan.clone().ok_or(crate::ingest::IngestError::Empty)?;
        self.rows += chunk.len() as u64;
        self.reporter
            .rows_read
            .fetch_add(chunk.len() as u64, Ordering::Relaxed);
        self.reporter.tick();
        if plan.output_kind == OutputKind::Xlsx && plan.format_output && self.rows > XLSX_MAX_ROWS {
            return Err(too_many_for_xlsx());
        }
        let ncols = chunk.ncols();
        let out = self.spare_outs.pop().unwrap_or_default();
        let job = Job {
            seq: self.seq,
            chunk,
            out,
            raw: None,
            error: None,
        };
        self.seq += 1;
        let Some(tx) = &self.job_tx else {
            return Ok(None);
        };
        if tx.send((plan, job)).is_err() {
            // The writer stopped (it failed); stop reading, its error is reported.
            return Ok(None);
        }
        Ok(self.spare_chunk(ncols))
    }

    fn wants_blocks(&self) -> bool {
        true
    }

    fn block(&mut self, block: CsvBlock) -> Result<Option<Vec<u8>>> {
        self.reporter.check()?;
        self.reporter.tick();
        let Some(plan) = self.plan.clone() else {
            return Err(crate::ingest::IngestError::Empty.into());
        };
        let Some(chunk) = self.spare_chunk(block.ncols()) else {
            return Ok(None);
        };
        let out = self.spare_outs.pop().unwrap_or_default();
        let job = Job {
            seq: self.seq,
            chunk,
            out,
            raw: Some(block),
            error: None,
        };
        self.seq += 1;
        let Some(tx) = &self.job_tx else {
            return Ok(None);
        };
        if tx.send((plan, job)).is_err() {
            return Ok(None);
        }
        Ok(Some(self.spare_blocks.pop().unwrap_or_default()))
    }
}

impl Feeder<'_, '_> {
    fn take_recycled(&mut self, (c, o, b): Recycled) -> RowChunk {
        self.spare_outs.push(o);
        if let Some(b) = b {
            self.spare_blocks.push(b);
        }
        c
    }

    /// A chunk to fill: one the writer is done with, or a new one while under the bound; at the
    /// bound, wait for the writer (this is what bounds memory). `None` when the writer stopped.
    fn spare_chunk(&mut self, ncols: usize) -> Option<RowChunk> {
        if let Some(c) = self.spare_chunks.pop() {
            return Some(c);
        }
        match self.recycle_rx.try_recv() {
            Ok(r) => Some(self.take_recycled(r)),
            Err(_) if self.allocated < self.max_chunks => {
                self.allocated += 1;
                Some(RowChunk::new(ncols))
            }
            Err(_) => match self.recycle_rx.recv() {
                Ok(r) => Some(self.take_recycled(r)),
                Err(_) => None,
            },
        }
    }
}

fn too_many_for_xlsx() -> Error {
    Error::Output(format!(
        "the file has more than {XLSX_MAX_ROWS} rows, more than a spreadsheet holds; choose CSV output"
    ))
}

/// The Analysis_Type text of a lever.
pub fn analysis_type(lever: Lever) -> &'static str {
    match lever {
        Lever::Pse => "PSE",
        Lever::Rgla => "RGLA",
        Lever::Mdb => "MDB",
        Lever::Institutions => "INSTITUTION",
        Lever::Corporates => "CORPORATE",
        Lever::Sovereigns => "SOVEREIGN",
    }
}

/// Analyses a file end to end: reads it, maps its columns, evaluates every row with `engine`,
/// writes the processed file to `output` and returns the summary. [`analyze_with`] without
/// progress or cancellation.
pub fn analyze(
    input: Input<'_>,
    engine: &Engine,
    opts: &AnalyzeOptions,
    output: OutputTarget<'_>,
) -> Result<AnalysisReport> {
    analyze_with(input, engine, opts, output, RunControl::default())
}

/// Analyses a file end to end, reporting progress to and checking cancellation from `control`.
/// On any error (cancellation included: [`Error::Cancelled`]) a [`OutputTarget::Buffer`] is left
/// empty and what was written to a [`OutputTarget::Writer`] is incomplete.
pub fn analyze_with(
    input: Input<'_>,
    engine: &Engine,
    opts: &AnalyzeOptions,
    output: OutputTarget<'_>,
    control: RunControl<'_>,
) -> Result<AnalysisReport> {
    let mut buffer_target: Option<&mut Vec<u8>> = None;
    let mut writer_target: Option<&mut (dyn std::io::Write + Send)> = None;
    let format_output = match output {
        OutputTarget::Buffer(b) => {
            b.clear();
            buffer_target = Some(b);
            true
        }
        OutputTarget::Writer(w) => {
            writer_target = Some(w);
            true
        }
        OutputTarget::Discard => false,
    };
    let reporter = Reporter::new(control);
    let r = run(
        input,
        engine,
        opts,
        format_output,
        buffer_target.as_deref_mut(),
        writer_target,
        &reporter,
    );
    if r.is_err()
        && let Some(b) = buffer_target
    {
        b.clear();
    }
    r
}

fn run(
    input: Input<'_>,
    engine: &Engine,
    opts: &AnalyzeOptions,
    format_output: bool,
    buffer_target: Option<&mut Vec<u8>>,
    writer_target: Option<&mut (dyn std::io::Write + Send)>,
    reporter: &Reporter<'_>,
) -> Result<AnalysisReport> {
    let started = Instant::now();
    reporter.check()?;
    reporter.tick();
    if let Some(b) = opts.bank {
        // Refuse meaningless figures before any work.
        crate::savings::bps_linear_factor(&b.to_savings())?;
    }
    let input_name = input.name();
    let threads = if opts.threads == 0 {
        std::thread::available_parallelism().map_or(2, |n| n.get())
    } else {
        opts.threads
    }
    .clamp(1, 64);
    let chunk_rows = opts.chunk_rows.clamp(64, 1 << 20);
    // The compared rule set evaluates the same rows with the same reference data and context.
    let compare = opts.compare_rule_set.as_ref().map(|r| {
        Engine::new(
            r.clone(),
            engine.refdata().clone(),
            engine.context().clone(),
        )
    });
    let compare = &compare;

    let (plan_tx, plan_rx) = mpsc::sync_channel::<Arc<Plan>>(1);
    // Bounded channels keep at most about 3 x threads + 2 chunks in flight.
    let (job_tx, job_rx) = mpsc::sync_channel::<(Arc<Plan>, Job)>(threads);
    let (done_tx, done_rx) = mpsc::sync_channel::<Job>(threads);
    let (recycle_tx, recycle_rx) = mpsc::channel::<Recycled>();
    let limits = &opts.limits;
    let job_rx = Mutex::new(job_rx);
    // Set when reading failed: the writer then stops without finishing the output.
    let aborted = AtomicBool::new(false);

    let outcome = std::thread::scope(
        |scope| -> Result<(Totals, Arc<Plan>, crate::ingest::ReadStats)> {
            // Workers.
            let mut workers = Vec::new();
            for _ in 0..threads {
                let job_rx = &job_rx;
                let done_tx = done_tx.clone();
                workers.push(scope.spawn(move || {
                    let mut scratch = Scratch::default();
                    let mut rule_cells = RuleCells::default();
                    let mut writer_gone = false;
                    loop {
                        let next = job_rx.lock().map(|rx| rx.recv());
                        let Ok(Ok((plan, mut job))) = next else { break };
                        if writer_gone || reporter.cancelled() {
                            // The writer failed or the run is cancelled: drain the queue so the
                            // reader never blocks.
                            continue;
                        }
                        if let Some(block) = &job.raw {
                            job.chunk.reset(block.ncols(), 0);
                            if let Err(e) = block.parse_into(&mut job.chunk) {
                                job.error = Some(e);
                            }
                            reporter
                                .rows_read
                                .fetch_add(job.chunk.len() as u64, Ordering::Relaxed);
                        }
                        if job.error.is_none() {
                            job.chunk.seal();
                            process_chunk(
                                &plan,
                                engine,
                                compare.as_ref(),
                                &job.chunk,
                                &mut job.out,
                                &mut scratch,
                                &mut rule_cells,
                            );
                        }
                        if done_tx.send(job).is_err() {
                            writer_gone = true;
                        }
                    }
                }));
            }
            drop(done_tx);

            // Writer.
            let aborted = &aborted;
            let writer = scope.spawn(move || -> Result<(u64, Totals)> {
                let mut totals = Totals::default();
                let Ok(plan) = plan_rx.recv() else {
                    return Ok((0, totals));
                };
                let mut sink = if !plan.format_output {
                    Sink::Discard
                } else {
                    match (plan.output_kind, writer_target, buffer_target) {
                        (OutputKind::Csv, Some(w), _) => {
                            Sink::CsvWriter(std::io::BufWriter::with_capacity(1 << 20, w))
                        }
                        (OutputKind::Csv, None, Some(b)) => Sink::CsvBuffer(b),
                        (OutputKind::Xlsx, Some(w), _) => Sink::Xlsx(
                            Box::new(XlsxOut::new(&plan.out_headers)?),
                            XlsxDest::Writer(w),
                        ),
                        (OutputKind::Xlsx, None, Some(b)) => Sink::Xlsx(
                            Box::new(XlsxOut::new(&plan.out_headers)?),
                            XlsxDest::Buffer(b),
                        ),
                        _ => Sink::Discard,
                    }
                };
                if plan.format_output && plan.output_kind == OutputKind::Csv {
                    let mut head = Vec::new();
                    if plan.csv.bom {
                        head.extend_from_slice(b"\xEF\xBB\xBF");
                    }
                    for (i, h) in plan.out_headers.iter().enumerate() {
                        if i > 0 {
                            head.push(plan.csv.delimiter);
                        }
                        write_csv_cell(&mut head, h.as_bytes(), plan.csv.delimiter, true);
                    }
                    head.push(b'\n');
                    let tmp = WorkOut {
                        csv: head,
                        ..WorkOut::default()
                    };
                    sink.write(&plan, &RowChunk::new(0), &tmp)?;
                }
                let mut pending: BTreeMap<u64, Job> = BTreeMap::new();
                let mut next = 0u64;
                let mut written = 0u64;
                for job in done_rx.iter() {
                    // Between chunks: a cancelled run stops here, and nothing more is written.
                    reporter.check()?;
                    pending.insert(job.seq, job);
                    while let Some(job) = pending.remove(&next) {
                        if let Some(e) = &job.error {
                            return Err(e.locate(written, limits).into());
                        }
                        written += job.chunk.len() as u64;
                        if written > limits.max_rows {
                            return Err(crate::ingest::IngestError::TooManyRows {
                                limit: limits.max_rows,
                            }
                            .into());
                        }
                        if plan.output_kind == OutputKind::Xlsx
                            && plan.format_output
                            && written > XLSX_MAX_ROWS
                        {
                            return Err(too_many_for_xlsx());
                        }
                        sink.write(&plan, &job.chunk, &job.out)?;
                        totals.merge(&job.out.totals, written - job.chunk.len() as u64);
                        reporter
                            .rows_done
                            .fetch_add(job.chunk.len() as u64, Ordering::Relaxed);
                        reporter
                            .rows_matched
                            .fetch_add(job.out.totals.matched, Ordering::Relaxed);
                        reporter.tick();
                        next += 1;
                        let _ = recycle_tx.send((
                            job.chunk,
                            job.out,
                            job.raw.map(CsvBlock::into_buffer),
                        ));
                    }
                }
                if !pending.is_empty() {
                    return Err(Error::Output("rows were lost between threads".into()));
                }
                reporter.check()?;
                if aborted.load(Ordering::Relaxed) {
                    // Reading failed; its error is the run's. Do not finish the output.
                    return Ok((written, totals));
                }
                reporter.stage(Stage::Writing);
                sink.finish()?;
                Ok((written, totals))
            });

            let mut feeder = Feeder {
                engine,
                opts,
                reporter,
                format_output,
                info: None,
                plan: None,
                plan_tx: Some(plan_tx),
                job_tx: Some(job_tx),
                recycle_rx,
                spare_outs: Vec::new(),
                spare_chunks: Vec::new(),
                spare_blocks: Vec::new(),
                allocated: 1,
                max_chunks: 2 * threads + 3,
                seq: 0,
                rows: 0,
            };
            let read = read_rows(input, &opts.limits, chunk_rows, &mut feeder);
            if read.is_err() {
                aborted.store(true, Ordering::Relaxed);
            }
            let plan = feeder.plan.take();
            // Close the pipeline: workers drain, the writer finishes.
            drop(feeder);
            for w in workers {
                if w.join().is_err() {
                    return Err(Error::Output("a worker thread failed".into()));
                }
            }
            let written = writer
                .join()
                .map_err(|_| Error::Output("the writer thread failed".into()));
            let stats = read?;
            let (written, totals) = written??;
            reporter.check()?;
            let plan = plan.ok_or(crate::ingest::IngestError::Empty)?;
            if plan.format_output && written != totals.rows {
                return Err(Error::Output(format!(
                    "{written} of {} rows written",
                    totals.rows
                )));
            }
            Ok((totals, plan, stats))
        },
    );
    let (totals, plan, stats) = outcome?;
    let summary = summarise(&input_name, engine, opts, &plan, totals, stats.rows)?;
    Ok(AnalysisReport {
        summary,
        timings: Timings {
            total_secs: started.elapsed().as_secs_f64(),
            input_bytes: stats.bytes,
        },
    })
}

fn summarise(
    input_name: &str,
    engine: &Engine,
    opts: &AnalyzeOptions,
    plan: &Plan,
    t: Totals,
    rows_read: u64,
) -> Result<AnalysisSummary> {
    let bps = match opts.bank {
        Some(fig) => {
            // The bank's total RWAs cover its whole book, this file included.
            if fig.total_rwas < t.rwa_before {
                return Err(Error::InvalidFigures(format!(
                    "the total RWAs ({}) are smaller than the RWAs of this file before optimisation ({:.2}): give the bank's whole-book figures",
                    fig.total_rwas, t.rwa_before
                )));
            }
            Some(bps_summary(fig, t.saving)?)
        }
        None => None,
    };
    let _ = rows_read;
    let mut warnings = plan.warnings.clone();
    let maturity = plan.map.col(StandardField::Maturity).map(|_| {
        let m = t.maturity;
        if m.unreadable > 0 {
            warnings.push(format!(
                "{} Maturity value(s) could not be read (neither a date, nor a number of {}, nor a number with its unit): those rows were flagged \"maturity unreadable\" and got no short-term treatment.",
                m.unreadable,
                plan.maturity_unit.as_str()
            ));
        }
        MaturityInfo {
            column: plan
                .mapping
                .source_for(StandardField::Maturity)
                .unwrap_or_default()
                .to_string(),
            unit: plan.maturity_unit,
            unit_source: plan.maturity_unit_source,
            dates: m.dates,
            numbers: m.numbers,
            numbers_with_unit: m.with_unit,
            blank: m.blank,
            unreadable: m.unreadable,
        }
    });
    Ok(AnalysisSummary {
        file_name: input_name.to_string(),
        input_kind: plan.input_kind,
        output_file_name: output_file_name(input_name, plan.output_kind),
        output_kind: plan.output_kind,
        lever: plan.lever,
        classification: plan.classification.clone(),
        analysis_type: plan.analysis_type.to_string(),
        rule_set: engine.rules().id().to_string(),
        reporting_date: plan.reporting_date,
        client_country: engine.context().client_country.clone(),
        mapping: plan.mapping.clone(),
        mapping_auto: plan.mapping_auto,
        rows: t.rows,
        matched: t.matched,
        not_matched: t.not_matched,
        errors: t.errors,
        total_exposure: round2(t.exposure),
        rwa_before: round2(t.rwa_before),
        rwa_after: round2(t.rwa_after),
        total_rwa_saving: round2(t.saving),
        bps,
        risk_weight_format: plan.rw,
        decimal_style: plan
            .map
            .col(StandardField::ExposureAmount)
            .map_or(DecimalStyle::Unknown, |c| plan.styles[c]),
        by_rule: t.by_rule(engine.rules()),
        by_asset_class: t.by_class.sorted(),
        aggregates: t.aggregates(engine.rules()),
        comparison: opts
            .compare_rule_set
            .as_ref()
            .map(|c| t.compare.comparison(engine.rules(), c, t.saving)),
        trace: None,
        flags: t.flag_counts(),
        maturity,
        warnings,
    })
}

fn bps_summary(fig: BankFigures, saving: f64) -> Result<BpsSummary> {
    let f = fig.to_savings();
    let factor = crate::savings::bps_linear_factor(&f)?;
    Ok(BpsSummary {
        figures: fig,
        bps_exact: crate::savings::bps_exact(&f, saving)?,
        bps_linear: saving / factor,
        rwa_per_bp: factor,
    })
}

/// Rows of the first chunk shown to the classifier.
const CLASSIFY_SAMPLE: usize = 200;
/// Classification confidence below which the result needs review (specification: 0.7).
pub const CLASSIFICATION_THRESHOLD: f64 = 0.7;

/// Picks the lever of a file from its headers and first rows.
fn classify_lever(
    headers: &[String],
    chunk: &RowChunk,
    engine: &Engine,
) -> Result<(Lever, f64, String)> {
    let h: Vec<&str> = headers.iter().map(String::as_str).collect();
    let rows: Vec<Vec<&str>> = (0..chunk.len().min(CLASSIFY_SAMPLE))
        .map(|i| {
            let r = chunk.row(i);
            (0..r.len()).map(|c| r.text(c)).collect()
        })
        .collect();
    let c = crate::classify::classify(&h, &rows, engine.refdata());
    match c.lever {
        Some(l) => Ok((l, c.confidence, c.reason())),
        None => Err(Error::Output(format!(
            "the lever of this file could not be determined ({}); choose a lever",
            c.reason()
        ))),
    }
}

/// A date cell: a spreadsheet date serial (a bare number only when large enough to be one) or a
/// date written as text.
fn date_cell(row: &RowRef<'_>, c: usize) -> Option<NaiveDate> {
    let cell = row.get(c);
    match row.kind(c) {
        CellKind::Number => parse_number(cell, DecimalStyle::Point)
            .filter(|n| n.value > 1000.0)
            .and_then(|n| excel_serial_to_date(n.value)),
        _ => parse_date(cell),
    }
}

/// Reads `input` as [`analyze`] reads it (the same plan: mapping, notations, maturity unit and
/// lever, classified when `opts.lever` is `Auto`) and hands each sealed chunk, with the number of
/// its first row (1 = the first row below the header), to `each`, which returns false to stop.
/// Nothing is evaluated or written here. Returns the plan (`None` for a file without data rows)
/// and the rows read.
fn visit_chunks(
    input: Input<'_>,
    engine: &Engine,
    opts: &AnalyzeOptions,
    each: &mut dyn FnMut(&Plan, u64, &RowChunk) -> bool,
) -> Result<(Option<Arc<Plan>>, u64)> {
    struct VisitSink<'e, 'o, 'f> {
        feeder: Feeder<'e, 'o>,
        seen: u64,
        each: &'f mut dyn FnMut(&Plan, u64, &RowChunk) -> bool,
    }
    impl RowSink<Error> for VisitSink<'_, '_, '_> {
        fn start(&mut self, info: &SourceInfo) -> Result<()> {
            self.feeder.start(info)
        }
        fn chunk(&mut self, mut chunk: RowChunk) -> Result<Option<RowChunk>> {
            if self.feeder.plan.is_none() {
                let plan = Arc::new(self.feeder.build_plan(&chunk)?);
                self.feeder.plan = Some(plan);
            }
            let Some(plan) = self.feeder.plan.clone() else {
                return Ok(None);
            };
            chunk.seal();
            let go_on = (self.each)(&plan, self.seen + 1, &chunk);
            self.seen += chunk.len() as u64;
            if !go_on {
                return Ok(None);
            }
            let ncols = chunk.ncols();
            drop(chunk);
            Ok(Some(RowChunk::new(ncols)))
        }
    }
    let reporter = Reporter::new(RunControl::default());
    let (_, recycle_rx) = mpsc::channel::<Recycled>();
    let mut sink = VisitSink {
        feeder: Feeder {
            engine,
            opts,
            reporter: &reporter,
            format_output: false,
            info: None,
            plan: None,
            plan_tx: None,
            job_tx: None,
            recycle_rx,
            spare_outs: Vec::new(),
            spare_chunks: Vec::new(),
            spare_blocks: Vec::new(),
            allocated: 0,
            max_chunks: 0,
            seq: 0,
            rows: 0,
        },
        seen: 0,
        each,
    };
    read_rows(
        input,
        &opts.limits,
        opts.chunk_rows.clamp(64, 1 << 20),
        &mut sink,
    )?;
    Ok((sink.feeder.plan.take(), sink.seen))
}

/// The decision trace of one data row of a file (1 = the first row below the header, the
/// numbering of the aggregates' top lists): the file is read as [`analyze`] reads it (same
/// mapping, notations, maturity unit and lever, classified when `opts.lever` is `Auto`) up to
/// that row, which is evaluated with [`Engine::trace`]. Nothing is written. A row that does not
/// exist is refused with the file's row count.
pub fn trace_row(
    input: Input<'_>,
    engine: &Engine,
    opts: &AnalyzeOptions,
    row: u64,
) -> Result<crate::trace::DecisionTrace> {
    explain_row(input, engine, opts, row).map(|x| x.trace)
}

/// The state of a standard field's cell in one row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldState {
    /// Written and read as its type.
    Present,
    /// Empty (or blanks only).
    Blank,
    /// Written but not readable as its type (an amount that is not a number, ...).
    Unreadable,
    /// No column of the file is mapped to it.
    NotMapped,
}

/// One standard field of a row as the run read it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldCheck {
    /// The standard column (`NIF`, `Maturity`, ...).
    pub field: String,
    /// The file's column mapped to it.
    pub column: Option<String>,
    /// The cell as written, trimmed (empty when blank or not mapped).
    pub value: String,
    /// Whether the lever requires it.
    pub required: bool,
    /// Its state.
    pub state: FieldState,
}

/// The decision of one row, with the row's standard fields as they were read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RowExplanation {
    /// The decision's path ([`Engine::trace`]).
    pub trace: crate::trace::DecisionTrace,
    /// The lever's required fields and every other mapped field, in the standard order.
    pub fields: Vec<FieldCheck>,
}

/// The decision of one data row of a file with its fields (see [`trace_row`], which this
/// extends): which standard fields the lever requires, which column each was read from, and
/// whether its cell was present, blank or unreadable.
pub fn explain_row(
    input: Input<'_>,
    engine: &Engine,
    opts: &AnalyzeOptions,
    row: u64,
) -> Result<RowExplanation> {
    if row == 0 {
        return Err(Error::InvalidArgument(
            "rows are numbered from 1 (the first row below the header)".into(),
        ));
    }
    let mut found: Option<RowExplanation> = None;
    let (plan, seen) = visit_chunks(input, engine, opts, &mut |plan, first, chunk| {
        let n = chunk.len() as u64;
        if row < first || row >= first + n {
            return true;
        }
        let r = chunk.row((row - first) as usize);
        let mut forms = MaturityForms::default();
        let er = plan.exposure(&r, &mut forms);
        let fields = StandardField::all()
            .filter_map(|f| {
                let required = plan.required.contains(&f);
                let state = plan.field_state(&r, &er, f);
                if state == FieldState::NotMapped && !required {
                    return None;
                }
                let column = plan.map.col(f);
                Some(FieldCheck {
                    field: f.name().to_string(),
                    column: column.and_then(|c| plan.mapping_header(c)),
                    value: column
                        .map(|c| trim_text(r.text(c)).to_string())
                        .unwrap_or_default(),
                    required,
                    state,
                })
            })
            .collect();
        found = Some(RowExplanation {
            trace: engine.trace(plan.lever, &er),
            fields,
        });
        false
    })?;
    let _ = plan;
    found.ok_or_else(|| {
        Error::InvalidArgument(format!(
            "row {row} does not exist: the file has {seen} data rows"
        ))
    })
}

/// One row as [`scan_decisions`] hands it over.
#[derive(Debug)]
pub struct ScannedRow<'v> {
    /// Its number (1 = the first row below the header).
    pub row: u64,
    /// The engine's view of it.
    pub exposure: &'v ExposureRow<'v>,
    /// Its decision (the one [`analyze`] writes for it).
    pub decision: &'v crate::engine::Decision<'v>,
    /// The lever's required fields that are present and readable in it.
    pub required_present: u8,
    /// The lever's required fields.
    pub required_total: u8,
}

/// What [`scan_decisions`] read, besides the rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecisionScan {
    /// Data rows read (all of them unless the visitor stopped early).
    pub rows: u64,
    /// The lever the rows were evaluated under.
    pub lever: Lever,
    /// The lever's required standard columns.
    pub required: Vec<String>,
    /// Standard column to the file's column, as read.
    pub mapping: Vec<(String, String)>,
    /// The risk-weight notation read.
    pub risk_weight_format: RwFormat,
}

/// Evaluates every data row of a file as [`analyze`] does (same plan, same decisions) on the
/// calling thread and hands each to `visit` (which returns false to stop); nothing is formatted
/// or written. For the explainability screens, which keep a compact copy of a run's decisions.
pub fn scan_decisions(
    input: Input<'_>,
    engine: &Engine,
    opts: &AnalyzeOptions,
    visit: &mut dyn FnMut(&ScannedRow<'_>) -> bool,
) -> Result<DecisionScan> {
    let (plan, rows) = visit_chunks(input, engine, opts, &mut |plan, first, chunk| {
        let total = plan.required.len().min(usize::from(u8::MAX)) as u8;
        let mut forms = MaturityForms::default();
        for i in 0..chunk.len() {
            let r = chunk.row(i);
            let er = plan.exposure(&r, &mut forms);
            let d = engine.evaluate(plan.lever, &er);
            let present = plan
                .required
                .iter()
                .filter(|f| plan.field_state(&r, &er, **f) == FieldState::Present)
                .count()
                .min(usize::from(u8::MAX)) as u8;
            let go_on = visit(&ScannedRow {
                row: first + i as u64,
                exposure: &er,
                decision: &d,
                required_present: present,
                required_total: total,
            });
            if !go_on {
                return false;
            }
        }
        true
    })?;
    let plan = plan.ok_or(crate::ingest::IngestError::Empty)?;
    Ok(DecisionScan {
        rows,
        lever: plan.lever,
        required: plan.required.iter().map(|f| f.name().to_string()).collect(),
        mapping: StandardField::all()
            .filter_map(|f| {
                plan.map
                    .col(f)
                    .and_then(|c| plan.mapping_header(c))
                    .map(|h| (f.name().to_string(), h))
            })
            .collect(),
        risk_weight_format: plan.rw.format,
    })
}
