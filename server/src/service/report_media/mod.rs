//! A report's data and media (spec 002, the report editor's Data & Charts panel and its image
//! upload): spreadsheets, CSV files and images uploaded to a report and shared by everyone
//! editing it, and the client's own processing results as data sources ([`datasets`]).
//!
//! An upload is received into a temporary file by the caller (`api::report_media`), recognised
//! by its extension and its content together, a table checked by the engine's ingest guards and
//! measured (headers, rows, columns), and only then stored under a key the server generates
//! (`reports/{report}/{uuid}.{ext}`) and recorded in one transaction announced on the client's
//! reports topic (`report.media.created`), so every co-editor's list follows. A refusal stores
//! nothing; a record that fails deletes its object; an object a crash leaves without its row is
//! swept after an hour. A table's rows are read again from the stored original, a page at a
//! time ([`rows`]). The report's readers (its client's members, viewers included, and
//! administrators) list, read and view; its writers upload and delete.

pub mod assets;
pub mod datasets;

use std::path::Path;

use analysis::ingest::IngestError;
use analysis::ingest::table::{self, Cell, MAX_PAGE_ROWS};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::files::kind::{self, FileType, Seen};
use super::files::{Download, upload_limits};
use super::reports::{load as load_report, reports_topic};
use super::{Actor, Audit, Change};
use crate::access::Need;
use crate::db::report_media::{self as db, MediaRow};
use crate::error::{ApiError, ApiResult};
use crate::realtime::Event;
use crate::state::AppState;
use crate::storage::{ObjectKey, Storage};

/// Largest image (the image upload's 10 MB).
pub const IMAGE_MAX_BYTES: u64 = 10 * 1024 * 1024;
/// The refusal of an image over [`IMAGE_MAX_BYTES`].
pub const IMAGE_TOO_LARGE: &str = "Images must be smaller than 10MB";
/// The refusal of a file of another type (or whose content is not what its name says).
pub const UNSUPPORTED_MEDIA: &str =
    "Please upload an Excel (.xlsx, .xls) or CSV file, or a PNG, JPG, GIF or WebP image.";
/// The refusal of an upload without a file.
pub const NO_FILE: &str = "Please select a file to upload.";

/// What a media item is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS,
)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum MediaKind {
    /// An Excel workbook (XLSX or XLS): its first sheet is the table.
    Excel,
    /// A CSV file.
    Csv,
    /// A PNG, JPEG, GIF or WebP image.
    Image,
}

impl MediaKind {
    fn as_str(self) -> &'static str {
        match self {
            MediaKind::Excel => "excel",
            MediaKind::Csv => "csv",
            MediaKind::Image => "image",
        }
    }

    fn parse(s: &str) -> MediaKind {
        match s {
            "excel" => MediaKind::Excel,
            "csv" => MediaKind::Csv,
            _ => MediaKind::Image,
        }
    }
}

/// A data file or image of a report, as the Data & Charts panel lists it.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ReportMedia {
    /// Id (a chart's `source.mediaId`, an image's `mediaId`).
    pub id: String,
    /// The report.
    pub report_id: String,
    /// The user's file name (sanitised).
    pub name: String,
    /// Excel, CSV or image.
    pub kind: MediaKind,
    /// `xlsx`, `xls`, `csv`, `png`, `jpg`, `gif` or `webp`.
    pub file_type: String,
    /// The content type it is served with.
    pub content_type: String,
    /// Size in bytes.
    #[ts(type = "number")]
    pub size_bytes: i64,
    /// Where the browser loads it from (`/api/reports/{reportId}/media/{mediaId}`): served to
    /// the report's readers only.
    pub url: String,
    /// The sheet the table was read from (spreadsheets: the first sheet).
    pub sheet: Option<String>,
    /// Column names (tables; empty for images).
    pub headers: Vec<String>,
    /// Data rows (tables).
    #[ts(type = "number")]
    pub row_count: i64,
    /// Columns (tables).
    #[ts(type = "number")]
    pub column_count: i64,
    /// Who uploaded it.
    pub uploaded_by: Option<String>,
    /// That user's name.
    pub uploaded_by_name: Option<String>,
    /// Upload time (RFC 3339).
    pub created_at: String,
}

/// The path an item is served from.
pub fn media_url(report_id: &str, media_id: &str) -> String {
    format!("/api/reports/{report_id}/media/{media_id}")
}

