//! Spreadsheets through calamine: XLSX streamed cell by cell; XLS and ODS through a sheet range.
//! Zip-based formats are checked before opening: entry count and total declared uncompressed
//! size are bounded (the zip reader refuses entries that expand past their declared size, so
//! the declared total is a true bound).

use std::io::Cursor;

use calamine::{Data, DataRef, Reader};

use super::chunk::{CellKind, RowChunk};
use super::{FileKind, IngestError, Limits, ReadStats, RowSink, SourceInfo, clean_headers};

/// One cell's value, whatever the format it came from.
enum Val<'a> {
    Empty,
    Text(&'a str),
    Int(i64),
    Float(f64),
    Bool(bool),
    DateTime(calamine::ExcelDateTime),
    Error(&'a calamine::CellErrorType),
}

impl<'a> From<&'a DataRef<'_>> for Val<'a> {
    fn from(d: &'a DataRef<'_>) -> Self {
        match d {
            DataRef::Empty => Val::Empty,
            DataRef::String(s) | DataRef::DateTimeIso(s) | DataRef::DurationIso(s) => Val::Text(s),
            DataRef::SharedString(s) => Val::Text(s),
            DataRef::Int(i) => Val::Int(*i),
            DataRef::Float(f) => Val::Float(*f),
            DataRef::Bool(b) => Val::Bool(*b),
            DataRef::DateTime(dt) => Val::DateTime(*dt),
            DataRef::Error(e) => Val::Error(e),
        }
    }
}

impl<'a> From<&'a Data> for Val<'a> {
    fn from(d: &'a Data) -> Self {
        match d {
            Data::Empty => Val::Empty,
            Data::String(s) | Data::DateTimeIso(s) | Data::DurationIso(s) => Val::Text(s),
            Data::Int(i) => Val::Int(*i),
            Data::Float(f) => Val::Float(*f),
            Data::Bool(b) => Val::Bool(*b),
            Data::DateTime(dt) => Val::DateTime(*dt),
            Data::Error(e) => Val::Error(e),
        }
    }
}

impl Val<'_> {
    fn is_blank(&self) -> bool {
        match self {
            Val::Empty => true,
            Val::Text(s) => s.trim().is_empty(),
            _ => false,
        }
    }

    /// Text of the cell for headers.
    fn header_text(&self) -> String {
        let mut buf = Vec::new();
        self.write(&mut buf);
        String::from_utf8_lossy(&buf).into_owned()
    }

    /// Writes the cell's text form into `out`, returning its kind.
    fn write(&self, out: &mut Vec<u8>) -> CellKind {
        match self {
            Val::Empty => CellKind::Text,
            Val::Text(s) => {
                out.extend_from_slice(s.as_bytes());
                CellKind::Text
            }
            Val::Int(i) => {
                out.extend_from_slice(itoa::Buffer::new().format(*i).as_bytes());
                CellKind::Number
            }
            Val::Float(f) => {
                write_float(*f, out);
                CellKind::Number
            }
            Val::Bool(b) => {
                out.extend_from_slice(if *b { b"TRUE" } else { b"FALSE" });
                CellKind::Bool
            }
            Val::DateTime(dt) => {
                if dt.is_datetime() {
                    let (y, mo, d, h, mi, s, _) = dt.to_ymd_hms_milli();
                    let two = |out: &mut Vec<u8>, v: u8| {
                        out.push(b'0' + v / 10);
                        out.push(b'0' + v % 10);
                    };
                    out.extend_from_slice(itoa::Buffer::new().format(y).as_bytes());
                    out.push(b'-');
                    two(out, mo);
                    out.push(b'-');
                    two(out, d);
                    if (h, mi, s) != (0, 0, 0) {
                        out.push(b'T');
                        two(out, h);
                        out.push(b':');
                        two(out, mi);
                        out.push(b':');
                        two(out, s);
                    }
                    CellKind::Date
                } else {
                    write_float(dt.as_f64(), out);
                    CellKind::Number
                }
            }
            Val::Error(e) => {
                use std::io::Write;
                let _ = write!(out, "{e}");
                CellKind::Error
            }
        }
    }
}

