//! Reading typed values out of cell text: yes/no flags, credit quality steps and ratings,
//! maturities and dates. All functions take bytes and never allocate.

use chrono::{Datelike, NaiveDate};

use super::number::{DecimalStyle, parse_number};

/// Trims ASCII whitespace and non-breaking spaces.
pub fn trim(bytes: &[u8]) -> &[u8] {
    let mut s = bytes;
    loop {
        let before = s.len();
        s = s.trim_ascii();
        if let Some(rest) = s.strip_prefix(b"\xC2\xA0") {
            s = rest;
        }
        if let Some(rest) = s.strip_suffix(b"\xC2\xA0") {
            s = rest;
        }
        if s.len() == before {
            return s;
        }
    }
}

/// Reads a yes/no flag: yes, y, si, sí, s, true, verdadero, x, 1 are `true`; no, n, false,
/// falso, 0 are `false`; anything else (including blank) is `None`.
pub fn parse_bool(bytes: &[u8]) -> Option<bool> {
    let t = trim(bytes);
    if t.len() > 9 {
        return None;
    }
    let mut buf = [0u8; 9];
    for (d, s) in buf.iter_mut().zip(t) {
        *d = s.to_ascii_lowercase();
    }
    match &buf[..t.len()] {
        b"yes" | b"y" | b"si" | b"s\xc3\xad" | b"s\xc3\x8d" | b"s" | b"true" | b"verdadero"
        | b"x" | b"1" | b"1.0" | b"t" => Some(true),
        b"no" | b"n" | b"false" | b"falso" | b"0" | b"0.0" | b"f" => Some(false),
        _ => None,
    }
}

/// Reads a credit quality step 1 to 6 (`2`, `2.0`, `CQS 2`, `cqs2`). Out-of-range is `None`.
pub fn parse_cqs(bytes: &[u8]) -> Option<u8> {
    let t = trim(bytes);
    let t = if t.len() >= 3 && t[..3].eq_ignore_ascii_case(b"cqs") {
        trim(&t[3..])
    } else {
        t
    };
    let n = parse_number(t, DecimalStyle::Point)?;
    let v = n.value;
    if v.fract() == 0.0 && (1.0..=6.0).contains(&v) && !n.percent {
        Some(v as u8)
    } else {
        None
    }
}

/// What a Credit_Quality_Step cell says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CqsCell {
    /// Blank, or a mark for "no rating" (`NR`, `unrated`, `sin rating`, `n/a`, `-`).
    Unrated,
    /// A credit quality step 1 to 6, written as a number or as a long-term rating.
    Step(u8),
    /// Anything else (`0`, `7`, `2.5`, `abc`): not a credit quality step.
    Invalid,
}

/// Reads a Credit_Quality_Step cell: a CQS 1 to 6 ([`parse_cqs`]), a long-term rating
/// ([`rating_to_cqs`]), blank or a "no rating" mark; anything else is [`CqsCell::Invalid`] and must
/// never be taken as unrated.
pub fn read_cqs_cell(bytes: &[u8]) -> CqsCell {
    let t = trim(bytes);
    if t.is_empty() {
        return CqsCell::Unrated;
    }
    if let Some(c) = parse_cqs(t) {
        return CqsCell::Step(c);
    }
    if is_unrated_mark(t) {
        return CqsCell::Unrated;
    }
    if !t.first().is_some_and(u8::is_ascii_digit)
        && let Some(c) = rating_to_cqs(t)
    {
        return CqsCell::Step(c);
    }
    CqsCell::Invalid
}

/// `NR`, `N/R`, `WR`, `unrated`, `not rated`, `sin rating`, `sin calificación`, `n/a`, `na`,
/// `none`, `-` and `--` (case-insensitive).
fn is_unrated_mark(t: &[u8]) -> bool {
    if t.len() > 20 {
        return false;
    }
    let mut buf = [0u8; 20];
    for (d, s) in buf.iter_mut().zip(t) {
        *d = s.to_ascii_lowercase();
    }
    matches!(
        &buf[..t.len()],
        b"nr"
            | b"n/r"
            | b"n.r."
            | b"wr"
            | b"unrated"
            | b"not rated"
            | b"no rating"
            | b"sin rating"
            | b"sin calificaci\xc3\xb3n"
            | b"sin calificacion"
            | b"n/a"
            | b"na"
            | b"none"
            | b"-"
            | b"--"
            | b"\xe2\x80\x94"
    )
}

