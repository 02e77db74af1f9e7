//! The client's own processing results as data sources of a report's charts and tables (a
//! chart's `source` `{"kind":"client","dataset":"<name>"}`): read again every time, so a chart
//! drawn from them is always current. Served to the readers of a report, for the report's client
//! only.
//!
//! | dataset | rows | from |
//! |---|---|---|
//! | `savings_by_lever` | every lever with its RWA savings now and at the end of the previous month | the client dashboard ([`crate::service::dashboard::client`]) |
//! | `savings_by_month` | each month of the savings history: RWA savings, bps, growth | the same |
//! | `run:{run_id}:{breakdown}` | a completed run's groups (`asset_class`, `rule`, `article`, `country`, `currency`, `maturity`, `cqs`, `status`): rows, exposure, RWAs before and after, saving | the figures kept with the run (`processing_runs.facts`) |
//!
//! Runs are each file's latest completed run that kept its figures.

use analysis::aggregate::GroupSummary;
use analysis::ingest::table::Cell;
use serde::Serialize;

use super::super::reports::load as load_report;
use super::super::{Actor, Scope};
use super::DataTable;
use crate::access::Need;
use crate::error::{ApiError, ApiResult};
use crate::service::dashboard::client as dashboard;
use crate::service::qa::facts::RunFacts;
use crate::state::AppState;

/// A data source the chart and table builders offer.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct DatasetInfo {
    /// The name a chart's source keeps (`savings_by_lever`, `run:{id}:asset_class`, ...).
    pub name: String,
    /// What the picker shows ('Savings by lever', 'exposures.csv: savings by asset class').
    pub label: String,
    /// The group it is listed under ('Savings', or the file's name).
    pub group: String,
    /// Its columns.
    pub columns: Vec<String>,
}

const LEVER_COLUMNS: [&str; 4] = [
    "Lever",
    "Category",
    "RWA savings",
    "Previous month RWA savings",
];
const MONTH_COLUMNS: [&str; 4] = ["Month", "RWA savings", "Savings (bps)", "Growth (%)"];
const GROUP_COLUMNS: [&str; 6] = [
    "Group",
    "Rows",
    "Exposure",
    "RWA before",
    "RWA after",
    "RWA saving",
];

/// A run's breakdowns: (name in the dataset, label).
const BREAKDOWNS: [(&str, &str); 8] = [
    ("asset_class", "savings by asset class"),
    ("rule", "savings by rule"),
    ("article", "savings by article"),
    ("country", "savings by country"),
    ("currency", "savings by currency"),
    ("maturity", "savings by maturity"),
    ("cqs", "savings by credit quality step"),
    ("status", "rows by match status"),
];

fn columns(names: &[&str]) -> Vec<String> {
    names.iter().map(|c| (*c).to_owned()).collect()
}

fn table(cols: &[&str], rows: Vec<Vec<Cell>>) -> DataTable {
    DataTable {
        columns: columns(cols),
        total_rows: rows.len() as u64,
        offset: 0,
        rows,
    }
}

fn text(s: &str) -> Cell {
    Cell::Text(s.to_owned())
}

fn groups<'f>(facts: &'f RunFacts, breakdown: &str) -> Option<&'f [GroupSummary]> {
    let a = &facts.aggregates;
    let groups: &[GroupSummary] = match breakdown {
        "asset_class" => &facts.by_asset_class,
        "rule" => &facts.by_rule,
        "article" => &a.by_article,
        "country" => &a.by_country,
        "currency" => &a.by_currency,
        "maturity" => &a.by_maturity_bucket,
        "cqs" => &a.by_cqs,
        "status" => &a.by_status,
        _ => return None,
    };
    Some(groups)
}

/// The rows of a run's breakdown: one per group, as the run's figures keep them.
pub fn group_rows(groups: &[GroupSummary]) -> Vec<Vec<Cell>> {
    groups
        .iter()
        .map(|g| {
            vec![
                text(if g.key.is_empty() { "(none)" } else { &g.key }),
                Cell::Number(g.rows as f64),
                Cell::Number(g.exposure_amount),
                Cell::Number(g.rwa_before),
                Cell::Number(g.rwa_after),
                Cell::Number(g.rwa_saving),
            ]
        })
        .collect()
}

