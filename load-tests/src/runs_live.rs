//! The `runs-live` scenario: many processing runs in progress at once, followed live by
//! administrators on the runs view (`admin:runs`) and on File Management (`admin:files` and the
//! topic of each run shown, as the page subscribes with 50 rows per page).
//!
//! 1. A fresh SQLite database gets the demo data and `--clients` extra clients; one CSV of
//!    `--rows` rows is generated with `capopt generate-exposures`.
//! 2. `capopt serve` starts with `RUN_CONCURRENCY` = `--runs` and `RUN_THREADS` = `--run-threads`.
//! 3. The administrator uploads `--runs` copies of the file, spread over the extra clients,
//!    without processing them. `--admins` administrator sessions each open two sockets: the runs
//!    view (`admin:runs`) and File Management (`admin:files`).
//! 4. One bulk 'Assign Lever' (`POST /api/admin/files/assign-lever`) queues a run for every file,
//!    and each File Management socket subscribes to every run's topic.
//! 5. Once every run is running, `--probes` tiny files are uploaded for processing; with every
//!    slot taken they stay queued, and one is cancelled every `--probe-every-ms` through
//!    `POST /api/runs/{id}/cancel`, whose `run.progress` goes out on `admin:runs`.
//! 6. Every socket records each frame's arrival until every run has ended.
//!
//! Figures, per administrator and view: updates per run per second (the most in any sliding 1 s
//! window of arrivals; target at most 10), sequence gaps within a run (lost frames), and that
//! every run's final state arrived. Delivery latency (target: p99 under 50 ms) is measured on
//! every frame of the administrators' topics from the publish time the server puts in each event
//! frame (`at`) to its arrival; server and load generator read the same clock. Also reported: a
//! probe's cancel from the request being sent to the frame's arrival (it includes the HTTP
//! request and the cancel's transaction) and from its response (0 when the frame came first); a
//! run's final frame from its `finishedAt` (written in the completion's transaction, so including
//! the commit) to its arrival; and every frame's arrival after the earliest arrival of the same
//! event on any socket (the fan-out spread).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, bail};
use futures_util::{SinkExt, StreamExt};
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;

use crate::common::{self, Percentiles, Session, TempDir};

/// Options of `load-tests runs-live`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The `capopt` binary (a release build for figures).
    #[arg(long, env = "CAPOPT_BIN")]
    server_bin: PathBuf,
    /// Processing runs in progress at once (the server's `RUN_CONCURRENCY` is set to this).
    #[arg(long, default_value_t = 50)]
    runs: usize,
    /// Rows of each run's file (large enough that every run is still going once the last starts).
    #[arg(long, default_value_t = 300_000)]
    rows: usize,
    /// Engine threads per run (`RUN_THREADS`).
    #[arg(long, default_value_t = 1)]
    run_threads: usize,
    /// The server's `RUN_NICE` (unset: the server's default).
    #[arg(long)]
    run_nice: Option<u8>,
    /// The server's `RUN_IDLE` (unset: the server's default, idle engine threads).
    #[arg(long)]
    run_idle: Option<bool>,
    /// Administrators watching, each with the runs view and File Management open.
    #[arg(long, default_value_t = 20)]
    admins: usize,
    /// Extra clients the files are spread over.
    #[arg(long, default_value_t = 10)]
    clients: usize,
    /// Queued runs cancelled one by one while every run is in progress (latency probes).
    #[arg(long, default_value_t = 40)]
    probes: usize,
    /// Milliseconds between two probes.
    #[arg(long, default_value_t = 200)]
    probe_every_ms: u64,
    /// Longest wait for the runs to end, in seconds.
    #[arg(long, default_value_t = 900)]
    limit_secs: u64,
    /// Where to write the JSON results.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Fail (exit 1) when a target is missed or a check fails.
    #[arg(long)]
    check: bool,
}

/// Which screen a socket stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum View {
    /// Processing Runs: `admin:runs`.
    Runs,
    /// File Management: `admin:files` and each run's own topic.
    Files,
}

/// What the scenario reads of a frame.
#[derive(Debug, Deserialize)]
struct Frame {
    #[serde(default)]
    topic: String,
    #[serde(default)]
    seq: Option<i64>,
    /// The server's publish time (microseconds since the UNIX epoch).
    #[serde(default)]
    at: Option<i64>,
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    data: Option<FrameData>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct FrameData {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    file_id: Option<String>,
    #[serde(default)]
    state: Option<String>,
    #[serde(default)]
    finished_at: Option<String>,
}

/// One of the slowest frames on an administrators' topic.
#[derive(Debug, Serialize)]
struct SlowFrame {
    /// Publish to arrival.
    delivery_ms: f64,
    /// Arrival after the first frame of the run on any socket.
    arrived_after_s: f64,
    /// Arrival by the machine's clock, in milliseconds since the Unix epoch (to line the frame
    /// up with samples of the server's threads taken beside the run).
    arrived_unix_ms: f64,
    admin: usize,
    topic: &'static str,
    /// `run.progress` (else a file event).
    progress: bool,
}

/// One frame as a socket received it.
#[derive(Debug, Clone)]
struct Arrival {
    at: Instant,
    /// Publish to arrival by the machine's clock (server and load generator share it), for a
    /// frame on an administrators' topic (`admin:runs`, `admin:files`).
    admin_delivery: Option<Duration>,
    /// A run's id (`run.progress`) or a file's id (file events on `admin:files`).
    subject: String,
    /// `run.progress` on `admin:runs` or a run's topic.
    progress: bool,
    seq: i64,
    state: Option<String>,
    finished_at: Option<String>,
}

type Sink = Arc<Mutex<Vec<Arrival>>>;

/// One run's frames on one socket (arrival and what it was), its sequence numbers, and whether
/// its final state arrived.
type RunFrames<'a> = (Vec<(Instant, &'a str)>, Vec<i64>, bool);