/// Maps a long-term rating in S&P, Fitch or Moody's notation to a credit quality step
/// (ITS 2016/1799): AAA to AA- (Aaa to Aa3) 1, A+ to A- (A1 to A3) 2, BBB+ to BBB- (Baa1 to Baa3)
/// 3, BB+ to BB- (Ba1 to Ba3) 4, B+ to B- (B1 to B3) 5, CCC+ and below (Caa1 and below) 6.
/// Qualifiers after a space or parenthesis (`AA- (sf)`, `A2 *-`) are ignored; a leading `(P)`
/// is dropped.
pub fn rating_to_cqs(bytes: &[u8]) -> Option<u8> {
    let mut t = trim(bytes);
    if t.len() >= 3 && t[..3].eq_ignore_ascii_case(b"(p)") {
        t = trim(&t[3..]);
    }
    let end = t
        .iter()
        .position(|b| *b == b' ' || *b == b'(' || *b == b'*' || *b == b'/')
        .unwrap_or(t.len());
    let mut t = &t[..end];
    // Drop the modifier: +, - or Moody's 1, 2, 3.
    if let Some((&last, rest)) = t.split_last()
        && matches!(last, b'+' | b'-' | b'1' | b'2' | b'3')
    {
        t = rest;
    }
    if t.is_empty() || t.len() > 3 {
        return None;
    }
    let mut buf = [0u8; 3];
    for (d, s) in buf.iter_mut().zip(t) {
        *d = s.to_ascii_uppercase();
    }
    match &buf[..t.len()] {
        b"AAA" | b"AA" => Some(1),
        b"A" => Some(2),
        b"BBB" | b"BAA" => Some(3),
        b"BB" | b"BA" => Some(4),
        b"B" => Some(5),
        b"CCC" | b"CAA" | b"CC" | b"CA" | b"C" | b"D" | b"SD" | b"RD" | b"DDD" | b"DD" => Some(6),
        _ => None,
    }
}

/// Days from 1899-12-30, the spreadsheet epoch (serial 1 is 1900-01-01 after the 1900 leap-year
/// quirk), to 1970-01-01.
const EXCEL_EPOCH_OFFSET: i64 = 25_569;

/// Converts a spreadsheet date serial number to a date.
pub fn excel_serial_to_date(serial: f64) -> Option<NaiveDate> {
    if !(1.0..2_958_466.0).contains(&serial) {
        return None;
    }
    let days = serial.floor() as i64 - EXCEL_EPOCH_OFFSET;
    NaiveDate::from_ymd_opt(1970, 1, 1)?.checked_add_signed(chrono::TimeDelta::try_days(days)?)
}

fn num(bytes: &[u8]) -> Option<u32> {
    if bytes.is_empty() || bytes.len() > 4 || !bytes.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut v = 0u32;
    for b in bytes {
        v = v * 10 + u32::from(b - b'0');
    }
    Some(v)
}

/// Reads a date written as `YYYY-MM-DD` (optionally followed by a time), `YYYY/MM/DD`,
/// `DD/MM/YYYY`, `DD-MM-YYYY` or `DD.MM.YYYY` (day first, as in Spain; `MM/DD/YYYY` is taken
/// only when the second part is above 12), or a two-digit year (`DD/MM/YY`, years 00-69 read as
/// 20xx).
pub fn parse_date(bytes: &[u8]) -> Option<NaiveDate> {
    // The common case, `YYYY-MM-DD` exactly, without the general path's splitting (same result).
    if let [y0, y1, y2, y3, b'-', m0, m1, b'-', d0, d1] = *bytes {
        let d = [y0, y1, y2, y3, m0, m1, d0, d1].map(|c| u32::from(c.wrapping_sub(b'0')));
        if d.iter().all(|&v| v < 10) {
            let year = d[0] * 1000 + d[1] * 100 + d[2] * 10 + d[3];
            return NaiveDate::from_ymd_opt(year as i32, d[4] * 10 + d[5], d[6] * 10 + d[7]);
        }
    }
    let t = trim(bytes);
    // Cut a time part.
    let t = match t.iter().position(|b| *b == b'T' || *b == b' ') {
        Some(p) if p >= 8 => &t[..p],
        _ => t,
    };
    if t.len() < 6 || t.len() > 10 {
        return None;
    }
    let sep = *t.iter().find(|b| matches!(b, b'-' | b'/' | b'.'))?;
    let mut parts = t.split(|b| *b == sep);
    let a = parts.next()?;
    let b = parts.next()?;
    let c = parts.next()?;
    if parts.next().is_some() {
        return None;
    }
    let (y, m, d) = if a.len() == 4 {
        (num(a)? as i32, num(b)?, num(c)?)
    } else {
        let year = match c.len() {
            4 => num(c)? as i32,
            2 => {
                let yy = num(c)? as i32;
                if yy < 70 { 2000 + yy } else { 1900 + yy }
            }
            _ => return None,
        };
        let (p, q) = (num(a)?, num(b)?);
        if q > 12 && p <= 12 {
            (year, p, q)
        } else {
            (year, q, p)
        }
    };
    NaiveDate::from_ymd_opt(y, m, d)
}

