//! The run API: inputs from bytes, readers and paths, output to writers and buffers, progress
//! reports (throttled, in stage order, with counts that add up), cancellation (a distinct error,
//! no output), and the thread cap.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use analysis::cli::analyze_to_file;
use analysis::engine::{Engine, EngineContext};
use analysis::error::Error;
use analysis::ingest::{Input, Limits};
use analysis::model::Lever;
use analysis::pipeline::{
    AnalyzeOptions, LeverChoice, OutputTarget, Progress, RunControl, Stage, analyze, analyze_with,
};
use analysis::refdata::RefData;
use analysis::rules::RuleSet;
use chrono::NaiveDate;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/files")
        .join(name)
}

fn engine() -> Engine {
    let rd = RefData::load_dir(&fixture("pse_refdata")).unwrap();
    Engine::new(
        RuleSet::by_id("EU-CRR3").unwrap(),
        Arc::new(rd),
        EngineContext::new(NaiveDate::from_ymd_opt(2025, 6, 30).unwrap()),
    )
}

fn opts(threads: usize) -> AnalyzeOptions {
    AnalyzeOptions {
        lever: LeverChoice::Fixed(Lever::Pse),
        threads,
        ..AnalyzeOptions::default()
    }
}

fn tmp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("analysis-run-api-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A generated PSE file of `rows` rows, built-in reference data.
fn big_csv(rows: usize) -> Vec<u8> {
    let mut buf = Vec::new();
    analysis::generate::generate_exposures(Lever::Pse, rows, 11, &RefData::builtin(), &mut buf)
        .unwrap();
    buf
}

fn builtin_engine() -> Engine {
    Engine::new(
        RuleSet::by_id("EU-CRR3").unwrap(),
        RefData::builtin_shared(),
        EngineContext::new(NaiveDate::from_ymd_opt(2025, 12, 31).unwrap()),
    )
}

#[test]
fn reader_and_writer_give_what_bytes_and_buffer_give() {
    let engine = engine();
    let data = std::fs::read(fixture("pse_en.csv")).unwrap();
    let mut expected = Vec::new();
    let a = analyze(
        Input::Bytes {
            name: "pse_en.csv",
            data: &data,
        },
        &engine,
        &opts(2),
        OutputTarget::Buffer(&mut expected),
    )
    .unwrap();
    assert!(!expected.is_empty());

    // A reader that hands out 7 bytes at a time, into a writer.
    struct Slow<'a>(&'a [u8]);
    impl std::io::Read for Slow<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.0.len().min(buf.len()).min(7);
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let mut reader = Slow(&data);
    let mut written: Vec<u8> = Vec::new();
    let b = analyze(
        Input::Reader {
            name: "pse_en.csv",
            reader: &mut reader,
        },
        &engine,
        &opts(1),
        OutputTarget::Writer(&mut written),
    )
    .unwrap();
    assert_eq!(written, expected);
    assert_eq!(a.summary, b.summary);

    // From a path, to a file.
    let dir = tmp_dir("path");
    let out = dir.join("out.csv");
    let c = analyze_to_file(
        Input::Path(&fixture("pse_en.csv")),
        &engine,
        &opts(3),
        &out,
        RunControl::default(),
    )
    .unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), expected);
    assert_eq!(c.summary, a.summary);
}

#[test]
fn a_spreadsheet_comes_through_a_reader() {
    let csv = big_csv(300);
    let dir = tmp_dir("xlsx");
    let xlsx = dir.join("in.xlsx");
    analysis::output::csv_to_xlsx(&csv, &xlsx).unwrap();
    let bytes = std::fs::read(&xlsx).unwrap();
    let engine = builtin_engine();
    let mut from_bytes = Vec::new();
    let a = analyze(
        Input::Bytes {
            name: "in.xlsx",
            data: &bytes,
        },
        &engine,
        &opts(2),
        OutputTarget::Buffer(&mut from_bytes),
    )
    .unwrap();
    let mut reader: &[u8] = &bytes;
    let mut from_reader: Vec<u8> = Vec::new();
    let b = analyze(
        Input::Reader {
            name: "in.xlsx",
            reader: &mut reader,
        },
        &engine,
        &opts(2),
        OutputTarget::Writer(&mut from_reader),
    )
    .unwrap();
    assert_eq!(a.summary, b.summary);
    assert_eq!(b.summary.rows, 300);
    assert!(from_reader.starts_with(b"PK\x03\x04"), "an XLSX workbook");
}

