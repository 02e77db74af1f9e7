//! Tables and figures in a section's text, by the specification's numeric rules: a chart is a
//! Figure, Chart, Graph or Exhibit caption followed by at least 3 numbers (at most 10 are kept,
//! each under 1,000,000); a table is a run of aligned rows (two or more cells each) holding at
//! least 3 numeric cells.

use std::sync::LazyLock;

use regex::Regex;

use super::Line;

/// Numbers a chart needs.
pub(crate) const MIN_CHART_NUMBERS: usize = 3;
/// Numbers a chart keeps.
pub(crate) const MAX_CHART_NUMBERS: usize = 10;
/// Every chart number is below this (in absolute value).
pub(crate) const CHART_NUMBER_LIMIT: f64 = 1_000_000.0;
/// Numeric cells a table needs.
pub(crate) const MIN_TABLE_NUMBERS: usize = 3;
/// Lines after a caption searched for a chart's numbers.
const CHART_SCAN_LINES: usize = 12;
/// Most rows and columns a table keeps, and the longest cell.
pub(crate) const MAX_TABLE_ROWS: usize = 100;
pub(crate) const MAX_TABLE_COLUMNS: usize = 12;
pub(crate) const MAX_CELL_CHARS: usize = 200;
/// Most tables and charts one section keeps.
pub(crate) const MAX_BLOCKS: usize = 20;

/// A table found in the text.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// Its caption (the "Table n" line above it), or empty.
    pub caption: String,
    /// Column names: the first row when it is not numeric, else "Column n".
    pub columns: Vec<String>,
    /// Data rows, as many cells as columns.
    pub rows: Vec<Vec<String>>,
}

/// A figure found in the text: its caption and the numbers under it with their labels.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// The caption.
    pub title: String,
    /// One label per value.
    pub labels: Vec<String>,
    /// The values.
    pub values: Vec<f64>,
}

/// A table or a chart.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// A table.
    Table(Table),
    /// A chart.
    Chart(Chart),
}

static CHART_CAPTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:figure|chart|graph|exhibit)\b\s*(?:[\dA-Z][\w.\-]*)?\s*[:.\-–—]?\s*")
        .unwrap()
});
static TABLE_CAPTION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^table\s*[\dA-Z][\w.\-]*\s*[:.\-–—]?").unwrap());
static NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[(]?[-+−]?(?:€|\$|£)?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:%|bps|bp)?[)]?$")
        .unwrap()
});

/// `token` as a number ("1,250.5", "12%", "(3.2)" for -3.2), if it is one.
pub(crate) fn number(token: &str) -> Option<f64> {
    let t = token.trim_matches(|c: char| ",;:".contains(c));
    if !NUMBER.is_match(t) {
        return None;
    }
    let negative = (t.starts_with('(') && t.ends_with(')')) || t.contains(['-', '−']);
    let digits: String = t
        .chars()
        .filter(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let v: f64 = digits.parse().ok()?;
    Some(if negative { -v } else { v })
}

/// Finds the charts, then the tables, in `lines`; returns them in reading order with the lines
/// left for the text.
pub(crate) fn find<'a>(lines: &[(usize, &'a Line)]) -> (Vec<Block>, Vec<(usize, &'a Line)>) {
    let mut used = vec![false; lines.len()];
    let mut found: Vec<(usize, Block)> = Vec::new();
    charts(lines, &mut used, &mut found);
    tables(lines, &mut used, &mut found);
    found.sort_by_key(|(at, _)| *at);
    found.truncate(MAX_BLOCKS);
    let rest = lines
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|(l, _)| *l)
        .collect();
    (found.into_iter().map(|(_, b)| b).collect(), rest)
}

