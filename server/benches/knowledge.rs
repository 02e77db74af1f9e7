//! The knowledge base's targets: a 300-page regulatory PDF extracted and indexed in under 20 s,
//! and a search over 10,000 chunks under 20 ms at p95.
//!
//! - **Indexing**: a generated 300-page PDF (articles with headings, an outline, about 450 words
//!   a page) read by the worker's extraction (`extract_isolated`, with the upload's limits),
//!   chunked with the default chunk size and written, with its full-text index rows, in one
//!   transaction as the worker does; timed over several runs, against a 10-page PDF of the same
//!   kind as the baseline of the same run.
//! - **Search**: the database then holds 10,000 chunks (the 300-page document's plus generated
//!   regulatory passages, their words as skewed as real text's); 200 searches of two or three
//!   words drawn the same way run through the search function the API and the Q&A agent use;
//!   p50, p95 and max, against the same searches over the 300-page document's chunks alone as
//!   the baseline. The same for 200 searches of the ten commonest words only (nearly every chunk
//!   matches), the worst case.
//!
//! SQLite in a temporary directory by default; `BENCH_DATABASE_URL=postgres://…` runs it on
//! PostgreSQL (its tables are emptied first). `make bench-knowledge` (a release build). Prints
//! one JSON object. Not part of `cargo test`.

use std::time::{Duration, Instant};

use pdf_oxide::writer::{DocumentBuilder, OutlineItem};
use serde_json::json;
use server::db::Db;
use server::db::knowledge::{self as kdb, DocumentRow, NewChunk};
use server::knowledge::{ChunkOptions, Format, Limits, chunk, extract_isolated};
use server::service::knowledge as service;

const RUNS: usize = 3;
const PAGES: usize = 300;
const BASELINE_PAGES: usize = 10;
const TARGET_CHUNKS: usize = 10_000;
const SEARCHES: usize = 200;

const WORDS: [&str; 48] = [
    "exposures",
    "institution",
    "risk",
    "weight",
    "credit",
    "assessment",
    "rating",
    "agency",
    "central",
    "government",
    "regional",
    "authority",
    "public",
    "sector",
    "entity",
    "collateral",
    "guarantee",
    "protection",
    "maturity",
    "residual",
    "obligor",
    "default",
    "capital",
    "own",
    "funds",
    "requirement",
    "competent",
    "treatment",
    "eligible",
    "multilateral",
    "development",
    "bank",
    "corporate",
    "retail",
    "mortgage",
    "property",
    "covered",
    "bonds",
    "securitisation",
    "equity",
    "counterparty",
    "netting",
    "derivative",
    "liquidity",
    "leverage",
    "ratio",
    "tier",
    "deduction",
];

/// Words of the generated text besides [`WORDS`] (pseudo-words made of syllables).
const TAIL_WORDS: usize = 6_000;

/// A deterministic word stream with the skew of real text: word `r` of the vocabulary (the
/// domain [`WORDS`] first, then pseudo-words) comes with a frequency proportional to `1 / r`
/// (Zipf's law), drawn by a linear congruential generator.
struct Prose {
    state: u64,
    vocabulary: Vec<String>,
    cumulative: Vec<f64>,
}

impl Prose {
    fn new(seed: u64) -> Prose {
        const SYLLABLES: [&str; 16] = [
            "ka", "lo", "mi", "nor", "pe", "ras", "ti", "ven", "do", "qua", "sel", "bri", "mon",
            "tur", "gal", "fe",
        ];
        let mut vocabulary: Vec<String> = WORDS.iter().map(|w| (*w).to_owned()).collect();
        for i in 0..TAIL_WORDS {
            let (a, b, c) = (i % 16, (i / 16) % 16, (i / 256) % 16);
            vocabulary.push(format!("{}{}{}x", SYLLABLES[a], SYLLABLES[b], SYLLABLES[c]));
        }
        let mut total = 0.0;
        let cumulative = (1..=vocabulary.len())
            .map(|r| {
                total += 1.0 / r as f64;
                total
            })
            .collect();
        Prose {
            state: seed,
            vocabulary,
            cumulative,
        }
    }