#[test]
fn a_reader_over_the_size_limit_is_refused() {
    let csv = big_csv(2000);
    let limits = Limits {
        max_file_bytes: 10_000,
        ..Limits::default()
    };
    let o = AnalyzeOptions { limits, ..opts(2) };
    let mut reader: &[u8] = &csv;
    let mut out = Vec::new();
    let e = analyze(
        Input::Reader {
            name: "big.csv",
            reader: &mut reader,
        },
        &builtin_engine(),
        &o,
        OutputTarget::Buffer(&mut out),
    )
    .unwrap_err();
    assert!(
        e.to_string().starts_with("File is too large"),
        "{e}: the same refusal as for a file on disk"
    );
    assert!(out.is_empty());
}

#[test]
fn progress_is_throttled_ordered_and_adds_up() {
    let csv = big_csv(120_000);
    let engine = builtin_engine();
    let seen: Mutex<Vec<(Instant, Progress)>> = Mutex::new(Vec::new());
    let cb = |p: &Progress| seen.lock().unwrap().push((Instant::now(), *p));
    let control = RunControl {
        progress: Some(&cb),
        progress_interval: Duration::from_millis(100),
        cancel: None,
    };
    let o = AnalyzeOptions {
        lever: LeverChoice::Auto,
        ..opts(2)
    };
    let mut out = Vec::new();
    let r = analyze_with(
        Input::Bytes {
            name: "pse.csv",
            data: &csv,
        },
        &engine,
        &o,
        OutputTarget::Buffer(&mut out),
        control,
    )
    .unwrap();
    let seen = seen.into_inner().unwrap();
    assert!(!seen.is_empty());
    // The first call comes at once, in the reading stage, before any row.
    assert_eq!(seen[0].1.stage, Stage::Reading);
    assert_eq!(seen[0].1.rows_read, 0);
    for w in seen.windows(2) {
        let (t0, a) = w[0];
        let (t1, b) = w[1];
        // Measured from the end of one call to the start of the next: at least the interval.
        assert!(t1 - t0 >= Duration::from_millis(100), "{:?}", t1 - t0);
        assert!(a.stage as u8 <= b.stage as u8, "{a:?} then {b:?}");
        assert!(a.rows_read <= b.rows_read && a.rows_done <= b.rows_done);
        assert!(a.rows_matched <= b.rows_matched);
    }
    for (_, p) in &seen {
        assert!(
            p.rows_done <= p.rows_read && p.rows_matched <= p.rows_done,
            "{p:?}"
        );
        assert!(p.rows_read <= r.summary.rows);
        assert!(p.rows_matched <= r.summary.matched);
    }
}

#[test]
fn every_stage_is_reported_with_no_interval() {
    let csv = big_csv(20_000);
    let engine = builtin_engine();
    let seen: Mutex<Vec<Progress>> = Mutex::new(Vec::new());
    let cb = |p: &Progress| seen.lock().unwrap().push(*p);
    let control = RunControl {
        progress: Some(&cb),
        progress_interval: Duration::ZERO,
        cancel: None,
    };
    let o = AnalyzeOptions {
        lever: LeverChoice::Auto,
        chunk_rows: 1024,
        ..opts(2)
    };
    let mut out = Vec::new();
    let r = analyze_with(
        Input::Bytes {
            name: "pse.csv",
            data: &csv,
        },
        &engine,
        &o,
        OutputTarget::Buffer(&mut out),
        control,
    )
    .unwrap();
    let seen = seen.into_inner().unwrap();
    let mut stages: Vec<Stage> = seen.iter().map(|p| p.stage).collect();
    stages.dedup();
    assert_eq!(
        stages,
        [
            Stage::Reading,
            Stage::Classifying,
            Stage::Mapping,
            Stage::Evaluating,
            Stage::Writing
        ]
    );
    let last = seen.last().unwrap();
    assert_eq!(last.stage, Stage::Writing);
    assert_eq!(
        (last.rows_read, last.rows_done, last.rows_matched),
        (r.summary.rows, r.summary.rows, r.summary.matched)
    );
    assert_eq!(r.summary.rows, 20_000);
}

