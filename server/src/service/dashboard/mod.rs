//! The dashboards (spec 000 section 2.5, the admin dashboard; spec 002, the client dashboard),
//! computed from the stored savings: the clients' current totals, their monthly savings history
//! (a running total of the months' summed changes, migration 0014) and its lever breakdowns, and
//! the processed files' savings for the weekly view. Nothing here is estimated: a previous value
//! is what the history says the savings were, and a change is left out when there is nothing to
//! compare with. Figures move live: every savings sync announces `savings.changed` on
//! `admin:dashboard` and on the client's savings topic ([`crate::service::savings`]).

pub mod client;
pub mod export;
pub mod months;

use std::collections::{BTreeMap, HashMap, HashSet};

use chrono::{Datelike, NaiveDate};
use serde::{Deserialize, Serialize};

use crate::db::clients::{self as clients_db, LeverRow};
use crate::db::dashboard as db;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
pub use months::{OverviewWindow, Period};
use months::{Stocks, change_pct};

/// Above this a lever's savings have a high impact (EUR of RWAs).
pub const HIGH_IMPACT_RWAS: f64 = 30_000_000.0;
/// Above this (and up to [`HIGH_IMPACT_RWAS`]) a lever's impact is medium.
pub const MEDIUM_IMPACT_RWAS: f64 = 15_000_000.0;

/// A metric card's figure, the previous period's and the change between them.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Metric {
    /// The figure for the period.
    pub value: f64,
    /// The same figure for the previous period.
    pub previous: f64,
    /// Change against the previous period in percent; absent when the previous value is 0.
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change_pct: Option<f64>,
}

impl Metric {
    fn new(value: f64, previous: f64) -> Metric {
        Metric {
            value,
            previous,
            change_pct: change_pct(value, previous),
        }
    }
}

/// The four metric cards of the admin dashboard for a period.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct DashboardMetrics {
    /// The period.
    pub period: Period,
    /// The last day before the period (the end of the month the figures are measured from).
    pub since: String,
    /// Capital optimised: RWA savings over all clients (All Time: now, against the end of last
    /// month; a period: gained in it, against the previous period's gain).
    pub capital: Metric,
    /// The same in basis points of CET1 ratio (summed over clients).
    pub bps: Metric,
    /// Levers with savings at the end of the period, against its start.
    pub levers: Metric,
    /// Clients at the end of the period, against its start.
    pub clients: Metric,
}

/// The savings of all clients now (from the clients' totals) and the month-end history.
struct Snapshot {
    now_rwas: f64,
    now_bps: f64,
    clients: i64,
    stocks: Stocks,
}

async fn snapshot(state: &AppState) -> ApiResult<Snapshot> {
    let pool = &state.db.pool;
    let (now_rwas, now_bps, clients) = db::current_totals(pool).await?;
    let stocks = Stocks::new(&db::monthly_deltas(pool).await?);
    Ok(Snapshot {
        now_rwas,
        now_bps,
        clients,
        stocks,
    })
}

/// Adds up lever breakdowns (JSON objects of lever id to RWAs); what is not a number is skipped.
pub fn sum_breakdowns<'a>(breakdowns: impl IntoIterator<Item = &'a str>) -> HashMap<String, f64> {
    let mut out: HashMap<String, f64> = HashMap::new();
    for b in breakdowns {
        if let Ok(serde_json::Value::Object(map)) = serde_json::from_str::<serde_json::Value>(b) {
            for (k, v) in map {
                if let Some(x) = v.as_f64().filter(|x| x.is_finite()) {
                    *out.entry(k).or_default() += x;
                }
            }
        }
    }
    out
}

fn levers_in_use(values: &HashMap<String, f64>) -> f64 {
    values.values().filter(|v| **v > 0.0).count() as f64
}

