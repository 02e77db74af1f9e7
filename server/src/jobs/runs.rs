//! The processing-run workers: a small, database-backed job runner (no queue crate serves both
//! of our databases on sqlx 0.9; see `stack-2.md`).
//!
//! **Claim.** Each instance runs one claim loop and at most `RUN_CONCURRENCY` runs at once. A run
//! is claimed with one statement (`db::runs::claim`: the oldest queued run, or a running run
//! whose lease expired and that has claims left; `FOR UPDATE SKIP LOCKED` on PostgreSQL) and
//! gets a lease of `RUN_LEASE_SECS` (15 s). The loop polls every [`POLL`] and is woken early on
//! this instance by `service::runs::WAKE`; polling stays the source of truth.
//!
//! **Heartbeat and progress.** While the engine works (on a blocking thread, with a thread cap),
//! a ticker every [`TICK`] publishes `run.progress` when the figures moved, and at least every
//! [`STORE_EVERY`] (so 1 to 8 events a second), and stores the progress with the lease extended
//! at most every [`STORE_EVERY`] and at each stage boundary. The store answers whether a user
//! asked to cancel (the engine then stops between two chunks) and whether the run is still
//! this attempt's (if not, the worker stops and writes nothing).
//!
//! **Crash.** A worker that dies stops heartbeating; its lease expires and any instance claims
//! the run again within `RUN_LEASE_SECS` + [`POLL`] (attempts counted). A run whose last allowed
//! claim also expired is failed with a message. Outputs are written write-once under a fresh
//! key before the completion, and the completion is one transaction guarded by owner and
//! attempt (`service::runs::finish`), so a run's effects are written exactly once; the output of
//! an attempt that did not complete is an unreferenced object the storage sweeper removes.

use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use analysis::engine::{Engine, EngineContext};
use analysis::ingest::{Input, Limits};
use analysis::mapping::ColumnMapping;
use analysis::model::Lever;
use analysis::output::OutputKind;
use analysis::pipeline::{AnalyzeOptions, LeverChoice, OutputTarget, Progress, RunControl, Stage};
use analysis::refdata::RefData;
use analysis::rules::RuleSet;
use tokio::sync::Semaphore;

use crate::db::runs::RunRow;
use crate::service::runs::{
    self as runs, Figures, Outcome, RunChecks, RunOptions, RunResult, RunSnapshot, RunStage,
};
use crate::state::AppState;
use crate::storage::{ObjectKey, Storage};

/// How often an idle claim loop looks for work.
pub const POLL: Duration = Duration::from_secs(1);
/// How often the ticker of a running run looks at its progress: 8 times a second at most, and
/// its first look one tick after the claim, so with the run's other frames (claimed, ended) no
/// more than 10 of a run reach a viewer in any second.
pub const TICK: Duration = Duration::from_millis(125);
/// Longest time between two progress events, and between two progress stores, of a running run.
pub const STORE_EVERY: Duration = Duration::from_secs(1);
/// How often expired runs without claims left are failed.
pub const REAP_EVERY: Duration = Duration::from_secs(5);
/// Confidence below which an enhanced-AI classification waits for review (specification: 0.7).
pub const CONFIDENCE_THRESHOLD: f64 = analysis::pipeline::CLASSIFICATION_THRESHOLD;
/// Rows shown to the classifier (the pipeline's own sample).
const CLASSIFY_ROWS: usize = 200;

/// Starts the claim loop of this instance (nothing when `RUN_CONCURRENCY` is 0).
pub fn start(state: &AppState) {
    let n = state.config.run_concurrency;
    if n == 0 {
        return;
    }
    let owner = format!(
        "{}-{}",
        state.hub.instance_id(),
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    );
    let state = state.clone();
    tokio::spawn(async move { claim_loop(state, owner, n).await });
}

/// The lease of a claim.
pub fn lease(state: &AppState) -> Duration {
    Duration::from_secs(state.config.run_lease_secs.max(2))
}

