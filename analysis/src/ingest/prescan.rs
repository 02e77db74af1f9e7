//! Checks of a zip-based workbook (XLSX, ODS) made before calamine opens it, so that a hostile
//! file is refused with a clear message before calamine allocates anything large.
//!
//! calamine holds each XML token (a text run, a tag, a comment) whole before handing it over;
//! keeps an XLSX workbook's shared-string table, styles and relationships in memory; and loads
//! every sheet of an ODS workbook whole, repeating cells as `number-rows-repeated` and
//! `number-columns-repeated` say. So the parts calamine will read are stream-decompressed here
//! first (one read buffer and one tag in memory, whatever the part's size), through a small XML
//! tokenizer that measures what calamine will hold:
//!
//! - actual decompressed bytes, counted (the sizes the archive declares are not trusted),
//!   against [`Limits::max_decompressed_bytes`];
//! - each cell and each shared string (every byte between its start and end tags) against
//!   [`Limits::max_cell_bytes`]; any other text run, comment or processing instruction against
//!   the larger of that and 64 KiB; tags against that plus 64 KiB; nesting depth;
//! - the memory calamine will keep (shared strings with a fixed cost per string, cell styles with
//!   the font names and number formats each one copies, relationships and other retained parts,
//!   every cell of an ODS sheet after repetition) against [`Limits::max_workbook_bytes`]; a
//!   shared-string table with more strings than the allowed rows x columns, or declaring more
//!   than fit, is refused;
//! - cell references (`r` of cells and rows, the sheet's `<dimension ref>`, which is only a
//!   hint and may lie) within the sheet's grid, XFD1048576.
//!
//! The parts are the ones calamine reads, found the way it finds them: for XLSX `_rels/.rels`,
//! the workbook it names, the workbook's relationships, shared strings, styles, theme and the
//! first sheet; for ODS `content.xml` and `META-INF/manifest.xml`. Other parts (images, custom
//! XML, other sheets) are never opened by calamine and are only counted by their declared size.

use std::io::{Cursor, Read};

use memchr::{memchr, memchr3};

use super::{FileKind, IngestError, Limits};

/// Memory charged per shared string besides its text: calamine's `String` and the allocator's
/// rounding.
const STRING_COST: u64 = 32;
/// Memory charged per element of a part calamine keeps (relationships, workbook, styles).
const ELEMENT_COST: u64 = 128;
/// Memory charged per cell style besides the font name and number format it copies.
const STYLE_COST: u64 = 256;
/// Memory per ODS cell calamine keeps: the value (32 bytes) and the formula (24 bytes).
const ODS_CELL_COST: u64 = 56;
/// Memory per ODS row element calamine keeps (its offset and repeat count).
const ODS_ROW_COST: u64 = 16;
/// Deepest element nesting accepted (calamine's XML reader keeps the open names).
const MAX_DEPTH: usize = 256;
/// Floor of the bound on text runs outside cells and on tags.
const TOKEN_FLOOR: usize = 64 * 1024;
/// The sheet grid of XLSX and ODS: rows and columns.
const GRID_ROWS: u64 = 1_048_576;
const GRID_COLS: u64 = 16_384;
/// Read buffer of the decompression.
const READ_BUF: usize = 64 * 1024;

fn parse_err(msg: String) -> IngestError {
    IngestError::ExcelParse(msg)
}

fn expands_err(limits: &Limits) -> IngestError {
    parse_err(format!(
        "the workbook expands to more than {} bytes when decompressed",
        limits.max_decompressed_bytes
    ))
}

/// Checks a zip-based workbook (XLSX or ODS) before calamine opens it.
pub(super) fn check_zip_workbook(
    kind: FileKind,
    data: &[u8],
    limits: &Limits,
) -> Result<(), IngestError> {
    let mut zip = zip::ZipArchive::new(Cursor::new(data))
        .map_err(|e| parse_err(format!("not a valid workbook archive ({e})")))?;
    if zip.len() > limits.max_archive_entries {
        return Err(parse_err(format!(
            "the workbook holds {} parts, at most {} are allowed",
            zip.len(),
            limits.max_archive_entries
        )));
    }
    // Declared sizes first: a quick refusal of an obvious bomb. The reader refuses an entry
    // that expands past its declared size, and the scan below counts actual bytes anyway.
    let mut declared: u64 = 0;
    let mut names = Vec::with_capacity(zip.len());
    for i in 0..zip.len() {
        let entry = zip
            .by_index_raw(i)
            .map_err(|e| parse_err(format!("broken workbook archive ({e})")))?;
        declared = declared.saturating_add(entry.size());
        if declared > limits.max_decompressed_bytes {
            return Err(expands_err(limits));
        }
        names.push(entry.name().map(|n| n.into_owned()).unwrap_or_default());
    }
    let mut archive = Archive {
        zip,
        names,
        limits: *limits,
        decompressed: 0,
        used: 0,
    };
    match kind {
        FileKind::Ods => archive.check_ods(),
        _ => archive.check_xlsx(),
    }
}

/// The archive being checked and the running totals.
struct Archive<'d> {
    zip: zip::ZipArchive<Cursor<&'d [u8]>>,
    names: Vec<String>,
    limits: Limits,
    /// Bytes decompressed so far.
    decompressed: u64,
    /// Memory calamine will hold, as estimated so far.
    used: u64,
}

