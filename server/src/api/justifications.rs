//! Lever justification templates over HTTP (administrators only): list, create, edit, delete,
//! the default memo, and a memo generated from a completed run. The rules live in
//! [`crate::service::justifications`].

use axum::extract::{Path, State};
use axum::http::StatusCode;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::extract::AdminActor;
use crate::error::{ApiResult, AppJson};
use crate::service::justifications::{
    self as service, JustificationDefaults, JustificationMemo, JustificationTemplate,
    JustificationTemplateInput, MemoRequest,
};
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_justifications, create_justification))
        .routes(routes!(justification_defaults))
        .routes(routes!(update_justification, delete_justification))
        .routes(routes!(generate_memo))
}

/// Every template, newest first.
#[utoipa::path(get, path = "/admin/justification-templates",
    responses((status = 200, body = Vec<JustificationTemplate>), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)))]
pub async fn list_justifications(
    State(state): State<AppState>,
    _admin: AdminActor,
) -> ApiResult<axum::Json<Vec<JustificationTemplate>>> {
    Ok(axum::Json(service::list(&state).await?))
}

/// Creates a template (name and content required; the content must render).
#[utoipa::path(post, path = "/admin/justification-templates", request_body = JustificationTemplateInput,
    responses((status = 201, body = JustificationTemplate), (status = 403, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn create_justification(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
    AppJson(input): AppJson<JustificationTemplateInput>,
) -> ApiResult<(StatusCode, axum::Json<JustificationTemplate>)> {
    let t = service::create(&state, &actor, input).await?;
    Ok((StatusCode::CREATED, axum::Json(t)))
}

/// 'Use Default Template': the default audit memo and the placeholders.
#[utoipa::path(get, path = "/admin/justification-templates/defaults",
    responses((status = 200, body = JustificationDefaults), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody)))]
pub async fn justification_defaults(_admin: AdminActor) -> axum::Json<JustificationDefaults> {
    axum::Json(service::defaults())
}

/// Saves a template.
#[utoipa::path(put, path = "/admin/justification-templates/{template_id}", params(("template_id" = String, Path, description = "Template id")), request_body = JustificationTemplateInput,
    responses((status = 200, body = JustificationTemplate), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn update_justification(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
    Path(template_id): Path<String>,
    AppJson(input): AppJson<JustificationTemplateInput>,
) -> ApiResult<axum::Json<JustificationTemplate>> {
    Ok(axum::Json(
        service::update(&state, &actor, &template_id, input).await?,
    ))
}

/// Deletes a template.
#[utoipa::path(delete, path = "/admin/justification-templates/{template_id}", params(("template_id" = String, Path, description = "Template id")),
    responses((status = 204), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn delete_justification(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
    Path(template_id): Path<String>,
) -> ApiResult<StatusCode> {
    service::delete(&state, &actor, &template_id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The memo of a completed run, written from the template named (else the default template,
/// else the built-in audit memo).
#[utoipa::path(post, path = "/admin/runs/{run_id}/justification-memo", params(("run_id" = String, Path, description = "A completed run")), request_body = MemoRequest,
    responses((status = 200, body = JustificationMemo), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody),
        (status = 409, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn generate_memo(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
    Path(run_id): Path<String>,
    AppJson(input): AppJson<MemoRequest>,
) -> ApiResult<axum::Json<JustificationMemo>> {
    Ok(axum::Json(
        service::memo(&state, actor, &run_id, input).await?,
    ))
}
