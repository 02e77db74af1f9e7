//! The task that owns one loaded document (its `Doc` and awareness). Everything that touches
//! the document goes through its command queue; no lock is held across an await.
//!
//! Life cycle: subscribe to the fan-out channel (if any), load from the store (a failed load
//! refuses every waiting connection and unloads; it never proceeds with an empty document and
//! never writes), serve, and, when no connection is left for `idle_unload_after` (or on
//! shutdown or a persistent store failure), flush pending writes, leave the registry and stop.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use futures_util::future::BoxFuture;
use futures_util::stream::FuturesUnordered;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use yrs::block::ClientID;
use yrs::sync::{Awareness, AwarenessUpdate};
use yrs::updates::decoder::Decode;
use yrs::updates::encoder::Encode;
use yrs::{Doc, ReadTxn, StateVector, Transact, Update};

use crate::close::CloseReason;
use crate::fanout::{Body, Envelope, FanoutError, FanoutStream};
use crate::hub::{Access, Inner};
use crate::protocol::{self, Inbound};
use crate::store::{SnapshotEncoding, StoreError, StoredDoc};

/// Why a command could not be served by this task.
#[derive(Debug)]
pub(crate) enum JoinError {
    /// The task was unloading: send the command again (a fresh task will load the document).
    Retry,
    /// The document cannot be served (not found, load failed...).
    Refused(CloseReason),
}

/// Commands sent to a document task. Kept to 24 bytes (larger payloads boxed): tokio's
/// bounded channel allocates its slots 32 at a time, and every loaded document has one.
pub(crate) enum Cmd {
    Join(Box<Join>),
    Inbound {
        conn: u64,
        msg: Box<Inbound>,
    },
    Leave {
        conn: u64,
    },
    /// The server changed what a connection may do (a role change while it is open).
    SetAccess {
        conn: u64,
        access: Access,
    },
    State(oneshot::Sender<Result<Vec<u8>, JoinError>>),
    ServerUpdate(Box<ServerUpdate>),
}

/// A connection joining a document.
pub(crate) struct Join {
    pub conn: u64,
    pub access: Access,
    pub out: Outbound,
    pub close: oneshot::Sender<CloseReason>,
    pub ack: oneshot::Sender<Result<(), JoinError>>,
}

/// An edit made by the server itself.
pub(crate) struct ServerUpdate {
    pub update: Bytes,
    pub reply: oneshot::Sender<Result<(), JoinError>>,
}

/// The sending side of a connection's bounded outbound queue, with its byte budget.
#[derive(Clone)]
pub(crate) struct Outbound {
    pub tx: mpsc::Sender<Bytes>,
    pub queued: Arc<AtomicUsize>,
    pub max_bytes: usize,
}

impl Outbound {
    /// Queues a frame without waiting. Fails when the queue is full (frames or bytes) or the
    /// connection is gone.
    pub(crate) fn push(&self, frame: Bytes) -> Result<(), ()> {
        let len = frame.len();
        let before = self.queued.fetch_add(len, Ordering::AcqRel);
        if before > 0 && before + len > self.max_bytes {
            self.queued.fetch_sub(len, Ordering::AcqRel);
            return Err(());
        }
        if self.tx.try_send(frame).is_err() {
            self.queued.fetch_sub(len, Ordering::AcqRel);
            return Err(());
        }
        Ok(())
    }
}

/// Builds a `Doc` from a stored state: the snapshot (v1 or v2, see [`Snapshot::encoding`]) then
/// each log entry (v1), one transaction each. An entry that starts beyond what the document
/// holds for some client is applied once the entries it needs are in (see [`apply_in_order`]).
///
/// [`Snapshot::encoding`]: crate::Snapshot::encoding
pub fn doc_from_stored(stored: &StoredDoc) -> Result<Doc, crate::Error> {
    let doc = Doc::new();
    let snapshot = stored.snapshot.iter().map(|s| s.decode());
    let updates = stored
        .updates
        .iter()
        .map(|(_, u)| Ok(Update::decode_v1(u)?));
    apply_decoded_in_order(&doc, snapshot.chain(updates))?;
    Ok(doc)
}

/// Encodes a document's full state for [`crate::DocStore::compact`]: in v2 when the v2 bytes
/// decode to exactly the update the v1 encoder writes for the same state, in v1 otherwise.
///
/// yrs 0.28.1's v2 encoder panics, or writes wrong or undecodable bytes, when the document
/// holds pending structs or structs integrated behind a "skip" placeholder; such a document is
/// snapshotted in v1, which encodes it correctly. On a typed document v2 is about 30% smaller.
pub fn encode_snapshot(doc: &Doc) -> (Bytes, SnapshotEncoding) {
    let txn = doc.transact();
    let v1 = txn.encode_state_as_update_v1(&StateVector::default());
    if !txn.has_missing_updates()
        && let Some(v2) = faithful_v2(&txn, &v1)
    {
        return (Bytes::from(v2), SnapshotEncoding::V2);
    }
    (Bytes::from(v1), SnapshotEncoding::V1)
}

/// The v2 encoding of the state `v1` was encoded from, if the encoder neither panics nor
/// writes bytes that decode to anything but the same update as `v1`.
fn faithful_v2<T: ReadTxn>(txn: &T, v1: &[u8]) -> Option<Vec<u8>> {
    let v2 = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        txn.encode_state_as_update_v2(&StateVector::default())
    }))
    .ok()?;
    let same = SnapshotEncoding::detect(&v2) == SnapshotEncoding::V2
        && matches!(
            (Update::decode_v2(&v2), Update::decode_v1(v1)),
            (Ok(a), Ok(b)) if a == b
        );
    if !same {
        tracing::debug!("v2 state encoding does not round-trip; snapshot written in v1");
    }
    same.then_some(v2)
}

/// Applies v1 updates to `doc` one transaction each, in the given order, except that an update
/// starting beyond the document's state for some client waits until the updates it needs have
/// been applied (Yjs's order; yrs 0.28.1 would integrate it behind a "skip" placeholder, which
/// it later mishandles). Updates still waiting at the end are applied last.
pub fn apply_in_order<'a>(
    doc: &Doc,
    updates: impl IntoIterator<Item = &'a [u8]>,
) -> Result<(), crate::Error> {
    apply_decoded_in_order(doc, updates.into_iter().map(|u| Ok(Update::decode_v1(u)?)))
}

/// [`apply_in_order`] for updates decoded by the caller (stops at the first decoding error).
fn apply_decoded_in_order(
    doc: &Doc,
    updates: impl IntoIterator<Item = Result<Update, crate::Error>>,
) -> Result<(), crate::Error> {
    let apply = |u: Update| {
        doc.transact_mut()
            .apply_update(u)
            .map_err(|e| crate::Error::Apply(e.to_string()))
    };
    let mut waiting: std::collections::VecDeque<Update> = std::collections::VecDeque::new();
    for u in updates {
        let u = u?;
        if starts_beyond(&u, &doc.transact().state_vector()) {
            waiting.push_back(u);
            continue;
        }
        apply(u)?;
        while !waiting.is_empty() {
            let sv = doc.transact().state_vector();
            let Some(i) = waiting.iter().position(|w| !starts_beyond(w, &sv)) else {
                break;
            };
            if let Some(w) = waiting.remove(i) {
                apply(w)?;
            }
        }
    }
    for w in waiting {
        apply(w)?;
    }
    Ok(())
}

/// Where an update came from: a local connection (or the server itself), or the store /
/// another instance (already persisted).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Source {
    Local(Option<u64>),
    Remote,
}

/// An update waiting for an earlier update of the same client.
struct Held {
    source: Source,
    update: Update,
    size: usize,
}

/// Most updates held while waiting for a gap to be filled.
const MAX_HELD: usize = 1024;
/// Most bytes of updates held while waiting for a gap to be filled.
const MAX_HELD_BYTES: usize = 16 << 20;

/// What the sender of `update` holds for the clients it names: every clock below the end of its
/// structs for that client (it holds its own structs and, as it sent nothing beyond the
/// document, everything before them). `Update::state_vector` would give nothing for an update
/// that does not start at clock 0.
fn held_by_sender(update: &Update) -> StateVector {
    let mut sv = StateVector::default();
    for (client, ranges) in update.insertions(true).iter() {
        if let Some(end) = ranges.iter().map(|r| r.end).max() {
            sv.set_max(*client, end);
        }
    }
    sv
}