impl Archive<'_> {
    /// Entries calamine may open for `path`: its lookup is case-insensitive with `\` read as `/`,
    /// falling back to the exact name.
    fn entries_for(&self, path: &str) -> Vec<usize> {
        let key = path.to_ascii_lowercase();
        self.names
            .iter()
            .enumerate()
            .filter(|(_, n)| *n == path || n.replace('\\', "/").to_ascii_lowercase() == key)
            .map(|(i, _)| i)
            .collect()
    }

    /// Entries named exactly `path` (ODS: calamine opens them by exact name).
    fn entries_exact(&self, path: &str) -> Vec<usize> {
        self.names
            .iter()
            .enumerate()
            .filter(|(_, n)| *n == path)
            .map(|(i, _)| i)
            .collect()
    }

    /// Stream-decompresses entry `index` through `part`.
    fn scan(&mut self, index: usize, part: &mut Part) -> Result<(), IngestError> {
        let name = self.names[index].clone();
        let limits = self.limits;
        let mut cx = Cx {
            limits,
            part: name,
            used: self.used,
        };
        let mut xml = Tokenizer::new(&limits);
        let mut buf = vec![0u8; READ_BUF];
        let mut decompressed = self.decompressed;
        {
            let mut entry = match self.zip.by_index(index) {
                Ok(e) => e,
                Err(e) => return Err(parse_err(format!("broken workbook archive ({e})"))),
            };
            if entry.is_dir() {
                return Ok(());
            }
            loop {
                let n = match entry.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(parse_err(format!("broken workbook archive ({e})"))),
                };
                decompressed = decompressed.saturating_add(n as u64);
                if decompressed > limits.max_decompressed_bytes {
                    return Err(expands_err(&limits));
                }
                xml.feed(&buf[..n], part, &mut cx)?;
            }
        }
        part.finish(&mut cx)?;
        self.decompressed = decompressed;
        self.used = cx.used;
        Ok(())
    }

    fn scan_path(&mut self, path: &str, mut part: Part) -> Result<Part, IngestError> {
        for i in self.entries_for(path) {
            self.scan(i, &mut part)?;
        }
        Ok(part)
    }

    fn check_xlsx(&mut self) -> Result<(), IngestError> {
        // calamine: the package relationships name the workbook (the last officeDocument wins).
        let rels = self.scan_path("_rels/.rels", Part::new(Role::PackageRels))?;
        let Some(target) = rels.office_target else {
            // calamine refuses the file itself.
            return Ok(());
        };
        let (dir, name) = match target.rfind('/') {
            Some(i) => target.split_at(i + 1),
            None => ("", target.as_str()),
        };
        let xl = dir.strip_prefix('/').unwrap_or(dir).to_string();
        let workbook = if name.is_empty() {
            "workbook.xml".to_string()
        } else {
            name.to_string()
        };
        self.scan_path(
            &format!("{xl}sharedStrings.xml"),
            Part::new(Role::SharedStrings),
        )?;
        self.scan_path(&format!("{xl}theme/theme1.xml"), Part::new(Role::Retained))?;
        self.scan_path(&format!("{xl}styles.xml"), Part::new(Role::Styles))?;
        let wb = self.scan_path(&format!("{xl}{workbook}"), Part::new(Role::Workbook))?;
        let mut wb_rels = Part::new(Role::WorkbookRels);
        wb_rels.want_id = wb.first_sheet_id;
        let wb_rels = self.scan_path(&format!("{xl}_rels/{workbook}.rels"), wb_rels)?;
        // The first sheet, the one read.
        if let Some(target) = wb_rels.sheet_target {
            let path = match target.strip_prefix('/') {
                Some(abs) => abs.to_string(),
                None => format!("{xl}{target}"),
            };
            self.scan_path(&path, Part::new(Role::Sheet))?;
        }
        Ok(())
    }

    fn check_ods(&mut self) -> Result<(), IngestError> {
        for i in self.entries_exact("META-INF/manifest.xml") {
            self.scan(i, &mut Part::new(Role::Retained))?;
        }
        for i in self.entries_exact("content.xml") {
            self.scan(i, &mut Part::new(Role::OdsContent))?;
        }
        Ok(())
    }
}

/// What a scan needs besides the part: the limits, the part's name and the memory estimate.
struct Cx {
    limits: Limits,
    part: String,
    used: u64,
}

/// What is charged, for the message.
enum Charge {
    SharedStrings(u64),
    Styles(u64),
    Cells(u64),
    Part,
}

impl Cx {
    /// Adds `bytes` to the memory calamine will hold; refuses past the limit.
    fn charge(&mut self, bytes: u64, what: Charge) -> Result<(), IngestError> {
        self.used = self.used.saturating_add(bytes);
        if self.used <= self.limits.max_workbook_bytes {
            return Ok(());
        }
        let detail = match what {
            Charge::SharedStrings(n) => format!("{n} shared strings so far"),
            Charge::Styles(n) => format!("{n} cell styles so far"),
            Charge::Cells(n) => format!("{n} cells so far"),
            Charge::Part => format!("part {}", self.part),
        };
        Err(parse_err(format!(
            "the workbook needs more than {} bytes of memory to load ({detail})",
            self.limits.max_workbook_bytes
        )))
    }

    fn cell_too_long(&self, row: u64) -> IngestError {
        parse_err(format!(
            "row {row}: a cell is longer than {} bytes",
            self.limits.max_cell_bytes
        ))
    }
}

