//! Durability: the [`DocStore`] trait and an in-memory implementation, [`MemoryStore`].
//!
//! A document is stored as an append-only log of v1 updates, each with a sequence number that
//! grows per document, plus at most one snapshot (the document's full state) that stands for
//! every log entry up to its `upto_seq`. Loading is snapshot + tail.
//!
//! Snapshots are written in **v2** encoding (about 30% smaller than v1) when that is safe, and
//! in v1 otherwise; the reader tells them apart ([`SnapshotEncoding::detect`]), so stores keep
//! them as opaque bytes and older v1 snapshots stay readable. yrs 0.28.1's
//! `encode_state_as_update_v2` panics or writes wrong or undecodable bytes when the document
//! holds pending structs or "skip" placeholders (an update integrated before the one it builds
//! on), so [`crate::encode_snapshot`] decodes its v2 output and keeps it only when it is the
//! same update as the v1 encoding of the same state.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;

/// A snapshot: the full document state, standing for all log entries with
/// `seq <= upto_seq`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// The document state as one Yjs update, in **v1 or v2** encoding (see
    /// [`Snapshot::encoding`]; the field keeps its original name so that stores written for
    /// v1-only snapshots need no change: they store and return the bytes as they are).
    pub update_v1: Bytes,
    /// The highest log sequence number folded into this snapshot.
    pub upto_seq: u64,
}

impl Snapshot {
    /// The encoding of this snapshot's bytes.
    pub fn encoding(&self) -> SnapshotEncoding {
        SnapshotEncoding::detect(&self.update_v1)
    }

    /// Decodes the snapshot with its encoding.
    pub fn decode(&self) -> Result<yrs::Update, crate::Error> {
        self.encoding().decode(&self.update_v1)
    }
}

/// How a snapshot's bytes are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SnapshotEncoding {
    /// Yjs update format v1 (`encode_state_as_update_v1`).
    V1,
    /// Yjs update format v2 (`encode_state_as_update_v2`).
    V2,
}

impl SnapshotEncoding {
    /// Tells the encoding of a full-state update. A v2 update starts with a zero feature-flag
    /// byte followed by nine length-prefixed columns (at least 10 bytes); a v1 full state starts
    /// with its number of clients, which is non-zero for any document with content (the v1
    /// state of an empty document is the two bytes `[0, 0]`).
    pub fn detect(bytes: &[u8]) -> Self {
        if bytes.len() >= 10 && bytes[0] == 0 {
            Self::V2
        } else {
            Self::V1
        }
    }

    /// Decodes `bytes` as an update in this encoding. Bytes detected as v2 that do not decode
    /// as v2 are tried as v1 (a v1 update without structs but with a delete set also starts
    /// with a zero byte).
    pub fn decode(self, bytes: &[u8]) -> Result<yrs::Update, crate::Error> {
        use yrs::updates::decoder::Decode;
        match self {
            Self::V1 => Ok(yrs::Update::decode_v1(bytes)?),
            Self::V2 => match yrs::Update::decode_v2(bytes) {
                Ok(u) => Ok(u),
                Err(e) => yrs::Update::decode_v1(bytes).map_err(|_| crate::Error::Decode(e)),
            },
        }
    }
}

/// What [`DocStore::load`] returns: a snapshot (if the log was ever compacted) and the log
/// entries after it, in ascending `seq` order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoredDoc {
    /// The latest snapshot, if any.
    pub snapshot: Option<Snapshot>,
    /// Log entries with `seq > snapshot.upto_seq`, ascending; each is a **v1** update.
    pub updates: Vec<(u64, Bytes)>,
}

impl StoredDoc {
    /// The highest sequence number this stored state covers (0 for an empty log).
    pub fn last_seq(&self) -> u64 {
        let snap = self.snapshot.as_ref().map_or(0, |s| s.upto_seq);
        self.updates
            .last()
            .map_or(snap, |(seq, _)| (*seq).max(snap))
    }

