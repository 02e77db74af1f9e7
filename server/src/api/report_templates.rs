//! Report templates over HTTP: administrators list, create, read, edit and delete them; any
//! signed-in user lists the active ones to start a report from. The rules live in
//! [`crate::service::report_templates`].

use axum::extract::{Path, State};
use axum::http::StatusCode;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::extract::AdminActor;
use crate::error::{ApiResult, AppJson};
use crate::service::Actor;
use crate::service::report_templates::{
    self as service, NewTemplate, ReportTemplate, TemplateEdit,
};
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_templates, create_template))
        .routes(routes!(get_template, update_template, delete_template))
        .routes(routes!(list_active_templates))
        .routes(routes!(export_template_preview))
}

/// 'Export Preview': the template's preview as a PDF, laid out by the report export.
#[utoipa::path(get, path = "/admin/report-templates/{template_id}/export",
    params(("template_id" = String, Path, description = "Template id")),
    responses((status = 200, description = "The preview as a PDF attachment", content_type = "application/pdf"),
        (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody)))]
pub async fn export_template_preview(
    State(state): State<AppState>,
    _admin: AdminActor,
    Path(template_id): Path<String>,
) -> ApiResult<axum::response::Response> {
    let file = service::preview_pdf(&state, &template_id).await?;
    Ok(super::dashboard::attachment(file))
}

/// Every template, active or not, by name.
#[utoipa::path(get, path = "/admin/report-templates",
    responses((status = 200, body = Vec<ReportTemplate>), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)))]
pub async fn list_templates(
    State(state): State<AppState>,
    _admin: AdminActor,
) -> ApiResult<axum::Json<Vec<ReportTemplate>>> {
    Ok(axum::Json(service::list(&state, false).await?))
}

/// Creates a template (name and type required) with its type's default sections and the default
/// branding.
#[utoipa::path(post, path = "/admin/report-templates", request_body = NewTemplate,
    responses((status = 201, body = ReportTemplate), (status = 403, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn create_template(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
    AppJson(input): AppJson<NewTemplate>,
) -> ApiResult<(StatusCode, axum::Json<ReportTemplate>)> {
    let t = service::create(&state, &actor, input).await?;
    Ok((StatusCode::CREATED, axum::Json(t)))
}

/// One template.
#[utoipa::path(get, path = "/admin/report-templates/{template_id}", params(("template_id" = String, Path, description = "Template id")),
    responses((status = 200, body = ReportTemplate), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn get_template(
    State(state): State<AppState>,
    _admin: AdminActor,
    Path(template_id): Path<String>,
) -> ApiResult<axum::Json<ReportTemplate>> {
    Ok(axum::Json(service::get(&state, &template_id).await?))
}

/// Saves a template: name, description, sections, branding, active flag (the type stays).
#[utoipa::path(put, path = "/admin/report-templates/{template_id}", params(("template_id" = String, Path, description = "Template id")), request_body = TemplateEdit,
    responses((status = 200, body = ReportTemplate), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn update_template(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
    Path(template_id): Path<String>,
    AppJson(input): AppJson<TemplateEdit>,
) -> ApiResult<axum::Json<ReportTemplate>> {
    Ok(axum::Json(
        service::update(&state, &actor, &template_id, input).await?,
    ))
}

/// Deletes a template; reports created from it keep their content.
#[utoipa::path(delete, path = "/admin/report-templates/{template_id}", params(("template_id" = String, Path, description = "Template id")),
    responses((status = 204), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn delete_template(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
    Path(template_id): Path<String>,
) -> ApiResult<StatusCode> {
    service::delete(&state, &actor, &template_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The active templates a report can start from, by name.
#[utoipa::path(get, path = "/report-templates",
    responses((status = 200, body = Vec<ReportTemplate>), (status = 401, body = crate::error::ErrorBody)))]
pub async fn list_active_templates(
    State(state): State<AppState>,
    _actor: Actor,
) -> ApiResult<axum::Json<Vec<ReportTemplate>>> {
    Ok(axum::Json(service::list(&state, true).await?))
}