fn write_float(f: f64, out: &mut Vec<u8>) {
    if f.fract() == 0.0 && f.abs() < 1e15 {
        out.extend_from_slice(itoa::Buffer::new().format(f as i64).as_bytes());
    } else if f.is_finite() {
        out.extend_from_slice(ryu::Buffer::new().format_finite(f).as_bytes());
    }
}

/// Checks a zip-based workbook against the archive limits before it is opened.
fn check_archive(data: &[u8], limits: &Limits) -> Result<(), IngestError> {
    let mut zip = zip::ZipArchive::new(Cursor::new(data))
        .map_err(|e| IngestError::ExcelParse(format!("not a valid workbook archive ({e})")))?;
    if zip.len() > limits.max_archive_entries {
        return Err(IngestError::ExcelParse(format!(
            "the workbook holds {} parts, at most {} are allowed",
            zip.len(),
            limits.max_archive_entries
        )));
    }
    let mut total: u64 = 0;
    for i in 0..zip.len() {
        let entry = zip
            .by_index_raw(i)
            .map_err(|e| IngestError::ExcelParse(format!("broken workbook archive ({e})")))?;
        total = total.saturating_add(entry.size());
        if total > limits.max_decompressed_bytes {
            return Err(IngestError::ExcelParse(format!(
                "the workbook expands to more than {} bytes when decompressed",
                limits.max_decompressed_bytes
            )));
        }
    }
    Ok(())
}

/// Builds rows from cells arriving in row order.
struct RowBuilder {
    ncols: usize,
    chunk: RowChunk,
    chunk_rows: usize,
    rows: u64,
    current_row: Option<u32>,
    next_col: usize,
    open_blank: bool,
    scratch: Vec<u8>,
}

impl RowBuilder {
    fn new(ncols: usize, chunk_rows: usize) -> Self {
        let mut chunk = RowChunk::new(ncols);
        chunk.reset(ncols, 1);
        RowBuilder {
            ncols,
            chunk,
            chunk_rows,
            rows: 0,
            current_row: None,
            next_col: 0,
            open_blank: true,
            scratch: Vec::new(),
        }
    }

    /// Adds a cell. Returns `true`, without taking the cell, when the chunk is full: the
    /// caller hands it over with [`RowBuilder::swap`] and calls again with the same cell.
    fn cell(
        &mut self,
        row: u32,
        col: usize,
        val: &Val<'_>,
        limits: &Limits,
    ) -> Result<bool, IngestError> {
        if self.current_row != Some(row) {
            if self.close_row(limits)? {
                return Ok(true);
            }
            self.current_row = Some(row);
            self.next_col = 0;
            self.open_blank = true;
        }
        if col >= self.ncols || col < self.next_col {
            return Ok(false);
        }
        while self.next_col < col {
            self.chunk.push_cell(&[], CellKind::Text);
            self.next_col += 1;
        }
        self.scratch.clear();
        let kind = val.write(&mut self.scratch);
        if self.scratch.len() > limits.max_cell_bytes {
            return Err(IngestError::ExcelParse(format!(
                "row {}: a cell is longer than {} bytes",
                row + 1,
                limits.max_cell_bytes
            )));
        }
        if !val.is_blank() {
            self.open_blank = false;
        }
        self.chunk.push_cell(&self.scratch, kind);
        self.next_col += 1;
        Ok(false)
    }

    /// Closes the open row (dropping it if blank). Returns `true` when the chunk is full.
    fn close_row(&mut self, limits: &Limits) -> Result<bool, IngestError> {
        if self.current_row.is_none() {
            return Ok(false);
        }
        self.current_row = None;
        if self.open_blank {
            self.chunk.discard_open_row();
            return Ok(false);
        }
        self.chunk.end_row();
        self.rows += 1;
        if self.rows > limits.max_rows {
            return Err(IngestError::TooManyRows {
                limit: limits.max_rows,
            });
        }
        Ok(self.chunk.len() >= self.chunk_rows)
    }

    /// Hands over the full chunk, continuing in `next`.
    fn swap(&mut self, mut next: RowChunk) -> RowChunk {
        next.reset(self.ncols, self.rows + 1);
        std::mem::replace(&mut self.chunk, next)
    }
}

