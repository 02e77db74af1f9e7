//! User Management: the users an administrator lists (searched, filtered by role and paged by
//! the database), their client memberships, profile edits and deletion.

use sqlx::{AnyConnection, AnyExecutor, FromRow};

/// A user as User Management lists it.
#[derive(Debug, Clone, FromRow)]
pub struct AdminUserRow {
    /// Id.
    pub id: String,
    /// Email.
    pub email: String,
    /// First name.
    pub name: String,
    /// Last name.
    pub last_name: String,
    /// Stored role.
    pub role: String,
    /// Company.
    pub company: Option<String>,
    /// Avatar (a URL or data URL), if any.
    pub avatar: Option<String>,
    /// Creation time.
    pub created_at: String,
    /// Whether the user approves for at least one client (0/1).
    pub client_approver: i64,
}

/// What the list is filtered by: a search over name, last name, email and company, and a role.
#[derive(Debug, Clone, Default)]
pub struct UserFilter {
    /// Free text (empty: none).
    pub search: String,
    /// One of the four roles (none: all).
    pub role: Option<String>,
}

/// The `WHERE` clause of a filter and its binds (`$1`, `$2`).
fn where_clause(f: &UserFilter) -> (String, Vec<String>) {
    let mut binds = vec![super::files::like_pattern(f.search.trim())];
    let mut sql = String::from(
        " WHERE (lower(u.name) LIKE lower($1) ESCAPE '\\' OR lower(u.last_name) LIKE lower($1) ESCAPE '\\'
            OR lower(u.email) LIKE lower($1) ESCAPE '\\' OR lower(COALESCE(u.company, '')) LIKE lower($1) ESCAPE '\\'
            OR lower(TRIM(u.name || ' ' || u.last_name)) LIKE lower($1) ESCAPE '\\')",
    );
    if let Some(role) = &f.role {
        // Unknown stored roles count as user (spec 000 section 5).
        if role == "user" {
            sql.push_str(" AND u.role NOT IN ('admin', 'approver', 'viewer')");
        } else {
            binds.push(role.clone());
            sql.push_str(" AND u.role = $2");
        }
    }
    (sql, binds)
}

const USER_COLUMNS: &str = "u.id, u.email, u.name, u.last_name, u.role, u.company, u.avatar, u.created_at,
    CASE WHEN EXISTS (SELECT 1 FROM client_users a WHERE a.user_id = u.id AND a.role IN ('approver', 'admin'))
      THEN 1 ELSE 0 END AS client_approver
    FROM users u";

/// One page of the users matching `f`, by name (`offset` rows skipped, at most `limit`), and the
/// number matching over all pages.
#[tracing::instrument(skip(conn), err)]
pub async fn page(
    conn: &mut AnyConnection,
    f: &UserFilter,
    offset: i64,
    limit: i64,
) -> sqlx::Result<(Vec<AdminUserRow>, i64)> {
    let (clause, binds) = where_clause(f);
    let n = binds.len();
    let sql = format!(
        "SELECT {USER_COLUMNS}{clause} ORDER BY lower(u.name), lower(u.last_name), u.email, u.id LIMIT ${} OFFSET ${}",
        n + 1,
        n + 2
    );
    let mut q = sqlx::query_as::<_, AdminUserRow>(sqlx::AssertSqlSafe(sql));
    for b in &binds {
        q = q.bind(b.clone());
    }
    let rows = q.bind(limit).bind(offset).fetch_all(&mut *conn).await?;
    let count_sql = format!("SELECT COUNT(*) FROM users u{clause}");
    let mut c = sqlx::query_as::<_, (i64,)>(sqlx::AssertSqlSafe(count_sql));
    for b in &binds {
        c = c.bind(b.clone());
    }
    let (total,) = c.fetch_one(&mut *conn).await?;
    Ok((rows, total))
}

