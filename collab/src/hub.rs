//! The [`Hub`]: the registry of live documents, and the connection driver
//! ([`Hub::serve_connection`]) that the server runs for each authorised WebSocket.

use std::hash::{BuildHasher, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use bytes::Bytes;
use dashmap::DashMap;
use futures_util::{Sink, SinkExt, Stream, StreamExt};
use tokio::sync::{mpsc, oneshot, watch};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::close::CloseReason;
use crate::doc_task::{self, Cmd, JoinError, Outbound};
use crate::fanout::Fanout;
use crate::protocol::{self, Inbound};
use crate::store::{DocStore, StoreError};

/// What a connection may do with a document. The server decides it from the caller's role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// Editors: updates are applied, persisted and relayed.
    ReadWrite,
    /// Viewers: they receive everything and their presence (awareness) is relayed, but their
    /// SyncStep2 and Update messages are dropped and answered with permission denied.
    ReadOnly,
}

/// What the server allows a connection at this moment: its [`Access`], or the reason it must
/// close. The server holds the sending side of a `watch` channel of these and changes it when the
/// caller's session ends or role changes; see [`Hub::serve_connection_with`].
pub type Rights = Result<Access, CloseReason>;

/// Tuning of a [`Hub`]. `HubConfig::default()` holds the production values.
#[derive(Debug, Clone)]
pub struct HubConfig {
    /// This instance's id in fan-out messages (random by default; must differ between
    /// instances).
    pub instance_id: u64,
    /// Largest incoming frame accepted; a larger one closes the connection with
    /// [`crate::close::MESSAGE_TOO_LARGE`]. Default 8 MiB.
    pub max_frame_bytes: usize,
    /// Frames a connection may have queued before it is dropped as a slow consumer.
    /// Default 512.
    pub outbound_queue_frames: usize,
    /// Bytes a connection may have queued before it is dropped as a slow consumer (a single
    /// frame larger than this is still accepted into an empty queue). Default 16 MiB.
    pub outbound_queue_bytes: usize,
    /// A connection that sends nothing for this long is closed with
    /// [`crate::close::IDLE_TIMEOUT`]. Clients renew their awareness every 15 s. Default 60 s.
    pub read_timeout: Duration,
    /// A document with no connection is flushed and unloaded after this long. Default 10 s.
    pub idle_unload_after: Duration,
    /// Awareness entries not renewed for this long are removed (and the removal broadcast).
    /// Default 30 s, as in y-protocols.
    pub awareness_timeout: Duration,
    /// Awareness changes are gathered for this long and sent as one message. Zero sends each
    /// change at once. Default 50 ms.
    pub awareness_flush: Duration,
    /// Frames a second a document may write to its connections for relayed updates (a relay to
    /// n connections spends n; a token bucket holding `relay_burst` worth). While the budget
    /// lasts each update goes out at once; past it, the updates that arrive meanwhile wait and
    /// go out merged, one message per connection, so a crowded document sends fewer, larger
    /// messages instead of one per edit to every connection. Zero: no budget. Default 15,000.
    pub relay_frames_per_sec: u32,
    /// What the relay budget's bucket holds, as time at its rate. Default 10 ms.
    pub relay_burst: Duration,
    /// Longest an update waits for the relay budget: it goes out after this long whatever the
    /// budget says. Zero relays after each batch of messages. Default 15 ms.
    pub relay_interval: Duration,
    /// Compact when the log tail since the snapshot holds more updates than this.
    /// Default 500.
    pub compact_after_updates: usize,
    /// Compact when the log tail since the snapshot holds more bytes than this.
    /// Default 1 MiB.
    pub compact_after_bytes: usize,
    /// Most updates written by one `append` call. Default 1,000.
    pub max_batch_updates: usize,
    /// Attempts of a failing `append` before the document's connections are closed with
    /// [`crate::close::INTERNAL_ERROR`] and the document is unloaded. Default 3.
    pub store_attempts: u32,
    /// Pause between two attempts of a failing store operation. Default 200 ms.
    pub store_retry_delay: Duration,
    /// With fan-out, a document that published since its last heartbeat sends one after this
    /// long, so other instances notice a lost message even when nothing follows it.
    /// Default 5 s.
    pub fanout_heartbeat: Duration,
    /// Depth of a document task's command queue (connections wait when it is full).
    /// Default 1,024.
    pub command_queue: usize,
}

