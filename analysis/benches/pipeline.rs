//! End-to-end benchmark of the file pipeline, printed as figures (never a pass/fail test).
//!
//! Run with `cargo bench -p analysis --bench pipeline` (or `make bench-analysis`). It generates a
//! 1,000,000-row PSE CSV and a 200,000-row PSE XLSX (once; kept in `BENCH_DATA_DIR`, default
//! `<tmp>/capopt-bench`), then measures three stages per file, each in a fresh process so peak
//! memory (VmHWM) is the stage's own:
//!
//! - `parse`: read every row (single thread);
//! - `analyse`: read, map and evaluate every row (workers), nothing written;
//! - `end-to-end`: read, evaluate and write the processed file.
//!
//! With `CAPOPT_BIN` set to the product binary (`make bench-analysis` builds it), the same files
//! also go end to end through `capopt analyze`, the command a user runs, with the product's
//! allocator; its peak memory and CPU time come from `wait4`.
//!
//! When `python3` has pandas and/or polars, the scripts in `benches/compare/` apply the same PSE
//! rules (tables and reference lists exported from this crate) to the same CSV, read to write,
//! and their figures are printed alongside. Options: `--rows N`, `--xlsx-rows N`, `--no-compare`,
//! `--repeat N` (default 3): after the table, N rounds of our CSV end to end then polars, back to
//! back, and the medians of their times and of the per-round ratios (a shared machine's load moves
//! single runs too much to compare them).

#![allow(unsafe_code)] // wait4 for the peak memory and CPU time of `capopt analyze`

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use analysis::engine::{Engine, EngineContext};
use analysis::ingest::{Input, Limits, RowChunk, RowSink, SourceInfo, read_rows};
use analysis::model::Lever;
use analysis::pipeline::{AnalyzeOptions, LeverChoice, OutputTarget, analyze};
use analysis::refdata::RefData;
use analysis::rules::{Basis, RuleSet, Slot};
use chrono::NaiveDate;

fn reporting_date() -> NaiveDate {
    NaiveDate::from_ymd_opt(2025, 6, 30).unwrap_or_default()
}

/// Peak resident memory of this process, in kB.
fn peak_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

/// CPU time (user + system) of this process so far, in seconds.
fn cpu_secs() -> f64 {
    // Fields 14 and 15 of /proc/self/stat, in clock ticks (100 per second on Linux).
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            let rest = s.rsplit_once(')')?.1;
            let f: Vec<&str> = rest.split_whitespace().collect();
            let u: f64 = f.get(11)?.parse().ok()?;
            let k: f64 = f.get(12)?.parse().ok()?;
            Some((u + k) / 100.0)
        })
        .unwrap_or(f64::NAN)
}

struct Count(u64);

impl RowSink<analysis::ingest::IngestError> for Count {
    fn start(&mut self, _: &SourceInfo) -> Result<(), analysis::ingest::IngestError> {
        Ok(())
    }
    fn chunk(&mut self, c: RowChunk) -> Result<Option<RowChunk>, analysis::ingest::IngestError> {
        self.0 += c.len() as u64;
        Ok(Some(c))
    }
}

/// Runs one stage in this process and prints one JSON line.
fn run_stage(stage: &str, input: &Path, out_dir: &Path) -> Result<(), String> {
    let engine = Engine::new(
        RuleSet::for_reporting_date(reporting_date()),
        RefData::builtin_shared(),
        EngineContext::new(reporting_date()),
    );
    let opts = AnalyzeOptions {
        lever: LeverChoice::Fixed(Lever::Pse),
        ..AnalyzeOptions::default()
    };
    let t = Instant::now();
    let cpu0 = cpu_secs();
    let mut out_bytes = 0u64;
    let rows = match stage {
        "parse" => {
            let mut c = Count(0);
            read_rows(Input::Path(input), &Limits::default(), 8192, &mut c)
                .map_err(|e| e.to_string())?;
            c.0
        }
        "analyse" => {
            analyze(Input::Path(input), &engine, &opts, OutputTarget::Discard)
                .map_err(|e| e.to_string())?
                .summary
                .rows
        }
        "end-to-end" => {
            let ext = input.extension().and_then(|e| e.to_str()).unwrap_or("csv");
            let out = out_dir.join(format!("optimized_bench.{ext}"));
            let r = analysis::cli::analyze_to_file(
                Input::Path(input),
                &engine,
                &opts,
                &out,
                analysis::pipeline::RunControl::default(),
            )
            .map_err(|e| e.to_string())?;
            out_bytes = std::fs::metadata(&out).map(|m| m.len()).unwrap_or(0);
            r.summary.rows
        }
        other => return Err(format!("unknown stage {other}")),
    };
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{}",
        serde_json::json!({"stage": stage, "rows": rows, "secs": secs, "cpu_secs": cpu_secs() - cpu0, "peak_kb": peak_kb(), "out_bytes": out_bytes})
    );
    Ok(())
}

