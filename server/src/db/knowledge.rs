//! The knowledge base (migration 0020): documents, their chunks and the full-text index over
//! the chunks, which is per dialect ([`set_up_search`], [`search`]).

use sqlx::{AnyConnection, AnyExecutor, AnyPool, Executor, FromRow};

use super::Backend;

/// A knowledge document.
#[derive(Debug, Clone, FromRow)]
pub struct DocumentRow {
    /// Id.
    pub id: String,
    /// The file name it was uploaded with.
    pub name: String,
    /// `pdf`, `docx` or `txt`.
    pub file_type: String,
    /// The stored original's content type.
    pub content_type: String,
    /// Size in bytes.
    pub size_bytes: i64,
    /// The original's object key.
    pub storage_key: String,
    /// The lever category it belongs to.
    pub category: Option<String>,
    /// The lever it belongs to.
    pub lever_id: Option<String>,
    /// `processing`, `completed` or `failed`.
    pub status: String,
    /// What processing is doing (`queued`, `reading`, `extracting`, `chunking`, `indexing`,
    /// `done`).
    pub stage: String,
    /// Percent done.
    pub progress: i64,
    /// Why it failed.
    pub error: Option<String>,
    /// Pages, when the format has them.
    pub pages: Option<i64>,
    /// Chunks indexed.
    pub chunk_count: i64,
    /// Claims so far.
    pub attempts: i64,
    /// Until when the current claim holds.
    pub lease_until: Option<String>,
    /// Who uploaded it.
    pub uploaded_by: Option<String>,
    /// When it was uploaded.
    pub created_at: String,
    /// Last change.
    pub updated_at: String,
    /// When it completed or failed.
    pub completed_at: Option<String>,
    /// The words per chunk its chunks were cut with (`None`: never indexed).
    pub chunk_words: Option<i64>,
}

const DOCUMENT: &str =
    "SELECT id, name, file_type, content_type, size_bytes, storage_key, category,
    lever_id, status, stage, progress, error, pages, chunk_count, attempts, lease_until,
    uploaded_by, created_at, updated_at, completed_at, chunk_words FROM knowledge_documents";

/// One chunk to store.
#[derive(Debug, Clone)]
pub struct NewChunk<'a> {
    /// Position in the document.
    pub ord: i64,
    /// Heading path.
    pub heading: Option<&'a str>,
    /// First page.
    pub page_from: Option<i64>,
    /// Last page.
    pub page_to: Option<i64>,
    /// Article references, comma-separated.
    pub article: Option<&'a str>,
    /// Text.
    pub text: &'a str,
}

/// A search hit.
#[derive(Debug, Clone, FromRow)]
pub struct HitRow {
    /// The document.
    pub document_id: String,
    /// Its name.
    pub document_name: String,
    /// The chunk.
    pub chunk_id: String,
    /// The chunk's heading path.
    pub heading: Option<String>,
    /// First page.
    pub page_from: Option<i64>,
    /// Last page.
    pub page_to: Option<i64>,
    /// Article references.
    pub article: Option<String>,
    /// The matching passage, terms between `<mark>` and `</mark>`.
    pub snippet: String,
    /// The chunk's whole text (the Q&A agent quotes it).
    pub text: String,
    /// Relevance, higher is better.
    pub rank: f64,
}

