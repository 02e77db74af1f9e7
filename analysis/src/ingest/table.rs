//! A file read as a plain table for charts and tables in reports: its shape (headers and the
//! number of data rows) and one page of its rows with typed cells. The same readers and
//! hostile-file guards as the processing ([`super::read_rows`]); nothing here knows of exposures.

use serde::{Deserialize, Serialize};

use super::number::{DecimalStyle, is_strictly_numeric, parse_number};
use super::{CellKind, IngestError, Input, Limits, RowChunk, RowSink, SourceInfo, read_rows};

/// Most rows one page may hold.
pub const MAX_PAGE_ROWS: usize = 1_000;

/// A cell as a chart or a table takes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Cell {
    /// A blank cell.
    Empty,
    /// A number: a spreadsheet's numeric cell, or text that is a number once currency signs,
    /// spaces and thousands separators are set aside (the column's decimal style decides
    /// between `1.234` and `1,234`).
    Number(f64),
    /// Anything else, as written (dates as `YYYY-MM-DD`, booleans `TRUE`/`FALSE`).
    Text(String),
}

/// The shape of a table: what was learned of the file and its number of data rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TableShape {
    /// Format, headers, sheet (spreadsheets: the first), encoding and delimiter (CSV).
    pub info: SourceInfo,
    /// Data rows.
    pub rows: u64,
}

/// One page of a table's rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TablePage {
    /// Format, headers and sheet.
    pub info: SourceInfo,
    /// Index of the first row of the page (0 is the first data row).
    pub offset: u64,
    /// The rows, each as wide as the headers.
    pub rows: Vec<Vec<Cell>>,
}

/// Reads the whole file and counts its data rows. A file with headers and no data row is
/// refused ('No data found in CSV file' / 'No data found in Excel file').
pub fn shape(input: Input<'_>, limits: &Limits) -> Result<TableShape, IngestError> {
    struct Count {
        info: Option<SourceInfo>,
        rows: u64,
    }
    impl RowSink<IngestError> for Count {
        fn start(&mut self, info: &SourceInfo) -> Result<(), IngestError> {
            self.info = Some(info.clone());
            Ok(())
        }
        fn chunk(&mut self, mut chunk: RowChunk) -> Result<Option<RowChunk>, IngestError> {
            self.rows += chunk.len() as u64;
            let ncols = chunk.ncols();
            chunk.reset(ncols, 0);
            Ok(Some(chunk))
        }
    }
    let mut sink = Count {
        info: None,
        rows: 0,
    };
    read_rows(input, limits, 4096, &mut sink)?;
    let info = sink.info.ok_or(IngestError::Empty)?;
    Ok(TableShape {
        info,
        rows: sink.rows,
    })
}

/// Reads rows `offset..offset + limit` (at most [`MAX_PAGE_ROWS`]), stopping once they are
/// read. Text cells that are numbers become [`Cell::Number`], with each column's decimal style
/// detected from the page's values.
pub fn page(
    input: Input<'_>,
    limits: &Limits,
    offset: u64,
    limit: usize,
) -> Result<TablePage, IngestError> {
    struct Collect {
        info: Option<SourceInfo>,
        skip: u64,
        max: usize,
        rows: Vec<Vec<(String, CellKind)>>,
    }
    impl RowSink<IngestError> for Collect {
        fn start(&mut self, info: &SourceInfo) -> Result<(), IngestError> {
            self.info = Some(info.clone());
            Ok(())
        }
        fn chunk(&mut self, mut chunk: RowChunk) -> Result<Option<RowChunk>, IngestError> {
            for i in 0..chunk.len() {
                if self.skip > 0 {
                    self.skip -= 1;
                    continue;
                }
                if self.rows.len() >= self.max {
                    break;
                }
                let row = chunk.row(i);
                self.rows.push(
                    (0..chunk.ncols())
                        .map(|c| (row.text(c).to_owned(), row.kind(c)))
                        .collect(),
                );
            }
            if self.rows.len() >= self.max {
                return Ok(None);
            }
            let ncols = chunk.ncols();
            chunk.reset(ncols, 0);
            Ok(Some(chunk))
        }
    }
    let max = limit.clamp(1, MAX_PAGE_ROWS);
    let mut sink = Collect {
        info: None,
        skip: offset,
        max,
        rows: Vec::new(),
    };
    read_rows(input, limits, 1024, &mut sink)?;
    let info = sink.info.ok_or(IngestError::Empty)?;
    let ncols = info.headers.len();
    let styles: Vec<DecimalStyle> = (0..ncols)
        .map(|c| {
            DecimalStyle::detect(
                sink.rows
                    .iter()
                    .filter_map(|r| r.get(c))
                    .filter(|(_, k)| *k == CellKind::Text)
                    .map(|(t, _)| t.as_bytes()),
                DecimalStyle::Unknown,
            )
        })
        .collect();
    let rows = sink
        .rows
        .into_iter()
        .map(|r| {
            (0..ncols)
                .map(|c| match r.get(c) {
                    Some((text, kind)) => typed(text, *kind, styles[c]),
                    None => Cell::Empty,
                })
                .collect()
        })
        .collect();
    Ok(TablePage { info, offset, rows })
}

