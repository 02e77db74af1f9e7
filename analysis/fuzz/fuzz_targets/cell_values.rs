//! Cell-value parsers (numbers in either notation, dates, maturities, ratings, flags) on any
//! text: no panic, and numbers are finite.
#![no_main]

use analysis::ingest::number::{DecimalStyle, is_strictly_numeric, parse_number};
use analysis::ingest::values::{
    MaturityUnit, parse_bool, parse_cqs, parse_date, parse_maturity_days, rating_to_cqs,
};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for style in [
        DecimalStyle::Point,
        DecimalStyle::Comma,
        DecimalStyle::Unknown,
    ] {
        if let Some(n) = parse_number(data, style) {
            assert!(n.value.is_finite());
        }
    }
    if let Ok(s) = std::str::from_utf8(data) {
        let _ = is_strictly_numeric(s);
    }
    let _ = parse_bool(data);
    let _ = parse_cqs(data);
    let _ = rating_to_cqs(data);
    let _ = parse_date(data);
    let rd = chrono::NaiveDate::from_ymd_opt(2025, 6, 30).unwrap();
    for unit in [MaturityUnit::Days, MaturityUnit::Months, MaturityUnit::Years] {
        if let Some(d) = parse_maturity_days(data, unit, rd) {
            assert!(!d.is_nan());
        }
    }
});
