//! The dashboards' reads (admin dashboard, client dashboard): savings history summed by month
//! from each row's change (migration 0014), the clients' lever breakdowns as they stood at the
//! end of a month, the client performance rows and the processed files' savings by week.

use sqlx::{AnyExecutor, FromRow};

/// The summed changes of all clients' savings in one month.
#[derive(Debug, Clone, PartialEq, FromRow)]
pub struct MonthDelta {
    /// Year.
    pub year: i64,
    /// Month 1..=12.
    pub month: i64,
    /// Sum of the month's RWA changes.
    pub delta_rwas: f64,
    /// Sum of the month's bps changes.
    pub delta_bps: f64,
}

/// Every month with savings history, oldest first, with its clients' summed changes (a running
/// total of them is the savings of all clients at the end of each month).
#[tracing::instrument(skip(ex), err)]
pub async fn monthly_deltas<'e>(ex: impl AnyExecutor<'e>) -> sqlx::Result<Vec<MonthDelta>> {
    sqlx::query_as(
        "SELECT year, month, COALESCE(SUM(delta_rwas), 0.0) AS delta_rwas,
                COALESCE(SUM(delta_bps), 0.0) AS delta_bps
         FROM savings_history GROUP BY year, month ORDER BY year, month",
    )
    .fetch_all(ex)
    .await
}

/// The clients' current savings summed (RWAs, bps) and their number.
#[tracing::instrument(skip(ex), err)]
pub async fn current_totals<'e>(ex: impl AnyExecutor<'e>) -> sqlx::Result<(f64, f64, i64)> {
    sqlx::query_as(
        "SELECT COALESCE(SUM(cet1_savings_rwas), 0.0), COALESCE(SUM(cet1_savings_bps), 0.0),
                COUNT(*) FROM clients",
    )
    .fetch_one(ex)
    .await
}

/// The number of clients created before `before` (an RFC 3339 time).
#[tracing::instrument(skip(ex), err)]
pub async fn clients_created_before<'e>(
    ex: impl AnyExecutor<'e>,
    before: &str,
) -> sqlx::Result<i64> {
    let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM clients WHERE created_at < $1")
        .bind(before)
        .fetch_one(ex)
        .await?;
    Ok(n)
}

/// Each client's lever breakdown (JSON: lever id to RWAs) as it stood at the end of `year`-`month`
/// (its latest history row at or before that month; clients without one are left out).
#[tracing::instrument(skip(ex), err)]
pub async fn breakdowns_at<'e>(
    ex: impl AnyExecutor<'e>,
    year: i64,
    month: i64,
) -> sqlx::Result<Vec<String>> {
    let rows: Vec<(Option<String>,)> = sqlx::query_as(
        "SELECT (SELECT h.lever_breakdown FROM savings_history h WHERE h.client_id = c.id
                   AND (h.year < $1 OR (h.year = $1 AND h.month <= $2))
                 ORDER BY h.year DESC, h.month DESC LIMIT 1)
         FROM clients c",
    )
    .bind(year)
    .bind(month)
    .fetch_all(ex)
    .await?;
    Ok(rows.into_iter().filter_map(|r| r.0).collect())
}

/// One client's row of the Client Performance table.
#[derive(Debug, Clone, FromRow)]
pub struct PerformanceRow {
    /// Client id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Official CET1 capital.
    pub official_cet1_capital: Option<f64>,
    /// Official total RWAs.
    pub official_total_rwas: Option<f64>,
    /// Official CET1 ratio as entered (fraction).
    pub official_cet1_ratio: Option<f64>,
    /// Current RWA savings.
    pub cet1_savings_rwas: f64,
    /// Current savings in bps.
    pub cet1_savings_bps: f64,
    /// Members.
    pub member_count: i64,
    /// The latest lever breakdown (JSON), if the client has history.
    pub lever_breakdown: Option<String>,
}