impl From<MediaRow> for ReportMedia {
    fn from(r: MediaRow) -> ReportMedia {
        ReportMedia {
            url: media_url(&r.report_id, &r.id),
            headers: r
                .headers
                .as_deref()
                .and_then(|h| serde_json::from_str(h).ok())
                .unwrap_or_default(),
            id: r.id,
            report_id: r.report_id,
            name: r.name,
            kind: MediaKind::parse(&r.kind),
            file_type: r.file_type,
            content_type: r.content_type,
            size_bytes: r.size_bytes,
            sheet: r.sheet.filter(|s| !s.is_empty()),
            row_count: r.row_count,
            column_count: r.column_count,
            uploaded_by: r.uploaded_by,
            uploaded_by_name: r.uploaded_by_name.filter(|n| !n.is_empty()),
            created_at: r.created_at,
        }
    }
}

/// Which report's media changed (`report.media.created`, `report.media.deleted`, on the
/// client's reports topic): the report's open editors refetch its media list.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ReportMediaChange {
    /// The report.
    pub report_id: String,
    /// The media item.
    pub media_id: String,
}

/// Columns and rows of a table (an uploaded file's page, or a client dataset).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct DataTable {
    /// Column names.
    pub columns: Vec<String>,
    /// The rows, each as wide as the columns: numbers, text, or null for a blank cell.
    #[ts(type = "Array<Array<number | string | null>>")]
    #[schema(value_type = Vec<Vec<Object>>)]
    pub rows: Vec<Vec<Cell>>,
    /// Index of the first row (0 is the first data row).
    #[ts(type = "number")]
    pub offset: u64,
    /// Rows of the whole table.
    #[ts(type = "number")]
    pub total_rows: u64,
}

/// A received upload: its bytes in a temporary file (removed when dropped) and what was seen.
#[derive(Debug)]
pub struct ReceivedMedia {
    /// The temporary file.
    pub path: crate::storage::TempPath,
    /// The name the browser sent.
    pub name: String,
    /// Size, head and NUL bytes.
    pub seen: Seen,
}

/// What an accepted upload is.
#[derive(Debug, Clone, PartialEq)]
struct Accepted {
    kind: MediaKind,
    file_type: &'static str,
    content_type: &'static str,
    table: Option<table::TableShape>,
}

/// The largest data file (`MAX_UPLOAD_MB`) or image ([`IMAGE_MAX_BYTES`]) an upload may be;
/// the route bounds the body by the larger before it knows which.
pub fn max_bytes(state: &AppState) -> u64 {
    super::files::max_upload_bytes(state).max(IMAGE_MAX_BYTES)
}

/// The bound of one upload by the type its name claims: (bytes, the refusal's message).
pub fn bound_for(state: &AppState, name: &str) -> (u64, &'static str) {
    if is_image_name(name) {
        (IMAGE_MAX_BYTES, IMAGE_TOO_LARGE)
    } else {
        (super::files::max_upload_bytes(state), kind::TOO_LARGE)
    }
}

fn extension(name: &str) -> String {
    name.rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default()
}

fn is_image_name(name: &str) -> bool {
    matches!(
        extension(name).as_str(),
        "png" | "jpg" | "jpeg" | "gif" | "webp"
    )
}

fn unsupported() -> ApiError {
    ApiError::Validation {
        code: "unsupported_file_type",
        message: UNSUPPORTED_MEDIA.into(),
    }
}

/// The message of a table the readers refused, in the panel's words: an empty table is 'No
/// data found in Excel file' / 'No data found in CSV file', a CSV the parser refused 'CSV
/// parsing error: ...'.
fn table_error(e: IngestError, csv: bool) -> ApiError {
    let message = match e {
        IngestError::Empty | IngestError::ExcelEmpty | IngestError::NoExcelData if !csv => {
            IngestError::NoExcelData.to_string()
        }
        IngestError::Empty | IngestError::NoCsvData if csv => IngestError::NoCsvData.to_string(),
        IngestError::CsvErrors(m) | IngestError::CsvFailed(m) => format!("CSV parsing error: {m}"),
        e @ (IngestError::NotText | IngestError::Utf16) if csv => format!("CSV parsing error: {e}"),
        other => return kind::ingest_error(other),
    };
    ApiError::Validation {
        code: "unreadable_file",
        message,
    }
}

