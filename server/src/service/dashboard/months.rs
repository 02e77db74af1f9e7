//! Month arithmetic of the dashboards, pure: months as one running index, the savings of all
//! clients at the end of any month from the months' summed changes, the metric cards' periods
//! and the overview's windows.

use chrono::{Datelike, NaiveDate};

use crate::db::dashboard::MonthDelta;

/// A month as one number (`year × 12 + month − 1`), so that months subtract.
pub fn index(year: i64, month: i64) -> i64 {
    year * 12 + month - 1
}

/// The year and month (1..=12) of a month index.
pub fn year_month(i: i64) -> (i64, i64) {
    (i.div_euclid(12), i.rem_euclid(12) + 1)
}

/// The month index of a date.
pub fn of(date: NaiveDate) -> i64 {
    index(date.year() as i64, date.month() as i64)
}

/// The first instant of a month, as stored timestamps are written (RFC 3339 UTC, fixed width).
pub fn start_ts(i: i64) -> String {
    let (y, m) = year_month(i);
    format!("{y:04}-{m:02}-01T00:00:00.000000Z")
}

/// The last day of a month.
pub fn last_day(i: i64) -> NaiveDate {
    let (y, m) = year_month(i + 1);
    NaiveDate::from_ymd_opt(y as i32, m as u32, 1)
        .and_then(|d| d.pred_opt())
        .unwrap_or(NaiveDate::MIN)
}

/// The savings of all clients at the end of each month: running totals of the months' summed
/// changes (a client's latest row stands until its next one, so a month without rows keeps the
/// previous month's savings).
#[derive(Debug, Clone, Default)]
pub struct Stocks {
    /// Month index, RWAs and bps at its end, for the months with rows, in order.
    months: Vec<(i64, f64, f64)>,
}

impl Stocks {
    /// From the months' summed changes, oldest first.
    pub fn new(deltas: &[MonthDelta]) -> Stocks {
        let (mut rwas, mut bps) = (0.0, 0.0);
        let months = deltas
            .iter()
            .map(|d| {
                rwas += d.delta_rwas;
                bps += d.delta_bps;
                (index(d.year, d.month), rwas, bps)
            })
            .collect();
        Stocks { months }
    }

    /// RWAs and bps at the end of month `i` (0 before the first row).
    pub fn at(&self, i: i64) -> (f64, f64) {
        let n = self.months.partition_point(|m| m.0 <= i);
        if n == 0 {
            (0.0, 0.0)
        } else {
            let m = self.months[n - 1];
            (m.1, m.2)
        }
    }

    /// Whether any month in `from..=to` has rows.
    pub fn has_rows(&self, from: i64, to: i64) -> bool {
        self.months.iter().any(|m| m.0 >= from && m.0 <= to)
    }
}

/// The metric cards' period (the page's period picker).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    utoipa::ToSchema,
    ts_rs::TS,
)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum Period {
    /// All Time: the savings now, against the end of last month.
    #[default]
    All,
    /// This Year: the savings gained since the end of last year, against last year's gain.
    Year,
    /// This Quarter: gained since the end of last quarter, against the previous quarter's gain.
    Quarter,
    /// This Month: gained since the end of last month, against last month's gain.
    Month,
}

/// Where a period starts and what it is compared with, as month ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeriodBounds {
    /// The month that ends just before the period (its end is the period's baseline).
    pub baseline: i64,
    /// The month that ends just before the previous period (`None` for All Time, whose previous
    /// value is the savings at the baseline itself).
    pub previous_baseline: Option<i64>,
}

impl Period {
    /// The period's bounds on `today`.
    pub fn bounds(self, today: NaiveDate) -> PeriodBounds {
        let cur = of(today);
        let month = today.month() as i64;
        match self {
            Period::All => PeriodBounds {
                baseline: cur - 1,
                previous_baseline: None,
            },
            Period::Month => PeriodBounds {
                baseline: cur - 1,
                previous_baseline: Some(cur - 2),
            },
            Period::Quarter => {
                let start = cur - (month - 1) % 3;
                PeriodBounds {
                    baseline: start - 1,
                    previous_baseline: Some(start - 4),
                }
            }
            Period::Year => PeriodBounds {
                baseline: cur - month,
                previous_baseline: Some(cur - month - 12),
            },
        }
    }
}

/// The overview's window for the category and lever charts (its own selector, default the last
/// 30 days).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    serde::Serialize,
    serde::Deserialize,
    utoipa::ToSchema,
    ts_rs::TS,
)]
#[ts(export)]
pub enum OverviewWindow {
    /// The last 30 days.
    #[default]
    #[serde(rename = "last30Days")]
    Last30Days,
    /// The last 90 days.
    #[serde(rename = "last90Days")]
    Last90Days,
    /// The last 12 months.
    #[serde(rename = "last12Months")]
    Last12Months,
    /// Everything.
    #[serde(rename = "allTime")]
    AllTime,
}

