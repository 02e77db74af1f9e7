//! Collaborative editing: N editors on one document typing a few characters per second through
//! raw y-protocols sockets, the same load against Hocuspocus and the y-websocket reference server,
//! the cold load of a document with a long history, stored bytes per edit before and after
//! compaction, and repeated SIGKILL of the server while editors type.
//!
//! Propagation latency: every edit inserts a unique token (`[client:n]`) whose send time is
//! recorded; observer clients scan each incoming frame for tokens (the inserted text travels as
//! plain UTF-8 in a v1 update, whatever the server batches) and record the delay once per token.
//!
//! Run with `load-tests collab --help`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use bytes::Bytes;
use futures_util::{SinkExt, StreamExt};
use serde::Serialize;
use serde_json::json;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use yrs::encoding::write::Write;
use yrs::updates::decoder::Decode;
use yrs::{GetString, ReadTxn, StateVector, Text, Transact};

use crate::common::{self, Percentiles};

/// Options of the collaboration scenario.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct Args {
    /// The `capopt` binary (release build for figures).
    #[arg(long)]
    pub server_bin: PathBuf,
    /// Editors typing on one document.
    #[arg(long, default_value_t = 200)]
    pub editors: usize,
    /// Updates per second per editor.
    #[arg(long, default_value_t = 5.0)]
    pub rate: f64,
    /// Editors that also measure propagation latency (they read and scan every frame).
    #[arg(long, default_value_t = 10)]
    pub observers: usize,
    /// Seconds of typing.
    #[arg(long, default_value_t = 20)]
    pub seconds: u64,
    /// Edits in the long history for the cold-load figure.
    #[arg(long, default_value_t = 260_000)]
    pub history_edits: usize,
    /// Updates per stored batch when writing the history (one group commit).
    #[arg(long, default_value_t = 20)]
    pub history_batch: usize,
    /// The long history replayed for the stored-size and cold-load figures.
    #[arg(long, value_enum, default_value_t = HistoryTrace::Typing)]
    pub history_trace: HistoryTrace,
    /// Cold loads of the long-history document, each through a freshly started server.
    #[arg(long, default_value_t = 9)]
    pub cold_loads: usize,
    /// SIGKILL-and-restart rounds while editors type.
    #[arg(long, default_value_t = 3)]
    pub kill_rounds: usize,
    /// Also run the same typing load against Hocuspocus and @y/websocket-server
    /// (`load-tests/node`, after `npm ci` there).
    #[arg(long)]
    pub compare: bool,
    /// Run only the typing load against the reference servers.
    #[arg(long)]
    pub reference_only: bool,
    /// Directory of the Node reference servers.
    #[arg(long, default_value = "load-tests/node")]
    pub node_dir: PathBuf,
    /// PostgreSQL base URL: run capopt on a fresh database there instead of SQLite.
    #[arg(long)]
    pub database_url: Option<String>,
    /// Write the JSON results here too.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Exit non-zero when a target is missed.
    #[arg(long)]
    pub check: bool,
    /// Every N-th edit of each editor inserts a chart node into a section instead of typing (the
    /// report editor's attributes, 24 months of data kept in the node); the charts' propagation
    /// is reported apart from the typing's, in the same run. 0: typing only.
    #[arg(long, default_value_t = 0)]
    pub chart_every: u64,
}

/// Which server a socket talks to (they differ only in URL and framing).
#[derive(Debug, Clone)]
enum Target {
    /// `capopt`: `/api/collab/{doc}`, session cookie.
    Capopt { base: String, cookie: String },
    /// `@y/websocket-server`: `/{doc}`.
    YWebsocket { base: String },
    /// Hocuspocus: every message prefixed by the document name, a token first.
    Hocuspocus { base: String },
}

impl Target {
    fn url(&self, doc: &str) -> String {
        match self {
            Target::Capopt { base, .. } => {
                format!("{}/api/collab/{doc}", base.replacen("http", "ws", 1))
            }
            Target::YWebsocket { base } => format!("{}/{doc}", base.replacen("http", "ws", 1)),
            Target::Hocuspocus { base } => format!("{}/", base.replacen("http", "ws", 1)),
        }
    }

    fn wrap(&self, doc: &str, frame: &[u8]) -> Bytes {
        match self {
            Target::Hocuspocus { .. } => {
                let mut buf = Vec::with_capacity(frame.len() + doc.len() + 2);
                buf.write_string(doc);
                buf.extend_from_slice(frame);
                Bytes::from(buf)
            }
            _ => Bytes::copy_from_slice(frame),
        }
    }

