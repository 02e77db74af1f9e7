//! Levers and their standard columns over HTTP (reading needs a session). The rules live in
//! [`crate::service::levers`].

use axum::extract::{Path, State};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::error::ApiResult;
use crate::service::Actor;
use crate::service::levers::{self as service, Lever, StandardColumn};
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_levers))
        .routes(routes!(list_lever_columns))
}

/// Every lever, by name.
#[utoipa::path(get, path = "/levers",
    responses((status = 200, body = Vec<Lever>), (status = 401, body = crate::error::ErrorBody)))]
pub async fn list_levers(
    State(state): State<AppState>,
    _actor: Actor,
) -> ApiResult<axum::Json<Vec<Lever>>> {
    Ok(axum::Json(service::list(&state).await?))
}

/// A lever's standard columns: its definitions, or the fallback columns of the specification.
#[utoipa::path(get, path = "/levers/{lever_id}/columns", params(("lever_id" = String, Path, description = "Lever id")),
    responses((status = 200, body = Vec<StandardColumn>), (status = 401, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody)))]
pub async fn list_lever_columns(
    State(state): State<AppState>,
    _actor: Actor,
    Path(lever_id): Path<String>,
) -> ApiResult<axum::Json<Vec<StandardColumn>>> {
    Ok(axum::Json(service::columns(&state, &lever_id).await?))
}