#[derive(Debug)]
struct Figure {
    tool: String,
    file: String,
    stage: String,
    rows: u64,
    secs: f64,
    cpu_secs: Option<f64>,
    peak_kb: u64,
    out_bytes: u64,
    saving: Option<f64>,
}

fn measure_stage(exe: &Path, stage: &str, input: &Path, out_dir: &Path) -> Result<Figure, String> {
    let out = Command::new(exe)
        .args(["--stage", stage, "--input"])
        .arg(input)
        .arg("--out-dir")
        .arg(out_dir)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let v: serde_json::Value = serde_json::from_slice(
        out.stdout
            .split(|b| *b == b'\n')
            .find(|l| l.starts_with(b"{"))
            .unwrap_or(b"{}"),
    )
    .map_err(|e| e.to_string())?;
    Ok(Figure {
        tool: "capopt".into(),
        file: file_label(input),
        stage: stage.into(),
        rows: v["rows"].as_u64().unwrap_or(0),
        secs: v["secs"].as_f64().unwrap_or(f64::NAN),
        cpu_secs: v["cpu_secs"].as_f64(),
        peak_kb: v["peak_kb"].as_u64().unwrap_or(0),
        out_bytes: v["out_bytes"].as_u64().unwrap_or(0),
        saving: None,
    })
}

/// `capopt analyze` end to end on `input`: wall time, and from `wait4` the CPU time and peak
/// resident memory of that process alone.
fn measure_cli(bin: &Path, input: &Path, rows: u64, out_dir: &Path) -> Result<Figure, String> {
    let ext = input.extension().and_then(|e| e.to_str()).unwrap_or("csv");
    let output = out_dir.join(format!("optimized_cli.{ext}"));
    let t = Instant::now();
    let child = Command::new(bin)
        .args(["analyze", "--lever", "pse", "--reporting-date"])
        .arg(reporting_date().to_string())
        .arg("--input")
        .arg(input)
        .arg("--output")
        .arg(&output)
        .stdout(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("{}: {e}", bin.display()))?;
    let mut status = 0;
    // SAFETY: an all-zero `rusage` is valid; `wait4` writes it and the status for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    // SAFETY: `pid` is our child, not yet waited for; the pointers are valid for the call.
    if unsafe { libc::wait4(pid, &mut status, 0, &mut usage) } != pid {
        return Err("wait4 failed".into());
    }
    let secs = t.elapsed().as_secs_f64();
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        return Err(format!("capopt analyze failed on {}", input.display()));
    }
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let out_bytes = std::fs::metadata(&output).map(|m| m.len()).unwrap_or(0);
    let _ = std::fs::remove_file(&output);
    Ok(Figure {
        tool: "capopt-cli".into(),
        file: file_label(input),
        stage: "end-to-end".into(),
        rows,
        secs,
        cpu_secs: Some(tv(usage.ru_utime) + tv(usage.ru_stime)),
        peak_kb: usage.ru_maxrss as u64,
        out_bytes,
        saving: None,
    })
}

fn file_label(p: &Path) -> String {
    let size = std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    format!(
        "{} ({:.0} MB)",
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        size as f64 / 1e6
    )
}

