//! Users as the back office manages them: role changes (which reach the user's open sockets at
//! once) and the mail outbox.

use serde_json::json;

use super::{Actor, Audit, Change};
use crate::auth::Role;
use crate::db::misc::{self, OutboxRow};
use crate::db::users;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// Changes a user's role. An admin cannot change their own role, so the last admin cannot lock
/// everyone out by accident. The user's open sockets are re-checked at once.
pub async fn set_role(state: &AppState, admin: &Actor, user_id: &str, role: &str) -> ApiResult<()> {
    let role = Role::parse_strict(role)
        .ok_or_else(|| ApiError::validation("Role must be one of admin, approver, user, viewer"))?;
    if admin.user.id == user_id {
        return Err(ApiError::validation("You cannot change your own role"));
    }
    // On User Management's topic, so every open list shows the new role at once.
    let mut ch = Change::begin(state, super::admin_clients::users_topic()).await?;
    let before = users::by_id(ch.conn(), user_id)
        .await?
        .ok_or_else(|| ApiError::not_found("User not found"))?;
    users::set_role(ch.conn(), user_id, role.as_str()).await?;
    ch.commit(
        admin,
        crate::realtime::Event::UserChanged(crate::realtime::events::UserChange {
            user_ids: vec![user_id.to_string()],
            what: "updated",
        }),
        Audit {
            event_type: "role_changed",
            entity_type: "user",
            entity_id: user_id,
            details: json!({"from": before.role, "to": role.as_str()}),
            severity: "warning",
        },
    )
    .await?;
    state.recheck_user(user_id).await;
    Ok(())
}

/// The latest mails of the outbox, newest first, with the links' tokens masked.
pub async fn outbox(state: &AppState, limit: i64) -> ApiResult<Vec<OutboxRow>> {
    let mut mails = misc::outbox_latest(&state.db.pool, limit).await?;
    for m in &mut mails {
        m.body = crate::mail::mask_secrets(&m.body);
    }
    Ok(mails)
}
