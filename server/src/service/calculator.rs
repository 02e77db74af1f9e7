//! The capital optimisation calculator (spec 002, calculators) and a client's saved scenarios.
//!
//! Every figure comes from the engine's calculator (`analysis::calculator::calculate`); this
//! module only chooses the figures it is given and maps its answer to the wire:
//!
//! - the admin calculator computes with the figures the administrator types;
//! - the client calculator computes with the client's official CET1 capital and total RWAs
//!   (`clients.official_cet1_capital`, `official_total_rwas`); without them there is nothing to
//!   compute and the answer says so (no fallback conversion factor, see the domain brief);
//! - a saved scenario is a named set of inputs of a client, kept with the figures it was computed
//!   with, and computed again whenever the scenarios are read; the comparison puts the client's
//!   real portfolio beside them: its official figures with the savings of its processed files
//!   (`clients.cet1_savings_rwas`, kept by the savings sync) as the optimisation.
//!
//! Scenarios are rows of a client: its members and administrators read them, viewers only read,
//! members of other clients get 404. Saving and deleting are changes announced on the client's
//! `scenarios` topic after commit.

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{Actor, Audit, Change, Scope, clean_name, scope_of};
use crate::access::Need;
use crate::db::scenarios::{self as db, ClientFiguresRow, NewScenario as NewRow, ScenarioRow};
use crate::error::{ApiError, ApiResult, ResultExt};
use crate::ids::ClientId;
use crate::realtime::{Event, Topic};
use crate::state::AppState;
use analysis::calculator as engine;

/// Longest scenario name accepted.
pub const MAX_SCENARIO_NAME_CHARS: usize = 100;
/// Most scenarios one client keeps.
pub const MAX_SCENARIOS_PER_CLIENT: usize = 100;

/// The display currency (the arithmetic does not depend on it).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS,
)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Currency {
    /// Euro (the default).
    #[default]
    Eur,
    /// US dollar.
    Usd,
    /// Pound sterling.
    Gbp,
}

impl Currency {
    fn engine(self) -> engine::Currency {
        match self {
            Currency::Eur => engine::Currency::Eur,
            Currency::Usd => engine::Currency::Usd,
            Currency::Gbp => engine::Currency::Gbp,
        }
    }
    fn as_str(self) -> &'static str {
        match self {
            Currency::Eur => "eur",
            Currency::Usd => "usd",
            Currency::Gbp => "gbp",
        }
    }
    fn parse(s: &str) -> Currency {
        match s {
            "usd" => Currency::Usd,
            "gbp" => Currency::Gbp,
            _ => Currency::Eur,
        }
    }
}

/// How the optimisation is given: an RWA reduction (By Value, manual input), a share of the
/// total RWAs in percent (By Value, slider 0 to 5, step 0.1) or basis points of CET1 ratio
/// (By BPS, slider 0 to 200, step 0.5, and the predefined scenarios).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "snake_case", tag = "by", content = "value")]
#[ts(export)]
pub enum Optimisation {
    /// An RWA reduction.
    Rwas(f64),
    /// A reduction in percent of the total RWAs.
    PercentOfRwas(f64),
    /// A CET1 ratio gain in basis points.
    Bps(f64),
}

impl Optimisation {
    fn engine(self) -> engine::Optimisation {
        match self {
            Optimisation::Rwas(v) => engine::Optimisation::Rwas(v),
            Optimisation::PercentOfRwas(v) => engine::Optimisation::PercentOfRwas(v),
            Optimisation::Bps(v) => engine::Optimisation::Bps(v),
        }
    }
    fn stored(self) -> (&'static str, f64) {
        match self {
            Optimisation::Rwas(v) => ("rwas", v),
            Optimisation::PercentOfRwas(v) => ("percent_of_rwas", v),
            Optimisation::Bps(v) => ("bps", v),
        }
    }
    fn from_stored(by: &str, v: f64) -> Optimisation {
        match by {
            "percent_of_rwas" => Optimisation::PercentOfRwas(v),
            "bps" => Optimisation::Bps(v),
            _ => Optimisation::Rwas(v),
        }
    }
}

