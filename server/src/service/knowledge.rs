//! The regulatory knowledge base (spec 002, AI Knowledge Base Management): administrators upload
//! PDF, DOCX and TXT documents, which are read, cut into chunks and indexed for full-text search
//! in the background (`jobs::knowledge`), and search them.
//!
//! **Lifecycle.** An upload stores the original in object storage and creates the document
//! `processing` (stage `queued`) in one change. A worker claims it with a lease
//! ([`LEASE`], extended at every stage and while the parser runs), reads it, extracts its text
//! ([`crate::knowledge`], on a blocking thread under `catch_unwind` with byte, page and time
//! limits), chunks it, then ONE transaction writes the chunks (and, through them, the full-text
//! index) and marks the document `completed` with its pages and chunk count, or the document
//! ends `failed` with a message the administrator can act on. Both ends are guarded by the
//! claim's attempt, so a document deleted or claimed again meanwhile is left alone.
//!
//! **Crash recovery: re-queue.** A worker that dies (a crash, a restart, a deploy) stops
//! extending its lease; when it expires the document is claimed again, by any instance, at
//! start-up or later (attempts counted, up to [`MAX_ATTEMPTS`]). A document whose last allowed
//! claim also expired is failed with "Upload processing failed" ([`fail_exhausted`]), so no
//! document stays `processing` for ever and none is written twice.

use std::collections::HashSet;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::files::kind::{Seen, sanitize_name};
use super::lever_dictionary::{CATEGORIES, ReceivedFile};
use super::{Actor, Audit, AuditActor, Change};
use crate::db::knowledge::{self as db, DocumentRow, HitRow, NewChunk};
use crate::error::{ApiError, ApiResult};
use crate::knowledge::{Chunk, Format};
use crate::realtime::events::KnowledgeChange;
use crate::realtime::{Event, Topic};
use crate::state::AppState;
use crate::storage::{ObjectKey, Storage};

/// Largest document (the upload limit, as for the lever dictionary's files).
pub const MAX_FILE_BYTES: u64 = 25 * 1024 * 1024;
/// Most documents in one upload (Bulk lever doc upload).
pub const MAX_FILES_PER_UPLOAD: usize = 20;
/// Most pages read from a PDF.
pub const MAX_PAGES: usize = 2_000;
/// Longest time the parser may take on one document.
pub const MAX_EXTRACT_TIME: Duration = Duration::from_secs(60);
/// Words per chunk, unless the Settings tab says otherwise.
pub const CHUNK_WORDS: i64 = 200;
/// The smallest chunk size the Settings tab accepts.
pub const MIN_CHUNK_WORDS: i64 = 50;
/// The largest chunk size the Settings tab accepts.
pub const MAX_CHUNK_WORDS: i64 = 1000;
/// The language documents are searched in (stemming and stop words of the full-text index).
pub const SEARCH_LANGUAGE: &str = "English";
/// How long a claim holds without being extended.
pub const LEASE: Duration = Duration::from_secs(45);
/// Claims of a document before it is failed.
pub const MAX_ATTEMPTS: i64 = 3;
/// Most documents listed (spec: "Stats read at most 1000 entries").
pub const LIST_LIMIT: i64 = 1000;
/// Most search hits answered.
pub const MAX_HITS: i64 = 50;
/// The search hits answered when the query names no limit.
pub const DEFAULT_HITS: i64 = 10;

/// 'Please select files and a lever category'
pub const SELECT_FILES: &str = "Please select files and a lever category";
/// A file of a type the knowledge base does not read ('Unsupported file type').
pub const UNSUPPORTED: &str =
    "Unsupported file type: only PDF, DOCX and TXT documents can be added to the knowledge base.";
/// A Word 97-2003 document ('Unsupported file type').
pub const DOC_REFUSED: &str = "Unsupported file type: Word 97-2003 documents (.doc) cannot be read. Save the document as .docx (Word 2007 or later) or PDF and upload it again.";
/// 'Files must be smaller than {n}MB'
pub const TOO_BIG: &str = "Files must be smaller than 25MB";
/// A chunk size out of bounds.
pub const BAD_CHUNK_WORDS: &str = "Chunk size must be a whole number of words from 50 to 1000.";
/// A document whose every claim was abandoned ('Upload processing failed').
pub const PROCESSING_FAILED: &str = "Upload processing failed: the server stopped while reading this document, several times. Upload it again; if it fails again, the file may be too complex to read.";