async fn claim_loop(state: AppState, owner: String, n: usize) {
    let slots = Arc::new(Semaphore::new(n));
    let mut last_reap: Option<Instant> = None;
    let mut quick_retries = 0u32;
    loop {
        if last_reap.is_none_or(|t| t.elapsed() >= REAP_EVERY) {
            last_reap = Some(Instant::now());
            if let Err(e) = runs::fail_exhausted(&state).await {
                tracing::warn!(error = %e, "failing exhausted runs");
            }
        }
        let Ok(slot) = slots.clone().acquire_owned().await else {
            return;
        };
        match runs::claim(&state, &owner, lease(&state)).await {
            Ok(Some(run)) => {
                quick_retries = 0;
                let (state, owner) = (state.clone(), owner.clone());
                tokio::spawn(async move {
                    process(&state, &owner, run).await;
                    drop(slot);
                });
                // Look for more work at once.
                continue;
            }
            Ok(None) => drop(slot),
            Err(e) => {
                drop(slot);
                tracing::warn!(error = %e, "claiming a processing run failed");
            }
        }
        if quick_retries > 0 {
            // Woken by an upload on this instance: its transaction commits just after.
            quick_retries -= 1;
            tokio::time::sleep(Duration::from_millis(25)).await;
            continue;
        }
        tokio::select! {
            _ = runs::WAKE.notified() => quick_retries = 8,
            _ = tokio::time::sleep(POLL) => {}
        }
    }
}

/// Claims and processes at most one run with this owner (tests drive workers with it). Returns
/// the run's id when one was claimed.
pub async fn run_once(state: &AppState, owner: &str) -> Option<String> {
    let run = runs::claim(state, owner, lease(state)).await.ok()??;
    let id = run.id.clone();
    process(state, owner, run).await;
    Some(id)
}

/// What the engine reports, shared between its thread and the ticker.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Live {
    stage: RunStage,
    figures: Figures,
}

struct Shared {
    live: Mutex<Live>,
    /// Stop the engine: a user's cancel (set by this instance's API at once through
    /// `service::runs::LOCAL_RUNS`, or learnt from the progress store), or a lost lease.
    cancel: Arc<AtomicBool>,
    /// The run is no longer this attempt's: write nothing.
    lost: AtomicBool,
}

impl Shared {
    fn live(&self) -> Live {
        *self.live.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn set_stage(&self, stage: RunStage) {
        self.live.lock().unwrap_or_else(|e| e.into_inner()).stage = stage;
    }

    fn progress(&self, p: &Progress) {
        let mut l = self.live.lock().unwrap_or_else(|e| e.into_inner());
        l.stage = match p.stage {
            Stage::Reading => RunStage::Reading,
            Stage::Classifying => RunStage::Classifying,
            Stage::Mapping => RunStage::Mapping,
            Stage::Evaluating => RunStage::Evaluating,
            Stage::Writing => RunStage::Writing,
        };
        l.figures.rows_read = p.rows_read as i64;
        l.figures.rows_done = p.rows_done as i64;
        l.figures.rows_matched = p.rows_matched as i64;
    }
}

/// The throttled publisher and heartbeat of one running run.
struct Ticker {
    stop: Arc<AtomicBool>,
    handle: tokio::task::JoinHandle<i64>,
}

impl Ticker {
    fn start(state: &AppState, run: &RunRow, owner: &str, shared: Arc<Shared>) -> Ticker {
        let stop = Arc::new(AtomicBool::new(false));
        let (state, run, owner, stop2) =
            (state.clone(), run.clone(), owner.to_string(), stop.clone());
        let handle = tokio::spawn(async move {
            let mut seq = run.seq;
            let base = RunSnapshot::from_row(&run);
            let mut published: Option<(Live, Instant)> = None;
            let mut stored: Option<(RunStage, Instant)> = None;
            let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + TICK, TICK);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            while !stop2.load(Ordering::Acquire) {
                tick.tick().await;
                let live = shared.live();
                let now = Instant::now();
                let due = match published {
                    None => true,
                    Some((last, at)) => last != live || now.duration_since(at) >= STORE_EVERY,
                };
                if due {
                    seq += 1;
                    crate::service::publish_run_progress(&state, &live_snapshot(&base, live, seq));
                    published = Some((live, now));
                }
                let store = match stored {
                    None => true,
                    Some((stage, at)) => {
                        stage != live.stage || now.duration_since(at) >= STORE_EVERY
                    }
                };
                if store {
                    match runs::heartbeat(
                        &state,
                        &run,
                        &owner,
                        live.stage,
                        live.figures,
                        seq,
                        lease(&state),
                    )
                    .await
                    {
                        Ok(Some(cancel)) => {
                            stored = Some((live.stage, now));
                            if cancel {
                                shared.cancel.store(true, Ordering::Release);
                            }
                        }
                        Ok(None) => {
                            tracing::warn!(run = %run.id, "the run is no longer this worker's: stopping");
                            shared.lost.store(true, Ordering::Release);
                            shared.cancel.store(true, Ordering::Release);
                            stored = Some((live.stage, now));
                        }
                        Err(e) => {
                            // Retried at the next tick; the lease outlives a short outage.
                            tracing::warn!(run = %run.id, error = %e, "storing run progress failed");
                        }
                    }
                }
            }
            seq
        });
        Ticker { stop, handle }
    }

