//! The report generator's HTTP API: the reports of a client (list with section counts, create,
//! read, rename, status, move, delete), report folders and the monthly draft limit. The rules live
//! in [`crate::service::reports`].

use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::extract::{ClientQuery, ClientRead};
use crate::access::Need;
use crate::db::reports::{FolderRow, MONTHLY_DRAFT_LIMIT, ReportRow};
use crate::error::{ApiResult, AppJson};
use crate::ids::{ClientId, FolderId, ReportId, UserId};
use crate::service::reports::{self as service, NewReport, ReportEdit};
use crate::service::{self as services, Actor};
use crate::state::AppState;

pub use crate::service::reports::{MAX_NAME_CHARS, ReportStatus};

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_reports, create_report))
        .routes(routes!(get_draft_limit))
        .routes(routes!(list_folders, create_folder))
        .routes(routes!(delete_folder))
        .routes(routes!(get_report, update_report, delete_report))
        .routes(routes!(export_report))
}

/// A report as listed and as shown in the editor's header.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct ReportSummary {
    /// Id (also the id of its collaborative document).
    pub id: ReportId,
    /// Owning client.
    pub client_id: ClientId,
    /// Folder, if any.
    pub folder_id: Option<FolderId>,
    /// Name.
    pub name: String,
    /// Status.
    pub status: ReportStatus,
    /// Template it was created from (`None` for a custom report).
    pub template_id: Option<String>,
    /// Number of sections of its document.
    pub section_count: u32,
    /// Creator's user id.
    pub created_by: Option<UserId>,
    /// User who last saved the name or status.
    pub last_edited_by: Option<UserId>,
    /// That user's display name.
    pub last_edited_by_name: Option<String>,
    /// Last save of the name or status (RFC 3339).
    pub last_saved_at: Option<String>,
    /// Creation time (RFC 3339).
    pub created_at: String,
    /// Last change of the metadata or the content (RFC 3339).
    pub updated_at: String,
}

/// A report opened in the editor: its summary and what the caller may do with it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct ReportDetail {
    /// The report.
    pub report: ReportSummary,
    /// Whether the caller may edit it (false for viewers).
    pub can_edit: bool,
}

/// A report folder.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct ReportFolder {
    /// Id.
    pub id: FolderId,
    /// Owning client.
    pub client_id: ClientId,
    /// Parent folder (`None` at the top level).
    pub parent_folder_id: Option<FolderId>,
    /// Name.
    pub name: String,
    /// Creator.
    pub created_by: Option<UserId>,
    /// Creation time.
    pub created_at: String,
}

/// The caller's monthly draft counter for a client.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct DraftLimit {
    /// Drafts created by the caller for the client this month.
    pub draft_count: u32,
    /// Drafts allowed per user, company and month.
    pub limit: u32,
    /// The month counted (`YYYY-MM`, UTC).
    pub month_year: String,
}

/// A new report.
#[derive(Debug, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct CreateReportRequest {
    /// Name (non-empty after trimming).
    pub name: String,
    /// Template to start from (must be an active template).
    #[serde(default)]
    #[ts(optional)]
    pub template_id: Option<String>,
    /// Folder to file it in.
    #[serde(default)]
    #[ts(optional)]
    pub folder_id: Option<String>,
    /// Client; defaults to the caller's client.
    #[serde(default)]
    #[ts(optional)]
    pub client_id: Option<String>,
}

/// A change of a report's metadata. Absent fields stay as they are.
#[derive(Debug, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct UpdateReportRequest {
    /// New name (non-empty after trimming).
    #[serde(default)]
    #[ts(optional)]
    pub name: Option<String>,
    /// New status.
    #[serde(default)]
    #[ts(optional)]
    pub status: Option<ReportStatus>,
    /// Move to this folder; `""` moves the report out of any folder.
    #[serde(default)]
    #[ts(optional)]
    pub folder_id: Option<String>,
}

/// A new folder.
#[derive(Debug, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct CreateFolderRequest {
    /// Name (non-empty after trimming).
    pub name: String,
    /// Parent folder.
    #[serde(default)]
    #[ts(optional)]
    pub parent_folder_id: Option<String>,
    /// Client; defaults to the caller's client.
    #[serde(default)]
    #[ts(optional)]
    pub client_id: Option<String>,
}

fn summary(row: ReportRow) -> ReportSummary {
    let updated_at = row.last_change().to_owned();
    ReportSummary {
        id: row.id.into(),
        client_id: row.client_id.into(),
        folder_id: row.folder_id.map(FolderId::from),
        name: row.name,
        status: ReportStatus::parse(&row.status),
        template_id: row.template_id,
        section_count: row.section_count.clamp(0, u32::MAX as i64) as u32,
        created_by: row.created_by.map(UserId::from),
        last_edited_by: row.last_edited_by.map(UserId::from),
        last_edited_by_name: row.last_edited_by_name.filter(|n| !n.is_empty()),
        last_saved_at: row.last_saved_at,
        created_at: row.created_at,
        updated_at,
    }
}

fn folder(row: FolderRow) -> ReportFolder {
    ReportFolder {
        id: row.id.into(),
        client_id: row.client_id.into(),
        parent_folder_id: row.parent_folder_id.map(FolderId::from),
        name: row.name,
        created_by: row.created_by.map(UserId::from),
        created_at: row.created_at,
    }
}

