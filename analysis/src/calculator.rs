//! The capital optimisation calculator (specification 002, sections 2 and 9, with the CET1
//! arithmetic of the domain brief): what an RWA reduction does to a bank's CET1 ratio, and what
//! the capital it unlocks earns. The admin and client calculator screens call it through the
//! server, so the arithmetic lives here only. Pure: numbers in, numbers out.
//!
//! With `C` the CET1 capital, `R` the total RWAs and `ΔR` the optimisation:
//!
//! - CET1 ratio `ρ = C / R`; the conversion factor shown is the RWAs per basis point of the
//!   linear attribution, `R² / (10,000 × C)` ([`crate::savings::bps_linear_factor`]); there is no
//!   fallback value: without the bank's figures there is nothing to compute.
//! - The optimisation is given in RWAs, in percent of `R`, or in basis points (turned into RWAs
//!   by [`crate::savings::rwa_for_bps_exact`], the inverse of the exact formula).
//! - New total RWAs `R − ΔR`; new CET1 ratio `C / (R − ΔR)`; the gain in basis points by the one
//!   exact function, [`crate::savings::bps_exact`] (Scenario A: CET1 capital constant).
//! - Scenario B (unlock CET1 capital at a constant ratio): the capital freed at constant ratio
//!   of the domain brief is `ΔR × ρ`; the unlocked capital the scenario puts to work is the
//!   specification's `U = ΔR × ρ × 0.97` ([`UNLOCKED_SHARE`]; both are returned). The variable
//!   fee `F = fee × U` is paid in year 1. Year 1's income is `U × margin − F`;
//!   each later year's balance is the previous balance plus the previous year's income, and its
//!   income is `balance × margin`. The cumulative value starts at `−F` (year 0: the fee paid, no
//!   income yet) and adds each year's income plus `F` in year 1, so at the end of year `k` it is
//!   the sum of the incomes of years 1 to `k`. The break-even year is interpolated linearly
//!   between the last year with a negative cumulative value and the first with a non-negative
//!   one; `None` when the projection never breaks even.
//!
//! Inputs are refused with a clear message ([`Error::Calculator`], or [`Error::InvalidFigures`]
//! for figures that cannot be a bank's): zero, negative or non-finite capital, RWAs,
//! optimisation, margin or fee; capital at or above the RWAs; an optimisation at or above the
//! RWAs; a margin or fee of 100 % or more; projection years outside 3 to 40.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::savings::{BankFigures, bps_exact, bps_linear_factor, rwa_for_bps_exact};

/// Default yearly net interest margin, in percent (specification).
pub const DEFAULT_MARGIN_PCT: f64 = 1.3;
/// The share of the capital freed that Scenario B unlocks (specification 002, section 9:
/// "unlocked capital = optimised RWAs x current CET1 ratio x 0.97").
pub const UNLOCKED_SHARE: f64 = 0.97;
/// Default variable fee on the unlocked capital, in percent (specification).
pub const DEFAULT_FEE_PCT: f64 = 3.0;
/// Default projection years (specification).
pub const DEFAULT_YEARS: u32 = 10;
/// Fewest projection years (the slider's lower end).
pub const MIN_YEARS: u32 = 3;
/// Most projection years (the slider's upper end).
pub const MAX_YEARS: u32 = 40;
/// The predefined scenarios of the calculator, in basis points.
pub const PREDEFINED_BPS: [f64; 6] = [10.0, 20.0, 30.0, 50.0, 75.0, 100.0];

/// The currency figures are shown in (display only; the arithmetic does not depend on it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Currency {
    /// Euro (the default).
    #[default]
    Eur,
    /// US dollar.
    Usd,
    /// Pound sterling.
    Gbp,
}

/// How the optimisation is given.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "by", content = "value")]
pub enum Optimisation {
    /// An RWA reduction (the "By Value" manual input).
    Rwas(f64),
    /// A reduction in percent of the total RWAs (the "By Value" slider: 0 to 5, step 0.1).
    PercentOfRwas(f64),
    /// A CET1 ratio gain in basis points (the "By BPS" slider and the predefined scenarios).
    Bps(f64),
}