impl OverviewWindow {
    /// The month whose end the window's gains are measured from: the savings history is kept by
    /// month, so this is the last month end on or before the window's first day (`None`: all
    /// time, measured from nothing).
    pub fn baseline(self, today: NaiveDate) -> Option<i64> {
        let start = match self {
            OverviewWindow::Last30Days => today - chrono::Days::new(30),
            OverviewWindow::Last90Days => today - chrono::Days::new(90),
            OverviewWindow::Last12Months => today - chrono::Months::new(12),
            OverviewWindow::AllTime => return None,
        };
        let i = of(start);
        Some(if last_day(i) == start { i } else { i - 1 })
    }
}

/// A change in percent against `previous` (`None` when there is nothing to compare with).
pub fn change_pct(value: f64, previous: f64) -> Option<f64> {
    (previous != 0.0 && previous.is_finite() && value.is_finite())
        .then(|| (value - previous) / previous.abs() * 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(y: i32, m: u32, day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, day).unwrap()
    }

    fn delta(year: i64, month: i64, r: f64) -> MonthDelta {
        MonthDelta {
            year,
            month,
            delta_rwas: r,
            delta_bps: r / 1e6,
        }
    }

    #[test]
    fn month_indexes_round_trip() {
        assert_eq!(year_month(index(2026, 1)), (2026, 1));
        assert_eq!(year_month(index(2026, 12)), (2026, 12));
        assert_eq!(index(2026, 1) - index(2025, 12), 1);
        assert_eq!(start_ts(index(2026, 3)), "2026-03-01T00:00:00.000000Z");
        assert_eq!(last_day(index(2024, 2)), d(2024, 2, 29));
    }

    #[test]
    fn stocks_carry_a_month_without_rows() {
        // Jan +10, Mar +5 (Feb has no row), May −3.
        let s = Stocks::new(&[
            delta(2026, 1, 10.0),
            delta(2026, 3, 5.0),
            delta(2026, 5, -3.0),
        ]);
        assert_eq!(s.at(index(2025, 12)).0, 0.0);
        assert_eq!(s.at(index(2026, 1)).0, 10.0);
        assert_eq!(s.at(index(2026, 2)).0, 10.0);
        assert_eq!(s.at(index(2026, 4)).0, 15.0);
        assert_eq!(s.at(index(2027, 1)).0, 12.0);
        assert!((s.at(index(2026, 5)).1 - 12e-6).abs() < 1e-12);
        assert!(s.has_rows(index(2026, 2), index(2026, 3)));
        assert!(!s.has_rows(index(2026, 6), index(2026, 12)));
    }

    #[test]
    fn periods_start_at_the_previous_month_quarter_and_year_end() {
        let today = d(2026, 11, 25);
        let cur = index(2026, 11);
        assert_eq!(
            Period::Month.bounds(today),
            PeriodBounds {
                baseline: cur - 1,
                previous_baseline: Some(cur - 2)
            }
        );
        // Q4 starts in October: baseline end of September, previous quarter from end of June.
        assert_eq!(
            Period::Quarter.bounds(today),
            PeriodBounds {
                baseline: index(2026, 9),
                previous_baseline: Some(index(2026, 6))
            }
        );
        assert_eq!(
            Period::Year.bounds(today),
            PeriodBounds {
                baseline: index(2025, 12),
                previous_baseline: Some(index(2024, 12))
            }
        );
        // January: the quarter and the year start together; the previous quarter is Q4.
        let jan = d(2027, 1, 3);
        assert_eq!(Period::Quarter.bounds(jan).baseline, index(2026, 12));
        assert_eq!(Period::Year.bounds(jan).baseline, index(2026, 12));
        assert_eq!(
            Period::Quarter.bounds(jan).previous_baseline,
            Some(index(2026, 9))
        );
        assert_eq!(Period::All.bounds(today).previous_baseline, None);
    }

    #[test]
    fn overview_windows_start_at_the_last_month_end_before_them() {
        let today = d(2026, 11, 25);
        // 30 days back is Oct 26: the last month end on or before it is Sep 30.
        assert_eq!(
            OverviewWindow::Last30Days.baseline(today),
            Some(index(2026, 9))
        );
        // 90 days back is Aug 27: July's end.
        assert_eq!(
            OverviewWindow::Last90Days.baseline(today),
            Some(index(2026, 7))
        );
        assert_eq!(
            OverviewWindow::Last12Months.baseline(today),
            Some(index(2025, 10))
        );
        // 30 days before Oct 31 is Oct 1; 30 days before Dec 31 is Dec 1; before Mar 2 2026,
        // Jan 31: that month end itself.
        assert_eq!(
            OverviewWindow::Last30Days.baseline(d(2026, 3, 2)),
            Some(index(2026, 1))
        );
        assert_eq!(OverviewWindow::AllTime.baseline(today), None);
    }

    #[test]
    fn changes_need_something_to_compare_with() {
        assert_eq!(change_pct(150.0, 100.0), Some(50.0));
        assert_eq!(change_pct(50.0, -100.0), Some(150.0));
        assert_eq!(change_pct(10.0, 0.0), None);
    }
}