/// Streaming XML tokenizer: memory is the current tag only.
struct Tokenizer {
    state: State,
    tag: Vec<u8>,
    quote: u8,
    /// Length of the current text run, comment, CDATA section or processing instruction.
    run: usize,
    /// Progress in matching the end of a comment, CDATA section or processing instruction.
    matched: usize,
    depth: usize,
    text_limit: usize,
    tag_limit: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Text,
    Tag,
    Comment,
    CData,
    Pi,
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

fn clip(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(&b[..b.len().min(40)]).into_owned();
    if b.len() > 40 { format!("{s}...") } else { s }
}

impl Tokenizer {
    fn new(limits: &Limits) -> Tokenizer {
        let text_limit = limits.max_cell_bytes.max(TOKEN_FLOOR);
        Tokenizer {
            state: State::Text,
            tag: Vec::new(),
            quote: 0,
            run: 0,
            matched: 0,
            depth: 0,
            text_limit,
            tag_limit: text_limit.saturating_add(TOKEN_FLOOR),
        }
    }

    fn run_too_long(&self, cx: &Cx) -> IngestError {
        parse_err(format!(
            "{}: a text run is longer than {} bytes",
            cx.part, self.text_limit
        ))
    }

    fn feed(&mut self, buf: &[u8], part: &mut Part, cx: &mut Cx) -> Result<(), IngestError> {
        let mut i = 0;
        while i < buf.len() {
            match self.state {
                State::Text => {
                    let rest = &buf[i..];
                    let (n, found) = match memchr(b'<', rest) {
                        Some(k) => (k, true),
                        None => (rest.len(), false),
                    };
                    if n > 0 {
                        // The part first: inside a cell, the cell's own limit (never larger)
                        // gives the clearer message.
                        part.text(n, cx)?;
                        self.run += n;
                        if self.run > self.text_limit {
                            return Err(self.run_too_long(cx));
                        }
                    }
                    i += n;
                    if found {
                        i += 1;
                        self.state = State::Tag;
                        self.tag.clear();
                        self.quote = 0;
                        self.run = 0;
                    }
                }
                State::Tag if self.tag.is_empty() && buf[i] == b'?' => {
                    self.state = State::Pi;
                    self.matched = 0;
                    self.run = 1;
                    i += 1;
                }
                State::Tag
                    if self.tag.first() == Some(&b'!') || self.tag.is_empty() && buf[i] == b'!' =>
                {
                    // Decided by the first bytes: a comment, a CDATA section, or a declaration
                    // (DOCTYPE), which no workbook holds.
                    self.tag.push(buf[i]);
                    i += 1;
                    let t = self.tag.as_slice();
                    if t == b"!--" {
                        self.state = State::Comment;
                        self.matched = 0;
                        self.run = 3;
                    } else if t == b"![CDATA[" {
                        self.state = State::CData;
                        self.matched = 0;
                        self.run = 0;
                    } else if !b"!--".starts_with(t) && !b"![CDATA[".starts_with(t) {
                        return Err(parse_err(format!(
                            "{}: XML declarations (<!{}) are not accepted",
                            cx.part,
                            clip(&t[1..])
                        )));
                    }
                }
                State::Tag => {
                    let rest = &buf[i..];
                    let mut j = 0;
                    let mut done = false;
                    while j < rest.len() {
                        if self.quote != 0 {
                            match memchr(self.quote, &rest[j..]) {
                                Some(k) => {
                                    j += k + 1;
                                    self.quote = 0;
                                }
                                None => j = rest.len(),
                            }
                        } else {
                            match memchr3(b'>', b'"', b'\'', &rest[j..]) {
                                Some(k) if rest[j + k] == b'>' => {
                                    j += k;
                                    done = true;
                                    break;
                                }
                                Some(k) => {
                                    self.quote = rest[j + k];
                                    j += k + 1;
                                }
                                None => j = rest.len(),
                            }
                        }
                    }
                    if self.tag.len() + j > self.tag_limit {
                        return Err(parse_err(format!(
                            "{}: an XML tag is longer than {} bytes",
                            cx.part, self.tag_limit
                        )));
                    }
                    self.tag.extend_from_slice(&rest[..j]);
                    i += j;
                    if done {
                        i += 1;
                        self.state = State::Text;
                        self.finish_tag(part, cx)?;
                    }
                }
                State::Comment | State::CData | State::Pi => {
                    let (mark, len) = match self.state {
                        State::Comment => (b'-', 3),
                        State::CData => (b']', 3),
                        _ => (b'?', 2),
                    };
                    let rest = &buf[i..];
                    let mut end = None;
                    for (k, &b) in rest.iter().enumerate() {
                        if b == mark {
                            self.matched = (self.matched + 1).min(len - 1);
                        } else if b == b'>' && self.matched == len - 1 {
                            end = Some(k);
                            break;
                        } else {
                            self.matched = 0;
                        }
                    }
                    let n = end.map_or(rest.len(), |k| k + 1);
                    part.text(n, cx)?;
                    self.run += n;
                    if self.run > self.text_limit {
                        return Err(self.run_too_long(cx));
                    }
                    i += n;
                    if end.is_some() {
                        self.state = State::Text;
                        self.run = 0;
                    }
                }
            }
        }
        Ok(())
    }

