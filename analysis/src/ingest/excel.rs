//! Spreadsheets through calamine: XLSX streamed cell by cell; XLS and ODS through a sheet range.
//! Before calamine opens a file, [`super::prescan`] (XLSX, ODS) or [`super::xls_scan`] (XLS)
//! checks it with bounded memory against the [`Limits`], so calamine never allocates in
//! proportion to a hostile file's expansion. The rows built here are bounded too: the bytes of
//! all cells together by the decompressed limit (a shared string referenced by every cell cannot
//! expand without bound), a chunk by [`CHUNK_BYTES`] and the header row by [`header_limit`].

use std::io::Cursor;

use calamine::{Data, DataRef, Reader};

use super::chunk::{CellKind, RowChunk};
use super::{
    FileKind, IngestError, Limits, ReadStats, RowSink, SourceInfo, clean_headers, prescan, xls_scan,
};

/// A chunk is handed over once it holds this many bytes, even with fewer rows than asked.
const CHUNK_BYTES: usize = 64 * 1024 * 1024;

/// Bytes counted per header cell besides its text.
const HEADER_CELL_COST: usize = 32;

/// Most bytes of header text (with [`HEADER_CELL_COST`] per cell): the larger of the cell
/// limit and 1 MiB.
fn header_limit(limits: &Limits) -> usize {
    limits.max_cell_bytes.max(1024 * 1024)
}

fn header_too_long(row: u32, limits: &Limits) -> IngestError {
    IngestError::ExcelParse(format!(
        "row {}: the header row is longer than {} bytes",
        row + 1,
        header_limit(limits)
    ))
}

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
    /// Bytes of all cells so far.
    total_bytes: u64,
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
            total_bytes: 0,
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
        self.total_bytes = self.total_bytes.saturating_add(self.scratch.len() as u64);
        if self.total_bytes > limits.max_decompressed_bytes {
            return Err(IngestError::ExcelParse(format!(
                "the workbook expands to more than {} bytes when decompressed",
                limits.max_decompressed_bytes
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
        Ok(self.chunk.len() >= self.chunk_rows || self.chunk.byte_len() >= CHUNK_BYTES)
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
            prescan::check_zip_workbook(kind, data, limits)?;
            read_xlsx(data, limits, chunk_rows, sink)
        }
        FileKind::Ods | FileKind::Xls => {
            let (sheet, range) = if kind == FileKind::Ods {
                prescan::check_zip_workbook(kind, data, limits)?;
                first_sheet::<calamine::Ods<_>>(data)?
            } else {
                xls_scan::check_xls(data, limits)?;
                first_sheet::<calamine::Xls<_>>(data)?
            };
            let bytes = data.len() as u64;
            read_range(sheet, range, kind, bytes, limits, chunk_rows, sink)
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
    // Header row: the first row holding a non-blank cell. Cells past the column limit are not
    // kept; the last non-blank one gives the width reported.
    let mut header_cells: Vec<(usize, String)> = Vec::new();
    let mut header_row: Option<u32> = None;
    let mut header_bytes = 0usize;
    let mut too_wide: Option<usize> = None;
    let mut first_data: Option<calamine::Cell<DataRef<'_>>> = None;
    while let Some(cell) = cells.next_cell().map_err(parse)? {
        let (r, c) = cell.get_position();
        let c = c as usize;
        let val = Val::from(cell.get_value());
        match header_row {
            Some(hr) if hr != r => {
                first_data = Some(cell);
                break;
            }
            None if val.is_blank() => continue,
            _ => header_row = Some(r),
        }
        if c >= limits.max_columns {
            if !val.is_blank() {
                too_wide = Some(too_wide.unwrap_or(0).max(c + 1));
            }
            continue;
        }
        let text = val.header_text();
        header_bytes = header_bytes.saturating_add(text.len() + HEADER_CELL_COST);
        if header_bytes > header_limit(limits) {
            return Err(header_too_long(r, limits).into());
        }
        header_cells.push((c, text));
    }
    if let Some(found) = too_wide {
        return Err(IngestError::TooManyColumns {
            found,
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

/// Opens a workbook that calamine loads whole (XLS, ODS) and takes its first sheet. calamine
/// indexes some records of these formats without checking them; a panic there (none is known
/// to pass the checks made before) is caught and reported as a parse failure, never a crash.
fn first_sheet<'d, W>(data: &'d [u8]) -> Result<(String, calamine::Range<Data>), IngestError>
where
    W: Reader<Cursor<&'d [u8]>>,
    W::Error: std::fmt::Display,
{
    let open = || -> Result<(String, calamine::Range<Data>), IngestError> {
        let parse = |e: W::Error| IngestError::ExcelParse(e.to_string());
        let mut wb: W = calamine::open_workbook_from_rs(Cursor::new(data)).map_err(parse)?;
        let Some(sheet) = wb.sheet_names().into_iter().next() else {
            return Err(IngestError::ExcelEmpty);
        };
        let range = wb.worksheet_range(&sheet).map_err(parse)?;
        Ok((sheet, range))
    };
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(open)).unwrap_or_else(|_| {
        Err(IngestError::ExcelParse(
            "the workbook is malformed and could not be read".into(),
        ))
    })
}

fn read_range<E, S>(
    sheet: String,
    range: calamine::Range<Data>,
    kind: FileKind,
    bytes: u64,
    limits: &Limits,
    chunk_rows: usize,
    sink: &mut S,
) -> Result<ReadStats, E>
where
    E: From<IngestError>,
    S: RowSink<E> + ?Sized,
{
    let Some((r0, c0)) = range.start() else {
        return Err(IngestError::ExcelEmpty.into());
    };
    let mut rows_iter = range.rows().enumerate();
    // Header: first row with a non-blank cell.
    let mut header_cells = Vec::new();
    for (i, row) in rows_iter.by_ref() {
        let mut cells: Vec<(usize, String)> = Vec::new();
        let mut bytes = 0usize;
        for (j, d) in row.iter().enumerate() {
            let text = Val::from(d).header_text();
            bytes = bytes.saturating_add(text.len() + HEADER_CELL_COST);
            if bytes > header_limit(limits) {
                return Err(header_too_long(r0 + i as u32, limits).into());
            }
            cells.push((j + c0 as usize, text));
        }
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
