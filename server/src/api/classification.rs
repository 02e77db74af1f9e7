//! Enhanced Classification Training over HTTP (administrators only): the lists of each file's
//! latest enhanced-AI classification (Pending Review, Recently Reviewed, All), one classification
//! with the engine's evidence and the stored file read again, and the decisions (approve: the
//! review recorded and the file processed with the chosen lever; reject). Live on
//! `admin:classification`. The rules live in [`crate::service::classification::training`].

use axum::extract::{Path, Query, State};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::extract::AdminActor;
use crate::error::{ApiResult, AppJson};
use crate::service::classification::training::{
    self as service, ApproveReview, RejectReview, ReviewOutcome, TrainingPage, TrainingQuery,
    TrainingReview,
};
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_classification_reviews))
        .routes(routes!(get_classification_review))
        .routes(routes!(approve_classification))
        .routes(routes!(reject_classification))
}

/// One page of a list (`tab` `pending`, `reviewed` (the newest 20) or `all`; `page`,
/// `page_size`), with every list's count and the classifier's measured accuracy.
#[utoipa::path(get, path = "/admin/classification-reviews", params(TrainingQuery),
    responses((status = 200, body = TrainingPage), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn list_classification_reviews(
    State(state): State<AppState>,
    AdminActor(admin): AdminActor,
    Query(q): Query<TrainingQuery>,
) -> ApiResult<axum::Json<TrainingPage>> {
    Ok(axum::Json(service::list(&state, &admin, &q).await?))
}

/// One classification: the engine's evidence, smart suggestions, the stored file's columns and
/// first rows, and the processing run an approval queued.
#[utoipa::path(get, path = "/admin/classification-reviews/{run_id}",
    params(("run_id" = String, Path, description = "The classifying run's id")),
    responses((status = 200, body = TrainingReview), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn get_classification_review(
    State(state): State<AppState>,
    AdminActor(admin): AdminActor,
    Path(run_id): Path<String>,
) -> ApiResult<axum::Json<TrainingReview>> {
    Ok(axum::Json(service::get(&state, &admin, &run_id).await?))
}

/// Approves a classification: the review is recorded and the file is processed with the chosen
/// lever (and mapping); a new mapping is saved as a template of the client.
#[utoipa::path(post, path = "/admin/classification-reviews/{run_id}/approve",
    params(("run_id" = String, Path, description = "The classifying run's id")), request_body = ApproveReview,
    responses((status = 200, body = ReviewOutcome), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody),
        (status = 409, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn approve_classification(
    State(state): State<AppState>,
    AdminActor(admin): AdminActor,
    Path(run_id): Path<String>,
    AppJson(input): AppJson<ApproveReview>,
) -> ApiResult<axum::Json<ReviewOutcome>> {
    Ok(axum::Json(
        service::approve(&state, &admin, &run_id, input).await?,
    ))
}

/// Rejects a classification: the review is recorded; the file is not processed.
#[utoipa::path(post, path = "/admin/classification-reviews/{run_id}/reject",
    params(("run_id" = String, Path, description = "The classifying run's id")), request_body = RejectReview,
    responses((status = 200, body = ReviewOutcome), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody),
        (status = 409, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn reject_classification(
    State(state): State<AppState>,
    AdminActor(admin): AdminActor,
    Path(run_id): Path<String>,
    AppJson(input): AppJson<RejectReview>,
) -> ApiResult<axum::Json<ReviewOutcome>> {
    Ok(axum::Json(
        service::reject(&state, &admin, &run_id, input).await?,
    ))
}