/// Creates the full-text index of the chunks for `backend`, outside the shared migrations
/// because its DDL is not portable. Idempotent; harmless when several instances start together.
///
/// - SQLite: an FTS5 table `knowledge_fts` (Porter stemming over unicode61) holding each chunk's
///   id, document, heading and text, filled by a trigger on insert into `knowledge_chunks`, so a
///   chunk is indexed in the transaction that writes it; deletions remove the rows explicitly
///   ([`delete_document`]). When the table is new, chunks written before are indexed.
/// - PostgreSQL: a stored generated column `search_vector`
///   (`to_tsvector('english', heading || ' ' || text)`, computed when a chunk is written) with a
///   GIN index; searches match and rank on it without parsing any text again.
pub async fn set_up_search(pool: &AnyPool, backend: Backend) -> sqlx::Result<()> {
    match backend {
        Backend::Sqlite => {
            let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
            let (existing,): (i64,) = sqlx::query_as(
                "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'knowledge_fts'",
            )
            .fetch_one(&mut *tx)
            .await?;
            if existing == 0 {
                tx.execute(
                    "CREATE VIRTUAL TABLE knowledge_fts USING fts5(
                        chunk_id UNINDEXED, document_id UNINDEXED, heading, text,
                        tokenize = 'porter unicode61')",
                )
                .await?;
                tx.execute(
                    "INSERT INTO knowledge_fts (chunk_id, document_id, heading, text)
                     SELECT id, document_id, COALESCE(heading, ''), text FROM knowledge_chunks",
                )
                .await?;
            }
            tx.execute(
                "CREATE TRIGGER IF NOT EXISTS knowledge_chunks_fts AFTER INSERT ON knowledge_chunks
                 BEGIN
                   INSERT INTO knowledge_fts (chunk_id, document_id, heading, text)
                   VALUES (new.id, new.document_id, COALESCE(new.heading, ''), new.text);
                 END",
            )
            .await?;
            tx.commit().await
        }
        Backend::Postgres => {
            // One instance at a time (instances starting together wait for each other).
            let mut tx = pool.begin().await?;
            tx.execute("SELECT pg_advisory_xact_lock(7242190114)")
                .await?;
            tx.execute(
                "ALTER TABLE knowledge_chunks ADD COLUMN IF NOT EXISTS search_vector tsvector
                 GENERATED ALWAYS AS (to_tsvector('english', COALESCE(heading, '') || ' ' || text)) STORED",
            )
            .await?;
            tx.execute(
                "CREATE INDEX IF NOT EXISTS knowledge_chunks_search ON knowledge_chunks
                 USING gin (search_vector)",
            )
            .await?;
            // The expression index of earlier versions, replaced by the stored column's.
            tx.execute("DROP INDEX IF EXISTS knowledge_chunks_fts")
                .await?;
            tx.commit().await
        }
    }
}

/// The terms of a user's query: runs of letters and digits, lower-cased, at most 32. A query of
/// only punctuation has none.
pub fn query_terms(q: &str) -> Vec<String> {
    q.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
        .take(32)
        .collect()
}