/// Average days per month and per year used to turn maturities given as a count into days.
pub const DAYS_PER_YEAR: f64 = 365.25;
/// See [`DAYS_PER_YEAR`].
pub const DAYS_PER_MONTH: f64 = DAYS_PER_YEAR / 12.0;

/// The unit of the bare numbers of a Maturity column (`3`, `60`, `120`). The specification's
/// unit is months; a header that names another unit (`Maturity (days)`, `Plazo_dias`,
/// `Vencimiento años`) changes it (see [`crate::mapping::maturity_unit_from_header`]), and the
/// user can change it in the mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MaturityUnit {
    /// Days.
    Days,
    /// Months (the specification's unit; the default).
    #[default]
    Months,
    /// Years.
    Years,
}

impl MaturityUnit {
    /// Days in one unit (a month is a twelfth of 365.25 days).
    pub fn days(self) -> f64 {
        match self {
            MaturityUnit::Days => 1.0,
            MaturityUnit::Months => DAYS_PER_MONTH,
            MaturityUnit::Years => DAYS_PER_YEAR,
        }
    }

    /// The unit's name: `days`, `months`, `years`.
    pub fn as_str(self) -> &'static str {
        match self {
            MaturityUnit::Days => "days",
            MaturityUnit::Months => "months",
            MaturityUnit::Years => "years",
        }
    }

    /// Reads a unit name: days, months, years (also day, month, year, d, m, y, and the Spanish
    /// días, meses, años), case-insensitively.
    pub fn parse(s: &str) -> Option<MaturityUnit> {
        let t = s.trim().to_lowercase();
        match t.as_str() {
            "d" | "day" | "days" | "dia" | "día" | "dias" | "días" => Some(MaturityUnit::Days),
            "m" | "month" | "months" | "mes" | "meses" => Some(MaturityUnit::Months),
            "y" | "year" | "years" | "año" | "años" | "ano" | "anos" => Some(MaturityUnit::Years),
            _ => None,
        }
    }
}

/// A Maturity cell, read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Maturity {
    /// Blank: no maturity given.
    Blank,
    /// A calendar date (written as a date, or a spreadsheet date serial).
    Date(NaiveDate),
    /// A count read in the column's unit (a bare number) or in its own unit (`90d`, `3 meses`),
    /// as days.
    Days {
        /// The count in days.
        days: f64,
        /// True when the cell named its unit; false for a bare number read in the column's.
        unit_written: bool,
    },
    /// Something that is neither (`soon`, `-5`, `3 weeks ago`): flagged, never taken as "no
    /// maturity" in silence.
    Unreadable,
}

/// Reads a Maturity cell: a date (see [`parse_date`]); a count with its unit (`3m`, `3 months`,
/// `3 meses`, `90d`, `90 días`, `2y`, `2 years`, `2 años`, `6 weeks`, `6 semanas`); a bare number
/// in `unit`. A bare number above 1,000 is a spreadsheet date serial unless the unit is days
/// (1,825 days is five years). Negative counts and anything else are [`Maturity::Unreadable`].
/// Allocates nothing.
pub fn read_maturity(bytes: &[u8], unit: MaturityUnit) -> Maturity {
    let t = trim(bytes);
    if t.is_empty() {
        return Maturity::Blank;
    }
    if let Some(d) = parse_date(t) {
        return Maturity::Date(d);
    }
    // Split number and unit.
    let split = t
        .iter()
        .position(|b| b.is_ascii_alphabetic() || *b >= 0x80)
        .unwrap_or(t.len());
    let (n, written) = (trim(&t[..split]), trim(&t[split..]));
    if n.is_empty() {
        return Maturity::Unreadable;
    }
    let Some(value) = parse_number(n, DecimalStyle::Unknown)
        .filter(|v| !v.percent)
        .map(|v| v.value)
    else {
        return Maturity::Unreadable;
    };
    if !value.is_finite() || value < 0.0 {
        return Maturity::Unreadable;
    }
    if written.is_empty() {
        if value > 1000.0 && unit != MaturityUnit::Days {
            return match excel_serial_to_date(value) {
                Some(d) => Maturity::Date(d),
                None => Maturity::Unreadable,
            };
        }
        return Maturity::Days {
            days: value * unit.days(),
            unit_written: false,
        };
    }
    let mut ubuf = [0u8; 8];
    let ul = written.len().min(8);
    for (d, s) in ubuf.iter_mut().zip(&written[..ul]) {
        *d = s.to_ascii_lowercase();
    }
    let u = &ubuf[..ul];
    let factor = if u.starts_with(b"d") {
        1.0
    } else if u.starts_with(b"w") || u.starts_with(b"sem") {
        7.0
    } else if u.starts_with(b"mo") || u.starts_with(b"me") || u == b"m" {
        DAYS_PER_MONTH
    } else if u.starts_with(b"y") || u.starts_with(b"a") {
        DAYS_PER_YEAR
    } else {
        return Maturity::Unreadable;
    };
    Maturity::Days {
        days: value * factor,
        unit_written: true,
    }
}

