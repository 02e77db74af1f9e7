//! Reading exposure files: CSV (delimiter and encoding sniffed) and spreadsheets (XLSX, XLS,
//! ODS: first sheet, first row headers), streamed in [`RowChunk`]s to a [`RowSink`].
//!
//! Every hostile input gets a clear [`IngestError`]: files over the size limit, spreadsheets that
//! expand beyond a bound when decompressed (zip bombs) or would need more memory than allowed
//! to load (checked before calamine opens them: see `prescan` and `xls_scan`), absurd row,
//! column or cell sizes, text that is not valid in its detected encoding, unterminated or ragged
//! CSV rows.

pub mod chunk;
pub mod csv;
mod excel;
pub mod number;
mod prescan;
pub mod sniff;
pub mod table;
pub mod values;
mod xls_scan;

use std::path::Path;

use serde::{Deserialize, Serialize};

pub use chunk::{CellKind, RowChunk, RowRef};
pub use csv::{BlockError, CsvBlock};
pub use number::{DecimalStyle, Number, parse_number};
pub use sniff::TextEncoding;

/// Errors reading a file. The texts are the product's messages.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IngestError {
    /// Nothing readable in the file.
    #[error("The uploaded file appears to be empty or invalid.")]
    Empty,
    /// A CSV file with a header row and no data row.
    #[error("No data found in CSV file")]
    NoCsvData,
    /// A spreadsheet whose first sheet has headers but no data row.
    #[error("No data found in Excel file")]
    NoExcelData,
    /// A spreadsheet whose first sheet is missing or blank.
    #[error("Excel file is empty")]
    ExcelEmpty,
    /// The spreadsheet could not be opened at all.
    #[error("Failed to read Excel file")]
    ExcelRead,
    /// The spreadsheet opened but its content is broken or refused.
    #[error("Failed to parse Excel file: {0}")]
    ExcelParse(String),
    /// Rows of the CSV file could not be parsed.
    #[error("CSV parsing errors: {0}")]
    CsvErrors(String),
    /// The CSV file could not be read.
    #[error("Failed to parse CSV file: {0}")]
    CsvFailed(String),
    /// Not a CSV, XLSX, XLS or ODS file.
    #[error("Unsupported file type")]
    UnsupportedType,
    /// Over the size limit.
    #[error("File is too large: {size} bytes, the limit is {limit} bytes")]
    TooLarge {
        /// Size of the file.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// More data rows than allowed.
    #[error("File has too many rows: more than {limit} data rows")]
    TooManyRows {
        /// The limit.
        limit: u64,
    },
    /// More columns than allowed.
    #[error("File has too many columns: {found}, at most {limit} are allowed")]
    TooManyColumns {
        /// Columns in the header row.
        found: usize,
        /// The limit.
        limit: usize,
    },
    /// Bytes that are neither UTF-8 nor Latin-1/Windows-1252 text.
    #[error("The file is not valid UTF-8 or Latin-1 text")]
    NotText,
    /// UTF-16 text.
    #[error("UTF-16 files are not supported: save the file as UTF-8 CSV")]
    Utf16,
    /// The file could not be read from disk.
    #[error("File parsing failed: {0}")]
    Io(String),
}

/// Bounds that protect the process from hostile files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limits {
    /// Largest accepted file, in bytes.
    pub max_file_bytes: u64,
    /// Largest total a spreadsheet (a zip archive) may expand to, in bytes.
    pub max_decompressed_bytes: u64,
    /// Most entries a spreadsheet archive may hold.
    pub max_archive_entries: usize,
    /// Most data rows.
    pub max_rows: u64,
    /// Most columns.
    pub max_columns: usize,
    /// Largest single cell, in bytes.
    pub max_cell_bytes: usize,
    /// Largest memory a spreadsheet reader may need to hold for the workbook as a whole, in
    /// bytes, as estimated before it is opened: an XLSX workbook's shared-string table (its
    /// text and 32 bytes per string), cell styles, relationships; every cell of an ODS or XLS
    /// workbook, which are loaded whole. The rows themselves are streamed and not counted.
    #[serde(default = "default_workbook_bytes")]
    pub max_workbook_bytes: u64,
}

fn default_workbook_bytes() -> u64 {
    512 * 1024 * 1024
}

impl Limits {
    /// The client upload limits of the product: 20 MB files.
    pub fn upload() -> Limits {
        Limits {
            max_file_bytes: 20 * 1024 * 1024,
            max_decompressed_bytes: 512 * 1024 * 1024,
            max_workbook_bytes: 256 * 1024 * 1024,
            ..Limits::default()
        }
    }
}

