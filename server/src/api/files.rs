//! Client files over HTTP: upload and inspection (multipart, streamed to a temporary file and
//! bounded by `MAX_UPLOAD_MB` while received), the list with its filters, one file, delete, and
//! the downloads of the original and the processed output. The rules live in
//! [`crate::service::files`].

use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Multipart, Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::TryStreamExt;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::extract::{ClientQuery, ClientRead, ClientWrite};
use super::upload::{self, MULTIPART_SLACK, multipart_error, receive_field};
use crate::error::{ApiError, ApiResult};
use crate::service::Actor;
use crate::service::files::inspect::{self as inspection, Inspection};
use crate::service::files::{
    self as service, ClientFile, ListQuery, Received, TOO_LARGE, UploadOptions, UploadResult, Which,
};
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    // Uploads have their own bound (counted while received), not the JSON body limit.
    let uploads = OpenApiRouter::new()
        .routes(routes!(list_files, upload_file))
        .routes(routes!(inspect_file))
        .layer(DefaultBodyLimit::disable());
    OpenApiRouter::new()
        .merge(uploads)
        .routes(routes!(get_file, delete_file))
        .routes(routes!(download_original))
        .routes(routes!(download_processed))
}

/// Largest `options` field.
const MAX_OPTIONS_BYTES: usize = 64 * 1024;

/// Refuses at once a request that declares a body larger than the bound.
fn refuse_declared_size(state: &AppState, headers: &HeaderMap) -> ApiResult<()> {
    upload::refuse_declared_size(
        headers,
        service::max_upload_bytes(state) + MULTIPART_SLACK,
        TOO_LARGE,
    )
}

/// Receives the `file` field into a temporary file (counting, keeping its head, noting NUL
/// bytes; refused with 413 as soon as it passes the bound, without reading more) and the
/// `options` field as text.
async fn receive(
    state: &AppState,
    multipart: &mut Multipart,
) -> ApiResult<(Received, Option<String>)> {
    let max = service::max_upload_bytes(state);
    let mut received: Option<Received> = None;
    let mut options = None;
    while let Some(mut field) = multipart.next_field().await.map_err(multipart_error)? {
        match field.name() {
            Some("file") if received.is_none() => {
                let name = field.file_name().unwrap_or_default().to_owned();
                let (path, seen) = receive_field(state, &mut field, max, TOO_LARGE).await?;
                received = Some(Received { path, name, seen });
            }
            Some("options") if options.is_none() => {
                let mut text = Vec::new();
                while let Some(chunk) = field.chunk().await.map_err(multipart_error)? {
                    text.extend_from_slice(&chunk);
                    if text.len() > MAX_OPTIONS_BYTES {
                        return Err(ApiError::bad_request(
                            "invalid_options",
                            "The upload options are too long",
                        ));
                    }
                }
                options = Some(String::from_utf8(text).map_err(|_| {
                    ApiError::bad_request("invalid_options", "The upload options are not text")
                })?);
            }
            other => return Err(upload::unexpected_field(other)),
        }
    }
    let received = received.ok_or_else(|| {
        ApiError::validation("Please select files and ensure client information is available.")
    })?;
    Ok((received, options))
}

