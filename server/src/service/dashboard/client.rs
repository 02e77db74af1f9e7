//! The client dashboard (spec 002, 'Capital Optimization Dashboard'): one client's savings now,
//! its monthly evolution from the savings history and every lever's savings with their change
//! against the end of the previous month and their impact.

use chrono::NaiveDate;
use serde::Serialize;

use super::months::{self, change_pct};
use super::{LeverSummary, lever_summaries, sum_breakdowns};
use crate::db::clients as clients_db;
use crate::db::dashboard as db;
use crate::error::{ApiError, ApiResult};
use crate::service::Scope;
use crate::state::AppState;

/// One month of the client's savings history.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct HistoryMonth {
    /// Year.
    #[ts(type = "number")]
    pub year: i64,
    /// Month, 1 to 12.
    #[ts(type = "number")]
    pub month: i64,
    /// `Jan 2026`.
    pub label: String,
    /// RWA savings at the end of the month.
    pub total_rwas: f64,
    /// The same in bps of CET1 ratio.
    pub total_bps: f64,
    /// Growth against the previous month, in percent.
    pub growth_pct: f64,
}

/// 'Capital Optimization Dashboard' of one client.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ClientDashboard {
    /// The client.
    pub client_id: String,
    /// Its name.
    pub client_name: String,
    /// RWA savings now.
    pub total_rwas: f64,
    /// Savings in bps of CET1 ratio now.
    pub total_bps: f64,
    /// When they were last computed.
    pub last_updated: String,
    /// RWA savings at the end of the previous month.
    pub previous_month_rwas: f64,
    /// Change against the end of the previous month, in percent; absent when that was 0.
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change_pct: Option<f64>,
    /// The savings history, oldest first.
    pub history: Vec<HistoryMonth>,
    /// Every lever with its savings now and at the end of the previous month, largest first.
    pub levers: Vec<LeverSummary>,
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// The client dashboard of the scope's client on `today`.
pub async fn dashboard_on(
    state: &AppState,
    scope: &Scope,
    today: NaiveDate,
) -> ApiResult<ClientDashboard> {
    let pool = &state.db.pool;
    let client_id = scope.client_id.to_string();
    let figures = db::client_figures(pool, &client_id)
        .await?
        .ok_or_else(|| ApiError::not_found("Client not found"))?;
    let rows = db::client_history(pool, &client_id).await?;
    let previous_month = months::of(today) - 1;
    let previous_row = rows
        .iter()
        .rev()
        .find(|r| months::index(r.year, r.month) <= previous_month);
    let now = rows
        .last()
        .map(|r| sum_breakdowns([r.lever_breakdown.as_str()]))
        .unwrap_or_default();
    let prev = previous_row
        .map(|r| sum_breakdowns([r.lever_breakdown.as_str()]))
        .unwrap_or_default();
    let previous_month_rwas = previous_row.map(|r| r.total_rwas).unwrap_or(0.0);
    let names = clients_db::levers(pool).await?;
    Ok(ClientDashboard {
        client_id,
        client_name: figures.name,
        total_rwas: figures.cet1_savings_rwas,
        total_bps: figures.cet1_savings_bps,
        last_updated: figures.last_updated,
        previous_month_rwas,
        change_pct: change_pct(figures.cet1_savings_rwas, previous_month_rwas),
        history: rows
            .iter()
            .map(|r| HistoryMonth {
                year: r.year,
                month: r.month,
                label: format!("{} {}", MONTHS[(r.month.clamp(1, 12) - 1) as usize], r.year),
                total_rwas: r.total_rwas,
                total_bps: r.total_bps,
                growth_pct: r.monthly_growth_rate,
            })
            .collect(),
        levers: lever_summaries(&names, &now, &prev),
    })
}

/// The client dashboard today.
pub async fn dashboard(state: &AppState, scope: &Scope) -> ApiResult<ClientDashboard> {
    dashboard_on(state, scope, chrono::Utc::now().date_naive()).await
}