    fn finish_tag(&mut self, part: &mut Part, cx: &mut Cx) -> Result<(), IngestError> {
        let tag = std::mem::take(&mut self.tag);
        let len = tag.len() + 2;
        let result = if let Some(rest) = tag.strip_prefix(b"/") {
            let name = &rest[..rest.iter().position(|b| is_ws(*b)).unwrap_or(rest.len())];
            self.depth = self.depth.saturating_sub(1);
            part.end(name, len, cx)
        } else {
            let (content, empty) = match tag.strip_suffix(b"/") {
                Some(c) => (c, true),
                None => (tag.as_slice(), false),
            };
            let nl = content
                .iter()
                .position(|b| is_ws(*b))
                .unwrap_or(content.len());
            let (name, attrs) = content.split_at(nl);
            if !empty {
                self.depth += 1;
                if self.depth > MAX_DEPTH {
                    return Err(parse_err(format!(
                        "{}: the XML is nested deeper than {MAX_DEPTH} elements",
                        cx.part
                    )));
                }
            }
            part.start(name, attrs, len, cx)
                .and_then(|()| if empty { part.end(name, 0, cx) } else { Ok(()) })
        };
        self.tag = tag;
        result
    }
}

/// Attributes of a tag, as calamine reads them: `key = "value"` or `key='value'`, raw.
struct Attrs<'a> {
    raw: &'a [u8],
    pos: usize,
}

impl<'a> Iterator for Attrs<'a> {
    type Item = (&'a [u8], &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        let b = self.raw;
        let mut p = self.pos;
        while p < b.len() && b[p].is_ascii_whitespace() {
            p += 1;
        }
        if p >= b.len() {
            return None;
        }
        let k0 = p;
        while p < b.len() && b[p] != b'=' {
            p += 1;
        }
        if p >= b.len() {
            self.pos = b.len();
            return None;
        }
        let key = b[k0..p].trim_ascii_end();
        p += 1;
        while p < b.len() && b[p].is_ascii_whitespace() {
            p += 1;
        }
        let q = match b.get(p) {
            Some(&q @ (b'"' | b'\'')) => q,
            _ => {
                self.pos = b.len();
                return None;
            }
        };
        p += 1;
        let v0 = p;
        while p < b.len() && b[p] != q {
            p += 1;
        }
        let val = &b[v0..p];
        self.pos = (p + 1).min(b.len());
        Some((key, val))
    }
}

fn attrs(raw: &[u8]) -> Attrs<'_> {
    Attrs { raw, pos: 0 }
}

/// The value of attribute `key`, compared exactly; the last one when repeated.
fn attr<'a>(raw: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    attrs(raw).filter(|(k, _)| *k == key).last().map(|(_, v)| v)
}

/// The local name (after any `prefix:`).
fn local(name: &[u8]) -> &[u8] {
    match name.iter().rposition(|b| *b == b':') {
        Some(i) => &name[i + 1..],
        None => name,
    }
}

/// A decimal number; `None` when not one (or beyond `u64`).
fn number(v: &[u8]) -> Option<u64> {
    let v = v.trim_ascii();
    if v.is_empty() || v.len() > 19 || !v.iter().all(u8::is_ascii_digit) {
        return None;
    }
    v.iter().try_fold(0u64, |n, d| {
        n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
    })
}

/// A cell reference `A1` as (row, column), both 1-based, when well formed and inside the grid.
/// `need_col`: a row's `r` may omit the column.
fn cell_ref(v: &[u8], need_col: bool) -> Option<(u64, u64)> {
    let letters = v.iter().take_while(|b| b.is_ascii_alphabetic()).count();
    if letters > 3 || (need_col && letters == 0) {
        return None;
    }
    let col = v[..letters].iter().fold(0u64, |c, b| {
        c * 26 + u64::from(b.to_ascii_uppercase() - b'A') + 1
    });
    let digits = &v[letters..];
    if digits.len() > 7 || digits.first() == Some(&b'0') {
        return None;
    }
    let row = number(digits)?;
    ((1..=GRID_ROWS).contains(&row) && col <= GRID_COLS).then_some((row, col))
}

fn bad_ref(cx: &Cx, what: &str, v: &[u8]) -> IngestError {
    parse_err(format!(
        "{}: {what} \"{}\" is not a cell of the sheet (A1 to XFD1048576)",
        cx.part,
        clip(v)
    ))
}

/// Decodes the XML escapes of an attribute value (calamine decodes the workbook's target).
fn unescape(v: &[u8]) -> String {
    let s = String::from_utf8_lossy(v);
    if !s.contains('&') {
        return s.into_owned();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s.as_ref();
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let Some(j) = after.find(';') else {
            out.push_str(&rest[i..]);
            return out;
        };
        let ent = &after[..j];
        let ch = match ent {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => ent
                .strip_prefix("#x")
                .map(|h| u32::from_str_radix(h, 16))
                .or_else(|| ent.strip_prefix('#').map(str::parse::<u32>))
                .and_then(Result::ok)
                .and_then(char::from_u32),
        };
        match ch {
            Some(c) => out.push(c),
            None => out.push_str(&rest[i..i + 2 + j]),
        }
        rest = &after[j + 1..];
    }
    out.push_str(rest);
    out
}

/// What a part is to calamine.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// `_rels/.rels`: names the workbook.
    PackageRels,
    /// The workbook's relationships: locate the sheets.
    WorkbookRels,
    /// The workbook: lists the sheets.
    Workbook,
    /// Cell styles.
    Styles,
    /// A part calamine keeps in memory in some form (theme, ODS manifest).
    Retained,
    /// The shared-string table, kept whole.
    SharedStrings,
    /// The first worksheet, streamed cell by cell.
    Sheet,
    /// An ODS `content.xml`: every sheet, loaded whole.
    OdsContent,
}