/// The query text for `terms`: each term quoted (so no term is read as an operator or column
/// name by FTS5, or as `or` by `websearch_to_tsquery`), all required.
fn quoted(terms: &[String]) -> String {
    terms
        .iter()
        .map(|t| format!("\"{}\"", t.replace('"', "")))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The chunks of completed documents that match every term of `q`, best first, with a snippet.
/// Every chunk belongs to a document that completed at least once: a document being re-indexed
/// is searched on its previous chunks until the new ones replace them.
///
/// One function for both databases: FTS5 `MATCH` ranked by `bm25` with `snippet()` on SQLite
/// ([`search_sqlite`]), `websearch_to_tsquery` ranked by `ts_rank_cd` with `ts_headline` on
/// PostgreSQL. A query without terms finds nothing (and runs no SQL).
#[tracing::instrument(skip(pool), err)]
pub async fn search(
    pool: &AnyPool,
    backend: Backend,
    q: &str,
    limit: i64,
) -> sqlx::Result<Vec<HitRow>> {
    let terms = query_terms(q);
    if terms.is_empty() {
        return Ok(Vec::new());
    }
    if backend == Backend::Sqlite {
        return search_sqlite(pool, &quoted(&terms), limit).await;
    }
    // Ranked on the stored vector (no text parsed again); the headline, which parses the text,
    // is written for the best rows only.
    sqlx::query_as(
        "SELECT d.id AS document_id, d.name AS document_name, c.id AS chunk_id, c.heading,
            c.page_from, c.page_to, c.article, c.text,
            ts_headline('english', c.text, best.q,
                'StartSel=<mark>, StopSel=</mark>, MaxWords=35, MinWords=12, MaxFragments=1, FragmentDelimiter=…') AS snippet,
            best.rank
         FROM (SELECT c.id, q.q,
                 CAST(ts_rank_cd(c.search_vector, q.q) AS DOUBLE PRECISION) AS rank,
                 d.created_at, c.ord
               FROM knowledge_chunks c
               JOIN knowledge_documents d ON d.id = c.document_id
               CROSS JOIN (SELECT websearch_to_tsquery('english', $1) AS q) q
               WHERE c.search_vector @@ q.q
               ORDER BY rank DESC, d.created_at DESC, c.ord
               LIMIT $2) best
         JOIN knowledge_chunks c ON c.id = best.id
         JOIN knowledge_documents d ON d.id = c.document_id
         ORDER BY best.rank DESC, best.created_at DESC, best.ord",
    )
    .bind(quoted(&terms))
    .bind(limit)
    .fetch_all(pool)
    .await
}

/// Index rows from which a SQLite search ranks in parts, one per core (fewer rows rank faster
/// in one query than the parts take to start).
const RANK_IN_PARTS_FROM: i64 = 2_000;

/// Most parts a SQLite search ranks in.
const MOST_RANK_PARTS: i64 = 4;

/// The SQLite search, in two steps:
///
/// 1. **Rank.** `bm25` for every matching index row, best `limit` kept by SQLite's sorter
///    (`ORDER BY bm25(...) LIMIT`, which keeps only the best rows; FTS5's own `ORDER BY rank`
///    sorts every matching row first). Nothing but the row id and the score is read: any other
///    column would be fetched from the index's content table for every matching row (all of
///    them, for common words) before the limit applies. Ranking is nearly all a common word's
///    search costs (about a microsecond a matching row; matching alone is a twentieth of it),
///    so over a large index it runs in parts, on separate pooled connections (SQLite runs each
///    on its own thread): one contiguous range of row ids each, each part's best `limit`, the
///    best of those kept. Exact: `bm25` takes its document frequencies, row count and average
///    length from the whole index whatever range a query scans, so the parts' scores are the
///    scores one query gives.
/// 2. **Describe** the best rows only: their chunk, document and snippet (one `rowid =` lookup
///    each).
async fn search_sqlite(pool: &AnyPool, query: &str, limit: i64) -> sqlx::Result<Vec<HitRow>> {
    // The index's row ids (the shadow table of document sizes has one row per indexed row; one
    // `MIN` or `MAX` a query is an index lookup, both in one a scan).
    let (first, last): (Option<i64>, Option<i64>) = sqlx::query_as(
        "SELECT (SELECT MIN(id) FROM knowledge_fts_docsize), (SELECT MAX(id) FROM knowledge_fts_docsize)",
    )
    .fetch_one(pool)
    .await?;
    let (Some(first), Some(last)) = (first, last) else {
        return Ok(Vec::new());
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let parts = if last - first + 1 >= RANK_IN_PARTS_FROM {
        i64::try_from(cores).unwrap_or(1).clamp(1, MOST_RANK_PARTS)
    } else {
        1
    };
    let span = (last - first + parts) / parts;
    let ranked = futures_util::future::try_join_all((0..parts).map(|i| {
        let from = first + i * span;
        let to = if i + 1 == parts {
            last
        } else {
            from + span - 1
        };
        sqlx::query_as::<_, (i64, f64)>(
            "SELECT rowid, -bm25(knowledge_fts) FROM knowledge_fts
             WHERE knowledge_fts MATCH $1 AND rowid >= $2 AND rowid <= $3
             ORDER BY bm25(knowledge_fts), rowid LIMIT $4",
        )
        .bind(query)
        .bind(from)
        .bind(to)
        .bind(limit)
        .fetch_all(pool)
    }))
    .await?;
    let mut best: Vec<(i64, f64)> = ranked.into_iter().flatten().collect();
    // Best score first, equal scores by row id (as in each part), so ties choose the same rows
    // however the index is split.
    best.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    best.truncate(usize::try_from(limit).unwrap_or(0));
    if best.is_empty() {
        return Ok(Vec::new());
    }
    let best = serde_json::to_string(&best).unwrap_or_else(|_| "[]".into());
    sqlx::query_as(
        "WITH best AS MATERIALIZED (
             SELECT b.value ->> 0 AS fts_row, b.value ->> 1 AS rank,
                (SELECT chunk_id FROM knowledge_fts WHERE rowid = b.value ->> 0) AS chunk_id
             FROM json_each($2) b)
         SELECT d.id AS document_id, d.name AS document_name, c.id AS chunk_id, c.heading,
            c.page_from, c.page_to, c.article, c.text,
            (SELECT snippet(knowledge_fts, 3, '<mark>', '</mark>', '…', 24)
             FROM knowledge_fts WHERE knowledge_fts MATCH $1 AND rowid = best.fts_row) AS snippet,
            best.rank
         FROM best
         JOIN knowledge_chunks c ON c.id = best.chunk_id
         JOIN knowledge_documents d ON d.id = c.document_id
         ORDER BY best.rank DESC, d.created_at DESC, c.ord",
    )
    .bind(query)
    .bind(best)
    .fetch_all(pool)
    .await
}

/// Inserts a document.
#[tracing::instrument(skip(conn), err)]
pub async fn insert_document(conn: &mut AnyConnection, d: &DocumentRow) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO knowledge_documents (id, name, file_type, content_type, size_bytes,
            storage_key, category, lever_id, status, stage, progress, error, pages, chunk_count,
            attempts, lease_until, uploaded_by, created_at, updated_at, completed_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18,
            $19, $20)",
    )
    .bind(&d.id)
    .bind(&d.name)
    .bind(&d.file_type)
    .bind(&d.content_type)
    .bind(d.size_bytes)
    .bind(&d.storage_key)
    .bind(&d.category)
    .bind(&d.lever_id)
    .bind(&d.status)
    .bind(&d.stage)
    .bind(d.progress)
    .bind(&d.error)
    .bind(d.pages)
    .bind(d.chunk_count)
    .bind(d.attempts)
    .bind(&d.lease_until)
    .bind(&d.uploaded_by)
    .bind(&d.created_at)
    .bind(&d.updated_at)
    .bind(&d.completed_at)
    .execute(conn)
    .await?;
    Ok(())
}