impl Default for HubConfig {
    fn default() -> Self {
        Self {
            instance_id: random_u64(),
            max_frame_bytes: 8 << 20,
            outbound_queue_frames: 512,
            outbound_queue_bytes: 16 << 20,
            read_timeout: Duration::from_secs(60),
            idle_unload_after: Duration::from_secs(10),
            awareness_timeout: Duration::from_secs(30),
            awareness_flush: Duration::from_millis(50),
            relay_frames_per_sec: 15_000,
            relay_burst: Duration::from_millis(10),
            relay_interval: Duration::from_millis(15),
            compact_after_updates: 500,
            compact_after_bytes: 1 << 20,
            max_batch_updates: 1000,
            store_attempts: 3,
            store_retry_delay: Duration::from_millis(200),
            fanout_heartbeat: Duration::from_secs(5),
            command_queue: 1024,
        }
    }
}

/// A random 64-bit value from the standard library's per-process random hasher keys.
pub(crate) fn random_u64() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    if let Ok(d) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        h.write_u128(d.as_nanos());
    }
    h.finish()
}

#[derive(Clone)]
pub(crate) struct DocEntry {
    pub tx: mpsc::Sender<Cmd>,
    pub generation: u64,
}

pub(crate) struct Inner {
    pub config: HubConfig,
    pub store: Arc<dyn DocStore>,
    pub fanout: Option<Arc<dyn Fanout>>,
    pub docs: DashMap<String, DocEntry>,
    next_conn: AtomicU64,
    next_generation: AtomicU64,
    pub shutdown: CancellationToken,
    pub tracker: TaskTracker,
}

impl Inner {
    /// Removes `doc_id` from the registry if it is still the entry of `generation`.
    pub(crate) fn unregister(&self, doc_id: &str, generation: u64) {
        self.docs
            .remove_if(doc_id, |_, e| e.generation == generation);
    }
}

/// The registry of live documents. Each loaded document is owned by one task that holds its
/// `Doc` and awareness; connections and the server talk to it through a bounded queue.
/// Cheap to clone (all clones share the registry).
#[derive(Clone)]
pub struct Hub {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Hub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hub")
            .field("instance_id", &self.inner.config.instance_id)
            .field("loaded", &self.inner.docs.len())
            .finish_non_exhaustive()
    }
}

const JOIN_ATTEMPTS: usize = 5;

impl Hub {
    /// A hub for a single instance (no fan-out).
    pub fn new(store: Arc<dyn DocStore>, config: HubConfig) -> Self {
        Self::build(store, None, config)
    }

    /// A hub that exchanges updates and awareness with other instances through `fanout`.
    pub fn with_fanout(
        store: Arc<dyn DocStore>,
        fanout: Arc<dyn Fanout>,
        config: HubConfig,
    ) -> Self {
        Self::build(store, Some(fanout), config)
    }

    fn build(store: Arc<dyn DocStore>, fanout: Option<Arc<dyn Fanout>>, config: HubConfig) -> Self {
        Self {
            inner: Arc::new(Inner {
                config,
                store,
                fanout,
                docs: DashMap::new(),
                next_conn: AtomicU64::new(1),
                next_generation: AtomicU64::new(1),
                shutdown: CancellationToken::new(),
                tracker: TaskTracker::new(),
            }),
        }
    }

    /// This hub's configuration.
    pub fn config(&self) -> &HubConfig {
        &self.inner.config
    }

    /// Number of documents currently loaded.
    pub fn loaded_documents(&self) -> usize {
        self.inner.docs.len()
    }

    /// Whether `doc_id` is currently loaded.
    pub fn is_loaded(&self, doc_id: &str) -> bool {
        self.inner.docs.contains_key(doc_id)
    }