/// The topic of the knowledge base.
pub fn knowledge_topic() -> Topic {
    Topic::Admin { area: "knowledge" }
}

fn changed(id: &str) -> Event {
    Event::KnowledgeChanged(KnowledgeChange {
        document_id: id.to_owned(),
    })
}

/// A document of the knowledge base.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct KnowledgeDocument {
    /// Id.
    pub id: String,
    /// The name it was uploaded with.
    pub name: String,
    /// `pdf`, `docx` or `txt`.
    pub file_type: String,
    /// Size in bytes.
    #[ts(type = "number")]
    pub size_bytes: i64,
    /// The lever category it belongs to.
    pub category: Option<String>,
    /// The lever it belongs to.
    pub lever_id: Option<String>,
    /// `processing`, `completed` or `failed`.
    pub status: String,
    /// What processing is doing: `queued`, `reading`, `extracting`, `chunking`, `indexing`,
    /// `done`.
    pub stage: String,
    /// Percent done.
    #[ts(type = "number")]
    pub progress: i64,
    /// Why it failed.
    pub error: Option<String>,
    /// Pages, when the format has them (approximate for DOCX).
    #[ts(type = "number | null")]
    pub pages: Option<i64>,
    /// Chunks indexed.
    #[ts(type = "number")]
    pub chunk_count: i64,
    /// Who uploaded it.
    pub uploaded_by: Option<String>,
    /// When it was uploaded.
    pub created_at: String,
    /// Last change.
    pub updated_at: String,
    /// When it completed or failed.
    pub completed_at: Option<String>,
    /// The words per chunk its chunks were cut with (`None`: never indexed).
    #[ts(type = "number | null")]
    pub chunk_words: Option<i64>,
}

impl From<DocumentRow> for KnowledgeDocument {
    fn from(r: DocumentRow) -> KnowledgeDocument {
        KnowledgeDocument {
            id: r.id,
            name: r.name,
            file_type: r.file_type,
            size_bytes: r.size_bytes,
            category: r.category,
            lever_id: r.lever_id,
            status: r.status,
            stage: r.stage,
            progress: r.progress,
            error: r.error,
            pages: r.pages,
            chunk_count: r.chunk_count,
            uploaded_by: r.uploaded_by,
            created_at: r.created_at,
            updated_at: r.updated_at,
            completed_at: r.completed_at,
            chunk_words: r.chunk_words,
        }
    }
}

/// A search hit: a chunk of a completed document.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct KnowledgeHit {
    /// The document.
    pub document_id: String,
    /// Its name.
    pub document_name: String,
    /// The chunk.
    pub chunk_id: String,
    /// The headings above the chunk, outermost first, joined with " > ".
    pub heading: Option<String>,
    /// First page of the chunk.
    #[ts(type = "number | null")]
    pub page_from: Option<i64>,
    /// Last page of the chunk.
    #[ts(type = "number | null")]
    pub page_to: Option<i64>,
    /// Article references in the chunk ("Article 116(2), Article 117").
    pub article: Option<String>,
    /// The matching passage as plain text (not HTML: escape it), the matched terms between
    /// `<mark>` and `</mark>`.
    pub snippet: String,
    /// Relevance, higher is better (comparable within one answer only).
    pub rank: f64,
}

impl From<HitRow> for KnowledgeHit {
    fn from(r: HitRow) -> KnowledgeHit {
        KnowledgeHit {
            document_id: r.document_id,
            document_name: r.document_name,
            chunk_id: r.chunk_id,
            heading: r.heading,
            page_from: r.page_from,
            page_to: r.page_to,
            article: r.article,
            snippet: r.snippet,
            rank: r.rank,
        }
    }
}

