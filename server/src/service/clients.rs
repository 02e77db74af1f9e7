//! Clients (the banks): a new client comes with everything its screens read (the default columns
//! of its task board), in the same transaction, so no read ever has to create anything.

use sqlx::AnyConnection;

use crate::db::clients::{self as db, NewClient};
use crate::error::ApiResult;

/// Creates a client and its board's default columns; returns its id. Runs inside the caller's
/// transaction.
pub async fn create(conn: &mut AnyConnection, c: &NewClient<'_>) -> ApiResult<String> {
    let id = db::insert(&mut *conn, c).await?;
    super::board::create_default_columns(conn, &id).await?;
    Ok(id)
}

/// The clients a caller may open, by name: every client for an admin, else their memberships.
pub async fn visible(
    state: &crate::state::AppState,
    user: &crate::auth::AuthUser,
) -> ApiResult<Vec<(crate::ids::ClientId, String)>> {
    if user.is_admin() {
        return Ok(db::list(&state.db.pool)
            .await?
            .into_iter()
            .map(|c| (c.id.into(), c.name))
            .collect());
    }
    Ok(user
        .clients
        .iter()
        .map(|m| (m.client_id.clone(), m.client_name.clone()))
        .collect())
}