    /// Creates a document in the store with its initial content (a v1 update, e.g. from
    /// [`crate::report::initial_update`]). Fails with [`StoreError::AlreadyExists`] if it exists.
    pub async fn create_document(
        &self,
        doc_id: &str,
        initial_update_v1: Vec<u8>,
    ) -> Result<(), StoreError> {
        self.inner
            .store
            .create(doc_id, Bytes::from(initial_update_v1))
            .await
    }

    fn entry(&self, doc_id: &str) -> Option<DocEntry> {
        if let Some(e) = self.inner.docs.get(doc_id) {
            return Some(e.clone());
        }
        if self.inner.shutdown.is_cancelled() {
            return None;
        }
        let entry = self.inner.docs.entry(doc_id.to_owned()).or_insert_with(|| {
            let (tx, rx) = mpsc::channel(self.inner.config.command_queue.max(1));
            let generation = self.inner.next_generation.fetch_add(1, Ordering::Relaxed);
            let task = doc_task::run(self.inner.clone(), doc_id.into(), generation, rx);
            self.inner.tracker.spawn(task);
            DocEntry { tx, generation }
        });
        Some(entry.clone())
    }

    /// Sends a command to the document's task, loading the document if needed. Retries when
    /// the task it reached had stopped taking commands (it was unloading).
    async fn send(&self, doc_id: &str, mut cmd: Cmd) -> Result<DocEntry, CloseReason> {
        for _ in 0..JOIN_ATTEMPTS {
            let Some(entry) = self.entry(doc_id) else {
                return Err(CloseReason::SHUTTING_DOWN);
            };
            match entry.tx.send(cmd).await {
                Ok(()) => return Ok(entry),
                Err(mpsc::error::SendError(back)) => {
                    cmd = back;
                    self.inner.unregister(doc_id, entry.generation);
                }
            }
        }
        Err(CloseReason::INTERNAL_ERROR)
    }

    /// The current full state of a loaded or loadable document, as a v1 update.
    pub async fn document_state_v1(&self, doc_id: &str) -> Result<Vec<u8>, CloseReason> {
        for _ in 0..JOIN_ATTEMPTS {
            let (tx, rx) = oneshot::channel();
            self.send(doc_id, Cmd::State(tx)).await?;
            match rx.await {
                Ok(Ok(state)) => return Ok(state),
                Ok(Err(JoinError::Refused(reason))) => return Err(reason),
                Ok(Err(JoinError::Retry)) | Err(_) => continue,
            }
        }
        Err(CloseReason::INTERNAL_ERROR)
    }

    /// Applies an update made by the server itself (for example AI-generated section text) to
    /// a document: it is persisted, sent to every connection and to other instances, exactly
    /// like a client's edit.
    pub async fn apply_update(&self, doc_id: &str, update_v1: Vec<u8>) -> Result<(), CloseReason> {
        let update = Bytes::from(update_v1);
        for _ in 0..JOIN_ATTEMPTS {
            let (tx, rx) = oneshot::channel();
            self.send(
                doc_id,
                Cmd::ServerUpdate(Box::new(doc_task::ServerUpdate {
                    update: update.clone(),
                    reply: tx,
                })),
            )
            .await?;
            match rx.await {
                Ok(Ok(())) => return Ok(()),
                Ok(Err(JoinError::Refused(reason))) => return Err(reason),
                Ok(Err(JoinError::Retry)) | Err(_) => continue,
            }
        }
        Err(CloseReason::INTERNAL_ERROR)
    }

    /// Closes every connection with [`crate::close::SHUTTING_DOWN`], flushes pending writes,
    /// unloads every document and waits for their tasks. New connections are refused.
    pub async fn shutdown(&self) {
        self.inner.shutdown.cancel();
        self.inner.tracker.close();
        self.inner.tracker.wait().await;
    }

