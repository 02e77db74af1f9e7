//! The knowledge-base worker: one per instance, reading one document at a time (a PDF parse is
//! heavy; uploads are rare). It claims a `processing` document (`service::knowledge::claim`,
//! woken early by an upload on this instance, polling every [`POLL`] otherwise), reads the
//! original from object storage, extracts its text on a blocking thread (under `catch_unwind`,
//! with the byte, page and time limits), chunks it and completes it in one transaction, storing
//! the stage and progress at each step: `reading` 10 %, `extracting` 30 %, `chunking` 70 %,
//! `indexing` 90 %, then `completed` 100 % or `failed` with the message.
//!
//! The lease is extended at each stage and every [`HEARTBEAT`] while the parser runs; after a
//! crash the document is claimed again once the lease expires (see `service::knowledge`).
//! Progress is stored, not announced: only the document's ends publish `knowledge.changed`.

use std::time::Duration;

use crate::db::knowledge::DocumentRow;
use crate::knowledge::{self, ChunkOptions, ExtractError, Format, Limits};
use crate::service::knowledge as service;
use crate::state::AppState;
use crate::storage::ObjectKey;

/// How often an idle worker looks for documents.
pub const POLL: Duration = Duration::from_secs(1);
/// How often the lease is extended while the parser runs.
pub const HEARTBEAT: Duration = Duration::from_secs(10);
/// How often documents whose claims are used up are failed.
pub const REAP_EVERY: Duration = Duration::from_secs(5);

/// Starts this instance's knowledge worker and its hourly orphan sweep.
pub fn start(state: &AppState) {
    let s = state.clone();
    tokio::spawn(async move { work_loop(s).await });
    let s = state.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(3600));
        loop {
            tick.tick().await;
            match service::sweep_orphans(&s).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(removed = n, "removed orphan knowledge objects"),
                Err(e) => tracing::warn!(error = %e, "knowledge orphan sweep failed"),
            }
        }
    });
}

async fn work_loop(state: AppState) {
    let mut last_reap: Option<std::time::Instant> = None;
    loop {
        if last_reap.is_none_or(|t| t.elapsed() >= REAP_EVERY) {
            last_reap = Some(std::time::Instant::now());
            if let Err(e) = service::fail_exhausted(&state).await {
                tracing::warn!(error = %e, "failing abandoned knowledge documents");
            }
        }
        match service::claim(&state).await {
            Ok(Some(doc)) => {
                process(&state, &doc).await;
                continue;
            }
            Ok(None) => {}
            Err(e) => tracing::warn!(error = %e, "claiming a knowledge document failed"),
        }
        tokio::select! {
            _ = service::WAKE.notified() => {}
            _ = tokio::time::sleep(POLL) => {}
        }
    }
}

/// Reads, chunks and completes one claimed document; every failure ends it `failed` with a
/// message (unless the claim is no longer current, when nothing is written).
pub async fn process(state: &AppState, doc: &DocumentRow) {
    let outcome = run(state, doc).await;
    let result = match outcome {
        Ok(Step::Done) | Ok(Step::Lost) => Ok(true),
        Err(message) => service::fail(state, doc, &message).await,
    };
    if let Err(e) = result {
        tracing::warn!(document = %doc.id, error = %e, "could not store a knowledge document's outcome; it will be claimed again");
    }
}

enum Step {
    Done,
    /// The claim is no longer current (deleted, or claimed again).
    Lost,
}

fn internal(e: impl std::fmt::Display, what: &str) -> String {
    tracing::warn!(error = %e, "{what}");
    "Upload processing failed: the document could not be processed. Please try again.".to_owned()
}

async fn run(state: &AppState, doc: &DocumentRow) -> Result<Step, String> {
    let format = Format::parse(&doc.file_type).ok_or_else(|| "Unsupported file type".to_owned())?;
    let key = ObjectKey::parse(&doc.storage_key).map_err(|e| internal(e, "knowledge key"))?;
    let bytes = match state.storage.get_bytes(&key).await {
        Ok(b) => b,
        Err(crate::storage::StorageError::NotFound(_)) => {
            // Deleted meanwhile, or lost: the guard decides.
            return Err(
                "Upload processing failed: the stored document is missing. Upload it again.".into(),
            );
        }
        Err(e) => return Err(internal(e, "reading a knowledge document")),
    };
    if !service::progress(state, doc, "extracting", 30)
        .await
        .map_err(|e| internal(e, "knowledge progress"))?
    {
        return Ok(Step::Lost);
    }
    let limits = Limits {
        max_bytes: service::MAX_FILE_BYTES,
        max_pages: service::MAX_PAGES,
        max_time: service::MAX_EXTRACT_TIME,
        ..Limits::default()
    };
    let mut parse =
        tokio::task::spawn_blocking(move || knowledge::extract_isolated(format, &bytes, limits));
    // The parser checks its time between pages; a page it never finishes is bounded here (the
    // thread is left to end on its own, its result dropped).
    let deadline = tokio::time::sleep(service::MAX_EXTRACT_TIME + Duration::from_secs(5));
    tokio::pin!(deadline);
    let mut beat = tokio::time::interval(HEARTBEAT);
    beat.tick().await;
    let extracted = loop {
        tokio::select! {
            r = &mut parse => break r,
            _ = &mut deadline => {
                return Err(ExtractError::TimedOut(format, service::MAX_EXTRACT_TIME).to_string());
            }
            _ = beat.tick() => {
                if !service::progress(state, doc, "extracting", 30).await.unwrap_or(true) {
                    return Ok(Step::Lost);
                }
            }
        }
    };
    let extracted = match extracted {
        Ok(Ok(x)) => x,
        Ok(Err(e)) => return Err(e.to_string()),
        Err(e) => return Err(internal(e, "knowledge extraction task")),
    };
    if !service::progress(state, doc, "chunking", 70)
        .await
        .map_err(|e| internal(e, "knowledge progress"))?
    {
        return Ok(Step::Lost);
    }
    let chunk_words = service::chunk_words(state)
        .await
        .map_err(|e| internal(e, "knowledge settings"))?;
    let chunks = knowledge::chunk(
        &extracted.blocks,
        ChunkOptions {
            target_words: usize::try_from(chunk_words).unwrap_or(200),
        },
    );
    if !service::progress(state, doc, "indexing", 90)
        .await
        .map_err(|e| internal(e, "knowledge progress"))?
    {
        return Ok(Step::Lost);
    }
    match service::complete(state, doc, extracted.pages, &chunks, chunk_words).await {
        Ok(true) => Ok(Step::Done),
        Ok(false) => Ok(Step::Lost),
        Err(e) => Err(internal(e, "completing a knowledge document")),
    }
}
