//! The Clients page and the client data room: the administrators' list of clients with their
//! member counts and file sums, one client's overview (members, files, counts, activity), the
//! inline savings edit's hold, and client memberships as User Management changes them.

use sqlx::{AnyConnection, AnyExecutor, FromRow};

/// Which clients the Clients page's Filter menu keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientFilter {
    /// Every client.
    All,
    /// Clients the administrator created or belongs to.
    Mine,
    /// Clients another administrator created that include this administrator.
    Shared,
    /// Clients changed since the given time (the last 30 days).
    Recent,
}

/// A client as the Clients page lists it.
#[derive(Debug, Clone, FromRow)]
pub struct AdminClientRow {
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Description.
    pub description: String,
    /// From date (YYYY-MM-DD).
    pub from_date: Option<String>,
    /// Creator (an administrator), if still there.
    pub created_by: Option<String>,
    /// The creator's name and last name.
    pub created_by_name: Option<String>,
    /// Creation time.
    pub created_at: String,
    /// Last change of the client or its savings.
    pub last_updated: String,
    /// Total RWA savings.
    pub cet1_savings_rwas: f64,
    /// The same in basis points.
    pub cet1_savings_bps: f64,
    /// The figure an administrator typed, if any.
    pub manual_savings_rwas: Option<f64>,
    /// Official CET1 capital.
    pub official_cet1_capital: Option<f64>,
    /// Official total RWAs.
    pub official_total_rwas: Option<f64>,
    /// Official CET1 ratio (fraction).
    pub official_cet1_ratio: Option<f64>,
    /// Members.
    pub member_count: i64,
    /// The processed files' RWA savings.
    pub file_sum_rwas: f64,
    /// Files.
    pub file_count: i64,
}

const CLIENT_COLUMNS: &str = "c.id, c.name, c.description, c.from_date, c.created_by,
    CASE WHEN u.id IS NULL THEN NULL ELSE TRIM(u.name || ' ' || u.last_name) END AS created_by_name,
    c.created_at, c.last_updated, c.cet1_savings_rwas, c.cet1_savings_bps, c.manual_savings_rwas,
    c.official_cet1_capital, c.official_total_rwas, c.official_cet1_ratio,
    (SELECT COUNT(*) FROM client_users cu WHERE cu.client_id = c.id) AS member_count,
    (SELECT COALESCE(SUM(f.savings_rwas), 0.0) FROM client_files f WHERE f.client_id = c.id AND f.processed = 1) AS file_sum_rwas,
    (SELECT COUNT(*) FROM client_files f WHERE f.client_id = c.id) AS file_count
    FROM clients c LEFT JOIN users u ON u.id = c.created_by";

/// The clients matching a search (name or description, case-insensitive) and a filter, most
/// recently updated first. `admin_id` is the administrator asking; `since` the start of the
/// recent window.
#[tracing::instrument(skip(ex), err)]
pub async fn list<'e>(
    ex: impl AnyExecutor<'e>,
    admin_id: &str,
    filter: ClientFilter,
    search: &str,
    since: &str,
) -> sqlx::Result<Vec<AdminClientRow>> {
    let pattern = super::files::like_pattern(search.trim());
    let member =
        "EXISTS (SELECT 1 FROM client_users m WHERE m.client_id = c.id AND m.user_id = $2)";
    let (filter_sql, second) = match filter {
        ClientFilter::All => (String::new(), None),
        ClientFilter::Mine => (
            format!(" AND (c.created_by = $2 OR {member})"),
            Some(admin_id),
        ),
        ClientFilter::Shared => (
            format!(" AND c.created_by IS NOT NULL AND c.created_by <> $2 AND {member}"),
            Some(admin_id),
        ),
        ClientFilter::Recent => (" AND c.last_updated >= $2".to_string(), Some(since)),
    };
    let sql = format!(
        "SELECT {CLIENT_COLUMNS}
         WHERE (lower(c.name) LIKE lower($1) ESCAPE '\\' OR lower(c.description) LIKE lower($1) ESCAPE '\\'){filter_sql}
         ORDER BY c.last_updated DESC, c.id"
    );
    let q = sqlx::query_as(sqlx::AssertSqlSafe(sql)).bind(pattern);
    match second {
        Some(v) => q.bind(v).fetch_all(ex).await,
        None => q.fetch_all(ex).await,
    }
}

/// One client as the Clients page lists it.
#[tracing::instrument(skip(ex), err)]
pub async fn get<'e>(ex: impl AnyExecutor<'e>, id: &str) -> sqlx::Result<Option<AdminClientRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {CLIENT_COLUMNS} WHERE c.id = $1"
    )))
    .bind(id)
    .fetch_optional(ex)
    .await
}

/// Takes the client's inline-savings hold until `until` when nobody holds it (or the holder's
/// time ran out at `now`); `false` when another edit holds it.
#[tracing::instrument(skip(ex), err)]
pub async fn claim_savings_update<'e>(
    ex: impl AnyExecutor<'e>,
    id: &str,
    now: &str,
    until: &str,
) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "UPDATE clients SET savings_update_until = $2
         WHERE id = $1 AND (savings_update_until IS NULL OR savings_update_until < $3)",
    )
    .bind(id)
    .bind(until)
    .bind(now)
    .execute(ex)
    .await?;
    Ok(r.rows_affected() == 1)
}

