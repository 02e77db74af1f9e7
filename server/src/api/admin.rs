//! Small admin operations: the mail outbox and role changes.

use axum::extract::{Path, State};
use serde::Deserialize;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::extract::AdminActor;
use crate::auth::AdminUser;
use crate::db::misc::OutboxRow;
use crate::error::{ApiResult, AppJson};
use crate::service::users;
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_outbox))
        .routes(routes!(set_user_role))
}

/// A mail of the outbox as administrators see it.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct OutboxMail {
    /// Id.
    pub id: String,
    /// Recipient.
    pub to: String,
    /// Subject.
    pub subject: String,
    /// Plain-text body (empty once delivered by SMTP; tokens masked).
    pub body: String,
    /// When it was queued.
    pub created_at: String,
    /// When SMTP accepted it (never without SMTP).
    pub sent_at: Option<String>,
    /// Last SMTP error.
    pub error: Option<String>,
}

impl From<OutboxRow> for OutboxMail {
    fn from(r: OutboxRow) -> OutboxMail {
        OutboxMail {
            id: r.id,
            to: r.to_addr,
            subject: r.subject,
            body: r.body,
            created_at: r.created_at,
            sent_at: r.sent_at,
            error: r.error,
        }
    }
}

/// A role change.
#[derive(Debug, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct SetRoleRequest {
    /// The new role: admin, approver, user or viewer.
    pub role: String,
}

/// Changes a user's role (admins only; takes effect on the user's next request). An admin cannot
/// change their own role, so the last admin cannot lock everyone out by accident.
#[utoipa::path(put, path = "/admin/users/{id}/role", request_body = SetRoleRequest,
    responses((status = 200, body = crate::api::auth::Me), (status = 403, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn set_user_role(
    State(state): State<AppState>,
    AdminActor(admin): AdminActor,
    Path(id): Path<String>,
    AppJson(req): AppJson<SetRoleRequest>,
) -> ApiResult<axum::Json<crate::api::auth::Me>> {
    users::set_role(&state, &admin, &id, &req.role).await?;
    Ok(axum::Json(crate::api::auth::load_me(&state, &id).await?))
}

/// The latest 100 mails of the outbox, newest first, with the links' tokens masked.
#[utoipa::path(get, path = "/admin/outbox", responses((status = 200, body = Vec<OutboxMail>), (status = 403, body = crate::error::ErrorBody)))]
pub async fn list_outbox(
    State(state): State<AppState>,
    _admin: AdminUser,
) -> ApiResult<axum::Json<Vec<OutboxMail>>> {
    let mails = users::outbox(&state, 100).await?;
    Ok(axum::Json(
        mails.into_iter().map(OutboxMail::from).collect(),
    ))
}
