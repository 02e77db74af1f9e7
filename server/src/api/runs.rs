//! Processing runs over HTTP: a run's snapshot (with its event sequence, for viewers that
//! subscribe to `client:{id}:run:{run_id}` first and then read it), a client's recent runs, and
//! cancel. The rules live in [`crate::service::runs`]; the workers in `jobs::runs`.

use axum::extract::{Path, Query, State};
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::extract::{ClientQuery, ClientRead};
use crate::error::ApiResult;
use crate::ids::RunId;
use crate::service::Actor;
use crate::service::runs::{self as service, RunSnapshot};
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_runs))
        .routes(routes!(get_run))
        .routes(routes!(cancel_run))
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