/// An ODS cell being read.
#[derive(Default)]
struct OdsCell {
    repeats: u64,
    value: bool,
    /// Text kept per copy: string, date and time values and the formula.
    kept: u64,
    /// The value is the content (a string cell without `office:string-value`).
    content_is_value: bool,
    bytes: u64,
}

/// The running state of one scanned part.
struct Part {
    role: Role,
    // Relationships and workbook.
    office_target: Option<String>,
    want_id: Option<Vec<u8>>,
    sheet_target: Option<String>,
    first_sheet_id: Option<Vec<u8>>,
    seen_sheet: bool,
    // Shared strings.
    strings: u64,
    in_si: bool,
    si_bytes: u64,
    // Styles.
    in_cell_xfs: bool,
    styles: u64,
    max_font_name: u64,
    max_num_fmt: u64,
    // Sheet.
    in_cell: bool,
    cell_bytes: u64,
    row: u64,
    // ODS.
    in_table: bool,
    in_row: bool,
    row_repeats: u64,
    row_col: u64,
    row_first: Option<u64>,
    row_end: u64,
    row_text: u64,
    cell: Option<OdsCell>,
    table_rows: u64,
    table_first_row: Option<u64>,
    table_end_row: u64,
    table_col_min: u64,
    table_col_end: u64,
    table_sparse: u64,
    table_text: u64,
    table_row_elems: u64,
    table_charged: u64,
    cells: u64,
}

impl Part {
    fn new(role: Role) -> Part {
        Part {
            role,
            office_target: None,
            want_id: None,
            sheet_target: None,
            first_sheet_id: None,
            seen_sheet: false,
            strings: 0,
            in_si: false,
            si_bytes: 0,
            in_cell_xfs: false,
            styles: 0,
            max_font_name: 0,
            max_num_fmt: 0,
            in_cell: false,
            cell_bytes: 0,
            row: 0,
            in_table: false,
            in_row: false,
            row_repeats: 0,
            row_col: 0,
            row_first: None,
            row_end: 0,
            row_text: 0,
            cell: None,
            table_rows: 0,
            table_first_row: None,
            table_end_row: 0,
            table_col_min: u64::MAX,
            table_col_end: 0,
            table_sparse: 0,
            table_text: 0,
            table_row_elems: 0,
            table_charged: 0,
            cells: 0,
        }
    }

    /// True for the parts calamine keeps in memory in proportion to their size.
    fn retained(&self) -> bool {
        matches!(
            self.role,
            Role::PackageRels | Role::WorkbookRels | Role::Workbook | Role::Styles | Role::Retained
        )
    }

    fn start(
        &mut self,
        name: &[u8],
        raw: &[u8],
        len: usize,
        cx: &mut Cx,
    ) -> Result<(), IngestError> {
        let len = len as u64;
        if self.retained() {
            cx.charge(ELEMENT_COST + 2 * len, Charge::Part)?;
        }
        match self.role {
            Role::PackageRels if local(name) == b"Relationship" => {
                let is_doc = attr(raw, b"Type")
                    .is_some_and(|t| t.ends_with(b"/relationships/officeDocument"));
                if let (true, Some(t)) = (is_doc, attr(raw, b"Target")) {
                    self.office_target = Some(unescape(t));
                }
            }
            Role::WorkbookRels if local(name) == b"Relationship" => {
                if let (Some(id), Some(want)) = (attr(raw, b"Id"), &self.want_id)
                    && id == want.as_slice()
                {
                    self.sheet_target =
                        attr(raw, b"Target").map(|t| String::from_utf8_lossy(t).into_owned());
                }
            }
            Role::Workbook if local(name) == b"sheet" && !self.seen_sheet => {
                self.seen_sheet = true;
                self.first_sheet_id = attrs(raw)
                    .filter(|(k, _)| local(k) == b"id")
                    .last()
                    .map(|(_, v)| v.to_vec());
            }
            Role::Styles => match local(name) {
                b"cellXfs" => self.in_cell_xfs = true,
                b"xf" if self.in_cell_xfs => {
                    self.styles += 1;
                    cx.charge(
                        STYLE_COST + self.max_font_name + self.max_num_fmt,
                        Charge::Styles(self.styles),
                    )?;
                }
                b"numFmt" => self.max_num_fmt = self.max_num_fmt.max(len),
                b"name" => self.max_font_name = self.max_font_name.max(len),
                _ => {}
            },
            Role::SharedStrings => self.sst_start(name, raw, len, cx)?,
            Role::Sheet => self.sheet_start(name, raw, len, cx)?,
            Role::OdsContent => self.ods_start(name, raw, len, cx)?,
            _ => {}
        }
        Ok(())
    }

    fn end(&mut self, name: &[u8], len: usize, cx: &mut Cx) -> Result<(), IngestError> {
        let len = len as u64;
        match self.role {
            Role::Styles if local(name) == b"cellXfs" => self.in_cell_xfs = false,
            Role::SharedStrings if self.in_si => {
                if local(name) == b"si" {
                    self.in_si = false;
                } else {
                    self.si_grow(len, cx)?;
                }
            }
            Role::Sheet => {
                if self.in_cell {
                    if local(name) == b"c" {
                        self.in_cell = false;
                    } else {
                        self.cell_grow(len, cx)?;
                    }
                } else if local(name) == b"row" {
                    self.row += 1;
                }
            }
            Role::OdsContent => self.ods_end(name, len, cx)?,
            _ => {}
        }
        Ok(())
    }

