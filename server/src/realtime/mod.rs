//! The realtime event hub: one authenticated WebSocket per browser tab at `/api/ws`, topic
//! subscriptions checked against the caller's rights, and events `{topic, seq, type, data}` fanned
//! out to every subscriber after the database commit they describe.
//!
//! - **Topics** ([`topics::Topic`]): per client (board, files, validations, savings), per
//!   processing run, admin-wide. A subscription is allowed by [`topics::Topic::allows`] only.
//! - **Sequence**: each topic has a global sequence (`realtime_topics` row) incremented by
//!   [`next_seq`] in the same transaction as the change, so it is the same on every instance; a
//!   client that sees a gap refetches.
//! - **Fan-out**: an event is serialised once; the same bytes go into each subscriber's bounded
//!   queue with `try_send`. A full queue closes that connection with
//!   [`close::SLOW_CONSUMER`] instead of letting memory grow.
//! - **Buses**: events published on this instance are delivered locally at once and, when
//!   `REDIS_URL` is set, also published on Redis so that the other instances deliver them to their
//!   own subscribers ([`redis_bus`]). Without Redis the hub is in-process only.
//! - **Re-checks**: every [`RECHECK_INTERVAL`] the sessions behind open sockets are authenticated
//!   again through [`crate::auth::authenticate`]; an ended session closes its sockets
//!   ([`close::UNAUTHENTICATED`]) and subscriptions the user lost (role or membership change) are
//!   dropped with an `unsubscribed` frame.

pub mod close;
pub mod events;
pub mod redis_bus;
pub mod topics;
pub mod ws;

use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use dashmap::DashMap;
use serde::Serialize;
use sqlx::{AnyConnection, AnyExecutor};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::auth::AuthUser;
use crate::state::AppState;
pub use events::{Event, Reason};
pub use topics::Topic;

/// Frames a connection may have queued before it counts as a slow consumer and is closed.
pub const SEND_QUEUE: usize = 256;
/// How often the sessions behind open sockets are checked again.
pub const RECHECK_INTERVAL: Duration = Duration::from_secs(15);
/// Most topics one connection may subscribe to.
pub const MAX_SUBSCRIPTIONS: usize = 64;

/// Serialises a control frame (no publish time); see [`encode_at`].
pub fn encode(topic: &str, seq: i64, event: &Event) -> Utf8Bytes {
    encode_at(topic, seq, event, None)
}

/// Serialises a frame once; the bytes are then shared by every subscriber (on every instance).
/// `at` is the publish time in microseconds since the UNIX epoch: what delivery latency is
/// measured from (`load-tests runs-live`).
pub fn encode_at(topic: &str, seq: i64, event: &Event, at: Option<i64>) -> Utf8Bytes {
    #[derive(Serialize)]
    struct Frame<'a> {
        topic: &'a str,
        seq: i64,
        #[serde(skip_serializing_if = "Option::is_none")]
        at: Option<i64>,
        #[serde(flatten)]
        event: &'a Event,
    }
    match serde_json::to_string(&Frame {
        topic,
        seq,
        at,
        event,
    }) {
        Ok(s) => Utf8Bytes::from(s),
        Err(e) => {
            tracing::error!(error = %e, topic, kind = event.name(), "event payload could not be serialised");
            Utf8Bytes::from(format!(
                "{{\"topic\":{},\"seq\":{seq},\"type\":\"resync\"}}",
                serde_json::Value::from(topic)
            ))
        }
    }
}

/// Now in microseconds since the UNIX epoch (a frame's publish time).
fn now_micros() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
}

/// Increments a topic's sequence and returns the new value. Call it as the FIRST statement of the
/// transaction that makes the change the event describes: on PostgreSQL the row lock (and on
/// SQLite the write lock) then serialises every change of the topic, so sequence order is commit
/// order.
pub async fn next_seq(conn: &mut AnyConnection, topic: &Topic) -> sqlx::Result<i64> {
    let (seq,): (i64,) = sqlx::query_as(
        "INSERT INTO realtime_topics (topic, seq) VALUES ($1, 1)
         ON CONFLICT (topic) DO UPDATE SET seq = realtime_topics.seq + 1 RETURNING seq",
    )
    .bind(topic.to_string())
    .fetch_one(conn)
    .await?;
    Ok(seq)
}

/// A topic's last sequence number (0 before its first event).
pub async fn current_seq<'e>(ex: impl AnyExecutor<'e>, topic: &str) -> sqlx::Result<i64> {
    let row: Option<(i64,)> = sqlx::query_as("SELECT seq FROM realtime_topics WHERE topic = $1")
        .bind(topic)
        .fetch_optional(ex)
        .await?;
    Ok(row.map_or(0, |r| r.0))
}