    /// Serves one authorised connection until it ends, and returns why it ended: send that
    /// code and reason in the WebSocket close frame.
    ///
    /// `stream` yields the binary frames received from the peer (an empty frame counts as
    /// activity and is otherwise ignored: map Ping/Pong to it if you like); `sink` takes the
    /// binary frames to send, one y-protocols message each. Pass `&mut sink` to keep the sink
    /// for the close frame. With axum:
    ///
    /// ```ignore
    /// let (mut tx, rx) = socket.split();
    /// let rx = rx.filter_map(|m| async move { match m {
    ///     Ok(Message::Binary(b)) => Some(Ok(b)),
    ///     Ok(Message::Ping(_) | Message::Pong(_)) => Some(Ok(Bytes::new())),
    ///     Ok(Message::Close(_)) => None,
    ///     Ok(Message::Text(_)) => Some(Ok(Bytes::new())),
    ///     Err(e) => Some(Err(e)),
    /// }});
    /// let mut frames = (&mut tx).with(|b| async move { Ok::<_, axum::Error>(Message::Binary(b)) });
    /// let why = hub.serve_connection(&report_id, access, Box::pin(rx), &mut frames).await;
    /// tx.send(Message::Close(Some(CloseFrame { code: why.code, reason: why.reason.into() }))).await.ok();
    /// ```
    pub async fn serve_connection<St, Si, E>(
        &self,
        doc_id: &str,
        access: Access,
        stream: St,
        sink: Si,
    ) -> CloseReason
    where
        St: Stream<Item = Result<Bytes, E>> + Unpin,
        Si: Sink<Bytes> + Unpin,
    {
        let (_fixed, rights) = watch::channel(Ok(access));
        self.serve_connection_with(doc_id, rights, stream, sink)
            .await
    }

