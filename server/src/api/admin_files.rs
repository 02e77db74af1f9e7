//! File Management over HTTP (administrators only): every client's files filtered, sorted and
//! paged, one file, its edit history, lever assignment (one file or in bulk, each queuing a
//! processing run), savings and name edits, and bulk deletion. The downloads are the files
//! area's (`GET /api/files/{id}/original|processed`), which admins may call for any client. The
//! rules live in [`crate::service::files::admin`].

use axum::extract::{Path, Query, State};
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::extract::AdminActor;
use crate::error::{ApiResult, AppJson};
use crate::service::files::admin::{
    self as service, AdminFile, AdminFilePage, AdminListQuery, BulkOutcome, FileEditInput,
};
use crate::service::files::history::{self, FileEdit};
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_admin_files))
        .routes(routes!(assign_lever_bulk))
        .routes(routes!(delete_files_bulk))
        .routes(routes!(get_admin_file, edit_admin_file))
        .routes(routes!(assign_file_lever))
        .routes(routes!(file_history))
}

/// Every client's files, one page (filters `q`, `client_id`, `category`, `lever`, `from`/`to`
/// days inclusive, `status`; `sort`, `dir`; `page`, `page_size` 5/10/20/50).
#[utoipa::path(get, path = "/admin/files", params(AdminListQuery),
    responses((status = 200, body = AdminFilePage), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn list_admin_files(
    State(state): State<AppState>,
    AdminActor(admin): AdminActor,
    Query(q): Query<AdminListQuery>,
) -> ApiResult<axum::Json<AdminFilePage>> {
    Ok(axum::Json(service::list(&state, &admin, &q).await?))
}

/// A lever for several files.
#[derive(Debug, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct BulkAssignLever {
    /// The files.
    pub file_ids: Vec<String>,
    /// The lever's id.
    pub lever_id: String,
}

/// Assigns a lever to each file and queues a processing run for each; a result per file.
#[utoipa::path(post, path = "/admin/files/assign-lever", request_body = BulkAssignLever,
    responses((status = 200, body = BulkOutcome), (status = 403, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn assign_lever_bulk(
    State(state): State<AppState>,
    AdminActor(admin): AdminActor,
    AppJson(req): AppJson<BulkAssignLever>,
) -> ApiResult<axum::Json<BulkOutcome>> {
    Ok(axum::Json(
        service::assign_lever_bulk(&state, &admin, &req.file_ids, &req.lever_id).await?,
    ))
}

/// Files to delete.
#[derive(Debug, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct BulkDelete {
    /// The files.
    pub file_ids: Vec<String>,
}

/// Deletes each file (record, runs, stored objects; the client's savings follow); a result per
/// file.
#[utoipa::path(post, path = "/admin/files/delete", request_body = BulkDelete,
    responses((status = 200, body = BulkOutcome), (status = 403, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn delete_files_bulk(
    State(state): State<AppState>,
    AdminActor(admin): AdminActor,
    AppJson(req): AppJson<BulkDelete>,
) -> ApiResult<axum::Json<BulkOutcome>> {
    Ok(axum::Json(
        service::delete_bulk(&state, &admin, &req.file_ids).await?,
    ))
}

/// One file with its client's name and latest run.
#[utoipa::path(get, path = "/admin/files/{file_id}", params(("file_id" = String, Path, description = "File id")),
    responses((status = 200, body = AdminFile), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn get_admin_file(
    State(state): State<AppState>,
    AdminActor(admin): AdminActor,
    Path(file_id): Path<String>,
) -> ApiResult<axum::Json<AdminFile>> {
    Ok(axum::Json(service::get(&state, &admin, &file_id).await?))
}

/// Edits a file's savings (the client's savings are synced at once) or name.
#[utoipa::path(patch, path = "/admin/files/{file_id}", params(("file_id" = String, Path, description = "File id")), request_body = FileEditInput,
    responses((status = 200, body = AdminFile), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn edit_admin_file(
    State(state): State<AppState>,
    AdminActor(admin): AdminActor,
    Path(file_id): Path<String>,
    AppJson(input): AppJson<FileEditInput>,
) -> ApiResult<axum::Json<AdminFile>> {
    Ok(axum::Json(
        service::edit(&state, &admin, &file_id, input).await?,
    ))
}

/// A lever for one file.
#[derive(Debug, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct AssignLever {
    /// The lever's id.
    pub lever_id: String,
}

/// Sets a file's lever and queues its processing run ('Process File with New Lever').
#[utoipa::path(post, path = "/admin/files/{file_id}/lever", params(("file_id" = String, Path, description = "File id")), request_body = AssignLever,
    responses((status = 200, body = AdminFile), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 409, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn assign_file_lever(
    State(state): State<AppState>,
    AdminActor(admin): AdminActor,
    Path(file_id): Path<String>,
    AppJson(req): AppJson<AssignLever>,
) -> ApiResult<axum::Json<AdminFile>> {
    service::assign_lever(&state, &admin, &file_id, req.lever_id.trim()).await?;
    Ok(axum::Json(service::get(&state, &admin, &file_id).await?))
}

/// A file's edit history, newest first.
#[utoipa::path(get, path = "/admin/files/{file_id}/history", params(("file_id" = String, Path, description = "File id")),
    responses((status = 200, body = Vec<FileEdit>), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn file_history(
    State(state): State<AppState>,
    AdminActor(admin): AdminActor,
    Path(file_id): Path<String>,
) -> ApiResult<axum::Json<Vec<FileEdit>>> {
    Ok(axum::Json(history::list(&state, &admin, &file_id).await?))
}
