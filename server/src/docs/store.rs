//! The SQL implementation of `collab`'s `DocStore`: an append-only update log per document plus
//! one compacted snapshot, on SQLite or PostgreSQL through the portable SQL subset.
//!
//! Layout (`migrations/0003_reports.sql`):
//! - `doc_heads` holds one row per document with its last sequence number. Every append updates
//!   it in the same transaction as it inserts its batch, which serialises appends per document
//!   (the row lock on PostgreSQL, the write lock on SQLite): sequence numbers are gap-free and an
//!   entry is visible only with every smaller one.
//! - `doc_updates` holds one row per appended chunk (`seq_from..=seq_to`, at most
//!   [`MERGE_CHUNK`] updates): the chunk's updates merged into one update stored in **v2**
//!   encoding (whose columns share the editors' client ids and clocks, so a keystroke costs a few
//!   bytes) when that encoding decodes back to exactly the merged update, else merged in v1, else
//!   (when they cannot be merged) the updates length-prefixed one after another. Either way a group
//!   commit pays the row overhead once. A merged row is loaded as one v1 entry with the sequence
//!   number `seq_to`.
//! - `doc_snapshots` holds the full state as one v1 update standing for every entry `<= upto_seq`.
//!
//! Loading reads head, snapshot and tail in ONE statement, so it sees a consistent state even
//! while a compaction commits. A read failure is an error, never an empty document.

use async_trait::async_trait;
use bytes::Bytes;
use collab::{DocStore, Snapshot, StoreError, StoredDoc};
use sqlx::{AnyExecutor, AnyPool};
use yrs::encoding::read::{Cursor, Read};
use yrs::encoding::write::Write;

use crate::db::Db;

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum DocStoreError {
    /// The document does not exist.
    #[error("document not found")]
    NotFound,
    /// The document already exists.
    #[error("document already exists")]
    AlreadyExists,
    /// Stored bytes could not be decoded.
    #[error("stored document {0} is corrupt")]
    Corrupt(String),
    /// The database failed; nothing was changed.
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}

/// Sizes of a stored document (for measurements).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DocSizes {
    /// Rows in the log (one per appended batch).
    pub log_rows: i64,
    /// Update entries in the log.
    pub log_entries: i64,
    /// Bytes of the log's `data` column.
    pub log_bytes: i64,
    /// Bytes of the snapshot (0 without one).
    pub snapshot_bytes: i64,
    /// Last sequence number.
    pub last_seq: i64,
}

/// The SQL document store. Cheap to clone.
#[derive(Debug, Clone)]
pub struct SqlDocStore {
    pool: AnyPool,
}

/// Most updates merged into one stored row (merging is cheap on small inputs and grows
/// quadratically on large ones).
pub const MERGE_CHUNK: usize = 64;

/// First bytes of a row holding one merged update in v2 encoding. A plain batch never starts
/// with them: its first byte is the length of a non-empty update.
const V2_ROW: [u8; 2] = [0x00, 0xFF];

/// The chunk merged into one update, in v1 and in v2 encoding, when the v2 bytes decode to
/// exactly the merged update (yrs's v2 encoder is not trusted blindly: it is checked on every
/// row).
fn merged_v2(chunk: &[Bytes]) -> Option<(Vec<u8>, Vec<u8>)> {
    use yrs::updates::decoder::Decode;
    use yrs::updates::encoder::Encode;
    let merged = yrs::merge_updates_v1(chunk.iter().map(|u| u.as_ref())).ok()?;
    let update = yrs::Update::decode_v1(&merged).ok()?;
    let v2 = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| update.encode_v2())).ok()?;
    let same = matches!((yrs::Update::decode_v2(&v2), yrs::Update::decode_v1(&merged)), (Ok(a), Ok(b)) if a == b);
    same.then_some((merged, v2))
}

/// The stored form of a chunk of updates (see the module documentation).
fn chunk_row(chunk: &[Bytes]) -> Vec<u8> {
    match chunk {
        [one] => encode_batch(std::slice::from_ref(one)),
        many => match merged_v2(many) {
            Some((merged, v2)) if v2.len() + V2_ROW.len() < merged.len() => {
                [&V2_ROW[..], &v2].concat()
            }
            Some((merged, _)) => encode_batch(&[Bytes::from(merged)]),
            None => match yrs::merge_updates_v1(many.iter().map(|u| u.as_ref())) {
                Ok(merged) => encode_batch(&[Bytes::from(merged)]),
                Err(_) => encode_batch(many),
            },
        },
    }
}

/// The v1 updates of a stored row.
fn row_entries(data: &[u8]) -> Option<Vec<Bytes>> {
    use yrs::updates::decoder::Decode;
    use yrs::updates::encoder::Encode;
    match data.strip_prefix(&V2_ROW[..]) {
        Some(v2) => Some(vec![Bytes::from(
            yrs::Update::decode_v2(v2).ok()?.encode_v1(),
        )]),
        None => decode_batch(data),
    }
}