/// The search request.
#[derive(Debug, Clone, Deserialize, utoipa::IntoParams)]
pub struct SearchQuery {
    /// Words to find (all of them); punctuation is ignored.
    #[serde(default)]
    pub q: String,
    /// Most hits answered (default 10, at most 50).
    pub limit: Option<i64>,
}

/// Documents of one category.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct KnowledgeCategoryCount {
    /// The category (`None`: none given).
    pub category: Option<String>,
    /// Completed documents in it.
    #[ts(type = "number")]
    pub documents: i64,
}

/// The knowledge base's figures (the stat cards).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct KnowledgeStats {
    /// Completed documents.
    #[ts(type = "number")]
    pub total_documents: i64,
    /// Chunks indexed, of completed documents.
    #[ts(type = "number")]
    pub total_chunks: i64,
    /// Every upload, whatever its status.
    #[ts(type = "number")]
    pub total_uploads: i64,
    /// Uploads still processing.
    #[ts(type = "number")]
    pub processing: i64,
    /// Failed uploads.
    #[ts(type = "number")]
    pub failed: i64,
    /// The lever categories (fixed: 4).
    #[ts(type = "number")]
    pub categories: i64,
    /// Completed documents per category.
    pub by_category: Vec<KnowledgeCategoryCount>,
    /// Regulatory rules in force (saved from lever extraction).
    #[ts(type = "number")]
    pub total_rules: i64,
}

/// An upload: the received files and the category or lever they belong to.
#[derive(Debug)]
pub struct UploadInput {
    /// The files.
    pub files: Vec<ReceivedFile>,
    /// A lever category (Assets, CET1 deductions, CRMT or Other).
    pub category: Option<String>,
    /// A lever of the dictionary (its category is taken when none is given).
    pub lever_id: Option<String>,
}

/// The format of an uploaded file, from its name and its first bytes; `.doc` and anything but
/// PDF, DOCX and TXT are refused with the specification's 'Unsupported file type'.
pub fn format_of(name: &str, seen: &Seen) -> ApiResult<Format> {
    let unsupported = |m: &str| ApiError::Validation {
        code: "unsupported_file_type",
        message: m.to_owned(),
    };
    const OLE2: [u8; 8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];
    let ext = name
        .rsplit_once('.')
        .map(|(_, e)| e.trim().to_ascii_lowercase())
        .unwrap_or_default();
    if seen.head.starts_with(&OLE2) || ext == "doc" {
        return Err(unsupported(DOC_REFUSED));
    }
    let format = match ext.as_str() {
        "pdf" => Format::Pdf,
        "docx" => Format::Docx,
        "txt" => Format::Txt,
        _ => return Err(unsupported(UNSUPPORTED)),
    };
    let fits = match format {
        Format::Pdf => seen.head.windows(5).take(1024).any(|w| w == b"%PDF-"),
        Format::Docx => seen.head.starts_with(b"PK\x03\x04"),
        Format::Txt => !seen.has_nul,
    };
    if !fits {
        return Err(unsupported(&format!(
            "Unsupported file type: {} is not a {} file.",
            sanitize_name(name),
            format.as_str().to_uppercase()
        )));
    }
    Ok(format)
}

fn category(raw: &str) -> ApiResult<String> {
    let c = raw.trim();
    CATEGORIES
        .iter()
        .find(|a| a.eq_ignore_ascii_case(c))
        .map(|a| (*a).to_owned())
        .ok_or_else(|| {
            ApiError::validation(format!(
                "Category must be one of {}.",
                CATEGORIES.join(", ")
            ))
        })
}

