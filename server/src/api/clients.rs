//! The clients a caller may open (the administrators' client switcher).

use axum::extract::State;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::api::auth::ClientRef;
use crate::auth::AuthUser;
use crate::error::ApiResult;
use crate::service::clients as service;
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_clients))
}

/// The clients the caller may open, by name: every client for an administrator, the caller's own
/// for everyone else.
#[utoipa::path(get, path = "/clients", responses((status = 200, body = Vec<ClientRef>), (status = 401, body = crate::error::ErrorBody)))]
pub async fn list_clients(
    State(state): State<AppState>,
    user: AuthUser,
) -> ApiResult<axum::Json<Vec<ClientRef>>> {
    let clients = service::visible(&state, &user).await?;
    Ok(axum::Json(
        clients
            .into_iter()
            .map(|(id, name)| ClientRef {
                id: id.to_string(),
                name,
            })
            .collect(),
    ))
}
