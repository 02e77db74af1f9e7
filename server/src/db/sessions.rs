//! Sessions, rotating refresh tokens, password-reset tokens and invitations. Tokens are stored
//! only as SHA-256 hashes.

use sqlx::{AnyConnection, AnyExecutor, FromRow};

/// Creates a session row.
pub async fn create_session<'e>(
    ex: impl AnyExecutor<'e>,
    id: &str,
    user_id: &str,
    ip: Option<&str>,
    ua: Option<&str>,
) -> sqlx::Result<()> {
    let now = super::now();
    sqlx::query("INSERT INTO sessions (id, user_id, created_at, last_seen_at, ip, user_agent) VALUES ($1, $2, $3, $3, $4, $5)")
        .bind(id)
        .bind(user_id)
        .bind(&now)
        .bind(ip)
        .bind(ua)
        .execute(ex)
        .await?;
    Ok(())
}

/// Whether a session exists and is not revoked.
pub async fn session_active<'e>(ex: impl AnyExecutor<'e>, id: &str) -> sqlx::Result<bool> {
    let row: Option<(String,)> =
        sqlx::query_as("SELECT id FROM sessions WHERE id = $1 AND revoked_at IS NULL")
            .bind(id)
            .fetch_optional(ex)
            .await?;
    Ok(row.is_some())
}

/// Revokes a session and all its refresh tokens.
pub async fn revoke_session(pool: &sqlx::AnyPool, id: &str) -> sqlx::Result<()> {
    let now = super::now();
    let mut tx = pool.begin().await?;
    sqlx::query("UPDATE sessions SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL")
        .bind(&now)
        .bind(id)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "UPDATE refresh_tokens SET revoked_at = $1 WHERE session_id = $2 AND revoked_at IS NULL",
    )
    .bind(&now)
    .bind(id)
    .execute(&mut *tx)
    .await?;
    tx.commit().await
}

/// Revokes every live session of a user and their refresh tokens (password reset).
pub async fn revoke_user_sessions(conn: &mut AnyConnection, user_id: &str) -> sqlx::Result<()> {
    let now = super::now();
    sqlx::query("UPDATE sessions SET revoked_at = $1 WHERE user_id = $2 AND revoked_at IS NULL")
        .bind(&now)
        .bind(user_id)
        .execute(&mut *conn)
        .await?;
    sqlx::query(
        "UPDATE refresh_tokens SET revoked_at = $1 WHERE user_id = $2 AND revoked_at IS NULL",
    )
    .bind(&now)
    .bind(user_id)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// Revokes every live session of a user except `keep`, with their refresh tokens (a password
/// change ends the others).
pub async fn revoke_other_sessions(
    conn: &mut AnyConnection,
    user_id: &str,
    keep: &str,
) -> sqlx::Result<()> {
    let now = super::now();
    sqlx::query(
        "UPDATE sessions SET revoked_at = $1 WHERE user_id = $2 AND id <> $3 AND revoked_at IS NULL",
    )
    .bind(&now)
    .bind(user_id)
    .bind(keep)
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "UPDATE refresh_tokens SET revoked_at = $1 WHERE user_id = $2 AND session_id <> $3 AND revoked_at IS NULL",
    )
    .bind(&now)
    .bind(user_id)
    .bind(keep)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// A refresh token row.
#[derive(Debug, Clone, FromRow)]
pub struct RefreshRow {
    /// Id.
    pub id: String,
    /// Owner.
    pub user_id: String,
    /// Session it belongs to.
    pub session_id: String,
    /// Expiry.
    pub expires_at: String,
    /// Set once rotated or revoked.
    pub revoked_at: Option<String>,
}

/// Stores a refresh token hash.
pub async fn insert_refresh<'e>(
    ex: impl AnyExecutor<'e>,
    id: &str,
    user_id: &str,
    session_id: &str,
    hash: &str,
    expires_at: &str,
) -> sqlx::Result<()> {
    sqlx::query("INSERT INTO refresh_tokens (id, user_id, session_id, token_hash, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)")
        .bind(id)
        .bind(user_id)
        .bind(session_id)
        .bind(hash)
        .bind(super::now())
        .bind(expires_at)
        .execute(ex)
        .await?;
    Ok(())
}

/// Finds a refresh token by hash.
pub async fn refresh_by_hash<'e>(
    ex: impl AnyExecutor<'e>,
    hash: &str,
) -> sqlx::Result<Option<RefreshRow>> {
    sqlx::query_as("SELECT id, user_id, session_id, expires_at, revoked_at FROM refresh_tokens WHERE token_hash = $1")
        .bind(hash)
        .fetch_optional(ex)
        .await
}