#[test]
fn a_cancelled_run_ends_with_its_own_error_and_no_output() {
    let csv = big_csv(100_000);
    let engine = builtin_engine();
    let cancel = AtomicBool::new(false);
    let at_cancel = Mutex::new(0u64);
    // Cancel once some rows are done: half-way through the file, not before it starts.
    let cb = |p: &Progress| {
        if p.rows_done > 0 && !cancel.load(Ordering::Relaxed) {
            *at_cancel.lock().unwrap() = p.rows_done;
            cancel.store(true, Ordering::Relaxed);
        }
    };
    let control = RunControl {
        progress: Some(&cb),
        progress_interval: Duration::ZERO,
        cancel: Some(&cancel),
    };
    let o = AnalyzeOptions {
        chunk_rows: 1024,
        ..opts(2)
    };
    let mut out = Vec::new();
    let e = analyze_with(
        Input::Bytes {
            name: "pse.csv",
            data: &csv,
        },
        &engine,
        &o,
        OutputTarget::Buffer(&mut out),
        control,
    )
    .unwrap_err();
    assert!(matches!(e, Error::Cancelled), "{e}");
    assert_eq!(e.to_string(), "The analysis was cancelled");
    let done = *at_cancel.lock().unwrap();
    assert!(
        done > 0 && done < 100_000,
        "cancelled half-way ({done} rows)"
    );
    assert!(out.is_empty(), "no partial output in the buffer");

    // To a file: neither the file nor its temporary remains, for CSV and XLSX.
    for name in ["out.csv", "out.xlsx"] {
        let dir = tmp_dir(&format!("cancel-{name}"));
        let target = dir.join(name);
        cancel.store(false, Ordering::Relaxed);
        let e = analyze_to_file(
            Input::Bytes {
                name: "pse.csv",
                data: &csv,
            },
            &engine,
            &o,
            &target,
            control,
        )
        .unwrap_err();
        assert!(matches!(e, Error::Cancelled), "{e}");
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert!(left.is_empty(), "{name}: {left:?}");
    }
}

#[test]
fn a_run_cancelled_before_it_starts_reads_nothing() {
    let cancel = AtomicBool::new(true);
    let control = RunControl {
        cancel: Some(&cancel),
        ..RunControl::default()
    };
    let mut out = b"left from before".to_vec();
    let e = analyze_with(
        Input::Path(&fixture("pse_en.csv")),
        &engine(),
        &opts(2),
        OutputTarget::Buffer(&mut out),
        control,
    )
    .unwrap_err();
    assert!(matches!(e, Error::Cancelled));
    assert!(out.is_empty());
}

#[test]
fn the_thread_cap_changes_nothing_in_the_result() {
    let csv = big_csv(30_000);
    let engine = builtin_engine();
    let run = |threads: usize| {
        let mut out = Vec::new();
        let o = AnalyzeOptions {
            chunk_rows: 1000,
            ..opts(threads)
        };
        let r = analyze(
            Input::Bytes {
                name: "pse.csv",
                data: &csv,
            },
            &engine,
            &o,
            OutputTarget::Buffer(&mut out),
        )
        .unwrap();
        (r.summary, out)
    };
    let one = run(1);
    let four = run(4);
    assert_eq!(one.0, four.0);
    assert_eq!(one.1, four.1);
    // Two runs at once, each with its own cap, give the same again.
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| run(1));
        let b = s.spawn(|| run(2));
        (a.join().unwrap(), b.join().unwrap())
    });
    assert_eq!(a.1, one.1);
    assert_eq!(b.1, one.1);
}