    fn uniform(&mut self) -> f64 {
        self.state = self
            .state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.state >> 11) as f64 / (1u64 << 53) as f64
    }

    fn word(&mut self) -> String {
        let total = *self.cumulative.last().expect("a vocabulary");
        let u = self.uniform() * total;
        let i = self.cumulative.partition_point(|c| *c < u);
        self.vocabulary[i.min(self.vocabulary.len() - 1)].clone()
    }

    /// One of the `n` commonest words.
    fn common(&mut self, n: usize) -> String {
        let i = (self.uniform() * n as f64) as usize;
        self.vocabulary[i.min(n - 1)].clone()
    }

    fn sentence(&mut self, words: usize) -> String {
        let mut s: Vec<String> = (0..words).map(|_| self.word()).collect();
        s.push("under".into());
        let mut out = s.join(" ");
        out.push_str(" Article 116(2).");
        out
    }

    fn paragraph(&mut self, sentences: usize) -> String {
        (0..sentences)
            .map(|_| self.sentence(14))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A regulation of `pages` pages: an article every two pages, with its heading and outline
/// entry, five paragraphs a page.
fn regulation(pages: usize) -> Vec<u8> {
    let mut prose = Prose::new(7);
    let mut b = DocumentBuilder::new();
    for page in 0..pages {
        let mut p = b.a4_page().at(72.0, 770.0);
        if page % 2 == 0 {
            p = p.heading(
                2,
                &format!("Article {} Exposures of class {}", 100 + page / 2, page / 2),
            );
        }
        p = p.font("Helvetica", 10.0);
        for _ in 0..5 {
            p = p.paragraph(&prose.paragraph(5));
        }
        p.done();
    }
    b.bookmark_tree(|o| {
        for page in (0..pages).step_by(2) {
            o.add_item(OutlineItem::new(
                format!("Article {} Exposures of class {}", 100 + page / 2, page / 2),
                page,
            ));
        }
    })
    .build()
    .expect("a PDF")
}

fn document(id: &str, name: &str, size: usize) -> DocumentRow {
    DocumentRow {
        category: Some("Assets".into()),
        attempts: 1,
        ..DocumentRow::queued(
            id.to_owned(),
            name.to_owned(),
            "pdf",
            "application/pdf",
            i64::try_from(size).unwrap_or(i64::MAX),
            format!("knowledge/documents/{id}.pdf"),
            server::db::now(),
        )
    }
}

/// Extracts, chunks and indexes `pdf` as the worker does; returns (pages, chunks, timings).
async fn index(db: &Db, id: &str, pdf: &[u8]) -> (u32, usize, [Duration; 3]) {
    let start = Instant::now();
    let limits = Limits {
        max_bytes: service::MAX_FILE_BYTES,
        max_pages: service::MAX_PAGES,
        max_time: service::MAX_EXTRACT_TIME,
        ..Limits::default()
    };
    let bytes = pdf.to_vec();
    let extracted =
        tokio::task::spawn_blocking(move || extract_isolated(Format::Pdf, &bytes, limits))
            .await
            .expect("extraction task")
            .expect("extracted");
    let extracting = start.elapsed();
    let start = Instant::now();
    let chunks = chunk(
        &extracted.blocks,
        ChunkOptions {
            target_words: usize::try_from(service::CHUNK_WORDS).unwrap_or(200),
        },
    );
    let chunking = start.elapsed();
    let start = Instant::now();
    let mut tx = db.begin_write().await.expect("transaction");
    kdb::insert_document(&mut tx, &document(id, &format!("{id}.pdf"), pdf.len()))
        .await
        .expect("document");
    let articles = service::chunk_articles(&chunks);
    let rows = service::chunk_rows(&chunks, &articles);
    kdb::insert_chunks(&mut tx, db.backend, id, &rows)
        .await
        .expect("chunks");
    let count = i64::try_from(rows.len()).unwrap_or(i64::MAX);
    assert!(
        kdb::complete(
            &mut tx,
            id,
            1,
            extracted.pages.map(i64::from),
            count,
            200,
            &server::db::now()
        )
        .await
        .expect("complete")
    );
    tx.commit().await.expect("commit");
    let indexing = start.elapsed();
    (
        extracted.pages.unwrap_or(0),
        chunks.len(),
        [extracting, chunking, indexing],
    )
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e5).round() / 100.0
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}

async fn searches(db: &Db, queries: &[String]) -> serde_json::Value {
    let mut times = Vec::with_capacity(queries.len());
    let mut hits = 0usize;
    for q in queries {
        let start = Instant::now();
        let found = kdb::search(&db.pool, db.backend, q, service::DEFAULT_HITS)
            .await
            .expect("search");
        times.push(start.elapsed());
        hits += found.len();
    }
    times.sort();
    json!({
        "searches": queries.len(),
        "hits": hits,
        "p50_ms": ms(percentile(&times, 0.50)),
        "p95_ms": ms(percentile(&times, 0.95)),
        "max_ms": ms(*times.last().expect("times")),
    })
}

async fn clear(db: &Db) {
    if db.backend == server::db::Backend::Sqlite {
        sqlx::query("DELETE FROM knowledge_fts")
            .execute(&db.pool)
            .await
            .expect("clear");
    }
    sqlx::query("DELETE FROM knowledge_chunks")
        .execute(&db.pool)
        .await
        .expect("clear");
    sqlx::query("DELETE FROM knowledge_documents")
        .execute(&db.pool)
        .await
        .expect("clear");
}