/// Uploads a file of the client (`file`, then `options`: JSON [`UploadOptions`]): recognised by
/// content and extension, checked by the engine's guards, stored, recorded and, with
/// `options.process`, queued for processing in the same transaction.
#[utoipa::path(post, path = "/files", params(ClientQuery),
    request_body(content_type = "multipart/form-data", description = "`file` (the upload), then `options` (JSON UploadOptions)"),
    responses((status = 201, body = UploadResult), (status = 400, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 413, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn upload_file(
    State(state): State<AppState>,
    ClientWrite(scope): ClientWrite,
    headers: HeaderMap,
    mut multipart: Multipart,
) -> ApiResult<(StatusCode, axum::Json<UploadResult>)> {
    refuse_declared_size(&state, &headers)?;
    let (received, options) = receive(&state, &mut multipart).await?;
    let options: UploadOptions = match options.as_deref().map(str::trim) {
        None | Some("") => UploadOptions::default(),
        Some(text) => serde_json::from_str(text).map_err(|e| {
            ApiError::bad_request("invalid_options", format!("Invalid upload options: {e}"))
        })?,
    };
    let result = service::upload(&state, &scope, received, options).await?;
    Ok((StatusCode::CREATED, axum::Json(result)))
}

/// Inspects a file without storing it (the manual mode's column detection): columns with types
/// and samples from the first 10 rows, the suggested mapping with scores, the detected
/// risk-weight notation and maturity unit, and the classifier's proposal.
#[utoipa::path(post, path = "/files/inspect", params(ClientQuery),
    request_body(content_type = "multipart/form-data", description = "`file`"),
    responses((status = 200, body = Inspection), (status = 400, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody), (status = 413, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn inspect_file(
    State(state): State<AppState>,
    ClientWrite(scope): ClientWrite,
    headers: HeaderMap,
    mut multipart: Multipart,
) -> ApiResult<axum::Json<Inspection>> {
    refuse_declared_size(&state, &headers)?;
    let (received, _) = receive(&state, &mut multipart).await?;
    Ok(axum::Json(
        inspection::inspect(&state, &scope, received).await?,
    ))
}

/// The client's files, newest first, filtered (`q` name, `lever` id or code or `none`, `type`,
/// `processed`, `from`/`to` days inclusive).
#[utoipa::path(get, path = "/files", params(ClientQuery, ListQuery),
    responses((status = 200, body = Vec<ClientFile>), (status = 401, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn list_files(
    State(state): State<AppState>,
    ClientRead(scope): ClientRead,
    Query(q): Query<ListQuery>,
) -> ApiResult<axum::Json<Vec<ClientFile>>> {
    Ok(axum::Json(service::list(&state, &scope, &q).await?))
}

/// One file with its latest run.
#[utoipa::path(get, path = "/files/{file_id}", params(("file_id" = String, Path, description = "File id")),
    responses((status = 200, body = ClientFile), (status = 404, body = crate::error::ErrorBody)))]
pub async fn get_file(
    State(state): State<AppState>,
    actor: Actor,
    Path(file_id): Path<String>,
) -> ApiResult<axum::Json<ClientFile>> {
    Ok(axum::Json(service::get(&state, &actor, &file_id).await?))
}

/// Deletes a file, its runs and both stored objects; the client's savings follow.
#[utoipa::path(delete, path = "/files/{file_id}", params(("file_id" = String, Path, description = "File id")),
    responses((status = 204), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn delete_file(
    State(state): State<AppState>,
    actor: Actor,
    Path(file_id): Path<String>,
) -> ApiResult<StatusCode> {
    service::delete(&state, &actor, &file_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Downloads the uploaded original.
#[utoipa::path(get, path = "/files/{file_id}/original", params(("file_id" = String, Path, description = "File id")),
    responses((status = 200, description = "The file's bytes, as an attachment with its name"), (status = 404, body = crate::error::ErrorBody)))]
pub async fn download_original(
    State(state): State<AppState>,
    actor: Actor,
    Path(file_id): Path<String>,
) -> ApiResult<Response> {
    download(&state, &actor, &file_id, Which::Original).await
}

/// Downloads the processed output.
#[utoipa::path(get, path = "/files/{file_id}/processed", params(("file_id" = String, Path, description = "File id")),
    responses((status = 200, description = "The processed file's bytes, as an attachment named optimized_..."), (status = 404, body = crate::error::ErrorBody)))]
pub async fn download_processed(
    State(state): State<AppState>,
    actor: Actor,
    Path(file_id): Path<String>,
) -> ApiResult<Response> {
    download(&state, &actor, &file_id, Which::Processed).await
}

async fn download(state: &AppState, actor: &Actor, id: &str, which: Which) -> ApiResult<Response> {
    Ok(streamed(
        service::open(state, actor, id, which).await?,
        true,
    ))
}

/// A stored file's bytes as a streamed answer with its type and length; with `attachment`, the
/// `Content-Disposition` naming it (see [`content_disposition`]).
pub fn streamed(d: service::Download, attachment: bool) -> Response {
    let body = Body::from_stream(d.stream.map_err(std::io::Error::other));
    let mut resp = body.into_response();
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_str(&d.content_type)
            .unwrap_or(HeaderValue::from_static("application/octet-stream")),
    );
    h.insert(header::CONTENT_LENGTH, HeaderValue::from(d.size));
    if attachment && let Ok(v) = HeaderValue::from_str(&content_disposition(&d.name)) {
        h.insert(header::CONTENT_DISPOSITION, v);
    }
    resp
}

/// `attachment` with the name twice (RFC 6266): an ASCII fallback in `filename` (anything else,
/// quotes and backslashes made `_`) and the exact name, percent-encoded UTF-8, in `filename*`.
pub fn content_disposition(name: &str) -> String {
    let fallback: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() && c != '"' && c != '\\' || c == ' ' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut encoded = String::new();
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"!#$&+-.^_`|~".contains(&b) {
            encoded.push(b as char);
        } else {
            encoded.push_str(&format!("%{b:02X}"));
        }
    }
    format!("attachment; filename=\"{fallback}\"; filename*=UTF-8''{encoded}")
}

#[cfg(test)]
mod tests {
    use super::content_disposition;

    #[test]
    fn both_names() {
        assert_eq!(
            content_disposition("Q3 año \"x\".csv"),
            "attachment; filename=\"Q3 a_o _x_.csv\"; filename*=UTF-8''Q3%20a%C3%B1o%20%22x%22.csv"
        );
    }
}
