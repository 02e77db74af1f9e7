//! Client files: upload (recognised, guarded, streamed to object storage, recorded and, when
//! asked, queued for processing in one transaction), inspection before an upload, the list with
//! its filters, one file, deletion (row, runs, both objects, savings) and downloads.
//!
//! An upload is received into a temporary file by the caller (`api::files`), counted and seen
//! ([`kind::Seen`]) on the way; nothing is stored until every check passed, and an object stored
//! for a change that then fails is deleted again (the orphan sweeper removes what a crash leaves).

pub mod admin;
pub mod history;
pub mod inspect;
pub mod kind;

use std::collections::{BTreeMap, HashMap};

use bytes::Bytes;
use futures_util::stream::BoxStream;
use serde::{Deserialize, Serialize};

use crate::access::Need;
use crate::db::files::{self as db, FileFilter, FileRow, LeverFilter};
use crate::error::{ApiError, ApiResult};
use crate::ids::{ClientId, UserId};
use crate::realtime::events::FileChange;
use crate::realtime::{Event, Topic};
use crate::service::runs::{self, NewRun, RunMode, RunSnapshot};
use crate::service::{Actor, Audit, Change, Scope, savings, scope_of};
use crate::state::AppState;
use crate::storage::{ObjectKey, Storage, StorageError, StorageResult};

pub use kind::{EMPTY, FileType, Seen, TOO_LARGE, UNSUPPORTED};

/// Where a file's processing stands.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS,
)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum FileStatus {
    /// Stored, not processed.
    Uploaded,
    /// A run is queued.
    Queued,
    /// A run is running.
    Processing,
    /// Processed, with results.
    Processed,
    /// Classified below the confidence threshold: waits for an administrator.
    PendingReview,
    /// The last run failed (`processingError` says why).
    Failed,
}

impl FileStatus {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            FileStatus::Uploaded => "uploaded",
            FileStatus::Queued => "queued",
            FileStatus::Processing => "processing",
            FileStatus::Processed => "processed",
            FileStatus::PendingReview => "pending_review",
            FileStatus::Failed => "failed",
        }
    }

    /// Reads a stored name (anything unknown as uploaded).
    pub fn parse(s: &str) -> FileStatus {
        match s {
            "queued" => FileStatus::Queued,
            "processing" => FileStatus::Processing,
            "processed" => FileStatus::Processed,
            "pending_review" => FileStatus::PendingReview,
            "failed" => FileStatus::Failed,
            _ => FileStatus::Uploaded,
        }
    }
}

/// A client file as screens show it.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ClientFile {
    /// Id.
    pub id: String,
    /// The client.
    pub client_id: ClientId,
    /// The user's file name (sanitised).
    pub name: String,
    /// `csv`, `txt`, `xlsx`, `xls`, `ods` or `pdf`.
    pub file_type: String,
    /// Size in bytes.
    #[ts(type = "number")]
    pub size_bytes: i64,
    /// Upload time (RFC 3339).
    pub uploaded_at: String,
    /// Who uploaded it.
    pub uploaded_by: Option<UserId>,
    /// The lever, once chosen or classified.
    pub lever_id: Option<String>,
    /// The lever's name.
    pub lever_name: Option<String>,
    /// The lever's category.
    pub lever_category: Option<String>,
    /// Processed with results.
    pub processed: bool,
    /// Where its processing stands.
    pub status: FileStatus,
    /// Why the last run failed.
    pub processing_error: Option<String>,
    /// A processed output can be downloaded.
    pub has_processed: bool,
    /// RWA savings.
    pub savings_rwas: f64,
    /// Savings in bps of CET1 ratio.
    pub savings_bps: f64,
    /// The latest processing run, if any.
    pub latest_run: Option<RunSnapshot>,
}

impl ClientFile {
    /// The view of a stored row with its latest run.
    pub(crate) fn from_row(r: FileRow, latest_run: Option<RunSnapshot>) -> ClientFile {
        ClientFile {
            has_processed: r.processed_object_key.is_some(),
            id: r.id,
            client_id: r.client_id.into(),
            name: r.name,
            file_type: r.file_type,
            size_bytes: r.size_bytes,
            uploaded_at: r.uploaded_at,
            uploaded_by: r.uploaded_by.map(UserId::from),
            lever_id: r.lever_id,
            lever_name: r.lever_name,
            lever_category: r.lever_category,
            processed: r.processed != 0,
            status: FileStatus::parse(&r.processing_status),
            processing_error: r.processing_error,
            savings_rwas: r.savings_rwas,
            savings_bps: r.savings_bps,
            latest_run,
        }
    }
}