    fn text(&mut self, n: usize, cx: &mut Cx) -> Result<(), IngestError> {
        let n = n as u64;
        match self.role {
            _ if self.retained() => cx.charge(2 * n, Charge::Part),
            Role::SharedStrings if self.in_si => {
                self.si_grow(n, cx)?;
                cx.charge(n, Charge::SharedStrings(self.strings))
            }
            Role::Sheet if self.in_cell => self.cell_grow(n, cx),
            Role::OdsContent => {
                if let Some(c) = &mut self.cell {
                    c.bytes += n;
                    if c.bytes > cx.limits.max_cell_bytes as u64 {
                        return Err(cx.cell_too_long(self.table_rows + 1));
                    }
                    Ok(())
                } else if !self.in_table {
                    cx.charge(2 * n, Charge::Part)
                } else {
                    Ok(())
                }
            }
            _ => Ok(()),
        }
    }

    fn finish(&mut self, cx: &mut Cx) -> Result<(), IngestError> {
        if self.role == Role::OdsContent && self.in_table {
            self.ods_table_end(cx)?;
        }
        Ok(())
    }

    // Shared strings.

    fn sst_start(
        &mut self,
        name: &[u8],
        raw: &[u8],
        len: u64,
        cx: &mut Cx,
    ) -> Result<(), IngestError> {
        let grid =
            (cx.limits.max_rows.saturating_add(1)).saturating_mul(cx.limits.max_columns as u64);
        if self.in_si {
            return self.si_grow(len, cx);
        }
        match local(name) {
            b"sst" => {
                // calamine reserves room for the declared count up front.
                for (k, v) in attrs(raw) {
                    if k != b"uniqueCount" {
                        continue;
                    }
                    let n = number(v).unwrap_or(u64::MAX);
                    let fits = cx.limits.max_workbook_bytes / STRING_COST;
                    if n > grid.min(fits) {
                        return Err(parse_err(format!(
                            "{}: the shared-string table declares {} strings, more than can be loaded",
                            cx.part,
                            clip(v)
                        )));
                    }
                }
            }
            b"si" => {
                self.strings += 1;
                self.in_si = true;
                self.si_bytes = 0;
                if self.strings > grid {
                    return Err(parse_err(format!(
                        "the shared-string table holds more strings than {} rows of {} columns can use",
                        cx.limits.max_rows.saturating_add(1),
                        cx.limits.max_columns
                    )));
                }
                cx.charge(STRING_COST, Charge::SharedStrings(self.strings))?;
            }
            _ => {}
        }
        Ok(())
    }

    fn si_grow(&mut self, n: u64, cx: &mut Cx) -> Result<(), IngestError> {
        self.si_bytes += n;
        if self.si_bytes > cx.limits.max_cell_bytes as u64 {
            return Err(parse_err(format!(
                "shared string {}: a cell is longer than {} bytes",
                self.strings, cx.limits.max_cell_bytes
            )));
        }
        Ok(())
    }

    // Worksheet.