struct Watcher {
    admin: usize,
    view: View,
    sink: Sink,
    /// Requests to send (the File Management sockets subscribe to each run's topic).
    requests: tokio::sync::mpsc::UnboundedSender<String>,
}

#[derive(Debug, Serialize)]
struct RateFigures {
    /// The most updates of one run in any sliding 1 s window, over every run and administrator.
    max_per_run_per_s: usize,
    /// (administrator, run) pairs whose busiest 1 s window held more than 10 updates.
    pairs_over_10: usize,
    pairs: usize,
    /// Updates per run per second over the run's life, averaged over runs and administrators.
    mean_per_run_per_s: f64,
    /// Frames this view received per administrator per second while every run was in progress.
    frames_per_admin_per_s: f64,
    /// Sequence gaps within one run's frames (a lost frame or a resync).
    seq_gaps: usize,
    /// The busiest window found: where in the run's life it fell and what it held.
    busiest: Option<Busiest>,
    /// Runs whose final state reached every administrator on this view, of `runs`.
    final_states_received: usize,
    final_states_expected: usize,
    /// Runs that had ended before this view subscribed to their topics.
    ended_before_subscribing: usize,
}

/// Nearest-rank quantiles in milliseconds.
#[derive(Debug, Serialize)]
struct Quantiles {
    samples: usize,
    p50_ms: f64,
    p95_ms: f64,
    p99_ms: f64,
    max_ms: f64,
}

impl Quantiles {
    fn of(mut micros: Vec<u64>) -> Quantiles {
        micros.sort_unstable();
        let at = |q: f64| -> f64 {
            if micros.is_empty() {
                return 0.0;
            }
            let i = ((micros.len() as f64 * q).ceil() as usize).clamp(1, micros.len()) - 1;
            ms(micros[i])
        };
        Quantiles {
            samples: micros.len(),
            p50_ms: at(0.50),
            p95_ms: at(0.95),
            p99_ms: at(0.99),
            max_ms: at(1.0),
        }
    }
}

fn ms(micros: u64) -> f64 {
    micros as f64 / 1000.0
}

/// One administrator's latency figures.
#[derive(Debug, Serialize)]
struct AdminLatency {
    admin: usize,
    /// Probe cancels on the runs view, from their `finishedAt` (upper bound).
    probe_from_finished_at: Quantiles,
    /// Every run frame on both views, after the earliest arrival of the same event (lower bound).
    fanout_spread: Quantiles,
}

/// One probe: its cancel's HTTP time and its frame's arrival after `finishedAt` on the first,
/// median and last administrator's runs view.
#[derive(Debug, Serialize)]
struct ProbeDetail {
    http_ms: f64,
    first_ms: f64,
    median_ms: f64,
    last_ms: f64,
}

/// The busiest 1 s window of one run on one socket.
#[derive(Debug, Serialize)]
struct Busiest {
    frames: usize,
    /// From the run's first frame on this socket to the window's first.
    after_first_frame_s: f64,
    /// From the window's last frame to the run's last frame on this socket.
    before_last_frame_s: f64,
    /// The window's frames by the run's state in each, and the file's own events.
    kinds: std::collections::BTreeMap<String, usize>,
}

#[derive(Debug, Serialize)]
struct Target {
    name: String,
    target: String,
    measured: String,
    pass: bool,
}

#[derive(Debug, Serialize)]
struct Results {
    scenario: &'static str,
    started_unix: u64,
    machine_cores: usize,
    load_average_before: String,
    load_average_after: String,
    /// The load generator's niceness (`nice -n -10` in `make load-runs-live`); the server always
    /// runs at 0, its engine threads at 0 + `RUN_NICE`.
    generator_nice: i32,
    /// The server's niceness (its main thread), read while it ran.
    server_nice: i32,
    /// `RUN_IDLE` as given (`null`: the server's default, idle engine threads).
    run_idle: Option<bool>,
    runs: usize,
    rows_each: usize,
    file_mb: f64,
    admins: usize,
    sockets: usize,
    upload_secs: f64,
    bulk_assign_secs: f64,
    /// From the bulk assignment to every run running at once.
    all_running_after_secs: f64,
    /// Runs running at the same time at the peak (from the first administrator's runs view).
    max_running_together: usize,
    /// How long every run was in progress together.
    all_running_secs: f64,
    /// From the bulk assignment to the last run's end.
    all_ended_after_secs: f64,
    final_states: HashMap<String, usize>,
    runs_view: RateFigures,
    file_management: RateFigures,
    /// Probe cancel: request sent to the frame's arrival on `admin:runs` (upper bound).
    probe_from_request: Percentiles,
    /// Probe cancel: HTTP response to the frame's arrival, 0 when the frame came first (lower bound).
    probe_from_response: Percentiles,
    /// Probe cancel: the cancelled run's `finishedAt` (written in the cancel's transaction once it
    /// holds the database's write lock) to the frame's arrival (upper bound: includes the rest
    /// of the transaction and its commit).
    probe_from_finished_at: Percentiles,
    probe_http: Percentiles,
    probes_measured: usize,
    /// Each probe, slowest first.
    probes: Vec<ProbeDetail>,
    per_admin: Vec<AdminLatency>,
    /// Every frame on an administrators' topic (`admin:runs` on the runs view, `admin:files` on
    /// File Management): the server's publish time (in the frame) to its arrival.
    admin_topic_delivery: Percentiles,
    /// The same on `admin:runs` alone.
    admin_runs_delivery: Percentiles,
    /// The same on `admin:files` alone.
    admin_files_delivery: Percentiles,
    /// The 20 slowest admin-topic frames.
    slowest_admin_frames: Vec<SlowFrame>,
    /// A run's final frame: `finishedAt` (written in the completion's transaction) to arrival,
    /// on every socket (upper bound, includes the commit).
    final_from_finished_at: Percentiles,
    /// Every run frame: arrival after the earliest arrival of the same event on any socket.
    fanout_spread: Percentiles,
    server_rss_peak_mb: f64,
    targets: Vec<Target>,
    passed: bool,
}