/// The inputs of a calculation besides the bank's figures. Absent values take the
/// specification's defaults: margin 1.3 %, 10 projection years, euro.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ScenarioInputs {
    /// The optimisation.
    pub optimisation: Optimisation,
    /// Yearly net interest margin on the unlocked capital, in percent (1.3 means 1.3 %).
    #[serde(default)]
    #[ts(optional)]
    pub net_interest_margin_pct: Option<f64>,
    /// Projection years, 3 to 40.
    #[serde(default)]
    #[ts(optional)]
    pub projection_years: Option<u32>,
    /// Display currency.
    #[serde(default)]
    #[ts(optional)]
    pub currency: Option<Currency>,
}

/// A calculation with figures the caller gives (the admin calculator).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AdminCalculation {
    /// CET1 capital.
    pub cet1_capital: f64,
    /// Total RWAs.
    pub total_rwas: f64,
    /// The optimisation.
    pub optimisation: Optimisation,
    /// Yearly net interest margin, in percent.
    #[serde(default)]
    #[ts(optional)]
    pub net_interest_margin_pct: Option<f64>,
    /// Projection years, 3 to 40.
    #[serde(default)]
    #[ts(optional)]
    pub projection_years: Option<u32>,
    /// Display currency.
    #[serde(default)]
    #[ts(optional)]
    pub currency: Option<Currency>,
}

impl AdminCalculation {
    fn inputs(&self) -> ScenarioInputs {
        ScenarioInputs {
            optimisation: self.optimisation,
            net_interest_margin_pct: self.net_interest_margin_pct,
            projection_years: self.projection_years,
            currency: self.currency,
        }
    }
}

/// Optimization Summary.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct OptimisationSummary {
    /// The RWA reduction.
    pub optimised_rwas: f64,
    /// Total RWAs less the reduction.
    pub new_total_rwas: f64,
    /// The reduction in percent of the total RWAs.
    pub optimisation_pct: f64,
    /// The CET1 ratio gain in basis points (exact).
    pub optimisation_bps: f64,
}

/// Scenario A: CET1 capital constant.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ScenarioA {
    /// Current CET1 ratio, percent.
    pub current_ratio_pct: f64,
    /// CET1 ratio after the optimisation, percent.
    pub optimised_ratio_pct: f64,
    /// The gain in basis points.
    pub improvement_bps: f64,
}

/// One year of Scenario B's projection.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ProjectionYear {
    /// The year, from 1.
    pub year: u32,
    /// Capital earning the margin this year.
    pub balance: f64,
    /// This year's income (year 1: net of the variable fee).
    pub income: f64,
    /// Cumulative value at the end of the year.
    pub cumulative_value: f64,
}

/// Scenario B: unlock CET1 capital.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ScenarioB {
    /// The capital freed at the current ratio (RWA reduction × ratio).
    pub capital_freed: f64,
    /// The capital put to work: 97 % of the capital freed.
    pub unlocked_capital: f64,
    /// The variable fee, paid in year 1.
    pub variable_fee: f64,
    /// The margin used, percent.
    pub net_interest_margin_pct: f64,
    /// The fee rate used, percent.
    pub variable_fee_pct: f64,
    /// Year 1's income net of the fee.
    pub first_year_net_income: f64,
    /// The cumulative value at the end of the projection.
    pub cumulative_income: f64,
    /// Projection years.
    pub projection_years: u32,
    /// Year by year.
    pub years: Vec<ProjectionYear>,
    /// When the cumulative value turns non-negative, in years (interpolated); `null` when not
    /// within the projection.
    pub break_even_year: Option<f64>,
}