/// Releases the hold taken at `until` (a hold taken again after it expired is someone else's).
#[tracing::instrument(skip(ex), err)]
pub async fn release_savings_update<'e>(
    ex: impl AnyExecutor<'e>,
    id: &str,
    until: &str,
) -> sqlx::Result<()> {
    sqlx::query(
        "UPDATE clients SET savings_update_until = NULL WHERE id = $1 AND savings_update_until = $2",
    )
    .bind(id)
    .bind(until)
    .execute(ex)
    .await?;
    Ok(())
}

/// Stores the RWA savings an administrator typed.
#[tracing::instrument(skip(ex), err)]
pub async fn set_manual_savings<'e>(
    ex: impl AnyExecutor<'e>,
    id: &str,
    rwas: Option<f64>,
) -> sqlx::Result<bool> {
    let r =
        sqlx::query("UPDATE clients SET manual_savings_rwas = $2, last_updated = $3 WHERE id = $1")
            .bind(id)
            .bind(rwas)
            .bind(super::now())
            .execute(ex)
            .await?;
    Ok(r.rows_affected() == 1)
}

/// A client's details and official figures as an administrator edits them.
#[derive(Debug, Clone)]
pub struct ClientDetails<'a> {
    /// Name.
    pub name: &'a str,
    /// Description.
    pub description: &'a str,
    /// From date (YYYY-MM-DD).
    pub from_date: Option<&'a str>,
    /// Official CET1 capital.
    pub official_cet1_capital: Option<f64>,
    /// Official total RWAs.
    pub official_total_rwas: Option<f64>,
    /// Official CET1 ratio (fraction).
    pub official_cet1_ratio: Option<f64>,
}

/// Writes a client's details and official figures.
#[tracing::instrument(skip(ex), err)]
pub async fn update_details<'e>(
    ex: impl AnyExecutor<'e>,
    id: &str,
    d: &ClientDetails<'_>,
) -> sqlx::Result<bool> {
    let r = sqlx::query(
        "UPDATE clients SET name = $2, description = $3, from_date = $4, official_cet1_capital = $5,
           official_total_rwas = $6, official_cet1_ratio = $7, last_updated = $8 WHERE id = $1",
    )
    .bind(id)
    .bind(d.name)
    .bind(d.description)
    .bind(d.from_date)
    .bind(d.official_cet1_capital)
    .bind(d.official_total_rwas)
    .bind(d.official_cet1_ratio)
    .bind(super::now())
    .execute(ex)
    .await?;
    Ok(r.rows_affected() == 1)
}

/// The ids of every administrator.
#[tracing::instrument(skip(ex), err)]
pub async fn admin_ids<'e>(ex: impl AnyExecutor<'e>) -> sqlx::Result<Vec<String>> {
    let rows: Vec<(String,)> =
        sqlx::query_as("SELECT id FROM users WHERE role = 'admin' ORDER BY created_at, id")
            .fetch_all(ex)
            .await?;
    Ok(rows.into_iter().map(|r| r.0).collect())
}

/// Adds every administrator to every client they are not a member of yet; returns how many
/// memberships were added.
#[tracing::instrument(skip(conn), err)]
pub async fn add_admins_everywhere(conn: &mut AnyConnection, added_by: &str) -> sqlx::Result<u64> {
    let r = sqlx::query(
        "INSERT INTO client_users (client_id, user_id, added_by, created_at)
         SELECT c.id, u.id, $1, $2 FROM clients c CROSS JOIN users u
         WHERE u.role = 'admin'
           AND NOT EXISTS (SELECT 1 FROM client_users x WHERE x.client_id = c.id AND x.user_id = u.id)",
    )
    .bind(added_by)
    .bind(super::now())
    .execute(&mut *conn)
    .await?;
    Ok(r.rows_affected())
}

/// A member of a client.
#[derive(Debug, Clone, FromRow)]
pub struct MemberRow {
    /// The user.
    pub user_id: String,
    /// First name.
    pub name: String,
    /// Last name.
    pub last_name: String,
    /// Email.
    pub email: String,
    /// Global role.
    pub role: String,
    /// Role within the client (`member`, `approver`, `admin`).
    pub client_role: String,
    /// When they joined.
    pub created_at: String,
}

/// A client's members, by name.
#[tracing::instrument(skip(ex), err)]
pub async fn members<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
) -> sqlx::Result<Vec<MemberRow>> {
    sqlx::query_as(
        "SELECT u.id AS user_id, u.name, u.last_name, u.email, u.role, cu.role AS client_role, cu.created_at
         FROM client_users cu JOIN users u ON u.id = cu.user_id
         WHERE cu.client_id = $1 ORDER BY lower(u.name), lower(u.last_name), u.id",
    )
    .bind(client_id)
    .fetch_all(ex)
    .await
}

