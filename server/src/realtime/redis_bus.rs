//! The cross-instance bus on Redis pub/sub, used when `REDIS_URL` is set.
//!
//! Every instance publishes the events it produces on one channel ([`CHANNEL`]) and subscribes to
//! it; a message is `instance-id \n topic \n frame`, the frame being the exact bytes sent to
//! WebSocket clients, so a receiving instance forwards it without decoding. An instance skips its
//! own messages (it delivered them locally already). Publishing goes through a bounded queue and
//! one task that pipelines whatever is queued, so a handler never waits for Redis.
//!
//! Pub/sub is lossy across a Redis reconnect: after the subscriber reconnects, every local client
//! is told to resync (refetch), and clients also refetch on any sequence gap.

use std::sync::atomic::Ordering;
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use bytes::{BufMut, Bytes, BytesMut};
use futures_util::StreamExt;
use tokio::sync::mpsc;

use super::Hub;

/// The Redis channel carrying every event.
pub const CHANNEL: &str = "capopt:events";
/// Messages that may wait for the publisher task before new ones are dropped (and counted).
pub const PUBLISH_QUEUE: usize = 16 * 1024;
/// Most messages sent in one pipeline.
const BATCH: usize = 256;

/// The sending side of the bus, kept by the hub.
#[derive(Debug, Clone)]
pub struct Publisher {
    tx: mpsc::Sender<Bytes>,
}

impl Publisher {
    /// Queues a frame for the other instances; `false` when the queue is full or the task ended.
    pub fn send(&self, instance: &str, topic: &str, frame: &Utf8Bytes) -> bool {
        let mut buf = BytesMut::with_capacity(instance.len() + topic.len() + frame.len() + 2);
        buf.put_slice(instance.as_bytes());
        buf.put_u8(b'\n');
        buf.put_slice(topic.as_bytes());
        buf.put_u8(b'\n');
        buf.put_slice(frame.as_bytes());
        self.tx.try_send(buf.freeze()).is_ok()
    }
}

/// Splits a bus message into (instance, topic, frame).
pub fn decode(msg: &[u8]) -> Option<(&str, &str, &str)> {
    let s = std::str::from_utf8(msg).ok()?;
    let (instance, rest) = s.split_once('\n')?;
    let (topic, frame) = rest.split_once('\n')?;
    Some((instance, topic, frame))
}

/// Connects to Redis (failing fast when it is unreachable), subscribes, and spawns the publisher
/// and subscriber tasks.
pub async fn start(url: &str, hub: Hub) -> anyhow::Result<Publisher> {
    let client = redis::Client::open(url)?;
    let mut manager = redis::aio::ConnectionManager::new(client.clone()).await?;
    let mut pubsub = client.get_async_pubsub().await?;
    pubsub.subscribe(CHANNEL).await?;

    let (tx, mut rx) = mpsc::channel::<Bytes>(PUBLISH_QUEUE);
    tokio::spawn(async move {
        let mut batch = Vec::with_capacity(BATCH);
        while rx.recv_many(&mut batch, BATCH).await > 0 {
            let mut pipe = redis::pipe();
            for m in batch.drain(..) {
                pipe.publish(CHANNEL, m.as_ref()).ignore();
            }
            if let Err(e) = pipe.query_async::<()>(&mut manager).await {
                tracing::warn!(error = %e, "publishing events on Redis failed");
            }
        }
    });

    let sub_hub = hub.clone();
    tokio::spawn(async move {
        let mut pubsub = Some(pubsub);
        let mut backoff = Duration::from_millis(200);
        loop {
            let ps = match pubsub.take() {
                Some(p) => p,
                None => match reconnect(&client).await {
                    Ok(p) => {
                        backoff = Duration::from_millis(200);
                        // Whatever was published while we were away is lost: clients refetch.
                        sub_hub.broadcast_resync();
                        p
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "Redis subscriber reconnect failed");
                        tokio::time::sleep(backoff).await;
                        backoff = (backoff * 2).min(Duration::from_secs(5));
                        continue;
                    }
                },
            };
            let mut stream = ps.into_on_message();
            while let Some(msg) = stream.next().await {
                let payload = msg.get_payload_bytes();
                let Some((instance, topic, frame)) = decode(payload) else {
                    continue;
                };
                if instance == sub_hub.instance_id() {
                    continue;
                }
                sub_hub.stats().relayed_in.fetch_add(1, Ordering::Relaxed);
                sub_hub.deliver_local(topic, &Utf8Bytes::from(frame.to_string()));
            }
            tracing::warn!("Redis subscription lost; reconnecting");
        }
    });
    Ok(Publisher { tx })
}

async fn reconnect(client: &redis::Client) -> redis::RedisResult<redis::aio::PubSub> {
    let mut ps = client.get_async_pubsub().await?;
    ps.subscribe(CHANNEL).await?;
    Ok(ps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip() {
        let (tx, mut rx) = mpsc::channel(1);
        let p = Publisher { tx };
        assert!(p.send(
            "inst",
            "client:a:board",
            &Utf8Bytes::from_static("{\"x\":\"a\\nb\"}")
        ));
        assert!(
            !p.send("inst", "t", &Utf8Bytes::from_static("{}")),
            "a full queue refuses"
        );
        let m = rx.try_recv().unwrap();
        assert_eq!(
            decode(&m),
            Some(("inst", "client:a:board", "{\"x\":\"a\\nb\"}"))
        );
    }
}