/// How an upload is to be processed (the multipart field `options`, JSON).
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct UploadOptions {
    /// Manual (the user's lever and mapping) or enhanced AI (classified and mapped by the run).
    pub mode: RunMode,
    /// The lever (manual mode).
    #[serde(default)]
    pub lever_id: Option<String>,
    /// Queue a processing run now.
    #[serde(default)]
    pub process: bool,
    /// Standard column to the file's column (manual mode).
    #[serde(default)]
    pub mapping: Option<BTreeMap<String, String>>,
    /// `decimal` or `percent`: overrides the detected risk-weight notation.
    #[serde(default)]
    pub risk_weight_format: Option<String>,
    /// `days`, `months` or `years`: overrides the detected maturity unit.
    #[serde(default)]
    pub maturity_unit: Option<String>,
}

impl Default for UploadOptions {
    fn default() -> Self {
        UploadOptions {
            mode: RunMode::EnhancedAi,
            lever_id: None,
            process: false,
            mapping: None,
            risk_weight_format: None,
            maturity_unit: None,
        }
    }
}

/// The answer to an upload.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct UploadResult {
    /// The stored file.
    pub file: ClientFile,
    /// The queued run, when processing was asked for.
    pub run: Option<RunSnapshot>,
}

/// A received upload: its bytes in a temporary file (removed when dropped) and what was seen.
#[derive(Debug)]
pub struct Received {
    /// The temporary file.
    pub path: crate::storage::TempPath,
    /// The name the browser sent.
    pub name: String,
    /// Size, head and NUL bytes.
    pub seen: Seen,
}

/// The largest upload in bytes (`MAX_UPLOAD_MB` mebibytes).
pub fn max_upload_bytes(state: &AppState) -> u64 {
    state.config.max_upload_mb.saturating_mul(1024 * 1024)
}

/// The ingest's limits for uploads, with the configured size.
pub fn upload_limits(state: &AppState) -> analysis::ingest::Limits {
    analysis::ingest::Limits {
        max_file_bytes: max_upload_bytes(state),
        ..analysis::ingest::Limits::upload()
    }
}

/// The topic of a client's file list.
pub fn files_topic(client_id: &str) -> Topic {
    Topic::Client {
        client_id: client_id.to_string(),
        area: "files",
    }
}

/// Recognises and checks a received upload (see [`kind::recognise`], [`kind::check_content`]),
/// returning its type and, for a table, its first `rows` rows.
pub async fn check_received(
    state: &AppState,
    received: &Received,
    rows: usize,
) -> ApiResult<(FileType, Option<analysis::ingest::Preview>)> {
    if received.seen.size > max_upload_bytes(state) {
        return Err(ApiError::TooLarge(TOO_LARGE.into()));
    }
    let file_type = kind::recognise(&received.name, &received.seen)?;
    let path = received.path.to_path_buf();
    let limits = upload_limits(state);
    let preview =
        tokio::task::spawn_blocking(move || kind::check_content(&path, file_type, &limits, rows))
            .await
            .map_err(|e| ApiError::Internal(e.into()))??;
    Ok((file_type, preview))
}

/// Stores an upload and records it; with `options.process` a run is queued in the same
/// transaction (a PDF is stored and marked failed with a plain message: processing needs CSV or
/// Excel). Refusals store nothing; a failure after the object was written deletes it.
pub async fn upload(
    state: &AppState,
    scope: &Scope,
    received: Received,
    options: UploadOptions,
) -> ApiResult<UploadResult> {
    if !scope.rights.allow(Need::Write) {
        return Err(ApiError::read_only());
    }
    let name = kind::sanitize_name(&received.name);
    let (file_type, _) = check_received(state, &received, 1).await?;
    let lever_id = options
        .lever_id
        .clone()
        .filter(|l| !l.is_empty() && l != "tbd");
    if let Some(lever) = &lever_id
        && crate::db::levers::get(&state.db.pool, lever)
            .await?
            .is_none()
    {
        return Err(ApiError::validation("Lever not found"));
    }
    let process = options.process && file_type.is_table();
    // An enhanced-AI run classifies the file: the lever is the run's to set.
    let lever_id = lever_id.filter(|_| !(process && options.mode == RunMode::EnhancedAi));
    if process && options.mode == RunMode::Manual {
        if lever_id.is_none() {
            return Err(ApiError::validation(
                "Please select a lever before uploading.",
            ));
        }
        if options.mapping.as_ref().is_none_or(|m| m.is_empty()) {
            return Err(ApiError::validation(
                "Column mapping is required for manual processing mode.",
            ));
        }
    }
    let key = Storage::input_key(&scope.client_id, &name);
    let size = state
        .storage
        .put_file(&key, &received.path, file_type.content_type())
        .await?;
    drop(received);
    match record_upload(
        state, scope, &key, &name, file_type, size, lever_id, process, &options,
    )
    .await
    {
        Ok(result) => Ok(result),
        Err(e) => {
            if let Err(de) = state.storage.delete(&key).await {
                tracing::warn!(key = %key, error = %de, "could not remove the object of a failed upload");
            }
            Err(e)
        }
    }
}