impl Default for Limits {
    /// Limits for files processed locally (command line, batch): 2 GiB files.
    fn default() -> Limits {
        Limits {
            max_file_bytes: 2 * 1024 * 1024 * 1024,
            max_decompressed_bytes: 2 * 1024 * 1024 * 1024,
            max_archive_entries: 10_000,
            max_rows: 20_000_000,
            max_columns: 1_000,
            max_cell_bytes: 1024 * 1024,
            max_workbook_bytes: default_workbook_bytes(),
        }
    }
}

/// The format of an input file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FileKind {
    /// Comma-, semicolon-, tab- or pipe-separated text.
    Csv,
    /// Office Open XML workbook.
    Xlsx,
    /// Legacy Excel 97-2003 workbook.
    Xls,
    /// OpenDocument spreadsheet.
    Ods,
}

impl FileKind {
    /// True for the spreadsheet formats.
    pub fn is_spreadsheet(self) -> bool {
        !matches!(self, FileKind::Csv)
    }

    /// The usual file extension.
    pub fn extension(self) -> &'static str {
        match self {
            FileKind::Csv => "csv",
            FileKind::Xlsx => "xlsx",
            FileKind::Xls => "xls",
            FileKind::Ods => "ods",
        }
    }

    /// Detects the kind from the file name and its first bytes. Content wins for binary
    /// formats (an `.xls` file that is really XLSX is read as XLSX); text with a known text
    /// extension, or with none, is CSV. PDF and other formats are refused.
    pub fn detect(name: &str, head: &[u8]) -> Result<FileKind, IngestError> {
        let ext = Path::new(name)
            .extension()
            .and_then(|e| e.to_str())
            .map(|e| e.to_ascii_lowercase())
            .unwrap_or_default();
        if head.starts_with(b"PK\x03\x04") {
            // Both XLSX and ODS are zip archives; ODS stores its mimetype first, uncompressed.
            let is_ods = ext == "ods"
                || head
                    .windows(46)
                    .take(200)
                    .any(|w| w == b"application/vnd.oasis.opendocument.spreadsheet");
            return Ok(if is_ods {
                FileKind::Ods
            } else {
                FileKind::Xlsx
            });
        }
        if head.starts_with(&[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]) {
            return Ok(FileKind::Xls);
        }
        if head.starts_with(b"%PDF") {
            return Err(IngestError::UnsupportedType);
        }
        match ext.as_str() {
            "csv" | "txt" | "tsv" | "tab" | "" => Ok(FileKind::Csv),
            // A spreadsheet extension on something that is not a spreadsheet.
            "xlsx" | "xlsm" | "xls" | "ods" => Err(IngestError::ExcelRead),
            _ => Err(IngestError::UnsupportedType),
        }
    }
}

/// Where the file comes from.
pub enum Input<'a> {
    /// A file on disk, opened for reading only; CSV is streamed from it, never loaded whole.
    Path(&'a Path),
    /// Bytes already in memory (an upload), with the original file name.
    Bytes {
        /// The original file name (for the extension and the output name).
        name: &'a str,
        /// The content.
        data: &'a [u8],
    },
    /// Any reader (an upload stream, an object-store body), with the original file name. CSV
    /// is streamed from it; a spreadsheet is read into memory first (its readers need the whole
    /// archive), both held to [`Limits::max_file_bytes`].
    Reader {
        /// The original file name (for the extension and the output name).
        name: &'a str,
        /// The content.
        reader: &'a mut dyn std::io::Read,
    },
}

impl std::fmt::Debug for Input<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Input::Path(p) => f.debug_tuple("Path").field(p).finish(),
            Input::Bytes { name, data } => f
                .debug_struct("Bytes")
                .field("name", name)
                .field("len", &data.len())
                .finish(),
            Input::Reader { name, .. } => f.debug_struct("Reader").field("name", name).finish(),
        }
    }
}

impl Input<'_> {
    /// The file name (last path component).
    pub fn name(&self) -> String {
        match self {
            Input::Path(p) => p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            Input::Bytes { name, .. } | Input::Reader { name, .. } => (*name).to_string(),
        }
    }
}

/// A reader that fails once more than `limit` bytes came through, and remembers it.
struct LimitedReader<'r> {
    inner: &'r mut dyn std::io::Read,
    read: u64,
    limit: u64,
    exceeded: bool,
}

impl std::io::Read for LimitedReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        if self.read > self.limit {
            self.exceeded = true;
            return Err(std::io::Error::other("the file is over the size limit"));
        }
        Ok(n)
    }
}