/// Recognises an upload by its extension and content and, for a table, checks and measures it
/// (blocking: call from a blocking thread).
fn accept(
    path: &Path,
    name: &str,
    seen: &Seen,
    limits: &analysis::ingest::Limits,
) -> ApiResult<Accepted> {
    let ext = extension(name);
    if is_image_name(name) {
        if seen.size == 0 {
            return Err(ApiError::validation(NO_FILE));
        }
        if seen.size > IMAGE_MAX_BYTES {
            return Err(ApiError::TooLarge(IMAGE_TOO_LARGE.into()));
        }
        let (file_type, content_type) =
            super::profile::image_type(&seen.head).ok_or_else(unsupported)?;
        let claimed = if ext == "jpeg" { "jpg" } else { ext.as_str() };
        if claimed != file_type {
            return Err(unsupported());
        }
        return Ok(Accepted {
            kind: MediaKind::Image,
            file_type,
            content_type,
            table: None,
        });
    }
    let file_type = match FileType::from_extension(&ext) {
        Some(t @ (FileType::Csv | FileType::Xlsx | FileType::Xls)) => t,
        _ => return Err(unsupported()),
    };
    let csv = file_type == FileType::Csv;
    if seen.size == 0 {
        return Err(table_error(IngestError::Empty, csv));
    }
    if seen.size > limits.max_file_bytes {
        return Err(ApiError::TooLarge(kind::TOO_LARGE.into()));
    }
    match kind::recognise(name, seen) {
        Ok(t) if t == file_type => {}
        Ok(_) => return Err(unsupported()),
        Err(ApiError::Validation {
            code: "unsupported_file_type",
            ..
        }) => return Err(unsupported()),
        Err(e) => return Err(e),
    }
    // The archive's entries, then the ingest's guards (zip bombs and workbook memory before
    // calamine opens it) in a full read that counts the rows.
    kind::check_archive(path, file_type).map_err(|e| match e {
        ApiError::Validation { .. } => unsupported(),
        other => other,
    })?;
    let shape = table::shape(analysis::ingest::Input::Path(path), limits)
        .map_err(|e| table_error(e, csv))?;
    Ok(Accepted {
        kind: if csv {
            MediaKind::Csv
        } else {
            MediaKind::Excel
        },
        file_type: file_type.as_str(),
        content_type: file_type.content_type(),
        table: Some(shape),
    })
}

/// Refuses a caller who may not edit the report (404 for another client's, 403 for a viewer),
/// before an upload's body is read.
pub async fn check_writer(state: &AppState, actor: &Actor, report_id: &str) -> ApiResult<()> {
    load_report(state, actor, report_id, Need::Write)
        .await
        .map(|_| ())
}

/// Uploads a data file (XLSX, XLS, CSV) or an image (PNG, JPG/JPEG, GIF, WebP) to a report the
/// caller may edit. Refusals store nothing.
pub async fn upload(
    state: &AppState,
    actor: &Actor,
    report_id: &str,
    received: ReceivedMedia,
) -> ApiResult<ReportMedia> {
    let (report, scope) = load_report(state, actor, report_id, Need::Write).await?;
    let name = kind::sanitize_name(&received.name);
    let limits = upload_limits(state);
    let path = received.path.to_path_buf();
    let (check_name, seen) = (name.clone(), received.seen.clone());
    let accepted = tokio::task::spawn_blocking(move || accept(&path, &check_name, &seen, &limits))
        .await
        .map_err(|e| ApiError::Internal(e.into()))??;
    let key = Storage::report_media_key(&report.id, accepted.file_type);
    let size = state
        .storage
        .put_file(&key, &received.path, accepted.content_type)
        .await?;
    drop(received);
    let id = crate::db::new_id();
    let headers = accepted
        .table
        .as_ref()
        .map(|t| serde_json::to_string(&t.info.headers).unwrap_or_else(|_| "[]".into()));
    let new = db::NewMedia {
        id: &id,
        report_id: &report.id,
        client_id: &report.client_id,
        name: &name,
        kind: accepted.kind.as_str(),
        file_type: accepted.file_type,
        content_type: accepted.content_type,
        size_bytes: size as i64,
        object_key: key.as_str(),
        sheet: accepted
            .table
            .as_ref()
            .and_then(|t| t.info.sheet.as_deref()),
        headers: headers.as_deref(),
        row_count: accepted.table.as_ref().map_or(0, |t| t.rows as i64),
        column_count: accepted
            .table
            .as_ref()
            .map_or(0, |t| t.info.headers.len() as i64),
        uploaded_by: &scope.user().id,
        created_at: &crate::db::now(),
    };
    let recorded = async {
        let mut ch = Change::begin(state, reports_topic(&report.client_id)).await?;
        db::insert(ch.conn(), &new).await?;
        let row = db::get(ch.conn(), &report.id, &id)
            .await?
            .ok_or_else(|| ApiError::Internal(anyhow::anyhow!("the new media row is missing")))?;
        ch.commit(
            &scope.actor,
            Event::ReportMediaCreated(ReportMediaChange {
                report_id: report.id.clone(),
                media_id: id.clone(),
            }),
            Audit {
                event_type: "report_media_uploaded",
                entity_type: "report_media",
                entity_id: &id,
                details: json!({
                    "client_id": report.client_id,
                    "report_id": report.id,
                    "name": name,
                    "kind": accepted.kind.as_str(),
                    "size_bytes": size,
                }),
                severity: "info",
            },
        )
        .await?;
        Ok::<_, ApiError>(row)
    }
    .await;
    match recorded {
        Ok(row) => Ok(row.into()),
        Err(e) => {
            if let Err(de) = state.storage.delete(&key).await {
                tracing::warn!(key = %key, error = %de, "could not remove the object of a failed media upload");
            }
            Err(e)
        }
    }
}