/// The metric cards for `period` on `today`.
pub async fn metrics_on(
    state: &AppState,
    period: Period,
    today: NaiveDate,
) -> ApiResult<DashboardMetrics> {
    let pool = &state.db.pool;
    let s = snapshot(state).await?;
    let b = period.bounds(today);
    let (base_rwas, base_bps) = s.stocks.at(b.baseline);
    let (capital, bps) = match b.previous_baseline {
        None => (
            Metric::new(s.now_rwas, base_rwas),
            Metric::new(s.now_bps, base_bps),
        ),
        Some(p) => {
            let (prev_rwas, prev_bps) = s.stocks.at(p);
            (
                Metric::new(s.now_rwas - base_rwas, base_rwas - prev_rwas),
                Metric::new(s.now_bps - base_bps, base_bps - prev_bps),
            )
        }
    };
    let cur = months::of(today);
    let (by, bm) = months::year_month(b.baseline);
    let (cy, cm) = months::year_month(cur);
    let now_levers = sum_breakdowns(
        db::breakdowns_at(pool, cy, cm)
            .await?
            .iter()
            .map(|s| s.as_str()),
    );
    let base_levers = sum_breakdowns(
        db::breakdowns_at(pool, by, bm)
            .await?
            .iter()
            .map(|s| s.as_str()),
    );
    let base_clients = db::clients_created_before(pool, &months::start_ts(b.baseline + 1)).await?;
    Ok(DashboardMetrics {
        period,
        since: months::last_day(b.baseline).to_string(),
        capital,
        bps,
        levers: Metric::new(levers_in_use(&now_levers), levers_in_use(&base_levers)),
        clients: Metric::new(s.clients as f64, base_clients as f64),
    })
}

/// The metric cards for `period` today.
pub async fn metrics(state: &AppState, period: Period) -> ApiResult<DashboardMetrics> {
    metrics_on(state, period, chrono::Utc::now().date_naive()).await
}

/// The evolution chart's views.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS,
)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum EvolutionView {
    /// The selected year and the two before it, one point a year.
    Yearly,
    /// The selected year's months, January to December (up to the current month).
    #[default]
    Monthly,
    /// The last four weeks, weeks starting on Monday, from the processed files uploaded in each.
    Weekly,
}

impl EvolutionView {
    fn as_str(self) -> &'static str {
        match self {
            EvolutionView::Yearly => "yearly",
            EvolutionView::Monthly => "monthly",
            EvolutionView::Weekly => "weekly",
        }
    }
}

/// One point of the evolution chart.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct EvolutionPoint {
    /// `2026`, `Jan` or the week's Monday (`Nov 3`).
    pub label: String,
    /// Cumulative mode: the savings at the end of the point (weekly: the running total of the
    /// four weeks' file savings).
    pub cumulative: f64,
    /// Comparative mode: the savings gained in the point.
    pub change: f64,
}