/// Feeds one cell, handing full chunks to the sink. `Ok(false)` means the sink stopped.
fn feed<E, S>(
    b: &mut RowBuilder,
    sink: &mut S,
    row: u32,
    col: usize,
    val: &Val<'_>,
    limits: &Limits,
) -> Result<bool, E>
where
    E: From<IngestError>,
    S: RowSink<E> + ?Sized,
{
    while b.cell(row, col, val, limits)? {
        let full = b.swap(RowChunk::new(0));
        match sink.chunk(full)? {
            Some(recycled) => {
                b.swap(recycled);
            }
            None => return Ok(false),
        }
    }
    Ok(true)
}

/// Closes the last row and hands over what is left.
fn finish<E, S>(
    mut b: RowBuilder,
    sink: &mut S,
    limits: &Limits,
    mut stats: ReadStats,
) -> Result<ReadStats, E>
where
    E: From<IngestError>,
    S: RowSink<E> + ?Sized,
{
    b.close_row(limits)?;
    stats.rows = b.rows;
    if b.rows == 0 {
        return Err(IngestError::NoExcelData.into());
    }
    if !b.chunk.is_empty() && sink.chunk(std::mem::take(&mut b.chunk))?.is_none() {
        stats.stopped_early = true;
    }
    Ok(stats)
}

fn headers_from(cells: &[(usize, String)], limits: &Limits) -> Result<Vec<String>, IngestError> {
    let width = cells
        .iter()
        .filter(|(_, t)| !t.trim().is_empty())
        .map(|(c, _)| c + 1)
        .max()
        .unwrap_or(0);
    if width == 0 {
        return Err(IngestError::ExcelEmpty);
    }
    if width > limits.max_columns {
        return Err(IngestError::TooManyColumns {
            found: width,
            limit: limits.max_columns,
        });
    }
    let mut raw = vec![String::new(); width];
    for (c, t) in cells {
        if *c < width {
            raw[*c] = t.clone();
        }
    }
    Ok(clean_headers(raw.iter().map(String::as_str)))
}

/// Reads the first sheet of a spreadsheet held in memory.
pub(super) fn read_spreadsheet<E, S>(
    kind: FileKind,
    data: &[u8],
    limits: &Limits,
    chunk_rows: usize,
    sink: &mut S,
) -> Result<ReadStats, E>
where
    E: From<IngestError>,
    S: RowSink<E> + ?Sized,
{
    if data.is_empty() {
        return Err(IngestError::Empty.into());
    }
    match kind {
        FileKind::Xlsx => {
            check_archive(data, limits)?;
            read_xlsx(data, limits, chunk_rows, sink)
        }
        FileKind::Ods => {
            check_archive(data, limits)?;
            let wb: calamine::Ods<_> = calamine::open_workbook_from_rs(Cursor::new(data))
                .map_err(|e: calamine::OdsError| IngestError::ExcelParse(e.to_string()))?;
            read_range_workbook(wb, kind, data.len() as u64, limits, chunk_rows, sink)
        }
        FileKind::Xls => {
            let wb: calamine::Xls<_> = calamine::open_workbook_from_rs(Cursor::new(data))
                .map_err(|e: calamine::XlsError| IngestError::ExcelParse(e.to_string()))?;
            read_range_workbook(wb, kind, data.len() as u64, limits, chunk_rows, sink)
        }
        FileKind::Csv => Err(IngestError::UnsupportedType.into()),
    }
}

