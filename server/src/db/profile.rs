//! A user's own profile (name, avatar) and a client's project settings (name, description).

use sqlx::{AnyConnection, AnyExecutor, FromRow};

/// The fields of a user's profile.
#[derive(Debug, Clone, FromRow)]
pub struct ProfileRow {
    /// Id.
    pub id: String,
    /// Email.
    pub email: String,
    /// First name.
    pub name: String,
    /// Last name.
    pub last_name: String,
    /// Role.
    pub role: String,
    /// Company.
    pub company: Option<String>,
    /// The address the avatar is shown from.
    pub avatar: Option<String>,
    /// The avatar's object.
    pub avatar_key: Option<String>,
    /// When the password was last changed.
    pub password_changed_at: Option<String>,
}

/// A user's profile.
#[tracing::instrument(skip(ex), err)]
pub async fn get<'e>(ex: impl AnyExecutor<'e>, user_id: &str) -> sqlx::Result<Option<ProfileRow>> {
    sqlx::query_as(
        "SELECT id, email, name, last_name, role, company, avatar, avatar_key, password_changed_at
         FROM users WHERE id = $1",
    )
    .bind(user_id)
    .fetch_optional(ex)
    .await
}

/// Changes a user's first and last name.
#[tracing::instrument(skip(conn), err)]
pub async fn set_names(
    conn: &mut AnyConnection,
    user_id: &str,
    name: &str,
    last_name: &str,
    now: &str,
) -> sqlx::Result<bool> {
    let r =
        sqlx::query("UPDATE users SET name = $2, last_name = $3, updated_at = $4 WHERE id = $1")
            .bind(user_id)
            .bind(name)
            .bind(last_name)
            .bind(now)
            .execute(conn)
            .await?;
    Ok(r.rows_affected() > 0)
}

/// Sets (or clears) a user's avatar.
#[tracing::instrument(skip(conn), err)]
pub async fn set_avatar(
    conn: &mut AnyConnection,
    user_id: &str,
    avatar: Option<&str>,
    key: Option<&str>,
    now: &str,
) -> sqlx::Result<bool> {
    let r =
        sqlx::query("UPDATE users SET avatar = $2, avatar_key = $3, updated_at = $4 WHERE id = $1")
            .bind(user_id)
            .bind(avatar)
            .bind(key)
            .bind(now)
            .execute(conn)
            .await?;
    Ok(r.rows_affected() > 0)
}

/// The object of a user's avatar, if they have one.
#[tracing::instrument(skip(ex), err)]
pub async fn avatar_key<'e>(
    ex: impl AnyExecutor<'e>,
    user_id: &str,
) -> sqlx::Result<Option<String>> {
    let row: Option<(Option<String>,)> =
        sqlx::query_as("SELECT avatar_key FROM users WHERE id = $1")
            .bind(user_id)
            .fetch_optional(ex)
            .await?;
    Ok(row.and_then(|(k,)| k))
}

/// The keys among `keys` that a user's avatar names (the orphan sweeper).
#[tracing::instrument(skip(ex, keys), err)]
pub async fn referenced_avatar_keys<'e>(
    ex: impl AnyExecutor<'e>,
    keys: &[String],
) -> sqlx::Result<Vec<String>> {
    if keys.is_empty() {
        return Ok(Vec::new());
    }
    let marks: Vec<String> = (1..=keys.len()).map(|i| format!("${i}")).collect();
    let sql = format!(
        "SELECT avatar_key FROM users WHERE avatar_key IN ({})",
        marks.join(", ")
    );
    let mut query = sqlx::query_as::<_, (Option<String>,)>(sqlx::AssertSqlSafe(sql));
    for k in keys {
        query = query.bind(k.clone());
    }
    Ok(query
        .fetch_all(ex)
        .await?
        .into_iter()
        .filter_map(|(k,)| k)
        .collect())
}

/// A client's project settings.
#[derive(Debug, Clone, FromRow)]
pub struct ProjectRow {
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Description.
    pub description: String,
    /// When the client last changed.
    pub last_updated: String,
}

/// A client's project settings.
#[tracing::instrument(skip(ex), err)]
pub async fn project<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
) -> sqlx::Result<Option<ProjectRow>> {
    sqlx::query_as("SELECT id, name, description, last_updated FROM clients WHERE id = $1")
        .bind(client_id)
        .fetch_optional(ex)
        .await
}

/// Changes a client's name and description.
#[tracing::instrument(skip(conn), err)]
pub async fn set_project(
    conn: &mut AnyConnection,
    client_id: &str,
    name: &str,
    description: &str,
    now: &str,
) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "UPDATE clients SET name = $2, description = $3, last_updated = $4 WHERE id = $1",
    )
    .bind(client_id)
    .bind(name)
    .bind(description)
    .bind(now)
    .execute(conn)
    .await?;
    Ok(r.rows_affected() > 0)
}