/// The newest documents first (at most `limit`).
#[tracing::instrument(skip(ex), err)]
pub async fn list<'e>(ex: impl AnyExecutor<'e>, limit: i64) -> sqlx::Result<Vec<DocumentRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{DOCUMENT} ORDER BY created_at DESC, id LIMIT $1"
    )))
    .bind(limit)
    .fetch_all(ex)
    .await
}

/// One document.
#[tracing::instrument(skip(ex), err)]
pub async fn get<'e>(ex: impl AnyExecutor<'e>, id: &str) -> sqlx::Result<Option<DocumentRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!("{DOCUMENT} WHERE id = $1")))
        .bind(id)
        .fetch_optional(ex)
        .await
}

/// Whether some document waits for a claim (read first, so that an idle worker's poll does
/// not take SQLite's write lock).
#[tracing::instrument(skip(ex), err)]
pub async fn any_ready<'e>(
    ex: impl AnyExecutor<'e>,
    now: &str,
    max_attempts: i64,
) -> sqlx::Result<bool> {
    let row: Option<(String,)> = sqlx::query_as(
        "SELECT id FROM knowledge_documents WHERE status = 'processing'
           AND (lease_until IS NULL OR lease_until < $1) AND attempts < $2 LIMIT 1",
    )
    .bind(now)
    .bind(max_attempts)
    .fetch_optional(ex)
    .await?;
    Ok(row.is_some())
}