    /// Bytes held by the log tail (the snapshot excluded).
    pub fn tail_bytes(&self) -> usize {
        self.updates.iter().map(|(_, u)| u.len()).sum()
    }
}

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The document does not exist.
    #[error("document not found")]
    NotFound,
    /// [`DocStore::create`] was called for a document that already exists.
    #[error("document already exists")]
    AlreadyExists,
    /// The back-end failed (connection lost, timeout, constraint...). The operation changed
    /// nothing.
    #[error("store unavailable: {0}")]
    Unavailable(String),
    /// Any other back-end error, kept with its source.
    #[error("store error: {0}")]
    Backend(#[source] Box<dyn std::error::Error + Send + Sync>),
}

impl StoreError {
    /// Wraps a back-end error (for example `sqlx::Error`).
    pub fn backend(e: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self::Backend(Box::new(e))
    }
}

/// Persistence of collaborative documents. The server implements it on SQL; [`MemoryStore`]
/// is the in-process implementation used by tests and single-process tools.
///
/// Contract (every implementation must keep it, the hub's correctness depends on it):
/// - `append` assigns consecutive, increasing sequence numbers per document, and an entry
///   becomes visible to `load` only after every smaller `seq` of the same document is visible
///   (serialise appends per document, e.g. with a row or advisory lock).
/// - `compact` is atomic: it stores the snapshot and deletes log entries `<= upto_seq` in one
///   transaction, and it does nothing (returns `Ok(false)`) when the current snapshot already
///   has an `upto_seq` greater than or equal to the given one, so a late compaction never
///   replaces a newer snapshot.
/// - Snapshot bytes are opaque: `load` returns exactly the bytes `compact` stored (v1 or v2,
///   see [`Snapshot::encoding`]).
/// - Every method either fully succeeds or changes nothing.
#[async_trait]
pub trait DocStore: Send + Sync + 'static {
    /// Reads a document: its snapshot (if any) and the log entries after it. `Ok(None)` when
    /// the document does not exist.
    async fn load(&self, doc_id: &str) -> Result<Option<StoredDoc>, StoreError>;

    /// Creates a document whose first log entry (`seq` 1) is `initial_update_v1`. Fails with
    /// [`StoreError::AlreadyExists`] if the document exists (its content is left untouched).
    async fn create(&self, doc_id: &str, initial_update_v1: Bytes) -> Result<(), StoreError>;

    /// Appends a batch of v1 updates in one transaction, in order, and returns the sequence
    /// number of the last one. Fails with [`StoreError::NotFound`] if the document does not
    /// exist. `updates` is never empty.
    async fn append(&self, doc_id: &str, updates: &[Bytes]) -> Result<u64, StoreError>;

    /// Replaces every log entry with `seq <= upto_seq` by `snapshot` (the full state, v1 or v2
    /// encoded: store the bytes as they are, see [`Snapshot`]), atomically. Returns `Ok(false)` and changes nothing if the stored snapshot is already at
    /// or beyond `upto_seq`.
    async fn compact(
        &self,
        doc_id: &str,
        snapshot: Bytes,
        upto_seq: u64,
    ) -> Result<bool, StoreError>;
}

#[derive(Debug, Default)]
struct MemDoc {
    snapshot: Option<Snapshot>,
    log: BTreeMap<u64, Bytes>,
    next_seq: u64,
}

/// Counters of a [`MemoryStore`] (for tests and measurements).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemoryStoreStats {
    /// Successful `append` calls.
    pub appends: u64,
    /// Updates written by those calls.
    pub appended_updates: u64,
    /// Successful `compact` calls that replaced the log.
    pub compactions: u64,
    /// `load` calls (successful or not).
    pub loads: u64,
}

/// Sizes of one stored document in a [`MemoryStore`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StoredSize {
    /// Number of log entries (after the snapshot).
    pub log_entries: usize,
    /// Bytes of update payload in the log.
    pub log_bytes: usize,
    /// Bytes of the snapshot (0 if none).
    pub snapshot_bytes: usize,
    /// The snapshot's `upto_seq` (0 if none).
    pub snapshot_upto: u64,
}