/// 'Capital Optimization Evolution'.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Evolution {
    /// The view.
    pub view: EvolutionView,
    /// The selected year.
    pub year: i32,
    /// The years the selector offers: the current year and the two before it, latest first.
    pub years: Vec<i32>,
    /// The points, oldest first.
    pub points: Vec<EvolutionPoint>,
    /// Whether there is any data to show (else the chart says 'No {view} data available for
    /// {year}').
    pub has_data: bool,
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// The evolution chart for a view and a year on `today`.
pub async fn evolution_on(
    state: &AppState,
    view: EvolutionView,
    year: Option<i32>,
    today: NaiveDate,
) -> ApiResult<Evolution> {
    let this_year = today.year();
    let years = vec![this_year, this_year - 1, this_year - 2];
    let year = year.unwrap_or(this_year);
    if !(1900..=9999).contains(&year) {
        return Err(ApiError::validation("Year must be between 1900 and 9999"));
    }
    let cur = months::of(today);
    let mut points = Vec::new();
    let has_data = match view {
        EvolutionView::Monthly | EvolutionView::Yearly => {
            let stocks = Stocks::new(&db::monthly_deltas(&state.db.pool).await?);
            if view == EvolutionView::Monthly {
                for m in 1..=12 {
                    let i = months::index(year as i64, m);
                    if i > cur {
                        break;
                    }
                    let (now, _) = stocks.at(i);
                    let (before, _) = stocks.at(i - 1);
                    points.push(EvolutionPoint {
                        label: MONTHS[(m - 1) as usize].into(),
                        cumulative: now,
                        change: now - before,
                    });
                }
                stocks.has_rows(
                    months::index(year as i64, 1),
                    months::index(year as i64, 12),
                )
            } else {
                for y in (year - 2)..=year {
                    let end = months::index(y as i64, 12).min(cur);
                    if end < months::index(y as i64, 1) {
                        break;
                    }
                    let (now, _) = stocks.at(end);
                    let (before, _) = stocks.at(months::index(y as i64 - 1, 12));
                    points.push(EvolutionPoint {
                        label: y.to_string(),
                        cumulative: now,
                        change: now - before,
                    });
                }
                stocks.has_rows(
                    months::index(year as i64 - 2, 1),
                    months::index(year as i64, 12),
                )
            }
        }
        EvolutionView::Weekly => {
            let monday = today - chrono::Days::new(today.weekday().num_days_from_monday() as u64);
            let starts: Vec<NaiveDate> = (0..4u64)
                .rev()
                .map(|k| monday - chrono::Days::new(7 * k))
                .collect();
            let ts = |d: NaiveDate| format!("{}T00:00:00.000000Z", d.format("%Y-%m-%d"));
            let bounds = [
                ts(starts[0]),
                ts(starts[1]),
                ts(starts[2]),
                ts(starts[3]),
                ts(monday + chrono::Days::new(7)),
            ];
            let (sums, files) = db::file_savings_by_window(&state.db.pool, &bounds).await?;
            let mut running = 0.0;
            for (k, start) in starts.iter().enumerate() {
                running += sums[k];
                points.push(EvolutionPoint {
                    label: start.format("%b %-d").to_string(),
                    cumulative: running,
                    change: sums[k],
                });
            }
            files > 0
        }
    };
    Ok(Evolution {
        view,
        year,
        years,
        points,
        has_data,
    })
}

/// The evolution chart today.
pub async fn evolution(
    state: &AppState,
    view: EvolutionView,
    year: Option<i32>,
) -> ApiResult<Evolution> {
    evolution_on(state, view, year, chrono::Utc::now().date_naive()).await
}

/// 'No {view} data available for {year}'.
pub fn no_data_text(view: EvolutionView, year: i32) -> String {
    format!("No {} data available for {year}", view.as_str())
}

/// A category of the donut 'Optimization by Category'.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct CategorySlice {
    /// Assets, CET1 deductions, CRMT or Other.
    pub name: String,
    /// Its levers' savings (EUR of RWAs).
    pub total_value: f64,
    /// Its share of the categories' total, in percent.
    pub percentage: f64,
}

/// A lever's savings.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct LeverValue {
    /// Lever id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Category.
    pub category: String,
    /// Savings (EUR of RWAs).
    pub value: f64,
}

/// The overview's charts: savings by category and by lever gained in a window.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct OverviewBreakdown {
    /// The window.
    pub window: OverviewWindow,
    /// The month end the gains are measured from (absent for all time).
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// Categories with savings gained, largest first.
    pub categories: Vec<CategorySlice>,
    /// Levers whose savings moved, largest first.
    pub levers: Vec<LeverValue>,
}

/// Names and categories of lever ids; a lever no longer in the dictionary keeps its savings
/// under 'Removed lever' in Other.
struct LeverNames(HashMap<String, LeverRow>);

impl LeverNames {
    async fn load(state: &AppState) -> ApiResult<LeverNames> {
        Ok(LeverNames(
            clients_db::levers(&state.db.pool)
                .await?
                .into_iter()
                .map(|l| (l.id.clone(), l))
                .collect(),
        ))
    }
    fn value(&self, id: &str, value: f64) -> LeverValue {
        match self.0.get(id) {
            Some(l) => LeverValue {
                id: id.into(),
                name: l.lever_name.clone(),
                category: l.lever_category.clone(),
                value,
            },
            None => LeverValue {
                id: id.into(),
                name: "Removed lever".into(),
                category: "Other".into(),
                value,
            },
        }
    }
}