    /// The y-protocols message inside a received frame.
    fn unwrap<'a>(&self, frame: &'a [u8]) -> Option<&'a [u8]> {
        match self {
            Target::Hocuspocus { .. } => {
                // varUint length, then the name's bytes.
                let (mut len, mut shift, mut i) = (0usize, 0u32, 0usize);
                loop {
                    let b = *frame.get(i)?;
                    len |= usize::from(b & 0x7f) << shift;
                    i += 1;
                    if b & 0x80 == 0 {
                        break;
                    }
                    shift += 7;
                    if shift > 28 {
                        return None;
                    }
                }
                frame.get(i + len..)
            }
            _ => Some(frame),
        }
    }
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn open(target: &Target, doc: &str) -> anyhow::Result<Ws> {
    let mut req = target.url(doc).into_client_request()?;
    if let Target::Capopt { cookie, .. } = target {
        req.headers_mut().insert("cookie", cookie.parse()?);
    }
    let (mut ws, _) = tokio_tungstenite::connect_async(req).await?;
    if let Target::Hocuspocus { .. } = target {
        // Auth message: [2 Auth, 0 Token, token]; the server answers Authenticated.
        let mut auth = Vec::new();
        auth.write_var(2u32);
        auth.write_var(0u32);
        auth.write_string("load-test");
        ws.send(Message::Binary(target.wrap(doc, &auth))).await?;
    }
    Ok(ws)
}

/// Shared measurement state of one typing run.
#[derive(Default)]
struct Meter {
    sent: Mutex<HashMap<u64, Instant>>,
    latencies_us: Mutex<Vec<u64>>,
    /// Propagation of the chart insertions (their tokens numbered from [`CHART_TOKENS`]).
    chart_latencies_us: Mutex<Vec<u64>>,
    charts: AtomicU64,
    edits: AtomicU64,
    errors: AtomicU64,
}

/// A chart's token is numbered from here, a typed token below.
const CHART_TOKENS: u64 = 1_000_000_000;

/// A chart node as the report editor writes it (every attribute a string, its last rows kept
/// in the node), titled with `token` so that its arrival can be timed.
fn insert_chart(txn: &mut yrs::TransactionMut<'_>, section: &yrs::XmlFragmentRef, token: &str) {
    use yrs::{Xml, XmlElementPrelim, XmlFragment};
    let rows: Vec<String> = (1..=24)
        .map(|m| {
            format!(
                "{{\"Label\":\"2025-{m:02}\",\"Savings\":{}}}",
                1_250_000 + m * 37_500
            )
        })
        .collect();
    let chart = section.push_back(txn, XmlElementPrelim::empty("chart"));
    for (k, v) in [
        ("chartId", format!("chart-{token}")),
        ("chartType", "bar".to_string()),
        ("title", format!("Savings by month {token}")),
        ("xColumn", "Label".to_string()),
        ("yColumns", "[\"Savings\"]".to_string()),
        ("rows", format!("[{}]", rows.join(","))),
        (
            "source",
            "{\"kind\":\"client\",\"dataset\":\"savings_by_month\"}".to_string(),
        ),
        ("width", "600".to_string()),
        ("height", "300".to_string()),
        ("fontSize", "12".to_string()),
        ("fontFamily", "Inter".to_string()),
        ("colorScheme", "banking".to_string()),
        ("showLegend", "true".to_string()),
        ("showGrid", "true".to_string()),
    ] {
        chart.insert_attribute(txn, k, v);
    }
}

fn token_key(client: u64, n: u64) -> u64 {
    (client << 32) | n
}

/// Finds every `[c:n]` token in a frame.
fn scan_tokens(frame: &[u8], mut f: impl FnMut(u64)) {
    let mut i = 0;
    while i < frame.len() {
        if frame[i] == b'[' {
            let mut j = i + 1;
            let mut c: u64 = 0;
            let mut n: u64 = 0;
            let mut seen_colon = false;
            let mut digits = 0;
            while j < frame.len() && j - i < 24 {
                match frame[j] {
                    d @ b'0'..=b'9' => {
                        if seen_colon {
                            n = n * 10 + u64::from(d - b'0')
                        } else {
                            c = c * 10 + u64::from(d - b'0')
                        }
                        digits += 1;
                    }
                    b':' if !seen_colon && digits > 0 => seen_colon = true,
                    b']' if seen_colon && digits > 1 => {
                        f(token_key(c, n));
                        break;
                    }
                    _ => break,
                }
                j += 1;
            }
        }
        i += 1;
    }
}