/// The calculator's answer, with the figures it was computed from.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Calculation {
    /// Display currency.
    pub currency: Currency,
    /// CET1 capital used.
    pub cet1_capital: f64,
    /// Total RWAs used.
    pub total_rwas: f64,
    /// CET1 ratio, percent (capital / RWAs).
    pub cet1_ratio_pct: f64,
    /// The conversion factor: RWAs per basis point (linear attribution).
    pub rwas_per_bp: f64,
    /// Optimization Summary.
    pub summary: OptimisationSummary,
    /// Scenario A.
    pub scenario_a: ScenarioA,
    /// Scenario B.
    pub scenario_b: ScenarioB,
}

fn engine_input(cet1_capital: f64, total_rwas: f64, i: &ScenarioInputs) -> engine::CalculatorInput {
    engine::CalculatorInput {
        cet1_capital,
        total_rwas,
        optimisation: i.optimisation.engine(),
        net_interest_margin_pct: i
            .net_interest_margin_pct
            .unwrap_or(engine::DEFAULT_MARGIN_PCT),
        variable_fee_pct: engine::DEFAULT_FEE_PCT,
        projection_years: i.projection_years.unwrap_or(engine::DEFAULT_YEARS),
        currency: i.currency.unwrap_or_default().engine(),
    }
}

fn engine_error(e: analysis::error::Error) -> ApiError {
    match e {
        analysis::error::Error::Calculator(_) | analysis::error::Error::InvalidFigures(_) => {
            ApiError::Validation {
                code: "invalid_calculation",
                message: e.to_string(),
            }
        }
        other => ApiError::Internal(anyhow::anyhow!(other)),
    }
}

/// Runs the engine's calculator and maps its answer.
fn run(input: &engine::CalculatorInput) -> ApiResult<Calculation> {
    let r = engine::calculate(input).map_err(engine_error)?;
    Ok(Calculation {
        currency: match r.currency {
            engine::Currency::Eur => Currency::Eur,
            engine::Currency::Usd => Currency::Usd,
            engine::Currency::Gbp => Currency::Gbp,
        },
        cet1_capital: input.cet1_capital,
        total_rwas: input.total_rwas,
        cet1_ratio_pct: r.cet1_ratio_pct,
        rwas_per_bp: r.rwas_per_bp,
        summary: OptimisationSummary {
            optimised_rwas: r.summary.optimised_rwas,
            new_total_rwas: r.summary.new_total_rwas,
            optimisation_pct: r.summary.optimisation_pct,
            optimisation_bps: r.summary.optimisation_bps,
        },
        scenario_a: ScenarioA {
            current_ratio_pct: r.scenario_a.current_ratio_pct,
            optimised_ratio_pct: r.scenario_a.optimised_ratio_pct,
            improvement_bps: r.scenario_a.improvement_bps,
        },
        scenario_b: ScenarioB {
            capital_freed: r.scenario_b.capital_freed,
            unlocked_capital: r.scenario_b.unlocked_capital,
            variable_fee: r.scenario_b.variable_fee,
            net_interest_margin_pct: input.net_interest_margin_pct,
            variable_fee_pct: input.variable_fee_pct,
            first_year_net_income: r.scenario_b.first_year_net_income,
            cumulative_income: r.scenario_b.cumulative_income,
            projection_years: input.projection_years,
            years: r
                .scenario_b
                .years
                .iter()
                .map(|y| ProjectionYear {
                    year: y.year,
                    balance: y.balance,
                    income: y.income,
                    cumulative_value: y.cumulative_value,
                })
                .collect(),
            break_even_year: r.scenario_b.break_even_year,
        },
    })
}

/// The admin calculator: the figures the administrator gives.
pub fn calculate(req: &AdminCalculation) -> ApiResult<Calculation> {
    run(&engine_input(
        req.cet1_capital,
        req.total_rwas,
        &req.inputs(),
    ))
}

