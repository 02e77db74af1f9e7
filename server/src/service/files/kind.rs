//! What an upload is: its type recognised by content and extension together, the ingest's
//! hostile-file guards applied to tables, and the user's file name made safe to keep and show.

use std::io::Read;
use std::path::Path;

use analysis::ingest::{IngestError, Limits, Preview};

use crate::error::{ApiError, ApiResult};

/// The refusal of anything that is not a PDF, a spreadsheet or CSV text (or whose content does
/// not match its extension).
pub const UNSUPPORTED: &str = "Please upload only PDF, Excel, or CSV files.";
/// The refusal of an empty or unreadable file.
pub const EMPTY: &str = "The uploaded file appears to be empty or invalid.";
/// The refusal of a file over `MAX_UPLOAD_MB`.
pub const TOO_LARGE: &str = "File too large";

/// Bytes of the start of an upload kept for recognition.
pub const HEAD_BYTES: usize = 8192;

/// The types of file a client may upload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileType {
    /// Comma-separated text.
    Csv,
    /// Delimited text with a `.txt` name.
    Txt,
    /// Office Open XML workbook.
    Xlsx,
    /// Excel 97-2003 workbook.
    Xls,
    /// OpenDocument spreadsheet.
    Ods,
    /// PDF (stored and listed, never processed).
    Pdf,
}

impl FileType {
    /// The stored name (`client_files.file_type`), also the extension.
    pub fn as_str(self) -> &'static str {
        match self {
            FileType::Csv => "csv",
            FileType::Txt => "txt",
            FileType::Xlsx => "xlsx",
            FileType::Xls => "xls",
            FileType::Ods => "ods",
            FileType::Pdf => "pdf",
        }
    }

    /// The type a file name's extension claims.
    pub fn from_name(name: &str) -> Option<FileType> {
        let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
        Self::from_extension(&ext)
    }

    /// The type of an extension (no dot).
    pub fn from_extension(ext: &str) -> Option<FileType> {
        Some(match ext {
            "csv" => FileType::Csv,
            "txt" => FileType::Txt,
            "xlsx" => FileType::Xlsx,
            "xls" => FileType::Xls,
            "ods" => FileType::Ods,
            "pdf" => FileType::Pdf,
            _ => return None,
        })
    }

    /// The content type it is stored and served with.
    pub fn content_type(self) -> &'static str {
        match self {
            FileType::Csv => "text/csv; charset=utf-8",
            FileType::Txt => "text/plain; charset=utf-8",
            FileType::Xlsx => "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            FileType::Xls => "application/vnd.ms-excel",
            FileType::Ods => "application/vnd.oasis.opendocument.spreadsheet",
            FileType::Pdf => "application/pdf",
        }
    }

    /// Whether the analysis engine reads it (everything but PDF).
    pub fn is_table(self) -> bool {
        !matches!(self, FileType::Pdf)
    }
}

/// What was seen of an upload while it was received.
#[derive(Debug, Clone, Default)]
pub struct Seen {
    /// Its size in bytes.
    pub size: u64,
    /// Its first [`HEAD_BYTES`] bytes.
    pub head: Vec<u8>,
    /// Whether any byte was NUL (never in text).
    pub has_nul: bool,
}

impl Seen {
    /// Takes in the next piece of the upload.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.size += bytes.len() as u64;
        if self.head.len() < HEAD_BYTES {
            let take = (HEAD_BYTES - self.head.len()).min(bytes.len());
            self.head.extend_from_slice(&bytes[..take]);
        }
        if !self.has_nul && memchr_nul(bytes) {
            self.has_nul = true;
        }
    }
}

fn memchr_nul(bytes: &[u8]) -> bool {
    bytes.contains(&0)
}

const OLE2: [u8; 8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];
const ZIP: &[u8] = b"PK\x03\x04";
const ODS_MIME: &[u8] = b"application/vnd.oasis.opendocument.spreadsheet";

