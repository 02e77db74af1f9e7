//! The lever dictionary over HTTP (administrators only): levers with their file counts, add,
//! edit (a rename moves the lever's analysis files), category, delete, and the analysis files
//! (multipart upload of several `files` at once, each bounded while received; list, download,
//! delete). The rules live in [`crate::service::lever_dictionary`].

use axum::extract::{DefaultBodyLimit, Multipart, Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::extract::AdminActor;
use super::upload::{
    MULTIPART_SLACK, multipart_error, receive_field, refuse_declared_size, unexpected_field,
};
use crate::error::{ApiError, ApiResult, AppJson};
use crate::service::lever_dictionary::{
    self as service, CategoryInput, LeverEntry, LeverFile, LeverInput, MAX_FILE_BYTES,
    MAX_FILES_PER_UPLOAD, NO_FILES, ReceivedFile, TOO_BIG,
};
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    // Uploads have their own bound (each file counted while received), not the JSON body limit.
    let uploads = OpenApiRouter::new()
        .routes(routes!(list_lever_files, upload_lever_files))
        .layer(DefaultBodyLimit::disable());
    OpenApiRouter::new()
        .merge(uploads)
        .routes(routes!(list_dictionary, create_lever))
        .routes(routes!(update_lever, delete_lever))
        .routes(routes!(set_lever_category))
        .routes(routes!(delete_lever_file))
        .routes(routes!(download_lever_file))
}

/// Every lever with its description, category and number of analysis files, by name.
#[utoipa::path(get, path = "/admin/levers",
    responses((status = 200, body = Vec<LeverEntry>), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)))]
pub async fn list_dictionary(
    State(state): State<AppState>,
    _admin: AdminActor,
) -> ApiResult<axum::Json<Vec<LeverEntry>>> {
    Ok(axum::Json(service::list(&state).await?))
}

/// Adds a lever (name, category among Assets, CET1 deductions and CRMT, description: all
/// required).
#[utoipa::path(post, path = "/admin/levers", request_body = LeverInput,
    responses((status = 201, body = LeverEntry), (status = 403, body = crate::error::ErrorBody), (status = 409, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn create_lever(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
    AppJson(input): AppJson<LeverInput>,
) -> ApiResult<(StatusCode, axum::Json<LeverEntry>)> {
    let entry = service::create(&state, &actor, input).await?;
    Ok((StatusCode::CREATED, axum::Json(entry)))
}

/// Edits a lever; a new name moves its analysis files to the new folder before answering.
#[utoipa::path(put, path = "/admin/levers/{lever_id}", params(("lever_id" = String, Path, description = "Lever id")), request_body = LeverInput,
    responses((status = 200, body = LeverEntry), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 409, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn update_lever(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
    Path(lever_id): Path<String>,
    AppJson(input): AppJson<LeverInput>,
) -> ApiResult<axum::Json<LeverEntry>> {
    Ok(axum::Json(
        service::update(&state, &actor, &lever_id, input).await?,
    ))
}

/// Deletes a lever nothing uses, with its analysis files (409 when client files or processing
/// runs name it, or for the analysis engine's own levers).
#[utoipa::path(delete, path = "/admin/levers/{lever_id}", params(("lever_id" = String, Path, description = "Lever id")),
    responses((status = 204), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 409, body = crate::error::ErrorBody)))]
pub async fn delete_lever(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
    Path(lever_id): Path<String>,
) -> ApiResult<StatusCode> {
    service::delete(&state, &actor, &lever_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Changes a lever's category (Assets, CET1 deductions, CRMT or Other).
#[utoipa::path(put, path = "/admin/levers/{lever_id}/category", params(("lever_id" = String, Path, description = "Lever id")), request_body = CategoryInput,
    responses((status = 200, body = LeverEntry), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn set_lever_category(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
    Path(lever_id): Path<String>,
    AppJson(input): AppJson<CategoryInput>,
) -> ApiResult<axum::Json<LeverEntry>> {
    Ok(axum::Json(
        service::set_category(&state, &actor, &lever_id, input).await?,
    ))
}

/// A lever's analysis files, newest first.
#[utoipa::path(get, path = "/admin/levers/{lever_id}/files", params(("lever_id" = String, Path, description = "Lever id")),
    responses((status = 200, body = Vec<LeverFile>), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn list_lever_files(
    State(state): State<AppState>,
    _admin: AdminActor,
    Path(lever_id): Path<String>,
) -> ApiResult<axum::Json<Vec<LeverFile>>> {
    Ok(axum::Json(service::files(&state, &lever_id).await?))
}

/// Uploads analysis files of a lever: one or more `files` fields (xlsx, xls or csv, at most
/// 25 MB each, at most 20 at once), stored under the lever's folder, all or none.
#[utoipa::path(post, path = "/admin/levers/{lever_id}/files", params(("lever_id" = String, Path, description = "Lever id")),
    request_body(content_type = "multipart/form-data", description = "`files`: one field per file"),
    responses((status = 201, body = Vec<LeverFile>), (status = 400, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 409, body = crate::error::ErrorBody), (status = 413, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn upload_lever_files(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
    Path(lever_id): Path<String>,
    headers: HeaderMap,
    mut multipart: Multipart,
) -> ApiResult<(StatusCode, axum::Json<Vec<LeverFile>>)> {
    refuse_declared_size(
        &headers,
        MAX_FILE_BYTES * MAX_FILES_PER_UPLOAD as u64 + MULTIPART_SLACK,
        TOO_BIG,
    )?;
    let mut received: Vec<ReceivedFile> = Vec::new();
    while let Some(mut field) = multipart.next_field().await.map_err(multipart_error)? {
        if !matches!(field.name(), Some("files" | "file")) {
            return Err(unexpected_field(field.name()));
        }
        if received.len() >= MAX_FILES_PER_UPLOAD {
            return Err(ApiError::validation(format!(
                "Upload at most {MAX_FILES_PER_UPLOAD} files at once."
            )));
        }
        let name = field.file_name().unwrap_or_default().to_owned();
        let (path, seen) = receive_field(&state, &mut field, MAX_FILE_BYTES, TOO_BIG).await?;
        received.push(ReceivedFile { path, name, seen });
    }
    if received.is_empty() {
        return Err(ApiError::validation(NO_FILES));
    }
    let files = service::upload(&state, &actor, &lever_id, received).await?;
    Ok((StatusCode::CREATED, axum::Json(files)))
}

/// Deletes an analysis file.
#[utoipa::path(delete, path = "/admin/lever-files/{file_id}", params(("file_id" = String, Path, description = "Analysis file id")),
    responses((status = 204), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 409, body = crate::error::ErrorBody)))]
pub async fn delete_lever_file(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
    Path(file_id): Path<String>,
) -> ApiResult<StatusCode> {
    service::delete_file(&state, &actor, &file_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Downloads an analysis file.
#[utoipa::path(get, path = "/admin/lever-files/{file_id}/download", params(("file_id" = String, Path, description = "Analysis file id")),
    responses((status = 200, description = "The file's bytes, as an attachment with its name"), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn download_lever_file(
    State(state): State<AppState>,
    _admin: AdminActor,
    Path(file_id): Path<String>,
) -> ApiResult<Response> {
    let d = service::open_file(&state, &file_id).await?;
    Ok(super::files::streamed(d, true))
}
