//! The admin dashboard's metric cards, computed from the stored savings and files.

use axum::extract::State;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::AdminUser;
use crate::error::ApiResult;
use crate::service::dashboard::{self as service, AdminDashboardMetrics};
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_metrics))
}

/// Computes the admin dashboard's metrics.
#[utoipa::path(get, path = "/admin/dashboard/metrics", responses((status = 200, body = AdminDashboardMetrics), (status = 403, body = crate::error::ErrorBody)))]
pub async fn get_metrics(
    State(state): State<AppState>,
    _admin: AdminUser,
) -> ApiResult<axum::Json<AdminDashboardMetrics>> {
    Ok(axum::Json(service::metrics(&state).await?))
}