/// What the calculator is asked.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CalculatorInput {
    /// CET1 capital.
    pub cet1_capital: f64,
    /// Total RWAs (total risk exposure amount).
    pub total_rwas: f64,
    /// The optimisation.
    pub optimisation: Optimisation,
    /// Yearly net interest margin on the unlocked capital, in percent (1.3 means 1.3 %).
    #[serde(default = "default_margin")]
    pub net_interest_margin_pct: f64,
    /// Variable fee on the unlocked capital, in percent, paid in year 1.
    #[serde(default = "default_fee")]
    pub variable_fee_pct: f64,
    /// Projection years, 3 to 40.
    #[serde(default = "default_years")]
    pub projection_years: u32,
    /// Display currency.
    #[serde(default)]
    pub currency: Currency,
}

fn default_margin() -> f64 {
    DEFAULT_MARGIN_PCT
}
fn default_fee() -> f64 {
    DEFAULT_FEE_PCT
}
fn default_years() -> u32 {
    DEFAULT_YEARS
}

impl CalculatorInput {
    /// An input with the specification's defaults: margin 1.3 %, fee 3 %, 10 years, euro.
    pub fn new(cet1_capital: f64, total_rwas: f64, optimisation: Optimisation) -> Self {
        CalculatorInput {
            cet1_capital,
            total_rwas,
            optimisation,
            net_interest_margin_pct: DEFAULT_MARGIN_PCT,
            variable_fee_pct: DEFAULT_FEE_PCT,
            projection_years: DEFAULT_YEARS,
            currency: Currency::Eur,
        }
    }
}

/// Optimization Summary.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct OptimisationSummary {
    /// The RWA reduction `ΔR`.
    pub optimised_rwas: f64,
    /// `R − ΔR`.
    pub new_total_rwas: f64,
    /// `ΔR / R`, in percent.
    pub optimisation_pct: f64,
    /// The CET1 ratio gain in basis points, exact.
    pub optimisation_bps: f64,
}

/// Scenario A: CET1 capital constant.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ScenarioA {
    /// `C / R`, in percent.
    pub current_ratio_pct: f64,
    /// `C / (R − ΔR)`, in percent.
    pub optimised_ratio_pct: f64,
    /// The gain in basis points (exact).
    pub improvement_bps: f64,
}

/// One year of Scenario B's projection.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ProjectionYear {
    /// The year, from 1.
    pub year: u32,
    /// Capital earning the margin this year.
    pub balance: f64,
    /// This year's income (year 1: net of the variable fee).
    pub income: f64,
    /// Cumulative value at the end of the year (the sum of the incomes so far).
    pub cumulative_value: f64,
}

/// Scenario B: unlock CET1 capital.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioB {
    /// `ΔR × C / R`: the capital freed at the current ratio.
    pub capital_freed: f64,
    /// `capital_freed × 0.97` ([`UNLOCKED_SHARE`]): the capital the scenario puts to work.
    pub unlocked_capital: f64,
    /// The variable fee, paid in year 1.
    pub variable_fee: f64,
    /// Year 1's income net of the fee: `U × margin − F`.
    pub first_year_net_income: f64,
    /// The cumulative value at the end of the projection.
    pub cumulative_income: f64,
    /// Year by year.
    pub years: Vec<ProjectionYear>,
    /// When the cumulative value turns non-negative, in years from the start (interpolated;
    /// 0 when there is no fee to recover); `None` when not within the projection.
    pub break_even_year: Option<f64>,
}

/// What the calculator answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CalculatorResult {
    /// The currency the figures are shown in.
    pub currency: Currency,
    /// `C / R`, in percent.
    pub cet1_ratio_pct: f64,
    /// The conversion factor: RWAs per basis point, `R² / (10,000 × C)` (linear attribution).
    pub rwas_per_bp: f64,
    /// Optimization Summary.
    pub summary: OptimisationSummary,
    /// Scenario A.
    pub scenario_a: ScenarioA,
    /// Scenario B.
    pub scenario_b: ScenarioB,
}