#[allow(clippy::too_many_arguments)]
async fn record_upload(
    state: &AppState,
    scope: &Scope,
    key: &ObjectKey,
    name: &str,
    file_type: FileType,
    size: u64,
    lever_id: Option<String>,
    process: bool,
    options: &UploadOptions,
) -> ApiResult<UploadResult> {
    let client = scope.client_id.as_str();
    let file_id = crate::db::new_id();
    let now = crate::db::now();
    let mut change = Change::begin(state, files_topic(client)).await?;
    let status = if process {
        FileStatus::Queued
    } else {
        FileStatus::Uploaded
    };
    db::insert(
        change.conn(),
        &db::NewFile {
            id: &file_id,
            client_id: client,
            name,
            file_type: file_type.as_str(),
            content_type: file_type.content_type(),
            size_bytes: size as i64,
            uploaded_by: &scope.user().id,
            lever_id: lever_id.as_deref(),
            object_key: key.as_str(),
            processing_status: status.as_str(),
            now: &now,
        },
    )
    .await?;
    if options.process && !file_type.is_table() {
        db::set_status(
            change.conn(),
            &file_id,
            FileStatus::Failed.as_str(),
            Some("PDF files are stored but cannot be processed: processing needs a CSV or Excel file."),
        )
        .await?;
    }
    let run = if process {
        let run_id = runs::enqueue(
            change.conn(),
            NewRun {
                client_id: scope.client_id.clone(),
                file_id: file_id.clone(),
                user_id: scope.user().id.clone(),
                mode: options.mode,
                lever_id: lever_id.clone(),
                mapping: options.mapping.clone(),
                risk_weight_format: options.risk_weight_format.clone(),
                maturity_unit: options.maturity_unit.clone(),
            },
        )
        .await?;
        Some(runs::snapshot_in(change.conn(), &run_id).await?)
    } else {
        None
    };
    if let Some(mapping) = options.mapping.as_ref().filter(|_| process) {
        crate::service::mappings::learn_in(change.conn(), mapping).await;
    }
    let row = db::get(change.conn(), &file_id)
        .await?
        .ok_or_else(|| ApiError::Internal(anyhow::anyhow!("the new file row is missing")))?;
    let payload = FileChange {
        client_id: client.to_string(),
        file_id: file_id.clone(),
    };
    change
        .also(
            Topic::Admin { area: "files" },
            Event::FileCreated(payload.clone()),
        )
        .await?;
    change
        .commit(
            &scope.actor,
            Event::FileCreated(payload),
            Audit {
                event_type: "file_uploaded",
                entity_type: "client_file",
                entity_id: &file_id,
                details: serde_json::json!({
                    "client_id": client,
                    "name": name,
                    "file_type": file_type.as_str(),
                    "size_bytes": size,
                    "object_key": key.as_str(),
                    "run_id": run.as_ref().map(|r| r.id.to_string()),
                }),
                severity: "info",
            },
        )
        .await?;
    Ok(UploadResult {
        file: ClientFile::from_row(row, run.clone()),
        run,
    })
}

/// The raw filters of a file list (query parameters).
#[derive(Debug, Clone, Default, Deserialize, utoipa::IntoParams)]
pub struct ListQuery {
    /// Part of the name, any case.
    pub q: Option<String>,
    /// A lever id or code, or `none` for files without a lever.
    pub lever: Option<String>,
    /// A file type (`csv`, `xlsx`, ...).
    #[serde(rename = "type")]
    #[param(rename = "type")]
    pub file_type: Option<String>,
    /// `true` or `false`.
    pub processed: Option<String>,
    /// Uploaded on or after this day (`YYYY-MM-DD`).
    pub from: Option<String>,
    /// Uploaded on or before this day (`YYYY-MM-DD`, inclusive).
    pub to: Option<String>,
}

pub(crate) fn day_start(s: &str, what: &str) -> ApiResult<chrono::NaiveDate> {
    let day = s.get(..10).unwrap_or(s);
    chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d")
        .map_err(|_| ApiError::validation(format!("Invalid {what} date: use YYYY-MM-DD")))
}