/// Recognises an upload from its name and what was seen of its bytes: the extension names the
/// type and the content must be of that type (a PDF starts `%PDF-`, a workbook is a zip archive
/// or an OLE2 compound file, text has no NUL byte and is not one of those). Refuses an empty
/// file and anything else, including a renamed executable.
pub fn recognise(name: &str, seen: &Seen) -> ApiResult<FileType> {
    if seen.size == 0 {
        return Err(ApiError::validation(EMPTY));
    }
    let unsupported = || ApiError::Validation {
        code: "unsupported_file_type",
        message: UNSUPPORTED.into(),
    };
    let claimed = FileType::from_name(name).ok_or_else(unsupported)?;
    let head = &seen.head;
    let matches = match claimed {
        FileType::Pdf => head.starts_with(b"%PDF-"),
        FileType::Xls => head.starts_with(&OLE2),
        FileType::Xlsx | FileType::Ods => head.starts_with(ZIP),
        FileType::Csv | FileType::Txt => {
            !seen.has_nul
                && !head.starts_with(ZIP)
                && !head.starts_with(&OLE2)
                && !head.starts_with(b"%PDF")
        }
    };
    if matches {
        Ok(claimed)
    } else {
        Err(unsupported())
    }
}

/// Checks the whole file at `path` of a recognised type, on a blocking thread's time: a
/// workbook archive must hold a workbook's entries (XLSX: `[Content_Types].xml` and
/// `xl/workbook.xml`; ODS: the spreadsheet `mimetype` and `content.xml`), and a table must pass
/// the ingest's guards (size, zip bombs and workbook memory checked before calamine opens it,
/// encoding, row and cell bounds) and have headers and a data row. Returns the first `rows`
/// rows of a table, `None` for a PDF.
pub fn check_content(
    path: &Path,
    file_type: FileType,
    limits: &Limits,
    rows: usize,
) -> ApiResult<Option<Preview>> {
    if file_type == FileType::Pdf {
        return Ok(None);
    }
    check_archive(path, file_type)?;
    analysis::ingest::preview(analysis::ingest::Input::Path(path), limits, rows.max(1))
        .map(Some)
        .map_err(ingest_error)
}

/// Checks that a workbook archive holds a workbook's entries (XLSX: `[Content_Types].xml` and
/// `xl/workbook.xml`; ODS: the spreadsheet `mimetype` and `content.xml`); other types pass.
pub fn check_archive(path: &Path, file_type: FileType) -> ApiResult<()> {
    match file_type {
        FileType::Xlsx => zip_entries(path, &["[Content_Types].xml", "xl/workbook.xml"], None),
        FileType::Ods => zip_entries(path, &["mimetype", "content.xml"], Some(ODS_MIME)),
        _ => Ok(()),
    }
}

/// The API error of an ingest refusal, with the ingest's message (the product's texts).
pub fn ingest_error(e: IngestError) -> ApiError {
    match e {
        IngestError::Empty => ApiError::validation(EMPTY),
        IngestError::TooLarge { .. } => ApiError::TooLarge(TOO_LARGE.into()),
        IngestError::UnsupportedType => ApiError::Validation {
            code: "unsupported_file_type",
            message: UNSUPPORTED.into(),
        },
        other => ApiError::Validation {
            code: "unreadable_file",
            message: other.to_string(),
        },
    }
}

fn zip_entries(path: &Path, needed: &[&str], mimetype: Option<&[u8]>) -> ApiResult<()> {
    let unsupported = || ApiError::Validation {
        code: "unsupported_file_type",
        message: UNSUPPORTED.into(),
    };
    let file = std::fs::File::open(path).map_err(|e| ApiError::Internal(e.into()))?;
    let mut archive = zip::ZipArchive::new(file).map_err(|_| unsupported())?;
    for entry in needed {
        if archive.index_for_name(entry).is_none() {
            return Err(unsupported());
        }
    }
    if let Some(expected) = mimetype {
        let mut m = archive.by_name("mimetype").map_err(|_| unsupported())?;
        let mut buf = Vec::with_capacity(64);
        (&mut m)
            .take(128)
            .read_to_end(&mut buf)
            .map_err(|_| unsupported())?;
        if buf.trim_ascii() != expected {
            return Err(unsupported());
        }
    }
    Ok(())
}

/// The longest kept file name, in characters.
pub const MAX_NAME_CHARS: usize = 255;