fn by_value_desc(levers: &mut [LeverValue]) {
    levers.sort_by(|a, b| {
        b.value
            .total_cmp(&a.value)
            .then_with(|| a.name.cmp(&b.name))
    });
}

/// Categories from lever values: positive totals only, with their shares.
pub fn categories(levers: &[LeverValue]) -> Vec<CategorySlice> {
    let mut sums: BTreeMap<&str, f64> = BTreeMap::new();
    for l in levers {
        *sums.entry(l.category.as_str()).or_default() += l.value;
    }
    let total: f64 = sums.values().filter(|v| **v > 0.0).sum();
    let mut out: Vec<CategorySlice> = sums
        .into_iter()
        .filter(|(_, v)| *v > 0.0)
        .map(|(name, v)| CategorySlice {
            name: name.into(),
            total_value: v,
            percentage: v / total * 100.0,
        })
        .collect();
    out.sort_by(|a, b| b.total_value.total_cmp(&a.total_value));
    out
}

/// The overview's charts for a window on `today`.
pub async fn breakdown_on(
    state: &AppState,
    window: OverviewWindow,
    today: NaiveDate,
) -> ApiResult<OverviewBreakdown> {
    let pool = &state.db.pool;
    let (cy, cm) = months::year_month(months::of(today));
    let now = sum_breakdowns(
        db::breakdowns_at(pool, cy, cm)
            .await?
            .iter()
            .map(|s| s.as_str()),
    );
    let baseline = window.baseline(today);
    let before = match baseline {
        Some(b) => {
            let (y, m) = months::year_month(b);
            sum_breakdowns(
                db::breakdowns_at(pool, y, m)
                    .await?
                    .iter()
                    .map(|s| s.as_str()),
            )
        }
        None => HashMap::new(),
    };
    let names = LeverNames::load(state).await?;
    let ids: HashSet<&String> = now.keys().chain(before.keys()).collect();
    let mut levers: Vec<LeverValue> = ids
        .into_iter()
        .map(|id| {
            let v = now.get(id).copied().unwrap_or(0.0) - before.get(id).copied().unwrap_or(0.0);
            names.value(id, v)
        })
        .filter(|l| l.value != 0.0)
        .collect();
    by_value_desc(&mut levers);
    Ok(OverviewBreakdown {
        window,
        since: baseline.map(|b| months::last_day(b).to_string()),
        categories: categories(&levers),
        levers,
    })
}

/// The overview's charts today.
pub async fn breakdown(state: &AppState, window: OverviewWindow) -> ApiResult<OverviewBreakdown> {
    breakdown_on(state, window, chrono::Utc::now().date_naive()).await
}

/// A lever's impact by its savings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum Impact {
    /// Above 30,000,000.
    High,
    /// Above 15,000,000.
    Medium,
    /// The rest.
    Low,
}

/// The impact of a lever's savings.
pub fn impact(value: f64) -> Impact {
    if value > HIGH_IMPACT_RWAS {
        Impact::High
    } else if value > MEDIUM_IMPACT_RWAS {
        Impact::Medium
    } else {
        Impact::Low
    }
}

/// A lever's savings now and at the end of the previous month.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct LeverSummary {
    /// Lever id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Category.
    pub category: String,
    /// Description.
    pub description: String,
    /// Savings now (EUR of RWAs).
    pub value: f64,
    /// Savings at the end of the previous month.
    pub previous_value: f64,
    /// Change against the previous month in percent; absent when that was 0.
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub change_pct: Option<f64>,
    /// High above 30,000,000, medium above 15,000,000, else low.
    pub impact: Impact,
}