    /// Stops the ticker; returns the last sequence number it published.
    async fn stop(self) -> i64 {
        self.stop.store(true, Ordering::Release);
        self.handle.await.unwrap_or(0)
    }
}

fn live_snapshot(base: &RunSnapshot, live: Live, seq: i64) -> RunSnapshot {
    RunSnapshot {
        stage: live.stage,
        rows_read: live.figures.rows_read,
        rows_total: live.figures.rows_total,
        rows_done: live.figures.rows_done,
        rows_matched: live.figures.rows_matched,
        percent: runs::percent(
            base.state,
            live.stage,
            live.figures.rows_done,
            live.figures.rows_total,
        ),
        seq,
        ..base.clone()
    }
}

/// Processes one claimed run to its end (or until it is no longer this attempt's).
async fn process(state: &AppState, owner: &str, run: RunRow) {
    tracing::info!(run = %run.id, attempt = run.attempts, "processing run claimed");
    if let Err(e) = runs::announce_started(state, &run).await {
        tracing::warn!(run = %run.id, error = %e, "announcing a run's start failed");
    }
    let shared = Arc::new(Shared {
        live: Mutex::new(Live {
            stage: RunStage::Reading,
            figures: Figures::default(),
        }),
        cancel: Arc::new(AtomicBool::new(run.cancel_requested != 0)),
        lost: AtomicBool::new(false),
    });
    runs::LOCAL_RUNS.insert(run.id.clone(), shared.cancel.clone());
    let ticker = Ticker::start(state, &run, owner, shared.clone());
    let mut output_key: Option<ObjectKey> = None;
    let outcome = work(state, &run, &shared, &mut output_key).await;
    let seq = ticker.stop().await + 1;
    runs::LOCAL_RUNS.remove(&run.id);
    if shared.lost.load(Ordering::Acquire) {
        discard(&state.storage, output_key).await;
        return;
    }
    let outcome = match outcome {
        Ok(o) => o,
        // Not lost: the stop was a user's cancel.
        Err(_) if shared.cancel.load(Ordering::Acquire) => Outcome::Cancelled,
        Err(message) => Outcome::Failed {
            message,
            result: None,
        },
    };
    let figures = shared.live().figures;
    let kind = match &outcome {
        Outcome::Completed { .. } => "completed",
        Outcome::PendingReview { .. } => "pending_review",
        Outcome::Failed { .. } => "failed",
        Outcome::Cancelled => "cancelled",
    };
    match runs::finish(state, &run, owner, outcome, figures, seq).await {
        Ok(true) => tracing::info!(run = %run.id, outcome = kind, "processing run ended"),
        Ok(false) => {
            tracing::info!(run = %run.id, "the run was ended elsewhere: nothing written");
            discard(&state.storage, output_key).await;
        }
        Err(e) => {
            // The lease expires and the run is claimed again (or failed after its last claim).
            tracing::error!(run = %run.id, error = %e, "completing a processing run failed");
            discard(&state.storage, output_key).await;
        }
    }
}

async fn discard(storage: &Storage, key: Option<ObjectKey>) {
    if let Some(k) = key
        && let Err(e) = storage.delete(&k).await
    {
        tracing::warn!(key = %k, error = %e, "removing an unused output failed (the sweeper will)");
    }
}