/// The user's file name made safe to keep and show: only its last path component (a browser may
/// send `C:\fakepath\x.csv`), control characters removed, the characters Windows forbids
/// (`<>:"|?*`) made underscores, runs of white space made one space, leading dots and white
/// space trimmed, at most [`MAX_NAME_CHARS`] characters (the extension kept). `file` when nothing
/// is left.
pub fn sanitize_name(raw: &str) -> String {
    let last = raw.rsplit(['/', '\\']).next().unwrap_or_default();
    let mut out = String::with_capacity(last.len());
    let mut space = false;
    for c in last.chars() {
        if c.is_control() {
            continue;
        }
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        out.push(if matches!(c, '<' | '>' | ':' | '"' | '|' | '?' | '*') {
            '_'
        } else {
            c
        });
    }
    let trimmed = out.trim_start_matches(['.', ' ']).trim_end().to_string();
    if trimmed.is_empty() {
        return "file".into();
    }
    if trimmed.chars().count() <= MAX_NAME_CHARS {
        return trimmed;
    }
    let (stem, ext) = match trimmed.rsplit_once('.') {
        Some((s, e)) if !s.is_empty() && e.chars().count() <= 10 => (s, Some(e)),
        _ => (trimmed.as_str(), None),
    };
    let keep = MAX_NAME_CHARS - ext.map_or(0, |e| e.chars().count() + 1);
    let mut name: String = stem.chars().take(keep).collect();
    if let Some(e) = ext {
        name.push('.');
        name.push_str(e);
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(bytes: &[u8]) -> Seen {
        let mut s = Seen::default();
        s.feed(bytes);
        s
    }

    #[test]
    fn recognises_by_content_and_extension() {
        assert_eq!(
            recognise("a.csv", &seen(b"a,b\n1,2\n")).unwrap(),
            FileType::Csv
        );
        assert_eq!(recognise("a.TXT", &seen(b"a;b\n")).unwrap(), FileType::Txt);
        assert_eq!(
            recognise("a.pdf", &seen(b"%PDF-1.7\n")).unwrap(),
            FileType::Pdf
        );
        assert_eq!(
            recognise("a.xlsx", &seen(b"PK\x03\x04rest")).unwrap(),
            FileType::Xlsx
        );
        assert_eq!(recognise("a.xls", &seen(&OLE2)).unwrap(), FileType::Xls);
        // A renamed executable, content that does not match, unknown extensions, nothing.
        for (name, bytes) in [
            ("a.csv", &b"MZ\x90\x00\x03\x00"[..]),
            ("a.csv", &b"\x7fELF\x02\x01\x01\x00"[..]),
            ("a.xlsx", &b"a,b\n1,2\n"[..]),
            ("a.pdf", &b"a,b\n"[..]),
            ("a.csv", &b"%PDF-1.4"[..]),
            ("a.exe", &b"a,b\n"[..]),
            ("noext", &b"a,b\n"[..]),
        ] {
            let e = recognise(name, &seen(bytes)).unwrap_err();
            assert_eq!(e.to_string(), UNSUPPORTED, "{name}");
        }
        assert_eq!(
            recognise("a.csv", &seen(b"")).unwrap_err().to_string(),
            EMPTY
        );
    }

    #[test]
    fn names_are_made_safe() {
        assert_eq!(sanitize_name("C:\\fakepath\\Q3 book.xlsx"), "Q3 book.xlsx");
        assert_eq!(sanitize_name("../../etc/passwd"), "passwd");
        assert_eq!(sanitize_name("a\u{0}b\tc\r\n.csv"), "abc.csv");
        assert_eq!(sanitize_name("my   big  file.csv"), "my big file.csv");
        assert_eq!(sanitize_name("..hidden.csv"), "hidden.csv");
        assert_eq!(sanitize_name("x<y>:z?.csv"), "x_y__z_.csv");
        assert_eq!(sanitize_name("  "), "file");
        let long = format!("{}.csv", "é".repeat(400));
        let s = sanitize_name(&long);
        assert_eq!(s.chars().count(), MAX_NAME_CHARS);
        assert!(s.ends_with(".csv"));
    }
}