/// Every lever of the dictionary (and any removed one that still has savings) with its savings
/// now and at the end of the previous month, largest first.
pub fn lever_summaries(
    names: &[LeverRow],
    now: &HashMap<String, f64>,
    previous: &HashMap<String, f64>,
) -> Vec<LeverSummary> {
    let known: HashSet<&str> = names.iter().map(|l| l.id.as_str()).collect();
    let mut out: Vec<LeverSummary> = names
        .iter()
        .map(|l| {
            (
                l.id.clone(),
                l.lever_name.clone(),
                l.lever_category.clone(),
                l.description.clone(),
            )
        })
        .chain(
            now.keys()
                .chain(previous.keys())
                .filter(|id| !known.contains(id.as_str()))
                .collect::<HashSet<_>>()
                .into_iter()
                .map(|id| {
                    (
                        id.clone(),
                        "Removed lever".into(),
                        "Other".into(),
                        String::new(),
                    )
                }),
        )
        .map(|(id, name, category, description)| {
            let value = now.get(&id).copied().unwrap_or(0.0);
            let previous_value = previous.get(&id).copied().unwrap_or(0.0);
            LeverSummary {
                change_pct: change_pct(value, previous_value),
                impact: impact(value),
                id,
                name,
                category,
                description,
                value,
                previous_value,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.value
            .total_cmp(&a.value)
            .then_with(|| a.name.cmp(&b.name))
    });
    out
}

/// Lever Performance on `today`: every lever's savings over all clients now and at the end of the
/// previous month.
pub async fn lever_performance_on(
    state: &AppState,
    today: NaiveDate,
) -> ApiResult<Vec<LeverSummary>> {
    let pool = &state.db.pool;
    let cur = months::of(today);
    let (cy, cm) = months::year_month(cur);
    let (py, pm) = months::year_month(cur - 1);
    let now = sum_breakdowns(
        db::breakdowns_at(pool, cy, cm)
            .await?
            .iter()
            .map(|s| s.as_str()),
    );
    let prev = sum_breakdowns(
        db::breakdowns_at(pool, py, pm)
            .await?
            .iter()
            .map(|s| s.as_str()),
    );
    let names = clients_db::levers(pool).await?;
    Ok(lever_summaries(&names, &now, &prev))
}

/// Lever Performance today.
pub async fn lever_performance(state: &AppState) -> ApiResult<Vec<LeverSummary>> {
    lever_performance_on(state, chrono::Utc::now().date_naive()).await
}

/// A row of the Client Performance table.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ClientPerformance {
    /// Client id.
    pub client_id: String,
    /// Client name.
    pub client: String,
    /// Official CET1 capital, when set.
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cet1_capital: Option<f64>,
    /// CET1 ratio (fraction): CET1 capital over total RWAs when both are set, else the ratio
    /// entered.
    #[ts(optional)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cet1_ratio: Option<f64>,
    /// Capital optimised (EUR of RWAs).
    pub optimized_value: f64,
    /// The same in bps of CET1 ratio.
    pub bps_value: f64,
    /// Levers with savings.
    #[ts(type = "number")]
    pub levers: i64,
    /// Members of the client.
    #[ts(type = "number")]
    pub member_count: i64,
}

fn positive_levers(breakdown: Option<&str>) -> i64 {
    breakdown
        .map(|b| sum_breakdowns([b]).values().filter(|v| **v > 0.0).count() as i64)
        .unwrap_or(0)
}

/// The Client Performance rows, by name; those whose name contains `search` when given.
pub async fn client_performance(
    state: &AppState,
    search: Option<&str>,
) -> ApiResult<Vec<ClientPerformance>> {
    let search = search.map(str::trim).filter(|s| !s.is_empty());
    if search.is_some_and(|s| s.chars().count() > 200) {
        return Err(ApiError::validation(
            "Search must be at most 200 characters",
        ));
    }
    Ok(db::performance(&state.db.pool, search)
        .await?
        .into_iter()
        .map(|r| {
            let ratio = match (r.official_cet1_capital, r.official_total_rwas) {
                (Some(c), Some(t)) if c > 0.0 && t > 0.0 => Some(c / t),
                _ => r.official_cet1_ratio,
            };
            ClientPerformance {
                levers: positive_levers(r.lever_breakdown.as_deref()),
                client_id: r.id,
                client: r.name,
                cet1_capital: r.official_cet1_capital,
                cet1_ratio: ratio,
                optimized_value: r.cet1_savings_rwas,
                bps_value: r.cet1_savings_bps,
                member_count: r.member_count,
            }
        })
        .collect())
}

