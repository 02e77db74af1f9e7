//! `collab`'s `Fanout` on Redis pub/sub: one channel per document (`collab:{doc_id}`), so that
//! instances serving the same document relay updates and awareness to each other.
//!
//! Publishing goes through a `ConnectionManager` (multiplexed, reconnecting, in order per
//! caller). Subscriptions share one pub/sub connection: a reader task routes each message to the
//! subscribers of its channel. When that connection is lost, every subscription stream ends (the
//! hub resubscribes and resynchronises from the store) and the next subscription opens a new
//! connection. Redis pub/sub may lose messages; the envelope's sequence numbers let the hub
//! detect the gap.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use bytes::Bytes;
use collab::{Fanout, FanoutError, FanoutStream};
use dashmap::DashMap;
use futures_util::StreamExt;
use redis::aio::{ConnectionManager, PubSubSink};
use tokio::sync::mpsc;

/// The Redis channel of a document.
pub fn channel(doc_id: &str) -> String {
    format!("collab:{doc_id}")
}

type Routes = DashMap<String, Vec<(u64, mpsc::UnboundedSender<Bytes>)>>;

/// One live pub/sub connection and the subscribers routed through it.
struct SubConn {
    /// Subscribe/unsubscribe commands, serialised with the set of channels Redis has confirmed.
    control: tokio::sync::Mutex<(PubSubSink, HashSet<String>)>,
    routes: Routes,
    alive: AtomicBool,
}

/// Redis pub/sub fan-out. Cheap to clone.
#[derive(Clone)]
pub struct RedisFanout {
    client: redis::Client,
    publisher: ConnectionManager,
    sub: Arc<Mutex<Option<Arc<SubConn>>>>,
    next_id: Arc<AtomicU64>,
}

impl std::fmt::Debug for RedisFanout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisFanout").finish_non_exhaustive()
    }
}

impl RedisFanout {
    /// Connects to Redis (`redis://host:port`).
    pub async fn connect(url: &str) -> anyhow::Result<Self> {
        let client = redis::Client::open(url)?;
        let publisher = ConnectionManager::new(client.clone()).await?;
        Ok(Self {
            client,
            publisher,
            sub: Arc::new(Mutex::new(None)),
            next_id: Arc::new(AtomicU64::new(1)),
        })
    }

    /// The live subscription connection, opening one when there is none.
    async fn sub_conn(&self) -> Result<Arc<SubConn>, FanoutError> {
        if let Some(c) = self
            .sub
            .lock()
            .expect("fanout mutex")
            .as_ref()
            .filter(|c| c.alive.load(Ordering::Acquire))
        {
            return Ok(c.clone());
        }
        let pubsub = self
            .client
            .get_async_pubsub()
            .await
            .map_err(FanoutError::backend)?;
        let (sink, mut stream) = pubsub.split();
        let conn = Arc::new(SubConn {
            control: tokio::sync::Mutex::new((sink, HashSet::new())),
            routes: DashMap::new(),
            alive: AtomicBool::new(true),
        });
        {
            let mut slot = self.sub.lock().expect("fanout mutex");
            // Another caller may have connected meanwhile: use theirs.
            if let Some(c) = slot.as_ref().filter(|c| c.alive.load(Ordering::Acquire)) {
                return Ok(c.clone());
            }
            *slot = Some(conn.clone());
        }
        let reader = conn.clone();
        tokio::spawn(async move {
            while let Some(msg) = stream.next().await {
                let name = msg.get_channel_name();
                if let Some(mut subs) = reader.routes.get_mut(name) {
                    let payload = Bytes::copy_from_slice(msg.get_payload_bytes());
                    subs.retain(|(_, tx)| tx.send(payload.clone()).is_ok());
                }
            }
            // Connection lost: end every subscription so the hub resubscribes and resyncs.
            reader.alive.store(false, Ordering::Release);
            reader.routes.clear();
            tracing::warn!("collab fan-out: Redis subscription connection lost");
        });
        Ok(conn)
    }
}

/// Removes a subscriber's route when its stream is dropped, and unsubscribes the channel when
/// it was the last one.
struct RouteGuard {
    conn: Arc<SubConn>,
    channel: String,
    id: u64,
}

impl Drop for RouteGuard {
    fn drop(&mut self) {
        if let Some(mut subs) = self.conn.routes.get_mut(&self.channel) {
            subs.retain(|(id, _)| *id != self.id);
        }
        let conn = self.conn.clone();
        let channel = std::mem::take(&mut self.channel);
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                let mut control = conn.control.lock().await;
                let unused = conn.routes.get(&channel).is_none_or(|s| s.is_empty());
                if unused && control.1.contains(&channel) {
                    conn.routes.remove_if(&channel, |_, s| s.is_empty());
                    if control.0.unsubscribe(&channel).await.is_ok() {
                        control.1.remove(&channel);
                    }
                }
            });
        }
    }
}

#[async_trait]
impl Fanout for RedisFanout {
    async fn publish(&self, doc_id: &str, message: Bytes) -> Result<(), FanoutError> {
        let mut conn = self.publisher.clone();
        let _: i64 = redis::cmd("PUBLISH")
            .arg(channel(doc_id))
            .arg(message.as_ref())
            .query_async(&mut conn)
            .await
            .map_err(FanoutError::backend)?;
        Ok(())
    }

    async fn subscribe(&self, doc_id: &str) -> Result<FanoutStream, FanoutError> {
        let conn = self.sub_conn().await?;
        let channel = channel(doc_id);
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::unbounded_channel();
        {
            let mut control = conn.control.lock().await;
            conn.routes
                .entry(channel.clone())
                .or_default()
                .push((id, tx));
            if !control.1.contains(&channel) {
                if let Err(e) = control.0.subscribe(&channel).await {
                    if let Some(mut subs) = conn.routes.get_mut(&channel) {
                        subs.retain(|(i, _)| *i != id);
                    }
                    return Err(FanoutError::backend(e));
                }
                control.1.insert(channel.clone());
            }
        }
        if !conn.alive.load(Ordering::Acquire) {
            return Err(FanoutError("Redis subscription connection lost".into()));
        }
        let guard = RouteGuard { conn, channel, id };
        Ok(Box::pin(futures_util::stream::unfold(
            (rx, guard),
            |(mut rx, guard)| async move { rx.recv().await.map(|m| (m, (rx, guard))) },
        )))
    }
}