/// The data files and images of a report, oldest first.
pub async fn list(state: &AppState, actor: &Actor, report_id: &str) -> ApiResult<Vec<ReportMedia>> {
    let (report, _) = load_report(state, actor, report_id, Need::Read).await?;
    Ok(db::list(&state.db.pool, &report.id)
        .await?
        .into_iter()
        .map(ReportMedia::from)
        .collect())
}

fn media_not_found() -> ApiError {
    ApiError::NotFound {
        code: "media_not_found",
        message: "Media not found".into(),
    }
}

async fn load_media(
    state: &AppState,
    actor: &Actor,
    report_id: &str,
    media_id: &str,
    need: Need,
) -> ApiResult<(MediaRow, super::Scope)> {
    let (report, scope) = load_report(state, actor, report_id, need).await?;
    let row = db::get(&state.db.pool, &report.id, media_id)
        .await?
        .ok_or_else(media_not_found)?;
    Ok((row, scope))
}

/// Deletes a data file or image of a report (its row, then its object). Charts keep the rows
/// they were drawn with; an image that showed it shows that it is gone.
pub async fn delete(
    state: &AppState,
    actor: &Actor,
    report_id: &str,
    media_id: &str,
) -> ApiResult<()> {
    let (row, scope) = load_media(state, actor, report_id, media_id, Need::Write).await?;
    let mut ch = Change::begin(state, reports_topic(&row.client_id)).await?;
    let key = db::delete(ch.conn(), &row.report_id, &row.id)
        .await?
        .ok_or_else(media_not_found)?;
    ch.commit(
        &scope.actor,
        Event::ReportMediaDeleted(ReportMediaChange {
            report_id: row.report_id.clone(),
            media_id: row.id.clone(),
        }),
        Audit {
            event_type: "report_media_deleted",
            entity_type: "report_media",
            entity_id: &row.id,
            details: json!({"client_id": row.client_id, "report_id": row.report_id, "name": row.name}),
            severity: "info",
        },
    )
    .await?;
    remove_objects(state, [key]).await;
    Ok(())
}

/// Removes stored objects after their rows are gone (a failure is left to the sweeper).
pub async fn remove_objects(state: &AppState, keys: impl IntoIterator<Item = String>) {
    for key in keys {
        if let Ok(key) = ObjectKey::parse(&key)
            && let Err(e) = state.storage.delete(&key).await
        {
            tracing::warn!(key = %key, error = %e, "could not delete a report media object (the sweeper will)");
        }
    }
}

/// A data file or image for the report's readers: its bytes and type.
pub async fn open(
    state: &AppState,
    actor: &Actor,
    report_id: &str,
    media_id: &str,
) -> ApiResult<(MediaKind, Download)> {
    let (row, _) = load_media(state, actor, report_id, media_id, Need::Read).await?;
    let key = ObjectKey::parse(&row.object_key).map_err(|_| media_not_found())?;
    let (size, stream) = state.storage.get_stream(&key).await.map_err(|e| match e {
        crate::storage::StorageError::NotFound(_) => media_not_found(),
        other => other.into(),
    })?;
    Ok((
        MediaKind::parse(&row.kind),
        Download {
            name: row.name,
            content_type: row.content_type,
            size,
            stream,
        },
    ))
}