/// The spreadsheet and CSV formats the engine reads.
fn processable(name: &str) -> Option<OutputKind> {
    let ext = std::path::Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    match ext.as_str() {
        "csv" | "txt" | "tsv" => Some(OutputKind::Csv),
        "xlsx" | "xlsm" | "xls" | "ods" => Some(OutputKind::Xlsx),
        _ => None,
    }
}

/// The message of a file the engine cannot read.
pub const NEEDS_CSV_OR_EXCEL: &str = "Processing needs a CSV or Excel file (CSV, XLS, XLSX or ODS). This file is stored and listed, but it cannot be processed.";

/// Does the work of a run: read, classify (enhanced AI), analyse, store the output. `Err` is the
/// user's message of a failure.
async fn work(
    state: &AppState,
    run: &RunRow,
    shared: &Arc<Shared>,
    output_key: &mut Option<ObjectKey>,
) -> Result<Outcome, String> {
    let input = runs::run_input(state, &run.file_id)
        .await
        .map_err(|e| internal(run, e))?
        .ok_or("The file was deleted")?;
    let name = if input.original_name.is_empty() {
        input.name.clone()
    } else {
        input.original_name.clone()
    };
    let Some(out_kind) = processable(&name) else {
        return Err(NEEDS_CSV_OR_EXCEL.to_string());
    };
    let key = input
        .object_key
        .as_deref()
        .ok_or("The stored file is missing")?;
    let key = ObjectKey::parse(key).map_err(|e| internal(run, e))?;
    let options: RunOptions = serde_json::from_str(&run.options).unwrap_or_default();
    let lever = match run.lever_id.as_deref() {
        Some(id) => {
            let (code, lever_name) = runs::lever_by_id(state, id)
                .await
                .map_err(|e| internal(run, e))?
                .ok_or("The chosen lever no longer exists")?;
            let lever = code.as_deref().and_then(Lever::parse).ok_or_else(|| {
                format!("The lever '{lever_name}' has no analysis rules: choose another lever")
            })?;
            Some((id.to_string(), lever_name, lever))
        }
        None => None,
    };
    let figures = runs::client_figures(state, &run.client_id)
        .await
        .map_err(|e| internal(run, e))?;
    let started = Instant::now();
    let original = state
        .storage
        .readable(&key)
        .await
        .map_err(|e| internal(run, e))?;
    if shared.cancel.load(Ordering::Acquire) {
        return Err("Cancelled".into());
    }

    let max_bytes = state
        .config
        .max_upload_mb
        .saturating_mul(1024 * 1024)
        .max(1);
    // The cap: RUN_THREADS, else the cores shared among the runs under way on this instance at
    // the start (a lone run gets them all; with RUN_CONCURRENCY runs each gets its share).
    let threads = match state.config.run_threads {
        0 => {
            let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
            (cores / runs::LOCAL_RUNS.len().max(1)).max(1)
        }
        n => n,
    };
    let (out_file, out_path) = state
        .storage
        .temp_file()
        .await
        .map_err(|e| internal(run, e))?;
    let shared2 = shared.clone();
    let country = input.country.clone();
    let enhanced = lever.is_none();
    // What people decided on earlier classifications, which the classifier takes into account
    // (the client's own reviews fully, the other clients' less).
    let reviews = if enhanced {
        let mut conn = state
            .db
            .pool
            .acquire()
            .await
            .map_err(|e| internal(run, e))?;
        crate::service::classification::reviews_for(&mut conn, &run.client_id)
            .await
            .map_err(|e| internal(run, e))?
    } else {
        crate::service::classification::Reviews::default()
    };
    let fixed = lever.as_ref().map(|l| l.2);
    let original_path = original.path().to_path_buf();
    let name2 = name.clone();
    let mapping = options.mapping.clone().map(ColumnMapping);
    let rw_format = options
        .risk_weight_format
        .as_deref()
        .and_then(analysis::pipeline::RwFormat::parse);
    let maturity = options.maturity_unit.as_deref().and_then(|u| match u {
        "days" => Some(analysis::ingest::values::MaturityUnit::Days),
        "months" => Some(analysis::ingest::values::MaturityUnit::Months),
        "years" => Some(analysis::ingest::values::MaturityUnit::Years),
        _ => None,
    });
    // The required columns from the levers' column definitions (the engine falls back to the
    // specification's set for a lever without required standard columns).
    let required_by_lever = crate::service::levers::required_by_lever(state)
        .await
        .map_err(|e| internal(run, e))?;
    let required_for = move |l: Option<Lever>| {
        l.and_then(|l| {
            required_by_lever
                .iter()
                .find(|(x, _)| *x == l)
                .map(|(_, names)| names.clone())
        })
    };
    let fetched = started.elapsed();
    let priority = EnginePriority {
        nice: state.config.run_nice,
        idle: state.config.run_idle,
    };
    let (count_path, count_shared) = (original_path.clone(), shared2.clone());
    // The reporting date, kept with the result so the decisions can be evaluated again as they
    // were (the explainability screens).
    let today = chrono::Utc::now().date_naive();
    let analyse = move || -> Result<Engined, String> {
        let limits = Limits {
            max_file_bytes: max_bytes,
            ..Limits::upload()
        };
        let engine = Engine::new(
            RuleSet::for_reporting_date(today),
            RefData::builtin_shared(),
            EngineContext {
                reporting_date: today,
                client_country: country,
            },
        );
        // Enhanced AI: classify first, with the evidence; below the threshold nothing is analysed.
        let mut classification = None;
        if enhanced {
            shared2.set_stage(RunStage::Classifying);
            let mut f = std::fs::File::open(&original_path).map_err(|e| e.to_string())?;
            let preview = analysis::ingest::preview(
                Input::Reader {
                    name: &name2,
                    reader: &mut f,
                },
                &limits,
                CLASSIFY_ROWS,
            )
            .map_err(|e| e.to_string())?;
            let headers: Vec<&str> = preview.info.headers.iter().map(String::as_str).collect();
            let rows: Vec<Vec<&str>> = preview
                .rows
                .iter()
                .map(|r| r.iter().map(String::as_str).collect())
                .collect();
            let (c, learning) = crate::service::classification::classify(
                &reviews,
                &headers,
                &rows,
                engine.refdata(),
            );
            let review = c.lever.is_none() || c.confidence < CONFIDENCE_THRESHOLD;
            let c = Classified::new(c, &headers, learning);
            if review {
                return Ok(Engined::Review(c));
            }
            classification = Some(c);
        }
        // The classified lever is the one analysed (the engine does not classify again).
        let lever_choice = match (fixed, classification.as_ref().and_then(|c| c.c.lever)) {
            (Some(l), _) | (None, Some(l)) => LeverChoice::Fixed(l),
            (None, None) => LeverChoice::Auto,
        };
        let required_columns = match &lever_choice {
            LeverChoice::Fixed(l) => required_for(Some(*l)),
            _ => None,
        };
        let opts = AnalyzeOptions {
            required_columns,
            lever: lever_choice,
            mapping,
            output_kind: Some(out_kind),
            limits,
            threads,
            maturity_unit: maturity,
            risk_weight_format: rw_format,
            ..AnalyzeOptions::default()
        };
        let cb = |p: &Progress| shared2.progress(p);
        let mut f = std::fs::File::open(&original_path).map_err(|e| e.to_string())?;
        let mut w = std::io::BufWriter::with_capacity(256 * 1024, out_file);
        let analysed = analysis::pipeline::analyze_with(
            Input::Reader {
                name: &name2,
                reader: &mut f,
            },
            &engine,
            &opts,
            OutputTarget::Writer(&mut w),
            RunControl {
                progress: Some(&cb),
                cancel: Some(shared2.cancel.as_ref()),
                ..RunControl::default()
            },
        );
        let report = match (analysed, classification) {
            (Ok(report), c) => {
                classification = c;
                report
            }
            (Err(e), Some(c)) if !shared2.cancel.load(Ordering::Acquire) => {
                return Ok(Engined::FailedAfterClassifying(e.to_string(), c));
            }
            (Err(e), _) => return Err(e.to_string()),
        };
        use std::io::Write as _;
        w.flush().map_err(|e| e.to_string())?;
        Ok(Engined::Done(Box::new(report), classification))
    };
    // A CSV's row count serves the progress only: counted beside the analysis, not before it.
    let engine = move || {
        std::thread::scope(|scope| {
            if out_kind == OutputKind::Csv {
                scope.spawn(|| {
                    if let Ok(total) = count_rows(&count_path) {
                        count_shared
                            .live
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .figures
                            .rows_total = Some(total);
                    }
                });
            }
            analyse()
        })
    };
    let engine_result = on_engine_thread(priority, engine)
        .await
        .map_err(|e| internal(run, e))??;
    drop(original);
    let engined = started.elapsed();

    let (report, classification) = match engine_result {
        Engined::Review(classified) => {
            return Ok(Outcome::PendingReview {
                result: classified_result(state, run, classified, today).await?,
            });
        }
        Engined::FailedAfterClassifying(message, classified) => {
            return Ok(Outcome::Failed {
                message,
                result: Some(classified_result(state, run, classified, today).await?),
            });
        }
        Engined::Done(r, c) => (r, c),
    };
    let s = &report.summary;
    {
        let mut l = shared.live.lock().unwrap_or_else(|e| e.into_inner());
        l.stage = RunStage::Recording;
        l.figures.rows_read = s.rows as i64;
        l.figures.rows_done = s.rows as i64;
        l.figures.rows_matched = s.matched as i64;
        l.figures.rows_total = Some(s.rows as i64);
    }
    let (lever_id, lever_name) = match &lever {
        Some((id, name, _)) => (Some(id.clone()), Some(name.clone())),
        None => match runs::lever_by_code(state, s.lever.as_str())
            .await
            .map_err(|e| internal(run, e))?
        {
            Some((id, name)) => (Some(id), Some(name)),
            None => (None, Some(s.lever.as_str().to_string())),
        },
    };
    let savings_rwas = s.total_rwa_saving;
    let result = RunResult {
        lever_id,
        lever_name,
        savings_rwas,
        savings_bps: crate::service::savings::bps(&figures, savings_rwas),
        confidence: classification.as_ref().map(|c| c.c.confidence),
        rows: s.rows,
        matched: s.matched,
        not_matched: s.not_matched,
        errors: s.errors,
        mapped_columns: s.mapping.0.len() as u64,
        classification: classification.map(|c| c.json),
        checks: RunChecks {
            error_rows: s.errors,
            unreadable_values: s.aggregates.data_quality.unreadable.values().sum(),
            flagged_rows: s.aggregates.data_quality.flagged_rows,
            totals_reconciled: s.matched + s.not_matched + s.errors == s.rows
                && ((s.rwa_before - s.rwa_after) - s.total_rwa_saving).abs()
                    <= 0.01_f64.max(s.rwa_before.abs() * 1e-9),
        },
        reporting_date: Some(today.to_string()),
    };
    let content_type = match out_kind {
        OutputKind::Csv => "text/csv; charset=utf-8",
        OutputKind::Xlsx => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    };
    let key = Storage::output_key(&run.client_id.clone().into(), &s.output_file_name);
    match state.storage.local_path(&key) {
        // A local store: the finished file becomes the object by a hard link (same file system,
        // `DATA_DIR`), which fails if the key exists, so the object is still written once.
        Some(target) => {
            let parent = target.parent().map(std::path::Path::to_path_buf);
            let source = out_path.to_path_buf();
            let linked = tokio::task::spawn_blocking(move || {
                if let Some(p) = parent {
                    std::fs::create_dir_all(p)?;
                }
                std::fs::hard_link(&source, &target)
            })
            .await
            .map_err(|e| internal(run, e))?;
            match linked {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    return Err(internal(run, e));
                }
                // Another file system (the objects folder mounted elsewhere): copy it in.
                Err(_) => {
                    state
                        .storage
                        .put_file(&key, &out_path, content_type)
                        .await
                        .map_err(|e| internal(run, e))?;
                }
            }
        }
        None => {
            state
                .storage
                .put_file(&key, &out_path, content_type)
                .await
                .map_err(|e| internal(run, e))?;
        }
    }
    drop(out_path);
    *output_key = Some(key.clone());
    tracing::info!(
        run = %run.id,
        fetch_ms = fetched.as_millis() as u64,
        engine_ms = (engined - fetched).as_millis() as u64,
        store_ms = (started.elapsed() - engined).as_millis() as u64,
        "processing run analysed"
    );
    let facts = Some(Box::new(crate::service::qa::facts::RunFacts::from_summary(
        &report.summary,
    )));
    Ok(Outcome::Completed {
        processed_key: key.as_str().to_string(),
        result,
        facts,
    })
}