#[allow(clippy::too_many_arguments)]
/// One editor: connects, syncs, then types `[id:n]` tokens at `rate` per second until `stop`.
async fn editor(
    target: Target,
    doc_id: String,
    id: u64,
    rate: f64,
    observer: bool,
    chart_every: u64,
    meter: Arc<Meter>,
    stop: Arc<AtomicBool>,
    go: Arc<AtomicBool>,
    synced_tx: tokio::sync::mpsc::UnboundedSender<()>,
) -> anyhow::Result<()> {
    let ws = open(&target, &doc_id).await?;
    let (mut tx, mut rx) = ws.split();
    let doc = yrs::Doc::with_client_id(id + 1);
    let text = doc.get_or_insert_text("t");
    let section = doc.get_or_insert_xml_fragment("section:load");
    let step1 = collab::protocol::sync_step1(&doc.transact().state_vector());
    tx.send(Message::Binary(target.wrap(&doc_id, &step1)))
        .await?;
    // Reader: answers SyncStep1, notes the first SyncStep2, measures tokens (observers only).
    let reader_target = target.clone();
    let reader_meter = meter.clone();
    let (reply_tx, mut reply_rx) = tokio::sync::mpsc::unbounded_channel::<Bytes>();
    let reader = tokio::spawn(async move {
        let mut synced = false;
        let mut seen: std::collections::HashSet<u64> = std::collections::HashSet::new();
        while let Some(msg) = rx.next().await {
            let Ok(Message::Binary(frame)) = msg else {
                continue;
            };
            let Some(inner) = reader_target.unwrap(&frame) else {
                continue;
            };
            match inner {
                [0 | 4, 0, ..] => {
                    // The server's SyncStep1: this editor's own edits are already sent.
                    let _ = reply_tx.send(collab::protocol::sync_step2(&[0, 0]));
                }
                [0 | 4, 1, ..] if !synced => {
                    synced = true;
                    let _ = synced_tx.send(());
                }
                _ => {}
            }
            if observer && matches!(inner, [0 | 4, 1 | 2, ..]) {
                let now = Instant::now();
                let sent = reader_meter.sent.lock().expect("meter");
                let (mut lat, mut charts) = (Vec::new(), Vec::new());
                scan_tokens(inner, |k| {
                    if (k >> 32) != id
                        && seen.insert(k)
                        && let Some(t) = sent.get(&k)
                    {
                        let us = now.duration_since(*t).as_micros() as u64;
                        if k & 0xffff_ffff >= CHART_TOKENS {
                            charts.push(us);
                        } else {
                            lat.push(us);
                        }
                    }
                });
                drop(sent);
                if !lat.is_empty() {
                    reader_meter.latencies_us.lock().expect("meter").extend(lat);
                }
                if !charts.is_empty() {
                    reader_meter
                        .chart_latencies_us
                        .lock()
                        .expect("meter")
                        .extend(charts);
                }
            }
        }
    });
    // Everyone starts typing once every editor has synced.
    while !go.load(Ordering::Relaxed) {
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(10)) => {}
            Some(reply) = reply_rx.recv() => {
                let _ = tx.send(Message::Binary(target.wrap(&doc_id, &reply))).await;
            }
        }
    }
    let period = Duration::from_secs_f64(1.0 / rate);
    // Spread the editors over the first period.
    tokio::time::sleep(period.mul_f64((id % 97) as f64 / 97.0)).await;
    let mut tick = tokio::time::interval(period);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut n: u64 = 0;
    while !stop.load(Ordering::Relaxed) {
        tokio::select! {
            _ = tick.tick() => {
                n += 1;
                let chart = chart_every > 0 && n.is_multiple_of(chart_every);
                let k = if chart { CHART_TOKENS + n } else { n };
                let token = format!("[{id}:{k}]");
                let update = {
                    let mut txn = doc.transact_mut();
                    if chart {
                        insert_chart(&mut txn, &section, &token);
                    } else {
                        let len = text.len(&txn);
                        text.insert(&mut txn, len, &token);
                    }
                    txn.encode_update_v1()
                };
                let frame = target.wrap(&doc_id, &collab::protocol::update(&update));
                meter.sent.lock().expect("meter").insert(token_key(id, k), Instant::now());
                if chart {
                    meter.charts.fetch_add(1, Ordering::Relaxed);
                }
                if tx.send(Message::Binary(frame)).await.is_err() {
                    meter.errors.fetch_add(1, Ordering::Relaxed);
                    break;
                }
                meter.edits.fetch_add(1, Ordering::Relaxed);
            }
            Some(reply) = reply_rx.recv() => {
                let _ = tx.send(Message::Binary(target.wrap(&doc_id, &reply))).await;
            }
        }
    }
    // Let the last edits arrive before closing.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let _ = tx.send(Message::Close(None)).await;
    reader.abort();
    Ok(())
}

/// Waits until a process has used no CPU for two consecutive 50 ms polls (at most 3 s).
async fn settle(pid: u32) {
    let mut last = cpu_seconds(pid).unwrap_or(0.0);
    let mut quiet = 0;
    let deadline = Instant::now() + Duration::from_secs(3);
    while quiet < 2 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let now = cpu_seconds(pid).unwrap_or(0.0);
        quiet = if now == last { quiet + 1 } else { 0 };
        last = now;
    }
}

