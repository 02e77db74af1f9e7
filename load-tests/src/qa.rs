//! The Q&A agent's target: built-in answers on a 1M-row file's run at p95 under 200 ms.
//!
//! A release server with the built-in engine; a client user uploads a generated PSE file of
//! `--rows` rows (1M by default) and one of `--baseline-rows` (10k) and both are processed; an
//! administrator indexes the CRR's standardised-approach articles in the knowledge base. Then the
//! user asks, with each file in focus in turn, the four 'Try asking:' chips, a question naming one
//! exposure (a different one each time, from the middle of the file) and a regulatory question,
//! `--repeats` times each, through `POST /api/qa/ask`, timed from the request to the stream's
//! `done` event (the answer stored). The first question naming an exposure of a run builds that
//! run's row index; it is reported on its own (`first_exposure_ms`), the rest are the warm
//! figures. The small file's figures are the baseline of the same run.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde::Serialize;
use serde_json::{Value, json};

use crate::common::{self, Percentiles, Session, TempDir};

/// Options of `load-tests qa`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The `capopt` binary (a release build for figures).
    #[arg(long)]
    server_bin: PathBuf,
    /// Rows of the large file.
    #[arg(long, default_value_t = 1_000_000)]
    rows: usize,
    /// Rows of the baseline file.
    #[arg(long, default_value_t = 10_000)]
    baseline_rows: usize,
    /// Times each question is asked per file.
    #[arg(long, default_value_t = 20)]
    repeats: usize,
    /// The p95 target in milliseconds.
    #[arg(long, default_value_t = 200.0)]
    target_p95_ms: f64,
    /// Where to write the JSON results.
    #[arg(long)]
    out: Option<PathBuf>,
}

const CRR: &str = include_str!("../../server/tests/fixtures/crr_standardised_articles.txt");

/// The questions, by kind: the chips (spec 2.8), one exposure, one regulatory question.
const CHIPS: [(&str, &str); 4] = [
    ("total_exposures", "Total exposures in this file"),
    ("key_findings", "Summarise key findings"),
    ("risk_factors", "What are the main risk factors?"),
    ("opportunities", "Show optimisation opportunities"),
];
const REGULATORY: &str = "What risk weight does Article 116 give public sector entities?";

#[derive(Debug, Serialize)]
struct FileFigures {
    rows: usize,
    processing_secs: f64,
    /// The first question naming an exposure (builds the run's row index).
    first_exposure_ms: f64,
    by_kind: Vec<(String, Percentiles)>,
    all: Percentiles,
}

#[derive(Debug, Serialize)]
struct Results {
    large: FileFigures,
    baseline: FileFigures,
    /// Large p95 over baseline p95.
    p95_ratio: f64,
    target_p95_ms: f64,
    rss_mb: f64,
    passed: bool,
}