/// Claims the oldest document waiting for processing, or one whose claim expired and that has
/// claims left: its lease runs to `lease_until` and its attempts grow by one. On PostgreSQL,
/// `FOR UPDATE SKIP LOCKED` lets instances claim different documents at once, and the repeated
/// guard makes two of them unable to claim the same one.
#[tracing::instrument(skip(ex), err)]
pub async fn claim<'e>(
    ex: impl AnyExecutor<'e>,
    backend: Backend,
    now: &str,
    lease_until: &str,
    max_attempts: i64,
) -> sqlx::Result<Option<DocumentRow>> {
    let lock = match backend {
        Backend::Postgres => " FOR UPDATE SKIP LOCKED",
        Backend::Sqlite => "",
    };
    let ready =
        "status = 'processing' AND (lease_until IS NULL OR lease_until < $1) AND attempts < $3";
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "UPDATE knowledge_documents SET lease_until = $2, attempts = attempts + 1,
            stage = 'reading', progress = 10, updated_at = $1
         WHERE id = (SELECT id FROM knowledge_documents WHERE {ready}
                     ORDER BY created_at, id LIMIT 1{lock})
           AND {ready}
         RETURNING id, name, file_type, content_type, size_bytes, storage_key, category,
            lever_id, status, stage, progress, error, pages, chunk_count, attempts, lease_until,
            uploaded_by, created_at, updated_at, completed_at, chunk_words"
    )))
    .bind(now)
    .bind(lease_until)
    .bind(max_attempts)
    .fetch_optional(ex)
    .await
}

/// Stores the stage and progress of the claim `attempt` and extends its lease; false when the
/// document is no longer this claim's (deleted, failed, or claimed again).
#[tracing::instrument(skip(ex), err)]
pub async fn set_progress<'e>(
    ex: impl AnyExecutor<'e>,
    id: &str,
    attempt: i64,
    stage: &str,
    progress: i64,
    now: &str,
    lease_until: &str,
) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "UPDATE knowledge_documents SET stage = $3, progress = $4, updated_at = $5, lease_until = $6
         WHERE id = $1 AND attempts = $2 AND status = 'processing'",
    )
    .bind(id)
    .bind(attempt)
    .bind(stage)
    .bind(progress)
    .bind(now)
    .bind(lease_until)
    .execute(ex)
    .await?;
    Ok(r.rows_affected() == 1)
}

/// Marks the claim `attempt` of a document completed; false when it is no longer this claim's.
/// The chunks are inserted in the same transaction ([`insert_chunks`]).
#[tracing::instrument(skip(conn), err)]
pub async fn complete(
    conn: &mut AnyConnection,
    id: &str,
    attempt: i64,
    pages: Option<i64>,
    chunk_count: i64,
    chunk_words: i64,
    now: &str,
) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "UPDATE knowledge_documents SET status = 'completed', stage = 'done', progress = 100,
            pages = $3, chunk_count = $4, error = NULL, lease_until = NULL, updated_at = $5,
            completed_at = $5, chunk_words = $6
         WHERE id = $1 AND attempts = $2 AND status = 'processing'",
    )
    .bind(id)
    .bind(attempt)
    .bind(pages)
    .bind(chunk_count)
    .bind(now)
    .bind(chunk_words)
    .execute(conn)
    .await?;
    Ok(r.rows_affected() == 1)
}

