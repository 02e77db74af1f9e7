//! Cross-instance fan-out: the [`Fanout`] trait, the envelope the document tasks exchange
//! through it, and an in-process implementation, [`MemoryFanout`].
//!
//! Each document has one channel. Every instance that has the document loaded subscribes to it
//! and publishes, tagged with its instance id and a per-instance, per-document sequence
//! number: the updates its own clients made, its awareness changes, and state-vector
//! requests/replies used to resynchronise. A receiver ignores its own messages; a gap in
//! another instance's sequence (a lost message) or a restarted subscription makes it resync:
//! it reloads the document from the store and asks the other instances, by state vector, for
//! what it lacks. The transport only moves opaque bytes: it may lose messages, never reorder
//! those of one publisher.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use bytes::Bytes;
use futures_util::stream::BoxStream;
use tokio::sync::mpsc;
use yrs::encoding::read::{Cursor, Read};
use yrs::encoding::write::Write;

/// A subscription: the messages published on one document's channel, in publication order
/// per publisher. The stream ending means the subscription was lost (the hub resubscribes and
/// resyncs); dropping it unsubscribes.
pub type FanoutStream = BoxStream<'static, Bytes>;

/// A fan-out transport failure.
#[derive(Debug, thiserror::Error)]
#[error("fan-out error: {0}")]
pub struct FanoutError(pub String);

impl FanoutError {
    /// Wraps a transport error (for example a Redis error).
    pub fn backend(e: impl std::fmt::Display) -> Self {
        Self(e.to_string())
    }
}

/// The transport between instances that have the same document loaded. The server implements
/// it on Redis pub/sub (one channel per document, e.g. `collab:{doc_id}`).
#[async_trait]
pub trait Fanout: Send + Sync + 'static {
    /// Publishes an opaque message on the document's channel. Called from one task per
    /// document, in order; the implementation must not reorder the messages of one caller.
    async fn publish(&self, doc_id: &str, message: Bytes) -> Result<(), FanoutError>;

    /// Subscribes to the document's channel. Must resolve only once the subscription is live,
    /// so that nothing published after it returns is missed.
    async fn subscribe(&self, doc_id: &str) -> Result<FanoutStream, FanoutError>;
}

const ENVELOPE_VERSION: u8 = 1;

/// What one fan-out message carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Body {
    /// A v1 update made by a client of the sender (already persisted, or about to be, by it).
    Update(Bytes),
    /// An encoded awareness update (clients of the sender).
    Awareness(Bytes),
    /// The sender's state vector (v1): every other instance answers with a [`Body::SyncReply`].
    SyncRequest(Bytes),
    /// A v1 update holding what the instance `to` lacks.
    SyncReply { to: u64, update: Bytes },
    /// Sent periodically after other messages, so that a receiver notices a lost message
    /// (a gap in the sequence) even when nothing else follows it.
    Heartbeat,
}

/// A fan-out message: sender instance, sender stream (one per load of the document on that
/// instance), sequence number within that stream (from 1), body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Envelope {
    pub instance: u64,
    pub stream: u64,
    pub seq: u64,
    pub body: Body,
}

impl Envelope {
    pub(crate) fn encode(&self) -> Bytes {
        let payload_len = match &self.body {
            Body::Update(b) | Body::Awareness(b) | Body::SyncRequest(b) => b.len(),
            Body::SyncReply { update, .. } => update.len(),
            Body::Heartbeat => 0,
        };
        let mut buf = Vec::with_capacity(payload_len + 32);
        buf.write_u8(ENVELOPE_VERSION);
        buf.write_var(self.instance);
        buf.write_var(self.stream);
        buf.write_var(self.seq);
        match &self.body {
            Body::Update(b) => {
                buf.write_u8(0);
                buf.write_buf(b);
            }
            Body::Awareness(b) => {
                buf.write_u8(1);
                buf.write_buf(b);
            }
            Body::SyncRequest(b) => {
                buf.write_u8(2);
                buf.write_buf(b);
            }
            Body::SyncReply { to, update } => {
                buf.write_u8(3);
                buf.write_var(*to);
                buf.write_buf(update);
            }
            Body::Heartbeat => buf.write_u8(4),
        }
        Bytes::from(buf)
    }

