//! Best-effort audit writes for the sign-in flows, where no change is made that the record could
//! join (a failed sign-in): a failure is logged and never undoes anything. Changes write their
//! audit record inside their transaction (`service::Change`).

use crate::db::misc::{self, AuditEvent};
use crate::state::AppState;

/// Records an audit event; failures are logged only.
pub async fn record(state: &AppState, event: AuditEvent<'_>) {
    if let Err(e) = misc::audit_insert(&state.db.pool, &event).await {
        tracing::warn!(error = %e, event_type = event.event_type, "Failed to record audit event");
    }
}