/// The last sequence numbers of several topics in one read (0 for a topic before its first
/// event), in the order given: a socket subscribing to a page's worth of topics reads them at
/// once instead of holding its frames back behind one read per topic.
pub async fn current_seqs<'e>(ex: impl AnyExecutor<'e>, topics: &[&str]) -> sqlx::Result<Vec<i64>> {
    if topics.is_empty() {
        return Ok(Vec::new());
    }
    let placeholders = (1..=topics.len())
        .map(|i| format!("${i}"))
        .collect::<Vec<_>>()
        .join(", ");
    // Only numbered placeholders are formatted in; the topics are bound.
    let sql = format!("SELECT topic, seq FROM realtime_topics WHERE topic IN ({placeholders})");
    let mut query = sqlx::query_as::<_, (String, i64)>(sqlx::AssertSqlSafe(sql));
    for t in topics {
        query = query.bind(*t);
    }
    let found: std::collections::HashMap<String, i64> =
        query.fetch_all(ex).await?.into_iter().collect();
    Ok(topics
        .iter()
        .map(|t| found.get(*t).copied().unwrap_or(0))
        .collect())
}

/// Counters of the hub, for tests, metrics and the load test.
#[derive(Debug, Default)]
pub struct Stats {
    /// Connections accepted since start.
    pub connections_opened: AtomicU64,
    /// Events published on this instance.
    pub published: AtomicU64,
    /// Events received from other instances.
    pub relayed_in: AtomicU64,
    /// Frames queued to subscribers.
    pub delivered: AtomicU64,
    /// Connections closed because their queue overflowed.
    pub slow_consumers: AtomicU64,
    /// Events that could not be handed to the cross-instance bus.
    pub bus_dropped: AtomicU64,
}

/// One live socket as the hub sees it.
#[derive(Debug)]
pub struct Conn {
    id: u64,
    tx: mpsc::Sender<Utf8Bytes>,
    kill: CancellationToken,
    close_code: AtomicU16,
    user: Mutex<AuthUser>,
    topics: Mutex<Vec<String>>,
}

impl Conn {
    /// Asks the connection's task to close with `code` (the first reason given wins).
    pub fn close(&self, code: u16) {
        let _ = self
            .close_code
            .compare_exchange(0, code, Ordering::AcqRel, Ordering::Acquire);
        self.kill.cancel();
    }

    /// The code the connection was asked to close with ([`close::SHUTTING_DOWN`] when the hub
    /// as a whole is stopping).
    pub fn close_code(&self) -> u16 {
        match self.close_code.load(Ordering::Acquire) {
            0 => close::SHUTTING_DOWN,
            c => c,
        }
    }

    fn user(&self) -> AuthUser {
        self.user.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

#[derive(Debug)]
struct Inner {
    topics: DashMap<String, Vec<Arc<Conn>>>,
    conns: DashMap<u64, Arc<Conn>>,
    next_id: AtomicU64,
    instance: String,
    bus: OnceLock<redis_bus::Publisher>,
    stats: Stats,
    shutdown: CancellationToken,
}

/// The event hub. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Hub {
    inner: Arc<Inner>,
}

impl Default for Hub {
    fn default() -> Self {
        Hub::new()
    }
}

/// The answer to a subscription request.
#[derive(Debug, PartialEq, Eq)]
pub enum SubscribeOutcome {
    /// Subscribed (or already subscribed).
    Subscribed,
    /// Not a known topic.
    UnknownTopic,
    /// The caller may not receive this topic.
    Forbidden,
    /// The connection has too many subscriptions.
    TooMany,
}

impl Hub {
    /// An in-process hub (no cross-instance bus until [`Hub::attach_bus`]).
    pub fn new() -> Hub {
        Hub {
            inner: Arc::new(Inner {
                topics: DashMap::new(),
                conns: DashMap::new(),
                next_id: AtomicU64::new(1),
                instance: uuid::Uuid::new_v4().simple().to_string(),
                bus: OnceLock::new(),
                stats: Stats::default(),
                shutdown: CancellationToken::new(),
            }),
        }
    }

    /// This instance's id on the cross-instance bus.
    pub fn instance_id(&self) -> &str {
        &self.inner.instance
    }

    /// Connects the hub to the Redis bus (cross-instance delivery).
    pub fn attach_bus(&self, publisher: redis_bus::Publisher) {
        let _ = self.inner.bus.set(publisher);
    }

