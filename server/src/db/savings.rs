//! The reads behind a client's savings sync: the client's official figures, its files' savings
//! by lever, the previous month's total. The writes are `db::clients::set_savings` and
//! `db::clients::upsert_savings`.

use sqlx::{AnyExecutor, FromRow};

/// A client's official figures (for basis points).
#[derive(Debug, Clone, FromRow)]
pub struct Figures {
    /// CET1 capital.
    pub official_cet1_capital: Option<f64>,
    /// Total RWAs.
    pub official_total_rwas: Option<f64>,
}

/// A client's official figures; `None` when the client does not exist.
#[tracing::instrument(skip(ex), err)]
pub async fn figures<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
) -> sqlx::Result<Option<Figures>> {
    sqlx::query_as("SELECT official_cet1_capital, official_total_rwas FROM clients WHERE id = $1")
        .bind(client_id)
        .fetch_optional(ex)
        .await
}

/// The processed files' RWA savings of a client by lever (`None`: files without a lever).
#[tracing::instrument(skip(ex), err)]
pub async fn file_savings_by_lever<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
) -> sqlx::Result<Vec<(Option<String>, f64)>> {
    sqlx::query_as(
        "SELECT lever_id, COALESCE(SUM(savings_rwas), 0.0) FROM client_files
         WHERE client_id = $1 AND processed = 1
         GROUP BY lever_id ORDER BY lever_id",
    )
    .bind(client_id)
    .fetch_all(ex)
    .await
}

/// The total RWA savings of a client's month, if it has a row.
#[tracing::instrument(skip(ex), err)]
pub async fn month_total<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
    year: i64,
    month: i64,
) -> sqlx::Result<Option<f64>> {
    let row: Option<(f64,)> = sqlx::query_as(
        "SELECT total_rwas FROM savings_history WHERE client_id = $1 AND year = $2 AND month = $3",
    )
    .bind(client_id)
    .bind(year)
    .bind(month)
    .fetch_optional(ex)
    .await?;
    Ok(row.map(|r| r.0))
}

/// A client's stored totals and their time.
#[tracing::instrument(skip(ex), err)]
pub async fn client_totals<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
) -> sqlx::Result<Option<(f64, f64, String)>> {
    sqlx::query_as(
        "SELECT cet1_savings_rwas, cet1_savings_bps, last_updated FROM clients WHERE id = $1",
    )
    .bind(client_id)
    .fetch_optional(ex)
    .await
}

/// The RWA savings an administrator typed for a client (`None` when none was, or no client).
#[tracing::instrument(skip(ex), err)]
pub async fn manual_savings<'e>(
    ex: impl AnyExecutor<'e>,
    client_id: &str,
) -> sqlx::Result<Option<f64>> {
    let row: Option<(Option<f64>,)> =
        sqlx::query_as("SELECT manual_savings_rwas FROM clients WHERE id = $1")
            .bind(client_id)
            .fetch_optional(ex)
            .await?;
    Ok(row.and_then(|r| r.0))
}
