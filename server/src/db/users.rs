//! Users and their client memberships.

use sqlx::{AnyExecutor, FromRow};

/// A user row.
#[derive(Debug, Clone, FromRow)]
pub struct UserRow {
    /// Id.
    pub id: String,
    /// Email, lower-cased.
    pub email: String,
    /// Argon2id PHC string; `None` until the user sets a password.
    pub password_hash: Option<String>,
    /// First name.
    pub name: String,
    /// Last name.
    pub last_name: String,
    /// Stored role (any unknown value counts as `user`).
    pub role: String,
    /// Company.
    pub company: Option<String>,
    /// When the terms were accepted.
    pub terms_accepted_at: Option<String>,
    /// When the password was last changed.
    pub password_changed_at: Option<String>,
    /// Creation time.
    pub created_at: String,
}

/// Finds a user by id.
pub async fn by_id<'e>(ex: impl AnyExecutor<'e>, id: &str) -> sqlx::Result<Option<UserRow>> {
    sqlx::query_as("SELECT id, email, password_hash, name, last_name, role, company, terms_accepted_at, password_changed_at, created_at FROM users WHERE id = $1").bind(id).fetch_optional(ex).await
}

/// Finds a user by email (case-insensitive: emails are stored lower-cased).
pub async fn by_email<'e>(ex: impl AnyExecutor<'e>, email: &str) -> sqlx::Result<Option<UserRow>> {
    sqlx::query_as("SELECT id, email, password_hash, name, last_name, role, company, terms_accepted_at, password_changed_at, created_at FROM users WHERE email = $1")
        .bind(email.trim().to_lowercase())
        .fetch_optional(ex)
        .await
}

/// Fields of a new user.
#[derive(Debug, Clone)]
pub struct NewUser<'a> {
    /// Email.
    pub email: &'a str,
    /// Password hash, if set.
    pub password_hash: Option<&'a str>,
    /// First name.
    pub name: &'a str,
    /// Last name.
    pub last_name: &'a str,
    /// Role.
    pub role: &'a str,
    /// Company.
    pub company: Option<&'a str>,
    /// Terms accepted at (demo accounts only; real users accept in the app).
    pub terms_accepted_at: Option<&'a str>,
    /// Password changed at.
    pub password_changed_at: Option<&'a str>,
}

/// Inserts a user and returns its id.
pub async fn insert<'e>(ex: impl AnyExecutor<'e>, u: &NewUser<'_>) -> sqlx::Result<String> {
    let id = super::new_id();
    let now = super::now();
    sqlx::query(
        "INSERT INTO users (id, email, password_hash, name, last_name, role, company, terms_accepted_at, password_changed_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)",
    )
    .bind(&id)
    .bind(u.email.trim().to_lowercase())
    .bind(u.password_hash)
    .bind(u.name)
    .bind(u.last_name)
    .bind(u.role)
    .bind(u.company)
    .bind(u.terms_accepted_at)
    .bind(u.password_changed_at)
    .bind(&now)
    .execute(ex)
    .await?;
    Ok(id)
}

/// Sets a new password hash and stamps `password_changed_at`.
pub async fn set_password<'e>(
    ex: impl AnyExecutor<'e>,
    user_id: &str,
    hash: &str,
) -> sqlx::Result<()> {
    let now = super::now();
    sqlx::query("UPDATE users SET password_hash = $1, password_changed_at = $2, updated_at = $2 WHERE id = $3")
        .bind(hash)
        .bind(&now)
        .bind(user_id)
        .execute(ex)
        .await?;
    Ok(())
}

/// Records the acceptance of the terms.
pub async fn accept_terms<'e>(ex: impl AnyExecutor<'e>, user_id: &str) -> sqlx::Result<()> {
    let now = super::now();
    sqlx::query("UPDATE users SET terms_accepted_at = $1, updated_at = $1 WHERE id = $2")
        .bind(&now)
        .bind(user_id)
        .execute(ex)
        .await?;
    Ok(())
}

/// Changes a user's role.
pub async fn set_role<'e>(
    ex: impl AnyExecutor<'e>,
    user_id: &str,
    role: &str,
) -> sqlx::Result<bool> {
    let r = sqlx::query("UPDATE users SET role = $1, updated_at = $2 WHERE id = $3")
        .bind(role)
        .bind(super::now())
        .bind(user_id)
        .execute(ex)
        .await?;
    Ok(r.rows_affected() == 1)
}

/// The user behind a live session (not revoked).
#[derive(Debug, Clone, FromRow)]
pub struct SessionUser {
    /// User id.
    pub id: String,
    /// Email.
    pub email: String,
    /// Stored role.
    pub role: String,
}

/// The user of session `session_id` when it is theirs and not revoked.
pub async fn session_user<'e>(
    ex: impl AnyExecutor<'e>,
    user_id: &str,
    session_id: &str,
) -> sqlx::Result<Option<SessionUser>> {
    sqlx::query_as(
        "SELECT u.id, u.email, u.role FROM users u JOIN sessions s ON s.user_id = u.id
         WHERE u.id = $1 AND s.id = $2 AND s.revoked_at IS NULL",
    )
    .bind(user_id)
    .bind(session_id)
    .fetch_optional(ex)
    .await
}

/// A client membership of a user.
#[derive(Debug, Clone, FromRow)]
pub struct MembershipRow {
    /// The client.
    pub client_id: String,
    /// Its name.
    pub client_name: String,
    /// The user's role within it (`member`, `approver`, `admin`).
    pub role: String,
}

/// The clients a user belongs to, by name.
pub async fn client_memberships<'e>(
    ex: impl AnyExecutor<'e>,
    user_id: &str,
) -> sqlx::Result<Vec<MembershipRow>> {
    sqlx::query_as(
        "SELECT c.id AS client_id, c.name AS client_name, cu.role FROM client_users cu JOIN clients c ON c.id = cu.client_id WHERE cu.user_id = $1 ORDER BY c.name, c.id",
    )
    .bind(user_id)
    .fetch_all(ex)
    .await
}

/// Adds a user to a client (no-op when already a member).
pub async fn add_to_client<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
    user_id: &str,
    added_by: Option<&str>,
) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO client_users (client_id, user_id, added_by, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (client_id, user_id) DO NOTHING",
    )
    .bind(client_id)
    .bind(user_id)
    .bind(added_by)
    .bind(super::now())
    .execute(ex)
    .await?;
    Ok(())
}

/// Sets a member's role within one client (`member`, `approver` or `admin`, migration 0004).
pub async fn set_member_role<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
    user_id: &str,
    role: &str,
) -> sqlx::Result<bool> {
    let r = sqlx::query("UPDATE client_users SET role = $3 WHERE client_id = $1 AND user_id = $2")
        .bind(client_id)
        .bind(user_id)
        .bind(role)
        .execute(ex)
        .await?;
    Ok(r.rows_affected() > 0)
}
