//! Number parsing straight from bytes, without allocating.
//!
//! Files arrive in Spanish notation (`1.234.567,89`), English notation (`1,234,567.89`) or plain
//! (`1234567.89`), sometimes with currency symbols, `%` signs, spaces or accounting parentheses.
//! [`parse_number`] reads all of them; where a value alone is ambiguous (`1.234` could be one
//! thousand two hundred and thirty-four or one point two three four) the column's
//! [`DecimalStyle`], detected from a sample by [`DecimalStyle::detect`], decides.

use serde::{Deserialize, Serialize};

/// The decimal separator a column (or file) uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecimalStyle {
    /// `1,234.5`: point decimal, comma thousands (English notation).
    Point,
    /// `1.234,5`: comma decimal, point thousands (Spanish notation).
    Comma,
    /// Not known: a single point is read as decimal, a single comma followed by exactly three
    /// digits as a thousands separator, any other single comma as decimal.
    #[default]
    Unknown,
}

impl DecimalStyle {
    /// Detects the style of a column from sample values, by majority of the values that are not
    /// ambiguous on their own. `fallback` is returned when no value tells.
    pub fn detect<'a, I>(values: I, fallback: DecimalStyle) -> DecimalStyle
    where
        I: IntoIterator<Item = &'a [u8]>,
    {
        let (point, comma) = DecimalStyle::votes(values);
        DecimalStyle::from_votes(point, comma, fallback)
    }

    /// The style the votes of [`DecimalStyle::votes`] elect, or `fallback` on a tie.
    pub fn from_votes(point: usize, comma: usize, fallback: DecimalStyle) -> DecimalStyle {
        if point > comma {
            DecimalStyle::Point
        } else if comma > point {
            DecimalStyle::Comma
        } else {
            fallback
        }
    }

    /// How many values show a decimal point (`1,234.56`) and how many a decimal comma
    /// (`1.234,56`); values that fit either count for neither.
    pub fn votes<'a, I>(values: I) -> (usize, usize)
    where
        I: IntoIterator<Item = &'a [u8]>,
    {
        let (mut point, mut comma) = (0usize, 0usize);
        for v in values {
            match vote(v) {
                Some(DecimalStyle::Point) => point += 1,
                Some(DecimalStyle::Comma) => comma += 1,
                _ => {}
            }
        }
        (point, comma)
    }

    /// The decimal separator byte used when writing numbers back in this style.
    pub fn separator(self) -> u8 {
        match self {
            DecimalStyle::Comma => b',',
            _ => b'.',
        }
    }
}