/// An in-memory [`DocStore`] with switchable failures and an optional artificial latency.
/// Cloning is not offered: share it behind an `Arc`.
#[derive(Debug, Default)]
pub struct MemoryStore {
    docs: Mutex<HashMap<String, MemDoc>>,
    fail_load: AtomicBool,
    fail_append: AtomicBool,
    fail_compact: AtomicBool,
    latency_us: AtomicU64,
    appends: AtomicU64,
    appended_updates: AtomicU64,
    compactions: AtomicU64,
    loads: AtomicU64,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Makes every `load` fail with [`StoreError::Unavailable`] while `fail` is true.
    pub fn set_fail_load(&self, fail: bool) {
        self.fail_load.store(fail, Ordering::SeqCst);
    }

    /// Makes every `append` fail with [`StoreError::Unavailable`] while `fail` is true.
    pub fn set_fail_append(&self, fail: bool) {
        self.fail_append.store(fail, Ordering::SeqCst);
    }

    /// Makes every `compact` fail with [`StoreError::Unavailable`] while `fail` is true.
    pub fn set_fail_compact(&self, fail: bool) {
        self.fail_compact.store(fail, Ordering::SeqCst);
    }

    /// Delays every operation by `latency` (simulates a database round trip).
    pub fn set_latency(&self, latency: Duration) {
        self.latency_us
            .store(latency.as_micros() as u64, Ordering::SeqCst);
    }

    /// Operation counters.
    pub fn stats(&self) -> MemoryStoreStats {
        MemoryStoreStats {
            appends: self.appends.load(Ordering::SeqCst),
            appended_updates: self.appended_updates.load(Ordering::SeqCst),
            compactions: self.compactions.load(Ordering::SeqCst),
            loads: self.loads.load(Ordering::SeqCst),
        }
    }

    /// Sizes of a stored document, `None` if it does not exist.
    pub fn size(&self, doc_id: &str) -> Option<StoredSize> {
        let docs = self.docs.lock().expect("store mutex");
        docs.get(doc_id).map(|d| StoredSize {
            log_entries: d.log.len(),
            log_bytes: d.log.values().map(Bytes::len).sum(),
            snapshot_bytes: d.snapshot.as_ref().map_or(0, |s| s.update_v1.len()),
            snapshot_upto: d.snapshot.as_ref().map_or(0, |s| s.upto_seq),
        })
    }

    /// The stored state of a document, read without latency or failure injection.
    pub fn get(&self, doc_id: &str) -> Option<StoredDoc> {
        let docs = self.docs.lock().expect("store mutex");
        docs.get(doc_id).map(|d| StoredDoc {
            snapshot: d.snapshot.clone(),
            updates: d.log.iter().map(|(s, u)| (*s, u.clone())).collect(),
        })
    }

    /// Puts a stored state in place as is (for tests and benchmarks that prepare a history).
    pub fn put(&self, doc_id: &str, stored: StoredDoc) {
        let next_seq = stored.last_seq() + 1;
        let doc = MemDoc {
            snapshot: stored.snapshot,
            log: stored.updates.into_iter().collect(),
            next_seq,
        };
        self.docs
            .lock()
            .expect("store mutex")
            .insert(doc_id.to_owned(), doc);
    }

    async fn delay(&self) {
        let us = self.latency_us.load(Ordering::SeqCst);
        if us > 0 {
            tokio::time::sleep(Duration::from_micros(us)).await;
        }
    }

    fn unavailable(flag: &AtomicBool, op: &str) -> Result<(), StoreError> {
        if flag.load(Ordering::SeqCst) {
            Err(StoreError::Unavailable(format!("simulated {op} failure")))
        } else {
            Ok(())
        }
    }
}

