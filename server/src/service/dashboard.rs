//! The admin dashboard's figures, computed from the stored savings and files.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;

use crate::db::clients;
use crate::error::ApiResult;
use crate::state::AppState;

/// The four metric cards of the admin dashboard.
#[derive(Debug, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct AdminDashboardMetrics {
    /// Capital optimised: total RWA savings over all clients (EUR).
    pub total_value: f64,
    /// The same total at the end of the previous month, from the savings history.
    pub previous_total: f64,
    /// Change against the previous month, in percent (0 without history).
    pub change_percentage: f64,
    /// Total savings in basis points of CET1 ratio over all clients.
    pub total_bps: f64,
    /// Distinct levers with savings.
    pub total_levers: i64,
    /// Number of clients.
    pub total_clients: i64,
    /// Number of client files.
    pub total_projects: i64,
}

/// The metric cards: current and previous totals, levers in use, clients and files.
pub async fn metrics(state: &AppState) -> ApiResult<AdminDashboardMetrics> {
    let pool = &state.db.pool;
    let all = clients::list(pool).await?;
    let history = clients::savings_history(pool).await?;
    let total_value: f64 = all.iter().map(|c| c.cet1_savings_rwas).sum();
    let total_bps: f64 = all.iter().map(|c| c.cet1_savings_bps).sum();

    // Per client, the months in order; the previous total is each client's second latest month.
    let mut per_client: BTreeMap<&str, Vec<&clients::SavingsRow>> = BTreeMap::new();
    for row in &history {
        per_client
            .entry(row.client_id.as_str())
            .or_default()
            .push(row);
    }
    let mut previous_total = 0.0;
    let mut levers: HashSet<String> = clients::file_lever_ids(pool).await?.into_iter().collect();
    for rows in per_client.values() {
        if rows.len() >= 2 {
            previous_total += rows[rows.len() - 2].total_rwas;
        }
        if let Some(latest) = rows.last()
            && let Ok(serde_json::Value::Object(map)) =
                serde_json::from_str::<serde_json::Value>(&latest.lever_breakdown)
        {
            levers.extend(
                map.into_iter()
                    .filter(|(_, v)| v.as_f64().is_some_and(|x| x > 0.0))
                    .map(|(k, _)| k),
            );
        }
    }
    let change_percentage = if previous_total > 0.0 {
        (total_value - previous_total) / previous_total * 100.0
    } else {
        0.0
    };
    Ok(AdminDashboardMetrics {
        total_value,
        previous_total,
        change_percentage,
        total_bps,
        total_levers: levers.len() as i64,
        total_clients: all.len() as i64,
        total_projects: clients::file_count(pool).await?,
    })
}
