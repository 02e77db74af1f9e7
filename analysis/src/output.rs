//! Processed-file output: the added columns, output file names, CSV cell writing with quoting,
//! and spreadsheet formula-injection neutralising.

use serde::{Deserialize, Serialize};

use crate::ingest::number::{DecimalStyle, is_strictly_numeric};

/// The columns added to the original ones, in order.
pub const ADDED_COLUMNS: [&str; 8] = [
    "Suggested_Risk_Weight",
    "RW_Delta",
    "Capital_Saving",
    "Analysis_Type",
    "Match_Status",
    "Match_Details",
    "Applied_Rule",
    "Regulatory_Reference",
];

/// The format of the processed file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputKind {
    /// UTF-8 CSV.
    Csv,
    /// XLSX workbook.
    Xlsx,
}

impl OutputKind {
    /// The file extension.
    pub fn extension(self) -> &'static str {
        match self {
            OutputKind::Csv => "csv",
            OutputKind::Xlsx => "xlsx",
        }
    }

    /// The kind a file name asks for by its extension (`.xlsx`, `.xlsm`, `.xls` and `.ods` give
    /// XLSX; `.csv`, `.txt` and `.tsv` give CSV).
    pub fn from_name(name: &str) -> Option<OutputKind> {
        let ext = std::path::Path::new(name)
            .extension()?
            .to_str()?
            .to_ascii_lowercase();
        match ext.as_str() {
            "xlsx" | "xlsm" | "xls" | "ods" => Some(OutputKind::Xlsx),
            "csv" | "txt" | "tsv" => Some(OutputKind::Csv),
            _ => None,
        }
    }
}

/// Maximum length of an output file name, in characters.
pub const MAX_FILE_NAME: usize = 255;

/// Sanitises a file name as the product does: `<>:"/\|?*` become underscores, control characters
/// are removed, whitespace runs become one underscore, leading and trailing dots are removed,
/// `.csv` is added when there is no extension, `processed_file.csv` is used when nothing is
/// left, and the result is at most 255 characters (the extension is kept).
pub fn sanitize_file_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut in_space = false;
    for c in name.chars() {
        if c.is_whitespace() {
            if !in_space {
                out.push('_');
            }
            in_space = true;
            continue;
        }
        in_space = false;
        if c.is_control() {
            continue;
        }
        if matches!(c, '<' | '>' | ':' | '"' | '/' | '\\' | '|' | '?' | '*') {
            out.push('_');
        } else {
            out.push(c);
        }
    }
    let trimmed = out.trim_matches('.');
    let mut s = if trimmed.is_empty() {
        "processed_file.csv".to_string()
    } else {
        trimmed.to_string()
    };
    if std::path::Path::new(&s).extension().is_none() {
        s.push_str(".csv");
    }
    truncate_keep_extension(&s, MAX_FILE_NAME)
}

fn truncate_keep_extension(s: &str, max: usize) -> String {
    let n = s.chars().count();
    if n <= max {
        return s.to_string();
    }
    let (stem, ext) = match s.rfind('.') {
        Some(i) if s.len() - i <= 16 => (&s[..i], &s[i..]),
        _ => (s, ""),
    };
    let keep = max.saturating_sub(ext.chars().count());
    let mut out: String = stem.chars().take(keep).collect();
    out.push_str(ext);
    out
}

/// The processed file's name: the input's name, sanitised, with the output kind's extension,
/// prefixed `optimized_` once.
pub fn output_file_name(input_name: &str, kind: OutputKind) -> String {
    let base = std::path::Path::new(input_name)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let s = sanitize_file_name(&base);
    let stem = match s.rfind('.') {
        Some(i) if i > 0 => &s[..i],
        _ => s.as_str(),
    };
    let stem = stem.strip_prefix("optimized_").unwrap_or(stem);
    truncate_keep_extension(
        &format!("optimized_{stem}.{}", kind.extension()),
        MAX_FILE_NAME,
    )
}

/// True when a text cell would be read as a formula by a spreadsheet: it starts with `=`, `+`,
/// `-` or `@` (or a tab or carriage return that hides one) and is not simply a number.
pub fn needs_neutralising(cell: &[u8]) -> bool {
    match cell.first() {
        Some(b'=' | b'@' | b'\t' | b'\r') => true,
        Some(b'+' | b'-') => !std::str::from_utf8(cell).is_ok_and(is_strictly_numeric),
        _ => false,
    }
}

/// The text of a cell as written to a processed file: a leading apostrophe is added to cells
/// that [`needs_neutralising`].
pub fn neutralise(cell: &str) -> std::borrow::Cow<'_, str> {
    if needs_neutralising(cell.as_bytes()) {
        std::borrow::Cow::Owned(format!("'{cell}"))
    } else {
        std::borrow::Cow::Borrowed(cell)
    }
}