fn bad(msg: String) -> Error {
    Error::Calculator(msg)
}

fn check_pct(name: &str, v: f64) -> Result<f64> {
    if !v.is_finite() || !(0.0..100.0).contains(&v) {
        return Err(bad(format!(
            "the {name} must be a percentage from 0 to below 100, found {v}"
        )));
    }
    Ok(v / 100.0)
}

/// Runs the calculator.
pub fn calculate(input: &CalculatorInput) -> Result<CalculatorResult> {
    let fig = BankFigures {
        total_rwas: input.total_rwas,
        cet1_capital: input.cet1_capital,
        reported_ratio: None,
    };
    // Refuses zero, negative and non-finite figures, and capital at or above the RWAs.
    let rho = fig.implied_ratio()?;
    let (r, c) = (fig.total_rwas, fig.cet1_capital);
    let margin = check_pct("net interest margin", input.net_interest_margin_pct)?;
    let fee = check_pct("variable fee", input.variable_fee_pct)?;
    let years = input.projection_years;
    if !(MIN_YEARS..=MAX_YEARS).contains(&years) {
        return Err(bad(format!(
            "the projection must be {MIN_YEARS} to {MAX_YEARS} years, found {years}"
        )));
    }
    let delta = match input.optimisation {
        Optimisation::Rwas(d) => {
            if !d.is_finite() || d < 0.0 {
                return Err(bad(format!(
                    "the optimised RWAs must be zero or a positive amount, found {d}"
                )));
            }
            d
        }
        Optimisation::PercentOfRwas(p) => r * check_pct("optimisation", p)?,
        Optimisation::Bps(b) => {
            if !b.is_finite() || b < 0.0 {
                return Err(bad(format!(
                    "the basis points to gain must be zero or positive, found {b}"
                )));
            }
            rwa_for_bps_exact(&fig, b)?
        }
    };
    if delta >= r {
        return Err(bad(format!(
            "the optimised RWAs ({delta}) must be smaller than the total RWAs ({r})"
        )));
    }
    let bps = bps_exact(&fig, delta)?;
    let new_r = r - delta;

    // Scenario B.
    let capital_freed = delta * rho;
    let unlocked = capital_freed * UNLOCKED_SHARE;
    let variable_fee = unlocked * fee;
    let mut rows = Vec::with_capacity(years as usize);
    let (mut balance, mut cumulative) = (unlocked, 0.0f64);
    let mut previous = -variable_fee;
    let mut break_even = (previous >= 0.0).then_some(0.0);
    for year in 1..=years {
        let income = if year == 1 {
            balance * margin - variable_fee
        } else {
            balance * margin
        };
        cumulative += income;
        if break_even.is_none() && cumulative >= 0.0 {
            // previous < 0 <= cumulative: linear between the two year ends.
            let step = cumulative - previous;
            let part = if step > 0.0 { -previous / step } else { 1.0 };
            break_even = Some(f64::from(year - 1) + part);
        }
        rows.push(ProjectionYear {
            year,
            balance,
            income,
            cumulative_value: cumulative,
        });
        previous = cumulative;
        balance += income;
    }

    Ok(CalculatorResult {
        currency: input.currency,
        cet1_ratio_pct: rho * 100.0,
        rwas_per_bp: bps_linear_factor(&fig)?,
        summary: OptimisationSummary {
            optimised_rwas: delta,
            new_total_rwas: new_r,
            optimisation_pct: delta / r * 100.0,
            optimisation_bps: bps,
        },
        scenario_a: ScenarioA {
            current_ratio_pct: rho * 100.0,
            optimised_ratio_pct: c / new_r * 100.0,
            improvement_bps: bps,
        },
        scenario_b: ScenarioB {
            capital_freed,
            unlocked_capital: unlocked,
            variable_fee,
            first_year_net_income: rows.first().map_or(0.0, |y| y.income),
            cumulative_income: cumulative,
            years: rows,
            break_even_year: break_even,
        },
    })
}

#[cfg(test)]
mod tests {
    //! Every expected figure is worked out by hand in the comments, not taken from the code.