/// Every user matching `f`, by name (the CSV export: the same query as the list, unpaged).
#[tracing::instrument(skip(ex), err)]
pub async fn all<'e>(ex: impl AnyExecutor<'e>, f: &UserFilter) -> sqlx::Result<Vec<AdminUserRow>> {
    let (clause, binds) = where_clause(f);
    let sql = format!(
        "SELECT {USER_COLUMNS}{clause} ORDER BY lower(u.name), lower(u.last_name), u.email, u.id"
    );
    let mut q = sqlx::query_as::<_, AdminUserRow>(sqlx::AssertSqlSafe(sql));
    for b in binds {
        q = q.bind(b);
    }
    q.fetch_all(ex).await
}

/// One user as the list shows them.
#[tracing::instrument(skip(ex), err)]
pub async fn get<'e>(ex: impl AnyExecutor<'e>, id: &str) -> sqlx::Result<Option<AdminUserRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {USER_COLUMNS} WHERE u.id = $1"
    )))
    .bind(id)
    .fetch_optional(ex)
    .await
}

/// A membership of a listed user.
#[derive(Debug, Clone, FromRow)]
pub struct UserClientRow {
    /// The user.
    pub user_id: String,
    /// The client.
    pub client_id: String,
    /// Its name.
    pub client_name: String,
    /// The role within it.
    pub role: String,
}

/// The memberships of the given users, by client name.
#[tracing::instrument(skip(conn, user_ids), err)]
pub async fn memberships_of(
    conn: &mut AnyConnection,
    user_ids: &[String],
) -> sqlx::Result<Vec<UserClientRow>> {
    let mut out = Vec::new();
    // In chunks, so the number of binds stays small on both databases.
    for chunk in user_ids.chunks(50) {
        let placeholders: Vec<String> = (1..=chunk.len()).map(|i| format!("${i}")).collect();
        let sql = format!(
            "SELECT cu.user_id, cu.client_id, c.name AS client_name, cu.role
             FROM client_users cu JOIN clients c ON c.id = cu.client_id
             WHERE cu.user_id IN ({}) ORDER BY c.name, c.id",
            placeholders.join(", ")
        );
        let mut q = sqlx::query_as::<_, UserClientRow>(sqlx::AssertSqlSafe(sql));
        for id in chunk {
            q = q.bind(id.clone());
        }
        out.extend(q.fetch_all(&mut *conn).await?);
    }
    Ok(out)
}

/// A profile as an administrator edits it.
#[derive(Debug, Clone)]
pub struct ProfileEdit<'a> {
    /// First name.
    pub name: &'a str,
    /// Last name.
    pub last_name: &'a str,
    /// Email (lower-cased).
    pub email: &'a str,
    /// Company.
    pub company: Option<&'a str>,
    /// Role.
    pub role: &'a str,
}

/// Writes a user's profile.
#[tracing::instrument(skip(ex), err)]
pub async fn update_profile<'e>(
    ex: impl AnyExecutor<'e>,
    id: &str,
    p: &ProfileEdit<'_>,
) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "UPDATE users SET name = $2, last_name = $3, email = $4, company = $5, role = $6, updated_at = $7 WHERE id = $1",
    )
    .bind(id)
    .bind(p.name)
    .bind(p.last_name)
    .bind(p.email)
    .bind(p.company)
    .bind(p.role)
    .bind(super::now())
    .execute(ex)
    .await?;
    Ok(r.rows_affected() == 1)
}

/// Deletes a user: their sessions, refresh tokens, resets and memberships go with them (foreign
/// keys); rows they created keep a `NULL` author; the audit trail keeps their id.
#[tracing::instrument(skip(ex), err)]
pub async fn delete<'e>(ex: impl AnyExecutor<'e>, id: &str) -> sqlx::Result<bool> {
    let r = sqlx::query("DELETE FROM users WHERE id = $1")
        .bind(id)
        .execute(ex)
        .await?;
    Ok(r.rows_affected() == 1)
}

/// The emails of the users matching `f` (Email All).
#[tracing::instrument(skip(ex), err)]
pub async fn emails<'e>(ex: impl AnyExecutor<'e>, f: &UserFilter) -> sqlx::Result<Vec<String>> {
    Ok(all(ex, f).await?.into_iter().map(|u| u.email).collect())
}