const FINAL: [&str; 4] = ["completed", "failed", "pending_review", "cancelled"];

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Opens an event socket with the session's cookies and subscribes to `topics`.
async fn open(session: &Session, topics: &[String]) -> anyhow::Result<Ws> {
    let url = session.base.replacen("http://", "ws://", 1) + "/api/ws";
    let mut req = url.into_client_request()?;
    req.headers_mut()
        .insert("cookie", HeaderValue::from_str(&session.cookie)?);
    let (mut ws, _) = tokio::time::timeout(
        Duration::from_secs(30),
        tokio_tungstenite::connect_async(req),
    )
    .await
    .context("connect timed out")??;
    ws.send(Message::text(
        json!({"op": "subscribe", "topics": topics}).to_string(),
    ))
    .await?;
    let mut pending = topics.len();
    let deadline = Instant::now() + Duration::from_secs(30);
    while pending > 0 {
        let msg = tokio::time::timeout_at(deadline.into(), ws.next())
            .await
            .context("no subscription answer")?
            .context("closed")??;
        if let Message::Text(t) = msg {
            if t.as_str().contains("\"type\":\"subscribed\"") {
                pending -= 1;
            } else if t.as_str().contains("\"type\":\"denied\"") {
                bail!("subscription denied: {t}");
            }
        }
    }
    Ok(ws)
}

/// Records every event frame until `stop`; sends the requests it is given.
async fn listen(
    mut ws: Ws,
    sink: Sink,
    mut requests: tokio::sync::mpsc::UnboundedReceiver<String>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    loop {
        tokio::select! {
            msg = ws.next() => match msg {
                Some(Ok(Message::Text(t))) => {
                    let at = Instant::now();
                    let arrived = SystemTime::now();
                    let Ok(f) = serde_json::from_str::<Frame>(t.as_str()) else { continue };
                    let admin_delivery = f
                        .at
                        .filter(|_| f.topic.starts_with("admin:"))
                        .and_then(|us| u64::try_from(us).ok())
                        .map(|us| {
                            let published = SystemTime::UNIX_EPOCH + Duration::from_micros(us);
                            arrived.duration_since(published).unwrap_or(Duration::ZERO)
                        });
                    let Some(seq) = f.seq else { continue };
                    let data = f.data.unwrap_or_default();
                    let progress = f.kind == "run.progress";
                    let subject = if progress { data.id } else if f.topic == "admin:files" { data.file_id } else { None };
                    let Some(subject) = subject else { continue };
                    sink.lock().unwrap_or_else(|e| e.into_inner()).push(Arrival {
                        at,
                        admin_delivery,
                        subject,
                        progress,
                        seq,
                        state: if progress { data.state } else { None },
                        finished_at: if progress { data.finished_at } else { None },
                    });
                }
                Some(Ok(_)) => {}
                Some(Err(_)) | None => return,
            },
            Some(r) = requests.recv() => {
                if ws.send(Message::text(r)).await.is_err() {
                    return;
                }
            }
            _ = stop.changed() => {
                let _ = ws.close(None).await;
                return;
            }
        }
    }
}

/// Uploads a file to a client without processing it; the file's id.
async fn upload_unprocessed(
    s: &Session,
    client: &str,
    name: &str,
    bytes: Vec<u8>,
) -> anyhow::Result<String> {
    let form = reqwest::multipart::Form::new()
        .part(
            "file",
            reqwest::multipart::Part::bytes(bytes).file_name(name.to_string()),
        )
        .text(
            "options",
            json!({"mode": "manual", "leverId": null, "process": false}).to_string(),
        );
    let r = s
        .http
        .post(format!("{}/api/files?client={client}", s.base))
        .header("x-csrf-token", &s.csrf)
        .multipart(form)
        .send()
        .await?;
    let st = r.status();
    let v: serde_json::Value = r.json().await?;
    if !st.is_success() {
        bail!("upload: HTTP {st} {v}");
    }
    Ok(v["file"]["id"].as_str().context("no file")?.to_string())
}

/// The most timestamps within any sliding window of `width` (`times` sorted).
#[cfg(test)]
fn busiest_window(times: &[Instant], width: Duration) -> usize {
    busiest_window_at(times, width).0
}

