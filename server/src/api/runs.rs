//! Processing runs over HTTP: a run's snapshot (with its event sequence, for viewers that
//! subscribe to `client:{id}:run:{run_id}` first and then read it), a client's recent runs, and
//! cancel. The rules live in [`crate::service::runs`]; the workers in `jobs::runs`.

use axum::extract::{Path, Query, State};
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::extract::{AdminActor, ClientQuery, ClientRead};
use crate::error::ApiResult;
use crate::ids::RunId;
use crate::service::Actor;
use crate::service::runs::{self as service, AdminRun, AdminRunPage, RunSnapshot};
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_runs))
        .routes(routes!(get_run))
        .routes(routes!(cancel_run))
        .routes(routes!(list_admin_runs))
        .routes(routes!(get_admin_run))
        .routes(routes!(retry_run))
}

/// Filters of the run list.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
pub struct RunsQuery {
    /// Only runs in this state (`queued`, `running`, `completed`, `failed`, `pending_review`,
    /// `cancelled`).
    pub state: Option<String>,
}

/// A client's most recent runs (at most 50), newest first.
#[utoipa::path(get, path = "/runs", params(ClientQuery, RunsQuery),
    responses((status = 200, body = Vec<RunSnapshot>), (status = 401, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn list_runs(
    State(state): State<AppState>,
    ClientRead(scope): ClientRead,
    Query(q): Query<RunsQuery>,
) -> ApiResult<axum::Json<Vec<RunSnapshot>>> {
    let state_filter = q.state.as_deref().filter(|s| !s.is_empty());
    Ok(axum::Json(
        service::list(&state, &scope, state_filter).await?,
    ))
}

/// One run: state, stage, progress, attempts, result, and the sequence number of its last
/// stored progress event.
#[utoipa::path(get, path = "/runs/{run_id}", params(("run_id" = String, Path, description = "Run id")),
    responses((status = 200, body = RunSnapshot), (status = 401, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody)))]
pub async fn get_run(
    State(state): State<AppState>,
    actor: Actor,
    Path(run_id): Path<RunId>,
) -> ApiResult<axum::Json<RunSnapshot>> {
    Ok(axum::Json(service::get(&state, actor, &run_id).await?))
}

/// Cancels a run: a queued run at once, a running one between two chunks of rows (nothing of it
/// is kept). 409 when it has already ended.
#[utoipa::path(post, path = "/runs/{run_id}/cancel", params(("run_id" = String, Path, description = "Run id")),
    responses((status = 200, body = RunSnapshot), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody),
        (status = 409, body = crate::error::ErrorBody)))]
pub async fn cancel_run(
    State(state): State<AppState>,
    actor: Actor,
    Path(run_id): Path<RunId>,
) -> ApiResult<axum::Json<RunSnapshot>> {
    Ok(axum::Json(service::cancel(&state, actor, &run_id).await?))
}

/// Filters and page of the administrators' run list.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
pub struct AdminRunsQuery {
    /// Only runs in this state (`queued`, `running`, `completed`, `failed`, `pending_review`,
    /// `cancelled`).
    pub status: Option<String>,
    /// Only this client's runs.
    pub client_id: Option<String>,
    /// The page, from 1.
    pub page: Option<i64>,
    /// 5, 10, 20 or 50 (default 10).
    pub page_size: Option<i64>,
}

/// Every client's runs, newest first, with client, file and lever names (administrators);
/// filtered and paged by the database. Live on `admin:runs`.
#[utoipa::path(get, path = "/admin/runs", params(AdminRunsQuery),
    responses((status = 200, body = AdminRunPage), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn list_admin_runs(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
    Query(q): Query<AdminRunsQuery>,
) -> ApiResult<axum::Json<AdminRunPage>> {
    Ok(axum::Json(
        service::list_admin(
            &state,
            &actor,
            service::AdminRunQuery {
                state: q.status,
                client_id: q.client_id,
                page: q.page,
                page_size: q.page_size,
            },
        )
        .await?,
    ))
}

/// One run with its client, file and lever names (administrators).
#[utoipa::path(get, path = "/admin/runs/{run_id}", params(("run_id" = String, Path, description = "Run id")),
    responses((status = 200, body = AdminRun), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn get_admin_run(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
    Path(run_id): Path<RunId>,
) -> ApiResult<axum::Json<AdminRun>> {
    Ok(axum::Json(
        service::get_admin(&state, &actor, &run_id).await?,
    ))
}

/// Retries a failed run: a new run of its file with the same mode, lever and options is queued
/// (administrators). 409 unless the run failed and is its file's latest.
#[utoipa::path(post, path = "/admin/runs/{run_id}/retry", params(("run_id" = String, Path, description = "Run id")),
    responses((status = 201, body = RunSnapshot), (status = 401, body = crate::error::ErrorBody),
        (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody),
        (status = 409, body = crate::error::ErrorBody)))]
pub async fn retry_run(
    State(state): State<AppState>,
    AdminActor(actor): AdminActor,
    Path(run_id): Path<RunId>,
) -> ApiResult<(axum::http::StatusCode, axum::Json<RunSnapshot>)> {
    let snap = service::retry(&state, actor, &run_id).await?;
    Ok((axum::http::StatusCode::CREATED, axum::Json(snap)))
}