    /// [`Hub::serve_connection`] with rights that the server may change while the connection is
    /// open: a change to another [`Access`] takes effect from the next message read (a viewer's
    /// edits are refused from then on, an editor's accepted), and an `Err` closes the connection
    /// with that reason. Dropping the sender freezes the rights as they last were.
    pub async fn serve_connection_with<St, Si, E>(
        &self,
        doc_id: &str,
        mut rights: watch::Receiver<Rights>,
        mut stream: St,
        mut sink: Si,
    ) -> CloseReason
    where
        St: Stream<Item = Result<Bytes, E>> + Unpin,
        Si: Sink<Bytes> + Unpin,
    {
        let access = match *rights.borrow_and_update() {
            Ok(access) => access,
            Err(refused) => return refused,
        };
        let reader_rights = rights.clone();
        let cfg = &self.inner.config;
        let conn = self.inner.next_conn.fetch_add(1, Ordering::Relaxed);
        let (out_tx, mut out_rx) = mpsc::channel::<Bytes>(cfg.outbound_queue_frames.max(1));
        let queued = Arc::new(AtomicUsize::new(0));
        let out = Outbound {
            tx: out_tx,
            queued: queued.clone(),
            max_bytes: cfg.outbound_queue_bytes,
        };

        // Join the document task; wait for its acknowledgement before reading anything, so no
        // message can reach a task that is unloading.
        let mut joined = None;
        for _ in 0..JOIN_ATTEMPTS {
            let (ack_tx, ack_rx) = oneshot::channel();
            let (close_tx, close_rx) = oneshot::channel();
            let cmd = Cmd::Join(Box::new(doc_task::Join {
                conn,
                access,
                out: out.clone(),
                close: close_tx,
                ack: ack_tx,
            }));
            let entry = match self.send(doc_id, cmd).await {
                Ok(entry) => entry,
                Err(reason) => return reason,
            };
            match ack_rx.await {
                Ok(Ok(())) => {
                    joined = Some((entry, close_rx));
                    break;
                }
                Ok(Err(JoinError::Refused(reason))) => return reason,
                Ok(Err(JoinError::Retry)) | Err(_) => continue,
            }
        }
        let Some((entry, mut close_rx)) = joined else {
            return CloseReason::INTERNAL_ERROR;
        };
        let _leave = LeaveGuard {
            tx: entry.tx.clone(),
            conn,
        };

        let reader = async {
            loop {
                let frame = match tokio::time::timeout(cfg.read_timeout, stream.next()).await {
                    Err(_) => return CloseReason::IDLE_TIMEOUT,
                    Ok(None) | Ok(Some(Err(_))) => return CloseReason::NORMAL,
                    Ok(Some(Ok(frame))) => frame,
                };
                if frame.len() > cfg.max_frame_bytes {
                    return CloseReason::MESSAGE_TOO_LARGE;
                }
                if frame.is_empty() {
                    continue;
                }
                let Ok(messages) = protocol::decode_frame(&frame) else {
                    return CloseReason::INVALID_MESSAGE;
                };
                for msg in messages {
                    // The rights as they are now: a role change applies from the next message.
                    let access = match *reader_rights.borrow() {
                        Ok(access) => access,
                        Err(revoked) => return revoked,
                    };
                    let msg = match msg {
                        Inbound::SyncStep2(u) | Inbound::Update(u)
                            if access == Access::ReadOnly =>
                        {
                            // A viewer's empty SyncStep2 (its answer to our SyncStep1) is not an
                            // edit: drop it silently. Anything else is refused.
                            if &u[..] != protocol::EMPTY_UPDATE_V1
                                && out
                                    .push(protocol::permission_denied(protocol::READ_ONLY_REASON))
                                    .is_err()
                            {
                                return CloseReason::SLOW_CONSUMER;
                            }
                            continue;
                        }
                        Inbound::Ignored(_) => continue,
                        other => other,
                    };
                    if entry
                        .tx
                        .send(Cmd::Inbound {
                            conn,
                            msg: Box::new(msg),
                        })
                        .await
                        .is_err()
                    {
                        return CloseReason::INTERNAL_ERROR;
                    }
                }
            }
        };
        let writer = async {
            while let Some(frame) = out_rx.recv().await {
                queued.fetch_sub(frame.len(), Ordering::AcqRel);
                if sink.feed(frame).await.is_err() {
                    return CloseReason::NORMAL;
                }
                // Write what is already queued before flushing once.
                for _ in 0..64 {
                    let Ok(frame) = out_rx.try_recv() else { break };
                    queued.fetch_sub(frame.len(), Ordering::AcqRel);
                    if sink.feed(frame).await.is_err() {
                        return CloseReason::NORMAL;
                    }
                }
                if sink.flush().await.is_err() {
                    return CloseReason::NORMAL;
                }
            }
            CloseReason::INTERNAL_ERROR
        };
        let watch_rights = async {
            loop {
                if rights.changed().await.is_err() {
                    // The server let go of the rights: they stay as they are.
                    std::future::pending::<()>().await;
                }
                let now = *rights.borrow_and_update();
                match now {
                    Err(revoked) => return revoked,
                    Ok(access) => {
                        if entry
                            .tx
                            .send(Cmd::SetAccess { conn, access })
                            .await
                            .is_err()
                        {
                            return CloseReason::INTERNAL_ERROR;
                        }
                    }
                }
            }
        };
        tokio::pin!(reader, writer, watch_rights);
        tokio::select! {
            biased;
            closed = &mut close_rx => closed.unwrap_or(CloseReason::INTERNAL_ERROR),
            why = &mut watch_rights => why,
            why = &mut reader => why,
            why = &mut writer => why,
        }
    }
}

/// Tells the document task that a connection is gone, even when the connection future is
/// dropped half-way.
struct LeaveGuard {
    tx: mpsc::Sender<Cmd>,
    conn: u64,
}

impl Drop for LeaveGuard {
    fn drop(&mut self) {
        if let Err(mpsc::error::TrySendError::Full(cmd)) =
            self.tx.try_send(Cmd::Leave { conn: self.conn })
        {
            let tx = self.tx.clone();
            if let Ok(rt) = tokio::runtime::Handle::try_current() {
                rt.spawn(async move {
                    let _ = tx.send(cmd).await;
                });
            }
        }
    }
}