    /// Counters.
    pub fn stats(&self) -> &Stats {
        &self.inner.stats
    }

    /// Open connections.
    pub fn connection_count(&self) -> usize {
        self.inner.conns.len()
    }

    /// Subscribers of a topic on this instance.
    pub fn subscriber_count(&self, topic: &str) -> usize {
        self.inner.topics.get(topic).map_or(0, |s| s.len())
    }

    /// Registers a new connection for `user`; returns it and the receiving end of its queue.
    pub fn register(
        &self,
        user: AuthUser,
    ) -> (Arc<Conn>, mpsc::Receiver<Utf8Bytes>, CancellationToken) {
        let (tx, rx) = mpsc::channel(SEND_QUEUE);
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let kill = self.inner.shutdown.child_token();
        let conn = Arc::new(Conn {
            id,
            tx,
            kill: kill.clone(),
            close_code: AtomicU16::new(0),
            user: Mutex::new(user),
            topics: Mutex::new(Vec::new()),
        });
        self.inner.conns.insert(id, conn.clone());
        self.inner
            .stats
            .connections_opened
            .fetch_add(1, Ordering::Relaxed);
        (conn, rx, kill)
    }

    /// Removes a connection and all its subscriptions.
    pub fn unregister(&self, conn: &Conn) {
        self.inner.conns.remove(&conn.id);
        let topics = std::mem::take(&mut *conn.topics.lock().unwrap_or_else(|e| e.into_inner()));
        for t in topics {
            self.remove_subscriber(&t, conn.id);
        }
    }

    fn remove_subscriber(&self, topic: &str, id: u64) {
        if let dashmap::Entry::Occupied(mut e) = self.inner.topics.entry(topic.to_string()) {
            e.get_mut().retain(|c| c.id != id);
            if e.get().is_empty() {
                e.remove();
            }
        }
    }

    /// Subscribes a connection to a topic after checking the connection's user may receive it.
    pub fn subscribe(&self, conn: &Arc<Conn>, topic_name: &str) -> SubscribeOutcome {
        let Some(topic) = Topic::parse(topic_name) else {
            return SubscribeOutcome::UnknownTopic;
        };
        if !topic.allows(&conn.user()) {
            return SubscribeOutcome::Forbidden;
        }
        {
            let mut mine = conn.topics.lock().unwrap_or_else(|e| e.into_inner());
            if mine.iter().any(|t| t == topic_name) {
                return SubscribeOutcome::Subscribed;
            }
            if mine.len() >= MAX_SUBSCRIPTIONS {
                return SubscribeOutcome::TooMany;
            }
            mine.push(topic_name.to_string());
        }
        self.inner
            .topics
            .entry(topic_name.to_string())
            .or_default()
            .push(conn.clone());
        SubscribeOutcome::Subscribed
    }

    /// Removes one subscription of a connection; whether it existed.
    pub fn unsubscribe(&self, conn: &Conn, topic: &str) -> bool {
        let had = {
            let mut mine = conn.topics.lock().unwrap_or_else(|e| e.into_inner());
            let before = mine.len();
            mine.retain(|t| t != topic);
            mine.len() != before
        };
        if had {
            self.remove_subscriber(topic, conn.id);
        }
        had
    }

    /// Publishes an event: to this instance's subscribers at once, and to the other instances when
    /// a bus is attached. Call it only after the transaction that allocated `seq` has committed.
    pub fn publish(&self, topic: &Topic, seq: i64, event: &Event) {
        let name = topic.to_string();
        let frame = encode_at(&name, seq, event, Some(now_micros()));
        self.inner.stats.published.fetch_add(1, Ordering::Relaxed);
        // The other instances first: their hop through Redis then overlaps the local fan-out.
        if let Some(bus) = self.inner.bus.get()
            && !bus.send(&self.inner.instance, &name, &frame)
        {
            self.inner.stats.bus_dropped.fetch_add(1, Ordering::Relaxed);
        }
        self.deliver_local(&name, &frame);
    }

    /// Queues a frame for every local subscriber of `topic`; a subscriber whose queue is full is
    /// closed as a slow consumer.
    pub fn deliver_local(&self, topic: &str, frame: &Utf8Bytes) {
        let Some(subs) = self.inner.topics.get(topic) else {
            return;
        };
        let mut delivered = 0u64;
        for c in subs.iter() {
            match c.tx.try_send(frame.clone()) {
                Ok(()) => delivered += 1,
                Err(mpsc::error::TrySendError::Full(_)) => {
                    if !c.kill.is_cancelled() {
                        self.inner
                            .stats
                            .slow_consumers
                            .fetch_add(1, Ordering::Relaxed);
                    }
                    c.close(close::SLOW_CONSUMER);
                }
                Err(mpsc::error::TrySendError::Closed(_)) => {}
            }
        }
        self.inner
            .stats
            .delivered
            .fetch_add(delivered, Ordering::Relaxed);
    }