/// What a single value says about the decimal style, when it says anything.
fn vote(v: &[u8]) -> Option<DecimalStyle> {
    let mut dots = 0usize;
    let mut commas = 0usize;
    let mut last_dot = 0usize;
    let mut last_comma = 0usize;
    let mut digits_total = 0usize;
    for (i, &b) in v.iter().enumerate() {
        match b {
            b'.' => {
                dots += 1;
                last_dot = i;
            }
            b',' => {
                commas += 1;
                last_comma = i;
            }
            b'0'..=b'9' => digits_total += 1,
            _ => {}
        }
    }
    if digits_total == 0 {
        return None;
    }
    let digits_after = |pos: usize| {
        v[pos + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    match (dots, commas) {
        (0, 0) => None,
        (d, c) if d > 0 && c > 0 => Some(if last_comma > last_dot {
            DecimalStyle::Comma
        } else {
            DecimalStyle::Point
        }),
        (d, 0) if d > 1 => Some(DecimalStyle::Comma),
        (0, c) if c > 1 => Some(DecimalStyle::Point),
        (1, 0) => (digits_after(last_dot) != 3).then_some(DecimalStyle::Point),
        (0, 1) => (digits_after(last_comma) != 3).then_some(DecimalStyle::Comma),
        _ => None,
    }
}

/// A parsed number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Number {
    /// The value as written (a `%` sign does not scale it: `20%` gives 20).
    pub value: f64,
    /// The value carried a `%` sign.
    pub percent: bool,
}

const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Longest cleaned number we read; longer inputs are not numbers we can trust.
const MAX_NUMBER_LEN: usize = 64;

/// Parses a number leniently, as the processing step does: characters that cannot belong to a
/// number (currency symbols and codes, spaces, letters) are stripped, `%` is noted, accounting
/// parentheses and a leading or trailing minus make it negative, and the decimal separator is
/// resolved with `style`. Returns `None` when no digit is left. Never allocates.
pub fn parse_number(bytes: &[u8], style: DecimalStyle) -> Option<Number> {
    // Fast path: plain `-?digits(.digits)?`, the common case in machine-written files.
    if let Some(v) = fast_plain(bytes, style) {
        return Some(Number {
            value: v,
            percent: false,
        });
    }
    slow_parse(bytes, style)
}

/// Clinger's fast path: an integer mantissa below 2^53 divided by an exact power of ten is
/// correctly rounded.
#[inline]
fn fast_plain(bytes: &[u8], style: DecimalStyle) -> Option<f64> {
    let (neg, body) = match bytes.first() {
        Some(b'-') => (true, &bytes[1..]),
        _ => (false, bytes),
    };
    if body.is_empty() || body.len() > 17 {
        return None;
    }
    let mut mantissa: u64 = 0;
    let mut dot = None;
    for (i, &b) in body.iter().enumerate() {
        let d = b.wrapping_sub(b'0');
        if d < 10 {
            mantissa = mantissa * 10 + u64::from(d);
        } else if b == b'.' && dot.is_none() {
            dot = Some(i);
        } else {
            return None;
        }
    }
    let seen_sep = dot.is_some();
    let (int_digits, frac_digits) = match dot {
        Some(i) => (i, body.len() - i - 1),
        None => (body.len(), 0),
    };
    if int_digits == 0 || (seen_sep && frac_digits == 0) {
        return None;
    }
    // A lone point followed by exactly three digits is a thousands separator in Spanish files.
    if seen_sep && frac_digits == 3 && style == DecimalStyle::Comma {
        return None;
    }
    if mantissa >= (1u64 << 53) {
        return None;
    }
    let v = mantissa as f64 / POW10[frac_digits];
    Some(if neg { -v } else { v })
}

fn slow_parse(bytes: &[u8], style: DecimalStyle) -> Option<Number> {
    // Collect the characters that matter into a small stack buffer.
    let mut buf = [0u8; MAX_NUMBER_LEN];
    let mut n = 0usize;
    let mut negative = false;
    let mut percent = false;
    let mut seen_digit = false;
    let mut exp: Option<usize> = None; // index in buf where the exponent starts
    let mut i = 0usize;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'0'..=b'9' => {
                if n >= MAX_NUMBER_LEN {
                    return None;
                }
                buf[n] = b;
                n += 1;
                seen_digit = true;
            }
            b'.' | b',' if exp.is_none() => {
                if n >= MAX_NUMBER_LEN {
                    return None;
                }
                buf[n] = b;
                n += 1;
            }
            // A minus sign anywhere outside the exponent makes the number negative.
            b'-' if exp.is_none() => negative = true,
            // The Unicode minus U+2212 (E2 88 92) too.
            b'\xE2' if exp.is_none() && bytes.get(i + 1..i + 3) == Some(&b"\x88\x92"[..]) => {
                negative = true;
                i += 2;
            }
            b'(' => negative = true,
            b'%' => percent = true,
            b'e' | b'E' if seen_digit && exp.is_none() => {
                // Scientific notation only when digits (optionally signed) follow directly.
                let rest = &bytes[i + 1..];
                let (sign, rest2) = match rest.first() {
                    Some(b'+') => (None, &rest[1..]),
                    Some(b'-') => (Some(b'-'), &rest[1..]),
                    _ => (None, rest),
                };
                if rest2.first().is_some_and(u8::is_ascii_digit) {
                    if n + 2 >= MAX_NUMBER_LEN {
                        return None;
                    }
                    exp = Some(n);
                    buf[n] = b'e';
                    n += 1;
                    if let Some(s) = sign {
                        buf[n] = s;
                        n += 1;
                    }
                    i += 1 + usize::from(rest.len() != rest2.len());
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    if !seen_digit {
        return None;
    }
    let mantissa_end = exp.unwrap_or(n);
    let decimal = resolve_decimal(&buf[..mantissa_end], style);
    // Rebuild in place: drop thousands separators, turn the decimal separator into '.'.
    // Room for a sign and a leading zero before the (at most MAX_NUMBER_LEN) collected bytes.
    let mut out = [0u8; MAX_NUMBER_LEN + 2];
    let mut m = 0usize;
    if negative {
        out[0] = b'-';
        m = 1;
    }
    let mut has_int_digit = false;
    for (idx, &b) in buf[..mantissa_end].iter().enumerate() {
        match b {
            b'.' | b',' => {
                if Some(idx) == decimal {
                    if !has_int_digit {
                        out[m] = b'0';
                        m += 1;
                    }
                    out[m] = b'.';
                    m += 1;
                }
            }
            _ => {
                out[m] = b;
                m += 1;
                has_int_digit = true;
            }
        }
    }
    if !has_int_digit {
        return None;
    }
    out[m..m + (n - mantissa_end)].copy_from_slice(&buf[mantissa_end..n]);
    m += n - mantissa_end;
    let text = std::str::from_utf8(&out[..m]).ok()?;
    let value: f64 = text.parse().ok()?;
    value.is_finite().then_some(Number { value, percent })
}

/// Index of the decimal separator in a cleaned mantissa (digits, points and commas), if any.
fn resolve_decimal(m: &[u8], style: DecimalStyle) -> Option<usize> {
    let mut dots = 0usize;
    let mut commas = 0usize;
    let mut last_dot = 0usize;
    let mut last_comma = 0usize;
    for (i, &b) in m.iter().enumerate() {
        if b == b'.' {
            dots += 1;
            last_dot = i;
        } else if b == b',' {
            commas += 1;
            last_comma = i;
        }
    }
    let digits_after = |pos: usize| {
        m[pos + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    let digits_before = |pos: usize| m[..pos].iter().filter(|b| b.is_ascii_digit()).count();
    match (dots, commas) {
        (0, 0) => None,
        (d, c) if d > 0 && c > 0 => Some(last_dot.max(last_comma)),
        (d, 0) if d > 1 => None,
        (0, c) if c > 1 => None,
        (1, 0) => {
            let thousands = style == DecimalStyle::Comma
                && digits_after(last_dot) == 3
                && (1..=3).contains(&digits_before(last_dot));
            (!thousands).then_some(last_dot)
        }
        (0, 1) => {
            let thousands = style != DecimalStyle::Comma
                && digits_after(last_comma) == 3
                && (1..=3).contains(&digits_before(last_comma));
            (!thousands).then_some(last_comma)
        }
        _ => None,
    }
}

/// Strict check used by mapping validation: is the text a number once whitespace, a `%` sign,
/// currency symbols and a three-letter currency code are set aside? Blank is not numeric (the
/// caller decides whether blank is allowed).
pub fn is_strictly_numeric(text: &str) -> bool {
    let mut t = text.trim();
    for code in ["EUR", "USD", "GBP", "CHF", "JPY"] {
        if let Some(s) = t.strip_prefix(code) {
            t = s.trim_start();
        }
        if let Some(s) = t.strip_suffix(code) {
            t = s.trim_end();
        }
    }
    let mut digits = 0usize;
    let chars: Vec<char> = t.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        match c {
            '0'..='9' => digits += 1,
            '.' | ',' | '-' | '+' | '%' | '(' | ')' | '€' | '$' | '£' | '¥' | '\u{2212}' | ' '
            | '\u{a0}' | '\u{202f}' | '\'' => {}
            // An exponent only between a digit and a (signed) digit.
            'e' | 'E'
                if i > 0
                    && chars[i - 1].is_ascii_digit()
                    && chars
                        .get(i + 1)
                        .is_some_and(|n| n.is_ascii_digit() || *n == '+' || *n == '-') => {}
            _ => return false,
        }
    }
    digits > 0 && parse_number(t.as_bytes(), DecimalStyle::Unknown).is_some()
}

/// Writes `v` rounded to `decimals` places, without trailing zeros, with the given decimal
/// separator, into `out`. Never allocates beyond `out`'s growth.
pub fn write_number(out: &mut Vec<u8>, v: f64, decimals: u32, sep: u8) {
    if !v.is_finite() {
        return;
    }
    // The output's usual cases (weights with 4 or 6 places, amounts with 2) without the library
    // calls of the general path (powi, round, division by a variable); same digits.
    if let Some(&(scale, unit)) = SCALES.get(decimals as usize) {
        let x = v * scale;
        if x.abs() < 4.0e15 {
            // Round half away from zero, as f64::round: x - trunc(x) is exact in this range.
            let t = x as i64;
            let f = x - t as f64;
            let units = if f >= 0.5 {
                t + 1
            } else if f <= -0.5 {
                t - 1
            } else {
                t
            };
            match decimals {
                2 => write_units::<100>(out, units, 2, sep),
                4 => write_units::<10_000>(out, units, 4, sep),
                6 => write_units::<1_000_000>(out, units, 6, sep),
                _ => write_units_by(out, units, unit, decimals as usize, sep),
            }
            return;
        }
    }
    write_number_general(out, v, decimals, sep);
}

/// [`write_number`] for any value and number of places.
fn write_number_general(out: &mut Vec<u8>, v: f64, decimals: u32, sep: u8) {
    let scale = 10f64.powi(decimals as i32);
    let scaled = (v * scale).round();
    if scaled.abs() < 9.0e15 {
        let mut units = scaled as i64;
        if units < 0 {
            out.push(b'-');
            units = -units;
        }
        let unit = 10i64.pow(decimals);
        let int = units / unit;
        let mut frac = units % unit;
        let mut ib = itoa::Buffer::new();
        out.extend_from_slice(ib.format(int).as_bytes());
        if frac != 0 {
            let mut width = decimals as usize;
            while frac % 10 == 0 {
                frac /= 10;
                width -= 1;
            }
            out.push(sep);
            let s = ib.format(frac);
            for _ in s.len()..width {
                out.push(b'0');
            }
            out.extend_from_slice(s.as_bytes());
        }
    } else {
        // Beyond exact integer range: rare, so the standard formatter is fine here.
        let s = format!("{v}");
        for &b in s.as_bytes() {
            out.push(if b == b'.' { sep } else { b });
        }
    }
}

/// 10^d as f64 and i64, for d in 0..=9 (exact in both).
const SCALES: [(f64, i64); 10] = [
    (1.0, 1),
    (10.0, 10),
    (100.0, 100),
    (1e3, 1_000),
    (1e4, 10_000),
    (1e5, 100_000),
    (1e6, 1_000_000),
    (1e7, 10_000_000),
    (1e8, 100_000_000),
    (1e9, 1_000_000_000),
];

/// Writes `units` / `UNIT` with `decimals` places at most, trailing zeros cut.
#[inline]
fn write_units<const UNIT: i64>(out: &mut Vec<u8>, units: i64, decimals: usize, sep: u8) {
    write_units_by(out, units, UNIT, decimals, sep);
}

#[inline(always)]
fn write_units_by(out: &mut Vec<u8>, mut units: i64, unit: i64, decimals: usize, sep: u8) {
    if units < 0 {
        out.push(b'-');
        units = -units;
    }
    let int = units / unit;
    let mut frac = units % unit;
    let mut ib = itoa::Buffer::new();
    out.extend_from_slice(ib.format(int).as_bytes());
    if frac != 0 {
        let mut width = decimals;
        while frac % 10 == 0 {
            frac /= 10;
            width -= 1;
        }
        out.push(sep);
        let s = ib.format(frac);
        for _ in s.len()..width {
            out.push(b'0');
        }
        out.extend_from_slice(s.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_writer_writes_what_the_general_one_does() {
        // Values of every magnitude, halves and near-halves included, in both signs.
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut values = vec![
            0.0, -0.0, 0.5, -0.5, 0.005, -0.005, 0.125, 2.5e-5, 1e15, 3.999e15,
        ];
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mantissa = (x >> 11) as f64 / (1u64 << 53) as f64;
            let exp = ((x >> 3) % 40) as i32 - 20;
            let v = mantissa * 10f64.powi(exp);
            values.push(if x & 1 == 0 { v } else { -v });
            let cents = ((x >> 20) % 100_000_000) as f64 / 100.0 + 0.005;
            values.push(cents);
        }
        for v in values {
            for d in [0, 1, 2, 3, 4, 6, 9, 12] {
                let (mut a, mut b) = (Vec::new(), Vec::new());
                write_number(&mut a, v, d, b'.');
                write_number_general(&mut b, v, d, b'.');
                assert_eq!(a, b, "{v} with {d} places");
            }
        }
    }

    fn p(s: &str) -> Option<f64> {
        parse_number(s.as_bytes(), DecimalStyle::Unknown).map(|n| n.value)
    }
    fn ps(s: &str, st: DecimalStyle) -> Option<f64> {
        parse_number(s.as_bytes(), st).map(|n| n.value)
    }

    #[test]
    fn plain_numbers() {
        assert_eq!(p("1234.56"), Some(1234.56));
        assert_eq!(p("-0.5"), Some(-0.5));
        assert_eq!(p("0"), Some(0.0));
        assert_eq!(p("100"), Some(100.0));
        assert_eq!(p(""), None);
        assert_eq!(p("abc"), None);
        assert_eq!(p("."), None);
    }

    #[test]
    fn spanish_and_english_notation() {
        assert_eq!(p("1.234.567,89"), Some(1234567.89));
        assert_eq!(p("1,234,567.89"), Some(1234567.89));
        assert_eq!(ps("1.234", DecimalStyle::Comma), Some(1234.0));
        assert_eq!(ps("1.234", DecimalStyle::Point), Some(1.234));
        assert_eq!(ps("1,234", DecimalStyle::Comma), Some(1.234));
        assert_eq!(ps("1,234", DecimalStyle::Point), Some(1234.0));
        assert_eq!(p("12,5"), Some(12.5));
        assert_eq!(p("0,2"), Some(0.2));
        assert_eq!(ps("1234,5", DecimalStyle::Comma), Some(1234.5));
        assert_eq!(p(",5"), Some(0.5));
    }

    #[test]
    fn symbols_percent_and_signs() {
        let n = parse_number(b"20%", DecimalStyle::Unknown).unwrap();
        assert_eq!((n.value, n.percent), (20.0, true));
        let n = parse_number(b" 20 % ", DecimalStyle::Unknown).unwrap();
        assert_eq!((n.value, n.percent), (20.0, true));
        assert_eq!(p("EUR 1,500.00"), Some(1500.0));
        assert_eq!(p("1.500,00 \u{20ac}"), Some(1500.0));
        assert_eq!(p("(1,000.50)"), Some(-1000.5));
        assert_eq!(p("1 234 567,5"), Some(1234567.5));
        assert_eq!(p("1.5E+06"), Some(1_500_000.0));
        assert_eq!(p("2e-3"), Some(0.002));
        assert_eq!(p("\u{2212}5"), Some(-5.0));
    }

    #[test]
    fn longest_inputs() {
        // Found by fuzzing: a sign and a leading zero on top of a full buffer.
        let mut s = String::from("-,");
        s.push_str(&"9".repeat(MAX_NUMBER_LEN - 1));
        assert!(parse_number(s.as_bytes(), DecimalStyle::Unknown).is_some());
        let long = "9".repeat(200);
        assert_eq!(parse_number(long.as_bytes(), DecimalStyle::Unknown), None);
    }

    #[test]
    fn detect_style() {
        let es: Vec<&[u8]> = vec![b"1.234,5", b"200", b"12,5"];
        assert_eq!(
            DecimalStyle::detect(es, DecimalStyle::Unknown),
            DecimalStyle::Comma
        );
        let en: Vec<&[u8]> = vec![b"1,234.5", b"200", b"12.5"];
        assert_eq!(
            DecimalStyle::detect(en, DecimalStyle::Unknown),
            DecimalStyle::Point
        );
        let none: Vec<&[u8]> = vec![b"1,234", b"200"];
        assert_eq!(
            DecimalStyle::detect(none, DecimalStyle::Comma),
            DecimalStyle::Comma
        );
    }

    #[test]
    fn strict_numeric() {
        assert!(is_strictly_numeric("1.234,56"));
        assert!(is_strictly_numeric(" 20% "));
        assert!(is_strictly_numeric("EUR 100"));
        assert!(!is_strictly_numeric("abc"));
        assert!(!is_strictly_numeric("12abc"));
        assert!(!is_strictly_numeric(""));
        assert!(!is_strictly_numeric("E0"));
        assert!(is_strictly_numeric("1.5E+06"));
    }

    #[test]
    fn writing() {
        let w = |v: f64, d: u32, s: u8| {
            let mut o = Vec::new();
            write_number(&mut o, v, d, s);
            String::from_utf8(o).unwrap()
        };
        assert_eq!(w(20.0, 4, b'.'), "20");
        assert_eq!(w(0.35 - 0.2, 6, b'.'), "0.15");
        assert_eq!(w(1234.5, 2, b','), "1234,5");
        assert_eq!(w(-0.001, 2, b'.'), "0");
        assert_eq!(w(-12.05, 2, b'.'), "-12.05");
        assert_eq!(w(0.05, 2, b'.'), "0.05");
        assert_eq!(w(1e20, 2, b'.'), "100000000000000000000");
    }
}