    use super::*;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} != {b} (tolerance {tol})");
    }

    /// The domain brief's example K01: R = 100bn, C = 13bn, ΔR = 1bn.
    fn k01(opt: Optimisation) -> CalculatorInput {
        CalculatorInput::new(13e9, 100e9, opt)
    }

    #[test]
    fn k01_ratio_factor_summary_and_scenario_a() {
        let r = calculate(&k01(Optimisation::Rwas(1e9))).unwrap();
        // ρ = 13 / 100 = 13 %; RWAs per bp = 1e22 / (1e4 x 1.3e10) = 76,923,076.92.
        close(r.cet1_ratio_pct, 13.0, 1e-12);
        close(r.rwas_per_bp, 76_923_076.923_076_9, 1e-4);
        // New RWAs 99bn; 1bn is 1 % of R; 13/99 = 13.131313 %: +13.1313 bps.
        close(r.summary.new_total_rwas, 99e9, 0.0);
        close(r.summary.optimisation_pct, 1.0, 1e-12);
        close(r.summary.optimisation_bps, 13.131_313_131_3, 1e-9);
        close(r.scenario_a.current_ratio_pct, 13.0, 1e-12);
        close(r.scenario_a.optimised_ratio_pct, 13.131_313_131_313, 1e-9);
        close(r.scenario_a.improvement_bps, 13.131_313_131_3, 1e-9);
    }

    #[test]
    fn k01_scenario_b_three_years_and_break_even() {
        let mut i = k01(Optimisation::Rwas(1e9));
        i.projection_years = 3;
        let b = calculate(&i).unwrap().scenario_b;
        // Freed 1bn x 13 % = 130,000,000; U = 130,000,000 x 0.97 = 126,100,000;
        // F = 3 % of U = 3,783,000.
        close(b.capital_freed, 130_000_000.0, 1e-6);
        close(b.unlocked_capital, 126_100_000.0, 1e-6);
        close(b.variable_fee, 3_783_000.0, 1e-6);
        // Year 1: 126,100,000 x 1.3 % = 1,639,300 - 3,783,000 = -2,143,700.
        // Year 2: balance 123,956,300 x 1.3 % = 1,611,431.90; cumulative -532,268.10.
        // Year 3: balance 125,567,731.90 x 1.3 % = 1,632,380.5147; cumulative 1,100,112.4147.
        let y = &b.years;
        assert_eq!(y.len(), 3);
        close(y[0].balance, 126_100_000.0, 1e-6);
        close(y[0].income, -2_143_700.0, 1e-6);
        close(b.first_year_net_income, -2_143_700.0, 1e-6);
        close(y[1].balance, 123_956_300.0, 1e-6);
        close(y[1].income, 1_611_431.9, 1e-6);
        close(y[1].cumulative_value, -532_268.1, 1e-6);
        close(y[2].balance, 125_567_731.9, 1e-6);
        close(y[2].income, 1_632_380.514_7, 1e-6);
        close(b.cumulative_income, 1_100_112.414_7, 1e-6);
        // Break-even in year 3: 2 + 532,268.10 / 1,632,380.5147 = 2.326068...
        close(b.break_even_year.unwrap(), 2.326_068_6, 1e-6);
    }

    #[test]
    fn by_bps_gives_the_rwas_that_gain_exactly_those_bps() {
        // 10 bps on K01: ΔR = 10 x 1e22 / (1.3e14 + 1e12) = 763,358,778.63;
        // 13 / 99.23664122137 = 13.10 %.
        let r = calculate(&k01(Optimisation::Bps(10.0))).unwrap();
        close(r.summary.optimised_rwas, 763_358_778.625_954, 1e-3);
        close(r.summary.optimisation_bps, 10.0, 1e-9);
        close(r.scenario_a.optimised_ratio_pct, 13.1, 1e-9);
        // The predefined scenarios all come back to their bps.
        for b in PREDEFINED_BPS {
            let r = calculate(&k01(Optimisation::Bps(b))).unwrap();
            close(r.summary.optimisation_bps, b, 1e-9);
        }
    }

    #[test]
    fn by_percent_of_rwas() {
        // R = 50bn, C = 6.25bn (12.5 %, the specification's default ratio), 2 % = 1bn:
        // 6.25 / 49 = 12.755102 %; 10,000 x 6.25 x 1 / (50 x 49) = 25.510204 bps.
        let r = calculate(&CalculatorInput::new(
            6.25e9,
            50e9,
            Optimisation::PercentOfRwas(2.0),
        ))
        .unwrap();
        close(r.cet1_ratio_pct, 12.5, 1e-12);
        close(r.summary.optimised_rwas, 1e9, 1e-3);
        close(r.scenario_a.optimised_ratio_pct, 12.755_102_040_816, 1e-9);
        close(r.summary.optimisation_bps, 25.510_204_081_6, 1e-9);
        // Freed 1bn x 12.5 % = 125m; U = 121.25m; fee 3.6375m;
        // year 1: 121.25m x 1.3 % - 3.6375m = 1.57625m - 3.6375m = -2.06125m.
        close(r.scenario_b.capital_freed, 125e6, 1e-6);
        close(r.scenario_b.unlocked_capital, 121.25e6, 1e-6);
        close(r.scenario_b.first_year_net_income, -2_061_250.0, 1e-6);
        assert_eq!(r.scenario_b.years.len(), 10);
    }

    #[test]
    fn compounding_without_fee() {
        // R = 100, C = 10, ΔR = 10: freed 1, U = 0.97; margin 10 %, no fee: 0.097, 0.1067,
        // 0.11737; cumulative 0.32107 = 0.97 x (1.1^3 - 1). Nothing to recover: break-even at 0.
        let i = CalculatorInput {
            net_interest_margin_pct: 10.0,
            variable_fee_pct: 0.0,
            projection_years: 3,
            ..CalculatorInput::new(10.0, 100.0, Optimisation::Rwas(10.0))
        };
        let b = calculate(&i).unwrap().scenario_b;
        close(b.unlocked_capital, 0.97, 1e-12);
        let incomes: Vec<f64> = b.years.iter().map(|y| y.income).collect();
        close(incomes[0], 0.097, 1e-12);
        close(incomes[1], 0.1067, 1e-12);
        close(incomes[2], 0.11737, 1e-12);
        close(b.cumulative_income, 0.32107, 1e-12);
        assert_eq!(b.break_even_year, Some(0.0));
    }

    #[test]
    fn break_even_within_the_first_year() {
        // R = 1,000, C = 100 (10 %), ΔR = 500: freed 50, U = 48.5; margin 5 %, fee 3 %:
        // F = 1.455; year 1: 48.5 x 5 % - 1.455 = 0.97 >= 0; from -1.455 at year 0 to 0.97:
        // 1.455 / 2.425 = 0.6.
        let i = CalculatorInput {
            net_interest_margin_pct: 5.0,
            projection_years: 3,
            ..CalculatorInput::new(100.0, 1_000.0, Optimisation::Rwas(500.0))
        };
        let b = calculate(&i).unwrap().scenario_b;
        close(b.unlocked_capital, 48.5, 1e-12);
        close(b.variable_fee, 1.455, 1e-12);
        close(b.first_year_net_income, 0.97, 1e-12);
        close(b.break_even_year.unwrap(), 0.6, 1e-12);
    }

    #[test]
    fn no_margin_never_breaks_even() {
        // Margin 0: every year earns 0; the fee (3 % of 126.1m = 3.783m) is never recovered.
        let i = CalculatorInput {
            net_interest_margin_pct: 0.0,
            projection_years: 40,
            ..k01(Optimisation::Rwas(1e9))
        };
        let b = calculate(&i).unwrap().scenario_b;
        assert_eq!(b.years.len(), 40);
        close(b.cumulative_income, -3_783_000.0, 1e-6);
        assert_eq!(b.break_even_year, None);
    }

    #[test]
    fn zero_optimisation() {
        // Nothing optimised: the ratio stays, 0 bps, nothing unlocked, no fee, nothing earned.
        let r = calculate(&k01(Optimisation::Rwas(0.0))).unwrap();
        close(r.summary.optimisation_bps, 0.0, 0.0);
        close(r.scenario_a.optimised_ratio_pct, 13.0, 1e-12);
        close(r.scenario_b.unlocked_capital, 0.0, 0.0);
        close(r.scenario_b.cumulative_income, 0.0, 0.0);
        assert_eq!(r.scenario_b.break_even_year, Some(0.0));
        let r = calculate(&k01(Optimisation::Bps(0.0))).unwrap();
        close(r.summary.optimised_rwas, 0.0, 0.0);
    }

    #[test]
    fn zero_negative_and_absurd_figures_are_refused() {
        let err = |i: CalculatorInput| calculate(&i).unwrap_err().to_string();
        let base = k01(Optimisation::Rwas(1e9));
        assert!(
            err(CalculatorInput {
                cet1_capital: 0.0,
                ..base
            })
            .contains("CET1 capital must be a positive amount")
        );
        assert!(
            err(CalculatorInput {
                total_rwas: -100e9,
                ..base
            })
            .contains("total RWAs must be a positive amount")
        );
        assert!(
            err(CalculatorInput {
                cet1_capital: 200e9,
                ..base
            })
            .contains("must be smaller than the total RWAs")
        );
        assert!(
            err(CalculatorInput {
                total_rwas: f64::NAN,
                ..base
            })
            .contains("total RWAs")
        );
        assert_eq!(
            err(k01(Optimisation::Rwas(100e9))),
            "Invalid calculator input: the optimised RWAs (100000000000) must be smaller than the total RWAs (100000000000)"
        );
        assert!(err(k01(Optimisation::Rwas(-1.0))).contains("zero or a positive amount"));
        assert!(err(k01(Optimisation::Bps(-5.0))).contains("basis points to gain"));
        assert!(err(k01(Optimisation::Bps(f64::INFINITY))).contains("basis points to gain"));
        assert!(err(k01(Optimisation::PercentOfRwas(100.0))).contains("optimisation"));
        assert!(err(k01(Optimisation::PercentOfRwas(-0.1))).contains("optimisation"));
    }

    #[test]
    fn margin_fee_and_years_out_of_range_are_refused() {
        let base = k01(Optimisation::Rwas(1e9));
        let err = |i: CalculatorInput| calculate(&i).unwrap_err().to_string();
        assert_eq!(
            err(CalculatorInput {
                net_interest_margin_pct: -1.0,
                ..base
            }),
            "Invalid calculator input: the net interest margin must be a percentage from 0 to below 100, found -1"
        );
        assert!(
            err(CalculatorInput {
                net_interest_margin_pct: 150.0,
                ..base
            })
            .contains("net interest margin")
        );
        assert!(
            err(CalculatorInput {
                variable_fee_pct: 100.0,
                ..base
            })
            .contains("variable fee")
        );
        for years in [0, 2, 41, 1000] {
            assert_eq!(
                err(CalculatorInput {
                    projection_years: years,
                    ..base
                }),
                format!(
                    "Invalid calculator input: the projection must be 3 to 40 years, found {years}"
                )
            );
        }
        for years in [3, 40] {
            let r = calculate(&CalculatorInput {
                projection_years: years,
                ..base
            })
            .unwrap();
            assert_eq!(r.scenario_b.years.len(), years as usize);
        }
    }

    #[test]
    fn input_reads_from_json_with_the_specifications_defaults() {
        let i: CalculatorInput = serde_json::from_str(
            r#"{"cet1_capital": 13e9, "total_rwas": 100e9, "optimisation": {"by": "bps", "value": 20}}"#,
        )
        .unwrap();
        assert_eq!(i, k01(Optimisation::Bps(20.0)));
        assert_eq!(
            (
                i.net_interest_margin_pct,
                i.variable_fee_pct,
                i.projection_years
            ),
            (1.3, 3.0, 10)
        );
        let out = serde_json::to_value(calculate(&i).unwrap()).unwrap();
        assert_eq!(out["currency"], "eur");
        assert!(out["scenario_b"]["break_even_year"].is_number());
    }
}