/// Stores the uploaded documents and creates them `processing`, all or none; the worker reads
/// them next.
pub async fn upload(
    state: &AppState,
    actor: &Actor,
    input: UploadInput,
) -> ApiResult<Vec<KnowledgeDocument>> {
    let lever_id = input.lever_id.filter(|l| !l.trim().is_empty());
    let category_raw = input.category.filter(|c| !c.trim().is_empty());
    if input.files.is_empty() || (category_raw.is_none() && lever_id.is_none()) {
        return Err(ApiError::validation(SELECT_FILES));
    }
    if input.files.len() > MAX_FILES_PER_UPLOAD {
        return Err(ApiError::validation(format!(
            "Upload at most {MAX_FILES_PER_UPLOAD} files at once."
        )));
    }
    let lever_category = match &lever_id {
        Some(id) => Some(
            crate::db::lever_files::entry(&state.db.pool, id)
                .await?
                .ok_or_else(|| ApiError::not_found("Lever not found"))?
                .lever_category,
        ),
        None => None,
    };
    let category = match category_raw {
        Some(c) => category(&c)?,
        None => lever_category.unwrap_or_default(),
    };
    let mut formats = Vec::with_capacity(input.files.len());
    for f in &input.files {
        if f.seen.size > MAX_FILE_BYTES {
            return Err(ApiError::TooLarge(TOO_BIG.into()));
        }
        formats.push(format_of(&f.name, &f.seen)?);
    }
    let mut stored: Vec<(ObjectKey, &ReceivedFile, Format, u64)> = Vec::new();
    for (f, format) in input.files.iter().zip(formats) {
        let key = Storage::knowledge_key(&format!("x.{}", format.as_str()));
        match state
            .storage
            .put_file(&key, &f.path, format.content_type())
            .await
        {
            Ok(size) => stored.push((key, f, format, size)),
            Err(e) => {
                remove_objects(state, stored.iter().map(|s| &s.0)).await;
                return Err(e.into());
            }
        }
    }
    let result = record(state, actor, &stored, &category, lever_id.as_deref()).await;
    if result.is_err() {
        remove_objects(state, stored.iter().map(|s| &s.0)).await;
    } else {
        WAKE.notify_one();
    }
    result
}

async fn remove_objects(state: &AppState, keys: impl Iterator<Item = &ObjectKey>) {
    for k in keys {
        let _ = state.storage.delete(k).await;
    }
}

async fn record(
    state: &AppState,
    actor: &Actor,
    stored: &[(ObjectKey, &ReceivedFile, Format, u64)],
    category: &str,
    lever_id: Option<&str>,
) -> ApiResult<Vec<KnowledgeDocument>> {
    let mut change = Change::begin(state, knowledge_topic()).await?;
    let now = crate::db::now();
    let mut rows = Vec::with_capacity(stored.len());
    for (key, f, format, size) in stored {
        let row = DocumentRow {
            category: (!category.is_empty()).then(|| category.to_owned()),
            lever_id: lever_id.map(str::to_owned),
            uploaded_by: Some(actor.user.id.to_string()),
            ..DocumentRow::queued(
                crate::db::new_id(),
                sanitize_name(&f.name),
                format.as_str(),
                format.content_type(),
                i64::try_from(*size).unwrap_or(i64::MAX),
                key.as_str().to_owned(),
                now.clone(),
            )
        };
        db::insert_document(change.conn(), &row).await?;
        rows.push(row);
    }
    for r in rows.iter().skip(1) {
        change.also(knowledge_topic(), changed(&r.id)).await?;
    }
    let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    let first = rows.first().map(|r| r.id.clone()).unwrap_or_default();
    change
        .commit(
            actor,
            changed(&first),
            Audit {
                event_type: "knowledge_uploaded",
                entity_type: "knowledge_document",
                entity_id: &first,
                details: json!({"files": names, "category": category, "leverId": lever_id}),
                severity: "info",
            },
        )
        .await?;
    Ok(rows.into_iter().map(KnowledgeDocument::from).collect())
}

/// Wakes this instance's knowledge worker (an upload was just committed).
pub static WAKE: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// The documents, newest first (at most [`LIST_LIMIT`]).
pub async fn list(state: &AppState) -> ApiResult<Vec<KnowledgeDocument>> {
    Ok(db::list(&state.db.pool, LIST_LIMIT)
        .await?
        .into_iter()
        .map(KnowledgeDocument::from)
        .collect())
}

/// One document.
pub async fn get(state: &AppState, id: &str) -> ApiResult<KnowledgeDocument> {
    db::get(&state.db.pool, id)
        .await?
        .map(KnowledgeDocument::from)
        .ok_or_else(|| ApiError::not_found("Document not found"))
}