/// Reads a residual maturity in days relative to `reporting_date` (see [`read_maturity`]; a
/// date before the reporting date gives a negative number). `None` when blank or unreadable.
pub fn parse_maturity_days(
    bytes: &[u8],
    unit: MaturityUnit,
    reporting_date: NaiveDate,
) -> Option<f64> {
    match read_maturity(bytes, unit) {
        Maturity::Date(d) => Some((d - reporting_date).num_days() as f64),
        Maturity::Days { days, .. } => Some(days),
        Maturity::Blank | Maturity::Unreadable => None,
    }
}

/// Formats a date as `YYYY-MM-DD` into a fixed buffer.
pub fn format_date(d: NaiveDate, out: &mut Vec<u8>) {
    let (y, m, day) = (d.year(), d.month(), d.day());
    let mut ib = itoa::Buffer::new();
    out.extend_from_slice(ib.format(y).as_bytes());
    out.push(b'-');
    out.push(b'0' + (m / 10) as u8);
    out.push(b'0' + (m % 10) as u8);
    out.push(b'-');
    out.push(b'0' + (day / 10) as u8);
    out.push(b'0' + (day % 10) as u8);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bools() {
        assert_eq!(parse_bool(b"Yes"), Some(true));
        assert_eq!(parse_bool(b" S\xc3\xad "), Some(true));
        assert_eq!(parse_bool(b"no"), Some(false));
        assert_eq!(parse_bool(b"0"), Some(false));
        assert_eq!(parse_bool(b""), None);
        assert_eq!(parse_bool(b"maybe"), None);
    }

    #[test]
    fn ratings() {
        for (r, c) in [
            ("AAA", 1),
            ("AA-", 1),
            ("Aa3", 1),
            ("A+", 2),
            ("A2", 2),
            ("BBB-", 3),
            ("Baa1", 3),
            ("BB+", 4),
            ("Ba2", 4),
            ("B", 5),
            ("B3", 5),
            ("CCC+", 6),
            ("Caa1", 6),
            ("D", 6),
            ("AA- (sf)", 1),
            ("(P)A1", 2),
        ] {
            assert_eq!(rating_to_cqs(r.as_bytes()), Some(c), "{r}");
        }
        assert_eq!(rating_to_cqs(b"NR"), None);
        assert_eq!(rating_to_cqs(b""), None);
        assert_eq!(parse_cqs(b"2"), Some(2));
        assert_eq!(parse_cqs(b"CQS 3"), Some(3));
        assert_eq!(parse_cqs(b"7"), None);
        assert_eq!(parse_cqs(b"2.5"), None);
    }

    #[test]
    fn cqs_cells() {
        assert_eq!(read_cqs_cell(b" 3 "), CqsCell::Step(3));
        assert_eq!(read_cqs_cell(b"CQS 6"), CqsCell::Step(6));
        assert_eq!(read_cqs_cell(b"BBB+"), CqsCell::Step(3));
        assert_eq!(read_cqs_cell(b""), CqsCell::Unrated);
        assert_eq!(read_cqs_cell(b"NR"), CqsCell::Unrated);
        assert_eq!(read_cqs_cell(b"Sin calificaci\xc3\xb3n"), CqsCell::Unrated);
        assert_eq!(read_cqs_cell(b"-"), CqsCell::Unrated);
        // Out of range or unreadable is never "unrated".
        for bad in ["7", "0", "-1", "2.5", "12", "abc", "CQS 9", "3%"] {
            assert_eq!(read_cqs_cell(bad.as_bytes()), CqsCell::Invalid, "{bad}");
        }
    }

    #[test]
    fn maturities_as_users_write_them() {
        use Maturity::{Blank, Date, Days, Unreadable};
        let bare = |days: f64| Days {
            days,
            unit_written: false,
        };
        let with_unit = |days: f64| Days {
            days,
            unit_written: true,
        };
        let (d, m, y) = (
            MaturityUnit::Days,
            MaturityUnit::Months,
            MaturityUnit::Years,
        );
        // Bare numbers in the column's unit; a month is 365.25 / 12 = 30.4375 days.
        assert_eq!(read_maturity(b"3", m), bare(91.3125));
        assert_eq!(read_maturity(b"60", m), bare(1826.25));
        assert_eq!(read_maturity(b"120", m), bare(3652.5));
        assert_eq!(read_maturity(b" 4 ", m), bare(121.75));
        assert_eq!(read_maturity(b"0.25", y), bare(91.3125));
        assert_eq!(read_maturity(b"5", y), bare(1826.25));
        assert_eq!(read_maturity(b"92", d), bare(92.0));
        assert_eq!(read_maturity(b"93", d), bare(93.0));
        // Days above 1,000 are days, not a date serial; in months or years they are a serial.
        assert_eq!(read_maturity(b"1825", d), bare(1825.0));
        assert_eq!(
            read_maturity(b"45930", m),
            Date(NaiveDate::from_ymd_opt(2025, 9, 30).unwrap())
        );
        // A unit written in the cell wins over the column's.
        assert_eq!(read_maturity(b"90 dias", m), with_unit(90.0));
        assert_eq!(read_maturity(b"90 d\xc3\xadas", y), with_unit(90.0));
        assert_eq!(read_maturity(b"3M", d), with_unit(91.3125));
        assert_eq!(read_maturity(b"2 years", d), with_unit(730.5));
        assert_eq!(read_maturity(b"6 semanas", m), with_unit(42.0));
        // Dates stay dates.
        assert_eq!(
            read_maturity(b"30/09/2025", d),
            Date(NaiveDate::from_ymd_opt(2025, 9, 30).unwrap())
        );
        // Blank and unreadable.
        assert_eq!(read_maturity(b"  ", m), Blank);
        for bad in [
            &b"soon"[..],
            b"-5",
            b"3 fortnights",
            b"n/a",
            b"3%",
            b"31/02/2025",
        ] {
            assert_eq!(
                read_maturity(bad, m),
                Unreadable,
                "{:?}",
                std::str::from_utf8(bad)
            );
        }
        assert_eq!(MaturityUnit::parse("Días"), Some(d));
        assert_eq!(MaturityUnit::parse("meses"), Some(m));
        assert_eq!(MaturityUnit::parse("AÑOS"), Some(y));
        assert_eq!(MaturityUnit::parse("weeks"), None);
    }

    #[test]
    fn dates_and_maturities() {
        let rd = NaiveDate::from_ymd_opt(2025, 6, 30).unwrap();
        assert_eq!(
            parse_date(b"2025-09-30"),
            NaiveDate::from_ymd_opt(2025, 9, 30)
        );
        assert_eq!(
            parse_date(b"30/09/2025"),
            NaiveDate::from_ymd_opt(2025, 9, 30)
        );
        assert_eq!(
            parse_date(b"09/30/2025"),
            NaiveDate::from_ymd_opt(2025, 9, 30)
        );
        assert_eq!(
            parse_date(b"2025-09-30T00:00:00"),
            NaiveDate::from_ymd_opt(2025, 9, 30)
        );
        assert_eq!(parse_date(b"31/02/2025"), None);
        let m = MaturityUnit::Months;
        assert_eq!(parse_maturity_days(b"2025-09-30", m, rd), Some(92.0));
        assert_eq!(parse_maturity_days(b"90d", m, rd), Some(90.0));
        assert_eq!(
            parse_maturity_days(b"3 meses", MaturityUnit::Days, rd),
            Some(3.0 * DAYS_PER_MONTH)
        );
        assert_eq!(
            parse_maturity_days(b"2 a\xc3\xb1os", m, rd),
            Some(2.0 * DAYS_PER_YEAR)
        );
        assert_eq!(parse_maturity_days(b"45930", m, rd), Some(92.0));
        assert_eq!(parse_maturity_days(b"soon", m, rd), None);
        assert_eq!(parse_maturity_days(b"", m, rd), None);
        assert_eq!(
            excel_serial_to_date(45930.0),
            NaiveDate::from_ymd_opt(2025, 9, 30)
        );
    }
}
