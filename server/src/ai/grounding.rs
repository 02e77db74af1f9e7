//! The check a model's answer passes before it is shown: every figure in it must be a figure of
//! the data the model was given.
//!
//! A figure is a number written on its own (not inside a word or an id such as `CET1` or
//! `EXP-24M`), with optional thousands separators and decimals. It is found in the data when a
//! number of the data, rounded to the figure's decimals, equals it (`1,750,000` and `1750000.00`
//! both match `1,750,000.00`). Not checked: the numbers of numbered headers (`2.` at the start
//! of a line) and whole numbers from 0 to 10 (ordinals and small counts such as "the top 3").

/// A figure in a text: as written, its value, its decimals.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// As written.
    pub text: String,
    /// Its value.
    pub value: f64,
    /// Digits after the decimal point.
    pub decimals: u32,
}

/// The figures of a text, in order.
pub fn figures(text: &str) -> Vec<Figure> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if !c.is_ascii_digit() {
            i += 1;
            continue;
        }
        let start = i;
        let mut end = i;
        while end < chars.len() && (chars[end].is_ascii_digit() || matches!(chars[end], ',' | '.'))
        {
            end += 1;
        }
        // Separators at the end are punctuation.
        let mut last = end;
        while last > start && matches!(chars[last - 1], ',' | '.') {
            last -= 1;
        }
        i = end;
        let before = if start > 0 {
            Some(chars[start - 1])
        } else {
            None
        };
        let after = chars.get(last).copied();
        // Part of a word or an identifier.
        if before.is_some_and(|b| {
            b.is_alphanumeric()
                || b == '_'
                || b == '-' && start > 1 && chars[start - 2].is_alphanumeric()
        }) || after.is_some_and(|a| {
            a.is_alphabetic()
                || a == '_'
                || (a == '-' && chars.get(last + 1).is_some_and(|n| n.is_alphanumeric()))
        }) {
            continue;
        }
        let raw: String = chars[start..last].iter().collect();
        // A numbered header: digits then '.' at the start of a line.
        let line_start = text_line_start(&chars, start);
        if line_start && end > last && chars[last] == '.' && !raw.contains(['.', ',']) {
            continue;
        }
        let Some((value, decimals)) = parse(&raw) else {
            continue;
        };
        let negative = before == Some('-');
        out.push(Figure {
            text: raw,
            value: if negative { -value } else { value },
            decimals,
        });
    }
    out
}

fn text_line_start(chars: &[char], start: usize) -> bool {
    let mut j = start;
    while j > 0 {
        let p = chars[j - 1];
        if p == '\n' {
            return true;
        }
        if !p.is_whitespace() {
            return false;
        }
        j -= 1;
    }
    true
}

/// `1,234.5` → (1234.5, 1). Commas are thousands separators; a number with more than one '.'
/// is not a figure.
fn parse(raw: &str) -> Option<(f64, u32)> {
    let plain: String = raw.chars().filter(|c| *c != ',').collect();
    if plain.matches('.').count() > 1 {
        return None;
    }
    let decimals = plain.split_once('.').map_or(0, |(_, f)| f.len() as u32);
    plain.parse::<f64>().ok().map(|v| (v, decimals))
}

fn round_to(x: f64, decimals: u32) -> f64 {
    let p = 10f64.powi(decimals.min(12) as i32);
    (x * p).round() / p
}

/// The figures of `answer` not found in `data` (as written), in order, each once.
pub fn ungrounded(answer: &str, data: &str) -> Vec<String> {
    let known = figures(data);
    let mut out: Vec<String> = Vec::new();
    for f in figures(answer) {
        if f.decimals == 0 && (0.0..=10.0).contains(&f.value) {
            continue;
        }
        let want = f.value.abs();
        let found = known
            .iter()
            .any(|k| (round_to(k.value.abs(), f.decimals) - want).abs() <= 1e-9 * want.max(1.0));
        if !found && !out.contains(&f.text) {
            out.push(f.text);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const DATA: &str = "1. Key findings\n- RWA reduction: EUR 900,000.00\n- Matched exposures: 2 of 3 \
                        (66.67%)\n- EXP-ADIF-24M (hand.csv, row 1): risk weight 100.00% to 50.00% \
                        (CRR Art. 116(1))\n- CET1 impact: 12.5 bps\n";

    #[test]
    fn figures_skip_ids_words_and_headers() {
        let f: Vec<String> = figures(DATA).into_iter().map(|f| f.text).collect();
        assert_eq!(
            f,
            vec![
                "900,000.00",
                "2",
                "3",
                "66.67",
                "1",
                "100.00",
                "50.00",
                "116",
                "1",
                "12.5"
            ]
        );
    }

    #[test]
    fn figures_of_the_data_pass_in_any_rounding_and_others_do_not() {
        assert!(ungrounded("The RWA reduction is EUR 900,000 (66.67% matched).", DATA).is_empty());
        assert!(ungrounded("Saving 900000.00, weight 50% under Art. 116.", DATA).is_empty());
        assert!(
            ungrounded("CET1 rises by 12.5 bps; EXP-ADIF-24M is the largest.", DATA).is_empty()
        );
        assert_eq!(
            ungrounded(
                "The RWA reduction is EUR 950,000.00 and 66.7% match, 4 files.",
                DATA
            ),
            vec!["950,000.00".to_string()]
        );
        assert_eq!(
            ungrounded("It saved 12.6 bps.", DATA),
            vec!["12.6".to_string()]
        );
        assert_eq!(
            ungrounded("About 1,200 rows.", DATA),
            vec!["1,200".to_string()]
        );
    }
}