enum Engined {
    Review(Classified),
    Done(Box<analysis::pipeline::AnalysisReport>, Option<Classified>),
    /// The analysis of the classified lever failed (missing columns, say): the classification
    /// is kept with the failure.
    FailedAfterClassifying(String, Classified),
}

/// An enhanced-AI run's classification, and what the run stores of it: the classifier's
/// output with the file's column names (what a later review of the file teaches the classifier)
/// and the figures of past reviews (`learning`, absent without reviews).
struct Classified {
    c: analysis::classify::Classification,
    json: serde_json::Value,
}

impl Classified {
    fn new(
        c: analysis::classify::Classification,
        headers: &[&str],
        learning: Option<crate::service::classification::Learning>,
    ) -> Classified {
        let mut json = serde_json::to_value(&c).unwrap_or(serde_json::Value::Null);
        if let Some(o) = json.as_object_mut() {
            o.insert("headers".into(), serde_json::json!(headers));
            if let Some(l) = learning.and_then(|l| serde_json::to_value(l).ok()) {
                o.insert("learning".into(), l);
            }
        }
        Classified { c, json }
    }
}

/// How a run's engine threads are scheduled beside the web workers (`RUN_NICE`, `RUN_IDLE`).
#[derive(Debug, Clone, Copy)]
struct EnginePriority {
    /// Nice increment over the server's own.
    nice: u8,
    /// Linux `SCHED_IDLE`: preempted at once by any normal thread that wakes up.
    idle: bool,
}