/// Deletes a document with its chunks and index rows, then its original (a failure there leaves
/// an orphan the sweeper removes). A worker reading it meanwhile writes nothing.
pub async fn delete(state: &AppState, actor: &Actor, id: &str) -> ApiResult<()> {
    let mut change = Change::begin(state, knowledge_topic()).await?;
    let doc = db::delete_document(change.conn(), state.db.backend, id)
        .await?
        .ok_or_else(|| ApiError::not_found("Document not found"))?;
    change
        .commit(
            actor,
            changed(id),
            Audit {
                event_type: "knowledge_deleted",
                entity_type: "knowledge_document",
                entity_id: id,
                details: json!({"name": doc.name, "status": doc.status}),
                severity: "info",
            },
        )
        .await?;
    if let Ok(key) = ObjectKey::parse(&doc.storage_key)
        && let Err(e) = state.storage.delete(&key).await
    {
        tracing::warn!(key = %doc.storage_key, error = %e, "could not delete a knowledge document's original");
    }
    Ok(())
}

/// The chunks of indexed documents (a document being re-indexed on its previous chunks)
/// matching every word of the query, best first.
pub async fn search(state: &AppState, q: &SearchQuery) -> ApiResult<Vec<KnowledgeHit>> {
    let limit = q.limit.unwrap_or(DEFAULT_HITS).clamp(1, MAX_HITS);
    let text: String = q.q.chars().take(500).collect();
    Ok(db::search(&state.db.pool, state.db.backend, &text, limit)
        .await?
        .into_iter()
        .map(KnowledgeHit::from)
        .collect())
}

/// Words a question is phrased with that say nothing of its subject (not searched).
const QUESTION_WORDS: [&str; 64] = [
    "a",
    "about",
    "according",
    "an",
    "and",
    "any",
    "apply",
    "applies",
    "are",
    "as",
    "at",
    "be",
    "by",
    "can",
    "could",
    "describe",
    "do",
    "does",
    "explain",
    "for",
    "from",
    "give",
    "how",
    "i",
    "in",
    "is",
    "it",
    "its",
    "me",
    "my",
    "of",
    "on",
    "or",
    "our",
    "please",
    "regulation",
    "regulatory",
    "require",
    "requires",
    "say",
    "says",
    "should",
    "show",
    "state",
    "states",
    "tell",
    "that",
    "the",
    "there",
    "this",
    "to",
    "under",
    "us",
    "we",
    "what",
    "when",
    "where",
    "which",
    "who",
    "why",
    "will",
    "with",
    "would",
    "you",
];

/// The subject words of a question: its terms less the words it is phrased with, at most 12.
pub fn question_terms(question: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in db::query_terms(question) {
        if !QUESTION_WORDS.contains(&t.as_str()) && !out.contains(&t) {
            out.push(t);
        }
    }
    out.truncate(12);
    out
}

/// Passages of the knowledge base about a question (the Q&A agent's regulatory answers), best
/// first, at most `limit`: the chunks holding every subject word; when none does, those holding
/// the article numbers and the longest other words, then the article numbers alone.
pub async fn passages(state: &AppState, question: &str, limit: i64) -> ApiResult<Vec<HitRow>> {
    let terms = question_terms(question);
    if terms.is_empty() {
        return Ok(Vec::new());
    }
    let numbers: Vec<&String> = terms
        .iter()
        .filter(|t| t.chars().any(|c| c.is_ascii_digit()))
        .collect();
    let mut words: Vec<&String> = terms
        .iter()
        .filter(|t| !numbers.contains(t) && t.as_str() != "article" && t.as_str() != "art")
        .collect();
    words.sort_by_key(|w| std::cmp::Reverse(w.chars().count()));
    let join = |ts: &[&String]| ts.iter().map(|t| t.as_str()).collect::<Vec<_>>().join(" ");
    let mut tries = vec![join(&terms.iter().collect::<Vec<_>>())];
    for keep in [2usize, 1] {
        let mut t = numbers.clone();
        t.extend(words.iter().take(keep));
        tries.push(join(&t));
    }
    if !numbers.is_empty() {
        tries.push(join(&numbers));
    }
    tries.dedup();
    for q in tries {
        if q.is_empty() {
            continue;
        }
        let hits = db::search(&state.db.pool, state.db.backend, &q, limit).await?;
        if !hits.is_empty() {
            return Ok(hits);
        }
    }
    Ok(Vec::new())
}