/// Writes the PSE reference list, the sovereign list and the PSE rule tables for the scripts.
fn export_reference(dir: &Path) -> Result<(), String> {
    let rd = RefData::builtin_shared();
    let mut pse = String::from("nif,country,own_gov_cqs,entity_cqs,treated_as_cg,legal_name\n");
    for e in rd.pse().entities() {
        let o = |v: Option<u8>| v.map(|c| c.to_string()).unwrap_or_default();
        pse.push_str(&format!(
            "{},{},{},{},{},\"{}\"\n",
            e.nif.as_str(),
            e.country.as_str(),
            o(e.own_gov_cqs),
            o(e.entity_cqs),
            if e.treated_as_central_government {
                "Y"
            } else {
                "N"
            },
            e.legal_name.replace('"', "\"\"")
        ));
    }
    std::fs::write(dir.join("pse_ref.csv"), pse).map_err(|e| e.to_string())?;
    let mut sov = String::from("country,domestic_currency,cqs,eu_member\n");
    for s in rd.sovereigns().entities() {
        sov.push_str(&format!(
            "{},{},{},{}\n",
            s.country.as_str(),
            s.domestic_currency
                .map(|c| c.as_str().to_string())
                .unwrap_or_default(),
            s.cqs.map(|c| c.to_string()).unwrap_or_default(),
            if s.eu_member { "Y" } else { "N" }
        ));
    }
    std::fs::write(dir.join("sovereigns_ref.csv"), sov).map_err(|e| e.to_string())?;
    let rules = RuleSet::for_reporting_date(reporting_date());
    let table = |s: Slot| -> serde_json::Value {
        let Some(t) = rules.slot(s) else {
            return serde_json::Value::Null;
        };
        if !matches!(t.basis(), Basis::EntityCqs | Basis::SovereignCqs) {
            return serde_json::json!(t.single().and_then(|w| w.pct()));
        }
        let mut m = serde_json::Map::new();
        for c in 1..=6u8 {
            if let Some(w) = t.by_cqs(Some(c)).and_then(|w| w.pct()) {
                m.insert(c.to_string(), serde_json::json!(w));
            }
        }
        if let Some(w) = t.by_cqs(None).and_then(|w| w.pct()) {
            m.insert("U".into(), serde_json::json!(w));
        }
        serde_json::Value::Object(m)
    };
    let json = serde_json::json!({
        "rule_set": rules.id(),
        "reporting_date": reporting_date().to_string(),
        "sov_t1": table(Slot::SovT1),
        "sov_domestic": table(Slot::SovDomestic),
        "pse_as_cg": rules.slot(Slot::PseAsCg).is_some(),
        "pse_short": table(Slot::PseShort),
        "pse_rated": table(Slot::PseRated),
        "pse_unrated": table(Slot::PseUnrated),
        // Applied_Rule ids and Regulatory_Reference texts, for the scripts' output columns.
        "ids": {
            "pse_as_cg": rules.slot(Slot::PseAsCg).map(|t| t.id()),
            "sov_domestic": rules.slot(Slot::SovDomestic).map(|t| t.id()),
            "sov_t1": rules.slot(Slot::SovT1).map(|t| t.id()),
            "pse_short": rules.slot(Slot::PseShort).map(|t| t.id()),
            "pse_rated": rules.slot(Slot::PseRated).map(|t| t.id()),
            "pse_unrated": rules.slot(Slot::PseUnrated).map(|t| t.id()),
        },
        "refs": {
            "pse_as_cg": rules.slot(Slot::PseAsCg).map(|t| t.reference()),
            "sov_domestic": rules.slot(Slot::SovDomestic).map(|t| t.reference()),
            "sov_t1": rules.slot(Slot::SovT1).map(|t| t.reference()),
            "pse_short": rules.slot(Slot::PseShort).map(|t| t.reference()),
            "pse_rated": rules.slot(Slot::PseRated).map(|t| t.reference()),
            "pse_unrated": rules.slot(Slot::PseUnrated).map(|t| t.reference()),
        },
    });
    std::fs::write(dir.join("pse_rules.json"), json.to_string()).map_err(|e| e.to_string())
}