    fn sheet_start(
        &mut self,
        name: &[u8],
        raw: &[u8],
        len: u64,
        cx: &mut Cx,
    ) -> Result<(), IngestError> {
        if self.in_cell {
            return self.cell_grow(len, cx);
        }
        match local(name) {
            b"c" => {
                for (k, v) in attrs(raw) {
                    if k == b"r" {
                        let (row, _) = cell_ref(v, true).ok_or_else(|| bad_ref(cx, "cell", v))?;
                        self.row = row - 1;
                    }
                }
                self.in_cell = true;
                self.cell_bytes = 0;
            }
            b"row" => {
                for (k, v) in attrs(raw) {
                    if k == b"r" {
                        let (row, _) = cell_ref(v, false).ok_or_else(|| bad_ref(cx, "row", v))?;
                        self.row = row - 1;
                    }
                }
            }
            b"dimension" => {
                for (k, v) in attrs(raw) {
                    if k != b"ref" {
                        continue;
                    }
                    let mut parts = v.split(|b| *b == b':');
                    let a = parts.next().and_then(|p| cell_ref(p, true));
                    let b = match parts.next() {
                        Some(p) => cell_ref(p, true),
                        None => a,
                    };
                    match (a, b, parts.next()) {
                        (Some(a), Some(b), None) if a.0 <= b.0 && a.1 <= b.1 => {}
                        _ => return Err(bad_ref(cx, "the sheet's dimension", v)),
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn cell_grow(&mut self, n: u64, cx: &mut Cx) -> Result<(), IngestError> {
        self.cell_bytes += n;
        if self.cell_bytes > cx.limits.max_cell_bytes as u64 {
            return Err(cx.cell_too_long(self.row + 1));
        }
        Ok(())
    }

    // ODS content: every table loaded whole, repeats expanded (calamine's `read_table`).

    fn ods_start(
        &mut self,
        name: &[u8],
        raw: &[u8],
        len: u64,
        cx: &mut Cx,
    ) -> Result<(), IngestError> {
        let max_cell = cx.limits.max_cell_bytes as u64;
        if let Some(c) = &mut self.cell {
            // Content of a cell: markup counts (calamine keeps an annotation whole), and
            // spaces, tabs and line breaks written as elements expand.
            c.bytes = c.bytes.saturating_add(len);
            match name {
                b"text:s" => {
                    let n = attr(raw, b"text:c")
                        .map_or(Some(1), number)
                        .unwrap_or(u64::MAX);
                    c.bytes = c.bytes.saturating_add(n);
                }
                b"text:p" | b"text:tab" | b"text:line-break" => c.bytes += 1,
                _ => {}
            }
            if c.bytes > max_cell {
                return Err(cx.cell_too_long(self.table_rows + 1));
            }
            return Ok(());
        }
        match name {
            b"table:table" => {
                if self.in_table {
                    self.ods_table_end(cx)?;
                }
                self.in_table = true;
                self.table_rows = 0;
                self.table_first_row = None;
                self.table_end_row = 0;
                self.table_col_min = u64::MAX;
                self.table_col_end = 0;
                self.table_sparse = 0;
                self.table_text = 0;
                self.table_row_elems = 0;
                self.table_charged = 0;
            }
            b"table:table-row" if self.in_table => {
                let repeats = attrs(raw)
                    .filter(|(k, _)| *k == b"table:number-rows-repeated")
                    .map(|(_, v)| number(v).unwrap_or(u64::MAX))
                    .max()
                    .unwrap_or(1);
                self.in_row = true;
                self.row_repeats = repeats.min(GRID_ROWS.saturating_sub(self.table_rows));
                self.row_col = 0;
                self.row_first = None;
                self.row_end = 0;
                self.row_text = 0;
            }
            b"table:table-cell" | b"table:covered-table-cell" if self.in_row => {
                let mut c = OdsCell {
                    repeats: 1,
                    ..OdsCell::default()
                };
                let mut string_value = false;
                let mut string_type = false;
                for (k, v) in attrs(raw) {
                    match k {
                        b"table:number-columns-repeated" => {
                            c.repeats = c.repeats.max(number(v).unwrap_or(u64::MAX));
                        }
                        b"office:value" | b"office:boolean-value" => c.value = true,
                        b"office:string-value"
                        | b"office:date-value"
                        | b"office:time-value"
                        | b"table:formula" => {
                            c.value = true;
                            c.kept += v.len() as u64;
                            string_value |= k == b"office:string-value";
                            if v.len() as u64 > max_cell {
                                return Err(cx.cell_too_long(self.table_rows + 1));
                            }
                        }
                        b"office:value-type" if v == b"string" => string_type = true,
                        b"calcext:value-type" if v == b"error" => string_type = true,
                        _ => {}
                    }
                }
                if string_type {
                    c.value = true;
                    c.content_is_value = !string_value;
                }
                c.repeats = c.repeats.min(GRID_COLS.saturating_sub(self.row_col));
                self.cell = Some(c);
            }
            _ if !self.in_table => cx.charge(ELEMENT_COST + 2 * len, Charge::Part)?,
            _ => {}
        }
        Ok(())
    }

    fn ods_end(&mut self, name: &[u8], len: u64, cx: &mut Cx) -> Result<(), IngestError> {
        if let Some(c) = &mut self.cell {
            if name != b"table:table-cell" && name != b"table:covered-table-cell" {
                c.bytes = c.bytes.saturating_add(len);
                if c.bytes > cx.limits.max_cell_bytes as u64 {
                    return Err(cx.cell_too_long(self.table_rows + 1));
                }
                return Ok(());
            }
            let c = std::mem::take(c);
            self.cell = None;
            if c.value {
                let kept = c.kept + if c.content_is_value { c.bytes } else { 0 };
                if self.row_first.is_none() {
                    self.row_first = Some(self.row_col);
                }
                self.row_end = self.row_col + c.repeats;
                self.row_text = self.row_text.saturating_add(kept.saturating_mul(c.repeats));
            }
            self.row_col += c.repeats;
            return Ok(());
        }
        match name {
            b"table:table-row" if self.in_row => {
                self.in_row = false;
                let r = self.row_repeats;
                self.table_row_elems += 1;
                self.table_sparse = self.table_sparse.saturating_add(self.row_end);
                self.table_text = self.table_text.saturating_add(self.row_text);
                if let Some(first) = self.row_first {
                    self.table_first_row.get_or_insert(self.table_rows);
                    self.table_end_row = self.table_rows + r;
                    self.table_col_min = self.table_col_min.min(first);
                    self.table_col_end = self.table_col_end.max(self.row_end);
                    self.table_text = self
                        .table_text
                        .saturating_add(self.row_text.saturating_mul(r));
                }
                self.table_rows += r;
                self.ods_charge(cx)?;
            }
            b"table:table" if self.in_table => self.ods_table_end(cx)?,
            _ => {}
        }
        Ok(())
    }

    /// Charges the growth of the current table's estimate.
    fn ods_charge(&mut self, cx: &mut Cx) -> Result<(), IngestError> {
        let dense = match self.table_first_row {
            Some(first) => (self.table_end_row - first)
                .saturating_mul(self.table_col_end.saturating_sub(self.table_col_min)),
            None => 0,
        };
        let cells = self.table_sparse.saturating_add(dense);
        let cost = cells
            .saturating_mul(ODS_CELL_COST)
            .saturating_add(self.table_text)
            .saturating_add(self.table_row_elems.saturating_mul(ODS_ROW_COST));
        let delta = cost.saturating_sub(self.table_charged);
        self.table_charged = cost;
        cx.charge(delta, Charge::Cells(self.cells.saturating_add(cells)))
    }

    fn ods_table_end(&mut self, cx: &mut Cx) -> Result<(), IngestError> {
        self.ods_charge(cx)?;
        let dense = match self.table_first_row {
            Some(first) => (self.table_end_row - first)
                .saturating_mul(self.table_col_end.saturating_sub(self.table_col_min)),
            None => 0,
        };
        self.cells = self
            .cells
            .saturating_add(self.table_sparse)
            .saturating_add(dense);
        self.in_table = false;
        self.in_row = false;
        self.cell = None;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references() {
        assert_eq!(cell_ref(b"A1", true), Some((1, 1)));
        assert_eq!(cell_ref(b"XFD1048576", true), Some((1_048_576, 16_384)));
        assert_eq!(cell_ref(b"xfd2", true), Some((2, 16_384)));
        assert_eq!(cell_ref(b"XFE1", true), None);
        assert_eq!(cell_ref(b"A1048577", true), None);
        assert_eq!(cell_ref(b"AAAA1", true), None);
        assert_eq!(cell_ref(b"A0", true), None);
        assert_eq!(cell_ref(b"A01", true), None);
        assert_eq!(cell_ref(b"1", true), None);
        assert_eq!(cell_ref(b"7", false), Some((7, 0)));
        assert_eq!(cell_ref(b"A99999999999999999999999", true), None);
    }

    #[test]
    fn attributes_and_escapes() {
        let raw = b" r=\"A1\" t = 's' x:id=\"rId1\" bad";
        let v: Vec<_> = attrs(raw).collect();
        assert_eq!(
            v,
            vec![
                (&b"r"[..], &b"A1"[..]),
                (&b"t"[..], &b"s"[..]),
                (&b"x:id"[..], &b"rId1"[..])
            ]
        );
        assert_eq!(unescape(b"xl&#47;wb&amp;.xml"), "xl/wb&.xml");
        assert_eq!(unescape(b"a&bogus;b&"), "a&bogus;b&");
    }

    fn scan(role: Role, xml: &[u8], limits: &Limits, step: usize) -> Result<Part, IngestError> {
        let mut part = Part::new(role);
        let mut cx = Cx {
            limits: *limits,
            part: "p.xml".into(),
            used: 0,
        };
        let mut t = Tokenizer::new(limits);
        for c in xml.chunks(step) {
            t.feed(c, &mut part, &mut cx)?;
        }
        part.finish(&mut cx)?;
        Ok(part)
    }

    #[test]
    fn tokens_split_anywhere() {
        let xml = b"<?xml version=\"1.0\"?><!-- a > b --><sst uniqueCount=\"2\"><si><t><![CDATA[x<y]]></t></si><si a='>'><t>z</t></si></sst>";
        for step in 1..8 {
            let p = scan(Role::SharedStrings, xml, &Limits::default(), step).unwrap();
            assert_eq!(p.strings, 2, "step {step}");
        }
        let doctype = b"<!DOCTYPE x [<!ENTITY a \"b\">]><x/>";
        assert!(scan(Role::Sheet, doctype, &Limits::default(), 3).is_err());
    }

    #[test]
    fn runs_tags_and_depth_are_bounded() {
        let l = Limits::default();
        let mut ws = b"<worksheet>".to_vec();
        ws.extend(std::iter::repeat_n(
            b' ',
            TOKEN_FLOOR.max(l.max_cell_bytes) + 1,
        ));
        let e = scan(Role::Sheet, &ws, &l, 4096).err().unwrap();
        assert!(e.to_string().contains("a text run is longer than"), "{e}");
        let mut tag = b"<c r=\"A1\" x=\"".to_vec();
        tag.extend(std::iter::repeat_n(
            b'y',
            2 * TOKEN_FLOOR.max(l.max_cell_bytes),
        ));
        let e = scan(Role::Sheet, &tag, &l, 4096).err().unwrap();
        assert!(e.to_string().contains("an XML tag is longer than"), "{e}");
        let deep = b"<a>".repeat(MAX_DEPTH + 1);
        let e = scan(Role::Sheet, &deep, &l, 7).err().unwrap();
        assert!(e.to_string().contains("nested deeper"), "{e}");
    }

    #[test]
    fn ods_repeats_are_charged() {
        let l = Limits {
            max_workbook_bytes: 1024 * 1024,
            ..Limits::default()
        };
        let xml = b"<office:body><table:table table:name=\"S\"><table:table-row table:number-rows-repeated=\"100000\"><table:table-cell office:value-type=\"float\" office:value=\"1\" table:number-columns-repeated=\"100\"/></table:table-row></table:table></office:body>";
        let e = scan(Role::OdsContent, xml, &l, 64).err().unwrap();
        assert!(e.to_string().contains("bytes of memory to load"), "{e}");
        let ok = b"<table:table table:name=\"S\"><table:table-row><table:table-cell office:value-type=\"string\"><text:p>a</text:p></table:table-cell></table:table-row></table:table>";
        scan(Role::OdsContent, ok, &l, 5).unwrap();
        let spaces = b"<table:table><table:table-row><table:table-cell office:value-type=\"string\"><text:p><text:s text:c=\"99999999\"/></text:p></table:table-cell></table:table-row></table:table>";
        let e = scan(Role::OdsContent, spaces, &l, 5).err().unwrap();
        assert!(e.to_string().contains("a cell is longer than"), "{e}");
    }
}