fn charts(lines: &[(usize, &Line)], used: &mut [bool], out: &mut Vec<(usize, Block)>) {
    let mut i = 0;
    while i < lines.len() {
        let caption = &lines[i].1.text;
        let Some(m) = CHART_CAPTION.find(caption) else {
            i += 1;
            continue;
        };
        let title = {
            let rest = caption[m.end()..].trim();
            if rest.is_empty() {
                caption.trim()
            } else {
                rest
            }
        };
        let mut labels: Vec<String> = Vec::new();
        let mut values: Vec<f64> = Vec::new();
        let mut last = i;
        let mut j = i + 1;
        let mut words_only = 0;
        while j < lines.len() && j <= i + CHART_SCAN_LINES && values.len() < MAX_CHART_NUMBERS {
            let l = lines[j].1;
            if CHART_CAPTION.is_match(&l.text) || TABLE_CAPTION.is_match(&l.text) {
                break;
            }
            let tokens: Vec<&str> = l.text.split_whitespace().collect();
            let nums: Vec<f64> = tokens
                .iter()
                .filter_map(|t| number(t))
                .filter(|v| v.abs() < CHART_NUMBER_LIMIT)
                .collect();
            let words: Vec<&str> = tokens
                .iter()
                .copied()
                .filter(|t| number(t).is_none())
                .collect();
            if nums.is_empty() {
                // A subtitle line may sit between the caption and its data.
                words_only += 1;
                if !values.is_empty() || words_only > 1 {
                    break;
                }
                j += 1;
                continue;
            }
            if !words.is_empty() {
                labels.push(words.join(" "));
                values.push(nums[nums.len() - 1]);
            } else if nums.len() == 2 {
                labels.push(tokens[0].to_owned());
                values.push(nums[1]);
            } else {
                for v in nums {
                    labels.push(String::new());
                    values.push(v);
                }
            }
            last = j;
            j += 1;
        }
        values.truncate(MAX_CHART_NUMBERS);
        labels.truncate(values.len());
        if values.len() >= MIN_CHART_NUMBERS {
            for (k, l) in labels.iter_mut().enumerate() {
                if l.is_empty() {
                    *l = (k + 1).to_string();
                }
                *l = l.chars().take(MAX_CELL_CHARS).collect();
            }
            for u in used.iter_mut().take(last + 1).skip(i) {
                *u = true;
            }
            out.push((
                i,
                Block::Chart(Chart {
                    title: title.chars().take(super::MAX_TITLE_CHARS).collect(),
                    labels,
                    values,
                }),
            ));
            i = last + 1;
        } else {
            i += 1;
        }
    }
}

fn tables(lines: &[(usize, &Line)], used: &mut [bool], out: &mut Vec<(usize, Block)>) {
    let mut i = 0;
    while i < lines.len() {
        let row = |k: usize| !used[k] && lines[k].1.cells.len() >= 2;
        if !row(i) {
            i += 1;
            continue;
        }
        let mut j = i;
        while j + 1 < lines.len() && row(j + 1) && lines[j + 1].0 == lines[i].0 {
            j += 1;
        }
        let run = &lines[i..=j];
        if run.len() >= 2
            && let Some(table) = table_of(run)
        {
            let caption_at = i
                .checked_sub(1)
                .filter(|k| !used[*k] && TABLE_CAPTION.is_match(&lines[*k].1.text));
            let caption = caption_at
                .map(|k| lines[k].1.text.clone())
                .unwrap_or_default();
            let start = caption_at.unwrap_or(i);
            for u in used.iter_mut().take(j + 1).skip(start) {
                *u = true;
            }
            out.push((
                start,
                Block::Table(Table {
                    caption: caption.chars().take(super::MAX_TITLE_CHARS).collect(),
                    ..table
                }),
            ));
        }
        i = j + 1;
    }
}

fn table_of(run: &[(usize, &Line)]) -> Option<Table> {
    // The column count most rows have (the larger on a tie).
    let mut counts = std::collections::HashMap::new();
    for (_, l) in run {
        *counts.entry(l.cells.len()).or_insert(0usize) += 1;
    }
    let ncols = counts
        .into_iter()
        .max_by_key(|(n, c)| (*c, *n))
        .map(|(n, _)| n)?
        .min(MAX_TABLE_COLUMNS);
    let mut rows: Vec<Vec<String>> = run
        .iter()
        .map(|(_, l)| {
            let mut cells: Vec<String> = l
                .cells
                .iter()
                .take(ncols)
                .map(|c| c.chars().take(MAX_CELL_CHARS).collect())
                .collect();
            if l.cells.len() > ncols {
                // Extra cells join the last column.
                let extra = l.cells[ncols..].join(" ");
                if let Some(last) = cells.last_mut() {
                    last.push(' ');
                    last.push_str(&extra);
                }
            }
            cells.resize(ncols, String::new());
            cells
        })
        .collect();
    let numeric = |r: &Vec<String>| r.iter().filter(|c| number(c).is_some()).count();
    let header_is_text = numeric(&rows[0]) == 0;
    let data_numbers: usize = rows
        .iter()
        .skip(usize::from(header_is_text))
        .map(numeric)
        .sum();
    if data_numbers < MIN_TABLE_NUMBERS {
        return None;
    }
    let columns = if header_is_text {
        rows.remove(0)
    } else {
        (1..=ncols).map(|n| format!("Column {n}")).collect()
    };
    if rows.is_empty() {
        return None;
    }
    rows.truncate(MAX_TABLE_ROWS);
    Some(Table {
        caption: String::new(),
        columns,
        rows,
    })
}