/// Nanoseconds all threads of a process have spent on a CPU so far (first field of each
/// thread's `schedstat`), finer than the clock ticks of `stat`.
fn threads_on_cpu_ns(pid: u32) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

/// CPU seconds (user + system) of a process so far.
pub(crate) fn cpu_seconds(pid: u32) -> anyhow::Result<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    let after = stat.rsplit_once(')').context("bad stat")?.1;
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 =
        f.get(11).context("utime")?.parse::<f64>()? + f.get(12).context("stime")?.parse::<f64>()?;
    Ok(ticks / 100.0)
}

pub(crate) fn peak_rss_kib(pid: u32) -> anyhow::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .context("no VmHWM")?;
    Ok(line
        .split_whitespace()
        .nth(1)
        .context("bad VmHWM")?
        .parse()?)
}

/// Figures of one typing run.
#[derive(Debug, Serialize)]
pub(crate) struct TypingFigures {
    pub server: String,
    pub editors: usize,
    pub rate_per_editor: f64,
    pub seconds: u64,
    pub edits_sent: u64,
    pub send_errors: u64,
    pub propagation: Percentiles,
    /// Chart insertions sent (`--chart-every`), included in `edits_sent`.
    pub charts_sent: u64,
    /// Their propagation to the observers, in the same run (`None` without charts).
    pub chart_propagation: Option<Percentiles>,
    /// Deliveries expected at the observers (tokens of other editors) that were measured.
    pub delivered_share: f64,
    pub server_cpu_percent: f64,
    pub server_rss_mib: f64,
    pub server_peak_rss_mib: f64,
}