/// Encodes a batch of updates as one `data` value: each update prefixed by its length.
pub fn encode_batch(updates: &[Bytes]) -> Vec<u8> {
    let mut buf = Vec::with_capacity(updates.iter().map(|u| u.len() + 3).sum());
    for u in updates {
        buf.write_buf(u);
    }
    buf
}

/// Decodes a `data` value written by [`encode_batch`]; `None` when it is malformed.
pub fn decode_batch(data: &[u8]) -> Option<Vec<Bytes>> {
    let mut c = Cursor::new(data);
    let mut out = Vec::new();
    while c.has_content() {
        out.push(Bytes::copy_from_slice(c.read_buf().ok()?));
    }
    Some(out)
}

fn is_unique_violation(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(db) if db.is_unique_violation())
}

/// Creates a document whose first entry (seq 1) is `initial_update_v1`, inside the caller's
/// transaction (the report and its content are created together).
pub async fn create_in(
    ex: &mut sqlx::AnyConnection,
    doc_id: &str,
    initial_update_v1: &[u8],
) -> Result<(), DocStoreError> {
    let now = crate::db::now();
    let inserted = sqlx::query("INSERT INTO doc_heads (doc_id, last_seq, snapshot_seq, created_at, updated_at) VALUES ($1, 1, 0, $2, $2)")
        .bind(doc_id)
        .bind(&now)
        .execute(&mut *ex)
        .await;
    match inserted {
        Err(e) if is_unique_violation(&e) => return Err(DocStoreError::AlreadyExists),
        other => other?,
    };
    sqlx::query("INSERT INTO doc_updates (doc_id, seq_from, seq_to, data) VALUES ($1, 1, 1, $2)")
        .bind(doc_id)
        .bind(encode_batch(&[Bytes::copy_from_slice(initial_update_v1)]))
        .execute(&mut *ex)
        .await?;
    Ok(())
}

/// Deletes a document with its log and snapshot (inside the caller's transaction). Returns
/// whether it existed.
pub async fn delete_in<'e>(ex: impl AnyExecutor<'e>, doc_id: &str) -> sqlx::Result<bool> {
    Ok(sqlx::query("DELETE FROM doc_heads WHERE doc_id = $1")
        .bind(doc_id)
        .execute(ex)
        .await?
        .rows_affected()
        > 0)
}

#[derive(sqlx::FromRow)]
struct LoadRow {
    kind: i64,
    a: i64,
    b: i64,
    data: Option<Vec<u8>>,
}

impl SqlDocStore {
    /// A store on the application's database.
    pub fn new(db: &Db) -> Self {
        Self {
            pool: db.pool.clone(),
        }
    }

    /// Reads a document: snapshot and the log after it. `Ok(None)` when it does not exist.
    pub async fn load(&self, doc_id: &str) -> Result<Option<StoredDoc>, DocStoreError> {
        let rows: Vec<LoadRow> = sqlx::query_as(
            "SELECT CAST(0 AS BIGINT) AS kind, last_seq AS a, snapshot_seq AS b, NULL AS data FROM doc_heads WHERE doc_id = $1
             UNION ALL
             SELECT CAST(1 AS BIGINT), upto_seq, upto_seq, state FROM doc_snapshots WHERE doc_id = $1
             UNION ALL
             SELECT CAST(2 AS BIGINT), seq_from, seq_to, data FROM doc_updates WHERE doc_id = $1
             ORDER BY 1, 2",
        )
        .bind(doc_id)
        .fetch_all(&self.pool)
        .await?;
        let corrupt = || DocStoreError::Corrupt(doc_id.to_owned());
        let Some(head) = rows.iter().find(|r| r.kind == 0) else {
            return Ok(None);
        };
        let last_seq = head.a as u64;
        let mut doc = StoredDoc::default();
        if let Some(s) = rows.iter().find(|r| r.kind == 1) {
            doc.snapshot = Some(Snapshot {
                update_v1: Bytes::from(s.data.clone().ok_or_else(corrupt)?),
                upto_seq: s.a as u64,
            });
        }
        let upto = doc.snapshot.as_ref().map_or(0, |s| s.upto_seq);
        // Rows must follow each other without gaps from the snapshot to the head.
        let mut covered = upto;
        for r in rows.iter().filter(|r| r.kind == 2) {
            let (from, to) = (r.a as u64, r.b as u64);
            if to <= upto {
                continue;
            }
            if from > covered + 1 || to < from {
                return Err(corrupt());
            }
            covered = covered.max(to);
            let entries =
                row_entries(r.data.as_deref().ok_or_else(corrupt)?).ok_or_else(corrupt)?;
            if entries.len() as u64 == to - from + 1 {
                for (i, u) in entries.into_iter().enumerate() {
                    let seq = from + i as u64;
                    if seq > upto {
                        doc.updates.push((seq, u));
                    }
                }
            } else if let [merged] = &entries[..] {
                // A merged chunk straddling the snapshot is kept whole: applying a change twice
                // is a no-op in Yjs.
                doc.updates.push((to, merged.clone()));
            } else {
                return Err(corrupt());
            }
        }
        if covered != last_seq {
            return Err(corrupt());
        }
        Ok(Some(doc))
    }

