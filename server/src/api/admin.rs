//! Small admin views: the mail outbox.

use axum::extract::State;
use axum::routing::get;
use axum::Router;

use crate::auth::AdminUser;
use crate::db::misc::{self, OutboxMail};
use crate::error::ApiResult;
use crate::state::AppState;

/// Routes.
pub fn router() -> Router<AppState> {
    Router::new().route("/admin/outbox", get(list_outbox))
}

/// The latest 100 mails of the outbox, newest first.
#[utoipa::path(get, path = "/api/admin/outbox", responses((status = 200, body = Vec<OutboxMail>), (status = 403, body = crate::error::ErrorBody)))]
pub async fn list_outbox(State(state): State<AppState>, _admin: AdminUser) -> ApiResult<axum::Json<Vec<OutboxMail>>> {
    Ok(axum::Json(misc::outbox_latest(&state.db.pool, 100).await?))
}