async fn typing_run(
    label: &str,
    target: Target,
    doc_id: &str,
    pid: u32,
    args: &Args,
) -> anyhow::Result<TypingFigures> {
    let meter = Arc::new(Meter::default());
    let stop = Arc::new(AtomicBool::new(false));
    let go = Arc::new(AtomicBool::new(false));
    let (synced_tx, mut synced_rx) = tokio::sync::mpsc::unbounded_channel();
    let mut tasks = Vec::new();
    for i in 0..args.editors {
        let observer = i < args.observers;
        tasks.push(tokio::spawn(editor(
            target.clone(),
            doc_id.to_string(),
            i as u64,
            args.rate,
            observer,
            args.chart_every,
            meter.clone(),
            stop.clone(),
            go.clone(),
            synced_tx.clone(),
        )));
        if i % 20 == 19 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    drop(synced_tx);
    let mut synced = 0;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while synced < args.editors {
        match tokio::time::timeout_at(deadline, synced_rx.recv()).await {
            Ok(Some(())) => synced += 1,
            _ => bail!("{label}: only {synced} of {} editors synced", args.editors),
        }
    }
    go.store(true, Ordering::Relaxed);
    // One period for every editor to get going, then the measured window.
    tokio::time::sleep(Duration::from_secs_f64(1.0 / args.rate)).await;
    let cpu0 = cpu_seconds(pid)?;
    let t0 = Instant::now();
    tokio::time::sleep(Duration::from_secs(args.seconds)).await;
    stop.store(true, Ordering::Relaxed);
    let elapsed = t0.elapsed().as_secs_f64();
    let cpu1 = cpu_seconds(pid)?;
    let rss = common::rss_kib(pid)?;
    let peak = peak_rss_kib(pid)?;
    for t in tasks {
        if let Ok(Err(e)) = t.await {
            eprintln!("{label}: editor failed: {e:#}");
            meter.errors.fetch_add(1, Ordering::Relaxed);
        }
    }
    let lat = std::mem::take(&mut *meter.latencies_us.lock().expect("meter"));
    let charts = std::mem::take(&mut *meter.chart_latencies_us.lock().expect("meter"));
    let charts_sent = meter.charts.load(Ordering::Relaxed);
    let edits = meter.edits.load(Ordering::Relaxed);
    // Every observer should see every edit of the other editors.
    let observers = args.observers.min(args.editors) as f64;
    let expected = edits as f64 * observers * (1.0 - 1.0 / args.editors as f64);
    let figures = TypingFigures {
        server: label.to_string(),
        editors: args.editors,
        rate_per_editor: args.rate,
        seconds: args.seconds,
        edits_sent: edits,
        send_errors: meter.errors.load(Ordering::Relaxed),
        delivered_share: if expected > 0.0 {
            (lat.len() + charts.len()) as f64 / expected
        } else {
            0.0
        },
        charts_sent,
        chart_propagation: (charts_sent > 0).then(|| Percentiles::of(charts)),
        propagation: Percentiles::of(lat),
        server_cpu_percent: (cpu1 - cpu0) / elapsed * 100.0,
        server_rss_mib: rss as f64 / 1024.0,
        server_peak_rss_mib: peak as f64 / 1024.0,
    };
    eprintln!("{label}: {}", serde_json::to_string(&figures)?);
    Ok(figures)
}

/// A Node reference server started from `load-tests/node`.
pub(crate) struct NodeServer {
    pub(crate) child: tokio::process::Child,
    pub(crate) base: String,
    pub(crate) pid: u32,
}

pub(crate) async fn start_node(dir: &std::path::Path, script: &str) -> anyhow::Result<NodeServer> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let mut child = tokio::process::Command::new("node")
        .arg(script)
        .current_dir(dir)
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .with_context(|| {
            format!(
                "node {script} in {} (run npm ci there first)",
                dir.display()
            )
        })?;
    let pid = child.id().context("node exited")?;
    let base = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(30);
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        if Instant::now() > deadline {
            let _ = child.kill().await;
            bail!("node {script} did not listen");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Ok(NodeServer { child, base, pid })
}

/// The typing load against Hocuspocus and the y-websocket reference server (a server that fails
/// to start or to serve is reported and skipped).
async fn reference_runs(args: &Args) -> Vec<TypingFigures> {
    let mut runs = Vec::new();
    for (label, script) in [
        ("hocuspocus", "hocuspocus.mjs"),
        ("y-websocket-server", "y-websocket-server.mjs"),
    ] {
        let node = match start_node(&args.node_dir, script).await {
            Ok(n) => n,
            Err(e) => {
                eprintln!("{label}: {e:#}");
                continue;
            }
        };
        let target = if label == "hocuspocus" {
            Target::Hocuspocus {
                base: node.base.clone(),
            }
        } else {
            Target::YWebsocket {
                base: node.base.clone(),
            }
        };
        match typing_run(label, target, "load-test-doc", node.pid, args).await {
            Ok(f) => runs.push(f),
            Err(e) => eprintln!("{label}: {e:#}"),
        }
        drop(node.child);
    }
    runs
}

/// Stored-size and cold-load figures of a long history.
#[derive(Debug, Serialize)]
pub(crate) struct HistoryFigures {
    pub trace: HistoryTrace,
    pub edits: usize,
    pub batch: usize,
    pub final_text_chars: usize,
    pub log_rows: i64,
    pub log_bytes_per_edit: f64,
    pub snapshot_bytes: i64,
    pub snapshot_bytes_per_edit: f64,
    pub build_seconds: f64,
    /// Reading and replaying the uncompacted log in process (no server).
    pub replay_log_ms: f64,
    /// Reading and loading the compacted document in process (snapshot + empty tail).
    pub load_snapshot_ms: f64,
    /// From opening the socket to the full SyncStep2, on a freshly started server (each run).
    pub cold_sync_ms: Vec<f64>,
    /// CPU time the server's threads spent during each cold load (`/proc/<pid>/task/*/schedstat`):
    /// the work done, whatever else the machine was doing.
    pub cold_sync_server_cpu_ms: Vec<f64>,
    /// Median of `cold_sync_ms`.
    pub cold_sync_p50_ms: f64,
}

/// Which synthetic history the long-history figures replay.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum HistoryTrace {
    /// `collab::traces::typing_trace`: a writer typing a report in the product's schema as
    /// Tiptap writes it, calibrated on the B4 trace's totals (insertions, deletions, final
    /// length); a new client id every 3,000-12,000 edits.
    Typing,
    /// One Y.Text, 8 % backspaces and 2 % jumps to a random place, one client id: random
    /// backspaces inside typed runs split Yjs items far more than typing does.
    Random,
}

/// Appends the history to `doc_id` in batches of `history_batch` (one group commit each, as
/// the hub writes them) and returns the visible characters at the end and the seconds taken.
async fn build_history(
    store: &server::docs::SqlDocStore,
    doc_id: &str,
    args: &Args,
) -> anyhow::Result<(usize, f64)> {
    let t0 = Instant::now();
    let stored = store.load(doc_id).await?.context("document missing")?;
    let doc = collab::doc_from_stored(&stored)?;
    let updates = match args.history_trace {
        HistoryTrace::Typing => collab::traces::typing_trace(args.history_edits, 7),
        HistoryTrace::Random => random_trace(&doc, args.history_edits),
    };
    for batch in updates.chunks(args.history_batch.max(1)) {
        if args.history_trace == HistoryTrace::Typing {
            let mut txn = doc.transact_mut();
            for u in batch {
                txn.apply_update(yrs::Update::decode_v1(u)?)?;
            }
        }
        store.append(doc_id, batch).await?;
    }
    Ok((
        collab::traces::visible_chars(&doc),
        t0.elapsed().as_secs_f64(),
    ))
}

