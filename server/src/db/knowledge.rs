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

impl DocumentRow {
    /// A document just uploaded, queued for processing (never claimed), created and updated
    /// `now`; category, lever and uploader unset.
    pub fn queued(
        id: String,
        name: String,
        file_type: &str,
        content_type: &str,
        size_bytes: i64,
        storage_key: String,
        now: String,
    ) -> DocumentRow {
        DocumentRow {
            id,
            name,
            file_type: file_type.to_owned(),
            content_type: content_type.to_owned(),
            size_bytes,
            storage_key,
            category: None,
            lever_id: None,
            status: "processing".into(),
            stage: "queued".into(),
            progress: 0,
            error: None,
            pages: None,
            chunk_count: 0,
            attempts: 0,
            lease_until: None,
            uploaded_by: None,
            created_at: now.clone(),
            updated_at: now,
            completed_at: None,
            chunk_words: None,
        }
    }
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
/// - PostgreSQL: posting lists ([`index_postgres`]): for each lexeme of a document (the
///   `english` text search configuration's `to_tsvector` of each chunk's heading and text), one
///   row holding, for every chunk of the document with that lexeme, the chunk's position in the
///   document, the lexeme's occurrences in it and the chunk's length in lexemes; and one row per
///   document of its chunk and lexeme counts. Written in the transaction that writes the chunks,
///   so a search ranks all the query's chunks from a few rows ([`search`]). When the tables are
///   new, documents indexed before are indexed.
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
            let (existing,): (bool,) =
                sqlx::query_as("SELECT to_regclass('knowledge_postings') IS NOT NULL")
                    .fetch_one(&mut *tx)
                    .await?;
            tx.execute(
                "CREATE TABLE IF NOT EXISTS knowledge_postings (
                    lexeme TEXT NOT NULL,
                    document_id TEXT NOT NULL REFERENCES knowledge_documents(id) ON DELETE CASCADE,
                    postings BYTEA NOT NULL,
                    PRIMARY KEY (lexeme, document_id))",
            )
            .await?;
            // Read whole at every search: stored uncompressed, so reading is copying.
            tx.execute("ALTER TABLE knowledge_postings ALTER COLUMN postings SET STORAGE EXTERNAL")
                .await?;
            tx.execute(
                "CREATE INDEX IF NOT EXISTS knowledge_postings_document
                 ON knowledge_postings (document_id)",
            )
            .await?;
            tx.execute(
                "CREATE TABLE IF NOT EXISTS knowledge_search_sizes (
                    document_id TEXT PRIMARY KEY REFERENCES knowledge_documents(id) ON DELETE CASCADE,
                    chunks BIGINT NOT NULL,
                    lexemes BIGINT NOT NULL)",
            )
            .await?;
            if !existing {
                let documents: Vec<(String,)> =
                    sqlx::query_as("SELECT DISTINCT document_id FROM knowledge_chunks")
                        .fetch_all(&mut *tx)
                        .await?;
                for (id,) in documents {
                    index_postgres(&mut tx, &id).await?;
                }
            }
            // The stored vector and its GIN index of earlier versions (and the expression index
            // before them), replaced by the posting lists.
            tx.execute("DROP INDEX IF EXISTS knowledge_chunks_search")
                .await?;
            tx.execute("DROP INDEX IF EXISTS knowledge_chunks_fts")
                .await?;
            tx.execute("ALTER TABLE knowledge_chunks DROP COLUMN IF EXISTS search_vector")
                .await?;
            tx.commit().await
        }
    }
}

/// Writes the PostgreSQL posting lists and sizes of document `document_id` from its chunks
/// (see [`set_up_search`]). A posting is three big-endian 32-bit integers: the chunk's `ord`,
/// the lexeme's occurrences in the chunk, the chunk's lexeme count; a row's postings are in
/// `ord` order. Each chunk is parsed once.
async fn index_postgres(conn: &mut AnyConnection, document_id: &str) -> sqlx::Result<()> {
    sqlx::query(
        "WITH v AS MATERIALIZED (
             SELECT ord, to_tsvector('english', COALESCE(heading, '') || ' ' || text) AS v
             FROM knowledge_chunks WHERE document_id = $1),
         l AS MATERIALIZED (
             SELECT ord, v, (SELECT COALESCE(SUM(cardinality(positions)), 0) FROM unnest(v)) AS len
             FROM v),
         sizes AS (
             INSERT INTO knowledge_search_sizes (document_id, chunks, lexemes)
             SELECT $1, COUNT(*), COALESCE(SUM(len), 0) FROM l)
         INSERT INTO knowledge_postings (lexeme, document_id, postings)
         SELECT u.lexeme, $1,
            string_agg(int4send(CAST(l.ord AS INTEGER)) || int4send(CAST(cardinality(u.positions) AS INTEGER))
                || int4send(CAST(l.len AS INTEGER)), ''::bytea ORDER BY l.ord)
         FROM l CROSS JOIN LATERAL unnest(l.v) u
         GROUP BY u.lexeme",
    )
    .bind(document_id)
    .execute(conn)
    .await?;
    Ok(())
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
/// One function for both databases, ranking by BM25 on both: FTS5 `MATCH` ranked by `bm25` with
/// `snippet()` on SQLite ([`search_sqlite`]), the posting lists of the query's lexemes ranked by
/// the same formula with `ts_headline` on PostgreSQL ([`search_postgres`]). A query without
/// terms finds nothing (and runs no SQL).
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
    search_postgres(pool, &terms, limit).await
}