/// The Client Performance rows by name, those whose name contains `search` (any case) when given.
#[tracing::instrument(skip(ex), err)]
pub async fn performance<'e>(
    ex: impl AnyExecutor<'e>,
    search: Option<&str>,
) -> sqlx::Result<Vec<PerformanceRow>> {
    let escaped = search
        .unwrap_or_default()
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_");
    let pattern = format!("%{escaped}%");
    sqlx::query_as(
        "SELECT c.id, c.name, c.official_cet1_capital, c.official_total_rwas, c.official_cet1_ratio,
                c.cet1_savings_rwas, c.cet1_savings_bps,
                (SELECT COUNT(*) FROM client_users u WHERE u.client_id = c.id) AS member_count,
                (SELECT h.lever_breakdown FROM savings_history h WHERE h.client_id = c.id
                 ORDER BY h.year DESC, h.month DESC LIMIT 1) AS lever_breakdown
         FROM clients c
         WHERE lower(c.name) LIKE lower($1) ESCAPE '\\'
         ORDER BY lower(c.name), c.id",
    )
    .bind(pattern)
    .fetch_all(ex)
    .await
}

/// The RWA savings of processed files uploaded in each of the windows `[bounds[i], bounds[i+1])`
/// (RFC 3339 times, four windows).
#[tracing::instrument(skip(ex), err)]
pub async fn file_savings_by_window<'e>(
    ex: impl AnyExecutor<'e>,
    bounds: &[String; 5],
) -> sqlx::Result<([f64; 4], i64)> {
    let row: (f64, f64, f64, f64, i64) = sqlx::query_as(
        "SELECT
           COALESCE(SUM(CASE WHEN uploaded_at < $2 THEN savings_rwas ELSE 0.0 END), 0.0),
           COALESCE(SUM(CASE WHEN uploaded_at >= $2 AND uploaded_at < $3 THEN savings_rwas ELSE 0.0 END), 0.0),
           COALESCE(SUM(CASE WHEN uploaded_at >= $3 AND uploaded_at < $4 THEN savings_rwas ELSE 0.0 END), 0.0),
           COALESCE(SUM(CASE WHEN uploaded_at >= $4 THEN savings_rwas ELSE 0.0 END), 0.0),
           COUNT(*)
         FROM client_files WHERE processed = 1 AND uploaded_at >= $1 AND uploaded_at < $5",
    )
    .bind(&bounds[0])
    .bind(&bounds[1])
    .bind(&bounds[2])
    .bind(&bounds[3])
    .bind(&bounds[4])
    .fetch_one(ex)
    .await?;
    Ok(([row.0, row.1, row.2, row.3], row.4))
}

/// A client's figures for its dashboard.
#[derive(Debug, Clone, FromRow)]
pub struct ClientFigures {
    /// Name.
    pub name: String,
    /// Current RWA savings.
    pub cet1_savings_rwas: f64,
    /// Current savings in bps.
    pub cet1_savings_bps: f64,
    /// When they were last computed.
    pub last_updated: String,
}

/// One client's figures; `None` when it does not exist.
#[tracing::instrument(skip(ex), err)]
pub async fn client_figures<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
) -> sqlx::Result<Option<ClientFigures>> {
    sqlx::query_as(
        "SELECT name, cet1_savings_rwas, cet1_savings_bps, last_updated FROM clients WHERE id = $1",
    )
    .bind(client_id)
    .fetch_optional(ex)
    .await
}

/// One client's savings history, oldest first.
#[tracing::instrument(skip(ex), err)]
pub async fn client_history<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
) -> sqlx::Result<Vec<super::clients::SavingsRow>> {
    sqlx::query_as(
        "SELECT client_id, year, month, total_rwas, total_bps, monthly_growth_rate, lever_breakdown
         FROM savings_history WHERE client_id = $1 ORDER BY year, month",
    )
    .bind(client_id)
    .fetch_all(ex)
    .await
}