/// True when `cell` holds the delimiter, a double quote, a line feed or a carriage return, so
/// it must be quoted. Long cells (whole rows, explanations) are scanned with `memchr`'s vector
/// search, short ones byte by byte.
#[inline]
pub fn needs_quoting(cell: &[u8], delimiter: u8) -> bool {
    if cell.len() >= 16 {
        return memchr::memchr3(delimiter, b'"', b'\n', cell).is_some()
            || memchr::memchr(b'\r', cell).is_some();
    }
    cell.iter()
        .any(|&b| b == delimiter || b == b'"' || b == b'\n' || b == b'\r')
}

/// Writes one CSV cell (quoted when needed), neutralising formulas when `text` is true.
#[inline]
pub fn write_csv_cell(out: &mut Vec<u8>, cell: &[u8], delimiter: u8, text: bool) {
    let neutral = text && needs_neutralising(cell);
    if !needs_quoting(cell, delimiter) {
        if neutral {
            out.push(b'\'');
        }
        out.extend_from_slice(cell);
        return;
    }
    out.push(b'"');
    if neutral {
        out.push(b'\'');
    }
    let mut rest = cell;
    while let Some(i) = memchr::memchr(b'"', rest) {
        out.extend_from_slice(&rest[..=i]);
        out.push(b'"');
        rest = &rest[i + 1..];
    }
    out.extend_from_slice(rest);
    out.push(b'"');
}

/// Settings of a CSV output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CsvFormat {
    /// Field delimiter (the input's).
    pub delimiter: u8,
    /// Decimal separator style for the numbers written (the input's).
    pub decimal: DecimalStyle,
    /// Start the file with a UTF-8 byte-order mark (when the input had one or was Latin-1, so
    /// spreadsheet programs read the accents right).
    pub bom: bool,
}

impl Default for CsvFormat {
    fn default() -> Self {
        CsvFormat {
            delimiter: b',',
            decimal: DecimalStyle::Point,
            bom: false,
        }
    }
}

/// True for a plain decimal number that a spreadsheet shows the same way it is written
/// (`-12`, `0.5`, `1234.56`; not `007`, `1e5` or `1.234,5`).
pub fn is_plain_number(cell: &[u8]) -> bool {
    let body = cell.strip_prefix(b"-").unwrap_or(cell);
    if body.is_empty() || body.len() > 17 {
        return false;
    }
    let mut dot = false;
    for (i, &b) in body.iter().enumerate() {
        match b {
            b'0'..=b'9' => {}
            b'.' if !dot && i > 0 && i + 1 < body.len() => dot = true,
            _ => return false,
        }
    }
    !(body.len() > 1 && body[0] == b'0' && body[1] != b'.')
}

