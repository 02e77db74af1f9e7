//! Savings arithmetic: RWA reductions to basis points of CET1 ratio.
//!
//! One function turns an RWA reduction into bps everywhere: [`bps_exact`], the exact CET1
//! arithmetic. With `R` the total risk exposure amount, `C` the CET1 capital and `ΔR` the RWA
//! reduction, the ratio `C / R` becomes `C / (R − ΔR)`, so
//!
//! `Δbps = 10,000 × (C / (R − ΔR) − C / R) = 10,000 × C·ΔR / (R·(R − ΔR))`.
//!
//! Basis points are not additive, so per-row attribution uses the linear factor
//! [`bps_linear_factor`] = RWA per bp = `R² / (10,000 × C)`; a row's bps is its saving divided by
//! that factor. The rows' linear bps add up to slightly less than the portfolio's exact bps.
//!
//! Without the bank's figures there are no bps: callers show RWAs (and capital at a ratio the user
//! states) instead of inventing a conversion factor.

use crate::error::{Error, Result};

/// The client's official figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BankFigures {
    /// Total risk exposure amount (total RWAs), in euros.
    pub total_rwas: f64,
    /// CET1 capital, in euros.
    pub cet1_capital: f64,
    /// The CET1 ratio the bank reports, as a fraction (0.13) or in percent (13); `None` when not
    /// given. Only used for the consistency check.
    pub reported_ratio: Option<f64>,
}

impl BankFigures {
    fn validate(&self) -> Result<()> {
        let (r, c) = (self.total_rwas, self.cet1_capital);
        if !r.is_finite() || r <= 0.0 {
            return Err(Error::InvalidFigures(format!(
                "total RWAs must be a positive amount, found {r}"
            )));
        }
        if !c.is_finite() || c <= 0.0 {
            return Err(Error::InvalidFigures(format!(
                "CET1 capital must be a positive amount, found {c}"
            )));
        }
        if c >= r {
            return Err(Error::InvalidFigures(format!(
                "CET1 capital ({c}) must be smaller than the total RWAs ({r}): a CET1 ratio of 100 % or more is not a bank's"
            )));
        }
        Ok(())
    }

    /// The CET1 ratio implied by the figures, `C / R`, as a fraction.
    pub fn implied_ratio(&self) -> Result<f64> {
        self.validate()?;
        Ok(self.cet1_capital / self.total_rwas)
    }
}

/// Exact CET1 ratio gain in basis points for an RWA reduction `delta_rwa`
/// (`0 ≤ ΔR < R`). This is the one conversion used for file, client and portfolio totals.
pub fn bps_exact(fig: &BankFigures, delta_rwa: f64) -> Result<f64> {
    fig.validate()?;
    let (r, c) = (fig.total_rwas, fig.cet1_capital);
    if !delta_rwa.is_finite() || delta_rwa < 0.0 {
        return Err(Error::InvalidFigures(format!(
            "the RWA reduction must be zero or positive, found {delta_rwa}"
        )));
    }
    if delta_rwa >= r {
        return Err(Error::InvalidFigures(format!(
            "the RWA reduction ({delta_rwa}) must be smaller than the total RWAs ({r})"
        )));
    }
    Ok(10_000.0 * c * delta_rwa / (r * (r - delta_rwa)))
}

/// The RWA reduction that gains exactly `bps` basis points of CET1 ratio: the inverse of
/// [`bps_exact`], `ΔR = bps × R² / (10,000 × C + bps × R)` (always below `R`). For "optimise by
/// bps" screens; the bps they then show come from [`bps_exact`] of this reduction.
pub fn rwa_for_bps_exact(fig: &BankFigures, bps: f64) -> Result<f64> {
    fig.validate()?;
    if !bps.is_finite() || bps < 0.0 {
        return Err(Error::InvalidFigures(format!(
            "the basis points to gain must be zero or positive, found {bps}"
        )));
    }
    let (r, c) = (fig.total_rwas, fig.cet1_capital);
    Ok(bps * r * r / (10_000.0 * c + bps * r))
}

/// RWAs per basis point for linear per-row attribution: `R² / (10,000 × C)`
/// (equivalently `R / (10,000 × ρ)`).
pub fn bps_linear_factor(fig: &BankFigures) -> Result<f64> {
    fig.validate()?;
    Ok(fig.total_rwas * fig.total_rwas / (10_000.0 * fig.cet1_capital))
}

/// Linear bps of one row's RWA saving: `saving / bps_linear_factor`.
pub fn bps_linear(fig: &BankFigures, delta_rwa: f64) -> Result<f64> {
    Ok(delta_rwa / bps_linear_factor(fig)?)
}

/// Capital freed by an RWA reduction at a constant capital ratio (a fraction: 0.08 for the 8 %
/// Pillar 1 minimum, or the bank's own ratio).
pub fn capital_at_ratio(delta_rwa: f64, ratio: f64) -> Result<f64> {
    if !ratio.is_finite() || ratio <= 0.0 || ratio >= 1.0 {
        return Err(Error::InvalidFigures(format!(
            "the capital ratio must be a fraction between 0 and 1, found {ratio}"
        )));
    }
    if !delta_rwa.is_finite() {
        return Err(Error::InvalidFigures(
            "the RWA reduction is not a number".into(),
        ));
    }
    Ok(delta_rwa * ratio)
}