fn typed(text: &str, kind: CellKind, style: DecimalStyle) -> Cell {
    let t = text.trim();
    if t.is_empty() {
        return Cell::Empty;
    }
    match kind {
        CellKind::Number => t
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .map_or_else(|| Cell::Text(text.to_owned()), Cell::Number),
        CellKind::Text if is_strictly_numeric(t) => parse_number(t.as_bytes(), style)
            .map(|n| n.value)
            .filter(|v| v.is_finite())
            .map_or_else(|| Cell::Text(text.to_owned()), Cell::Number),
        _ => Cell::Text(text.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn csv(data: &[u8]) -> Input<'_> {
        Input::Bytes {
            name: "t.csv",
            data,
        }
    }

    #[test]
    fn counts_rows_and_reads_a_page_with_typed_cells() {
        let data = b"Month;Savings;Note\nJan;1.234,5;a\nFeb;2.000,25;\nMar;n/a;c\nApr;EUR 10;d\n";
        let s = shape(csv(data), &Limits::upload()).unwrap();
        assert_eq!(s.rows, 4);
        assert_eq!(s.info.headers, ["Month", "Savings", "Note"]);
        let p = page(csv(data), &Limits::upload(), 1, 2).unwrap();
        assert_eq!(p.offset, 1);
        assert_eq!(
            p.rows,
            vec![
                vec![Cell::Text("Feb".into()), Cell::Number(2000.25), Cell::Empty],
                vec![
                    Cell::Text("Mar".into()),
                    Cell::Text("n/a".into()),
                    Cell::Text("c".into())
                ],
            ]
        );
        // Past the end: no rows, no error.
        assert!(
            page(csv(data), &Limits::upload(), 10, 5)
                .unwrap()
                .rows
                .is_empty()
        );
        // At most MAX_PAGE_ROWS rows.
        let mut big = b"x,y\n".to_vec();
        for i in 0..(MAX_PAGE_ROWS + 50) {
            big.extend_from_slice(format!("{i},{i}\n").as_bytes());
        }
        assert_eq!(
            page(csv(&big), &Limits::upload(), 0, usize::MAX)
                .unwrap()
                .rows
                .len(),
            MAX_PAGE_ROWS
        );
        assert_eq!(
            shape(csv(&big), &Limits::upload()).unwrap().rows,
            (MAX_PAGE_ROWS + 50) as u64
        );
    }

    #[test]
    fn refusals_are_the_readers() {
        assert_eq!(
            shape(csv(b"a,b\n"), &Limits::upload()).unwrap_err(),
            IngestError::NoCsvData
        );
        assert_eq!(
            shape(csv(b""), &Limits::upload()).unwrap_err(),
            IngestError::Empty
        );
    }

    #[test]
    fn serialises_cells_as_plain_json_values() {
        let row = vec![Cell::Empty, Cell::Number(1.5), Cell::Text("x".into())];
        assert_eq!(serde_json::to_string(&row).unwrap(), r#"[null,1.5,"x"]"#);
    }
}