pub(crate) fn stored_day(d: chrono::NaiveDate) -> String {
    crate::db::ts(d.and_hms_opt(0, 0, 0).unwrap_or_default().and_utc())
}

/// Turns the query parameters into checked filters.
pub fn parse_filter(q: &ListQuery) -> ApiResult<FileFilter> {
    let blank = |s: &Option<String>| {
        s.as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let lever = blank(&q.lever).map(|l| match l.to_ascii_lowercase().as_str() {
        "none" => LeverFilter::None,
        _ => LeverFilter::Is(l),
    });
    let file_type = match blank(&q.file_type) {
        Some(t) => Some(
            FileType::from_extension(&t.to_ascii_lowercase())
                .ok_or_else(|| ApiError::validation(format!("Unknown file type: {t}")))?
                .as_str()
                .to_owned(),
        ),
        None => None,
    };
    let processed = match blank(&q.processed).as_deref() {
        None => None,
        Some("true" | "1" | "t") => Some(true),
        Some("false" | "0" | "f") => Some(false),
        Some(other) => {
            return Err(ApiError::validation(format!(
                "processed must be true or false, not {other}"
            )));
        }
    };
    let from = blank(&q.from).map(|f| day_start(&f, "from")).transpose()?;
    let to = blank(&q.to).map(|t| day_start(&t, "to")).transpose()?;
    Ok(FileFilter {
        q: blank(&q.q),
        lever,
        file_type,
        processed,
        from: from.map(stored_day),
        to_exclusive: to.and_then(|d| d.succ_opt()).map(stored_day),
    })
}

/// A client's files, newest first, with their latest runs.
pub async fn list(state: &AppState, scope: &Scope, q: &ListQuery) -> ApiResult<Vec<ClientFile>> {
    let filter = parse_filter(q)?;
    let rows = db::list(&state.db.pool, &scope.client_id, &filter).await?;
    let mut latest: HashMap<String, RunSnapshot> = HashMap::new();
    if !rows.is_empty() {
        for r in crate::db::runs::latest_for_files(&state.db.pool, &scope.client_id).await? {
            let snap = RunSnapshot::from_row(&r);
            latest.entry(snap.file_id.clone()).or_insert(snap);
        }
    }
    Ok(rows
        .into_iter()
        .map(|r| {
            let run = latest.remove(&r.id);
            ClientFile::from_row(r, run)
        })
        .collect())
}

/// One file row the caller may `need` (404 for a file of a client they cannot see).
async fn file_for(
    state: &AppState,
    actor: &Actor,
    id: &str,
    need: Need,
) -> ApiResult<(FileRow, Scope)> {
    let row = db::get(&state.db.pool, id)
        .await?
        .ok_or_else(|| ApiError::not_found("File not found"))?;
    if crate::access::decide(&actor.user, &row.client_id).is_none() {
        return Err(ApiError::not_found("File not found"));
    }
    let scope = scope_of(state, actor.clone(), &row.client_id, need).await?;
    Ok((row, scope))
}

/// One file with its latest run.
pub async fn get(state: &AppState, actor: &Actor, id: &str) -> ApiResult<ClientFile> {
    let (row, _) = file_for(state, actor, id, Need::Read).await?;
    let mut conn = state.db.pool.acquire().await?;
    let run = runs::latest_for_file(&mut conn, &row.id).await?;
    Ok(ClientFile::from_row(row, run))
}

/// Deletes a file: its row, its runs and its validations (in one transaction, with the client's
/// pending count and savings recomputed when it had results), then both stored objects (a
/// failure there is logged; the sweeper removes what is left).
pub async fn delete(state: &AppState, actor: &Actor, id: &str) -> ApiResult<()> {
    let (row, scope) = file_for(state, actor, id, Need::Write).await?;
    let client = row.client_id.clone();
    let mut change = Change::begin(state, files_topic(&client)).await?;
    // Its pending validations first, with the client's count (the decided ones go by cascade).
    crate::service::validations::remove_for_file(&mut change, &client, &row.id).await?;
    if !db::delete(change.conn(), &row.id).await? {
        return Err(ApiError::not_found("File not found"));
    }
    let payload = FileChange {
        client_id: client.clone(),
        file_id: row.id.clone(),
    };
    change
        .also(
            Topic::Admin { area: "files" },
            Event::FileDeleted(payload.clone()),
        )
        .await?;
    if row.processed != 0 || row.savings_rwas != 0.0 {
        savings::resync_and_announce(&mut change, &client).await?;
    }
    change
        .commit(
            &scope.actor,
            Event::FileDeleted(payload),
            Audit {
                event_type: "file_deleted",
                entity_type: "client_file",
                entity_id: &row.id,
                details: serde_json::json!({
                    "client_id": client,
                    "name": row.name,
                    "savings_rwas": row.savings_rwas,
                }),
                severity: "info",
            },
        )
        .await?;
    for key in [
        row.object_key.as_deref(),
        row.processed_object_key.as_deref(),
    ]
    .into_iter()
    .flatten()
    {
        match ObjectKey::parse(key) {
            Ok(k) => {
                if let Err(e) = state.storage.delete(&k).await {
                    tracing::warn!(key = %key, error = %e, "could not remove a deleted file's object");
                }
            }
            Err(e) => tracing::warn!(error = %e, "a deleted file named an invalid object key"),
        }
    }
    Ok(())
}

/// Which stored object of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    /// The uploaded original.
    Original,
    /// The processed output.
    Processed,
}