#[async_trait]
impl DocStore for MemoryStore {
    async fn load(&self, doc_id: &str) -> Result<Option<StoredDoc>, StoreError> {
        self.loads.fetch_add(1, Ordering::SeqCst);
        self.delay().await;
        Self::unavailable(&self.fail_load, "load")?;
        Ok(self.get(doc_id))
    }

    async fn create(&self, doc_id: &str, initial_update_v1: Bytes) -> Result<(), StoreError> {
        self.delay().await;
        let mut docs = self.docs.lock().expect("store mutex");
        if docs.contains_key(doc_id) {
            return Err(StoreError::AlreadyExists);
        }
        let mut doc = MemDoc {
            next_seq: 1,
            ..MemDoc::default()
        };
        doc.log.insert(1, initial_update_v1);
        doc.next_seq = 2;
        docs.insert(doc_id.to_owned(), doc);
        Ok(())
    }

    async fn append(&self, doc_id: &str, updates: &[Bytes]) -> Result<u64, StoreError> {
        self.delay().await;
        Self::unavailable(&self.fail_append, "append")?;
        let mut docs = self.docs.lock().expect("store mutex");
        let doc = docs.get_mut(doc_id).ok_or(StoreError::NotFound)?;
        for u in updates {
            doc.log.insert(doc.next_seq, u.clone());
            doc.next_seq += 1;
        }
        self.appends.fetch_add(1, Ordering::SeqCst);
        self.appended_updates
            .fetch_add(updates.len() as u64, Ordering::SeqCst);
        Ok(doc.next_seq - 1)
    }

    async fn compact(
        &self,
        doc_id: &str,
        snapshot: Bytes,
        upto_seq: u64,
    ) -> Result<bool, StoreError> {
        self.delay().await;
        Self::unavailable(&self.fail_compact, "compact")?;
        let mut docs = self.docs.lock().expect("store mutex");
        let doc = docs.get_mut(doc_id).ok_or(StoreError::NotFound)?;
        if doc
            .snapshot
            .as_ref()
            .is_some_and(|s| s.upto_seq >= upto_seq)
            || upto_seq >= doc.next_seq
        {
            return Ok(false);
        }
        doc.log = doc.log.split_off(&(upto_seq + 1));
        doc.snapshot = Some(Snapshot {
            update_v1: snapshot,
            upto_seq,
        });
        self.compactions.fetch_add(1, Ordering::SeqCst);
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn memory_store_contract() {
        let s = MemoryStore::new();
        assert!(matches!(
            s.append("d", &[Bytes::from_static(b"x")]).await,
            Err(StoreError::NotFound)
        ));
        s.create("d", Bytes::from_static(b"init")).await.unwrap();
        assert!(matches!(
            s.create("d", Bytes::new()).await,
            Err(StoreError::AlreadyExists)
        ));
        let last = s
            .append("d", &[Bytes::from_static(b"a"), Bytes::from_static(b"b")])
            .await
            .unwrap();
        assert_eq!(last, 3);
        assert!(s.compact("d", Bytes::from_static(b"S"), 2).await.unwrap());
        // an older or equal compaction never replaces a newer snapshot
        assert!(!s.compact("d", Bytes::from_static(b"old"), 2).await.unwrap());
        assert!(!s.compact("d", Bytes::from_static(b"old"), 1).await.unwrap());
        let got = s.load("d").await.unwrap().unwrap();
        assert_eq!(
            got.snapshot.as_ref().unwrap().update_v1,
            Bytes::from_static(b"S")
        );
        assert_eq!(got.updates, vec![(3, Bytes::from_static(b"b"))]);
        assert_eq!(got.last_seq(), 3);
        s.set_fail_append(true);
        assert!(s.append("d", &[Bytes::from_static(b"c")]).await.is_err());
        assert_eq!(
            s.get("d").unwrap().updates.len(),
            1,
            "a failed append changes nothing"
        );
        s.set_fail_load(true);
        assert!(s.load("d").await.is_err());
    }
}