/// The random history (see [`HistoryTrace::Random`]), typed into `doc`'s text `t`.
fn random_trace(doc: &yrs::Doc, edits: usize) -> Vec<Bytes> {
    let text = doc.get_or_insert_text("t");
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut rand = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut out = Vec::with_capacity(edits);
    let mut cursor: u32 = 0;
    let letters = b"abcdefghijklmnopqrstuvwxyz     ";
    for _ in 0..edits {
        let mut txn = doc.transact_mut();
        let len = text.len(&txn);
        let r = rand();
        if r % 100 < 8 && cursor > 0 && len > 0 {
            cursor -= 1;
            text.remove_range(&mut txn, cursor.min(len - 1), 1);
        } else {
            if r % 100 > 97 {
                cursor = (rand() % u64::from(len + 1)) as u32;
            }
            cursor = cursor.min(len);
            let ch = letters[(r >> 8) as usize % letters.len()] as char;
            text.insert(&mut txn, cursor, &ch.to_string());
            cursor += 1;
        }
        out.push(Bytes::from(txn.encode_update_v1()));
    }
    out
}

/// Time from opening a socket to the full SyncStep2.
async fn cold_sync(target: &Target, doc_id: &str) -> anyhow::Result<f64> {
    let t0 = Instant::now();
    let mut ws = open(target, doc_id).await?;
    ws.send(Message::Binary(target.wrap(
        doc_id,
        &collab::protocol::sync_step1(&StateVector::default()),
    )))
    .await?;
    while let Some(msg) = tokio::time::timeout(Duration::from_secs(30), ws.next()).await? {
        if let Message::Binary(frame) = msg?
            && let Some([0, 1, ..]) = target.unwrap(&frame)
        {
            let ms = t0.elapsed().as_secs_f64() * 1000.0;
            let _ = ws.close(None).await;
            return Ok(ms);
        }
    }
    bail!("socket closed before SyncStep2")
}

/// Figures of the SIGKILL rounds.
#[derive(Debug, Serialize)]
pub(crate) struct KillFigures {
    pub rounds: usize,
    pub editors: usize,
    pub edits_sent: u64,
    pub edits_stored: u64,
    pub edits_lost: u64,
}