/// Lists the reports of the caller's client, most recently changed first, with section counts.
#[utoipa::path(get, path = "/reports", params(ClientQuery),
    responses((status = 200, body = Vec<ReportSummary>), (status = 401, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn list_reports(
    State(state): State<AppState>,
    ClientRead(scope): ClientRead,
) -> ApiResult<axum::Json<Vec<ReportSummary>>> {
    let rows = service::list(&state, &scope).await?;
    Ok(axum::Json(rows.into_iter().map(summary).collect()))
}

/// Reads one report.
#[utoipa::path(get, path = "/reports/{report_id}", params(("report_id" = String, Path, description = "Report id")),
    responses((status = 200, body = ReportDetail), (status = 404, body = crate::error::ErrorBody)))]
pub async fn get_report(
    State(state): State<AppState>,
    actor: Actor,
    Path(report_id): Path<ReportId>,
) -> ApiResult<axum::Json<ReportDetail>> {
    let (row, can_edit) = service::get(&state, &actor, &report_id).await?;
    Ok(axum::Json(ReportDetail {
        report: summary(row),
        can_edit,
    }))
}

/// Creates a draft report with its initial sections (built on the server) and counts it against
/// the caller's monthly draft limit.
#[utoipa::path(post, path = "/reports", request_body = CreateReportRequest,
    responses((status = 201, body = ReportSummary), (status = 403, body = crate::error::ErrorBody), (status = 409, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn create_report(
    State(state): State<AppState>,
    actor: Actor,
    AppJson(req): AppJson<CreateReportRequest>,
) -> ApiResult<(StatusCode, axum::Json<ReportSummary>)> {
    let scope = services::scope(&state, actor, req.client_id.as_deref(), Need::Write).await?;
    let row = service::create(
        &state,
        &scope,
        NewReport {
            name: &req.name,
            template_id: req.template_id.as_deref(),
            folder_id: req.folder_id.as_deref(),
        },
    )
    .await?;
    Ok((StatusCode::CREATED, axum::Json(summary(row))))
}

/// Renames a report, changes its status or moves it to a folder; records who saved it and when.
#[utoipa::path(patch, path = "/reports/{report_id}", params(("report_id" = String, Path, description = "Report id")), request_body = UpdateReportRequest,
    responses((status = 200, body = ReportSummary), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn update_report(
    State(state): State<AppState>,
    actor: Actor,
    Path(report_id): Path<ReportId>,
    AppJson(req): AppJson<UpdateReportRequest>,
) -> ApiResult<axum::Json<ReportSummary>> {
    let edit = ReportEdit {
        name: req.name.as_deref(),
        status: req.status,
        folder_id: req.folder_id.as_deref(),
    };
    let row = service::update(&state, &actor, &report_id, edit).await?;
    Ok(axum::Json(summary(row)))
}

/// Deletes a report and its document.
#[utoipa::path(delete, path = "/reports/{report_id}", params(("report_id" = String, Path, description = "Report id")),
    responses((status = 204), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn delete_report(
    State(state): State<AppState>,
    actor: Actor,
    Path(report_id): Path<ReportId>,
) -> ApiResult<StatusCode> {
    service::delete(&state, &actor, &report_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The report as a PDF laid out by the server (its readers, viewers included).
#[utoipa::path(get, path = "/reports/{report_id}/export", params(("report_id" = String, Path, description = "Report id")),
    responses((status = 200, description = "The report as a PDF attachment", content_type = "application/pdf"),
        (status = 401, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn export_report(
    State(state): State<AppState>,
    actor: Actor,
    Path(report_id): Path<ReportId>,
) -> ApiResult<axum::response::Response> {
    let file = service::export_pdf(&state, &actor, &report_id).await?;
    Ok(super::dashboard::attachment(file))
}

/// The caller's monthly draft counter for a client.
#[utoipa::path(get, path = "/reports/draft-limit", params(ClientQuery), responses((status = 200, body = DraftLimit)))]
pub async fn get_draft_limit(
    State(state): State<AppState>,
    ClientRead(scope): ClientRead,
) -> ApiResult<axum::Json<DraftLimit>> {
    let (n, month_year) = service::draft_count(&state, &scope).await?;
    Ok(axum::Json(DraftLimit {
        draft_count: n.clamp(0, u32::MAX as i64) as u32,
        limit: MONTHLY_DRAFT_LIMIT as u32,
        month_year,
    }))
}

/// The report folders of a client by name.
#[utoipa::path(get, path = "/reports/folders", params(ClientQuery), responses((status = 200, body = Vec<ReportFolder>)))]
pub async fn list_folders(
    State(state): State<AppState>,
    ClientRead(scope): ClientRead,
) -> ApiResult<axum::Json<Vec<ReportFolder>>> {
    let rows = service::folders(&state, &scope).await?;
    Ok(axum::Json(rows.into_iter().map(folder).collect()))
}

/// Creates a folder.
#[utoipa::path(post, path = "/reports/folders", request_body = CreateFolderRequest,
    responses((status = 201, body = ReportFolder), (status = 403, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn create_folder(
    State(state): State<AppState>,
    actor: Actor,
    AppJson(req): AppJson<CreateFolderRequest>,
) -> ApiResult<(StatusCode, axum::Json<ReportFolder>)> {
    let scope = services::scope(&state, actor, req.client_id.as_deref(), Need::Write).await?;
    let row =
        service::create_folder(&state, &scope, &req.name, req.parent_folder_id.as_deref()).await?;
    Ok((StatusCode::CREATED, axum::Json(folder(row))))
}

/// Deletes a folder and its sub-folders; their reports move out of any folder.
#[utoipa::path(delete, path = "/reports/folders/{folder_id}", params(("folder_id" = String, Path, description = "Folder id")),
    responses((status = 204), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn delete_folder(
    State(state): State<AppState>,
    actor: Actor,
    Path(folder_id): Path<FolderId>,
) -> ApiResult<StatusCode> {
    service::delete_folder(&state, &actor, &folder_id).await?;
    Ok(StatusCode::NO_CONTENT)
}
