//! Best-effort audit and changelog writes: a failure is logged and never undoes the action.

use crate::db::misc::{self, AuditEvent};
use crate::state::AppState;

/// Records an audit event; failures are logged only.
pub async fn record(state: &AppState, event: AuditEvent<'_>) {
    if let Err(e) = misc::audit_insert(&state.db.pool, &event).await {
        tracing::warn!(error = %e, event_type = event.event_type, "Failed to record audit event");
    }
}

/// Records a changelog entry; failures are logged only ('Failed to record changelog').
pub async fn changelog(
    state: &AppState,
    entry_type: &str,
    description: &str,
    category: &str,
    actor: Option<&str>,
) {
    if let Err(e) =
        misc::changelog_insert(&state.db.pool, entry_type, description, category, actor).await
    {
        tracing::warn!(error = %e, "Failed to record changelog");
    }
}