/// The stat cards' figures.
pub async fn stats(state: &AppState) -> ApiResult<KnowledgeStats> {
    let s = db::stats(&state.db.pool).await?;
    let by_category = db::documents_per_category(&state.db.pool)
        .await?
        .into_iter()
        .map(|(category, documents)| KnowledgeCategoryCount {
            category,
            documents,
        })
        .collect();
    Ok(KnowledgeStats {
        total_documents: s.documents,
        total_chunks: s.chunks,
        total_uploads: s.uploads,
        processing: s.processing,
        failed: s.failed,
        categories: i64::try_from(CATEGORIES.len()).unwrap_or(4),
        by_category,
        total_rules: crate::db::regulatory_rules::count_active(&state.db.pool).await?,
    })
}

// ---------------------------------------------------------------------------------------------
// Settings (the Settings tab).

/// The knowledge base's settings.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct KnowledgeSettings {
    /// Words per chunk new indexing uses.
    #[ts(type = "number")]
    pub chunk_words: i64,
    /// The smallest chunk size accepted.
    #[ts(type = "number")]
    pub min_chunk_words: i64,
    /// The largest chunk size accepted.
    #[ts(type = "number")]
    pub max_chunk_words: i64,
    /// The language of the full-text index's stemming and stop words.
    pub search_language: String,
    /// Completed documents cut with another chunk size (a re-index would change them).
    #[ts(type = "number")]
    pub stale_documents: i64,
    /// Documents being read or indexed.
    #[ts(type = "number")]
    pub processing: i64,
    /// Who last changed the chunk size.
    pub updated_by: Option<String>,
    /// When.
    pub updated_at: Option<String>,
}

/// The settings an administrator saves.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct KnowledgeSettingsInput {
    /// Words per chunk (50 to 1000).
    #[ts(type = "number")]
    pub chunk_words: i64,
}

/// What a re-index queued.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ReindexResult {
    /// Documents put back in the queue.
    #[ts(type = "number")]
    pub queued: i64,
}

/// The words per chunk new indexing uses.
pub async fn chunk_words(state: &AppState) -> ApiResult<i64> {
    let stored = crate::db::settings::get(&state.db.pool, crate::db::settings::CHUNK_WORDS).await?;
    Ok(stored
        .and_then(|v| v.parse::<i64>().ok())
        .filter(|n| (MIN_CHUNK_WORDS..=MAX_CHUNK_WORDS).contains(n))
        .unwrap_or(CHUNK_WORDS))
}

/// The Settings tab's figures.
pub async fn settings(state: &AppState) -> ApiResult<KnowledgeSettings> {
    let words = chunk_words(state).await?;
    let entry =
        crate::db::settings::entry(&state.db.pool, crate::db::settings::CHUNK_WORDS).await?;
    let stats = db::stats(&state.db.pool).await?;
    Ok(KnowledgeSettings {
        chunk_words: words,
        min_chunk_words: MIN_CHUNK_WORDS,
        max_chunk_words: MAX_CHUNK_WORDS,
        search_language: SEARCH_LANGUAGE.to_owned(),
        stale_documents: db::count_stale(&state.db.pool, words).await?,
        processing: stats.processing,
        updated_by: entry.as_ref().and_then(|e| e.updated_by.clone()),
        updated_at: entry.map(|e| e.updated_at),
    })
}