/// Whether an update starts beyond `sv` for some client (it needs an earlier update of that
/// client first).
fn starts_beyond(update: &Update, sv: &StateVector) -> bool {
    update
        .state_vector_lower()
        .iter()
        .any(|(client, clock)| *clock > sv.get(client))
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Owner {
    Local(u64),
    Remote,
}

struct Conn {
    access: Access,
    out: Outbound,
    close: Option<oneshot::Sender<CloseReason>>,
    clients: HashSet<ClientID>,
    /// Set while the connection is behind: its queue overflowed, so updates are no longer
    /// queued for it. Holds what it is known to have (the document's state vector when it
    /// fell behind, raised by its own updates since) and when it fell behind. When its queue
    /// has drained it gets what it lacks as one diff; past `BEHIND_LIMIT` it is closed.
    behind: Option<(StateVector, Instant)>,
}

/// How often a connection that is behind is checked for a drained queue.
const BEHIND_CHECK: Duration = Duration::from_millis(20);
/// A connection behind for longer than this is closed with 4409 (it resyncs on reconnect).
const BEHIND_LIMIT: Duration = Duration::from_secs(10);

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Exit {
    Idle,
    Shutdown,
    Failed,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum LoadPurpose {
    Resync,
    Compaction,
}

enum TaskEvent {
    Appended {
        batch: Vec<Bytes>,
        result: Result<u64, StoreError>,
    },
    Compacted {
        counted: (usize, usize),
        result: Result<bool, StoreError>,
    },
    Loaded {
        purpose: LoadPurpose,
        result: Result<Option<StoredDoc>, StoreError>,
    },
    Subscribed(Result<FanoutStream, FanoutError>),
}

/// Shortest pause between two resyncs of one document.
const RESYNC_MIN_INTERVAL: Duration = Duration::from_millis(500);
/// After (re)subscribing, a first message from an unknown remote stream with `seq > 1` is not
/// taken as a gap for this long (the SyncRequest sent at subscription covers it).
const SUBSCRIBE_GRACE: Duration = Duration::from_secs(2);
/// Shortest pause between two compactions of one document.
const COMPACT_MIN_INTERVAL: Duration = Duration::from_secs(1);
/// Pause after a failed compaction.
const COMPACT_RETRY: Duration = Duration::from_secs(5);
/// Longest time spent flushing writes when unloading.
const UNLOAD_FLUSH_LIMIT: Duration = Duration::from_secs(10);
/// Fan-out messages queued for publication per document before new ones are dropped (a drop
/// shows as a gap to the receivers, which then resync).
const PUBLISH_QUEUE: usize = 1024;
/// Commands handled in one go before persistence is looked at again.
const DRAIN_BATCH: usize = 256;

struct DocTask {
    hub: Arc<Inner>,
    id: Arc<str>,
    generation: u64,
    doc: Doc,
    /// Presence states; created when the first awareness message arrives and dropped again
    /// when no connection is left and no state is live (an idle document keeps none).
    awareness: Option<Awareness>,
    captured: Arc<Mutex<Vec<Vec<u8>>>>,
    conns: HashMap<u64, Conn>,
    owners: HashMap<ClientID, Owner>,
    aw_local: HashSet<ClientID>,
    aw_remote: HashSet<ClientID>,
    aw_flush_at: Option<Instant>,
    /// Origin of the awareness clock (milliseconds since this instant).
    aw_base: Instant,
    idle_since: Option<Instant>,
    exit: Option<Exit>,
    held: std::collections::VecDeque<Held>,
    held_bytes: usize,
    // persistence
    pending: Vec<Bytes>,
    append_inflight: bool,
    store_failures: u32,
    retry_at: Option<Instant>,
    last_seq: u64,
    tail_updates: usize,
    tail_bytes: usize,
    compacting: bool,
    compact_after: Option<Instant>,
    // fan-out
    sub: Option<FanoutStream>,
    subscribed_at: Instant,
    subscribing: bool,
    resubscribe_at: Option<Instant>,
    resubscribe_backoff: Duration,
    pub_tx: Option<mpsc::Sender<Bytes>>,
    pub_seq: u64,
    heartbeat_seq: u64,
    next_heartbeat: Instant,
    remote_seqs: HashMap<(u64, u64), u64>,
    resync_inflight: bool,
    resync_again: bool,
    resync_at: Option<Instant>,
    behind_check_at: Option<Instant>,
    /// Updates integrated since the connections were last written to, with the connection
    /// each came from, relayed together by [`DocTask::flush_updates`] after the batch of
    /// commands that produced them.
    outbox: Vec<(Option<u64>, Bytes)>,
    /// The document's state vector before the first update in `outbox`.
    outbox_before: Option<StateVector>,
    /// The frames relays may still write now, and when the next relay is due if updates wait.
    relay_budget: RelayBudget,
    relay_at: Option<Instant>,
    last_resync: Option<Instant>,
    tasks: FuturesUnordered<BoxFuture<'static, TaskEvent>>,
    tick: Duration,
    next_tick: Instant,
}

/// A document's relay budget ([`HubConfig::relay_frames_per_sec`]): a token bucket of frames,
/// refilled at the budget's rate up to what [`HubConfig::relay_burst`] holds. A relay spends a
/// frame per connection and may go out when the bucket holds that much (or is full, for a
/// document with more connections than the bucket holds); a relay that had to go out anyway
/// (the longest wait is over, or another frame must follow it) can leave it in debt by at most
/// the longest wait's worth, so the budget never delays an update past that wait.
#[derive(Debug)]
struct RelayBudget {
    /// Frames a second; zero when there is no budget.
    rate: f64,
    capacity: f64,
    floor: f64,
    credit: f64,
    at: Instant,
}

impl RelayBudget {
    fn new(config: &crate::HubConfig, now: Instant) -> RelayBudget {
        let rate = f64::from(config.relay_frames_per_sec);
        let capacity = rate * config.relay_burst.as_secs_f64();
        RelayBudget {
            rate,
            capacity,
            floor: -rate * config.relay_interval.as_secs_f64(),
            credit: capacity,
            at: now,
        }
    }

    fn refill(&mut self, now: Instant) {
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        self.credit = (self.credit + elapsed * self.rate).min(self.capacity);
        self.at = now;
    }

    /// When a relay to `frames` connections may go out (now if the bucket holds enough).
    fn due(&mut self, now: Instant, frames: usize) -> Instant {
        if self.rate == 0.0 {
            return now;
        }
        self.refill(now);
        #[allow(clippy::cast_precision_loss)] // connection counts are far below 2^52
        let need = (frames as f64).min(self.capacity);
        if self.credit >= need {
            now
        } else {
            now + Duration::from_secs_f64((need - self.credit) / self.rate)
        }
    }

    /// A relay to `frames` connections went out.
    fn spend(&mut self, now: Instant, frames: usize) {
        if self.rate == 0.0 {
            return;
        }
        self.refill(now);
        #[allow(clippy::cast_precision_loss)] // connection counts are far below 2^52
        let frames = frames as f64;
        self.credit = (self.credit - frames).max(self.floor);
    }
}

/// Refuses everything queued for a task that could not load, and leaves the registry.
async fn refuse(
    hub: &Inner,
    id: &str,
    generation: u64,
    mut rx: mpsc::Receiver<Cmd>,
    reason: CloseReason,
) {
    hub.unregister(id, generation);
    rx.close();
    while let Some(cmd) = rx.recv().await {
        match cmd {
            Cmd::Join(join) => drop(join.ack.send(Err(JoinError::Refused(reason)))),
            Cmd::State(reply) => drop(reply.send(Err(JoinError::Refused(reason)))),
            Cmd::ServerUpdate(su) => drop(su.reply.send(Err(JoinError::Refused(reason)))),
            Cmd::Inbound { .. } | Cmd::Leave { .. } | Cmd::SetAccess { .. } => {}
        }
    }
}

/// The document task.
pub(crate) async fn run(hub: Arc<Inner>, id: Arc<str>, generation: u64, rx: mpsc::Receiver<Cmd>) {
    // The loading phase runs in its own (boxed, short-lived) future, so the task that stays
    // alive for the document's lifetime holds only the serving state.
    if let Some((task, rx)) = Box::pin(load(hub, id, generation, rx)).await {
        task.serve(rx).await;
    }
}

/// Loads the document and builds its task; `None` when the load failed (the waiting commands
/// were refused).
async fn load(
    hub: Arc<Inner>,
    id: Arc<str>,
    generation: u64,
    rx: mpsc::Receiver<Cmd>,
) -> Option<(Box<DocTask>, mpsc::Receiver<Cmd>)> {
    let mut sub = None;
    if let Some(fanout) = &hub.fanout {
        match fanout.subscribe(&id).await {
            Ok(s) => sub = Some(s),
            Err(e) => {
                tracing::warn!(doc = %id, error = %e, "fan-out subscription failed; retrying later")
            }
        }
    }
    let started = Instant::now();
    let stored = match hub.store.load(&id).await {
        Ok(Some(stored)) => stored,
        Ok(None) => {
            tracing::debug!(doc = %id, "document not found");
            refuse(&hub, &id, generation, rx, CloseReason::NOT_FOUND).await;
            return None;
        }
        Err(e) => {
            tracing::error!(doc = %id, error = %e, "document load failed");
            refuse(&hub, &id, generation, rx, CloseReason::INTERNAL_ERROR).await;
            return None;
        }
    };
    let fetched = started.elapsed();
    let doc = match doc_from_stored(&stored) {
        Ok(doc) => doc,
        Err(e) => {
            tracing::error!(doc = %id, error = %e, "stored document is unreadable");
            refuse(&hub, &id, generation, rx, CloseReason::INTERNAL_ERROR).await;
            return None;
        }
    };
    tracing::debug!(
        doc = %id,
        fetch_ms = fetched.as_secs_f64() * 1e3,
        decode_ms = (started.elapsed() - fetched).as_secs_f64() * 1e3,
        snapshot_bytes = stored.snapshot.as_ref().map_or(0, |s| s.update_v1.len()),
        tail = stored.updates.len(),
        "document loaded"
    );
    let captured = Arc::new(Mutex::new(Vec::new()));
    let sink = captured.clone();
    if doc
        .observe_update_v1("collab", move |_, e| {
            sink.lock().expect("capture mutex").push(e.update.clone())
        })
        .is_err()
    {
        refuse(&hub, &id, generation, rx, CloseReason::INTERNAL_ERROR).await;
        return None;
    }
    let base = Instant::now();

    let pub_tx = hub.fanout.as_ref().map(|fanout| {
        let (tx, mut prx) = mpsc::channel::<Bytes>(PUBLISH_QUEUE);
        let fanout = fanout.clone();
        let doc_id = id.clone();
        hub.tracker.spawn(async move {
            while let Some(msg) = prx.recv().await {
                if let Err(e) = fanout.publish(&doc_id, msg).await {
                    tracing::warn!(doc = %doc_id, error = %e, "fan-out publish failed");
                }
            }
        });
        tx
    });

    let cfg = &hub.config;
    let tick = (cfg.awareness_timeout.min(cfg.idle_unload_after) / 10)
        .clamp(Duration::from_millis(10), Duration::from_secs(1));
    let now = Instant::now();
    let subscribed = sub.is_some();
    let mut task = DocTask {
        id,
        generation,
        doc,
        awareness: None,
        captured,
        conns: HashMap::new(),
        owners: HashMap::new(),
        aw_local: HashSet::new(),
        aw_remote: HashSet::new(),
        aw_flush_at: None,
        aw_base: base,
        idle_since: Some(now),
        exit: None,
        held: std::collections::VecDeque::new(),
        held_bytes: 0,
        pending: Vec::new(),
        append_inflight: false,
        store_failures: 0,
        retry_at: None,
        last_seq: stored.last_seq(),
        tail_updates: stored.updates.len(),
        tail_bytes: stored.tail_bytes(),
        compacting: false,
        compact_after: None,
        resubscribe_at: (hub.fanout.is_some() && !subscribed)
            .then(|| now + Duration::from_millis(200)),
        sub,
        subscribed_at: now,
        subscribing: false,
        resubscribe_backoff: Duration::from_millis(200),
        pub_tx,
        pub_seq: 0,
        heartbeat_seq: 0,
        next_heartbeat: now + hub.config.fanout_heartbeat,
        remote_seqs: HashMap::new(),
        resync_inflight: false,
        resync_again: false,
        resync_at: None,
        behind_check_at: None,
        outbox: Vec::new(),
        outbox_before: None,
        relay_budget: RelayBudget::new(&hub.config, Instant::now()),
        relay_at: None,
        last_resync: None,
        tasks: FuturesUnordered::new(),
        tick,
        next_tick: now + tick,
        hub,
    };
    drop(stored);
    if subscribed {
        let sv = task.doc().transact().state_vector();
        task.publish(Body::SyncRequest(Bytes::from(sv.encode_v1())));
    }
    Some((Box::new(task), rx))
}

async fn next_message(sub: &mut Option<FanoutStream>) -> Option<Bytes> {
    match sub {
        Some(s) => s.next().await,
        None => std::future::pending().await,
    }
}

impl DocTask {
    fn doc(&self) -> &Doc {
        &self.doc
    }

    async fn serve(mut self: Box<Self>, mut rx: mpsc::Receiver<Cmd>) {
        let shutdown = self.hub.shutdown.clone();
        let sleep = tokio::time::sleep_until(self.next_deadline());
        tokio::pin!(sleep);
        let mut armed = sleep.deadline();
        loop {
            let deadline = self.next_deadline();
            if deadline != armed {
                sleep.as_mut().reset(deadline);
                armed = deadline;
            }
            tokio::select! {
                _ = shutdown.cancelled() => self.fail_all(CloseReason::SHUTTING_DOWN, Exit::Shutdown),
                cmd = rx.recv() => match cmd {
                    Some(cmd) => {
                        self.on_cmd(cmd);
                        for _ in 0..DRAIN_BATCH {
                            match rx.try_recv() {
                                Ok(cmd) => self.on_cmd(cmd),
                                Err(_) => break,
                            }
                        }
                    }
                    None => self.exit = Some(Exit::Idle),
                },
                Some(ev) = self.tasks.next(), if !self.tasks.is_empty() => self.on_task(ev),
                msg = next_message(&mut self.sub) => match msg {
                    Some(msg) => self.on_fanout(&msg),
                    None => self.subscription_lost(),
                },
                () = &mut sleep => {
                    armed = far_future();
                    self.on_timer();
                }
            }
            self.after_event();
            if self.exit.is_some() {
                break;
            }
        }
        // Boxed: the unload path's futures take no room while the document is served.
        Box::pin(self.unload(rx)).await;
    }

    fn next_deadline(&self) -> Instant {
        let heartbeat = self.pub_tx.as_ref().map(|_| self.next_heartbeat);
        [
            Some(self.next_tick),
            heartbeat,
            self.aw_flush_at,
            self.retry_at,
            self.resubscribe_at,
            self.resync_at,
            self.behind_check_at,
            self.relay_at,
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or_else(far_future)
    }

    // ----- commands -----

    fn on_cmd(&mut self, cmd: Cmd) {
        // Updates are relayed in batches; anything else written to a connection goes after
        // what was integrated before it.
        let batched = matches!(&cmd, Cmd::Inbound { msg, .. }
            if matches!(**msg, Inbound::Update(_) | Inbound::SyncStep2(_) | Inbound::Ignored(_)));
        if !batched {
            self.flush_updates();
        }
        match cmd {
            Cmd::Join(join) => {
                let Join {
                    conn,
                    access,
                    out,
                    close,
                    ack,
                } = *join;
                if self.exit.is_some() {
                    let _ = ack.send(Err(JoinError::Retry));
                    return;
                }
                let sv = self.doc().transact().state_vector();
                let mut ok = out.push(protocol::sync_step1(&sv)).is_ok();
                if let Some(frame) = self.all_awareness() {
                    ok &= out.push(frame).is_ok();
                }
                if !ok {
                    let _ = ack.send(Err(JoinError::Refused(CloseReason::SLOW_CONSUMER)));
                    return;
                }
                self.conns.insert(
                    conn,
                    Conn {
                        access,
                        out,
                        close: Some(close),
                        clients: HashSet::new(),
                        behind: None,
                    },
                );
                self.idle_since = None;
                let _ = ack.send(Ok(()));
            }
            Cmd::Inbound { conn, msg } => self.on_inbound(conn, *msg),
            Cmd::Leave { conn } => self.remove_conn(conn, None),
            Cmd::SetAccess { conn, access } => {
                if let Some(c) = self.conns.get_mut(&conn) {
                    c.access = access;
                }
            }
            Cmd::State(reply) => {
                let state = self
                    .doc()
                    .transact()
                    .encode_state_as_update_v1(&StateVector::default());
                let _ = reply.send(Ok(state));
            }
            Cmd::ServerUpdate(su) => {
                let ServerUpdate { update, reply } = *su;
                let res = match self.apply_local(None, &update) {
                    Ok(()) => Ok(()),
                    Err(()) => Err(JoinError::Refused(CloseReason::INVALID_MESSAGE)),
                };
                let _ = reply.send(res);
            }
        }
    }

    fn on_inbound(&mut self, conn: u64, msg: Inbound) {
        let Some(c) = self.conns.get(&conn) else {
            return;
        };
        match msg {
            Inbound::SyncStep1(sv) => {
                let diff = self.doc().transact().encode_diff_v1(&sv);
                if c.out.push(protocol::sync_step2(&diff)).is_err() {
                    self.remove_conn(conn, Some(CloseReason::SLOW_CONSUMER));
                }
            }
            Inbound::SyncStep2(u) | Inbound::Update(u) => {
                if c.access == Access::ReadWrite && self.apply_local(Some(conn), &u).is_err() {
                    self.remove_conn(conn, Some(CloseReason::INVALID_MESSAGE));
                }
            }
            Inbound::Awareness(update) => self.apply_awareness(Owner::Local(conn), update),
            Inbound::QueryAwareness => {
                if let Some(frame) = self.all_awareness()
                    && c.out.push(frame).is_err()
                {
                    self.remove_conn(conn, Some(CloseReason::SLOW_CONSUMER));
                }
            }
            Inbound::Ignored(_) => {}
        }
    }

    /// Applies an update from a client (or the server): relays what it changed to the other
    /// connections and to other instances, and queues it for the store.
    fn apply_local(&mut self, origin: Option<u64>, update: &[u8]) -> Result<(), ()> {
        let Ok(decoded) = Update::decode_v1(update) else {
            return Err(());
        };
        self.integrate_or_hold(Source::Local(origin), decoded, update.len())
    }

    /// Applies an update that is already persisted (by another instance or in the store):
    /// relays what it changed to local connections only.
    fn apply_remote(&mut self, update: &[u8]) -> Result<(), ()> {
        let Ok(decoded) = Update::decode_v1(update) else {
            return Err(());
        };
        self.integrate_or_hold(Source::Remote, decoded, update.len())
    }

    /// Integrates an update, or holds it while it starts beyond what the document has for
    /// some client (an earlier update of that client has not arrived yet).
    ///
    /// Yjs keeps such structs pending until the gap is filled; yrs 0.28.1 instead integrates
    /// them behind a "skip" placeholder and can later corrupt the document (or panic) when the
    /// gap is filled by an update whose struct also covers the part already integrated. So
    /// the hub keeps Yjs's order itself: it holds the update, asks the sender for the gap (a
    /// SyncStep1 with the document's state vector; another instance is asked by a resync),
    /// and integrates held updates as soon as they no longer start beyond the document.
    fn integrate_or_hold(&mut self, source: Source, update: Update, size: usize) -> Result<(), ()> {
        let sv = self.doc().transact().state_vector();
        if starts_beyond(&update, &sv) {
            self.held_bytes += size;
            self.held.push_back(Held {
                source,
                update,
                size,
            });
            while self.held.len() > MAX_HELD || self.held_bytes > MAX_HELD_BYTES {
                // The senders were asked for the gap; what they send covers the dropped update.
                if let Some(dropped) = self.held.pop_front() {
                    self.held_bytes -= dropped.size;
                }
            }
            self.flush_updates();
            match source {
                Source::Local(Some(conn)) => {
                    if let Some(c) = self.conns.get(&conn)
                        && c.out.push(protocol::sync_step1(&sv)).is_err()
                    {
                        self.remove_conn(conn, Some(CloseReason::SLOW_CONSUMER));
                    }
                }
                Source::Local(None) => {}
                Source::Remote => self.request_resync(),
            }
            return Ok(());
        }
        let res = self.integrate(source, update);
        self.integrate_held();
        res
    }

    fn integrate_held(&mut self) {
        while !self.held.is_empty() {
            let sv = self.doc().transact().state_vector();
            let Some(i) = self
                .held
                .iter()
                .position(|h| !starts_beyond(&h.update, &sv))
            else {
                break;
            };
            if let Some(h) = self.held.remove(i) {
                self.held_bytes -= h.size;
                let _ = self.integrate(h.source, h.update);
            }
        }
    }

    fn integrate(&mut self, source: Source, update: Update) -> Result<(), ()> {
        // The sender already has what it sent, so its own update is not echoed back. When the
        // document held pending structs, the same transaction may integrate other clients'
        // changes too: the sender gets those, as a diff from what its update holds, and
        // nothing it sent.
        let had_pending = self.doc().transact().has_missing_updates();
        let before = self.doc().transact().state_vector();
        let sent = match source {
            Source::Local(Some(_)) if had_pending => Some(held_by_sender(&update)),
            _ => None,
        };
        if let Source::Local(Some(origin)) = source
            && let Some(c) = self.conns.get_mut(&origin)
            && let Some((sv, _)) = c.behind.as_mut()
        {
            // What a lagging connection sends, it holds: not part of its catch-up diff.
            sv.merge(update.state_vector());
        }
        let res = self.doc().transact_mut().apply_update(update);
        for u in self.take_captured() {
            match source {
                Source::Local(origin) => {
                    let u = Bytes::from(u);
                    self.queue_update(origin, u.clone(), &before);
                    if let (Some(origin), Some(sent)) = (origin, sent.as_ref()) {
                        self.send_rest_to_sender(origin, &u, sent, &before);
                    }
                    self.publish(Body::Update(u.clone()));
                    self.pending.push(u);
                }
                Source::Remote => self.queue_update(None, Bytes::from(u), &before),
            }
        }
        self.check_missing();
        res.map_err(|e| tracing::debug!(doc = %self.id, error = %e, "update rejected"))
    }

    /// Sends the sender of `update` the part of it that it does not hold: `update` less
    /// everything up to `sent`, the state vector of what it sent (it holds its own structs and
    /// every earlier struct of those clients). Nothing is sent when nothing remains.
    fn send_rest_to_sender(
        &mut self,
        conn: u64,
        update: &[u8],
        sent: &StateVector,
        before: &StateVector,
    ) {
        self.flush_updates();
        let Ok(rest) = yrs::diff_updates_v1(update, &sent.encode_v1()) else {
            return;
        };
        let empty = Update::decode_v1(&rest).map_or(true, |u| u.is_empty());
        let Some(c) = self.conns.get_mut(&conn) else {
            return;
        };
        if empty || c.behind.is_some() {
            return; // a connection that is behind gets it in its catch-up diff
        }
        if c.out.push(protocol::update(&rest)).is_err() && !c.out.tx.is_closed() {
            let mut holds = before.clone();
            holds.merge(sent.clone());
            c.behind = Some((holds, Instant::now()));
            if self.behind_check_at.is_none() {
                self.behind_check_at = Some(Instant::now() + BEHIND_CHECK);
            }
        }
    }

    fn take_captured(&self) -> Vec<Vec<u8>> {
        std::mem::take(&mut *self.captured.lock().expect("capture mutex"))
    }

    /// With several instances, a document holding updates it cannot integrate yet (missing
    /// dependencies) has missed something: resync.
    fn check_missing(&mut self) {
        if self.hub.fanout.is_some() && self.doc().transact().has_missing_updates() {
            self.request_resync();
        }
    }

    /// Queues an integrated update for the connections; `before` is the document's state
    /// vector before it.
    fn queue_update(&mut self, origin: Option<u64>, update: Bytes, before: &StateVector) {
        if self.outbox_before.is_none() {
            self.outbox_before = Some(before.clone());
        }
        self.outbox.push((origin, update));
    }

    /// Relays the updates integrated since the last flush: one update per connection holding
    /// all of them (merged), less what that connection sent itself. Called after each batch
    /// of commands and before anything else is written to a connection, so frames keep their
    /// order. Under light load a batch holds one update and goes out as it came; under heavy
    /// load the connections get a few larger messages instead of one per edit, which is what
    /// keeps the clients (and the sockets) from drowning.
    fn flush_updates(&mut self) {
        self.relay_at = None;
        let Some(before) = self.outbox_before.take() else {
            return;
        };
        self.relay_budget.spend(Instant::now(), self.conns.len());
        let outbox = std::mem::take(&mut self.outbox);
        if let [(origin, update)] = outbox.as_slice() {
            self.broadcast_update(*origin, protocol::update(update), &before);
            return;
        }
        let Ok(all) = yrs::merge_updates_v1(outbox.iter().map(|(_, u)| u.as_ref())) else {
            // Cannot happen for updates the document produced; relay them one by one.
            for (origin, update) in &outbox {
                self.broadcast_update(*origin, protocol::update(update), &before);
            }
            return;
        };
        let all_frame = protocol::update(&all);
        // What each sender must not get back: its own updates.
        let mut own: HashMap<u64, Vec<&[u8]>> = HashMap::new();
        for (origin, update) in &outbox {
            if let Some(o) = origin {
                own.entry(*o).or_default().push(update);
            }
        }
        let mut frames: HashMap<u64, Option<Bytes>> = HashMap::new();
        for (conn, mine) in &own {
            if self.conns.get(conn).is_none_or(|c| c.behind.is_some()) {
                continue;
            }
            let others = outbox
                .iter()
                .filter(|(o, _)| *o != Some(*conn))
                .map(|(_, u)| u.as_ref());
            let rest = if mine.len() == outbox.len() {
                None
            } else {
                yrs::merge_updates_v1(others).ok()
            };
            frames.insert(*conn, rest.map(|r| protocol::update(&r)));
        }
        let now = Instant::now();
        let mut fell_behind = false;
        for (id, c) in self.conns.iter_mut() {
            if c.behind.is_some() {
                continue;
            }
            let frame = match frames.get(id) {
                Some(Some(f)) => f.clone(),
                Some(None) => continue,
                None => all_frame.clone(),
            };
            if c.out.push(frame).is_err() {
                if c.out.tx.is_closed() {
                    continue;
                }
                c.behind = Some((before.clone(), now));
                fell_behind = true;
            }
        }
        if fell_behind && self.behind_check_at.is_none() {
            self.behind_check_at = Some(now + BEHIND_CHECK);
        }
    }

    /// Sends an update frame to every connection but `except`, skipping connections that are
    /// behind (they get one diff when they drain). A connection whose queue overflows is marked
    /// behind with `before`, the document's state vector before this update: it has (or has
    /// queued) everything up to there.
    fn broadcast_update(&mut self, except: Option<u64>, frame: Bytes, before: &StateVector) {
        let now = Instant::now();
        let mut fell_behind = false;
        for (id, c) in self.conns.iter_mut() {
            if Some(*id) == except || c.behind.is_some() {
                continue;
            }
            if c.out.push(frame.clone()).is_err() {
                if c.out.tx.is_closed() {
                    continue; // gone: housekeeping removes it
                }
                c.behind = Some((before.clone(), now));
                fell_behind = true;
            }
        }
        if fell_behind && self.behind_check_at.is_none() {
            self.behind_check_at = Some(now + BEHIND_CHECK);
        }
    }

    /// Catches up connections that were behind and whose queue has drained to half its byte
    /// budget: one update holding what each lacks (a diff from its state vector), sent once.
    /// A connection behind past `BEHIND_LIMIT` is closed with 4409.
    fn check_behind(&mut self, now: Instant) {
        self.flush_updates();
        self.behind_check_at = None;
        let mut close = Vec::new();
        let mut still_behind = false;
        let doc = self.doc().clone();
        for (id, c) in self.conns.iter_mut() {
            let Some((sv, since)) = c.behind.as_ref() else {
                continue;
            };
            if c.out.queued.load(Ordering::Acquire) <= c.out.max_bytes / 2
                && c.out.tx.capacity() > c.out.tx.max_capacity() / 2
            {
                let diff = doc.transact().encode_diff_v1(sv);
                if c.out.push(protocol::update(&diff)).is_ok() {
                    c.behind = None;
                } else {
                    close.push(*id);
                }
            } else if now.duration_since(*since) > BEHIND_LIMIT {
                close.push(*id);
            } else {
                still_behind = true;
            }
        }
        for id in close {
            self.remove_conn(id, Some(CloseReason::SLOW_CONSUMER));
        }
        if still_behind {
            self.behind_check_at = Some(now + BEHIND_CHECK);
        }
    }

    /// Sends a non-update frame (awareness) to every connection but `except`. A connection that
    /// is behind is skipped (awareness states are renewed every 15 s); one whose queue
    /// overflows is marked behind.
    fn broadcast(&mut self, except: Option<u64>, frame: Bytes) {
        self.flush_updates();
        let sv = self.doc().transact().state_vector();
        let now = Instant::now();
        let mut fell_behind = false;
        for (id, c) in self.conns.iter_mut() {
            if Some(*id) == except || c.behind.is_some() {
                continue;
            }
            if c.out.push(frame.clone()).is_err() && !c.out.tx.is_closed() {
                c.behind = Some((sv.clone(), now));
                fell_behind = true;
            }
        }
        if fell_behind && self.behind_check_at.is_none() {
            self.behind_check_at = Some(now + BEHIND_CHECK);
        }
    }

    /// Removes a connection (closing it with `reason` if given) and its awareness states.
    fn remove_conn(&mut self, conn: u64, reason: Option<CloseReason>) {
        let Some(mut c) = self.conns.remove(&conn) else {
            return;
        };
        if let (Some(reason), Some(close)) = (reason, c.close.take()) {
            let _ = close.send(reason);
        }
        for client in c.clients {
            if self.owners.get(&client) == Some(&Owner::Local(conn)) {
                self.owners.remove(&client);
                if let Some(awareness) = self.awareness.as_mut() {
                    awareness.remove_state(client);
                }
                self.aw_local.insert(client);
                self.schedule_aw_flush();
            }
        }
        if self.conns.is_empty() {
            self.idle_since = Some(Instant::now());
        }
    }

    fn fail_all(&mut self, reason: CloseReason, exit: Exit) {
        let ids: Vec<u64> = self.conns.keys().copied().collect();
        for id in ids {
            self.remove_conn(id, Some(reason));
        }
        self.exit = Some(exit);
    }

    // ----- awareness -----

    /// Applies presence states. A client id belongs to the connection (or, for ids first seen
    /// from another instance, the fan-out) that first used it until that connection goes or the
    /// state expires: entries for an id owned by someone else are dropped, so nobody can show a
    /// caret under a colleague's name or remove theirs.
    fn apply_awareness(&mut self, owner: Owner, mut update: AwarenessUpdate) {
        update
            .clients
            .retain(|client, _| self.owners.get(client).is_none_or(|o| *o == owner));
        if update.clients.is_empty() {
            return;
        }
        let base = self.aw_base;
        let awareness = self.awareness.get_or_insert_with(|| {
            Awareness::with_clock(self.doc.clone(), move || base.elapsed().as_millis() as u64)
        });
        let summary = match awareness.apply_update_summary(update) {
            Ok(Some(s)) => s,
            Ok(None) => return,
            Err(e) => {
                tracing::debug!(doc = %self.id, error = %e, "awareness update rejected");
                return;
            }
        };
        for client in summary.added.iter().chain(summary.updated.iter()) {
            self.owners.insert(*client, owner);
            if let Owner::Local(conn) = owner
                && let Some(c) = self.conns.get_mut(&conn)
            {
                c.clients.insert(*client);
            }
        }
        for client in &summary.removed {
            if let Some(Owner::Local(prev)) = self.owners.remove(client)
                && let Some(c) = self.conns.get_mut(&prev)
            {
                c.clients.remove(client);
            }
        }
        let pending = if owner == Owner::Remote {
            &mut self.aw_remote
        } else {
            &mut self.aw_local
        };
        pending.extend(summary.all_changes());
        self.schedule_aw_flush();
    }

    fn schedule_aw_flush(&mut self) {
        if self.aw_flush_at.is_none() {
            self.aw_flush_at = Some(Instant::now() + self.hub.config.awareness_flush);
        }
    }

    fn all_awareness(&self) -> Option<Bytes> {
        let update = self.awareness.as_ref()?.update().ok()?;
        (!update.clients.is_empty()).then(|| protocol::awareness(&update))
    }

    fn flush_awareness(&mut self) {
        self.aw_flush_at = None;
        if self.aw_local.is_empty() && self.aw_remote.is_empty() {
            return;
        }
        let Some(awareness) = &self.awareness else {
            self.aw_local.clear();
            self.aw_remote.clear();
            return;
        };
        let local: Vec<ClientID> = self.aw_local.drain().collect();
        let all: Vec<ClientID> = local
            .iter()
            .copied()
            .chain(self.aw_remote.drain())
            .collect();
        let to_all = awareness.update_with_clients(all);
        let to_others = if self.pub_tx.is_some() && !local.is_empty() {
            awareness.update_with_clients(local).ok()
        } else {
            None
        };
        if let Ok(update) = to_all {
            self.broadcast(None, protocol::awareness(&update));
        }
        if let Some(update) = to_others {
            self.publish(Body::Awareness(Bytes::from(update.encode_v1())));
        }
    }

    fn expire_awareness(&mut self) {
        let timeout = self.hub.config.awareness_timeout.as_millis() as u64;
        let clock_now = self.aw_base.elapsed().as_millis() as u64;
        let Some(awareness) = self.awareness.as_mut() else {
            return;
        };
        let own = awareness.client_id();
        let expired: Vec<ClientID> = awareness
            .iter()
            .filter(|(id, s)| {
                *id != own
                    && s.data.is_some()
                    && clock_now.saturating_sub(s.last_updated) >= timeout
            })
            .map(|(id, _)| id)
            .collect();
        for client in &expired {
            awareness.remove_state(*client);
        }
        for client in expired {
            match self.owners.remove(&client) {
                Some(Owner::Local(conn)) => {
                    if let Some(c) = self.conns.get_mut(&conn) {
                        c.clients.remove(&client);
                    }
                    self.aw_local.insert(client);
                }
                _ => {
                    self.aw_remote.insert(client);
                }
            }
            self.schedule_aw_flush();
        }
    }

    // ----- fan-out -----

    fn publish(&mut self, body: Body) {
        let Some(tx) = &self.pub_tx else { return };
        self.pub_seq += 1;
        let env = Envelope {
            instance: self.hub.config.instance_id,
            stream: self.generation,
            seq: self.pub_seq,
            body,
        };
        if tx.try_send(env.encode()).is_err() {
            tracing::warn!(doc = %self.id, "fan-out publish queue full; message dropped");
        }
    }

    fn on_fanout(&mut self, bytes: &[u8]) {
        let env = match Envelope::decode(bytes) {
            Ok(env) => env,
            Err(e) => {
                tracing::warn!(doc = %self.id, error = %e, "undecodable fan-out message");
                return;
            }
        };
        let me = self.hub.config.instance_id;
        if env.instance == me {
            return;
        }
        let gap = match self.remote_seqs.insert((env.instance, env.stream), env.seq) {
            Some(prev) => env.seq != prev + 1,
            None => env.seq != 1 && self.subscribed_at.elapsed() > SUBSCRIBE_GRACE,
        };
        if gap {
            tracing::debug!(doc = %self.id, from = env.instance, "fan-out gap; resyncing");
            self.request_resync();
        }
        match env.body {
            Body::Update(u) => {
                let _ = self.apply_remote(&u);
            }
            Body::Awareness(a) => {
                if let Ok(update) = AwarenessUpdate::decode_v1(&a) {
                    self.apply_awareness(Owner::Remote, update);
                }
            }
            Body::SyncRequest(sv) => {
                if let Ok(sv) = StateVector::decode_v1(&sv) {
                    let diff = self.doc().transact().encode_diff_v1(&sv);
                    self.publish(Body::SyncReply {
                        to: env.instance,
                        update: Bytes::from(diff),
                    });
                    let local: Vec<ClientID> = self
                        .owners
                        .iter()
                        .filter(|(_, o)| matches!(o, Owner::Local(_)))
                        .map(|(c, _)| *c)
                        .collect();
                    if !local.is_empty()
                        && let Some(awareness) = &self.awareness
                        && let Ok(update) = awareness.update_with_clients(local)
                    {
                        self.publish(Body::Awareness(Bytes::from(update.encode_v1())));
                    }
                }
            }
            Body::SyncReply { to, update } => {
                if to == me {
                    let _ = self.apply_remote(&update);
                }
            }
            Body::Heartbeat => {}
        }
    }

    fn subscription_lost(&mut self) {
        tracing::warn!(doc = %self.id, "fan-out subscription lost; resubscribing");
        self.sub = None;
        self.resubscribe_at = Some(Instant::now() + self.resubscribe_backoff);
    }

    fn request_resync(&mut self) {
        if self.hub.fanout.is_none() {
            return;
        }
        if self.resync_inflight {
            self.resync_again = true;
            return;
        }
        let now = Instant::now();
        if let Some(last) = self.last_resync
            && now < last + RESYNC_MIN_INTERVAL
        {
            self.resync_at.get_or_insert(last + RESYNC_MIN_INTERVAL);
            return;
        }
        self.resync_at = None;
        self.last_resync = Some(now);
        self.resync_inflight = true;
        let sv = self.doc().transact().state_vector();
        self.publish(Body::SyncRequest(Bytes::from(sv.encode_v1())));
        self.spawn_load(LoadPurpose::Resync);
    }

    fn spawn_load(&mut self, purpose: LoadPurpose) {
        let store = self.hub.store.clone();
        let id = self.id.clone();
        self.tasks.push(Box::pin(async move {
            let result = store.load(&id).await;
            TaskEvent::Loaded { purpose, result }
        }));
    }

    /// Merges a freshly loaded stored state with the live document: what the store has and
    /// the document lacks is applied (and sent to local connections); what the document has
    /// and the store lacks is queued for writing.
    fn merge_stored(&mut self, stored: &StoredDoc) -> Result<(), crate::Error> {
        let temp = doc_from_stored(stored)?;
        let live_sv = self.doc().transact().state_vector();
        let missing = temp.transact().encode_diff_v1(&live_sv);
        let _ = self.apply_remote(&missing);
        let temp_sv = temp.transact().state_vector();
        let ours = self.doc().transact().encode_diff_v1(&temp_sv);
        let found = Arc::new(Mutex::new(Vec::new()));
        let sink = found.clone();
        temp.observe_update_v1("merge", move |_, e| {
            sink.lock().expect("merge mutex").push(e.update.clone())
        })
        .map_err(|e| crate::Error::Apply(e.to_string()))?;
        let u = Update::decode_v1(&ours).map_err(crate::Error::Decode)?;
        temp.transact_mut()
            .apply_update(u)
            .map_err(|e| crate::Error::Apply(e.to_string()))?;
        let found = std::mem::take(&mut *found.lock().expect("merge mutex"));
        self.pending.extend(found.into_iter().map(Bytes::from));
        Ok(())
    }

    // ----- persistence -----

    fn start_append(&mut self) {
        if self.append_inflight || self.pending.is_empty() || self.exit == Some(Exit::Failed) {
            return;
        }
        if self.retry_at.is_some_and(|t| t > Instant::now()) {
            return;
        }
        self.retry_at = None;
        let n = self
            .pending
            .len()
            .min(self.hub.config.max_batch_updates.max(1));
        let batch: Vec<Bytes> = self.pending.drain(..n).collect();
        let store = self.hub.store.clone();
        let id = self.id.clone();
        self.append_inflight = true;
        self.tasks.push(Box::pin(async move {
            let result = store.append(&id, &batch).await;
            TaskEvent::Appended { batch, result }
        }));
    }

    fn maybe_compact(&mut self) {
        let cfg = &self.hub.config;
        if self.compacting
            || self.exit.is_some()
            || (self.tail_updates <= cfg.compact_after_updates
                && self.tail_bytes <= cfg.compact_after_bytes)
            || self.compact_after.is_some_and(|t| t > Instant::now())
        {
            return;
        }
        // A snapshot must not carry structs still waiting for a dependency: they would be
        // written with "skip" gaps, and their log entries would be dropped. Wait until the
        // document is whole again (the gap is being fetched).
        if !self.held.is_empty() || self.doc().transact().has_missing_updates() {
            return;
        }
        self.compacting = true;
        if self.hub.fanout.is_some() {
            // Other instances append to the same log: fold in what they stored first, so the
            // snapshot covers every entry it replaces.
            self.spawn_load(LoadPurpose::Compaction);
        } else {
            let upto = self.last_seq;
            let counted = (self.tail_updates, self.tail_bytes);
            self.spawn_compact(upto, counted);
        }
    }

    fn spawn_compact(&mut self, upto: u64, counted: (usize, usize)) {
        let (snapshot, _) = encode_snapshot(self.doc());
        let store = self.hub.store.clone();
        let id = self.id.clone();
        self.tasks.push(Box::pin(async move {
            let result = store.compact(&id, snapshot, upto).await;
            TaskEvent::Compacted { counted, result }
        }));
    }

    fn on_task(&mut self, ev: TaskEvent) {
        match ev {
            TaskEvent::Appended { batch, result } => {
                self.append_inflight = false;
                match result {
                    Ok(seq) => {
                        self.store_failures = 0;
                        self.last_seq = self.last_seq.max(seq);
                        self.tail_updates += batch.len();
                        self.tail_bytes += batch.iter().map(Bytes::len).sum::<usize>();
                    }
                    Err(e) => {
                        self.store_failures += 1;
                        tracing::warn!(doc = %self.id, error = %e, attempt = self.store_failures, "append failed");
                        let rest = std::mem::take(&mut self.pending);
                        self.pending = batch;
                        self.pending.extend(rest);
                        if matches!(e, StoreError::NotFound) {
                            self.pending.clear();
                            self.fail_all(CloseReason::NOT_FOUND, Exit::Failed);
                        } else if self.store_failures >= self.hub.config.store_attempts {
                            tracing::error!(
                                doc = %self.id,
                                unsaved = self.pending.len(),
                                "store keeps failing; closing connections (clients resend on reconnect)"
                            );
                            self.pending.clear();
                            self.fail_all(CloseReason::INTERNAL_ERROR, Exit::Failed);
                        } else {
                            self.retry_at =
                                Some(Instant::now() + self.hub.config.store_retry_delay);
                        }
                    }
                }
            }
            TaskEvent::Compacted { counted, result } => {
                self.compacting = false;
                match result {
                    Ok(_) => {
                        if self.hub.fanout.is_some() {
                            // The tail was counted from the store (all instances' entries);
                            // count again from zero what this instance appends.
                            self.tail_updates = 0;
                            self.tail_bytes = 0;
                        } else {
                            self.tail_updates = self.tail_updates.saturating_sub(counted.0);
                            self.tail_bytes = self.tail_bytes.saturating_sub(counted.1);
                        }
                        self.compact_after = Some(Instant::now() + COMPACT_MIN_INTERVAL);
                    }
                    Err(e) => {
                        tracing::warn!(doc = %self.id, error = %e, "compaction failed");
                        self.compact_after = Some(Instant::now() + COMPACT_RETRY);
                    }
                }
            }
            TaskEvent::Loaded { purpose, result } => {
                let merged = match result {
                    Ok(Some(stored)) => match self.merge_stored(&stored) {
                        Ok(()) => Ok(stored),
                        Err(e) => Err(e.to_string()),
                    },
                    Ok(None) => {
                        self.fail_all(CloseReason::NOT_FOUND, Exit::Failed);
                        return;
                    }
                    Err(e) => Err(e.to_string()),
                };
                match purpose {
                    LoadPurpose::Resync => {
                        self.resync_inflight = false;
                        if let Err(e) = merged {
                            tracing::warn!(doc = %self.id, error = %e, "resync load failed");
                            self.resync_again = true;
                        }
                        if std::mem::take(&mut self.resync_again) {
                            self.request_resync();
                        }
                    }
                    LoadPurpose::Compaction => match merged {
                        Ok(stored) => {
                            let counted = (stored.updates.len(), stored.tail_bytes());
                            self.spawn_compact(stored.last_seq(), counted);
                        }
                        Err(e) => {
                            tracing::warn!(doc = %self.id, error = %e, "compaction load failed");
                            self.compacting = false;
                            self.compact_after = Some(Instant::now() + COMPACT_RETRY);
                        }
                    },
                }
            }
            TaskEvent::Subscribed(result) => {
                self.subscribing = false;
                match result {
                    Ok(s) => {
                        self.sub = Some(s);
                        self.subscribed_at = Instant::now();
                        self.remote_seqs.clear();
                        self.resubscribe_backoff = Duration::from_millis(200);
                        self.last_resync = None;
                        self.request_resync();
                    }
                    Err(e) => {
                        tracing::warn!(doc = %self.id, error = %e, "fan-out resubscription failed");
                        self.resubscribe_backoff =
                            (self.resubscribe_backoff * 2).min(Duration::from_secs(5));
                        self.resubscribe_at = Some(Instant::now() + self.resubscribe_backoff);
                    }
                }
            }
        }
    }

    // ----- timers -----

    fn on_timer(&mut self) {
        let now = Instant::now();
        if self.relay_at.is_some_and(|t| t <= now) {
            self.flush_updates();
        }
        if self.aw_flush_at.is_some_and(|t| t <= now) {
            self.flush_awareness();
        }
        if self.resync_at.is_some_and(|t| t <= now) {
            self.resync_at = None;
            self.request_resync();
        }
        if self.behind_check_at.is_some_and(|t| t <= now) {
            self.check_behind(now);
        }
        if self.resubscribe_at.is_some_and(|t| t <= now) && !self.subscribing {
            self.resubscribe_at = None;
            if let Some(fanout) = self.hub.fanout.clone() {
                self.subscribing = true;
                let id = self.id.clone();
                self.tasks.push(Box::pin(async move {
                    TaskEvent::Subscribed(fanout.subscribe(&id).await)
                }));
            }
        }
        if self.pub_tx.is_some() && self.next_heartbeat <= now {
            self.next_heartbeat = now + self.hub.config.fanout_heartbeat;
            if self.pub_seq != self.heartbeat_seq {
                self.publish(Body::Heartbeat);
                self.heartbeat_seq = self.pub_seq;
            }
        }
        if self.next_tick <= now {
            self.next_tick = now + self.tick;
            self.housekeeping(now);
        }
    }

    fn housekeeping(&mut self, now: Instant) {
        self.expire_awareness();
        let dead: Vec<u64> = self
            .conns
            .iter()
            .filter(|(_, c)| c.out.tx.is_closed())
            .map(|(id, _)| *id)
            .collect();
        for id in dead {
            self.remove_conn(id, None);
        }
        self.release_idle_memory();
        if self.conns.is_empty() {
            let since = *self.idle_since.get_or_insert(now);
            if now >= since + self.hub.config.idle_unload_after {
                self.exit = Some(Exit::Idle);
            }
        }
    }

    /// Frees what a quiet document does not need: buffers left large by a burst, and the
    /// awareness once no connection is left and no presence state is live.
    fn release_idle_memory(&mut self) {
        if self.pending.is_empty() && self.pending.capacity() > 0 {
            self.pending = Vec::new();
        }
        if self.held.is_empty() && self.held.capacity() > 0 {
            self.held = std::collections::VecDeque::new();
        }
        if self.conns.is_empty() {
            self.conns.shrink_to_fit();
            let live = self
                .awareness
                .as_ref()
                .is_some_and(|a| a.iter().any(|(_, s)| s.data.is_some()));
            if !live && self.aw_flush_at.is_none() {
                self.awareness = None;
                self.owners = HashMap::new();
                self.aw_local = HashSet::new();
                self.aw_remote = HashSet::new();
            }
        }
    }

    fn after_event(&mut self) {
        if self.outbox_before.is_some() && self.relay_at.is_none() {
            let now = Instant::now();
            let due = self
                .relay_budget
                .due(now, self.conns.len())
                .min(now + self.hub.config.relay_interval);
            if now >= due {
                self.flush_updates();
            } else {
                self.relay_at = Some(due);
            }
        }
        if self.hub.config.awareness_flush.is_zero() {
            self.flush_awareness();
        }
        self.start_append();
        self.maybe_compact();
    }

    // ----- unload -----

    async fn unload(mut self: Box<Self>, mut rx: mpsc::Receiver<Cmd>) {
        let exit = self.exit.unwrap_or(Exit::Idle);
        self.flush_awareness();
        if exit != Exit::Failed {
            let deadline = Instant::now() + UNLOAD_FLUSH_LIMIT;
            let flushed = tokio::time::timeout_at(deadline, self.flush_all()).await;
            if flushed.is_err() || !self.pending.is_empty() {
                tracing::error!(doc = %self.id, unsaved = self.pending.len(), "unloading with unsaved updates");
            }
        }
        // Leave the registry, then turn away whatever is still queued: those commands are sent
        // again to a fresh task, which loads what was just flushed.
        self.hub.unregister(&self.id, self.generation);
        rx.close();
        while let Some(cmd) = rx.recv().await {
            match cmd {
                Cmd::Join(join) => drop(join.ack.send(Err(JoinError::Retry))),
                Cmd::State(reply) => drop(reply.send(Err(JoinError::Retry))),
                Cmd::ServerUpdate(su) => drop(su.reply.send(Err(JoinError::Retry))),
                Cmd::Inbound { .. } | Cmd::Leave { .. } | Cmd::SetAccess { .. } => {}
            }
        }
        let ids: Vec<u64> = self.conns.keys().copied().collect();
        for id in ids {
            self.remove_conn(id, Some(CloseReason::SHUTTING_DOWN));
        }
        tracing::debug!(doc = %self.id, ?exit, "document unloaded");
    }

    /// Waits for store work in flight, then writes every pending update.
    async fn flush_all(&mut self) {
        while let Some(ev) = self.tasks.next().await {
            if let TaskEvent::Appended { .. } = ev {
                self.on_task(ev);
            } else if let TaskEvent::Compacted { .. } = ev {
                self.on_task(ev);
            }
        }
        let mut failures = 0;
        while !self.pending.is_empty() && failures < self.hub.config.store_attempts {
            let n = self
                .pending
                .len()
                .min(self.hub.config.max_batch_updates.max(1));
            let batch: Vec<Bytes> = self.pending[..n].to_vec();
            match self.hub.store.append(&self.id, &batch).await {
                Ok(seq) => {
                    self.pending.drain(..n);
                    self.last_seq = self.last_seq.max(seq);
                }
                Err(StoreError::NotFound) => break,
                Err(e) => {
                    failures += 1;
                    tracing::warn!(doc = %self.id, error = %e, "flush failed");
                    tokio::time::sleep(self.hub.config.store_retry_delay).await;
                }
            }
        }
    }
}

fn far_future() -> Instant {
    Instant::now() + Duration::from_secs(86_400)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Snapshot;
    use yrs::{GetString, Text, XmlElementPrelim, XmlFragment, XmlTextPrelim};

    fn budget(frames_per_sec: u32, burst_ms: u64, max_wait_ms: u64) -> RelayBudget {
        let config = crate::HubConfig {
            relay_frames_per_sec: frames_per_sec,
            relay_burst: Duration::from_millis(burst_ms),
            relay_interval: Duration::from_millis(max_wait_ms),
            ..crate::HubConfig::default()
        };
        RelayBudget::new(&config, Instant::now())
    }

    #[tokio::test(start_paused = true)]
    async fn relays_go_out_at_once_while_the_budget_lasts_then_at_its_rate() {
        // 10,000 frames a second, 10 ms of it in the bucket: 100 frames, four relays to 25.
        let mut b = budget(10_000, 10, 15);
        let t0 = Instant::now();
        for _ in 0..4 {
            assert_eq!(b.due(t0, 25), t0);
            b.spend(t0, 25);
        }
        // empty: the fifth waits for 25 frames' worth, 2.5 ms
        assert_eq!(b.due(t0, 25), t0 + Duration::from_micros(2_500));
        // a relay forced out now (another frame had to follow) leaves it in debt
        b.spend(t0, 25);
        assert_eq!(b.due(t0, 25), t0 + Duration::from_millis(5));
        // after a quiet spell the bucket is full again, not fuller
        let later = t0 + Duration::from_secs(1);
        for _ in 0..4 {
            assert_eq!(b.due(later, 25), later);
            b.spend(later, 25);
        }
        assert!(b.due(later, 25) > later);
    }

    #[tokio::test(start_paused = true)]
    async fn the_budget_never_holds_a_relay_past_the_longest_wait() {
        // 300 connections against a bucket of 150 frames: a relay needs a full bucket, and
        // the debt a relay leaves is bounded by the longest wait (15 ms at 15,000 a second).
        let mut b = budget(15_000, 10, 15);
        let t0 = Instant::now();
        assert_eq!(b.due(t0, 300), t0);
        for _ in 0..10 {
            b.spend(t0, 300);
        }
        // at most 15 ms of debt plus a full bucket's 10 ms, however many relays were forced
        // (the task caps the wait at the relay interval besides)
        assert_eq!(b.due(t0, 300), t0 + Duration::from_millis(25));
        // no budget: always at once
        let mut none = budget(0, 10, 15);
        none.spend(t0, 1_000);
        assert_eq!(none.due(t0, 1_000), t0);
    }

    /// One client types `n` times three characters at `i % k` (removing two characters every
    /// fourth edit); a server receives every update but the `skip`th, applied straight with
    /// `apply_update` (no holding). Returns the client's final text, the skipped update and the
    /// server's document.
    fn server_missing_one(skip: usize, n: u32, k: u32) -> (String, Vec<u8>, Doc) {
        let a = Doc::with_client_id(1);
        let t = a.get_or_insert_text("t");
        let mut updates = Vec::new();
        for i in 0..n {
            let before = a.transact().state_vector();
            t.insert(&mut a.transact_mut(), i % k, "abc");
            if i % 4 == 3 {
                t.remove_range(&mut a.transact_mut(), 0, 2);
            }
            updates.push(a.transact().encode_diff_v1(&before));
        }
        let server = Doc::with_client_id(2);
        for (i, u) in updates.iter().enumerate() {
            if i != skip {
                server
                    .transact_mut()
                    .apply_update(Update::decode_v1(u).unwrap())
                    .unwrap();
            }
        }
        let text = t.get_string(&a.transact());
        (text, updates.swap_remove(skip), server)
    }

    /// Whether yrs's own v2 encoding of `doc` is wrong: it panics, or its bytes do not decode
    /// to the update the v1 encoder writes.
    fn raw_v2_is_wrong(doc: &Doc) -> bool {
        let txn = doc.transact();
        let v1 = Update::decode_v1(&txn.encode_state_as_update_v1(&StateVector::default()));
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            txn.encode_state_as_update_v2(&StateVector::default())
        })) {
            Err(_) => true,
            Ok(v2) => match Update::decode_v2(&v2) {
                Ok(u) => u != v1.unwrap(),
                Err(_) => true,
            },
        }
    }

    /// The cases where yrs 0.28.1's v2 encoder fails (found while choosing the snapshot
    /// encoding): the snapshot falls back to v1, which reloads intact.
    #[test]
    fn snapshots_fall_back_to_v1_where_the_v2_encoder_fails() {
        // (skipped update, edits, positions): a pending struct with wrong v2 bytes (the case
        // first found), a pending struct on which the v2 encoder panics, and a struct integrated
        // behind a "skip" placeholder (no pending struct left) with wrong v2 bytes.
        for (skip, n, k, pending) in [(3, 30, 5, true), (1, 10, 3, true), (13, 30, 7, false)] {
            let (expected, missing, server) = server_missing_one(skip, n, k);
            assert_eq!(server.transact().has_missing_updates(), pending);
            assert!(
                raw_v2_is_wrong(&server),
                "case {skip}/{n}/{k}: v2 should fail"
            );
            let v1 = server
                .transact()
                .encode_state_as_update_v1(&StateVector::default());
            assert!(
                faithful_v2(&server.transact(), &v1).is_none(),
                "case {skip}/{n}/{k}: the round-trip check rejects the v2 bytes"
            );
            let (snapshot, encoding) = encode_snapshot(&server);
            assert_eq!(encoding, SnapshotEncoding::V1);
            assert_eq!(snapshot, Bytes::from(v1));
            let stored = StoredDoc {
                snapshot: Some(Snapshot {
                    update_v1: snapshot,
                    upto_seq: u64::from(n) - 1,
                }),
                updates: vec![(u64::from(n), Bytes::from(missing))],
            };
            assert_eq!(
                stored.snapshot.as_ref().unwrap().encoding(),
                SnapshotEncoding::V1
            );
            let reloaded = doc_from_stored(&stored).unwrap();
            if pending {
                assert!(!reloaded.transact().has_missing_updates());
                let rt = reloaded.get_or_insert_text("t");
                assert_eq!(rt.get_string(&reloaded.transact()), expected);
            }
        }
    }

    /// A whole document (several clients, text and XML, deletions) is snapshotted in v2, which
    /// is smaller than v1 and reloads to the same state.
    #[test]
    fn whole_documents_snapshot_in_v2_and_reload() {
        let a = Doc::with_client_id(11);
        let b = Doc::with_client_id(2_000_000_000);
        for (i, d) in [&a, &b].into_iter().enumerate() {
            let f = d.get_or_insert_xml_fragment("section:x");
            let t = d.get_or_insert_text("t");
            let mut txn = d.transact_mut();
            for p in 0..5u32 {
                let para = f.push_back(&mut txn, XmlElementPrelim::empty("paragraph"));
                para.push_back(
                    &mut txn,
                    XmlTextPrelim::new(format!("client {i} paragraph {p}")),
                );
            }
            t.insert(&mut txn, 0, "some typed text");
            t.remove_range(&mut txn, 2, 4);
        }
        let ua = a
            .transact()
            .encode_state_as_update_v1(&StateVector::default());
        let ub = b
            .transact()
            .encode_state_as_update_v1(&StateVector::default());
        for (d, u) in [(&a, &ub), (&b, &ua)] {
            d.transact_mut()
                .apply_update(Update::decode_v1(u).unwrap())
                .unwrap();
        }
        let v1 = a
            .transact()
            .encode_state_as_update_v1(&StateVector::default());
        let (snapshot, encoding) = encode_snapshot(&a);
        assert_eq!(encoding, SnapshotEncoding::V2);
        assert!(
            snapshot.len() < v1.len(),
            "{} < {}",
            snapshot.len(),
            v1.len()
        );
        let stored = StoredDoc {
            snapshot: Some(Snapshot {
                update_v1: snapshot,
                upto_seq: 1,
            }),
            updates: Vec::new(),
        };
        assert_eq!(
            stored.snapshot.as_ref().unwrap().encoding(),
            SnapshotEncoding::V2
        );
        let reloaded = doc_from_stored(&stored).unwrap();
        let again = reloaded
            .transact()
            .encode_state_as_update_v1(&StateVector::default());
        assert!(Update::decode_v1(&again).unwrap() == Update::decode_v1(&v1).unwrap());
        // v1 snapshots, including an empty document's, are still read as v1
        assert_eq!(SnapshotEncoding::detect(&v1), SnapshotEncoding::V1);
        assert_eq!(SnapshotEncoding::detect(&[0, 0]), SnapshotEncoding::V1);
        let empty = Doc::new();
        let (bytes, _) = encode_snapshot(&empty);
        let stored = StoredDoc {
            snapshot: Some(Snapshot {
                update_v1: bytes,
                upto_seq: 1,
            }),
            updates: Vec::new(),
        };
        assert!(doc_from_stored(&stored).is_ok());
    }

    /// A document holding pending updates (an edit that arrived before the one it builds on)
    /// must snapshot (in v1: yrs 0.28.1's v2 encoder breaks on pending updates) and reload
    /// intact.
    #[test]
    fn snapshots_of_documents_with_pending_updates_reload_intact() {
        let a = Doc::new();
        let t = a.get_or_insert_text("t");
        let mut updates = Vec::new();
        for i in 0..30u32 {
            let before = a.transact().state_vector();
            t.insert(&mut a.transact_mut(), i % 5, "abc");
            if i % 4 == 3 {
                t.remove_range(&mut a.transact_mut(), 0, 2);
            }
            updates.push(a.transact().encode_diff_v1(&before));
        }
        let server = Doc::new();
        for (i, u) in updates.iter().enumerate() {
            if i != 3 {
                server
                    .transact_mut()
                    .apply_update(Update::decode_v1(u).unwrap())
                    .unwrap();
            }
        }
        assert!(server.transact().has_missing_updates());
        let snapshot = server
            .transact()
            .encode_state_as_update_v1(&StateVector::default());
        let stored = StoredDoc {
            snapshot: Some(Snapshot {
                update_v1: Bytes::from(snapshot),
                upto_seq: 29,
            }),
            updates: vec![(30, Bytes::from(updates[3].clone()))],
        };
        let reloaded = doc_from_stored(&stored).unwrap();
        assert!(!reloaded.transact().has_missing_updates());
        let rt = reloaded.get_or_insert_text("t");
        assert_eq!(
            rt.get_string(&reloaded.transact()),
            t.get_string(&a.transact())
        );
    }
}
