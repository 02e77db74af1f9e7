//! The analysis engine: turns an uploaded exposure file into proposed risk weights and capital
//! savings. Bytes and tables in, results and diagnostics out. It never does HTTP or SQL, knows
//! nothing of users, and never panics on input.
//!
//! # What is pure and what touches files
//!
//! Pure (memory in, memory out, no file, no clock except run timings and progress throttling):
//! the row engine ([`engine::Engine::evaluate`]), the rules ([`rules`]), the reference-data
//! indexes built from text ([`refdata::RefData::builtin`] and the `*_from_str` loaders), column
//! detection and mapping ([`columns`], [`mapping`]), classification ([`classify`]), the CET1
//! arithmetic ([`savings`]) and the calculator ([`calculator`]), the value parsers ([`ingest::values`], [`ingest::number`]), output
//! naming and cell formatting ([`output`]).
//!
//! Reads files, only when given a path: [`ingest::Input::Path`] (opened read-only; a CSV is
//! streamed, a spreadsheet read whole), [`refdata::RefData::load_dir`] (the reference CSVs).
//! [`ingest::Input::Bytes`] and [`ingest::Input::Reader`] read no file.
//!
//! Writes files: [`pipeline::analyze_with`] itself writes only to the caller's
//! [`pipeline::OutputTarget`] (a writer or a buffer) and creates, renames and deletes no file,
//! with one exception: XLSX output goes through `rust_xlsxwriter`'s constant-memory mode, which
//! keeps the sheet in a temporary file of the system's temporary folder until the workbook is
//! assembled (removed when the run ends). With the `cli` feature only: `cli` (the `analyze`
//! command writes its output to a temporary name beside the target and renames it on success,
//! and writes `--summary`; the `generate-exposures` command), `output::csv_to_xlsx` (writes a
//! workbook at a path), `generate` (writes to a writer) and `refdata::synthetic::write_csvs`
//! (writes the synthetic lists into a folder).
//!
//! # Features
//!
//! `cli` (off by default): the clap command line ([`cli`] with `analyze_to_file`), the
//! synthetic data generator (`generate`) and the `analysis-cli` binary. The `capopt` server binary
//! enables it; the library the server's request handlers use does not need it.

pub mod aggregate;
pub mod calculator;
pub mod classify;
#[cfg(feature = "cli")]
pub mod cli;
pub mod columns;
pub mod engine;
pub mod error;
#[cfg(feature = "cli")]
pub mod generate;
pub mod ingest;
pub mod inspect;
pub mod mapping;
pub mod model;
pub mod output;
pub mod pipeline;
pub mod refdata;
pub mod rng;
pub mod rules;
pub mod savings;
pub mod trace;