/// Removes a user from a client; whether they were a member.
#[tracing::instrument(skip(ex), err)]
pub async fn remove_member<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
    user_id: &str,
) -> sqlx::Result<bool> {
    let r = sqlx::query("DELETE FROM client_users WHERE client_id = $1 AND user_id = $2")
        .bind(client_id)
        .bind(user_id)
        .execute(ex)
        .await?;
    Ok(r.rows_affected() > 0)
}

/// Counts of a client's rows the data room shows.
#[derive(Debug, Clone, Default, FromRow)]
pub struct ClientCounts {
    /// Files.
    pub files: i64,
    /// Processed files.
    pub processed_files: i64,
    /// Task board tasks.
    pub tasks: i64,
    /// Reports.
    pub reports: i64,
    /// Pending validations.
    pub pending_validations: i64,
}

/// The counts of one client.
#[tracing::instrument(skip(ex), err)]
pub async fn counts<'e>(ex: impl AnyExecutor<'e>, client_id: &str) -> sqlx::Result<ClientCounts> {
    sqlx::query_as(
        "SELECT
           (SELECT COUNT(*) FROM client_files WHERE client_id = $1) AS files,
           (SELECT COUNT(*) FROM client_files WHERE client_id = $1 AND processed = 1) AS processed_files,
           (SELECT COUNT(*) FROM kanban_tasks WHERE client_id = $1) AS tasks,
           (SELECT COUNT(*) FROM reports WHERE client_id = $1) AS reports,
           (SELECT COUNT(*) FROM file_validations WHERE client_id = $1 AND status = 'pending') AS pending_validations",
    )
    .bind(client_id)
    .fetch_one(ex)
    .await
}

/// A file of a client as the data room lists it.
#[derive(Debug, Clone, FromRow)]
pub struct RecentFileRow {
    /// Id.
    pub id: String,
    /// The user's file name.
    pub name: String,
    /// Upload time.
    pub uploaded_at: String,
    /// Lever name, if any.
    pub lever_name: Option<String>,
    /// Processed (0/1).
    pub processed: i64,
    /// Processing status.
    pub processing_status: String,
    /// RWA savings.
    pub savings_rwas: f64,
}

/// A client's latest files.
#[tracing::instrument(skip(ex), err)]
pub async fn recent_files<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
    limit: i64,
) -> sqlx::Result<Vec<RecentFileRow>> {
    sqlx::query_as(
        "SELECT f.id, f.name, f.uploaded_at, l.lever_name, f.processed, f.processing_status, f.savings_rwas
         FROM client_files f LEFT JOIN levers l ON l.id = f.lever_id
         WHERE f.client_id = $1 ORDER BY f.uploaded_at DESC, f.id LIMIT $2",
    )
    .bind(client_id)
    .bind(limit)
    .fetch_all(ex)
    .await
}

/// One month of a client's savings history.
#[derive(Debug, Clone, FromRow)]
pub struct HistoryRow {
    /// Year.
    pub year: i64,
    /// Month 1..=12.
    pub month: i64,
    /// RWA savings.
    pub total_rwas: f64,
    /// The same in bps.
    pub total_bps: f64,
    /// Growth against the previous month, percent.
    pub monthly_growth_rate: f64,
}

/// A client's savings history, oldest first.
#[tracing::instrument(skip(ex), err)]
pub async fn history<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
) -> sqlx::Result<Vec<HistoryRow>> {
    sqlx::query_as(
        "SELECT year, month, total_rwas, total_bps, monthly_growth_rate FROM savings_history
         WHERE client_id = $1 ORDER BY year, month",
    )
    .bind(client_id)
    .fetch_all(ex)
    .await
}

/// One audit record of a client's activity.
#[derive(Debug, Clone, FromRow)]
pub struct ActivityRow {
    /// When.
    pub created_at: String,
    /// What (`file_uploaded`, `client_savings_edited`, ...).
    pub event_type: String,
    /// On what kind of row.
    pub entity_type: String,
    /// JSON details.
    pub details: String,
    /// Who, when known.
    pub actor_name: Option<String>,
}

/// The latest audit records of a client: about the client itself, its files, runs, reports and
/// tasks.
#[tracing::instrument(skip(ex), err)]
pub async fn activity<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
    limit: i64,
) -> sqlx::Result<Vec<ActivityRow>> {
    sqlx::query_as(
        "SELECT a.created_at, a.event_type, a.entity_type, a.details,
           CASE WHEN u.id IS NULL THEN NULL ELSE TRIM(u.name || ' ' || u.last_name) END AS actor_name
         FROM audit_events a LEFT JOIN users u ON u.id = a.actor_id
         WHERE a.entity_id = $1
            OR a.entity_id IN (SELECT id FROM client_files WHERE client_id = $1)
            OR a.entity_id IN (SELECT id FROM processing_runs WHERE client_id = $1)
            OR a.entity_id IN (SELECT id FROM reports WHERE client_id = $1)
            OR a.entity_id IN (SELECT id FROM kanban_tasks WHERE client_id = $1)
         ORDER BY a.created_at DESC, a.id DESC LIMIT $2",
    )
    .bind(client_id)
    .bind(limit)
    .fetch_all(ex)
    .await
}