/// Inserts a document's chunks (indexed by the trigger on SQLite, the stored column on
/// PostgreSQL, in the caller's transaction).
#[tracing::instrument(skip(conn, chunks), err)]
pub async fn insert_chunks(
    conn: &mut AnyConnection,
    document_id: &str,
    chunks: &[NewChunk<'_>],
) -> sqlx::Result<()> {
    for c in chunks {
        sqlx::query(
            "INSERT INTO knowledge_chunks (id, document_id, ord, heading, page_from, page_to,
                article, text)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(super::new_id())
        .bind(document_id)
        .bind(c.ord)
        .bind(c.heading)
        .bind(c.page_from)
        .bind(c.page_to)
        .bind(c.article)
        .bind(c.text)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// Fails the claim `attempt` of a document with `error`; false when it is no longer this
/// claim's.
#[tracing::instrument(skip(conn), err)]
pub async fn fail(
    conn: &mut AnyConnection,
    id: &str,
    attempt: i64,
    error: &str,
    now: &str,
) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "UPDATE knowledge_documents SET status = 'failed', error = $3, lease_until = NULL,
            updated_at = $4, completed_at = $4
         WHERE id = $1 AND attempts = $2 AND status = 'processing'",
    )
    .bind(id)
    .bind(attempt)
    .bind(error)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(r.rows_affected() == 1)
}

/// Whether some document's last allowed claim expired (see [`fail_exhausted`]).
#[tracing::instrument(skip(ex), err)]
pub async fn any_exhausted<'e>(
    ex: impl AnyExecutor<'e>,
    now: &str,
    max_attempts: i64,
) -> sqlx::Result<bool> {
    let row: Option<(String,)> = sqlx::query_as(
        "SELECT id FROM knowledge_documents
         WHERE status = 'processing' AND attempts >= $2 AND lease_until < $1 LIMIT 1",
    )
    .bind(now)
    .bind(max_attempts)
    .fetch_optional(ex)
    .await?;
    Ok(row.is_some())
}

/// Fails the documents whose last allowed claim expired (their workers died each time), with
/// `error`; returns their ids.
#[tracing::instrument(skip(conn), err)]
pub async fn fail_exhausted(
    conn: &mut AnyConnection,
    now: &str,
    max_attempts: i64,
    error: &str,
) -> sqlx::Result<Vec<String>> {
    let rows: Vec<(String,)> = sqlx::query_as(
        "UPDATE knowledge_documents SET status = 'failed', error = $3, lease_until = NULL,
            updated_at = $1, completed_at = $1
         WHERE status = 'processing' AND attempts >= $2 AND lease_until < $1
         RETURNING id",
    )
    .bind(now)
    .bind(max_attempts)
    .bind(error)
    .fetch_all(conn)
    .await?;
    Ok(rows.into_iter().map(|(id,)| id).collect())
}

/// Deletes a document's chunks and their index rows (before its new chunks are inserted, or with
/// the document).
#[tracing::instrument(skip(conn), err)]
pub async fn delete_chunks(
    conn: &mut AnyConnection,
    backend: Backend,
    document_id: &str,
) -> sqlx::Result<()> {
    if backend == Backend::Sqlite {
        sqlx::query("DELETE FROM knowledge_fts WHERE document_id = $1")
            .bind(document_id)
            .execute(&mut *conn)
            .await?;
    }
    sqlx::query("DELETE FROM knowledge_chunks WHERE document_id = $1")
        .bind(document_id)
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// Puts every completed or failed document back in the queue (re-indexing): processing, stage
/// `queued`, no claim, attempts from zero; their chunks stay until new ones replace them. Returns
/// their ids.
#[tracing::instrument(skip(conn), err)]
pub async fn requeue_all(conn: &mut AnyConnection, now: &str) -> sqlx::Result<Vec<String>> {
    let rows: Vec<(String,)> = sqlx::query_as(
        "UPDATE knowledge_documents SET status = 'processing', stage = 'queued', progress = 0,
            error = NULL, attempts = 0, lease_until = NULL, updated_at = $1
         WHERE status IN ('completed', 'failed')
         RETURNING id",
    )
    .bind(now)
    .fetch_all(conn)
    .await?;
    Ok(rows.into_iter().map(|r| r.0).collect())
}

/// Completed documents whose chunks were cut with another chunk size than `chunk_words`.
#[tracing::instrument(skip(ex), err)]
pub async fn count_stale<'e>(ex: impl AnyExecutor<'e>, chunk_words: i64) -> sqlx::Result<i64> {
    let (n,): (i64,) = sqlx::query_as(
        "SELECT COUNT(*) FROM knowledge_documents
         WHERE status = 'completed' AND (chunk_words IS NULL OR chunk_words <> $1)",
    )
    .bind(chunk_words)
    .fetch_one(ex)
    .await?;
    Ok(n)
}