/// The reported ratio differs from `C / R` by more than the tolerance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatioMismatch {
    /// The reported ratio, as a fraction.
    pub reported: f64,
    /// `C / R`, as a fraction.
    pub implied: f64,
    /// The gap in basis points (reported − implied).
    pub gap_bps: f64,
}

impl std::fmt::Display for RatioMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "The reported CET1 ratio ({:.2}%) differs from CET1 capital / total RWAs ({:.2}%) by {:.1} bps: \
             check transitional versus fully loaded figures and the consolidation scope",
            self.reported * 100.0,
            self.implied * 100.0,
            self.gap_bps
        )
    }
}

/// Tolerance of [`check_reported_ratio`], in basis points.
pub const RATIO_TOLERANCE_BPS: f64 = 5.0;

/// Warns when the reported ratio differs from `C / R` by more than 5 bps. A reported value above 1
/// is read as a percentage (13 means 13 %).
pub fn check_reported_ratio(fig: &BankFigures) -> Result<Option<RatioMismatch>> {
    let implied = fig.implied_ratio()?;
    let Some(raw) = fig.reported_ratio else {
        return Ok(None);
    };
    if !raw.is_finite() || raw <= 0.0 || raw >= 100.0 {
        return Err(Error::InvalidFigures(format!(
            "the reported CET1 ratio must be between 0 and 100%, found {raw}"
        )));
    }
    let reported = if raw > 1.0 { raw / 100.0 } else { raw };
    let gap_bps = (reported - implied) * 10_000.0;
    Ok(
        (gap_bps.abs() > RATIO_TOLERANCE_BPS + 1e-9).then_some(RatioMismatch {
            reported,
            implied,
            gap_bps,
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k01() -> BankFigures {
        BankFigures {
            total_rwas: 100e9,
            cet1_capital: 13e9,
            reported_ratio: Some(0.13),
        }
    }

    #[test]
    fn worked_example_k01() {
        // R = 100bn, C = 13bn, ΔR = 1bn: 13/99 − 13 % = +13.13 bps; RWA per bp = 76.9m.
        let bps = bps_exact(&k01(), 1e9).unwrap();
        assert!((bps - 13.1313).abs() < 1e-3, "{bps}");
        let factor = bps_linear_factor(&k01()).unwrap();
        assert!((factor - 76_923_076.92).abs() < 1.0, "{factor}");
        assert!((bps_linear(&k01(), 1e9).unwrap() - 13.0).abs() < 1e-9);
        assert!((capital_at_ratio(1e9, 0.13).unwrap() - 130e6).abs() < 1e-3);
    }

    #[test]
    fn rwa_for_bps_inverts_the_exact_gain() {
        // 10 bps on R = 100bn, C = 13bn: ΔR = 10 x 1e22 / (1.3e14 + 1e12) = 763,358,778.63;
        // 13 / (100 - 0.76335877863) = 13.1000 %.
        let d = rwa_for_bps_exact(&k01(), 10.0).unwrap();
        assert!((d - 763_358_778.625_954_2).abs() < 1e-3, "{d}");
        for bps in [0.0, 0.5, 13.1313, 200.0, 5_000.0] {
            let back = bps_exact(&k01(), rwa_for_bps_exact(&k01(), bps).unwrap()).unwrap();
            assert!((back - bps).abs() < 1e-9 * bps.max(1.0), "{bps} -> {back}");
        }
        assert!(rwa_for_bps_exact(&k01(), -1.0).is_err());
        assert!(rwa_for_bps_exact(&k01(), f64::INFINITY).is_err());
    }

    #[test]
    fn bad_figures_are_refused() {
        let mut f = k01();
        assert_eq!(bps_exact(&f, 0.0).unwrap(), 0.0);
        assert!(bps_exact(&f, -1.0).is_err());
        assert!(bps_exact(&f, 100e9).is_err());
        assert!(bps_exact(&f, f64::NAN).is_err());
        f.total_rwas = 0.0;
        assert!(bps_exact(&f, 1.0).is_err());
        assert!(bps_linear_factor(&f).is_err());
        f.total_rwas = 1e9;
        f.cet1_capital = -5.0;
        assert!(
            bps_exact(&f, 1.0)
                .unwrap_err()
                .to_string()
                .contains("CET1 capital")
        );
    }

    #[test]
    fn reported_ratio_check() {
        assert_eq!(check_reported_ratio(&k01()).unwrap(), None);
        let pct = BankFigures {
            reported_ratio: Some(13.04),
            ..k01()
        };
        assert_eq!(check_reported_ratio(&pct).unwrap(), None);
        let off = BankFigures {
            reported_ratio: Some(13.2),
            ..k01()
        };
        let m = check_reported_ratio(&off).unwrap().unwrap();
        assert!((m.gap_bps - 20.0).abs() < 1e-6);
        assert!(m.to_string().contains("13.20%"));
        let none = BankFigures {
            reported_ratio: None,
            ..k01()
        };
        assert_eq!(check_reported_ratio(&none).unwrap(), None);
    }
}