/// Saves the chunk size (used by the documents indexed from now on; [`reindex`] applies it to
/// the others).
pub async fn update_settings(
    state: &AppState,
    actor: &Actor,
    input: KnowledgeSettingsInput,
) -> ApiResult<KnowledgeSettings> {
    if !(MIN_CHUNK_WORDS..=MAX_CHUNK_WORDS).contains(&input.chunk_words) {
        return Err(ApiError::validation(BAD_CHUNK_WORDS));
    }
    let previous = chunk_words(state).await?;
    let mut change = Change::begin(state, knowledge_topic()).await?;
    crate::db::settings::set(
        change.conn(),
        crate::db::settings::CHUNK_WORDS,
        &input.chunk_words.to_string(),
        &actor.user.id,
        &crate::db::now(),
    )
    .await?;
    change
        .commit(
            actor,
            Event::KnowledgeSettingsChanged,
            Audit {
                event_type: "knowledge_settings_changed",
                entity_type: "app_setting",
                entity_id: crate::db::settings::CHUNK_WORDS,
                details: json!({"chunkWords": input.chunk_words, "previous": previous}),
                severity: "info",
            },
        )
        .await?;
    settings(state).await
}

/// Re-indexes the knowledge base: every completed or failed document is read, chunked (with the
/// current chunk size) and indexed again by the workers. Each keeps its previous chunks, which
/// search goes on finding, until its new ones replace them in one transaction.
pub async fn reindex(state: &AppState, actor: &Actor) -> ApiResult<ReindexResult> {
    let words = chunk_words(state).await?;
    let mut change = Change::begin(state, knowledge_topic()).await?;
    let ids = db::requeue_all(change.conn(), &crate::db::now()).await?;
    let queued = i64::try_from(ids.len()).unwrap_or(i64::MAX);
    let Some(first) = ids.first() else {
        return Ok(ReindexResult { queued: 0 });
    };
    for id in ids.iter().skip(1) {
        change.also(knowledge_topic(), changed(id)).await?;
    }
    change
        .commit(
            actor,
            changed(first),
            Audit {
                event_type: "knowledge_reindexed",
                entity_type: "knowledge_document",
                entity_id: first,
                details: json!({"documents": queued, "chunkWords": words}),
                severity: "info",
            },
        )
        .await?;
    WAKE.notify_one();
    Ok(ReindexResult { queued })
}

// ---------------------------------------------------------------------------------------------
// The worker's steps (`jobs::knowledge`).

fn lease_until() -> String {
    crate::db::ts(chrono::Utc::now() + chrono::Duration::from_std(LEASE).unwrap_or_default())
}

/// Claims the next document to read, if any.
pub async fn claim(state: &AppState) -> ApiResult<Option<DocumentRow>> {
    if !db::any_ready(&state.db.pool, &crate::db::now(), MAX_ATTEMPTS).await? {
        return Ok(None);
    }
    Ok(db::claim(
        &state.db.pool,
        state.db.backend,
        &crate::db::now(),
        &lease_until(),
        MAX_ATTEMPTS,
    )
    .await?)
}

/// Stores the stage and progress of a claimed document and extends its lease; false when the
/// claim is no longer current (the worker then stops).
pub async fn progress(
    state: &AppState,
    doc: &DocumentRow,
    stage: &str,
    percent: i64,
) -> ApiResult<bool> {
    Ok(db::set_progress(
        &state.db.pool,
        &doc.id,
        doc.attempts,
        stage,
        percent,
        &crate::db::now(),
        &lease_until(),
    )
    .await?)
}

fn worker_actor(doc: &DocumentRow) -> AuditActor<'_> {
    AuditActor {
        user_id: doc.uploaded_by.as_deref(),
        ip: "server",
    }
}

/// Each chunk's article references as stored ("Article 116(2), Article 117"; empty: none).
pub fn chunk_articles(chunks: &[Chunk]) -> Vec<String> {
    chunks.iter().map(|c| c.articles.join(", ")).collect()
}

/// The rows that store `chunks` (with their [`chunk_articles`]).
pub fn chunk_rows<'a>(chunks: &'a [Chunk], articles: &'a [String]) -> Vec<NewChunk<'a>> {
    chunks
        .iter()
        .zip(articles)
        .map(|(c, a)| NewChunk {
            ord: i64::try_from(c.ord).unwrap_or(i64::MAX),
            heading: c.heading.as_deref(),
            page_from: c.page_from.map(i64::from),
            page_to: c.page_to.map(i64::from),
            article: (!a.is_empty()).then_some(a.as_str()),
            text: &c.text,
        })
        .collect()
}

