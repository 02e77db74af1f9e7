//! Validations over HTTP (spec 001 section 2.9, the Alerts tab of Our Files): a client's pending
//! validations and history, filtered and paged by the server, one validation with its analysis,
//! and the approvers' decisions. The rules live in [`crate::service::validations`].

use axum::extract::{Path, Query, State};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::extract::{ClientQuery, ClientRead};
use crate::error::{ApiResult, AppJson};
use crate::service::Actor;
use crate::service::validations::{
    self as service, ChangeValidationStatus, ListQuery, RejectValidation, Validation,
    ValidationDetail, ValidationPage, ValidationSummary,
};
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_validations))
        .routes(routes!(validation_summary))
        .routes(routes!(get_validation))
        .routes(routes!(approve_validation))
        .routes(routes!(reject_validation))
        .routes(routes!(change_validation_status))
}

/// A client's pending validations (`tab=pending`, default) or history (`tab=history`), newest
/// first, filtered by status, creation dates and RWA and bps savings, paged; with the client's
/// pending count and whether the caller may decide.
#[utoipa::path(get, path = "/validations", params(ClientQuery, ListQuery),
    responses((status = 200, body = ValidationPage), (status = 401, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn list_validations(
    State(state): State<AppState>,
    ClientRead(scope): ClientRead,
    Query(q): Query<ListQuery>,
) -> ApiResult<axum::Json<ValidationPage>> {
    Ok(axum::Json(service::list(&state, &scope, &q).await?))
}

/// The client's pending count and whether the caller may decide (banner and badges).
#[utoipa::path(get, path = "/validations/summary", params(ClientQuery),
    responses((status = 200, body = ValidationSummary), (status = 401, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody)))]
pub async fn validation_summary(
    State(state): State<AppState>,
    ClientRead(scope): ClientRead,
) -> ApiResult<axum::Json<ValidationSummary>> {
    Ok(axum::Json(service::summary(&state, &scope).await?))
}

/// One validation with its file, processing info and the analysis of its run's result.
#[utoipa::path(get, path = "/validations/{validation_id}",
    params(("validation_id" = String, Path, description = "Validation id")),
    responses((status = 200, body = ValidationDetail), (status = 401, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody)))]
pub async fn get_validation(
    State(state): State<AppState>,
    actor: Actor,
    Path(validation_id): Path<String>,
) -> ApiResult<axum::Json<ValidationDetail>> {
    Ok(axum::Json(
        service::get(&state, &actor, &validation_id).await?,
    ))
}

/// Approves a pending validation (approvers of its client: global admins and approvers, or the
/// client's own approvers). 409 when it is not pending any more.
#[utoipa::path(post, path = "/validations/{validation_id}/approve",
    params(("validation_id" = String, Path, description = "Validation id")),
    responses((status = 200, body = Validation), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody),
        (status = 409, body = crate::error::ErrorBody)))]
pub async fn approve_validation(
    State(state): State<AppState>,
    actor: Actor,
    Path(validation_id): Path<String>,
) -> ApiResult<axum::Json<Validation>> {
    Ok(axum::Json(
        service::approve(&state, &actor, &validation_id).await?,
    ))
}

/// Rejects a pending validation with a reason (required). 409 when it is not pending any more.
#[utoipa::path(post, path = "/validations/{validation_id}/reject",
    params(("validation_id" = String, Path, description = "Validation id")),
    request_body = RejectValidation,
    responses((status = 200, body = Validation), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody),
        (status = 409, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn reject_validation(
    State(state): State<AppState>,
    actor: Actor,
    Path(validation_id): Path<String>,
    AppJson(body): AppJson<RejectValidation>,
) -> ApiResult<axum::Json<Validation>> {
    Ok(axum::Json(
        service::reject(&state, &actor, &validation_id, body).await?,
    ))
}

/// Changes a validation's status to pending, approved or rejected (a reason for rejected), from
/// the status the caller saw; only a file's latest validation. 409 when it changed meanwhile or
/// was superseded.
#[utoipa::path(post, path = "/validations/{validation_id}/status",
    params(("validation_id" = String, Path, description = "Validation id")),
    request_body = ChangeValidationStatus,
    responses((status = 200, body = Validation), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody),
        (status = 409, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn change_validation_status(
    State(state): State<AppState>,
    actor: Actor,
    Path(validation_id): Path<String>,
    AppJson(body): AppJson<ChangeValidationStatus>,
) -> ApiResult<axum::Json<Validation>> {
    Ok(axum::Json(
        service::change_status(&state, &actor, &validation_id, body).await?,
    ))
}