/// Marks a refresh token as rotated, only if it is still live. Returns false when another request
/// rotated it first.
pub async fn rotate_refresh<'e>(
    ex: impl AnyExecutor<'e>,
    id: &str,
    replaced_by: &str,
) -> sqlx::Result<bool> {
    let r = sqlx::query("UPDATE refresh_tokens SET revoked_at = $1, replaced_by = $2 WHERE id = $3 AND revoked_at IS NULL")
        .bind(super::now())
        .bind(replaced_by)
        .bind(id)
        .execute(ex)
        .await?;
    Ok(r.rows_affected() == 1)
}

/// Stores a password-reset token hash.
pub async fn insert_reset<'e>(
    ex: impl AnyExecutor<'e>,
    user_id: &str,
    hash: &str,
    expires_at: &str,
) -> sqlx::Result<()> {
    sqlx::query("INSERT INTO password_resets (id, user_id, token_hash, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)")
        .bind(super::new_id())
        .bind(user_id)
        .bind(hash)
        .bind(super::now())
        .bind(expires_at)
        .execute(ex)
        .await?;
    Ok(())
}

/// Consumes a live reset token: marks it used and returns its user, or `None` when it is unknown,
/// used or expired.
pub async fn consume_reset<'e>(
    ex: impl AnyExecutor<'e>,
    hash: &str,
) -> sqlx::Result<Option<String>> {
    let now = super::now();
    let row: Option<(String,)> = sqlx::query_as(
        "UPDATE password_resets SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL AND expires_at > $1 RETURNING user_id",
    )
    .bind(&now)
    .bind(hash)
    .fetch_optional(ex)
    .await?;
    Ok(row.map(|(u,)| u))
}

/// An invitation row.
#[derive(Debug, Clone, FromRow)]
pub struct InvitationRow {
    /// Id.
    pub id: String,
    /// Invited address.
    pub email: String,
    /// First name given by the admin.
    pub name: String,
    /// Last name given by the admin.
    pub last_name: String,
    /// Role to grant.
    pub role: String,
    /// Company.
    pub company: Option<String>,
    /// Client to join.
    pub client_id: Option<String>,
    /// Expiry.
    pub expires_at: String,
    /// 1 once used.
    pub is_used: i64,
}

/// Fields of a new invitation.
#[derive(Debug)]
pub struct NewInvitation<'a> {
    /// Token hash.
    pub token_hash: &'a str,
    /// Address.
    pub email: &'a str,
    /// First name.
    pub name: &'a str,
    /// Last name.
    pub last_name: &'a str,
    /// Role.
    pub role: &'a str,
    /// Company.
    pub company: Option<&'a str>,
    /// Client.
    pub client_id: Option<&'a str>,
    /// Admin who invited.
    pub created_by: &'a str,
    /// Expiry.
    pub expires_at: &'a str,
}

/// Stores an invitation and returns its id.
pub async fn insert_invitation<'e>(
    ex: impl AnyExecutor<'e>,
    i: &NewInvitation<'_>,
) -> sqlx::Result<String> {
    let id = super::new_id();
    sqlx::query(
        "INSERT INTO invitations (id, token_hash, email, name, last_name, role, company, client_id, created_by, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
    )
    .bind(&id)
    .bind(i.token_hash)
    .bind(i.email.trim().to_lowercase())
    .bind(i.name)
    .bind(i.last_name)
    .bind(i.role)
    .bind(i.company)
    .bind(i.client_id)
    .bind(i.created_by)
    .bind(super::now())
    .bind(i.expires_at)
    .execute(ex)
    .await?;
    Ok(id)
}

/// A live (unused, unexpired) invitation by token hash.
pub async fn live_invitation<'e>(
    ex: impl AnyExecutor<'e>,
    hash: &str,
) -> sqlx::Result<Option<InvitationRow>> {
    sqlx::query_as(
        "SELECT id, email, name, last_name, role, company, client_id, expires_at, is_used FROM invitations
         WHERE token_hash = $1 AND is_used = 0 AND expires_at > $2",
    )
    .bind(hash)
    .bind(super::now())
    .fetch_optional(ex)
    .await
}

/// Marks an invitation used, only if it still is live. Returns false if it was used meanwhile.
pub async fn use_invitation<'e>(ex: impl AnyExecutor<'e>, id: &str) -> sqlx::Result<bool> {
    let now = super::now();
    let r = sqlx::query("UPDATE invitations SET is_used = 1, used_at = $1 WHERE id = $2 AND is_used = 0 AND expires_at > $1")
        .bind(&now)
        .bind(id)
        .execute(ex)
        .await?;
    Ok(r.rows_affected() == 1)
}