/// [`busiest_window`] and the index of the window's first timestamp.
fn busiest_window_at(times: &[Instant], width: Duration) -> (usize, usize) {
    let mut best = (0, 0);
    let mut j = 0;
    for i in 0..times.len() {
        while j < times.len() && times[j] < times[i] + width {
            j += 1;
        }
        if j - i > best.0 {
            best = (j - i, i);
        }
    }
    best
}

/// Gaps in a run's sequence numbers as one socket received them (repeats ignored).
fn seq_gaps(seqs: &[i64]) -> usize {
    seqs.windows(2).filter(|w| w[1] > w[0] + 1).count()
}

fn rfc3339(s: &str) -> Option<SystemTime> {
    let t = chrono::DateTime::parse_from_rfc3339(s).ok()?;
    let micros = u64::try_from(t.timestamp_micros()).ok()?;
    Some(SystemTime::UNIX_EPOCH + Duration::from_micros(micros))
}

/// Runs the scenario; `Ok(false)` when `--check` found a problem.
pub(crate) async fn run(args: Args) -> anyhow::Result<bool> {
    if args.runs == 0 || args.admins == 0 {
        bail!("--runs and --admins must be at least 1");
    }
    let started_unix = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let load_before = load_average();
    let dir = TempDir::new("capopt-load-runs-live")?;
    common::prepare_database(&dir.0.join("data"), None, args.clients.max(1)).await?;
    let bin = args.server_bin.clone();
    let input = dir.0.join("exposures.csv");
    common::generate_pse(&bin, args.rows, &input)?;
    let probe_input = dir.0.join("probe.csv");
    common::generate_pse(&bin, 20, &probe_input)?;
    let bytes = bytes::Bytes::from(std::fs::read(&input)?);
    let probe_bytes = std::fs::read(&probe_input)?;
    let file_mb = bytes.len() as f64 / 1e6;
    let concurrency = args.runs.to_string();
    let threads = args.run_threads.to_string();
    let max_mb = ((bytes.len() >> 20) + 16).to_string();
    let nice = args.run_nice.map(|n| n.to_string());
    let mut envs = vec![
        ("MAX_UPLOAD_MB", max_mb.as_str()),
        ("RUN_CONCURRENCY", concurrency.as_str()),
        ("RUN_THREADS", threads.as_str()),
    ];
    if let Some(n) = &nice {
        envs.push(("RUN_NICE", n.as_str()));
    }
    let idle = args.run_idle.map(|i| i.to_string());
    if let Some(i) = &idle {
        envs.push(("RUN_IDLE", i.as_str()));
    }
    let mut inst =
        common::start_instance_with(&bin, &dir.0.join("data"), None, None, &envs).await?;
    let pid = inst.pid;
    let server_nice = common::nice_of(&pid.to_string());
    let peak = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let sampler = {
        let peak = peak.clone();
        tokio::spawn(async move {
            while let Ok(k) = common::rss_kib(pid) {
                peak.fetch_max(k, std::sync::atomic::Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        })
    };

    // Administrator sessions (the per-address sign-in limit allows a few dozen).
    let n_sessions = args.admins.min(20);
    let mut sessions = Vec::with_capacity(n_sessions);
    for _ in 0..n_sessions {
        sessions.push(Session::login(&inst.base, "admin@example.com").await?);
    }
    let control = sessions[0].clone();
    let clients: Vec<String> = control
        .get_json("/api/clients")
        .await?
        .as_array()
        .context("clients")?
        .iter()
        .filter(|c| {
            c["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("Load Client"))
        })
        .filter_map(|c| c["id"].as_str().map(str::to_string))
        .collect();
    if clients.is_empty() {
        bail!("no load clients");
    }
    let levers = control.get_json("/api/levers").await?;
    let pse = levers
        .as_array()
        .context("levers")?
        .iter()
        .find(|l| l["code"] == "pse")
        .and_then(|l| l["id"].as_str())
        .context("no PSE lever")?
        .to_string();

    eprintln!(
        "uploading {} files of {} rows ({file_mb:.1} MB each)",
        args.runs, args.rows
    );
    let t = Instant::now();
    let mut file_ids = Vec::with_capacity(args.runs);
    let mut file_client = HashMap::new();
    for chunk in (0..args.runs).collect::<Vec<_>>().chunks(4) {
        let mut tasks = Vec::new();
        for &i in chunk {
            let (s, c, b) = (
                control.clone(),
                clients[i % clients.len()].clone(),
                bytes.clone(),
            );
            tasks.push(tokio::spawn(async move {
                let id =
                    upload_unprocessed(&s, &c, &format!("live-{i:03}.csv"), b.to_vec()).await?;
                anyhow::Ok((id, c))
            }));
        }
        for task in tasks {
            let (id, c) = task.await??;
            file_client.insert(id.clone(), c);
            file_ids.push(id);
        }
    }
    let upload_secs = t.elapsed().as_secs_f64();

    // The administrators' screens.
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut watchers = Vec::new();
    let mut listeners = Vec::new();
    for admin in 0..args.admins {
        let session = &sessions[admin % sessions.len()];
        for (view, topic) in [(View::Runs, "admin:runs"), (View::Files, "admin:files")] {
            let ws = open(session, &[topic.to_string()]).await?;
            let sink: Sink = Arc::new(Mutex::new(Vec::new()));
            let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
            listeners.push(tokio::spawn(listen(ws, sink.clone(), rx, stop_rx.clone())));
            watchers.push(Watcher {
                admin,
                view,
                sink,
                requests: tx,
            });
        }
    }
    let base_instant = Instant::now();
    let base_wall = SystemTime::now();

    eprintln!(
        "assigning a lever to {} files at once; {} administrators watch",
        args.runs, args.admins
    );
    let t0 = Instant::now();
    let (st, _, outcome) = control
        .post(
            "/api/admin/files/assign-lever",
            &json!({"fileIds": file_ids, "leverId": pse}),
        )
        .await?;
    let bulk_assign_secs = t0.elapsed().as_secs_f64();
    if st != 200 || outcome["failed"] != 0 {
        bail!("bulk assignment: HTTP {st} {outcome}");
    }
    let mut run_file: HashMap<String, String> = HashMap::new();
    for r in outcome["results"].as_array().context("results")? {
        let run = r["runId"].as_str().context("no run id")?.to_string();
        run_file.insert(run, r["fileId"].as_str().context("file")?.to_string());
    }
    let run_ids: Vec<String> = run_file.keys().cloned().collect();
    // File Management follows each run of the page on its own topic (50 rows per page).
    let topics: Vec<String> = run_file
        .iter()
        .map(|(run, file)| format!("client:{}:run:{run}", file_client[file]))
        .collect();
    let subscribe = json!({"op": "subscribe", "topics": topics}).to_string();
    let subscribed_at = Instant::now();
    for w in watchers.iter().filter(|w| w.view == View::Files) {
        let _ = w.requests.send(subscribe.clone());
    }

    // Every run running at once.
    let limit = Duration::from_secs(args.limit_secs);
    let all_running_after_secs = loop {
        let v = control
            .get_json("/api/admin/runs?status=running&page_size=50")
            .await?;
        let running = v["total"].as_i64().unwrap_or(0) as usize;
        if running >= args.runs {
            break t0.elapsed().as_secs_f64();
        }
        let ended = control
            .get_json("/api/admin/runs?status=completed&page_size=5")
            .await?["total"]
            .as_i64()
            .unwrap_or(0);
        if ended > 0 {
            eprintln!(
                "a run ended before all {} were running ({running} running): the files are too small for this machine (raise --rows)",
                args.runs
            );
            break f64::NAN;
        }
        if t0.elapsed() > limit {
            bail!("the runs did not all start within {limit:?}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    eprintln!("all runs running after {all_running_after_secs:.1} s; probing");

    // Probes: tiny runs queued behind the busy slots, cancelled one by one.
    let mut probe_ids = Vec::with_capacity(args.probes);
    for i in 0..args.probes {
        let c = &clients[i % clients.len()];
        let (run, _) = crate::runs::upload(
            &control,
            Some(c.as_str()),
            &format!("probe-{i:03}.csv"),
            probe_bytes.clone(),
        )
        .await?;
        probe_ids.push(run);
    }
    let mut probes: HashMap<String, (Instant, Instant)> = HashMap::new();
    let mut probe_http = Vec::new();
    let mut tick = tokio::time::interval(Duration::from_millis(args.probe_every_ms.max(1)));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    for id in &probe_ids {
        tick.tick().await;
        let sent = Instant::now();
        let (st, _, v) = control
            .post(&format!("/api/runs/{id}/cancel"), &json!({}))
            .await?;
        let done = Instant::now();
        probe_http.push(done.duration_since(sent).as_micros() as u64);
        // A probe claimed meanwhile (a slot freed) is cancelled between chunks: not a probe.
        if st == 200 && v["state"] == "cancelled" {
            probes.insert(id.clone(), (sent, done));
        }
    }

    // Until every run has ended.
    loop {
        let running = control
            .get_json("/api/admin/runs?status=running&page_size=5")
            .await?["total"]
            .as_i64()
            .unwrap_or(0);
        let queued = control
            .get_json("/api/admin/runs?status=queued&page_size=5")
            .await?["total"]
            .as_i64()
            .unwrap_or(0);
        if running == 0 && queued == 0 {
            break;
        }
        if t0.elapsed() > limit {
            bail!("the runs did not end within {limit:?}");
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let all_ended_after_secs = t0.elapsed().as_secs_f64();
    // Let the last frames arrive.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let _ = stop_tx.send(true);
    for l in listeners {
        let _ = l.await;
    }
    let mut final_states: HashMap<String, usize> = HashMap::new();
    for id in &run_ids {
        let v = control.get_json(&format!("/api/runs/{id}")).await?;
        *final_states
            .entry(v["state"].as_str().unwrap_or("?").to_string())
            .or_default() += 1;
    }
    sampler.abort();
    let server_rss_peak_mb = peak.load(std::sync::atomic::Ordering::Relaxed) as f64 / 1024.0;
    let _ = inst.child.kill().await;
    let load_after = load_average();

    // Figures.
    let wall = |at: Instant| -> SystemTime {
        if at >= base_instant {
            base_wall + at.duration_since(base_instant)
        } else {
            base_wall - base_instant.duration_since(at)
        }
    };
    let measured: std::collections::HashSet<&str> = run_ids.iter().map(String::as_str).collect();
    let file_run: HashMap<&str, &str> = run_file
        .iter()
        .map(|(r, f)| (f.as_str(), r.as_str()))
        .collect();
    let recorded: Vec<(usize, View, Vec<Arrival>)> = watchers
        .iter()
        .map(|w| {
            let v = std::mem::take(&mut *w.sink.lock().unwrap_or_else(|e| e.into_inner()));
            (w.admin, w.view, v)
        })
        .collect();

    // When every run was in progress together, from the first administrator's runs view.
    let mut max_running_together = 0;
    let mut all_running_secs = 0.0;
    if let Some((_, _, first)) = recorded.iter().find(|(_, v, _)| *v == View::Runs) {
        let mut edges: Vec<(Instant, i32)> = Vec::new();
        for run in &run_ids {
            let mine: Vec<&Arrival> = first
                .iter()
                .filter(|a| a.progress && &a.subject == run)
                .collect();
            let start = mine
                .iter()
                .find(|a| a.state.as_deref() == Some("running"))
                .map(|a| a.at);
            let end = mine
                .iter()
                .find(|a| a.state.as_deref().is_some_and(|s| FINAL.contains(&s)))
                .map(|a| a.at);
            if let (Some(s), Some(e)) = (start, end) {
                edges.push((s, 1));
                edges.push((e, -1));
            }
        }
        edges.sort_by_key(|e| (e.0, e.1));
        let mut n = 0i32;
        let mut since: Option<Instant> = None;
        for (at, d) in edges {
            n += d;
            if n as usize > max_running_together {
                max_running_together = n as usize;
            }
            if n as usize == args.runs && since.is_none() {
                since = Some(at);
            } else if (n as usize) < args.runs
                && let Some(s) = since.take()
            {
                all_running_secs += at.duration_since(s).as_secs_f64();
            }
        }
    }

    let rates = |view: View, ended_before: &[&str]| -> RateFigures {
        let mut max = 0;
        let mut over = 0;
        let mut pairs = 0;
        let mut rate_sum = 0.0;
        let mut rate_n = 0usize;
        let mut gaps = 0;
        let mut frames = 0usize;
        let mut finals: HashMap<&str, usize> = HashMap::new();
        let mut admins = 0;
        let mut span = Duration::ZERO;
        let mut busiest: Option<Busiest> = None;
        for (_, _, arrivals) in recorded.iter().filter(|(_, v, _)| *v == view) {
            admins += 1;
            if let (Some(a), Some(b)) = (arrivals.first(), arrivals.last()) {
                span = span.max(b.at.duration_since(a.at));
            }
            let mut per_run: HashMap<&str, RunFrames<'_>> = HashMap::new();
            for a in arrivals {
                let run = if a.progress {
                    a.subject.as_str()
                } else {
                    match file_run.get(a.subject.as_str()) {
                        Some(r) => *r,
                        None => continue,
                    }
                };
                if !measured.contains(run) {
                    continue;
                }
                frames += 1;
                let e = per_run.entry(run).or_default();
                let label = if a.progress {
                    a.state.as_deref().unwrap_or("?")
                } else {
                    "file event"
                };
                e.0.push((a.at, label));
                if a.progress {
                    // A claim starts the run's sequence afresh above the queued frame's.
                    if a.state.as_deref() != Some("queued") {
                        e.1.push(a.seq);
                    }
                    if a.state.as_deref().is_some_and(|s| FINAL.contains(&s)) {
                        e.2 = true;
                    }
                }
            }
            for (run, (mut frames_of_run, mut seqs, done)) in per_run {
                frames_of_run.sort_by_key(|f| f.0);
                let times: Vec<Instant> = frames_of_run.iter().map(|f| f.0).collect();
                pairs += 1;
                let (b, at) = busiest_window_at(&times, Duration::from_secs(1));
                if b > max {
                    let mut kinds: std::collections::BTreeMap<String, usize> = Default::default();
                    for f in &frames_of_run[at..at + b] {
                        *kinds.entry(f.1.to_string()).or_default() += 1;
                    }
                    busiest = Some(Busiest {
                        frames: b,
                        after_first_frame_s: times[at].duration_since(times[0]).as_secs_f64(),
                        before_last_frame_s: times[times.len() - 1]
                            .duration_since(times[at + b - 1])
                            .as_secs_f64(),
                        kinds,
                    });
                }
                max = max.max(b);
                if b > 10 {
                    over += 1;
                }
                if let (Some(a), Some(z)) = (times.first(), times.last()) {
                    let secs = z.duration_since(*a).as_secs_f64();
                    if secs > 1.0 {
                        rate_sum += times.len() as f64 / secs;
                        rate_n += 1;
                    }
                }
                seqs.dedup();
                gaps += seq_gaps(&seqs);
                if done {
                    *finals.entry(run).or_default() += 1;
                }
            }
        }
        RateFigures {
            max_per_run_per_s: max,
            pairs_over_10: over,
            pairs,
            mean_per_run_per_s: if rate_n > 0 {
                rate_sum / rate_n as f64
            } else {
                0.0
            },
            frames_per_admin_per_s: if span.as_secs_f64() > 0.0 && admins > 0 {
                frames as f64 / admins as f64 / span.as_secs_f64()
            } else {
                0.0
            },
            seq_gaps: gaps,
            busiest,
            final_states_received: finals
                .iter()
                .filter(|(run, n)| **n == admins && !ended_before.contains(*run))
                .count(),
            final_states_expected: run_ids.len() - ended_before.len(),
            ended_before_subscribing: ended_before.len(),
        }
    };
    let runs_view = rates(View::Runs, &[]);
    // File Management follows a run on its topic from the bulk assignment's answer on: a run that
    // had already ended (seen on the first runs view) cannot send it its final state.
    let ended_before: Vec<&str> = recorded
        .iter()
        .find(|(_, v, _)| *v == View::Runs)
        .map(|(_, _, first)| {
            first
                .iter()
                .filter(|a| {
                    a.progress
                        && a.at < subscribed_at
                        && a.state.as_deref().is_some_and(|s| FINAL.contains(&s))
                })
                .map(|a| a.subject.as_str())
                .collect()
        })
        .unwrap_or_default();
    let file_management = rates(View::Files, &ended_before);

    // Latency.
    let mut from_request = Vec::new();
    let mut from_response = Vec::new();
    let mut probes_measured = 0;
    let mut final_lat = Vec::new();
    let mut probe_finished = Vec::new();
    let mut earliest: HashMap<(&str, i64), Instant> = HashMap::new();
    for (_, _, arrivals) in &recorded {
        for a in arrivals.iter().filter(|a| a.progress) {
            let e = earliest.entry((a.subject.as_str(), a.seq)).or_insert(a.at);
            if a.at < *e {
                *e = a.at;
            }
        }
    }
    let mut spread = Vec::new();
    let mut admin_samples: Vec<(Vec<u64>, Vec<u64>)> = vec![Default::default(); args.admins];
    let mut per_probe: HashMap<&str, Vec<u64>> = HashMap::new();
    let (mut admin_delivery, mut admin_runs_delivery, mut admin_files_delivery) =
        (Vec::new(), Vec::new(), Vec::new());
    // Where the tail falls: the slowest admin-topic frames, with when they arrived.
    let first_arrival = recorded
        .iter()
        .flat_map(|(_, _, arrivals)| arrivals.iter().map(|a| a.at))
        .min();
    let mut slowest: Vec<SlowFrame> = Vec::new();
    for (admin, view, arrivals) in &recorded {
        for a in arrivals {
            if let Some(d) = a.admin_delivery {
                let us = d.as_micros() as u64;
                admin_delivery.push(us);
                match view {
                    View::Runs => admin_runs_delivery.push(us),
                    View::Files => admin_files_delivery.push(us),
                }
                slowest.push(SlowFrame {
                    delivery_ms: us as f64 / 1000.0,
                    arrived_after_s: first_arrival
                        .map_or(0.0, |f| a.at.duration_since(f).as_secs_f64()),
                    arrived_unix_ms: wall(a.at)
                        .duration_since(SystemTime::UNIX_EPOCH)
                        .map_or(0.0, |d| d.as_secs_f64() * 1000.0),
                    admin: *admin,
                    topic: match view {
                        View::Runs => "admin:runs",
                        View::Files => "admin:files",
                    },
                    progress: a.progress,
                });
            }
        }
    }
    slowest.sort_by(|a, b| b.delivery_ms.total_cmp(&a.delivery_ms));
    slowest.truncate(20);
    let admin_topic_delivery = Percentiles::of(admin_delivery);
    let admin_runs_delivery = Percentiles::of(admin_runs_delivery);
    let admin_files_delivery = Percentiles::of(admin_files_delivery);
    for (admin, view, arrivals) in &recorded {
        for a in arrivals.iter().filter(|a| a.progress) {
            if let Some(e) = earliest.get(&(a.subject.as_str(), a.seq)) {
                let us = a.at.duration_since(*e).as_micros() as u64;
                spread.push(us);
                admin_samples[*admin].1.push(us);
            }
            if *view == View::Runs
                && a.state.as_deref() == Some("cancelled")
                && let Some((sent, done)) = probes.get(&a.subject)
            {
                probes_measured += 1;
                from_request.push(a.at.saturating_duration_since(*sent).as_micros() as u64);
                from_response.push(a.at.saturating_duration_since(*done).as_micros() as u64);
                if let Some(t) = a.finished_at.as_deref().and_then(rfc3339) {
                    let d = wall(a.at).duration_since(t).unwrap_or(Duration::ZERO);
                    let us = d.as_micros() as u64;
                    probe_finished.push(us);
                    admin_samples[*admin].0.push(us);
                    per_probe.entry(a.subject.as_str()).or_default().push(us);
                }
            }
            if measured.contains(a.subject.as_str())
                && a.state.as_deref().is_some_and(|s| FINAL.contains(&s))
                && let Some(t) = a.finished_at.as_deref().and_then(rfc3339)
            {
                let d = wall(a.at).duration_since(t).unwrap_or(Duration::ZERO);
                final_lat.push(d.as_micros() as u64);
            }
        }
    }
    let per_admin: Vec<AdminLatency> = admin_samples
        .into_iter()
        .enumerate()
        .map(|(admin, (probe, spread))| AdminLatency {
            admin,
            probe_from_finished_at: Quantiles::of(probe),
            fanout_spread: Quantiles::of(spread),
        })
        .collect();
    // Per probe: the first and the last administrator's arrival after finishedAt. A probe late on
    // every socket was late before or at the publish (its transaction); a wide one, in delivery.
    let mut probe_detail: Vec<ProbeDetail> = per_probe
        .into_iter()
        .map(|(id, mut v)| {
            v.sort_unstable();
            let (sent, done) = probes[id];
            ProbeDetail {
                http_ms: ms(done.duration_since(sent).as_micros() as u64),
                first_ms: ms(v[0]),
                median_ms: ms(v[v.len() / 2]),
                last_ms: ms(v[v.len() - 1]),
            }
        })
        .collect();
    probe_detail.sort_by(|a, b| b.last_ms.total_cmp(&a.last_ms));
    let probe_from_request = Percentiles::of(from_request);
    let probe_from_response = Percentiles::of(from_response);
    let probe_from_finished_at = Percentiles::of(probe_finished);
    let final_from_finished_at = Percentiles::of(final_lat);
    let fanout_spread = Percentiles::of(spread);

    let mut targets = vec![
        Target {
            name: format!("{} runs in progress together", args.runs),
            target: format!("{}", args.runs),
            measured: format!("{max_running_together} (all together for {all_running_secs:.1} s)"),
            pass: max_running_together >= args.runs,
        },
        Target {
            name: "updates per run per second reaching each administrator, runs view".into(),
            target: "<= 10".into(),
            measured: format!(
                "busiest 1 s window {} ({} of {} pairs over 10)",
                runs_view.max_per_run_per_s, runs_view.pairs_over_10, runs_view.pairs
            ),
            pass: runs_view.max_per_run_per_s <= 10,
        },
        Target {
            name: "updates per run per second reaching each administrator, File Management".into(),
            target: "<= 10".into(),
            measured: format!(
                "busiest 1 s window {} ({} of {} pairs over 10)",
                file_management.max_per_run_per_s,
                file_management.pairs_over_10,
                file_management.pairs
            ),
            pass: file_management.max_per_run_per_s <= 10,
        },
        Target {
            name: "admin topics' delivery p99 (admin:runs and admin:files, every frame): the \
                   server's publish time to the frame's arrival"
                .into(),
            target: "< 50 ms".into(),
            measured: format!(
                "{:.2} ms (p50 {:.2}, max {:.2}, {} frames; admin:runs alone p99 {:.2} ms); a \
                 probe's cancel from the finishedAt its transaction wrote (includes the commit) \
                 p99 {:.2} ms over {} samples, completions from theirs {:.2} ms",
                admin_topic_delivery.p99_ms,
                admin_topic_delivery.p50_ms,
                admin_topic_delivery.max_ms,
                admin_topic_delivery.samples,
                admin_runs_delivery.p99_ms,
                probe_from_finished_at.p99_ms,
                probe_from_finished_at.samples,
                final_from_finished_at.p99_ms,
            ),
            pass: admin_topic_delivery.samples > 0 && admin_topic_delivery.p99_ms < 50.0,
        },
    ];
    for (name, r) in [
        ("runs view", &runs_view),
        ("File Management", &file_management),
    ] {
        targets.push(Target {
            name: format!("every run's final state reached every administrator, {name}"),
            target: format!("{}", r.final_states_expected),
            measured: format!("{} (sequence gaps {})", r.final_states_received, r.seq_gaps),
            pass: r.final_states_received == r.final_states_expected && r.seq_gaps == 0,
        });
    }
    let completed = final_states.get("completed").copied().unwrap_or(0);
    targets.push(Target {
        name: "runs completed".into(),
        target: format!("{}", args.runs),
        measured: format!("{final_states:?}"),
        pass: completed == args.runs,
    });
    let passed = targets.iter().all(|t| t.pass);
    let results = Results {
        scenario: "runs-live",
        started_unix,
        machine_cores: std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1),
        load_average_before: load_before,
        load_average_after: load_after,
        generator_nice: common::own_nice(),
        server_nice,
        run_idle: args.run_idle,
        runs: args.runs,
        rows_each: args.rows,
        file_mb,
        admins: args.admins,
        sockets: watchers.len(),
        upload_secs,
        bulk_assign_secs,
        all_running_after_secs,
        max_running_together,
        all_running_secs,
        all_ended_after_secs,
        final_states,
        runs_view,
        file_management,
        probe_from_request,
        probe_from_response,
        probe_from_finished_at,
        probe_http: Percentiles::of(probe_http),
        probes_measured,
        probes: probe_detail,
        per_admin,
        admin_topic_delivery,
        admin_runs_delivery,
        admin_files_delivery,
        slowest_admin_frames: slowest,
        final_from_finished_at,
        fanout_spread,
        server_rss_peak_mb,
        targets,
        passed,
    };
    let text = serde_json::to_string_pretty(&results)?;
    println!("{text}");
    if let Some(out) = &args.out {
        if let Some(parent) = out.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(out, &text)?;
    }
    Ok(!args.check || passed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busiest_window_counts_arrivals_within_one_second() {
        let t = Instant::now();
        let at = |ms: u64| t + Duration::from_millis(ms);
        // Eleven frames 100 ms apart span exactly 1 s: ten fit in a half-open window.
        let times: Vec<Instant> = (0..11).map(|k| at(k * 100)).collect();
        assert_eq!(busiest_window(&times, Duration::from_secs(1)), 10);
        let bunched: Vec<Instant> = [0, 100, 150, 160, 170, 900, 999].map(at).to_vec();
        assert_eq!(busiest_window(&bunched, Duration::from_secs(1)), 7);
        assert_eq!(busiest_window(&[], Duration::from_secs(1)), 0);
    }

    #[test]
    fn sequence_gaps_count_missing_numbers() {
        assert_eq!(seq_gaps(&[1, 2, 3, 4]), 0);
        assert_eq!(seq_gaps(&[1, 2, 4, 5, 9]), 2);
    }

    #[test]
    fn reads_the_server_timestamp() {
        let t = rfc3339("2026-11-25T12:00:00.123456Z").unwrap();
        let d = t.duration_since(SystemTime::UNIX_EPOCH).unwrap();
        assert_eq!(d.subsec_micros(), 123_456);
    }
}