/// A client's figures as the client calculator shows them.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct CalculatorClient {
    /// The client.
    pub client_id: ClientId,
    /// Its name.
    pub client_name: String,
    /// Official CET1 capital (`null` when not set).
    pub cet1_capital: Option<f64>,
    /// Official total RWAs (`null` when not set).
    pub total_rwas: Option<f64>,
    /// CET1 ratio from those figures, percent (`null` without usable figures).
    pub cet1_ratio_pct: Option<f64>,
    /// RWAs per basis point from those figures (`null` without usable figures).
    pub rwas_per_bp: Option<f64>,
    /// Why the calculator cannot run on the client's figures (`null` when it can).
    pub figures_problem: Option<String>,
    /// The RWA savings of the client's processed files.
    pub portfolio_savings_rwas: f64,
    /// The same in basis points of CET1 ratio.
    pub portfolio_savings_bps: f64,
    /// Whether the caller may save and delete scenarios (false for viewers).
    pub can_save: bool,
}

fn not_set(name: &str) -> String {
    format!(
        "The official CET1 capital and total RWAs of {name} are not set. An administrator enters them on the client's record."
    )
}

/// The client's usable figures, or why there are none.
fn usable(row: &ClientFiguresRow) -> Result<(f64, f64), String> {
    let (Some(c), Some(r)) = (row.official_cet1_capital, row.official_total_rwas) else {
        return Err(not_set(&row.name));
    };
    analysis::savings::BankFigures {
        total_rwas: r,
        cet1_capital: c,
        reported_ratio: None,
    }
    .implied_ratio()
    .map(|_| (c, r))
    .map_err(|e| format!("The official figures of {} cannot be used: {e}", row.name))
}

async fn client_row(state: &AppState, scope: &Scope) -> ApiResult<ClientFiguresRow> {
    db::client_figures(&state.db.pool, &scope.client_id)
        .await?
        .ok_or_else(|| ApiError::not_found("Client not found"))
}

/// The client's figures for the client calculator.
pub async fn client(state: &AppState, scope: &Scope) -> ApiResult<CalculatorClient> {
    let row = client_row(state, scope).await?;
    let figures = usable(&row);
    let (ratio, per_bp) = match figures {
        Ok((c, r)) => {
            let f = analysis::savings::BankFigures {
                total_rwas: r,
                cet1_capital: c,
                reported_ratio: None,
            };
            (
                Some(c / r * 100.0),
                analysis::savings::bps_linear_factor(&f).ok(),
            )
        }
        Err(_) => (None, None),
    };
    Ok(CalculatorClient {
        client_id: scope.client_id.clone(),
        client_name: row.name.clone(),
        cet1_capital: row.official_cet1_capital,
        total_rwas: row.official_total_rwas,
        cet1_ratio_pct: ratio,
        rwas_per_bp: per_bp,
        figures_problem: figures.err(),
        portfolio_savings_rwas: row.cet1_savings_rwas,
        portfolio_savings_bps: row.cet1_savings_bps,
        can_save: scope.rights.write,
    })
}

/// The client calculator: the client's official figures with the caller's inputs; 422
/// `figures_not_set` when the client has no usable figures.
pub async fn calculate_for_client(
    state: &AppState,
    scope: &Scope,
    inputs: &ScenarioInputs,
) -> ApiResult<Calculation> {
    let row = client_row(state, scope).await?;
    let (c, r) = usable(&row).map_err(|message| ApiError::Validation {
        code: "figures_not_set",
        message,
    })?;
    run(&engine_input(c, r, inputs))
}

