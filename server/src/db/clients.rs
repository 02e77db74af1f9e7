//! Clients, levers and savings history.

use sqlx::{AnyExecutor, FromRow};

/// A client (bank) row.
#[derive(Debug, Clone, FromRow)]
pub struct ClientRow {
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Description.
    pub description: String,
    /// Total RWA savings.
    pub cet1_savings_rwas: f64,
    /// Savings in basis points of CET1 ratio.
    pub cet1_savings_bps: f64,
    /// Official CET1 capital.
    pub official_cet1_capital: Option<f64>,
    /// Official total risk exposure amount.
    pub official_total_rwas: Option<f64>,
    /// Official CET1 ratio (fraction).
    pub official_cet1_ratio: Option<f64>,
    /// Last update.
    pub last_updated: String,
}

/// All clients by name.
pub async fn list<'e>(ex: impl AnyExecutor<'e>) -> sqlx::Result<Vec<ClientRow>> {
    sqlx::query_as(
        "SELECT id, name, description, cet1_savings_rwas, cet1_savings_bps, official_cet1_capital, official_total_rwas, official_cet1_ratio, last_updated
         FROM clients ORDER BY name",
    )
    .fetch_all(ex)
    .await
}

/// Fields of a new client.
#[derive(Debug)]
pub struct NewClient<'a> {
    /// Name.
    pub name: &'a str,
    /// Description.
    pub description: &'a str,
    /// From date (YYYY-MM-DD).
    pub from_date: Option<&'a str>,
    /// Creator.
    pub created_by: Option<&'a str>,
    /// Official CET1 capital.
    pub official_cet1_capital: Option<f64>,
    /// Official total RWAs.
    pub official_total_rwas: Option<f64>,
    /// Official CET1 ratio (fraction).
    pub official_cet1_ratio: Option<f64>,
}

/// Inserts a client and returns its id.
pub async fn insert<'e>(ex: impl AnyExecutor<'e>, c: &NewClient<'_>) -> sqlx::Result<String> {
    let id = super::new_id();
    let now = super::now();
    sqlx::query(
        "INSERT INTO clients (id, name, description, from_date, created_by, created_at, last_updated, official_cet1_capital, official_total_rwas, official_cet1_ratio)
         VALUES ($1, $2, $3, $4, $5, $6, $6, $7, $8, $9)",
    )
    .bind(&id)
    .bind(c.name)
    .bind(c.description)
    .bind(c.from_date)
    .bind(c.created_by)
    .bind(&now)
    .bind(c.official_cet1_capital)
    .bind(c.official_total_rwas)
    .bind(c.official_cet1_ratio)
    .execute(ex)
    .await?;
    Ok(id)
}

/// Sets a client's savings totals.
pub async fn set_savings<'e>(
    ex: impl AnyExecutor<'e>,
    id: &str,
    rwas: f64,
    bps: f64,
) -> sqlx::Result<()> {
    sqlx::query("UPDATE clients SET cet1_savings_rwas = $1, cet1_savings_bps = $2, last_updated = $3 WHERE id = $4")
        .bind(rwas)
        .bind(bps)
        .bind(super::now())
        .bind(id)
        .execute(ex)
        .await?;
    Ok(())
}

/// Whether a client exists.
pub async fn exists<'e>(ex: impl AnyExecutor<'e>, id: &str) -> sqlx::Result<Option<String>> {
    let row: Option<(String,)> = sqlx::query_as("SELECT name FROM clients WHERE id = $1")
        .bind(id)
        .fetch_optional(ex)
        .await?;
    Ok(row.map(|(n,)| n))
}

/// A lever row.
#[derive(Debug, Clone, FromRow)]
pub struct LeverRow {
    /// Id.
    pub id: String,
    /// Analysis code (`pse`, `rgla`, ...), when the lever maps to an analysis procedure.
    pub code: Option<String>,
    /// Name.
    pub lever_name: String,
    /// Description.
    pub description: String,
    /// Category: Assets, CET1 deductions, CRMT or Other.
    pub lever_category: String,
}

/// Inserts a lever.
pub async fn insert_lever<'e>(
    ex: impl AnyExecutor<'e>,
    code: Option<&str>,
    name: &str,
    description: &str,
    category: &str,
) -> sqlx::Result<String> {
    let id = super::new_id();
    let now = super::now();
    sqlx::query("INSERT INTO levers (id, code, lever_name, description, lever_category, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)")
        .bind(&id)
        .bind(code)
        .bind(name)
        .bind(description)
        .bind(category)
        .bind(&now)
        .execute(ex)
        .await?;
    Ok(id)
}