/// What was learned about the file before its rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceInfo {
    /// The format.
    pub kind: FileKind,
    /// Column names from the first row, trimmed; blanks become `Column_N`, repeats get `_2`, `_3`.
    pub headers: Vec<String>,
    /// CSV only: the detected encoding.
    pub encoding: Option<TextEncoding>,
    /// CSV only: the detected delimiter.
    pub delimiter: Option<char>,
    /// Spreadsheets only: the name of the sheet read.
    pub sheet: Option<String>,
}

/// Receives the rows of a file.
pub trait RowSink<E> {
    /// Called once, before any row.
    fn start(&mut self, info: &SourceInfo) -> Result<(), E>;
    /// Called with each filled chunk. Returns an empty chunk to fill next (recycled, or a new
    /// one), or `None` to stop reading.
    fn chunk(&mut self, chunk: RowChunk) -> Result<Option<RowChunk>, E>;
    /// True when the sink parses CSV blocks itself (on its worker threads): after the first
    /// chunk, a CSV file's rows then come as [`CsvBlock`]s through [`RowSink::block`].
    fn wants_blocks(&self) -> bool {
        false
    }
    /// Called with each block of complete CSV records after the first chunk, when
    /// [`RowSink::wants_blocks`]. The sink parses it with [`CsvBlock::parse_into`], keeps the
    /// blocks in order, and reports a [`csv::BlockError`] with the rows before the block. Returns a
    /// spare buffer for the next block, or `None` to stop reading.
    fn block(&mut self, block: CsvBlock) -> Result<Option<Vec<u8>>, E>
    where
        E: From<IngestError>,
    {
        // A sink that does not take blocks never gets one; refuse rather than drop rows.
        let _ = block;
        Err(IngestError::CsvFailed("this reader does not take CSV blocks".into()).into())
    }
}

/// Counters of a completed read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReadStats {
    /// Data rows read.
    pub rows: u64,
    /// Bytes of input consumed.
    pub bytes: u64,
    /// True when the sink stopped the read early.
    pub stopped_early: bool,
}

/// Reads `input` and streams its rows, `chunk_rows` at a time, to `sink`.
pub fn read_rows<E, S>(
    input: Input<'_>,
    limits: &Limits,
    chunk_rows: usize,
    sink: &mut S,
) -> Result<ReadStats, E>
where
    E: From<IngestError>,
    S: RowSink<E> + ?Sized,
{
    let chunk_rows = chunk_rows.max(1);
    let name = input.name();
    match input {
        Input::Path(path) => {
            let meta = std::fs::metadata(path).map_err(|e| IngestError::Io(e.to_string()))?;
            if meta.len() > limits.max_file_bytes {
                return Err(IngestError::TooLarge {
                    size: meta.len(),
                    limit: limits.max_file_bytes,
                }
                .into());
            }
            let mut file = std::fs::File::open(path).map_err(|e| IngestError::Io(e.to_string()))?;
            let mut head = [0u8; 512];
            let n = read_up_to(&mut file, &mut head).map_err(|e| IngestError::Io(e.to_string()))?;
            let kind = FileKind::detect(&name, &head[..n])?;
            if kind.is_spreadsheet() {
                let data = std::fs::read(path).map_err(|e| IngestError::Io(e.to_string()))?;
                excel::read_spreadsheet(kind, &data, limits, chunk_rows, sink)
            } else {
                use std::io::Seek;
                file.seek(std::io::SeekFrom::Start(0))
                    .map_err(|e| IngestError::Io(e.to_string()))?;
                csv::read_csv(file, limits, chunk_rows, sink)
            }
        }
        Input::Reader { reader, .. } => {
            let mut limited = LimitedReader {
                inner: reader,
                read: 0,
                limit: limits.max_file_bytes,
                exceeded: false,
            };
            let too_large = |l: &LimitedReader<'_>| IngestError::TooLarge {
                size: l.read,
                limit: l.limit,
            };
            let mut head = [0u8; 512];
            let n = match read_up_to(&mut limited, &mut head) {
                Ok(n) => n,
                Err(_) if limited.exceeded => return Err(too_large(&limited).into()),
                Err(e) => return Err(IngestError::Io(e.to_string()).into()),
            };
            let kind = FileKind::detect(&name, &head[..n])?;
            if kind.is_spreadsheet() {
                let mut data = head[..n].to_vec();
                if let Err(e) = std::io::Read::read_to_end(&mut limited, &mut data) {
                    return Err(if limited.exceeded {
                        too_large(&limited)
                    } else {
                        IngestError::Io(e.to_string())
                    }
                    .into());
                }
                excel::read_spreadsheet(kind, &data, limits, chunk_rows, sink)
            } else {
                let stream = std::io::Read::chain(&head[..n], &mut limited);
                let r = csv::read_csv(stream, limits, chunk_rows, sink);
                if limited.exceeded {
                    return Err(too_large(&limited).into());
                }
                r
            }
        }
        Input::Bytes { data, .. } => {
            if data.len() as u64 > limits.max_file_bytes {
                return Err(IngestError::TooLarge {
                    size: data.len() as u64,
                    limit: limits.max_file_bytes,
                }
                .into());
            }
            let kind = FileKind::detect(&name, &data[..data.len().min(512)])?;
            if kind.is_spreadsheet() {
                excel::read_spreadsheet(kind, data, limits, chunk_rows, sink)
            } else {
                csv::read_csv(data, limits, chunk_rows, sink)
            }
        }
    }
}