/// The Optimization Levers Breakdown of one client: its levers with savings now, largest first.
pub async fn client_levers(state: &AppState, client_id: &str) -> ApiResult<Vec<LeverValue>> {
    if db::client_figures(&state.db.pool, client_id)
        .await?
        .is_none()
    {
        return Err(ApiError::not_found("Client not found"));
    }
    let history = db::client_history(&state.db.pool, client_id).await?;
    let names = LeverNames::load(state).await?;
    let mut levers: Vec<LeverValue> = history
        .last()
        .map(|r| sum_breakdowns([r.lever_breakdown.as_str()]))
        .unwrap_or_default()
        .into_iter()
        .filter(|(_, v)| *v > 0.0)
        .map(|(id, v)| names.value(&id, v))
        .collect();
    by_value_desc(&mut levers);
    Ok(levers)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lever(id: &str, category: &str) -> LeverRow {
        LeverRow {
            id: id.into(),
            code: None,
            lever_name: id.to_uppercase(),
            description: String::new(),
            lever_category: category.into(),
        }
    }

    #[test]
    fn breakdowns_add_up_by_lever() {
        let s = sum_breakdowns([
            r#"{"a": 10, "b": 5.5}"#,
            r#"{"a": 2, "c": "x"}"#,
            "not json",
        ]);
        assert_eq!(s["a"], 12.0);
        assert_eq!(s["b"], 5.5);
        assert!(!s.contains_key("c"));
    }

    #[test]
    fn impact_follows_the_thresholds() {
        assert_eq!(impact(30_000_000.01), Impact::High);
        assert_eq!(impact(30_000_000.0), Impact::Medium);
        assert_eq!(impact(15_000_000.01), Impact::Medium);
        assert_eq!(impact(15_000_000.0), Impact::Low);
    }

    #[test]
    fn categories_share_the_positive_total() {
        let levers = vec![
            LeverValue {
                id: "a".into(),
                name: "A".into(),
                category: "Assets".into(),
                value: 30.0,
            },
            LeverValue {
                id: "b".into(),
                name: "B".into(),
                category: "Assets".into(),
                value: 10.0,
            },
            LeverValue {
                id: "c".into(),
                name: "C".into(),
                category: "CRMT".into(),
                value: 60.0,
            },
            LeverValue {
                id: "d".into(),
                name: "D".into(),
                category: "Other".into(),
                value: -5.0,
            },
        ];
        let c = categories(&levers);
        assert_eq!(c.len(), 2);
        assert_eq!(
            (c[0].name.as_str(), c[0].total_value, c[0].percentage),
            ("CRMT", 60.0, 60.0)
        );
        assert_eq!(
            (c[1].name.as_str(), c[1].total_value, c[1].percentage),
            ("Assets", 40.0, 40.0)
        );
    }

    #[test]
    fn lever_summaries_compare_with_the_previous_month() {
        let names = vec![
            lever("a", "Assets"),
            lever("b", "CRMT"),
            lever("z", "Assets"),
        ];
        let now: HashMap<String, f64> =
            [("a".into(), 40e6), ("b".into(), 20e6), ("gone".into(), 1e6)].into();
        let prev: HashMap<String, f64> = [("a".into(), 32e6)].into();
        let s = lever_summaries(&names, &now, &prev);
        assert_eq!(
            s.iter().map(|l| l.id.as_str()).collect::<Vec<_>>(),
            ["a", "b", "gone", "z"]
        );
        assert_eq!(s[0].change_pct, Some(25.0));
        assert_eq!(s[0].impact, Impact::High);
        assert_eq!(
            (s[1].previous_value, s[1].change_pct, s[1].impact),
            (0.0, None, Impact::Medium)
        );
        assert_eq!(
            (s[2].name.as_str(), s[2].category.as_str()),
            ("Removed lever", "Other")
        );
        assert_eq!((s[3].value, s[3].impact), (0.0, Impact::Low));
    }
}