    /// Creates a document (in its own transaction).
    pub async fn create(
        &self,
        doc_id: &str,
        initial_update_v1: &[u8],
    ) -> Result<(), DocStoreError> {
        let mut tx = self.pool.begin().await?;
        create_in(&mut tx, doc_id, initial_update_v1).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Appends a batch of updates in one transaction and returns the last sequence number.
    pub async fn append(&self, doc_id: &str, updates: &[Bytes]) -> Result<u64, DocStoreError> {
        if updates.is_empty() {
            let row: Option<(i64,)> =
                sqlx::query_as("SELECT last_seq FROM doc_heads WHERE doc_id = $1")
                    .bind(doc_id)
                    .fetch_optional(&self.pool)
                    .await?;
            return row.map(|r| r.0 as u64).ok_or(DocStoreError::NotFound);
        }
        let n = updates.len() as i64;
        let now = crate::db::now();
        let mut tx = self.pool.begin().await?;
        let head: Option<(i64,)> = sqlx::query_as("UPDATE doc_heads SET last_seq = last_seq + $2, updated_at = $3 WHERE doc_id = $1 RETURNING last_seq")
            .bind(doc_id)
            .bind(n)
            .bind(&now)
            .fetch_optional(&mut *tx)
            .await?;
        let Some((last,)) = head else {
            tx.rollback().await?;
            return Err(DocStoreError::NotFound);
        };
        let mut seq = last - n + 1;
        for chunk in updates.chunks(MERGE_CHUNK) {
            let data = chunk_row(chunk);
            let to = seq + chunk.len() as i64 - 1;
            sqlx::query(
                "INSERT INTO doc_updates (doc_id, seq_from, seq_to, data) VALUES ($1, $2, $3, $4)",
            )
            .bind(doc_id)
            .bind(seq)
            .bind(to)
            .bind(data)
            .execute(&mut *tx)
            .await?;
            seq = to + 1;
        }
        tx.commit().await?;
        Ok(last as u64)
    }

    /// Replaces every log entry `<= upto_seq` by a snapshot (the full state as one v1 update), atomically. `Ok(false)` (nothing
    /// changed) when the stored snapshot is already at or beyond `upto_seq`, or when `upto_seq`
    /// is beyond the log.
    pub async fn compact(
        &self,
        doc_id: &str,
        snapshot_v1: &[u8],
        upto_seq: u64,
    ) -> Result<bool, DocStoreError> {
        let upto = upto_seq as i64;
        let now = crate::db::now();
        let mut tx = self.pool.begin().await?;
        let moved: Option<(String,)> = sqlx::query_as(
            "UPDATE doc_heads SET snapshot_seq = $2 WHERE doc_id = $1 AND snapshot_seq < $2 AND last_seq >= $2 RETURNING doc_id",
        )
        .bind(doc_id)
        .bind(upto)
        .fetch_optional(&mut *tx)
        .await?;
        if moved.is_none() {
            let exists: Option<(i64,)> =
                sqlx::query_as("SELECT last_seq FROM doc_heads WHERE doc_id = $1")
                    .bind(doc_id)
                    .fetch_optional(&mut *tx)
                    .await?;
            tx.rollback().await?;
            return if exists.is_some() {
                Ok(false)
            } else {
                Err(DocStoreError::NotFound)
            };
        }
        sqlx::query(
            "INSERT INTO doc_snapshots (doc_id, upto_seq, state, created_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (doc_id) DO UPDATE SET upto_seq = excluded.upto_seq, state = excluded.state, created_at = excluded.created_at",
        )
        .bind(doc_id)
        .bind(upto)
        .bind(snapshot_v1.to_vec())
        .bind(&now)
        .execute(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM doc_updates WHERE doc_id = $1 AND seq_to <= $2")
            .bind(doc_id)
            .bind(upto)
            .execute(&mut *tx)
            .await?;
        // A report's section count is cached as of the snapshot, in the same transaction, so the
        // report list reads it without writing (a snapshot that cannot be read keeps the old one).
        match collab::report::read_sections_v1(snapshot_v1) {
            Ok(sections) => {
                crate::db::reports::set_section_count(&mut *tx, doc_id, sections.len() as i64, upto)
                    .await?
            }
            Err(e) => tracing::warn!(error = %e, doc = doc_id, "snapshot sections unreadable"),
        }
        tx.commit().await?;
        Ok(true)
    }

    /// Sizes of a stored document (`None` when it does not exist).
    pub async fn sizes(&self, doc_id: &str) -> Result<Option<DocSizes>, DocStoreError> {
        let row: Option<(i64, i64, i64, i64, i64)> = sqlx::query_as(
            "SELECT h.last_seq,
                    (SELECT COUNT(*) FROM doc_updates u WHERE u.doc_id = h.doc_id),
                    (SELECT CAST(COALESCE(SUM(u.seq_to - u.seq_from + 1), 0) AS BIGINT) FROM doc_updates u WHERE u.doc_id = h.doc_id),
                    (SELECT CAST(COALESCE(SUM(LENGTH(u.data)), 0) AS BIGINT) FROM doc_updates u WHERE u.doc_id = h.doc_id),
                    (SELECT CAST(COALESCE(SUM(LENGTH(s.state)), 0) AS BIGINT) FROM doc_snapshots s WHERE s.doc_id = h.doc_id)
             FROM doc_heads h WHERE h.doc_id = $1",
        )
        .bind(doc_id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.map(
            |(last_seq, log_rows, log_entries, log_bytes, snapshot_bytes)| DocSizes {
                log_rows,
                log_entries,
                log_bytes,
                snapshot_bytes,
                last_seq,
            },
        ))
    }
}

impl From<DocStoreError> for StoreError {
    fn from(e: DocStoreError) -> Self {
        match e {
            DocStoreError::NotFound => StoreError::NotFound,
            DocStoreError::AlreadyExists => StoreError::AlreadyExists,
            DocStoreError::Database(e) => StoreError::Unavailable(e.to_string()),
            other => StoreError::backend(other),
        }
    }
}

#[async_trait]
impl DocStore for SqlDocStore {
    async fn load(&self, doc_id: &str) -> Result<Option<StoredDoc>, StoreError> {
        Ok(SqlDocStore::load(self, doc_id).await?)
    }

    async fn create(&self, doc_id: &str, initial_update_v1: Bytes) -> Result<(), StoreError> {
        Ok(SqlDocStore::create(self, doc_id, &initial_update_v1).await?)
    }

    async fn append(&self, doc_id: &str, updates: &[Bytes]) -> Result<u64, StoreError> {
        Ok(SqlDocStore::append(self, doc_id, updates).await?)
    }

    async fn compact(
        &self,
        doc_id: &str,
        snapshot_v1: Bytes,
        upto_seq: u64,
    ) -> Result<bool, StoreError> {
        Ok(SqlDocStore::compact(self, doc_id, &snapshot_v1, upto_seq).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merged_rows_are_v2_and_load_as_the_same_update() {
        use yrs::{GetString, Text, Transact};
        let doc = yrs::Doc::new();
        let text = doc.get_or_insert_text("t");
        let updates: Vec<Bytes> = "typed one key at a time"
            .chars()
            .map(|c| {
                let mut txn = doc.transact_mut();
                let len = text.len(&txn);
                text.insert(&mut txn, len, &c.to_string());
                Bytes::from(txn.encode_update_v1())
            })
            .collect();
        let row = chunk_row(&updates);
        assert!(row.starts_with(&V2_ROW), "a typing run is stored in v2");
        let raw: usize = updates.iter().map(|u| u.len()).sum();
        assert!(row.len() * 4 < raw, "{} bytes for {raw} raw", row.len());
        let entries = row_entries(&row).unwrap();
        assert_eq!(entries.len(), 1);
        let copy = yrs::Doc::new();
        {
            use yrs::updates::decoder::Decode;
            copy.transact_mut()
                .apply_update(yrs::Update::decode_v1(&entries[0]).unwrap())
                .unwrap();
        }
        let t = copy.get_or_insert_text("t");
        assert_eq!(t.get_string(&copy.transact()), "typed one key at a time");
        // Garbage cannot be merged: it is stored as a plain batch.
        let junk = vec![Bytes::from_static(b"\x05\x01"), Bytes::from_static(b"\x09")];
        assert_eq!(row_entries(&chunk_row(&junk)).unwrap(), junk);
    }

    #[test]
    fn batch_round_trip() {
        let ups = vec![
            Bytes::from_static(b""),
            Bytes::from(vec![0u8; 300]),
            Bytes::from_static(b"\x00\x01\xff"),
        ];
        assert_eq!(decode_batch(&encode_batch(&ups)).unwrap(), ups);
        assert_eq!(decode_batch(&[]).unwrap(), Vec::<Bytes>::new());
        assert!(
            decode_batch(&[5, 1]).is_none(),
            "a length beyond the data is malformed"
        );
    }
}