fn read_up_to(r: &mut impl std::io::Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// The first rows of a file, as text, for column detection and mapping previews.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Preview {
    /// What was learned about the file.
    pub info: SourceInfo,
    /// Up to the requested number of data rows, each as wide as the headers.
    pub rows: Vec<Vec<String>>,
}

/// Reads the headers and the first `max_rows` data rows. A file with headers but no data row
/// is refused as by a full read ('No data found in CSV file' / 'No data found in Excel file').
pub fn preview(input: Input<'_>, limits: &Limits, max_rows: usize) -> Result<Preview, IngestError> {
    struct Collect {
        info: Option<SourceInfo>,
        rows: Vec<Vec<String>>,
        max: usize,
    }
    impl RowSink<IngestError> for Collect {
        fn start(&mut self, info: &SourceInfo) -> Result<(), IngestError> {
            self.info = Some(info.clone());
            Ok(())
        }
        fn chunk(&mut self, chunk: RowChunk) -> Result<Option<RowChunk>, IngestError> {
            for i in 0..chunk.len() {
                if self.rows.len() >= self.max {
                    break;
                }
                let row = chunk.row(i);
                self.rows.push(
                    row.iter()
                        .map(|b| String::from_utf8_lossy(b).into_owned())
                        .collect(),
                );
            }
            Ok((self.rows.len() < self.max).then(|| {
                let mut c = chunk;
                c.reset(c.ncols(), 0);
                c
            }))
        }
    }
    let mut sink = Collect {
        info: None,
        rows: Vec::new(),
        max: max_rows.max(1),
    };
    read_rows(input, limits, max_rows.clamp(1, 1024), &mut sink)?;
    let info = sink.info.ok_or(IngestError::Empty)?;
    Ok(Preview {
        info,
        rows: sink.rows,
    })
}

/// Turns raw header cells into column names: trimmed, blanks named `Column_N` (1-based),
/// repeats suffixed `_2`, `_3`, ...
pub(crate) fn clean_headers<'a, I: IntoIterator<Item = &'a str>>(raw: I) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (i, h) in raw.into_iter().enumerate() {
        let t = h.trim().trim_start_matches('\u{feff}').trim();
        let base = if t.is_empty() {
            format!("Column_{}", i + 1)
        } else {
            t.to_string()
        };
        let mut name = base.clone();
        let mut k = 2;
        while out.iter().any(|o| o.eq_ignore_ascii_case(&name)) {
            name = format!("{base}_{k}");
            k += 1;
        }
        out.push(name);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        assert_eq!(FileKind::detect("a.csv", b"x,y\n"), Ok(FileKind::Csv));
        assert_eq!(
            FileKind::detect("a.xlsx", b"PK\x03\x04rest"),
            Ok(FileKind::Xlsx)
        );
        assert_eq!(
            FileKind::detect("a.xls", b"PK\x03\x04rest"),
            Ok(FileKind::Xlsx)
        );
        assert_eq!(
            FileKind::detect("a.pdf", b"%PDF-1.4"),
            Err(IngestError::UnsupportedType)
        );
        assert_eq!(
            FileKind::detect("a.docx", b"hello"),
            Err(IngestError::UnsupportedType)
        );
        assert_eq!(
            FileKind::detect("a.xlsx", b"hello"),
            Err(IngestError::ExcelRead)
        );
    }

    #[test]
    fn headers() {
        assert_eq!(
            clean_headers([" A ", "", "a", "B"]),
            vec!["A", "Column_2", "a_2", "B"]
        );
    }
}
