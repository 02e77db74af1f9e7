//! Saved calculator scenarios (`calculator_scenarios`, migration 0013) and the client figures the
//! calculator reads.

use sqlx::{AnyExecutor, FromRow};

/// A client's figures as the calculator reads them: the official CET1 capital and total RWAs,
/// and the savings of its processed files.
#[derive(Debug, Clone, FromRow)]
pub struct ClientFiguresRow {
    /// Name.
    pub name: String,
    /// Official CET1 capital.
    pub official_cet1_capital: Option<f64>,
    /// Official total RWAs.
    pub official_total_rwas: Option<f64>,
    /// The RWA savings of its processed files (the savings sync keeps it).
    pub cet1_savings_rwas: f64,
    /// The same in basis points of CET1 ratio.
    pub cet1_savings_bps: f64,
}

/// A client's figures; `None` when there is no such client.
#[tracing::instrument(skip(ex), err)]
pub async fn client_figures<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
) -> sqlx::Result<Option<ClientFiguresRow>> {
    sqlx::query_as(
        "SELECT name, official_cet1_capital, official_total_rwas, cet1_savings_rwas, cet1_savings_bps
         FROM clients WHERE id = $1",
    )
    .bind(client_id)
    .fetch_optional(ex)
    .await
}

/// A saved scenario.
#[derive(Debug, Clone, FromRow)]
pub struct ScenarioRow {
    /// Id.
    pub id: String,
    /// The client.
    pub client_id: String,
    /// Name, unique within the client.
    pub name: String,
    /// CET1 capital used.
    pub cet1_capital: f64,
    /// Total RWAs used.
    pub total_rwas: f64,
    /// `rwas`, `percent_of_rwas` or `bps`.
    pub optimisation_by: String,
    /// The optimisation in that unit.
    pub optimisation_value: f64,
    /// Yearly net interest margin, in percent.
    pub net_interest_margin_pct: f64,
    /// Variable fee, in percent.
    pub variable_fee_pct: f64,
    /// Projection years.
    pub projection_years: i64,
    /// `eur`, `usd` or `gbp`.
    pub currency: String,
    /// Who saved it.
    pub created_by: Option<String>,
    /// Their display name (empty when unknown).
    pub created_by_name: Option<String>,
    /// When.
    pub created_at: String,
}

const SELECT_SCENARIO: &str = "SELECT s.id, s.client_id, s.name, s.cet1_capital, s.total_rwas,
        s.optimisation_by, s.optimisation_value, s.net_interest_margin_pct, s.variable_fee_pct,
        s.projection_years, s.currency, s.created_by,
        TRIM(COALESCE(u.name, '') || ' ' || COALESCE(u.last_name, '')) AS created_by_name, s.created_at
    FROM calculator_scenarios s
    LEFT JOIN users u ON u.id = s.created_by";

/// The scenarios of a client, newest first.
#[tracing::instrument(skip(ex), err)]
pub async fn list<'e>(ex: impl AnyExecutor<'e>, client_id: &str) -> sqlx::Result<Vec<ScenarioRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{SELECT_SCENARIO} WHERE s.client_id = $1 ORDER BY s.created_at DESC, s.id"
    )))
    .bind(client_id)
    .fetch_all(ex)
    .await
}

/// One scenario.
#[tracing::instrument(skip(ex), err)]
pub async fn get<'e>(ex: impl AnyExecutor<'e>, id: &str) -> sqlx::Result<Option<ScenarioRow>> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "{SELECT_SCENARIO} WHERE s.id = $1"
    )))
    .bind(id)
    .fetch_optional(ex)
    .await
}

/// A scenario to store.
#[derive(Debug)]
pub struct NewScenario<'a> {
    /// Id.
    pub id: &'a str,
    /// The client.
    pub client_id: &'a str,
    /// Name.
    pub name: &'a str,
    /// CET1 capital.
    pub cet1_capital: f64,
    /// Total RWAs.
    pub total_rwas: f64,
    /// `rwas`, `percent_of_rwas` or `bps`.
    pub optimisation_by: &'a str,
    /// The optimisation in that unit.
    pub optimisation_value: f64,
    /// Net interest margin, percent.
    pub net_interest_margin_pct: f64,
    /// Variable fee, percent.
    pub variable_fee_pct: f64,
    /// Projection years.
    pub projection_years: i64,
    /// Currency.
    pub currency: &'a str,
    /// Who saves it.
    pub created_by: &'a str,
}

/// Stores a scenario (a second scenario of the same name for the client is a unique violation).
#[tracing::instrument(skip(ex), err)]
pub async fn insert<'e>(ex: impl AnyExecutor<'e>, s: &NewScenario<'_>) -> sqlx::Result<()> {
    sqlx::query(
        "INSERT INTO calculator_scenarios (id, client_id, name, cet1_capital, total_rwas, optimisation_by,
            optimisation_value, net_interest_margin_pct, variable_fee_pct, projection_years, currency,
            created_by, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
    )
    .bind(s.id)
    .bind(s.client_id)
    .bind(s.name)
    .bind(s.cet1_capital)
    .bind(s.total_rwas)
    .bind(s.optimisation_by)
    .bind(s.optimisation_value)
    .bind(s.net_interest_margin_pct)
    .bind(s.variable_fee_pct)
    .bind(s.projection_years)
    .bind(s.currency)
    .bind(s.created_by)
    .bind(super::now())
    .execute(ex)
    .await?;
    Ok(())
}

/// Deletes a scenario of a client; false when there was none.
#[tracing::instrument(skip(ex), err)]
pub async fn delete<'e>(ex: impl AnyExecutor<'e>, id: &str, client_id: &str) -> sqlx::Result<bool> {
    let done = sqlx::query("DELETE FROM calculator_scenarios WHERE id = $1 AND client_id = $2")
        .bind(id)
        .bind(client_id)
        .execute(ex)
        .await?;
    Ok(done.rows_affected() > 0)
}