/// BM25's term-frequency saturation, as FTS5's `bm25()` has it.
const BM25_K1: f64 = 1.2;

/// BM25's length normalisation, as FTS5's `bm25()` has it.
const BM25_B: f64 = 0.75;

/// One posting list of a lexeme: a document's postings (see [`index_postgres`]).
struct PostingList {
    document_id: String,
    created_at: String,
    postings: Vec<u8>,
}

/// A posting: a chunk's `ord`, the lexeme's occurrences in it and its length in lexemes.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Posting {
    ord: i64,
    frequency: f64,
    length: f64,
}

impl PostingList {
    const POSTING_BYTES: usize = 12;

    fn len(&self) -> usize {
        self.postings.len() / Self::POSTING_BYTES
    }

    fn postings(&self) -> impl Iterator<Item = Posting> + '_ {
        self.postings.chunks_exact(Self::POSTING_BYTES).map(|p| {
            let int = |i: usize| i32::from_be_bytes([p[i], p[i + 1], p[i + 2], p[i + 3]]);
            Posting {
                ord: i64::from(int(0)),
                frequency: f64::from(int(4)),
                length: f64::from(int(8)),
            }
        })
    }
}

/// The best `limit` chunks holding every one of `lexemes`, by BM25 (FTS5's formula: an inverse
/// document frequency of 1e-6 where it would not be positive, [`BM25_K1`], [`BM25_B`]) over
/// `chunks` chunks of `lexemes_total` lexemes in all: (document, `ord`, score), best first, equal
/// scores the newer document first, then by `ord`. `lists` holds every posting list of each
/// lexeme.
fn rank_postings(
    lexemes: usize,
    lists: &[(usize, PostingList)],
    chunks: i64,
    lexemes_total: i64,
    limit: usize,
) -> Vec<(String, i64, f64)> {
    if lexemes == 0 || chunks <= 0 || limit == 0 {
        return Vec::new();
    }
    let n = chunks as f64;
    let average = (lexemes_total as f64 / n).max(f64::MIN_POSITIVE);
    let mut frequency = vec![0usize; lexemes];
    for (lexeme, list) in lists {
        frequency[*lexeme] += list.len();
    }
    let idf: Vec<f64> = frequency
        .iter()
        .map(|&df| {
            let df = df as f64;
            let idf = ((n - df + 0.5) / (df + 0.5)).ln();
            if idf > 0.0 { idf } else { 1e-6 }
        })
        .collect();
    // Each document's lists, one per lexeme or none.
    let mut documents: std::collections::BTreeMap<(&str, &str), Vec<Option<&PostingList>>> =
        std::collections::BTreeMap::new();
    for (lexeme, list) in lists {
        documents
            .entry((&list.created_at, &list.document_id))
            .or_insert_with(|| vec![None; lexemes])[*lexeme] = Some(list);
    }
    let mut best: Vec<(&str, &str, i64, f64)> = Vec::new();
    for ((created_at, document_id), per_lexeme) in documents {
        let Some(mut per_lexeme) = per_lexeme
            .into_iter()
            .enumerate()
            .map(|(i, l)| l.map(|l| (i, l)))
            .collect::<Option<Vec<_>>>()
        else {
            continue;
        };
        // Walk the lists together in `ord` order, the shortest leading, scoring the chunks all
        // of them hold.
        per_lexeme.sort_by_key(|(_, l)| l.len());
        let mut iters: Vec<_> = per_lexeme
            .iter()
            .map(|(i, l)| (*i, l.postings().peekable()))
            .collect();
        'chunks: while let Some(first) = iters[0].1.next() {
            let mut score = 0.0;
            for (k, (i, it)) in iters.iter_mut().enumerate() {
                let p = if k == 0 {
                    first
                } else {
                    loop {
                        match it.peek() {
                            None => break 'chunks,
                            Some(p) if p.ord < first.ord => {
                                it.next();
                            }
                            Some(p) if p.ord == first.ord => break *p,
                            Some(_) => continue 'chunks,
                        }
                    }
                };
                score += idf[*i] * p.frequency * (BM25_K1 + 1.0)
                    / (p.frequency + BM25_K1 * (1.0 - BM25_B + BM25_B * p.length / average));
            }
            best.push((created_at, document_id, first.ord, score));
        }
    }
    let by_rank = |a: &(&str, &str, i64, f64), b: &(&str, &str, i64, f64)| {
        b.3.total_cmp(&a.3)
            .then_with(|| b.0.cmp(a.0))
            .then_with(|| a.1.cmp(b.1))
            .then_with(|| a.2.cmp(&b.2))
    };
    if best.len() > limit {
        best.select_nth_unstable_by(limit - 1, by_rank);
        best.truncate(limit);
    }
    best.sort_unstable_by(by_rank);
    best.into_iter()
        .map(|(_, d, ord, score)| (d.to_owned(), ord, score))
        .collect()
}

