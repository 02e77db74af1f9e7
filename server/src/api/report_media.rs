//! A report's data and media over HTTP: upload (multipart, streamed to a temporary file and
//! bounded while received), list, the stored bytes (images shown in the document, data files
//! downloaded), a page of a table's rows, delete, and the client's own processing results as
//! data sources. The rules live in [`crate::service::report_media`].

use axum::extract::multipart::MultipartRejection;
use axum::extract::{DefaultBodyLimit, Multipart, Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::upload::{MULTIPART_SLACK, multipart_error, receive_field, refuse_declared_size};
use crate::error::{ApiError, ApiResult};
use crate::service::Actor;
use crate::service::files::TOO_LARGE;
use crate::service::report_media::datasets::{self, DatasetInfo};
use crate::service::report_media::{
    self as service, DataTable, MediaKind, NO_FILE, ReceivedMedia, ReportMedia,
};
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    // The upload has its own bound (counted while received), not the JSON body limit.
    let uploads = OpenApiRouter::new()
        .routes(routes!(list_media, upload_media))
        .layer(DefaultBodyLimit::disable());
    OpenApiRouter::new()
        .merge(uploads)
        .routes(routes!(get_media, delete_media))
        .routes(routes!(media_rows))
        .routes(routes!(list_datasets))
        .routes(routes!(get_dataset))
}

/// Uploads a data file (XLSX, XLS, CSV: its first sheet or its rows are the table) or an image
/// (PNG, JPG, GIF, WebP, at most 10 MB) to a report: one `file` field, recognised by content and
/// extension, a table checked by the engine's guards and measured, then stored with the report.
#[utoipa::path(post, path = "/reports/{report_id}/media", params(("report_id" = String, Path, description = "Report id")),
    request_body(content_type = "multipart/form-data", description = "`file`: the upload"),
    responses((status = 201, body = ReportMedia), (status = 400, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 413, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn upload_media(
    State(state): State<AppState>,
    actor: Actor,
    Path(report_id): Path<String>,
    headers: HeaderMap,
    multipart: Result<Multipart, MultipartRejection>,
) -> ApiResult<(StatusCode, axum::Json<ReportMedia>)> {
    // Who may write the report is decided before the body is read.
    service::check_writer(&state, &actor, &report_id).await?;
    let max = service::max_bytes(&state);
    refuse_declared_size(&headers, max + MULTIPART_SLACK, TOO_LARGE)?;
    let mut multipart = multipart.map_err(|e| {
        ApiError::bad_request(
            "invalid_multipart",
            format!("Invalid upload: {}", e.body_text()),
        )
    })?;
    let mut received: Option<ReceivedMedia> = None;
    while let Some(mut field) = multipart.next_field().await.map_err(multipart_error)? {
        match field.name() {
            Some("file") if received.is_none() => {
                let name = field.file_name().unwrap_or_default().to_owned();
                let (bound, too_large) = service::bound_for(&state, &name);
                let (path, seen) = receive_field(&state, &mut field, bound, too_large).await?;
                received = Some(ReceivedMedia { path, name, seen });
            }
            other => return Err(super::upload::unexpected_field(other)),
        }
    }
    let received = received.ok_or_else(|| ApiError::validation(NO_FILE))?;
    let media = service::upload(&state, &actor, &report_id, received).await?;
    Ok((StatusCode::CREATED, axum::Json(media)))
}

/// The data files and images of a report, oldest first.
#[utoipa::path(get, path = "/reports/{report_id}/media", params(("report_id" = String, Path, description = "Report id")),
    responses((status = 200, body = Vec<ReportMedia>), (status = 401, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn list_media(
    State(state): State<AppState>,
    actor: Actor,
    Path(report_id): Path<String>,
) -> ApiResult<axum::Json<Vec<ReportMedia>>> {
    Ok(axum::Json(service::list(&state, &actor, &report_id).await?))
}

/// The stored bytes of a report's data file or image, to the report's readers only: an image
/// inline (what an image in the document loads), a data file as an attachment.
#[utoipa::path(get, path = "/reports/{report_id}/media/{media_id}", params(("report_id" = String, Path, description = "Report id"), ("media_id" = String, Path, description = "Media id")),
    responses((status = 200, description = "The bytes"), (status = 401, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn get_media(
    State(state): State<AppState>,
    actor: Actor,
    Path((report_id, media_id)): Path<(String, String)>,
) -> ApiResult<Response> {
    let (kind, d) = service::open(&state, &actor, &report_id, &media_id).await?;
    // An image inline (what the document shows), a data file as an attachment.
    let mut resp = super::files::streamed(d, kind != MediaKind::Image);
    let h = resp.headers_mut();
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; sandbox"),
    );
    // Items never change (a new upload is a new id); only the report's readers may cache them.
    h.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, max-age=3600"),
    );
    Ok(resp)
}

/// Deletes a data file or image of a report.
#[utoipa::path(delete, path = "/reports/{report_id}/media/{media_id}", params(("report_id" = String, Path, description = "Report id"), ("media_id" = String, Path, description = "Media id")),
    responses((status = 204), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn delete_media(
    State(state): State<AppState>,
    actor: Actor,
    Path((report_id, media_id)): Path<(String, String)>,
) -> ApiResult<StatusCode> {
    service::delete(&state, &actor, &report_id, &media_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Which rows of a table to read.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
pub struct RowsQuery {
    /// The first row (0 is the first data row).
    #[serde(default)]
    pub offset: Option<u64>,
    /// How many rows (1 to 1,000; 100 when absent).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// A page of an uploaded table's rows (read again from the stored file): its columns, the rows
/// with numbers as numbers, and the table's row count.
#[utoipa::path(get, path = "/reports/{report_id}/media/{media_id}/rows", params(("report_id" = String, Path, description = "Report id"), ("media_id" = String, Path, description = "Media id"), RowsQuery),
    responses((status = 200, body = DataTable), (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn media_rows(
    State(state): State<AppState>,
    actor: Actor,
    Path((report_id, media_id)): Path<(String, String)>,
    Query(q): Query<RowsQuery>,
) -> ApiResult<axum::Json<DataTable>> {
    Ok(axum::Json(
        service::rows(
            &state,
            &actor,
            &report_id,
            &media_id,
            q.offset.unwrap_or(0),
            q.limit.unwrap_or(100),
        )
        .await?,
    ))
}

/// The client's own processing results a report's charts and tables can show (savings by lever,
/// savings by month, each file's latest run's breakdowns).
#[utoipa::path(get, path = "/reports/{report_id}/datasets", params(("report_id" = String, Path, description = "Report id")),
    responses((status = 200, body = Vec<DatasetInfo>), (status = 401, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn list_datasets(
    State(state): State<AppState>,
    actor: Actor,
    Path(report_id): Path<String>,
) -> ApiResult<axum::Json<Vec<DatasetInfo>>> {
    Ok(axum::Json(
        datasets::list(&state, &actor, &report_id).await?,
    ))
}

/// The current rows of one of the client's data sources.
#[utoipa::path(get, path = "/reports/{report_id}/datasets/{dataset}", params(("report_id" = String, Path, description = "Report id"), ("dataset" = String, Path, description = "Data source name")),
    responses((status = 200, body = DataTable), (status = 401, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn get_dataset(
    State(state): State<AppState>,
    actor: Actor,
    Path((report_id, dataset)): Path<(String, String)>,
) -> ApiResult<axum::Json<DataTable>> {
    Ok(axum::Json(
        datasets::read(&state, &actor, &report_id, &dataset).await?,
    ))
}