/// A saved scenario with its result, computed now.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SavedScenario {
    /// Id.
    pub id: String,
    /// The client.
    pub client_id: ClientId,
    /// Name.
    pub name: String,
    /// The inputs as saved.
    pub optimisation: Optimisation,
    /// Margin, percent.
    pub net_interest_margin_pct: f64,
    /// Projection years.
    pub projection_years: u32,
    /// Display currency.
    pub currency: Currency,
    /// Who saved it (`null` when the account is gone).
    pub created_by: Option<String>,
    /// Their name.
    pub created_by_name: Option<String>,
    /// When (RFC 3339).
    pub created_at: String,
    /// The result with the figures it was saved with.
    pub result: Option<Calculation>,
    /// Why there is no result (`null` when there is one).
    pub error: Option<String>,
}

/// The client's real portfolio as a scenario: its official figures with the savings of its
/// processed files as the RWA reduction.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct PortfolioScenario {
    /// The RWA savings of the processed files.
    pub savings_rwas: f64,
    /// The same in basis points (as the savings sync stored them).
    pub savings_bps: f64,
    /// The calculator's answer (`null` without usable figures).
    pub result: Option<Calculation>,
    /// Why there is no result.
    pub error: Option<String>,
}

/// A client's saved scenarios beside its real portfolio.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ScenarioList {
    /// The client.
    pub client_id: ClientId,
    /// Its name.
    pub client_name: String,
    /// The real portfolio.
    pub portfolio: PortfolioScenario,
    /// The saved scenarios, newest first.
    pub scenarios: Vec<SavedScenario>,
    /// Whether the caller may save and delete scenarios.
    pub can_save: bool,
}

fn saved(row: ScenarioRow) -> SavedScenario {
    let inputs = ScenarioInputs {
        optimisation: Optimisation::from_stored(&row.optimisation_by, row.optimisation_value),
        net_interest_margin_pct: Some(row.net_interest_margin_pct),
        projection_years: Some(row.projection_years.clamp(0, u32::MAX as i64) as u32),
        currency: Some(Currency::parse(&row.currency)),
    };
    let mut input = engine_input(row.cet1_capital, row.total_rwas, &inputs);
    input.variable_fee_pct = row.variable_fee_pct;
    let (result, error) = match run(&input) {
        Ok(r) => (Some(r), None),
        Err(e) => (None, Some(e.to_string())),
    };
    SavedScenario {
        id: row.id,
        client_id: row.client_id.into(),
        name: row.name,
        optimisation: inputs.optimisation,
        net_interest_margin_pct: input.net_interest_margin_pct,
        projection_years: input.projection_years,
        currency: inputs.currency.unwrap_or_default(),
        created_by: row.created_by,
        created_by_name: row.created_by_name.filter(|n| !n.is_empty()),
        created_at: row.created_at,
        result,
        error,
    }
}

/// The client's saved scenarios, each computed now, and its real portfolio.
pub async fn list(state: &AppState, scope: &Scope) -> ApiResult<ScenarioList> {
    let row = client_row(state, scope).await?;
    let rows = db::list(&state.db.pool, &scope.client_id).await?;
    let portfolio = match usable(&row) {
        Ok((c, r)) => {
            let inputs = ScenarioInputs {
                optimisation: Optimisation::Rwas(row.cet1_savings_rwas.max(0.0)),
                net_interest_margin_pct: None,
                projection_years: None,
                currency: None,
            };
            match run(&engine_input(c, r, &inputs)) {
                Ok(result) => (Some(result), None),
                Err(e) => (None, Some(e.to_string())),
            }
        }
        Err(message) => (None, Some(message)),
    };
    Ok(ScenarioList {
        client_id: scope.client_id.clone(),
        client_name: row.name,
        portfolio: PortfolioScenario {
            savings_rwas: row.cet1_savings_rwas,
            savings_bps: row.cet1_savings_bps,
            result: portfolio.0,
            error: portfolio.1,
        },
        scenarios: rows.into_iter().map(saved).collect(),
        can_save: scope.rights.write,
    })
}