/// Asks one question; the time to the `done` event and the answer.
async fn ask(
    s: &Session,
    client: &str,
    file: &str,
    question: &str,
) -> anyhow::Result<(u64, String)> {
    let t = Instant::now();
    let r = s
        .http
        .post(format!("{}/api/qa/ask?client_id={client}", s.base))
        .header("x-csrf-token", &s.csrf)
        .json(&json!({"question": question, "fileId": file}))
        .send()
        .await?;
    let st = r.status();
    let text = r.text().await?;
    let micros = t.elapsed().as_micros() as u64;
    if !st.is_success() {
        bail!("ask: HTTP {st} {text}");
    }
    let done = text
        .split("\n\n")
        .filter_map(|ev| {
            let mut kind = "";
            let mut data = String::new();
            for line in ev.lines() {
                if let Some(k) = line.strip_prefix("event:") {
                    kind = k.trim();
                } else if let Some(d) = line.strip_prefix("data:") {
                    data.push_str(d.trim_start());
                }
            }
            (kind == "done").then_some(data)
        })
        .next()
        .context("no done event")?;
    let v: Value = serde_json::from_str(&done)?;
    if v["failure"] != Value::Null {
        bail!("the answer failed: {v}");
    }
    Ok((
        micros,
        v["answer"]["content"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
    ))
}

async fn file_figures(
    s: &Session,
    client: &str,
    file: &str,
    rows: usize,
    processing_secs: f64,
    repeats: usize,
) -> anyhow::Result<FileFigures> {
    let mut by_kind: Vec<(String, Vec<u64>)> = Vec::new();
    let mut push = |kind: &str, micros: u64| match by_kind.iter_mut().find(|(k, _)| k == kind) {
        Some((_, v)) => v.push(micros),
        None => by_kind.push((kind.to_string(), vec![micros])),
    };
    // The first exposure question builds the run's row index.
    let probe = format!("Tell me about exposure EXP-{:07}", rows / 2);
    let (first, answer) = ask(s, client, file, &probe).await?;
    if !answer.contains(&format!("EXP-{:07}", rows / 2)) {
        bail!("the exposure was not found: {answer}");
    }
    for i in 0..repeats {
        for (kind, q) in CHIPS {
            push(kind, ask(s, client, file, q).await?.0);
        }
        let id = format!("EXP-{:07}", (rows / 3 + i * 7919) % rows + 1);
        let (micros, answer) =
            ask(s, client, file, &format!("Tell me about exposure {id}")).await?;
        if !answer.contains(&id) {
            bail!("exposure {id} was not found: {answer}");
        }
        push("named_exposure", micros);
        let (micros, answer) = ask(s, client, file, REGULATORY).await?;
        if !answer.contains("116") {
            bail!("the regulatory answer cites no article: {answer}");
        }
        push("regulatory", micros);
    }
    let all: Vec<u64> = by_kind
        .iter()
        .flat_map(|(_, v)| v.iter().copied())
        .collect();
    Ok(FileFigures {
        rows,
        processing_secs,
        first_exposure_ms: first as f64 / 1000.0,
        by_kind: by_kind
            .into_iter()
            .map(|(k, v)| (k, Percentiles::of(v)))
            .collect(),
        all: Percentiles::of(all),
    })
}

async fn index_crr(base: &str) -> anyhow::Result<()> {
    let admin = Session::login(base, "admin@example.com").await?;
    let form = reqwest::multipart::Form::new()
        .text("category", "Assets")
        .part(
            "files",
            reqwest::multipart::Part::bytes(CRR.as_bytes().to_vec()).file_name("crr-articles.txt"),
        );
    let r = admin
        .http
        .post(format!("{base}/api/admin/knowledge/documents"))
        .header("x-csrf-token", &admin.csrf)
        .multipart(form)
        .send()
        .await?;
    let v: Value = r.json().await?;
    let id = v[0]["id"].as_str().context("no document")?.to_string();
    let t = Instant::now();
    loop {
        let d = admin
            .get_json(&format!("/api/admin/knowledge/documents/{id}"))
            .await?;
        match d["status"].as_str() {
            Some("completed") => return Ok(()),
            Some("processing") if t.elapsed() < Duration::from_secs(60) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            _ => bail!("the knowledge document ended {d}"),
        }
    }
}

/// Runs the scenario; `Ok(false)` when the target is missed.
pub(crate) async fn run(args: Args) -> anyhow::Result<bool> {
    let dir = TempDir::new("capopt-load-qa")?;
    common::prepare_database(&dir.0.join("data"), None, 0).await?;
    let bin = args.server_bin.clone();
    let large = dir.0.join("large.csv");
    let small = dir.0.join("small.csv");
    common::generate_pse(&bin, args.rows, &large)?;
    common::generate_pse(&bin, args.baseline_rows, &small)?;
    let inst = common::start_instance_with(
        &bin,
        &dir.0.join("data"),
        None,
        None,
        &[("MAX_UPLOAD_MB", "2000"), ("RUN_CONCURRENCY", "2")],
    )
    .await?;
    index_crr(&inst.base).await?;
    let s = Session::login(&inst.base, "user@bank-a.example").await?;
    let client = s.get_json("/api/auth/me").await?["client"]["id"]
        .as_str()
        .context("no client")?
        .to_string();
    let mut files = Vec::new();
    for (path, name) in [(&small, "baseline.csv"), (&large, "large.csv")] {
        let t = Instant::now();
        let (run, file) = crate::runs::upload(&s, None, name, std::fs::read(path)?).await?;
        let done = crate::runs::wait_done(&s, &run, Duration::from_secs(1800)).await?;
        if done["state"] != "completed" {
            bail!("{name}: run ended {done}");
        }
        files.push((file, t.elapsed().as_secs_f64()));
    }
    let baseline = file_figures(
        &s,
        &client,
        &files[0].0,
        args.baseline_rows,
        files[0].1,
        args.repeats,
    )
    .await?;
    let large = file_figures(
        &s,
        &client,
        &files[1].0,
        args.rows,
        files[1].1,
        args.repeats,
    )
    .await?;
    let rss_mb = common::rss_kib(inst.pid)? as f64 / 1024.0;
    drop(inst);
    let passed = large.all.p95_ms < args.target_p95_ms;
    let results = Results {
        p95_ratio: large.all.p95_ms / baseline.all.p95_ms.max(0.001),
        large,
        baseline,
        target_p95_ms: args.target_p95_ms,
        rss_mb,
        passed,
    };
    let text = serde_json::to_string_pretty(&results)?;
    println!("{text}");
    if let Some(p) = args.out {
        std::fs::write(p, &text)?;
    }
    Ok(passed)
}
