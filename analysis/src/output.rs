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

/// Writes one CSV cell (quoted when needed), neutralising formulas when `text` is true.
#[inline]
pub fn write_csv_cell(out: &mut Vec<u8>, cell: &[u8], delimiter: u8, text: bool) {
    let neutral = text && needs_neutralising(cell);
    let needs_quotes = cell
        .iter()
        .any(|&b| b == delimiter || b == b'"' || b == b'\n' || b == b'\r');
    if !needs_quotes {
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
    for &b in cell {
        if b == b'"' {
            out.push(b'"');
        }
        out.push(b);
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names() {
        assert_eq!(sanitize_file_name("my file?.csv"), "my_file_.csv");
        assert_eq!(sanitize_file_name("a<b>c:d\"e/f\\g|h?i*j.csv"), "a_b_c_d_e_f_g_h_i_j.csv");
        assert_eq!(sanitize_file_name("..hidden.."), "hidden.csv");
        assert_eq!(sanitize_file_name("tab\tand  spaces"), "tab_and_spaces.csv");
        assert_eq!(sanitize_file_name("ctl\u{7}x.csv"), "ctlx.csv");
        assert_eq!(sanitize_file_name(""), "processed_file.csv");
        assert_eq!(sanitize_file_name("..."), "processed_file.csv");
        let long = format!("{}.csv", "a".repeat(400));
        let s = sanitize_file_name(&long);
        assert_eq!(s.chars().count(), 255);
        assert!(s.ends_with(".csv"));
        assert_eq!(output_file_name("exposures.csv", OutputKind::Csv), "optimized_exposures.csv");
        assert_eq!(output_file_name("optimized_x.xlsx", OutputKind::Xlsx), "optimized_x.xlsx");
        assert_eq!(output_file_name("book.xls", OutputKind::Xlsx), "optimized_book.xlsx");
        assert_eq!(output_file_name("/tmp/dir/Q1 data.csv", OutputKind::Csv), "optimized_Q1_data.csv");
        assert_eq!(output_file_name("", OutputKind::Csv), "optimized_processed_file.csv");
        assert_eq!(output_file_name(&long, OutputKind::Csv).chars().count(), 255);
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
    fn kinds_from_names() {
        assert_eq!(OutputKind::from_name("a.XLSX"), Some(OutputKind::Xlsx));
        assert_eq!(OutputKind::from_name("a.csv"), Some(OutputKind::Csv));
        assert_eq!(OutputKind::from_name("a"), None);
    }
}