/// A scenario to save. Without figures, the client's official figures at the time of saving.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct NewScenario {
    /// The client; the caller's own by default.
    #[serde(default)]
    #[ts(optional)]
    pub client_id: Option<String>,
    /// Name (1 to 100 characters, unique within the client).
    pub name: String,
    /// CET1 capital (the admin calculator's figures); the client's official one when absent.
    #[serde(default)]
    #[ts(optional)]
    pub cet1_capital: Option<f64>,
    /// Total RWAs; the client's official ones when absent.
    #[serde(default)]
    #[ts(optional)]
    pub total_rwas: Option<f64>,
    /// The optimisation.
    pub optimisation: Optimisation,
    /// Margin, percent.
    #[serde(default)]
    #[ts(optional)]
    pub net_interest_margin_pct: Option<f64>,
    /// Projection years.
    #[serde(default)]
    #[ts(optional)]
    pub projection_years: Option<u32>,
    /// Display currency.
    #[serde(default)]
    #[ts(optional)]
    pub currency: Option<Currency>,
}

/// The payload of `scenario.saved` and `scenario.deleted`: what changed; open lists refetch.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ScenarioChange {
    /// The client.
    pub client_id: String,
    /// The scenario.
    pub id: String,
}

/// The topic on which a client's open calculators hear about saved scenarios.
pub fn scenarios_topic(client_id: &str) -> Topic {
    Topic::Client {
        client_id: client_id.to_owned(),
        area: "scenarios",
    }
}

fn scenario_not_found() -> ApiError {
    ApiError::NotFound {
        code: "scenario_not_found",
        message: "Scenario not found".into(),
    }
}

/// Saves a named scenario for the client (writers only): the inputs are checked by computing
/// them, the name must be new for the client, and a client keeps at most
/// [`MAX_SCENARIOS_PER_CLIENT`].
pub async fn save(state: &AppState, scope: &Scope, req: &NewScenario) -> ApiResult<SavedScenario> {
    let name = clean_name(&req.name, "Scenario", MAX_SCENARIO_NAME_CHARS)?;
    let (c, r) = match (req.cet1_capital, req.total_rwas) {
        (Some(c), Some(r)) => (c, r),
        (None, None) => {
            let row = client_row(state, scope).await?;
            usable(&row).map_err(|message| ApiError::Validation {
                code: "figures_not_set",
                message,
            })?
        }
        _ => {
            return Err(ApiError::validation(
                "Give both the CET1 capital and the total RWAs, or neither to use the client's official figures",
            ));
        }
    };
    let inputs = ScenarioInputs {
        optimisation: req.optimisation,
        net_interest_margin_pct: req.net_interest_margin_pct,
        projection_years: req.projection_years,
        currency: req.currency,
    };
    let input = engine_input(c, r, &inputs);
    run(&input)?;
    let client_id = &scope.client_id;
    let id = crate::db::new_id();
    let (by, value) = req.optimisation.stored();
    let mut ch = Change::begin(state, scenarios_topic(client_id)).await?;
    // The topic's sequence serialises the writers of this client's scenarios, so the count
    // cannot pass the cap between this read and the insert.
    if db::list(ch.conn(), client_id).await?.len() >= MAX_SCENARIOS_PER_CLIENT {
        return Err(ApiError::Conflict {
            code: "too_many_scenarios",
            message: format!(
                "A client keeps at most {MAX_SCENARIOS_PER_CLIENT} scenarios: delete one first"
            ),
        });
    }
    db::insert(
        ch.conn(),
        &NewRow {
            id: &id,
            client_id,
            name: &name,
            cet1_capital: c,
            total_rwas: r,
            optimisation_by: by,
            optimisation_value: value,
            net_interest_margin_pct: input.net_interest_margin_pct,
            variable_fee_pct: input.variable_fee_pct,
            projection_years: i64::from(input.projection_years),
            currency: inputs.currency.unwrap_or_default().as_str(),
            created_by: &scope.user().id,
        },
    )
    .await
    .on_unique(
        "scenario_name_taken",
        &format!("A scenario named \"{name}\" already exists for this client"),
    )?;
    ch.commit(
        &scope.actor,
        Event::ScenarioSaved(ScenarioChange {
            client_id: client_id.to_string(),
            id: id.clone(),
        }),
        Audit {
            event_type: "scenario_saved",
            entity_type: "calculator_scenario",
            entity_id: &id,
            details: json!({"client_id": client_id, "name": name, "optimisation_by": by, "optimisation_value": value}),
            severity: "info",
        },
    )
    .await?;
    let row = db::get(&state.db.pool, &id)
        .await?
        .ok_or_else(scenario_not_found)?;
    Ok(saved(row))
}