/// Rows `offset..offset + limit` (at most 1,000) of an uploaded table, read again from the
/// stored original.
pub async fn rows(
    state: &AppState,
    actor: &Actor,
    report_id: &str,
    media_id: &str,
    offset: u64,
    limit: usize,
) -> ApiResult<DataTable> {
    let (row, _) = load_media(state, actor, report_id, media_id, Need::Read).await?;
    if MediaKind::parse(&row.kind) == MediaKind::Image {
        return Err(ApiError::validation("An image has no rows"));
    }
    table_page(state, &row, offset, limit).await
}

/// One page of a stored table (also the resolver of a chart's `media` source).
pub async fn table_page(
    state: &AppState,
    row: &MediaRow,
    offset: u64,
    limit: usize,
) -> ApiResult<DataTable> {
    let key = ObjectKey::parse(&row.object_key).map_err(|_| media_not_found())?;
    let temp = state
        .storage
        .input_to_temp(&key)
        .await
        .map_err(|e| match e {
            crate::storage::StorageError::NotFound(_) => media_not_found(),
            other => other.into(),
        })?;
    let limits = upload_limits(state);
    let csv = row.kind == "csv";
    let limit = limit.clamp(1, MAX_PAGE_ROWS);
    let page = tokio::task::spawn_blocking(move || {
        let page = table::page(analysis::ingest::Input::Path(&temp), &limits, offset, limit);
        drop(temp);
        page
    })
    .await
    .map_err(|e| ApiError::Internal(e.into()))?
    .map_err(|e| table_error(e, csv))?;
    Ok(DataTable {
        columns: page.info.headers,
        rows: page.rows,
        offset,
        total_rows: row.row_count.max(0) as u64,
    })
}

/// Removes objects under `reports/` that no media row names and that are older than an hour (a
/// crash between a put and its row).
pub async fn sweep_orphans(state: &AppState) -> anyhow::Result<usize> {
    let pool = state.db.pool.clone();
    state
        .storage
        .sweep_orphans_under("reports", crate::storage::ORPHAN_MIN_AGE, move |keys| {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(bytes: &[u8]) -> Seen {
        let mut s = Seen::default();
        s.feed(bytes);
        s
    }

    fn accept_bytes(name: &str, bytes: &[u8]) -> ApiResult<Accepted> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("upload");
        std::fs::write(&path, bytes).unwrap();
        accept(
            &path,
            name,
            &seen(bytes),
            &analysis::ingest::Limits::upload(),
        )
    }

    fn message(r: ApiResult<Accepted>) -> String {
        r.unwrap_err().to_string()
    }

    #[test]
    fn tables_are_measured_and_images_recognised() {
        let a = accept_bytes("q.csv", b"Month,Savings\nJan,1\nFeb,2\nMar,3\n").unwrap();
        assert_eq!(a.kind, MediaKind::Csv);
        let t = a.table.unwrap();
        assert_eq!((t.rows, t.info.headers.len()), (3, 2));
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
        assert_eq!(accept_bytes("a.PNG", png).unwrap().file_type, "png");
        let jpg = [0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10];
        assert_eq!(
            accept_bytes("a.jpeg", &jpg).unwrap().content_type,
            "image/jpeg"
        );
    }

    #[test]
    fn refusals_use_the_panels_messages() {
        assert_eq!(
            message(accept_bytes("a.csv", b"")),
            "No data found in CSV file"
        );
        assert_eq!(
            message(accept_bytes("a.csv", b"a,b\n")),
            "No data found in CSV file"
        );
        assert_eq!(
            message(accept_bytes("a.xlsx", b"")),
            "No data found in Excel file"
        );
        assert!(message(accept_bytes("a.csv", b"a,b\n\"1,2\n")).starts_with("CSV parsing error: "));
        // Not what the name says, or not a type of the panel.
        for (name, bytes) in [
            ("a.png", &b"<svg xmlns='http://www.w3.org/2000/svg'/>"[..]),
            ("a.jpg", &b"\x89PNG\r\n\x1a\n\0\0"[..]),
            ("a.xlsx", &b"a,b\n1,2\n"[..]),
            ("a.pdf", &b"%PDF-1.7\n"[..]),
            ("a.svg", &b"<svg/>"[..]),
            ("a.csv", &b"MZ\x90\0\x03"[..]),
        ] {
            assert_eq!(
                message(accept_bytes(name, bytes)),
                UNSUPPORTED_MEDIA,
                "{name}"
            );
        }
    }
}