/// Editors that keep typing across SIGKILL and restart of the server, reconnecting and
/// resynchronising (SyncStep1/SyncStep2 both ways, as y-websocket does); at the end the stored
/// document must hold every token they typed.
async fn kill_rounds(
    bin: &std::path::Path,
    data_dir: &std::path::Path,
    db_url: Option<&str>,
    doc_id: &str,
    session: &common::Session,
    rounds: usize,
) -> anyhow::Result<KillFigures> {
    let editors = 4u64;
    let mut inst = common::start_instance(bin, data_dir, db_url, None).await?;
    let docs: Vec<yrs::Doc> = (0..editors)
        .map(|i| yrs::Doc::with_client_id(1000 + i))
        .collect();
    let mut sent = 0u64;
    for round in 0..=rounds {
        let target = Target::Capopt {
            base: inst.base.clone(),
            cookie: session.cookie.clone(),
        };
        // Each editor reconnects: sends its state vector and everything it has (the server keeps
        // what it lacks), then types for a while.
        let mut sockets = Vec::new();
        for d in &docs {
            let mut ws = open(&target, doc_id).await?;
            ws.send(Message::Binary(Bytes::from(
                collab::protocol::sync_step1(&d.transact().state_vector()).to_vec(),
            )))
            .await?;
            let full = d
                .transact()
                .encode_state_as_update_v1(&StateVector::default());
            ws.send(Message::Binary(collab::protocol::update(&full)))
                .await?;
            sockets.push(ws);
        }
        let typing_ms = if round == rounds {
            300
        } else {
            400 + 150 * round as u64
        };
        let t0 = Instant::now();
        let mut n = 0u64;
        while t0.elapsed() < Duration::from_millis(typing_ms) {
            for (i, (d, ws)) in docs.iter().zip(sockets.iter_mut()).enumerate() {
                n += 1;
                let text = d.get_or_insert_text("probe");
                let update = {
                    let mut txn = d.transact_mut();
                    let len = text.len(&txn);
                    text.insert(&mut txn, len, &format!("[{}:{}]", i, sent + n));
                    txn.encode_update_v1()
                };
                // A send may fail once the server is gone: the edit stays in the local document
                // and is resent at the next reconnection.
                let _ = ws
                    .send(Message::Binary(collab::protocol::update(&update)))
                    .await;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        sent += n;
        if round < rounds {
            // SIGKILL mid-typing: no shutdown, no flush.
            let pid = inst.pid;
            let _ = std::process::Command::new("kill")
                .arg("-9")
                .arg(pid.to_string())
                .status();
            let _ = inst.child.wait().await;
            drop(sockets);
            inst = common::start_instance(bin, data_dir, db_url, None).await?;
        } else {
            tokio::time::sleep(Duration::from_millis(500)).await;
            drop(sockets);
        }
    }
    // What a fresh reader gets from the restarted server.
    let target = Target::Capopt {
        base: inst.base.clone(),
        cookie: session.cookie.clone(),
    };
    let mut ws = open(&target, doc_id).await?;
    ws.send(Message::Binary(collab::protocol::sync_step1(
        &StateVector::default(),
    )))
    .await?;
    let reader = yrs::Doc::new();
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await?
            .context("closed")??;
        if let Message::Binary(frame) = msg
            && let [0, 1, ..] = &frame[..]
        {
            for m in collab::protocol::decode_frame(&frame)? {
                if let collab::protocol::Inbound::SyncStep2(u) = m {
                    use yrs::updates::decoder::Decode;
                    reader
                        .transact_mut()
                        .apply_update(yrs::Update::decode_v1(&u)?)?;
                }
            }
            break;
        }
    }
    let text = reader
        .get_or_insert_text("probe")
        .get_string(&reader.transact());
    let mut stored = 0u64;
    scan_tokens(text.as_bytes(), |_| stored += 1);
    let _ = inst.child.kill().await;
    Ok(KillFigures {
        rounds,
        editors: editors as usize,
        edits_sent: sent,
        edits_stored: stored,
        edits_lost: sent.saturating_sub(stored),
    })
}

/// Runs the scenario; `Ok(false)` when `--check` found a missed target.
pub(crate) async fn run(args: Args) -> anyhow::Result<bool> {
    if args.reference_only {
        let runs = reference_runs(&args).await;
        let text = serde_json::to_string_pretty(&json!({ "scenario": "collab", "typing": runs }))?;
        println!("{text}");
        if let Some(out) = &args.out {
            std::fs::write(out, &text)?;
        }
        return Ok(true);
    }
    let dir = common::TempDir::new("capopt-load-collab")?;
    let (db_url, pg_name) = match &args.database_url {
        Some(base) => {
            let (url, name) = common::fresh_postgres(base).await?;
            (Some(url), Some(name))
        }
        None => (None, None),
    };
    common::prepare_database(&dir.0, db_url.clone(), 0).await?;

    // 1. Typing load on capopt.
    let inst = common::start_instance(&args.server_bin, &dir.0, db_url.as_deref(), None).await?;
    let session = common::Session::login(&inst.base, "user@bank-a.example").await?;
    let create = |name: &'static str| {
        let s = session.clone();
        async move {
            let (st, _, body) = s.post("/api/reports", &json!({ "name": name })).await?;
            if st != 201 {
                bail!("create report: HTTP {st} {body}");
            }
            Ok::<String, anyhow::Error>(body["id"].as_str().context("report id")?.to_string())
        }
    };
    let typing_doc = create("Typing load").await?;
    let history_doc = create("Long history").await?;
    let kill_doc = create("Kill rounds").await?;
    let target = Target::Capopt {
        base: inst.base.clone(),
        cookie: session.cookie.clone(),
    };
    let mut runs = vec![typing_run("capopt", target, &typing_doc, inst.pid, &args).await?];
    let typing_sizes = {
        let db =
            server::db::Db::connect(&db_url.clone().unwrap_or_else(|| {
                format!("sqlite://{}?mode=rwc", dir.0.join("capopt.db").display())
            }))
            .await?;
        let sizes = server::docs::SqlDocStore::new(&db)
            .sizes(&typing_doc)
            .await?;
        db.pool.close().await;
        sizes
    };
    drop(inst);

    // 2. Long history: stored bytes per edit, then cold loads.
    let db = server::db::Db::connect(
        &db_url
            .clone()
            .unwrap_or_else(|| format!("sqlite://{}?mode=rwc", dir.0.join("capopt.db").display())),
    )
    .await?;
    let store = server::docs::SqlDocStore::new(&db);
    let (chars, build_seconds) = build_history(&store, &history_doc, &args).await?;
    let before = store.sizes(&history_doc).await?.context("history sizes")?;
    let t0 = Instant::now();
    let stored = store.load(&history_doc).await?.context("history")?;
    let doc = collab::doc_from_stored(&stored)?;
    let replay_log_ms = t0.elapsed().as_secs_f64() * 1000.0;
    // Compacted as the hub compacts (v2 when it round-trips, else v1).
    let (snapshot, _) = collab::encode_snapshot(&doc);
    store
        .compact(&history_doc, &snapshot, stored.last_seq())
        .await?;
    let after = store.sizes(&history_doc).await?.context("history sizes")?;
    let t0 = Instant::now();
    let compacted = store.load(&history_doc).await?.context("history")?;
    let _doc = collab::doc_from_stored(&compacted)?;
    let load_snapshot_ms = t0.elapsed().as_secs_f64() * 1000.0;
    db.pool.close().await;
    let mut cold_sync_ms = Vec::new();
    let mut cold_sync_server_cpu_ms = Vec::new();
    for _ in 0..args.cold_loads {
        let inst =
            common::start_instance(&args.server_bin, &dir.0, db_url.as_deref(), None).await?;
        let target = Target::Capopt {
            base: inst.base.clone(),
            cookie: session.cookie.clone(),
        };
        // A cold load happens on a running server: let this one finish starting up first.
        settle(inst.pid).await;
        let cpu0 = threads_on_cpu_ns(inst.pid);
        cold_sync_ms.push(cold_sync(&target, &history_doc).await?);
        cold_sync_server_cpu_ms.push((threads_on_cpu_ns(inst.pid) - cpu0) as f64 / 1e6);
        drop(inst);
    }
    let history = HistoryFigures {
        trace: args.history_trace,
        edits: args.history_edits,
        batch: args.history_batch,
        final_text_chars: chars,
        log_rows: before.log_rows,
        log_bytes_per_edit: before.log_bytes as f64 / before.log_entries.max(1) as f64,
        snapshot_bytes: after.snapshot_bytes,
        snapshot_bytes_per_edit: after.snapshot_bytes as f64 / args.history_edits.max(1) as f64,
        build_seconds,
        replay_log_ms,
        load_snapshot_ms,
        cold_sync_p50_ms: Percentiles::of(
            cold_sync_ms.iter().map(|ms| (ms * 1e3) as u64).collect(),
        )
        .p50_ms,
        cold_sync_ms,
        cold_sync_server_cpu_ms,
    };
    eprintln!("history: {}", serde_json::to_string(&history)?);

    // 3. SIGKILL rounds.
    let kills = kill_rounds(
        &args.server_bin,
        &dir.0,
        db_url.as_deref(),
        &kill_doc,
        &session,
        args.kill_rounds,
    )
    .await?;
    eprintln!("kill rounds: {}", serde_json::to_string(&kills)?);

    // 4. The same typing load against the reference servers.
    if args.compare {
        runs.extend(reference_runs(&args).await);
    }

    if let (Some(base), Some(name)) = (&args.database_url, &pg_name) {
        common::drop_postgres(base, name).await;
    }
    let ours = &runs[0];
    let checks = json!({
        "p99_propagation_le_100ms": ours.propagation.p99_ms <= 100.0,
        "all_edits_delivered": ours.delivered_share >= 0.999,
        "zero_edits_lost_across_sigkill": kills.edits_lost == 0,
        "cold_load_p50_le_30ms": history.cold_sync_p50_ms <= 30.0,
        "log_bytes_per_edit_le_20": history.log_bytes_per_edit <= 20.0,
        "snapshot_bytes_per_edit_lt_1": history.snapshot_bytes_per_edit < 1.0,
    });
    let ok = checks
        .as_object()
        .map(|m| m.values().all(|v| v.as_bool() == Some(true)))
        .unwrap_or(false);
    let result = json!({
        "scenario": "collab",
        "database": if args.database_url.is_some() { "postgres" } else { "sqlite" },
        "typing": runs,
        "typing_doc_after_run": typing_sizes.map(|s| json!({"log_rows": s.log_rows, "log_entries": s.log_entries, "log_bytes": s.log_bytes, "snapshot_bytes": s.snapshot_bytes, "last_seq": s.last_seq})),
        "history": history,
        "kill_rounds": kills,
        "checks": checks,
    });
    let text = serde_json::to_string_pretty(&result)?;
    println!("{text}");
    if let Some(out) = &args.out {
        if let Some(parent) = out.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(out, &text)?;
    }
    Ok(ok || !args.check)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_found_in_any_bytes() {
        let mut found = Vec::new();
        scan_tokens(b"\x00\x02[12:345]xx[a:1][3:][7:8]", |k| found.push(k));
        assert_eq!(found, vec![token_key(12, 345), token_key(7, 8)]);
    }

    #[test]
    fn hocuspocus_frames_carry_the_document_name() {
        let t = Target::Hocuspocus {
            base: "http://x".into(),
        };
        let framed = t.wrap("doc-1", &[0, 2, 1, 9]);
        assert_eq!(t.unwrap(&framed), Some(&[0u8, 2, 1, 9][..]));
        let plain = Target::YWebsocket {
            base: "http://x".into(),
        };
        assert_eq!(plain.unwrap(&[1, 2]), Some(&[1u8, 2][..]));
    }
}