    pub(crate) fn decode(bytes: &[u8]) -> Result<Self, yrs::encoding::read::Error> {
        use yrs::encoding::read::Error as E;
        let mut c = Cursor::new(bytes);
        if c.read_u8()? != ENVELOPE_VERSION {
            return Err(E::UnexpectedValue);
        }
        let instance: u64 = c.read_var()?;
        let stream: u64 = c.read_var()?;
        let seq: u64 = c.read_var()?;
        let kind = c.read_u8()?;
        let body = match kind {
            0 => Body::Update(Bytes::copy_from_slice(c.read_buf()?)),
            1 => Body::Awareness(Bytes::copy_from_slice(c.read_buf()?)),
            2 => Body::SyncRequest(Bytes::copy_from_slice(c.read_buf()?)),
            3 => {
                let to: u64 = c.read_var()?;
                Body::SyncReply {
                    to,
                    update: Bytes::copy_from_slice(c.read_buf()?),
                }
            }
            4 => Body::Heartbeat,
            _ => return Err(E::UnexpectedValue),
        };
        Ok(Envelope {
            instance,
            stream,
            seq,
            body,
        })
    }
}

#[derive(Default)]
struct Bus {
    subs: HashMap<String, Vec<mpsc::UnboundedSender<Bytes>>>,
    drop_next: u64,
    drop_per_million: u64,
    rng: u64,
    published: u64,
    dropped: u64,
}

impl Bus {
    fn next_random(&mut self) -> u64 {
        // splitmix64: deterministic for a given seed, good enough to pick messages to drop.
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// An in-process [`Fanout`]: connects several [`crate::Hub`]s of one process (each clone shares
/// the same bus). It can drop messages, deterministically, to exercise the resync path.
#[derive(Clone, Default)]
pub struct MemoryFanout {
    bus: Arc<Mutex<Bus>>,
}

impl std::fmt::Debug for MemoryFanout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryFanout").finish_non_exhaustive()
    }
}

impl MemoryFanout {
    /// A new, empty bus.
    pub fn new() -> Self {
        Self::default()
    }

    /// Drops the next `n` published messages (delivered to nobody).
    pub fn drop_next(&self, n: u64) {
        self.bus.lock().expect("bus mutex").drop_next = n;
    }

    /// Drops each published message with probability `p` (0.0–1.0), using a deterministic
    /// generator seeded with `seed`.
    pub fn set_drop_probability(&self, p: f64, seed: u64) {
        let mut bus = self.bus.lock().expect("bus mutex");
        bus.drop_per_million = (p.clamp(0.0, 1.0) * 1_000_000.0) as u64;
        bus.rng = seed;
    }

    /// Ends every live subscription (as a lost Redis connection would).
    pub fn restart_subscriptions(&self) {
        self.bus.lock().expect("bus mutex").subs.clear();
    }

    /// `(published, dropped)` message counts.
    pub fn counts(&self) -> (u64, u64) {
        let bus = self.bus.lock().expect("bus mutex");
        (bus.published, bus.dropped)
    }
}

#[async_trait]
impl Fanout for MemoryFanout {
    async fn publish(&self, doc_id: &str, message: Bytes) -> Result<(), FanoutError> {
        let mut bus = self.bus.lock().expect("bus mutex");
        bus.published += 1;
        if bus.drop_next > 0 {
            bus.drop_next -= 1;
            bus.dropped += 1;
            return Ok(());
        }
        if bus.drop_per_million > 0 && bus.next_random() % 1_000_000 < bus.drop_per_million {
            bus.dropped += 1;
            return Ok(());
        }
        if let Some(subs) = bus.subs.get_mut(doc_id) {
            subs.retain(|tx| tx.send(message.clone()).is_ok());
        }
        Ok(())
    }

    async fn subscribe(&self, doc_id: &str) -> Result<FanoutStream, FanoutError> {
        let (tx, rx) = mpsc::unbounded_channel();
        self.bus
            .lock()
            .expect("bus mutex")
            .subs
            .entry(doc_id.to_owned())
            .or_default()
            .push(tx);
        Ok(Box::pin(futures_util::stream::unfold(
            rx,
            |mut rx| async move { rx.recv().await.map(|m| (m, rx)) },
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_round_trip() {
        for body in [
            Body::Update(Bytes::from_static(b"\x00\x00")),
            Body::Awareness(Bytes::from_static(b"aw")),
            Body::SyncRequest(Bytes::from_static(b"\x00")),
            Body::SyncReply {
                to: u64::MAX,
                update: Bytes::from_static(b"up"),
            },
            Body::Heartbeat,
        ] {
            let e = Envelope {
                instance: 42,
                stream: 3,
                seq: 7,
                body,
            };
            assert_eq!(Envelope::decode(&e.encode()).unwrap(), e);
        }
        assert!(Envelope::decode(b"\x09").is_err());
    }
}
