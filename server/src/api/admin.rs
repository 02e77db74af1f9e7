//! Small admin operations: the mail outbox and role changes.

use axum::extract::{Path, State};
use serde::Deserialize;
use serde_json::json;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::{AdminUser, ClientIp, Role};
use crate::db::misc::{self, AuditEvent, OutboxMail};
use crate::db::users;
use crate::error::{ApiError, ApiResult, AppJson};
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_outbox))
        .routes(routes!(set_user_role))
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
    AdminUser(admin): AdminUser,
    ClientIp(ip): ClientIp,
    Path(id): Path<String>,
    AppJson(req): AppJson<SetRoleRequest>,
) -> ApiResult<axum::Json<crate::api::auth::Me>> {
    let role = Role::parse_strict(&req.role)
        .ok_or_else(|| ApiError::validation("Role must be one of admin, approver, user, viewer"))?;
    if id == admin.id {
        return Err(ApiError::validation("You cannot change your own role"));
    }
    let before = users::by_id(&state.db.pool, &id)
        .await?
        .ok_or_else(|| ApiError::not_found("User not found"))?;
    users::set_role(&state.db.pool, &id, role.as_str()).await?;
    state.recheck_user(&id).await;
    crate::audit::record(
        &state,
        AuditEvent {
            event_type: "role_changed",
            entity_type: "user",
            entity_id: Some(&id),
            actor_id: Some(&admin.id),
            details: json!({"from": before.role, "to": role.as_str()}),
            severity: "warning",
            ip: Some(&ip),
        },
    )
    .await;
    Ok(axum::Json(crate::api::auth::load_me(&state, &id).await?))
}

/// The latest 100 mails of the outbox, newest first, with the links' tokens masked.
#[utoipa::path(get, path = "/admin/outbox", responses((status = 200, body = Vec<OutboxMail>), (status = 403, body = crate::error::ErrorBody)))]
pub async fn list_outbox(
    State(state): State<AppState>,
    _admin: AdminUser,
) -> ApiResult<axum::Json<Vec<OutboxMail>>> {
    let mut mails = misc::outbox_latest(&state.db.pool, 100).await?;
    for m in &mut mails {
        m.body = crate::mail::mask_secrets(&m.body);
    }
    Ok(axum::Json(mails))
}
