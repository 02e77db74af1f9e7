//! A report's version history over HTTP: list, take a named version, read one (its state, for
//! a read-only view), restore, delete. The rules live in [`crate::service::report_versions`].

use axum::extract::{Path, State};
use axum::http::StatusCode;
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::db::report_versions::VersionRow;
use crate::error::{ApiResult, AppJson};
use crate::ids::{ReportId, UserId};
use crate::service::Actor;
use crate::service::report_versions as service;
use crate::state::AppState;

pub use crate::service::report_versions::{MAX_VERSION_NAME_CHARS, MAX_VERSIONS};

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_versions, create_version))
        .routes(routes!(get_version, delete_version))
        .routes(routes!(restore_version))
        .routes(routes!(import_template_sections))
}

/// Why a version was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum VersionKind {
    /// Named by a user.
    Manual,
    /// Taken automatically before another version was restored.
    BeforeRestore,
    /// Taken automatically before a template's sections were imported.
    BeforeImport,
}

/// A version of a report.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct ReportVersion {
    /// Id.
    pub id: String,
    /// The report.
    pub report_id: ReportId,
    /// Name.
    pub name: String,
    /// Why it was taken.
    pub kind: VersionKind,
    /// Sections of the report at that moment.
    pub section_count: u32,
    /// Size of the stored state in bytes.
    #[ts(type = "number")]
    pub size_bytes: u64,
    /// Who took it (`None` once that user is deleted).
    pub created_by: Option<UserId>,
    /// That user's display name.
    pub created_by_name: Option<String>,
    /// When (RFC 3339).
    pub created_at: String,
}

/// A version with its content, for a read-only view.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct ReportVersionDetail {
    /// The version.
    pub version: ReportVersion,
    /// The document's whole state then: one Yjs v1 update, base64 (standard alphabet).
    pub state: String,
}

/// A version to take.
#[derive(Debug, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct CreateVersionRequest {
    /// Name (non-empty after trimming, at most 120 characters).
    pub name: String,
}

/// A template to import into a report.
#[derive(Debug, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ImportTemplateRequest {
    /// An active template's id.
    pub template_id: String,
}

/// What importing a template into a report did.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct TemplateImported {
    /// The automatic version taken just before ("Before importing “{template}”").
    pub version: ReportVersion,
    /// Sections added after the report's last one.
    pub sections: u32,
}

fn version(row: VersionRow) -> ReportVersion {
    ReportVersion {
        kind: match row.kind.as_str() {
            "before_restore" => VersionKind::BeforeRestore,
            "before_import" => VersionKind::BeforeImport,
            _ => VersionKind::Manual,
        },
        id: row.id,
        report_id: row.report_id.into(),
        name: row.name,
        section_count: u32::try_from(row.section_count).unwrap_or(0),
        size_bytes: u64::try_from(row.size_bytes).unwrap_or(0),
        created_by: row.created_by.map(UserId::from),
        created_by_name: row.created_by_name.filter(|n| !n.is_empty()),
        created_at: row.created_at,
    }
}

/// The versions of a report, newest first (its readers, viewers included).
#[utoipa::path(get, path = "/reports/{report_id}/versions", params(("report_id" = String, Path, description = "Report id")),
    responses((status = 200, body = Vec<ReportVersion>), (status = 401, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn list_versions(
    State(state): State<AppState>,
    actor: Actor,
    Path(report_id): Path<ReportId>,
) -> ApiResult<axum::Json<Vec<ReportVersion>>> {
    let rows = service::list(&state, &actor, &report_id).await?;
    Ok(axum::Json(rows.into_iter().map(version).collect()))
}

/// Takes a named version of the report as it is now (its editors).
#[utoipa::path(post, path = "/reports/{report_id}/versions", params(("report_id" = String, Path, description = "Report id")), request_body = CreateVersionRequest,
    responses((status = 201, body = ReportVersion), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 409, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn create_version(
    State(state): State<AppState>,
    actor: Actor,
    Path(report_id): Path<ReportId>,
    AppJson(req): AppJson<CreateVersionRequest>,
) -> ApiResult<(StatusCode, axum::Json<ReportVersion>)> {
    let row = service::create(&state, &actor, &report_id, &req.name).await?;
    Ok((StatusCode::CREATED, axum::Json(version(row))))
}

/// One version with its content (its readers, viewers included).
#[utoipa::path(get, path = "/reports/{report_id}/versions/{version_id}",
    params(("report_id" = String, Path, description = "Report id"), ("version_id" = String, Path, description = "Version id")),
    responses((status = 200, body = ReportVersionDetail), (status = 401, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn get_version(
    State(state): State<AppState>,
    actor: Actor,
    Path((report_id, version_id)): Path<(ReportId, String)>,
) -> ApiResult<axum::Json<ReportVersionDetail>> {
    let (row, bytes) = service::get(&state, &actor, &report_id, &version_id).await?;
    Ok(axum::Json(ReportVersionDetail {
        version: version(row),
        state: base64::engine::general_purpose::STANDARD.encode(bytes),
    }))
}

/// Restores a version as a new edit every co-editor receives live, after keeping the current
/// state as an automatic version, which is returned (its editors).
#[utoipa::path(post, path = "/reports/{report_id}/versions/{version_id}/restore",
    params(("report_id" = String, Path, description = "Report id"), ("version_id" = String, Path, description = "Version id")),
    responses((status = 200, body = ReportVersion), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 409, body = crate::error::ErrorBody)))]
pub async fn restore_version(
    State(state): State<AppState>,
    actor: Actor,
    Path((report_id, version_id)): Path<(ReportId, String)>,
) -> ApiResult<axum::Json<ReportVersion>> {
    let row = service::restore(&state, &actor, &report_id, &version_id).await?;
    Ok(axum::Json(version(row)))
}

/// Deletes a version (its editors); the report's content is not touched.
#[utoipa::path(delete, path = "/reports/{report_id}/versions/{version_id}",
    params(("report_id" = String, Path, description = "Report id"), ("version_id" = String, Path, description = "Version id")),
    responses((status = 204), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn delete_version(
    State(state): State<AppState>,
    actor: Actor,
    Path((report_id, version_id)): Path<(ReportId, String)>,
) -> ApiResult<StatusCode> {
    service::delete(&state, &actor, &report_id, &version_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Imports an active template's sections (text, tables, charts) after the report's last one, as
/// a new edit every co-editor receives live, after keeping the current state as an automatic
/// version (its editors).
#[utoipa::path(post, path = "/reports/{report_id}/import-template",
    params(("report_id" = String, Path, description = "Report id")), request_body = ImportTemplateRequest,
    responses((status = 200, body = TemplateImported), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody),
        (status = 409, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn import_template_sections(
    State(state): State<AppState>,
    actor: Actor,
    Path(report_id): Path<ReportId>,
    AppJson(req): AppJson<ImportTemplateRequest>,
) -> ApiResult<axum::Json<TemplateImported>> {
    let (row, sections) =
        service::import_template(&state, &actor, &report_id, &req.template_id).await?;
    Ok(axum::Json(TemplateImported {
        version: version(row),
        sections,
    }))
}