/// The PostgreSQL search, in two statements: the posting lists of the query's lexemes and the
/// index's sizes (one snapshot), ranked here by BM25 over every chunk holding all the lexemes
/// ([`rank_postings`]); then the best chunks' rows, with a headline (`ts_headline`, which parses
/// their text) for those alone. Both read by index, one lookup per lexeme or chunk (`OFFSET 0`
/// keeps the planner from joining whole tables on row estimates, as it does before the first
/// `ANALYZE` of a new index: a scan of every posting list, 13 ms instead of 0.8 ms at 10,000
/// chunks).
async fn search_postgres(
    pool: &AnyPool,
    terms: &[String],
    limit: i64,
) -> sqlx::Result<Vec<HitRow>> {
    type ListRow = (
        String,
        Option<String>,
        Option<String>,
        Option<Vec<u8>>,
        i64,
        i64,
    );
    let rows: Vec<ListRow> = sqlx::query_as(
        "WITH q AS (SELECT DISTINCT lexeme FROM unnest(to_tsvector('english', $1))),
              s AS (SELECT CAST(COALESCE(SUM(chunks), 0) AS BIGINT) AS chunks,
                      CAST(COALESCE(SUM(lexemes), 0) AS BIGINT) AS lexemes
                    FROM knowledge_search_sizes)
         SELECT q.lexeme, p.document_id, p.created_at, p.postings, s.chunks, s.lexemes
         FROM q CROSS JOIN s
         LEFT JOIN LATERAL (
             SELECT p.document_id, d.created_at, p.postings
             FROM knowledge_postings p JOIN knowledge_documents d ON d.id = p.document_id
             WHERE p.lexeme = q.lexeme
             OFFSET 0) p ON true",
    )
    .bind(terms.join(" "))
    .fetch_all(pool)
    .await?;
    let (chunks, lexemes_total) = rows.first().map_or((0, 0), |r| (r.4, r.5));
    let mut lexemes: Vec<String> = Vec::new();
    let mut lists = Vec::new();
    for (lexeme, document_id, created_at, postings, _, _) in rows {
        let i = match lexemes.iter().position(|l| *l == lexeme) {
            Some(i) => i,
            None => {
                lexemes.push(lexeme);
                lexemes.len() - 1
            }
        };
        if let (Some(document_id), Some(created_at), Some(postings)) =
            (document_id, created_at, postings)
        {
            lists.push((
                i,
                PostingList {
                    document_id,
                    created_at,
                    postings,
                },
            ));
        }
    }
    let best = rank_postings(
        lexemes.len(),
        &lists,
        chunks,
        lexemes_total,
        usize::try_from(limit).unwrap_or(0),
    );
    if best.is_empty() {
        return Ok(Vec::new());
    }
    let best: Vec<serde_json::Value> = best
        .into_iter()
        .enumerate()
        .map(|(i, (document_id, ord, rank))| {
            serde_json::json!({"document_id": document_id, "ord": ord, "rank": rank, "pos": i})
        })
        .collect();
    sqlx::query_as(
        "SELECT d.id AS document_id, d.name AS document_name, c.id AS chunk_id, c.heading,
            c.page_from, c.page_to, c.article, c.text,
            ts_headline('english', c.text, websearch_to_tsquery('english', $1),
                'StartSel=<mark>, StopSel=</mark>, MaxWords=35, MinWords=12, MaxFragments=1, FragmentDelimiter=…') AS snippet,
            b.rank
         FROM jsonb_to_recordset(CAST($2 AS jsonb))
            AS b(document_id TEXT, ord BIGINT, rank DOUBLE PRECISION, pos INTEGER)
         CROSS JOIN LATERAL (
             SELECT * FROM knowledge_chunks c
             WHERE c.document_id = b.document_id AND c.ord = b.ord
             OFFSET 0) c
         JOIN knowledge_documents d ON d.id = c.document_id
         ORDER BY b.pos",
    )
    .bind(quoted(terms))
    .bind(serde_json::Value::Array(best).to_string())
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

/// Inserts a document's chunks, indexed in the caller's transaction (by the trigger on SQLite,
/// as posting lists on PostgreSQL: [`set_up_search`]). The document has no chunks before
/// ([`delete_chunks`]).
#[tracing::instrument(skip(conn, chunks), err)]
pub async fn insert_chunks(
    conn: &mut AnyConnection,
    backend: Backend,
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
    if backend == Backend::Postgres {
        index_postgres(conn, document_id).await?;
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
    let index: &[&'static str] = match backend {
        Backend::Sqlite => &["DELETE FROM knowledge_fts WHERE document_id = $1"],
        Backend::Postgres => &[
            "DELETE FROM knowledge_postings WHERE document_id = $1",
            "DELETE FROM knowledge_search_sizes WHERE document_id = $1",
        ],
    };
    for &statement in index {
        sqlx::query(statement)
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

    fn list(document_id: &str, created_at: &str, postings: &[(i32, i32, i32)]) -> PostingList {
        PostingList {
            document_id: document_id.into(),
            created_at: created_at.into(),
            postings: postings
                .iter()
                .flat_map(|&(ord, tf, len)| [ord, tf, len].into_iter().flat_map(i32::to_be_bytes))
                .collect(),
        }
    }

    /// Chunks holding every lexeme only, scored by BM25 as computed by hand: ten chunks of ten
    /// lexemes on average, each lexeme in three chunks.
    #[test]
    fn postings_rank_the_chunks_holding_every_lexeme_by_bm25() {
        let (a, b) = (0, 1);
        let lists = [
            (a, list("d1", "2026-01-01", &[(0, 2, 10), (1, 1, 10)])),
            (b, list("d1", "2026-01-01", &[(1, 3, 10)])),
            (a, list("d2", "2026-02-01", &[(0, 1, 20)])),
            (b, list("d2", "2026-02-01", &[(0, 1, 20), (5, 1, 10)])),
        ];
        let idf = (7.5f64 / 3.5).ln();
        // d1's chunk 1: the average length, so no length normalisation.
        let d1 = idf * (1.0 * 2.2 / (1.0 + 1.2)) + idf * (3.0 * 2.2 / (3.0 + 1.2));
        // d2's chunk 0: twice the average length.
        let long = 1.0 - 0.75 + 0.75 * 2.0;
        let d2 = 2.0 * idf * (1.0 * 2.2 / (1.0 + 1.2 * long));
        let got = rank_postings(2, &lists, 10, 100, 10);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!((got[0].0.as_str(), got[0].1), ("d1", 1));
        assert_eq!((got[1].0.as_str(), got[1].1), ("d2", 0));
        assert!((got[0].2 - d1).abs() < 1e-12, "{} against {d1}", got[0].2);
        assert!((got[1].2 - d2).abs() < 1e-12, "{} against {d2}", got[1].2);
        // The limit keeps the best.
        let first = rank_postings(2, &lists, 10, 100, 1);
        assert_eq!(first.len(), 1);
        assert_eq!(first[0].1, 1);
        // A lexeme no chunk holds: nothing matches.
        assert!(rank_postings(3, &lists, 10, 100, 10).is_empty());
        // A lexeme in every chunk counts for almost nothing (the idf's floor), not less.
        let everywhere = [(a, list("d1", "2026-01-01", &[(0, 1, 10), (1, 1, 10)]))];
        let got = rank_postings(1, &everywhere, 2, 20, 10);
        assert_eq!(got.len(), 2);
        assert!(got.iter().all(|h| (h.2 - 1e-6).abs() < 1e-12), "{got:?}");
        // Equal scores: the newer document first, then by position.
        let tied = [
            (a, list("old", "2026-01-01", &[(3, 1, 10)])),
            (a, list("new", "2026-03-01", &[(2, 1, 10), (7, 1, 10)])),
        ];
        let order: Vec<(String, i64)> = rank_postings(1, &tied, 10, 100, 10)
            .into_iter()
            .map(|(d, o, _)| (d, o))
            .collect();
        assert_eq!(
            order,
            [("new".into(), 2), ("new".into(), 7), ("old".into(), 3)]
        );
    }
}