fn python_has(module: &str) -> bool {
    Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn run_python(tool: &str, script: &Path, input: &Path, data: &Path) -> Result<Figure, String> {
    let out = Command::new("python3")
        .arg(script)
        .arg("--input")
        .arg(input)
        .arg("--refdata")
        .arg(data)
        .arg("--output")
        .arg(data.join(format!("optimized_{tool}.csv")))
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let line = out
        .stdout
        .split(|b| *b == b'\n')
        .rfind(|l| l.starts_with(b"{"))
        .unwrap_or(b"{}");
    let v: serde_json::Value = serde_json::from_slice(line).map_err(|e| e.to_string())?;
    Ok(Figure {
        tool: tool.into(),
        file: file_label(input),
        stage: "end-to-end".into(),
        rows: v["rows"].as_u64().unwrap_or(0),
        secs: v["secs"].as_f64().unwrap_or(f64::NAN),
        cpu_secs: v["cpu_secs"].as_f64(),
        peak_kb: v["peak_kb"].as_u64().unwrap_or(0),
        out_bytes: std::fs::metadata(data.join(format!("optimized_{tool}.csv")))
            .map(|m| m.len())
            .unwrap_or(0),
        saving: v["total_saving"].as_f64(),
    })
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(stage) = arg(&args, "--stage") {
        let input = PathBuf::from(arg(&args, "--input").unwrap_or_default());
        let out_dir = PathBuf::from(arg(&args, "--out-dir").unwrap_or_else(|| ".".into()));
        if let Err(e) = run_stage(&stage, &input, &out_dir) {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
        return;
    }
    if let Err(e) = run(&args) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run(args: &[String]) -> Result<(), String> {
    let rows: u64 = arg(args, "--rows")
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let xlsx_rows: u64 = arg(args, "--xlsx-rows")
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000);
    let data = std::env::var_os("BENCH_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("capopt-bench"));
    std::fs::create_dir_all(&data).map_err(|e| e.to_string())?;
    // A PSE extract as a bank sends it: no Asset_Class, LEI, Country or CQS columns.
    let csv = data.join(format!("pse_extract_{rows}.csv"));
    let xlsx = data.join(format!("pse_extract_{xlsx_rows}.xlsx"));
    let rd = RefData::builtin_shared();
    let gen_opts = analysis::generate::GenerateOptions {
        asset_class: false,
        lean: true,
        ..analysis::generate::GenerateOptions::default()
    };
    if !csv.exists() {
        let t = Instant::now();
        let f = std::fs::File::create(&csv).map_err(|e| e.to_string())?;
        analysis::generate::generate_exposures_with(
            Lever::Pse,
            rows as usize,
            2025,
            &rd,
            &gen_opts,
            std::io::BufWriter::new(f),
        )
        .map_err(|e| e.to_string())?;
        println!(
            "generated {} in {:.1} s",
            csv.display(),
            t.elapsed().as_secs_f64()
        );
    }
    if !xlsx.exists() {
        let t = Instant::now();
        let mut buf = Vec::new();
        analysis::generate::generate_exposures_with(
            Lever::Pse,
            xlsx_rows as usize,
            2026,
            &rd,
            &gen_opts,
            &mut buf,
        )
        .map_err(|e| e.to_string())?;
        analysis::output::csv_to_xlsx(&buf, &xlsx).map_err(|e| e.to_string())?;
        println!(
            "generated {} in {:.1} s",
            xlsx.display(),
            t.elapsed().as_secs_f64()
        );
    }
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "\nPSE lever, rule set {}, reporting date {}, {cores} cores",
        RuleSet::for_reporting_date(reporting_date()).id(),
        reporting_date()
    );
    let mut figures = Vec::new();
    for input in [&csv, &xlsx] {
        for stage in ["parse", "analyse", "end-to-end"] {
            match measure_stage(&exe, stage, input, &data) {
                Ok(f) => figures.push(f),
                Err(e) => eprintln!("{stage} on {}: {e}", input.display()),
            }
        }
    }
    if let Some(bin) = std::env::var_os("CAPOPT_BIN").map(PathBuf::from) {
        for (input, n) in [(&csv, rows), (&xlsx, xlsx_rows)] {
            match measure_cli(&bin, input, n, &data) {
                Ok(f) => figures.push(f),
                Err(e) => eprintln!("capopt analyze on {}: {e}", input.display()),
            }
        }
    }
    if !args.iter().any(|a| a == "--no-compare") {
        export_reference(&data)?;
        let compare = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/compare");
        for (tool, module, script) in [
            ("pandas", "pandas", "pse_pandas.py"),
            ("polars", "polars", "pse_polars.py"),
        ] {
            if !python_has(module) {
                println!("({tool} not installed: `pip install {module}` to compare)");
                continue;
            }
            match run_python(tool, &compare.join(script), &csv, &data) {
                Ok(f) => figures.push(f),
                Err(e) => eprintln!("{tool}: {e}"),
            }
        }
        // Our own total on the same file, for the cross-check.
        let engine = Engine::new(
            RuleSet::for_reporting_date(reporting_date()),
            rd.clone(),
            EngineContext::new(reporting_date()),
        );
        let opts = AnalyzeOptions {
            lever: LeverChoice::Fixed(Lever::Pse),
            ..AnalyzeOptions::default()
        };
        if let Ok(r) = analyze(Input::Path(&csv), &engine, &opts, OutputTarget::Discard) {
            for f in figures.iter_mut() {
                if f.tool == "capopt" && f.stage == "end-to-end" && f.file == file_label(&csv) {
                    f.saving = Some(r.summary.total_rwa_saving);
                }
            }
        }
    }
    println!(
        "\n{:<10} {:<30} {:<11} {:>10} {:>9} {:>9} {:>12} {:>10} {:>9} {:>20}",
        "tool",
        "file",
        "stage",
        "rows",
        "seconds",
        "CPU s",
        "rows/s",
        "peak MB",
        "out MB",
        "RWA saving"
    );
    for f in &figures {
        println!(
            "{:<10} {:<30} {:<11} {:>10} {:>9.3} {:>9} {:>12.0} {:>10.1} {:>9} {:>20}",
            f.tool,
            f.file,
            f.stage,
            f.rows,
            f.secs,
            f.cpu_secs.map(|c| format!("{c:.2}")).unwrap_or_default(),
            f.rows as f64 / f.secs,
            f.peak_kb as f64 / 1024.0,
            if f.out_bytes > 0 {
                format!("{:.0}", f.out_bytes as f64 / 1e6)
            } else {
                String::new()
            },
            f.saving.map(|s| format!("{s:.2}")).unwrap_or_default()
        );
    }
    // Ratios on the same CSV, end to end, in this run.
    let ours = figures
        .iter()
        .find(|f| f.tool == "capopt" && f.stage == "end-to-end" && f.file == file_label(&csv));
    if let Some(o) = ours {
        for f in figures
            .iter()
            .filter(|f| f.tool != "capopt" && f.tool != "capopt-cli")
        {
            println!(
                "{} / capopt on the CSV: {:.1}x the wall time, {:.1}x the CPU time, {:.1}x the peak memory",
                f.tool,
                f.secs / o.secs,
                f.cpu_secs.unwrap_or(f64::NAN) / o.cpu_secs.unwrap_or(f64::NAN),
                f.peak_kb as f64 / o.peak_kb.max(1) as f64
            );
        }
    }
    let repeat: usize = arg(args, "--repeat")
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    if repeat > 0 && !args.iter().any(|a| a == "--no-compare") && python_has("polars") {
        let compare = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/compare");
        let mut rounds: Vec<(Figure, Figure)> = Vec::new();
        for _ in 0..repeat {
            let ours = measure_stage(&exe, "end-to-end", &csv, &data);
            let theirs = run_python("polars", &compare.join("pse_polars.py"), &csv, &data);
            match (ours, theirs) {
                (Ok(o), Ok(p)) => rounds.push((o, p)),
                (Err(e), _) | (_, Err(e)) => eprintln!("round: {e}"),
            }
        }
        if !rounds.is_empty() {
            let med = |mut v: Vec<f64>| -> f64 {
                v.sort_by(f64::total_cmp);
                let n = v.len();
                if n % 2 == 1 {
                    v[n / 2]
                } else {
                    (v[n / 2 - 1] + v[n / 2]) / 2.0
                }
            };
            let cpu = |f: &Figure| f.cpu_secs.unwrap_or(f64::NAN);
            println!(
                "\n{} rounds on the CSV, end to end, ours then polars back to back (medians):",
                rounds.len()
            );
            println!(
                "  capopt: {:.3} s wall, {:.2} s CPU; polars: {:.3} s wall, {:.2} s CPU",
                med(rounds.iter().map(|(o, _)| o.secs).collect()),
                med(rounds.iter().map(|(o, _)| cpu(o)).collect()),
                med(rounds.iter().map(|(_, p)| p.secs).collect()),
                med(rounds.iter().map(|(_, p)| cpu(p)).collect()),
            );
            println!(
                "  polars / capopt: {:.1}x the wall time, {:.1}x the CPU time (median of the rounds' ratios; rounds: {})",
                med(rounds.iter().map(|(o, p)| p.secs / o.secs).collect()),
                med(rounds.iter().map(|(o, p)| cpu(p) / cpu(o)).collect()),
                rounds
                    .iter()
                    .map(|(o, p)| format!("{:.1}x", p.secs / o.secs))
                    .collect::<Vec<_>>()
                    .join(" ")
            );
        }
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "\nload average while measuring: {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!(
        "targets on a 2-core machine: 1M-row CSV end to end <= 1 s and <= 100 MB; 200k-row XLSX <= 3 s"
    );
    Ok(())
}