/// Runs `work` on a thread of its own whose scheduling priority is lowered (Linux: the nice value
/// and the policy are per thread, and the engine's worker threads, started from it, inherit
/// them), so a run takes the cores the web requests leave instead of competing with them as
/// equals. A thread per run rather than the blocking pool, whose threads are reused and could not
/// get their priority back. A panic in `work` ends as an error.
async fn on_engine_thread<T: Send + 'static>(
    priority: EnginePriority,
    work: impl FnOnce() -> T + Send + 'static,
) -> std::io::Result<T> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("run-engine".into())
        .spawn(move || {
            lower_priority(priority);
            let _ = tx.send(work());
        })?;
    rx.await
        .map_err(|_| std::io::Error::other("the engine thread ended without a result"))
}

/// Lowers the calling thread's scheduling priority (nothing at nice 0 without idle, and off
/// Linux). The standard library has no thread priority: a few libc calls, the crate's one use of
/// `unsafe`.
#[allow(unsafe_code)]
fn lower_priority(EnginePriority { nice, idle }: EnginePriority) {
    #[cfg(target_os = "linux")]
    if idle {
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: `param` lives across the call, which only reads it; pid 0 is the calling
        // thread. Lowering a thread's own policy needs no privilege.
        if unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) } != 0 {
            tracing::warn!(
                error = %std::io::Error::last_os_error(),
                "could not schedule the engine thread as idle work"
            );
        }
    }
    #[cfg(target_os = "linux")]
    if nice > 0 {
        // SAFETY: gettid and setpriority/getpriority take plain integers and touch no memory of
        // ours; on Linux PRIO_PROCESS with a thread id changes that thread only.
        unsafe {
            let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
            *libc::__errno_location() = 0;
            let current = libc::getpriority(libc::PRIO_PROCESS, tid);
            let target = (current + i32::from(nice)).min(19);
            if libc::setpriority(libc::PRIO_PROCESS, tid, target) != 0 {
                tracing::warn!(
                    error = %std::io::Error::last_os_error(),
                    "could not lower the engine thread's priority"
                );
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (nice, idle);
}

/// Logs an internal failure and gives the user a plain message.
/// What a run keeps of a classification it stops at (below the threshold, or before an analysis
/// that failed): the proposed lever with the evidence, no savings.
async fn classified_result(
    state: &AppState,
    run: &RunRow,
    Classified { c, json }: Classified,
    today: chrono::NaiveDate,
) -> Result<RunResult, String> {
    let lever = match c.lever {
        Some(l) => runs::lever_by_code(state, l.as_str())
            .await
            .map_err(|e| internal(run, e))?,
        None => None,
    };
    Ok(RunResult {
        lever_id: lever.as_ref().map(|l| l.0.clone()),
        lever_name: lever
            .map(|l| l.1)
            .or(c.lever.map(|l| l.as_str().to_string())),
        savings_rwas: 0.0,
        savings_bps: 0.0,
        confidence: Some(c.confidence),
        rows: 0,
        matched: 0,
        not_matched: 0,
        errors: 0,
        mapped_columns: 0,
        classification: Some(json),
        checks: RunChecks {
            error_rows: 0,
            unreadable_values: 0,
            flagged_rows: 0,
            totals_reconciled: true,
        },
        reporting_date: Some(today.to_string()),
    })
}

fn internal(run: &RunRow, e: impl std::fmt::Display) -> String {
    tracing::error!(run = %run.id, error = %e, "processing run failed");
    "The file could not be processed because of a server error. Try again later.".to_string()
}

/// The data rows of a CSV file: its lines less the header (an upper bound when quoted cells hold
/// line breaks; used only for the progress percentage).
fn count_rows(path: &std::path::Path) -> std::io::Result<i64> {
    let mut f = std::fs::File::open(path)?;
    let mut buf = vec![0u8; 1 << 20];
    let (mut lines, mut last) = (0i64, b'\n');
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        lines += memchr_count(&buf[..n]);
        last = buf[n - 1];
    }
    if last != b'\n' {
        lines += 1;
    }
    Ok((lines - 1).max(0))
}

fn memchr_count(b: &[u8]) -> i64 {
    b.iter().filter(|&&c| c == b'\n').count() as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[allow(unsafe_code)]
    fn own_priority() -> i32 {
        // SAFETY: as in `lower_priority`.
        unsafe {
            let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
            libc::getpriority(libc::PRIO_PROCESS, tid)
        }
    }

    #[cfg(target_os = "linux")]
    #[allow(unsafe_code)]
    fn own_policy() -> i32 {
        // SAFETY: a plain query of the calling thread's policy.
        unsafe { libc::sched_getscheduler(0) }
    }

    const fn priority(nice: u8, idle: bool) -> EnginePriority {
        EnginePriority { nice, idle }
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn the_engine_thread_and_the_threads_it_starts_run_at_a_lower_priority() {
        let base = own_priority();
        let (engine, worker) = on_engine_thread(priority(7, false), || {
            let worker = std::thread::spawn(own_priority).join().unwrap();
            (own_priority(), worker)
        })
        .await
        .unwrap();
        let expected = (base + 7).min(19);
        assert_eq!((engine, worker), (expected, expected));
        // The caller's thread keeps its priority; 0 changes nothing.
        assert_eq!(own_priority(), base);
        assert_eq!(
            on_engine_thread(priority(0, false), own_priority)
                .await
                .unwrap(),
            base
        );
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn idle_engine_threads_and_their_workers_are_scheduled_as_idle_work() {
        let normal = own_policy();
        let (engine, worker) = on_engine_thread(priority(10, true), || {
            let worker = std::thread::spawn(own_policy).join().unwrap();
            (own_policy(), worker)
        })
        .await
        .unwrap();
        assert_eq!((engine, worker), (libc::SCHED_IDLE, libc::SCHED_IDLE));
        assert_eq!(own_policy(), normal, "the caller's thread keeps its policy");
        assert_eq!(
            on_engine_thread(priority(10, false), own_policy)
                .await
                .unwrap(),
            normal
        );
    }

    #[tokio::test]
    async fn a_panic_on_the_engine_thread_is_an_error() {
        let r = on_engine_thread(priority(0, false), || -> u8 { panic!("engine failure") }).await;
        assert!(r.is_err());
    }
}
