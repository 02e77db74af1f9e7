//! The savings sync (spec 000 section 4): a client's totals and the current month's
//! `savings_history` row recomputed from its files, in the transaction of the change that moved
//! them (a run's completion, a file's deletion). Basis points go through the one bps function,
//! `analysis::savings::bps_exact`, with the client's official figures (none without them).

use chrono::Datelike;
use serde::Serialize;
use sqlx::AnyConnection;

use crate::db::clients::{self as clients_db, SavingsRow};
use crate::db::savings as db;
use crate::error::{ApiError, ApiResult};
use crate::ids::ClientId;
use crate::realtime::{Event, Topic};
use crate::service::Change;

/// A client's savings after a sync: the payload of `savings.changed`.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SavingsChanged {
    /// The client.
    pub client_id: ClientId,
    /// Its total RWA savings.
    pub cet1_savings_rwas: f64,
    /// The same in basis points of CET1 ratio.
    pub cet1_savings_bps: f64,
    /// When they were computed.
    pub last_updated: String,
}

/// Basis points of CET1 ratio of an RWA reduction with a client's figures, through the one bps
/// function; 0 without figures (or with figures the function refuses, logged).
pub fn bps(figures: &db::Figures, rwas: f64) -> f64 {
    let (Some(cet1_capital), Some(total_rwas)) =
        (figures.official_cet1_capital, figures.official_total_rwas)
    else {
        return 0.0;
    };
    if rwas <= 0.0 {
        return 0.0;
    }
    let f = analysis::savings::BankFigures {
        total_rwas,
        cet1_capital,
        reported_ratio: None,
    };
    match analysis::savings::bps_exact(&f, rwas) {
        Ok(b) => b,
        Err(e) => {
            tracing::warn!(error = %e, "no basis points for these figures");
            0.0
        }
    }
}

/// A client's official figures (for [`bps`]).
pub async fn figures(conn: &mut AnyConnection, client_id: &str) -> ApiResult<db::Figures> {
    db::figures(conn, client_id)
        .await?
        .ok_or_else(|| ApiError::not_found("Client not found"))
}

/// Recomputes a client's savings from its processed files (when their sum is above 0; else the
/// administrator's typed figure, `clients.manual_savings_rwas`, or 0), in the caller's transaction: the
/// totals (`cet1_savings_rwas`, `cet1_savings_bps` through [`bps`], `last_updated`) and the
/// current month's `savings_history` row (total, bps, lever breakdown of lever id to RWAs,
/// growth in percent against the previous month's total, 0 when that is absent or 0). Running
/// it twice gives the same rows. The caller announces the result (`savings.changed`) after its
/// commit, as [`resync_and_announce`] does.
pub async fn resync_client(conn: &mut AnyConnection, client_id: &str) -> ApiResult<SavingsChanged> {
    let fig = figures(conn, client_id).await?;
    let by_lever = db::file_savings_by_lever(&mut *conn, client_id).await?;
    let files_total: f64 = by_lever.iter().map(|(_, v)| *v).sum();
    // The files' sum when there is one (the automatic sync rule of spec 000 section 4), else the
    // figure an administrator typed (the Clients page), else 0.
    let total = if files_total > 0.0 {
        files_total
    } else {
        db::manual_savings(&mut *conn, client_id)
            .await?
            .unwrap_or(0.0)
    };
    let total_bps = bps(&fig, total);
    let mut breakdown = serde_json::Map::new();
    for (lever, rwas) in &by_lever {
        if let Some(lever) = lever
            && *rwas != 0.0
        {
            breakdown.insert(lever.clone(), serde_json::json!(rwas));
        }
    }
    clients_db::set_savings(&mut *conn, client_id, total, total_bps).await?;
    let today = chrono::Utc::now().date_naive();
    let (year, month) = (today.year() as i64, today.month() as i64);
    let (py, pm) = if month == 1 {
        (year - 1, 12)
    } else {
        (year, month - 1)
    };
    let previous = db::month_total(&mut *conn, client_id, py, pm).await?;
    let growth = match previous {
        Some(p) if p != 0.0 => (total - p) / p * 100.0,
        _ => 0.0,
    };
    clients_db::upsert_savings(
        &mut *conn,
        &SavingsRow {
            client_id: client_id.to_string(),
            year,
            month,
            total_rwas: total,
            total_bps,
            monthly_growth_rate: growth,
            lever_breakdown: serde_json::Value::Object(breakdown).to_string(),
        },
    )
    .await?;
    let (rwas, bps, last_updated) = db::client_totals(&mut *conn, client_id)
        .await?
        .ok_or_else(|| ApiError::not_found("Client not found"))?;
    Ok(SavingsChanged {
        client_id: client_id.into(),
        cet1_savings_rwas: rwas,
        cet1_savings_bps: bps,
        last_updated,
    })
}

/// [`resync_client`] in a change, with `savings.changed` announced after its commit on the
/// client's savings topic and the admin dashboard's.
pub async fn resync_and_announce(
    change: &mut Change<'_>,
    client_id: &str,
) -> ApiResult<SavingsChanged> {
    let changed = resync_client(change.conn(), client_id).await?;
    change
        .also(
            Topic::Client {
                client_id: client_id.to_string(),
                area: "savings",
            },
            Event::SavingsChanged(changed.clone()),
        )
        .await?;
    change
        .also(
            Topic::Admin { area: "dashboard" },
            Event::SavingsChanged(changed.clone()),
        )
        .await?;
    Ok(changed)
}
