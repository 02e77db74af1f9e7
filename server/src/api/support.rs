//! FAQ & Support: the support contact from the configuration.

use axum::extract::State;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::AuthUser;
use crate::error::ApiResult;
use crate::service::support::{self as service, SupportContact};
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_support))
}

/// The support address (`SUPPORT_EMAIL`) and the typical response time.
#[utoipa::path(get, path = "/support", responses((status = 200, body = SupportContact), (status = 401, body = crate::error::ErrorBody)))]
pub async fn get_support(
    State(state): State<AppState>,
    _user: AuthUser,
) -> ApiResult<axum::Json<SupportContact>> {
    Ok(axum::Json(service::contact(&state)))
}