/// All levers by name.
pub async fn levers<'e>(ex: impl AnyExecutor<'e>) -> sqlx::Result<Vec<LeverRow>> {
    sqlx::query_as(
        "SELECT id, code, lever_name, description, lever_category FROM levers ORDER BY lever_name",
    )
    .fetch_all(ex)
    .await
}

/// One month of a client's savings.
#[derive(Debug, Clone, FromRow)]
pub struct SavingsRow {
    /// Client.
    pub client_id: String,
    /// Year.
    pub year: i64,
    /// Month 1..=12.
    pub month: i64,
    /// Total RWA savings at the end of the month.
    pub total_rwas: f64,
    /// The same in bps of CET1 ratio.
    pub total_bps: f64,
    /// Growth against the previous month, in percent.
    pub monthly_growth_rate: f64,
    /// JSON object: lever id to RWAs.
    pub lever_breakdown: String,
}

/// Inserts or replaces one month of savings, with its change against the client's previous
/// month on record (`delta_rwas`, `delta_bps`, migration 0014), and the change of the client's
/// next month on record, if there is one, against it.
pub async fn upsert_savings(conn: &mut sqlx::AnyConnection, r: &SavingsRow) -> sqlx::Result<()> {
    let now = super::now();
    sqlx::query(
        "INSERT INTO savings_history (id, client_id, year, month, total_rwas, total_bps, monthly_growth_rate, lever_breakdown, created_at, updated_at, delta_rwas, delta_bps)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9,
           $5 - COALESCE((SELECT p.total_rwas FROM savings_history p WHERE p.client_id = $2
               AND (p.year < $3 OR (p.year = $3 AND p.month < $4)) ORDER BY p.year DESC, p.month DESC LIMIT 1), 0),
           $6 - COALESCE((SELECT p.total_bps FROM savings_history p WHERE p.client_id = $2
               AND (p.year < $3 OR (p.year = $3 AND p.month < $4)) ORDER BY p.year DESC, p.month DESC LIMIT 1), 0))
         ON CONFLICT (client_id, year, month) DO UPDATE SET total_rwas = excluded.total_rwas, total_bps = excluded.total_bps,
           monthly_growth_rate = excluded.monthly_growth_rate, lever_breakdown = excluded.lever_breakdown, updated_at = excluded.updated_at,
           delta_rwas = excluded.delta_rwas, delta_bps = excluded.delta_bps",
    )
    .bind(super::new_id())
    .bind(&r.client_id)
    .bind(r.year)
    .bind(r.month)
    .bind(r.total_rwas)
    .bind(r.total_bps)
    .bind(r.monthly_growth_rate)
    .bind(&r.lever_breakdown)
    .bind(&now)
    .execute(&mut *conn)
    .await?;
    // The next month on record (none when this is the latest, as for the sync) now follows this one.
    sqlx::query(
        "UPDATE savings_history SET delta_rwas = total_rwas - $4, delta_bps = total_bps - $5
         WHERE id = (SELECT n.id FROM savings_history n WHERE n.client_id = $1
             AND (n.year > $2 OR (n.year = $2 AND n.month > $3)) ORDER BY n.year, n.month LIMIT 1)",
    )
    .bind(&r.client_id)
    .bind(r.year)
    .bind(r.month)
    .bind(r.total_rwas)
    .bind(r.total_bps)
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// The savings history of every client, oldest first.
pub async fn savings_history<'e>(ex: impl AnyExecutor<'e>) -> sqlx::Result<Vec<SavingsRow>> {
    sqlx::query_as(
        "SELECT client_id, year, month, total_rwas, total_bps, monthly_growth_rate, lever_breakdown FROM savings_history ORDER BY year, month",
    )
    .fetch_all(ex)
    .await
}

/// Distinct levers with processed savings in client files.
pub async fn file_lever_ids<'e>(ex: impl AnyExecutor<'e>) -> sqlx::Result<Vec<String>> {
    let rows: Vec<(String,)> = sqlx::query_as(
        "SELECT DISTINCT lever_id FROM client_files WHERE lever_id IS NOT NULL AND processed = 1 AND savings_rwas > 0",
    )
    .fetch_all(ex)
    .await?;
    Ok(rows.into_iter().map(|(i,)| i).collect())
}

/// Number of client files.
pub async fn file_count<'e>(ex: impl AnyExecutor<'e>) -> sqlx::Result<i64> {
    let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM client_files")
        .fetch_one(ex)
        .await?;
    Ok(n)
}