/// Deletes a document with its chunks and their index rows; returns it, or `None` when there
/// was none.
#[tracing::instrument(skip(conn), err)]
pub async fn delete_document(
    conn: &mut AnyConnection,
    backend: Backend,
    id: &str,
) -> sqlx::Result<Option<DocumentRow>> {
    let Some(doc) = get(&mut *conn, id).await? else {
        return Ok(None);
    };
    delete_chunks(&mut *conn, backend, id).await?;
    sqlx::query("DELETE FROM knowledge_documents WHERE id = $1")
        .bind(id)
        .execute(&mut *conn)
        .await?;
    Ok(Some(doc))
}

/// The figures of the knowledge base.
#[derive(Debug, Clone, FromRow)]
pub struct StatsRow {
    /// Completed documents.
    pub documents: i64,
    /// Every upload, whatever its status.
    pub uploads: i64,
    /// Uploads being processed.
    pub processing: i64,
    /// Failed uploads.
    pub failed: i64,
    /// Chunks indexed (of completed documents).
    pub chunks: i64,
}

/// The knowledge base's figures.
#[tracing::instrument(skip(ex), err)]
pub async fn stats<'e>(ex: impl AnyExecutor<'e>) -> sqlx::Result<StatsRow> {
    sqlx::query_as(
        "SELECT
            CAST(COALESCE(SUM(CASE WHEN status = 'completed' THEN 1 ELSE 0 END), 0) AS BIGINT) AS documents,
            CAST(COUNT(*) AS BIGINT) AS uploads,
            CAST(COALESCE(SUM(CASE WHEN status = 'processing' THEN 1 ELSE 0 END), 0) AS BIGINT) AS processing,
            CAST(COALESCE(SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END), 0) AS BIGINT) AS failed,
            CAST(COALESCE(SUM(CASE WHEN status = 'completed' THEN chunk_count ELSE 0 END), 0) AS BIGINT) AS chunks
         FROM knowledge_documents",
    )
    .fetch_one(ex)
    .await
}

/// Completed documents per category (`None`: no category).
#[tracing::instrument(skip(ex), err)]
pub async fn documents_per_category<'e>(
    ex: impl AnyExecutor<'e>,
) -> sqlx::Result<Vec<(Option<String>, i64)>> {
    sqlx::query_as(
        "SELECT category, CAST(COUNT(*) AS BIGINT) FROM knowledge_documents
         WHERE status = 'completed' GROUP BY category ORDER BY category",
    )
    .fetch_all(ex)
    .await
}