/// Converts CSV bytes into an XLSX workbook at `path` (one sheet, plain numbers written as
/// numbers, text neutralised against formula injection). Returns the data rows written. Writes a
/// file: only with the `cli` feature.
#[cfg(feature = "cli")]
pub fn csv_to_xlsx(csv: &[u8], path: &std::path::Path) -> crate::error::Result<u64> {
    use crate::error::Error;
    use crate::ingest::{Input, Limits, RowChunk, RowSink, SourceInfo, read_rows};

    struct ToXlsx {
        workbook: rust_xlsxwriter::Workbook,
        row: u32,
    }
    fn xerr(e: rust_xlsxwriter::XlsxError) -> Error {
        Error::Output(e.to_string())
    }
    impl RowSink<Error> for ToXlsx {
        fn start(&mut self, info: &SourceInfo) -> crate::error::Result<()> {
            let ws = self.workbook.worksheet_from_index(0).map_err(xerr)?;
            for (c, h) in info.headers.iter().enumerate() {
                ws.write_string(0, c as u16, neutralise(h).as_ref())
                    .map_err(xerr)?;
            }
            Ok(())
        }
        fn chunk(&mut self, chunk: RowChunk) -> crate::error::Result<Option<RowChunk>> {
            let ws = self.workbook.worksheet_from_index(0).map_err(xerr)?;
            for i in 0..chunk.len() {
                if self.row >= 1_048_575 {
                    return Err(Error::Output("more rows than a spreadsheet holds".into()));
                }
                self.row += 1;
                let r = chunk.row(i);
                for c in 0..r.len() {
                    let cell = r.get(c);
                    if cell.is_empty() {
                        continue;
                    }
                    let text = r.text(c);
                    if is_plain_number(cell)
                        && let Ok(v) = text.parse::<f64>()
                    {
                        ws.write_number(self.row, c as u16, v).map_err(xerr)?;
                    } else {
                        ws.write_string(self.row, c as u16, neutralise(text).as_ref())
                            .map_err(xerr)?;
                    }
                }
            }
            let mut c = chunk;
            c.reset(c.ncols(), 0);
            Ok(Some(c))
        }
    }
    let mut workbook = rust_xlsxwriter::Workbook::new();
    workbook.set_zip_compression_level(1);
    workbook.add_worksheet_with_low_memory().map_err(xerr)?;
    let mut sink = ToXlsx { workbook, row: 0 };
    let stats = read_rows(
        Input::Bytes {
            name: "generated.csv",
            data: csv,
        },
        &Limits::default(),
        8192,
        &mut sink,
    )?;
    sink.workbook.save(path).map_err(xerr)?;
    Ok(stats.rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names() {
        assert_eq!(sanitize_file_name("my file?.csv"), "my_file_.csv");
        assert_eq!(
            sanitize_file_name("a<b>c:d\"e/f\\g|h?i*j.csv"),
            "a_b_c_d_e_f_g_h_i_j.csv"
        );
        assert_eq!(sanitize_file_name("..hidden.."), "hidden.csv");
        assert_eq!(sanitize_file_name("tab\tand  spaces"), "tab_and_spaces.csv");
        assert_eq!(sanitize_file_name("ctl\u{7}x.csv"), "ctlx.csv");
        assert_eq!(sanitize_file_name(""), "processed_file.csv");
        assert_eq!(sanitize_file_name("..."), "processed_file.csv");
        let long = format!("{}.csv", "a".repeat(400));
        let s = sanitize_file_name(&long);
        assert_eq!(s.chars().count(), 255);
        assert!(s.ends_with(".csv"));
        assert_eq!(
            output_file_name("exposures.csv", OutputKind::Csv),
            "optimized_exposures.csv"
        );
        assert_eq!(
            output_file_name("optimized_x.xlsx", OutputKind::Xlsx),
            "optimized_x.xlsx"
        );
        assert_eq!(
            output_file_name("book.xls", OutputKind::Xlsx),
            "optimized_book.xlsx"
        );
        assert_eq!(
            output_file_name("/tmp/dir/Q1 data.csv", OutputKind::Csv),
            "optimized_Q1_data.csv"
        );
        assert_eq!(
            output_file_name("", OutputKind::Csv),
            "optimized_processed_file.csv"
        );
        assert_eq!(
            output_file_name(&long, OutputKind::Csv).chars().count(),
            255
        );
    }

    #[test]
    fn formula_injection() {
        assert!(needs_neutralising(b"=SUM(A1)"));
        assert!(needs_neutralising(b"@cmd"));
        assert!(needs_neutralising(b"+cmd|' /C calc'!A0"));
        assert!(needs_neutralising(b"-2+3+cmd"));
        assert!(!needs_neutralising(b"-2.5"));
        assert!(!needs_neutralising(b"+34"));
        assert!(!needs_neutralising(b"plain"));
        let mut out = Vec::new();
        write_csv_cell(&mut out, b"=1+1", b',', true);
        out.push(b'|');
        write_csv_cell(&mut out, b"=HYPERLINK(\"x\",\"y\")", b',', true);
        out.push(b'|');
        write_csv_cell(&mut out, b"a;b", b';', true);
        out.push(b'|');
        write_csv_cell(&mut out, b"-5", b',', true);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "'=1+1|\"'=HYPERLINK(\"\"x\"\",\"\"y\"\")\"|\"a;b\"|-5"
        );
        assert_eq!(neutralise("=x"), "'=x");
        assert_eq!(neutralise("x"), "x");
    }

    #[test]
    fn quoting_detection() {
        for d in [b',', b';', b'\t'] {
            for s in [
                "",
                "a",
                "abcdefgh",
                "abcdefghijklmnop",
                "x\"y",
                "line\nbreak",
                "cr\r",
                "0123456789abcdef\"",
                "a;b",
                "a,b",
                "a\tb",
            ] {
                let slow = s
                    .bytes()
                    .any(|b| b == d || b == b'"' || b == b'\n' || b == b'\r');
                assert_eq!(needs_quoting(s.as_bytes(), d), slow, "{s:?} {d}");
            }
        }
        // Every byte value at every position of a 16-byte cell.
        for pos in 0..16 {
            for b in 0..=255u8 {
                let mut cell = [b'x'; 16];
                cell[pos] = b;
                let slow = cell
                    .iter()
                    .any(|&c| c == b',' || c == b'"' || c == b'\n' || c == b'\r');
                assert_eq!(needs_quoting(&cell, b','), slow);
            }
        }
    }

    #[test]
    fn plain_numbers() {
        for (s, ok) in [
            ("12", true),
            ("-0.5", true),
            ("0", true),
            ("0.25", true),
            ("007", false),
            ("1e5", false),
            ("1.", false),
            (".5", false),
            ("Q99", false),
            ("", false),
        ] {
            assert_eq!(is_plain_number(s.as_bytes()), ok, "{s}");
        }
    }

    #[test]
    fn kinds_from_names() {
        assert_eq!(OutputKind::from_name("a.XLSX"), Some(OutputKind::Xlsx));
        assert_eq!(OutputKind::from_name("a.csv"), Some(OutputKind::Csv));
        assert_eq!(OutputKind::from_name("a"), None);
    }
}