/// Deletes a saved scenario (writers of its client only; 404 for anyone else).
pub async fn delete(state: &AppState, actor: &Actor, id: &str) -> ApiResult<()> {
    let row = db::get(&state.db.pool, id)
        .await?
        .ok_or_else(scenario_not_found)?;
    let scope = match scope_of(state, actor.clone(), &row.client_id, Need::Write).await {
        Ok(s) => s,
        Err(ApiError::NotFound { .. }) => return Err(scenario_not_found()),
        Err(e) => return Err(e),
    };
    let mut ch = Change::begin(state, scenarios_topic(&row.client_id)).await?;
    if !db::delete(ch.conn(), id, &row.client_id).await? {
        return Err(scenario_not_found());
    }
    ch.commit(
        &scope.actor,
        Event::ScenarioDeleted(ScenarioChange {
            client_id: row.client_id.clone(),
            id: id.to_string(),
        }),
        Audit {
            event_type: "scenario_deleted",
            entity_type: "calculator_scenario",
            entity_id: id,
            details: json!({"client_id": row.client_id, "name": row.name}),
            severity: "info",
        },
    )
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wire_reads_the_engines_inputs() {
        let req: AdminCalculation = serde_json::from_str(
            r#"{"cet1Capital": 13e9, "totalRwas": 100e9, "optimisation": {"by": "percent_of_rwas", "value": 1}}"#,
        )
        .unwrap();
        let c = calculate(&req).unwrap();
        // 1 % of 100bn = 1bn; 13 / 99 = 13.1313 %: +13.1313 bps; freed 130m, unlocked 126.1m.
        assert!((c.summary.optimised_rwas - 1e9).abs() < 1e-3);
        assert!((c.scenario_a.improvement_bps - 13.131_313_131_3).abs() < 1e-9);
        assert!((c.scenario_b.unlocked_capital - 126_100_000.0).abs() < 1e-6);
        assert_eq!(c.scenario_b.projection_years, 10);
        assert_eq!(c.scenario_b.years.len(), 10);
        assert_eq!(c.currency, Currency::Eur);
        let out = serde_json::to_value(&c).unwrap();
        assert!(out["scenarioB"]["breakEvenYear"].is_number());
        assert_eq!(out["currency"], "eur");
    }

    #[test]
    fn stored_optimisations_round_trip() {
        for o in [
            Optimisation::Rwas(5.0),
            Optimisation::PercentOfRwas(1.5),
            Optimisation::Bps(20.0),
        ] {
            let (by, v) = o.stored();
            assert_eq!(Optimisation::from_stored(by, v), o);
        }
        for c in [Currency::Eur, Currency::Usd, Currency::Gbp] {
            assert_eq!(Currency::parse(c.as_str()), c);
        }
    }

    #[test]
    fn engine_refusals_are_validation_errors() {
        let req = AdminCalculation {
            cet1_capital: 0.0,
            total_rwas: 100.0,
            optimisation: Optimisation::Bps(10.0),
            net_interest_margin_pct: None,
            projection_years: None,
            currency: None,
        };
        let e = calculate(&req).unwrap_err();
        assert_eq!(e.code(), "invalid_calculation");
        assert!(
            e.to_string()
                .contains("CET1 capital must be a positive amount")
        );
    }
}