/// Completes a claimed document: its chunks (and their index rows) and its completion in one
/// transaction. Nothing is written when the claim is no longer current.
pub async fn complete(
    state: &AppState,
    doc: &DocumentRow,
    pages: Option<u32>,
    chunks: &[Chunk],
    chunk_words: i64,
) -> ApiResult<bool> {
    let mut change = Change::begin(state, knowledge_topic()).await?;
    let count = i64::try_from(chunks.len()).unwrap_or(i64::MAX);
    let now = crate::db::now();
    if !db::complete(
        change.conn(),
        &doc.id,
        doc.attempts,
        pages.map(i64::from),
        count,
        chunk_words,
        &now,
    )
    .await?
    {
        return Ok(false);
    }
    // A re-index replaces the chunks written before.
    db::delete_chunks(change.conn(), state.db.backend, &doc.id).await?;
    let articles = chunk_articles(chunks);
    let rows = chunk_rows(chunks, &articles);
    db::insert_chunks(change.conn(), state.db.backend, &doc.id, &rows).await?;
    change
        .commit_by(
            worker_actor(doc),
            changed(&doc.id),
            Audit {
                event_type: "knowledge_completed",
                entity_type: "knowledge_document",
                entity_id: &doc.id,
                details: json!({"name": doc.name, "pages": pages, "chunks": count}),
                severity: "info",
            },
        )
        .await?;
    Ok(true)
}

/// Fails a claimed document with `message`. Nothing is written when the claim is no longer
/// current.
pub async fn fail(state: &AppState, doc: &DocumentRow, message: &str) -> ApiResult<bool> {
    let mut change = Change::begin(state, knowledge_topic()).await?;
    if !db::fail(
        change.conn(),
        &doc.id,
        doc.attempts,
        message,
        &crate::db::now(),
    )
    .await?
    {
        return Ok(false);
    }
    change
        .commit_by(
            worker_actor(doc),
            changed(&doc.id),
            Audit {
                event_type: "knowledge_failed",
                entity_type: "knowledge_document",
                entity_id: &doc.id,
                details: json!({"name": doc.name, "error": message}),
                severity: "warning",
            },
        )
        .await?;
    Ok(true)
}

/// Fails the documents whose every claim was abandoned (see the module docs). Returns how many.
pub async fn fail_exhausted(state: &AppState) -> ApiResult<usize> {
    if !db::any_exhausted(&state.db.pool, &crate::db::now(), MAX_ATTEMPTS).await? {
        return Ok(0);
    }
    let mut change = Change::begin(state, knowledge_topic()).await?;
    let ids = db::fail_exhausted(
        change.conn(),
        &crate::db::now(),
        MAX_ATTEMPTS,
        PROCESSING_FAILED,
    )
    .await?;
    let Some(first) = ids.first().cloned() else {
        return Ok(0);
    };
    for id in ids.iter().skip(1) {
        change.also(knowledge_topic(), changed(id)).await?;
    }
    change
        .commit_by(
            AuditActor {
                user_id: None,
                ip: "server",
            },
            changed(&first),
            Audit {
                event_type: "knowledge_failed",
                entity_type: "knowledge_document",
                entity_id: &first,
                details: json!({"documents": ids, "error": PROCESSING_FAILED}),
                severity: "warning",
            },
        )
        .await?;
    Ok(ids.len())
}

/// Removes objects under `knowledge/` that no document names and that are older than an hour
/// (a crash between the put and the document's row).
pub async fn sweep_orphans(state: &AppState) -> anyhow::Result<usize> {
    let pool = state.db.pool.clone();
    state
        .storage
        .sweep_orphans_under("knowledge", crate::storage::ORPHAN_MIN_AGE, move |keys| {
            let pool = pool.clone();
            async move {
                let known: HashSet<String> = db::storage_keys(&pool).await?.into_iter().collect();
                Ok(keys.into_iter().filter(|k| known.contains(k)).collect())
            }
        })
        .await
}