#[tokio::main]
async fn main() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let url = std::env::var("BENCH_DATABASE_URL")
        .unwrap_or_else(|_| format!("sqlite://{}/bench.db?mode=rwc", dir.path().display()));
    let db = Db::connect(&url).await.expect("database");
    clear(&db).await;

    let big = regulation(PAGES);
    let small = regulation(BASELINE_PAGES);

    let mut big_runs = Vec::new();
    let mut small_runs = Vec::new();
    let mut stages = Vec::new();
    let mut big_chunks = 0;
    let mut big_pages = 0;
    for run in 0..RUNS {
        clear(&db).await;
        let (pages, _, small_t) = index(&db, &format!("small-{run}"), &small).await;
        assert_eq!(pages as usize, BASELINE_PAGES);
        small_runs.push(small_t.iter().sum());
        let start = Instant::now();
        let (pages, chunks, t) = index(&db, &format!("big-{run}"), &big).await;
        big_runs.push(start.elapsed());
        stages.push(t);
        big_chunks = chunks;
        big_pages = pages;
    }
    let big_t = median(big_runs.clone());
    let small_t = median(small_runs);
    let stage = |i: usize| ms(median(stages.iter().map(|t| t[i]).collect()));

    // Search: first over the 300-page document alone, then with the database at 10,000 chunks.
    clear(&db).await;
    index(&db, "regulation", &big).await;
    // Queries of two or three words drawn as the text is (typical), and of the ten commonest
    // words only (the worst case: nearly every chunk matches and is ranked).
    let mut prose = Prose::new(11);
    let queries: Vec<String> = (0..SEARCHES)
        .map(|i| {
            let n = 2 + i % 2;
            (0..n).map(|_| prose.word()).collect::<Vec<_>>().join(" ")
        })
        .collect();
    let common: Vec<String> = (0..SEARCHES)
        .map(|_| format!("{} {}", prose.common(10), prose.common(10)))
        .collect();
    let alone = searches(&db, &queries).await;
    let alone_common = searches(&db, &common).await;
    let mut filler = Prose::new(23);
    let mut id = 0usize;
    let mut total = big_chunks;
    while total < TARGET_CHUNKS {
        let n = (TARGET_CHUNKS - total).min(1_000);
        let texts: Vec<String> = (0..n).map(|_| filler.paragraph(14)).collect();
        let headings: Vec<String> = (0..n)
            .map(|i| format!("Article {} Generated", 400 + i))
            .collect();
        let rows: Vec<NewChunk<'_>> = texts
            .iter()
            .zip(&headings)
            .enumerate()
            .map(|(i, (t, h))| NewChunk {
                ord: i64::try_from(i).unwrap_or(0),
                heading: Some(h),
                page_from: Some(1),
                page_to: Some(1),
                article: Some("Article 116(2)"),
                text: t,
            })
            .collect();
        let doc = format!("generated-{id}");
        let mut tx = db.begin_write().await.expect("transaction");
        kdb::insert_document(&mut tx, &document(&doc, &format!("{doc}.pdf"), 1))
            .await
            .expect("document");
        kdb::insert_chunks(&mut tx, db.backend, &doc, &rows)
            .await
            .expect("chunks");
        kdb::complete(
            &mut tx,
            &doc,
            1,
            Some(1),
            i64::try_from(n).unwrap_or(0),
            200,
            &server::db::now(),
        )
        .await
        .expect("complete");
        tx.commit().await.expect("commit");
        total += n;
        id += 1;
    }
    if db.backend == server::db::Backend::Postgres {
        sqlx::query("ANALYZE knowledge_chunks")
            .execute(&db.pool)
            .await
            .expect("analyze");
    }
    let full = searches(&db, &queries).await;
    let full_common = searches(&db, &common).await;

    let report = json!({
        "database": format!("{:?}", db.backend),
        "indexing": {
            "pages": big_pages,
            "pdf_bytes": big.len(),
            "chunks": big_chunks,
            "runs": RUNS,
            "median_s": (big_t.as_secs_f64() * 1000.0).round() / 1000.0,
            "stages_ms": {"extract": stage(0), "chunk": stage(1), "index": stage(2)},
            "baseline_10_pages_ms": ms(small_t),
            "ratio_to_baseline": (big_t.as_secs_f64() / small_t.as_secs_f64() * 10.0).round() / 10.0,
            "target_s": 20,
            "met": big_t < Duration::from_secs(20),
        },
        "search": {
            "chunks": total,
            "over_10000_chunks": full,
            "baseline_one_document": alone,
            "common_words_over_10000_chunks": full_common,
            "common_words_baseline_one_document": alone_common,
            "target_p95_ms": 20,
            "met": full["p95_ms"].as_f64().unwrap_or(f64::MAX) < 20.0,
        },
    });
    println!("{}", serde_json::to_string_pretty(&report).expect("json"));
}