/// A download: the name to save it under, its type, size and bytes.
pub struct Download {
    /// The file name (sanitised).
    pub name: String,
    /// Its content type.
    pub content_type: String,
    /// Size in bytes.
    pub size: u64,
    /// The bytes.
    pub stream: BoxStream<'static, StorageResult<Bytes>>,
}

impl std::fmt::Debug for Download {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Download")
            .field("name", &self.name)
            .field("content_type", &self.content_type)
            .field("size", &self.size)
            .finish()
    }
}

/// The name of a processed output: `optimized_` and the original's stem, with the output's
/// extension.
pub fn processed_name(original: &str, output_key: &str) -> String {
    let ext = crate::storage::key_extension(output_key);
    let stem = original
        .rsplit_once('.')
        .map(|(s, _)| s)
        .filter(|s| !s.is_empty())
        .unwrap_or(original);
    let stem = stem.strip_prefix("optimized_").unwrap_or(stem);
    kind::sanitize_name(&format!("optimized_{stem}.{ext}"))
}

/// Opens a stored object of a file the caller may read.
pub async fn open(state: &AppState, actor: &Actor, id: &str, which: Which) -> ApiResult<Download> {
    let (row, _) = file_for(state, actor, id, Need::Read).await?;
    let (key, name, content_type) = match which {
        Which::Original => {
            let key = row
                .object_key
                .clone()
                .ok_or_else(|| ApiError::not_found("Original file is not available"))?;
            (key, row.name.clone(), row.content_type.clone())
        }
        Which::Processed => {
            let key = row
                .processed_object_key
                .clone()
                .ok_or_else(|| ApiError::not_found("Processed file is not available"))?;
            let name = processed_name(&row.name, &key);
            let ct = FileType::from_name(&key)
                .map(|t| t.content_type().to_owned())
                .unwrap_or_else(|| "application/octet-stream".into());
            (key, name, ct)
        }
    };
    let key = ObjectKey::parse(&key).map_err(|e| ApiError::Internal(e.into()))?;
    let (size, stream) = match state.storage.get_stream(&key).await {
        Ok(s) => s,
        Err(StorageError::NotFound(_)) => {
            return Err(ApiError::not_found(match which {
                Which::Original => "Original file is not available",
                Which::Processed => "Processed file is not available",
            }));
        }
        Err(e) => return Err(e.into()),
    };
    Ok(Download {
        name,
        content_type,
        size,
        stream,
    })
}

/// Removes objects no file row references and older than an hour (a crash between a put and its
/// row). Returns how many were removed.
pub async fn sweep_orphans(state: &AppState) -> anyhow::Result<usize> {
    let pool = state.db.pool.clone();
    state
        .storage
        .sweep_orphans(crate::storage::ORPHAN_MIN_AGE, move |keys| {
            let pool = pool.clone();
            async move {
                Ok(db::referenced_keys(&pool, &keys)
                    .await?
                    .into_iter()
                    .collect())
            }
        })
        .await
}

/// Runs the sweeper now and then every hour.
pub fn start_sweeper(state: &AppState) {
    let state = state.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(std::time::Duration::from_secs(3600));
        loop {
            tick.tick().await;
            match sweep_orphans(&state).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(removed = n, "removed orphan objects"),
                Err(e) => tracing::warn!(error = %e, "orphan sweep failed"),
            }
            match crate::service::report_media::sweep_orphans(&state).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(removed = n, "removed orphan report media objects"),
                Err(e) => tracing::warn!(error = %e, "report media orphan sweep failed"),
            }
            match state.storage.sweep_temp(crate::storage::TEMP_MAX_AGE).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(removed = n, "removed stale temporary files"),
                Err(e) => tracing::warn!(error = %e, "temporary file sweep failed"),
            }
        }
    });
}