    /// Tells every local connection to refetch what it shows (after events may have been lost,
    /// e.g. when the cross-instance bus reconnected).
    pub fn broadcast_resync(&self) {
        let frame = encode("", 0, &Event::Resync);
        for c in self.inner.conns.iter() {
            if c.tx.try_send(frame.clone()).is_err() {
                c.close(close::SLOW_CONSUMER);
            }
        }
    }

    /// Closes every connection with [`close::SHUTTING_DOWN`].
    pub fn shutdown(&self) {
        for c in self.inner.conns.iter() {
            c.close(close::SHUTTING_DOWN);
        }
        self.inner.shutdown.cancel();
    }

    /// The sessions (user id, session id) behind this instance's open sockets, of one user or of
    /// everyone; [`crate::state::AppState::recheck_user`] authenticates each again once.
    pub fn sessions(&self, user_id: Option<&str>) -> Vec<(String, String)> {
        self.inner
            .conns
            .iter()
            .map(|c| c.user())
            .filter(|u| user_id.is_none_or(|id| u.id == id))
            .map(|u| (u.id.to_string(), u.session_id.to_string()))
            .collect()
    }

    /// Applies a session's fresh authentication to its sockets: `None` (the session ended or the
    /// user is gone) closes them; otherwise the caller is updated and topics the user may no
    /// longer receive are dropped with an `unsubscribed` frame. When the caller's role or client
    /// memberships changed, a `session.changed` frame tells the app to load the caller again (its
    /// screens then turn read-only, or writable, at once).
    pub fn apply_session(&self, user_id: &str, session_id: &str, fresh: Option<&AuthUser>) {
        let conns: Vec<Arc<Conn>> = self
            .inner
            .conns
            .iter()
            .filter(|c| {
                let u = c.user.lock().unwrap_or_else(|e| e.into_inner());
                u.id == user_id && u.session_id == session_id
            })
            .map(|c| c.clone())
            .collect();
        for c in conns {
            let Some(u) = fresh else {
                c.close(close::UNAUTHENTICATED);
                continue;
            };
            let changed = {
                let mut cur = c.user.lock().unwrap_or_else(|e| e.into_inner());
                let changed = cur.role != u.role || cur.clients != u.clients;
                *cur = u.clone();
                changed
            };
            if changed
                && c.tx
                    .try_send(encode("", 0, &Event::SessionChanged))
                    .is_err()
            {
                c.close(close::SLOW_CONSUMER);
                continue;
            }
            let mine = c.topics.lock().unwrap_or_else(|e| e.into_inner()).clone();
            for t in mine {
                if !Topic::parse(&t).is_some_and(|topic| topic.allows(u))
                    && self.unsubscribe(&c, &t)
                {
                    let frame = encode(
                        &t,
                        0,
                        &Event::Unsubscribed(Reason {
                            reason: "forbidden",
                        }),
                    );
                    if c.tx.try_send(frame).is_err() {
                        c.close(close::SLOW_CONSUMER);
                    }
                }
            }
        }
    }
}

/// Loads the caller behind a session again ([`crate::auth::load_caller`], the same loading as
/// every request's, without a token): `None` when the session ended or the user is gone.
pub(crate) async fn reauthenticate(
    state: &AppState,
    user_id: &str,
    session_id: &str,
) -> anyhow::Result<Option<AuthUser>> {
    Ok(crate::auth::load_caller(state, user_id, session_id).await?)
}

/// Starts the hub's background work: the periodic session re-check, and the Redis bus when
/// `REDIS_URL` is set (connected before this returns, so the instance relays from its first
/// request on).
pub async fn start(state: &AppState) -> anyhow::Result<()> {
    if let Some(url) = state
        .config
        .redis_url
        .as_deref()
        .filter(|u| !u.trim().is_empty())
    {
        let publisher = redis_bus::start(url, state.hub.clone()).await?;
        state.hub.attach_bus(publisher);
        tracing::info!("realtime events relayed through Redis");
    }
    let st = state.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(RECHECK_INTERVAL);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        tick.tick().await;
        loop {
            tokio::select! {
                _ = tick.tick() => st.recheck_all().await,
                _ = st.hub.inner.shutdown.cancelled() => break,
            }
        }
    });
    Ok(())
}