/// The storage keys of every document (the orphan sweeper keeps these objects).
#[tracing::instrument(skip(ex), err)]
pub async fn storage_keys<'e>(ex: impl AnyExecutor<'e>) -> sqlx::Result<Vec<String>> {
    let rows: Vec<(String,)> = sqlx::query_as("SELECT storage_key FROM knowledge_documents")
        .fetch_all(ex)
        .await?;
    Ok(rows.into_iter().map(|(k,)| k).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_terms_drop_punctuation_and_operators_stay_words() {
        assert_eq!(query_terms("Art. 116(2)"), ["art", "116", "2"]);
        assert!(query_terms("\"*()-:^ ..").is_empty());
        assert_eq!(
            quoted(&query_terms("NEAR OR and")),
            "\"near\" \"or\" \"and\""
        );
    }

    fn document(id: &str) -> DocumentRow {
        let now = crate::db::now();
        DocumentRow {
            id: id.to_owned(),
            name: format!("{id}.txt"),
            file_type: "txt".into(),
            content_type: "text/plain".into(),
            size_bytes: 1,
            storage_key: format!("knowledge/documents/{id}.txt"),
            category: None,
            lever_id: None,
            status: "processing".into(),
            stage: "queued".into(),
            progress: 0,
            error: None,
            pages: None,
            chunk_count: 0,
            attempts: 1,
            lease_until: None,
            uploaded_by: None,
            created_at: now.clone(),
            updated_at: now,
            completed_at: None,
            chunk_words: None,
        }
    }

    /// Over an index large enough to be ranked in parts, the search finds what one ranking
    /// statement over the whole index finds: the same chunks with the same scores.
    #[tokio::test]
    async fn a_search_ranked_in_parts_finds_what_one_statement_finds() {
        let dir = std::env::temp_dir().join(format!("capopt-kb-{}", crate::db::new_id()));
        std::fs::create_dir_all(&dir).unwrap();
        let url = format!("sqlite://{}?mode=rwc", dir.join("t.db").display());
        let db = crate::db::Db::connect(&url).await.unwrap();
        // Skewed text: word i of the vocabulary drawn with a weight falling with i.
        const WORDS: [&str; 12] = [
            "exposure",
            "risk",
            "weight",
            "institution",
            "rating",
            "collateral",
            "guarantee",
            "maturity",
            "sovereign",
            "covered",
            "mortgage",
            "leverage",
        ];
        let mut state: u64 = 42;
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            state >> 33
        };
        let total = RANK_IN_PARTS_FROM + 600;
        for d in 0..2 {
            let texts: Vec<String> = (0..total / 2)
                .map(|_| {
                    let n = 20 + next() % 60;
                    (0..n)
                        .map(|_| {
                            let r = next() % 1_000;
                            WORDS[usize::try_from((r * r) / 90_000).unwrap().min(11)]
                        })
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect();
            let rows: Vec<NewChunk<'_>> = texts
                .iter()
                .enumerate()
                .map(|(i, t)| NewChunk {
                    ord: i64::try_from(i).unwrap(),
                    heading: Some("Article 1"),
                    page_from: None,
                    page_to: None,
                    article: None,
                    text: t,
                })
                .collect();
            let id = format!("doc-{d}");
            let mut tx = db.begin_write().await.unwrap();
            insert_document(&mut tx, &document(&id)).await.unwrap();
            insert_chunks(&mut tx, &id, &rows).await.unwrap();
            tx.commit().await.unwrap();
        }
        for q in [
            "exposure",
            "risk weight",
            "mortgage leverage",
            "covered",
            "absent",
        ] {
            let limit = 10;
            let found = search(&db.pool, db.backend, q, limit).await.unwrap();
            let reference: Vec<(String, f64)> = sqlx::query_as(
                "SELECT chunk_id, -bm25(knowledge_fts) FROM knowledge_fts
                 WHERE knowledge_fts MATCH $1 ORDER BY bm25(knowledge_fts), rowid LIMIT $2",
            )
            .bind(quoted(&query_terms(q)))
            .bind(limit)
            .fetch_all(&db.pool)
            .await
            .unwrap();
            let mut got: Vec<&str> = found.iter().map(|h| h.chunk_id.as_str()).collect();
            let mut want: Vec<&str> = reference.iter().map(|(c, _)| c.as_str()).collect();
            got.sort_unstable();
            want.sort_unstable();
            assert_eq!(got, want, "the same chunks for {q:?}");
            let mut ranks: Vec<f64> = found.iter().map(|h| h.rank).collect();
            let mut want_ranks: Vec<f64> = reference.iter().map(|(_, r)| *r).collect();
            ranks.sort_by(f64::total_cmp);
            want_ranks.sort_by(f64::total_cmp);
            assert_eq!(ranks.len(), want_ranks.len());
            for (a, b) in ranks.iter().zip(&want_ranks) {
                assert!(
                    (a - b).abs() <= 1e-9 * b.abs().max(1.0),
                    "{q:?}: {a} against {b}"
                );
            }
            assert!(found.iter().all(|h| h.snippet.contains("<mark>")));
            if q == "absent" {
                assert!(found.is_empty());
            } else {
                assert_eq!(found.len(), 10, "{q:?} matches many chunks");
            }
        }
        db.pool.close().await;
        let _ = std::fs::remove_dir_all(dir);
    }
}