/// Each file's latest completed run with kept figures: (run id, file name, figures).
async fn runs(state: &AppState, client_id: &str) -> ApiResult<Vec<(String, String, RunFacts)>> {
    let rows = crate::db::qa::completed_runs(&state.db.pool, client_id, None).await?;
    let mut seen = std::collections::HashSet::new();
    Ok(rows
        .into_iter()
        .filter(|r| seen.insert(r.file_id.clone()))
        .filter_map(|r| {
            let facts = serde_json::from_str::<RunFacts>(r.facts.as_deref()?).ok()?;
            Some((r.id, r.file_name, facts))
        })
        .collect())
}

/// The data sources of a report's client.
pub async fn list(state: &AppState, actor: &Actor, report_id: &str) -> ApiResult<Vec<DatasetInfo>> {
    let (report, _) = load_report(state, actor, report_id, Need::Read).await?;
    let mut out = vec![
        DatasetInfo {
            name: "savings_by_lever".into(),
            label: "Savings by lever".into(),
            group: "Savings".into(),
            columns: columns(&LEVER_COLUMNS),
        },
        DatasetInfo {
            name: "savings_by_month".into(),
            label: "Savings by month".into(),
            group: "Savings".into(),
            columns: columns(&MONTH_COLUMNS),
        },
    ];
    for (run_id, file_name, facts) in runs(state, &report.client_id).await? {
        for (breakdown, label) in BREAKDOWNS {
            if groups(&facts, breakdown).is_some_and(|g| !g.is_empty()) {
                out.push(DatasetInfo {
                    name: format!("run:{run_id}:{breakdown}"),
                    label: format!("{file_name}: {label}"),
                    group: file_name.clone(),
                    columns: columns(&GROUP_COLUMNS),
                });
            }
        }
    }
    Ok(out)
}

fn unknown_dataset() -> ApiError {
    ApiError::NotFound {
        code: "dataset_not_found",
        message: "Data source not found".into(),
    }
}

/// The current rows of one of the client's data sources.
pub async fn read(
    state: &AppState,
    actor: &Actor,
    report_id: &str,
    name: &str,
) -> ApiResult<DataTable> {
    let (report, scope) = load_report(state, actor, report_id, Need::Read).await?;
    read_for(state, &scope, &report.client_id, name).await
}

/// [`read`] for a client already checked (the export's resolver).
pub async fn read_for(
    state: &AppState,
    scope: &Scope,
    client_id: &str,
    name: &str,
) -> ApiResult<DataTable> {
    match name {
        "savings_by_lever" | "savings_by_month" => {
            let d = dashboard::dashboard(state, scope).await?;
            Ok(if name == "savings_by_lever" {
                table(
                    &LEVER_COLUMNS,
                    d.levers
                        .iter()
                        .map(|l| {
                            vec![
                                text(&l.name),
                                text(&l.category),
                                Cell::Number(l.value),
                                Cell::Number(l.previous_value),
                            ]
                        })
                        .collect(),
                )
            } else {
                table(
                    &MONTH_COLUMNS,
                    d.history
                        .iter()
                        .map(|m| {
                            vec![
                                text(&m.label),
                                Cell::Number(m.total_rwas),
                                Cell::Number(m.total_bps),
                                Cell::Number(m.growth_pct),
                            ]
                        })
                        .collect(),
                )
            })
        }
        _ => {
            let mut parts = name.splitn(3, ':');
            let (Some("run"), Some(run_id), Some(breakdown)) =
                (parts.next(), parts.next(), parts.next())
            else {
                return Err(unknown_dataset());
            };
            let (_, _, facts) = runs(state, client_id)
                .await?
                .into_iter()
                .find(|(id, _, _)| id == run_id)
                .ok_or_else(unknown_dataset)?;
            let groups = groups(&facts, breakdown).ok_or_else(unknown_dataset)?;
            Ok(table(&GROUP_COLUMNS, group_rows(groups)))
        }
    }
}