fn read_xlsx<E, S>(
    data: &[u8],
    limits: &Limits,
    chunk_rows: usize,
    sink: &mut S,
) -> Result<ReadStats, E>
where
    E: From<IngestError>,
    S: RowSink<E> + ?Sized,
{
    let parse = |e: calamine::XlsxError| IngestError::ExcelParse(e.to_string());
    let mut wb: calamine::Xlsx<_> =
        calamine::open_workbook_from_rs(Cursor::new(data)).map_err(parse)?;
    let Some(sheet) = wb.sheet_names().into_iter().next() else {
        return Err(IngestError::ExcelEmpty.into());
    };
    let mut cells = wb.worksheet_cells_reader(&sheet).map_err(parse)?;
    // Header row: the first row holding a non-blank cell.
    let mut header_cells: Vec<(usize, String)> = Vec::new();
    let mut header_row: Option<u32> = None;
    let mut pending: Option<(u32, usize, String)> = None;
    let mut first_data: Option<calamine::Cell<DataRef<'_>>> = None;
    while let Some(cell) = cells.next_cell().map_err(parse)? {
        let (r, c) = cell.get_position();
        let val = Val::from(cell.get_value());
        match header_row {
            None => {
                if val.is_blank() {
                    continue;
                }
                header_row = Some(r);
                header_cells.push((c as usize, val.header_text()));
            }
            Some(hr) if hr == r => {
                if (c as usize) < limits.max_columns.saturating_mul(4) {
                    header_cells.push((c as usize, val.header_text()));
                } else {
                    pending = Some((r, c as usize, String::new()));
                }
            }
            Some(_) => {
                first_data = Some(cell);
                break;
            }
        }
    }
    if pending.is_some() {
        return Err(IngestError::TooManyColumns {
            found: limits.max_columns.saturating_mul(4),
            limit: limits.max_columns,
        }
        .into());
    }
    if header_row.is_none() {
        return Err(IngestError::ExcelEmpty.into());
    }
    let headers = headers_from(&header_cells, limits)?;
    let ncols = headers.len();
    sink.start(&SourceInfo {
        kind: FileKind::Xlsx,
        headers,
        encoding: None,
        delimiter: None,
        sheet: Some(sheet.clone()),
    })?;
    let mut b = RowBuilder::new(ncols, chunk_rows);
    let mut stats = ReadStats {
        bytes: data.len() as u64,
        ..ReadStats::default()
    };
    let mut next = first_data;
    while let Some(cell) = next {
        let (r, c) = cell.get_position();
        if !feed(
            &mut b,
            sink,
            r,
            c as usize,
            &Val::from(cell.get_value()),
            limits,
        )? {
            stats.rows = b.rows;
            stats.stopped_early = true;
            return Ok(stats);
        }
        next = cells.next_cell().map_err(parse)?;
    }
    finish(b, sink, limits, stats)
}

fn read_range_workbook<RS, W, E, S>(
    mut wb: W,
    kind: FileKind,
    bytes: u64,
    limits: &Limits,
    chunk_rows: usize,
    sink: &mut S,
) -> Result<ReadStats, E>
where
    RS: std::io::Read + std::io::Seek,
    W: Reader<RS>,
    W::Error: std::fmt::Display,
    E: From<IngestError>,
    S: RowSink<E> + ?Sized,
{
    let Some(sheet) = wb.sheet_names().into_iter().next() else {
        return Err(IngestError::ExcelEmpty.into());
    };
    let range = wb
        .worksheet_range(&sheet)
        .map_err(|e| IngestError::ExcelParse(e.to_string()))?;
    let Some((r0, c0)) = range.start() else {
        return Err(IngestError::ExcelEmpty.into());
    };
    let mut rows_iter = range.rows().enumerate();
    // Header: first row with a non-blank cell.
    let mut header_cells = Vec::new();
    for (_, row) in rows_iter.by_ref() {
        let cells: Vec<(usize, String)> = row
            .iter()
            .enumerate()
            .map(|(i, d)| (i + c0 as usize, Val::from(d).header_text()))
            .collect();
        if cells.iter().any(|(_, t)| !t.trim().is_empty()) {
            header_cells = cells;
            break;
        }
    }
    if header_cells.is_empty() {
        return Err(IngestError::ExcelEmpty.into());
    }
    let headers = headers_from(&header_cells, limits)?;
    let ncols = headers.len();
    sink.start(&SourceInfo {
        kind,
        headers,
        encoding: None,
        delimiter: None,
        sheet: Some(sheet.clone()),
    })?;
    let mut b = RowBuilder::new(ncols, chunk_rows);
    let mut stats = ReadStats {
        bytes,
        ..ReadStats::default()
    };
    for (i, row) in rows_iter {
        let r = r0 + i as u32;
        for (j, d) in row.iter().enumerate() {
            if !feed(&mut b, sink, r, c0 as usize + j, &Val::from(d), limits)? {
                stats.rows = b.rows;
                stats.stopped_early = true;
                return Ok(stats);
            }
        }
    }
    finish(b, sink, limits, stats)
}
