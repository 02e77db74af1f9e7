//! Text and structure out of a PDF, a DOCX or a TXT file.
//!
//! - **PDF** (`pdf_oxide`): the text of each page with its page number. When the file has an
//!   outline, its entries are the headings, each placed on its page (at the line that carries its
//!   title, or at the top of the page when no line does). Without an outline, headings are
//!   inferred from font sizes: lines set in a size clearly larger than the body text's (the size
//!   most characters use) are headings, the largest size being level 1.
//! - **DOCX** (`zip` + `quick-xml`): paragraphs in order; a paragraph's heading level comes from
//!   its style resolved through `word/styles.xml` (a style named "heading N", or one with
//!   `w:outlineLvl`, directly or through `w:basedOn`), or from its own `w:outlineLvl`. Pages are
//!   counted from the page breaks Word last rendered (`w:lastRenderedPageBreak`), else from
//!   explicit page breaks, so they are approximate.
//! - **TXT**: UTF-8 (an invalid sequence is refused); paragraphs are separated by blank lines and
//!   a form feed starts a new page.
//!
//! [`extract_isolated`] is what the server calls: the parser runs under `catch_unwind`, with the
//! byte, page and time limits of [`Limits`].

use std::io::Read;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use super::{Block, BlockKind, Format, collapse_ws};

/// The bounds of one extraction.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest file read (the upload limit).
    pub max_bytes: u64,
    /// Most pages read from a PDF.
    pub max_pages: usize,
    /// Longest time an extraction may take (checked between pages and paragraphs).
    pub max_time: Duration,
    /// Largest uncompressed XML part of a DOCX (a zip bomb stops here).
    pub max_xml_bytes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_bytes: 25 * 1024 * 1024,
            max_pages: 2_000,
            max_time: Duration::from_secs(60),
            max_xml_bytes: 64 * 1024 * 1024,
        }
    }
}

/// What an extraction produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Extracted {
    /// Number of pages, when the format knows pages.
    pub pages: Option<u32>,
    /// Headings and paragraphs in reading order.
    pub blocks: Vec<Block>,
}

/// Why a file could not be read. The messages open with the specification's texts ("PDF
/// extraction failed", "Word document extraction failed", "Text file extraction failed") and say
/// what to do.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExtractError {
    /// Larger than [`Limits::max_bytes`].
    #[error("{prefix}: the file is larger than {max} MB.", prefix = prefix(*.0), max = .1 / (1024 * 1024))]
    TooLarge(Format, u64),
    /// More pages than [`Limits::max_pages`].
    #[error(
        "PDF extraction failed: the file has {pages} pages, more than the {max} allowed. Split it and upload the parts."
    )]
    TooManyPages {
        /// Pages in the file.
        pages: usize,
        /// The limit.
        max: usize,
    },
    /// Took longer than [`Limits::max_time`].
    #[error("{prefix}: reading the file took longer than {secs} seconds.", prefix = prefix(*.0), secs = .1.as_secs())]
    TimedOut(Format, Duration),
    /// Not valid UTF-8.
    #[error(
        "Text file extraction failed: the file is not valid UTF-8 text (invalid byte at offset {0}). Save it as UTF-8 and upload it again."
    )]
    InvalidUtf8(usize),
    /// The parser refused the file.
    #[error("{prefix}: {detail}", prefix = prefix(*.0), detail = .1)]
    Invalid(Format, String),
    /// The parser panicked.
    #[error("{prefix}: the file could not be read (it may be damaged).", prefix = prefix(*.0))]
    Panicked(Format),
    /// Nothing readable in it.
    #[error("{prefix}: no text was found in the file (a scanned document needs OCR first).", prefix = prefix(*.0))]
    Empty(Format),
}

fn prefix(f: Format) -> &'static str {
    match f {
        Format::Pdf => "PDF extraction failed",
        Format::Docx => "Word document extraction failed",
        Format::Txt => "Text file extraction failed",
    }
}

/// [`extract`] under `catch_unwind`: a panic of the parser becomes [`ExtractError::Panicked`].
/// Call it on a blocking thread; the caller also bounds the wall time (a single page the parser
/// never finishes cannot be interrupted from inside).
pub fn extract_isolated(
    format: Format,
    bytes: &[u8],
    limits: Limits,
) -> Result<Extracted, ExtractError> {
    isolate(format, || extract(format, bytes, limits))
}

/// Runs `f`, a panic becoming [`ExtractError::Panicked`].
fn isolate<T>(
    format: Format,
    f: impl FnOnce() -> Result<T, ExtractError>,
) -> Result<T, ExtractError> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(_) => Err(ExtractError::Panicked(format)),
    }
}

/// Reads `bytes` as `format` within `limits`.
pub fn extract(format: Format, bytes: &[u8], limits: Limits) -> Result<Extracted, ExtractError> {
    if bytes.len() as u64 > limits.max_bytes {
        return Err(ExtractError::TooLarge(format, limits.max_bytes));
    }
    let clock = Clock {
        start: Instant::now(),
        max: limits.max_time,
        format,
    };
    let out = match format {
        Format::Pdf => pdf(bytes, limits, &clock)?,
        Format::Docx => docx(bytes, limits, &clock)?,
        Format::Txt => txt(bytes, &clock)?,
    };
    if out.blocks.iter().all(|b| b.text.is_empty()) {
        return Err(ExtractError::Empty(format));
    }
    Ok(out)
}

struct Clock {
    start: Instant,
    max: Duration,
    format: Format,
}

impl Clock {
    fn check(&self) -> Result<(), ExtractError> {
        if self.start.elapsed() > self.max {
            Err(ExtractError::TimedOut(self.format, self.max))
        } else {
            Ok(())
        }
    }
}

// ---------------------------------------------------------------------------------------------
// TXT

fn txt(bytes: &[u8], clock: &Clock) -> Result<Extracted, ExtractError> {
    let text =
        std::str::from_utf8(bytes).map_err(|e| ExtractError::InvalidUtf8(e.valid_up_to()))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut blocks = Vec::new();
    let pages: Vec<&str> = text.split('\u{c}').collect();
    for (i, page) in pages.iter().enumerate() {
        clock.check()?;
        let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
        paragraphs(page, Some(n), &mut blocks);
    }
    Ok(Extracted {
        pages: Some(u32::try_from(pages.len()).unwrap_or(u32::MAX)),
        blocks,
    })
}

/// Splits `text` into paragraphs at blank lines.
fn paragraphs(text: &str, page: Option<u32>, out: &mut Vec<Block>) {
    let mut current = String::new();
    let flush = |current: &mut String, out: &mut Vec<Block>| {
        let t = collapse_ws(current);
        if !t.is_empty() {
            out.push(Block {
                kind: BlockKind::Paragraph,
                text: t,
                page,
            });
        }
        current.clear();
    };
    for line in text.lines() {
        if line.trim().is_empty() {
            flush(&mut current, out);
        } else {
            current.push_str(line);
            current.push('\n');
        }
    }
    flush(&mut current, out);
}

// ---------------------------------------------------------------------------------------------
// PDF

fn pdf(bytes: &[u8], limits: Limits, clock: &Clock) -> Result<Extracted, ExtractError> {
    use pdf_oxide::document::PdfDocument;
    let invalid = |e: pdf_oxide::error::Error| ExtractError::Invalid(Format::Pdf, e.to_string());
    let doc = PdfDocument::from_bytes(bytes.to_vec()).map_err(invalid)?;
    let n = doc.page_count().map_err(invalid)?;
    if n > limits.max_pages {
        return Err(ExtractError::TooManyPages {
            pages: n,
            max: limits.max_pages,
        });
    }
    clock.check()?;
    let mut outline = Vec::new();
    if let Ok(Some(items)) = doc.get_outline() {
        flatten_outline(&items, 1, &mut outline);
    }
    outline.retain(|h| h.page < n && !h.title.is_empty());
    let blocks = if outline.is_empty() {
        pdf_by_font_size(&doc, n, clock)?
    } else {
        pdf_with_outline(&doc, n, &outline, clock)?
    };
    Ok(Extracted {
        pages: Some(u32::try_from(n).unwrap_or(u32::MAX)),
        blocks,
    })
}

struct OutlineHeading {
    title: String,
    level: u8,
    page: usize,
}

fn flatten_outline(
    items: &[pdf_oxide::outline::OutlineItem],
    level: u8,
    out: &mut Vec<OutlineHeading>,
) {
    for item in items {
        if let Some(pdf_oxide::outline::Destination::PageIndex(page)) = item.dest {
            out.push(OutlineHeading {
                title: collapse_ws(&item.title),
                level,
                page,
            });
        }
        flatten_outline(&item.children, level.saturating_add(1).min(6), out);
    }
}

fn same_title(line: &str, title: &str) -> bool {
    let norm = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let (a, b) = (norm(line), norm(title));
    !a.is_empty() && a == b
}

fn pdf_with_outline(
    doc: &pdf_oxide::document::PdfDocument,
    n: usize,
    outline: &[OutlineHeading],
    clock: &Clock,
) -> Result<Vec<Block>, ExtractError> {
    let mut blocks = Vec::new();
    for page in 0..n {
        clock.check()?;
        let number = Some(u32::try_from(page + 1).unwrap_or(u32::MAX));
        let text = doc
            .extract_text(page)
            .map_err(|e| ExtractError::Invalid(Format::Pdf, e.to_string()))?;
        let mut pending: Vec<&OutlineHeading> = outline.iter().filter(|h| h.page == page).collect();
        let mut page_blocks: Vec<Block> = Vec::new();
        let mut para = String::new();
        let flush = |para: &mut String, out: &mut Vec<Block>| {
            let t = collapse_ws(para);
            if !t.is_empty() {
                out.push(Block {
                    kind: BlockKind::Paragraph,
                    text: t,
                    page: number,
                });
            }
            para.clear();
        };
        for line in text.lines() {
            let trimmed = line.trim();
            if trimmed.is_empty() {
                flush(&mut para, &mut page_blocks);
                continue;
            }
            if let Some(i) = pending.iter().position(|h| same_title(trimmed, &h.title)) {
                flush(&mut para, &mut page_blocks);
                let h = pending.remove(i);
                page_blocks.push(Block {
                    kind: BlockKind::Heading(h.level),
                    text: h.title.clone(),
                    page: number,
                });
                continue;
            }
            para.push_str(trimmed);
            para.push('\n');
        }
        flush(&mut para, &mut page_blocks);
        // Headings whose title no line carries start the page.
        for h in pending {
            blocks.push(Block {
                kind: BlockKind::Heading(h.level),
                text: h.title.clone(),
                page: number,
            });
        }
        blocks.extend(page_blocks);
    }
    Ok(blocks)
}

/// A line of a page as the spans give it: text and the largest font size in it.
struct Line {
    text: String,
    size: f32,
}

fn pdf_by_font_size(
    doc: &pdf_oxide::document::PdfDocument,
    n: usize,
    clock: &Clock,
) -> Result<Vec<Block>, ExtractError> {
    let mut pages: Vec<Vec<Line>> = Vec::with_capacity(n);
    // Characters per font size (in half points), to find the body text's size.
    let mut weight: std::collections::HashMap<i32, usize> = std::collections::HashMap::new();
    for page in 0..n {
        clock.check()?;
        let spans = doc
            .extract_spans(page)
            .map_err(|e| ExtractError::Invalid(Format::Pdf, e.to_string()))?;
        let mut lines: Vec<Line> = Vec::new();
        let mut last_y: Option<f32> = None;
        for s in spans {
            let text = s.text.trim();
            if text.is_empty() {
                continue;
            }
            *weight.entry(half_points(s.font_size)).or_default() += text.chars().count();
            let y = s.bbox.y;
            let same_line = last_y.is_some_and(|ly| (ly - y).abs() < s.font_size.max(1.0) * 0.5);
            match lines.last_mut() {
                Some(l) if same_line => {
                    l.text.push(' ');
                    l.text.push_str(text);
                    l.size = l.size.max(s.font_size);
                }
                _ => lines.push(Line {
                    text: text.to_owned(),
                    size: s.font_size,
                }),
            }
            last_y = Some(y);
        }
        pages.push(lines);
    }
    let body = weight
        .iter()
        .max_by_key(|(size, count)| (**count, -**size))
        .map(|(size, _)| *size)
        .unwrap_or(24);
    // Heading sizes: at least 1.2 times the body's, largest first.
    let mut sizes: Vec<i32> = weight
        .keys()
        .copied()
        .filter(|s| f64::from(*s) >= f64::from(body) * 1.2)
        .collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    let level_of = |size: f32| -> Option<u8> {
        let hp = half_points(size);
        sizes
            .iter()
            .position(|s| *s == hp)
            .map(|i| u8::try_from(i + 1).unwrap_or(6).min(6))
    };
    let mut blocks = Vec::new();
    for (i, lines) in pages.into_iter().enumerate() {
        let number = Some(u32::try_from(i + 1).unwrap_or(u32::MAX));
        let mut para = String::new();
        for line in lines {
            match level_of(line.size) {
                Some(level) if line.text.chars().count() <= 200 => {
                    let t = collapse_ws(&para);
                    if !t.is_empty() {
                        blocks.push(Block {
                            kind: BlockKind::Paragraph,
                            text: t,
                            page: number,
                        });
                    }
                    para.clear();
                    blocks.push(Block {
                        kind: BlockKind::Heading(level),
                        text: collapse_ws(&line.text),
                        page: number,
                    });
                }
                _ => {
                    para.push_str(&line.text);
                    para.push('\n');
                }
            }
        }
        let t = collapse_ws(&para);
        if !t.is_empty() {
            blocks.push(Block {
                kind: BlockKind::Paragraph,
                text: t,
                page: number,
            });
        }
    }
    Ok(blocks)
}

#[allow(clippy::cast_possible_truncation)]
fn half_points(size: f32) -> i32 {
    (size * 2.0).round() as i32
}

// ---------------------------------------------------------------------------------------------
// DOCX

fn docx(bytes: &[u8], limits: Limits, clock: &Clock) -> Result<Extracted, ExtractError> {
    let invalid = |m: String| ExtractError::Invalid(Format::Docx, m);
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|_| invalid("the file is not a Word document (.docx).".into()))?;
    let document = read_part(&mut zip, "word/document.xml", limits.max_xml_bytes)?
        .ok_or_else(|| invalid("the file has no word/document.xml.".into()))?;
    let styles = match read_part(&mut zip, "word/styles.xml", limits.max_xml_bytes)? {
        Some(s) => heading_styles(&s).map_err(invalid)?,
        None => std::collections::HashMap::new(),
    };
    clock.check()?;
    document_blocks(&document, &styles, clock)
}

fn read_part<R: Read + std::io::Seek>(
    zip: &mut zip::ZipArchive<R>,
    name: &str,
    max: u64,
) -> Result<Option<String>, ExtractError> {
    let file = match zip.by_name(name) {
        Ok(f) => f,
        Err(zip::result::ZipError::FileNotFound) => return Ok(None),
        Err(e) => return Err(ExtractError::Invalid(Format::Docx, format!("{name}: {e}"))),
    };
    let mut buf = Vec::new();
    file.take(max + 1)
        .read_to_end(&mut buf)
        .map_err(|e| ExtractError::Invalid(Format::Docx, format!("{name}: {e}")))?;
    if buf.len() as u64 > max {
        return Err(ExtractError::Invalid(
            Format::Docx,
            format!(
                "{name} is larger than {} MB uncompressed.",
                max / (1024 * 1024)
            ),
        ));
    }
    String::from_utf8(buf)
        .map(Some)
        .map_err(|_| ExtractError::Invalid(Format::Docx, format!("{name} is not UTF-8 XML.")))
}

fn attr(e: &BytesStart<'_>, local: &str) -> Option<String> {
    e.attributes().flatten().find_map(|a| {
        (a.key.local_name().as_ref() == local)
            .then(|| {
                a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                    .ok()
                    .map(|v| v.into_owned())
            })
            .flatten()
    })
}

/// A style's own heading level and the style it is based on.
#[derive(Default)]
struct StyleDef {
    level: Option<u8>,
    based_on: Option<String>,
}

/// The heading level of every paragraph style that has one (after `w:basedOn`).
fn heading_styles(xml: &str) -> Result<std::collections::HashMap<String, u8>, String> {
    let mut defs: std::collections::HashMap<String, StyleDef> = std::collections::HashMap::new();
    let mut reader = Reader::from_str(xml);
    let mut current: Option<(String, StyleDef)> = None;
    loop {
        let ev = reader
            .read_event()
            .map_err(|e| format!("word/styles.xml: {e}"))?;
        let empty = matches!(ev, Event::Empty(_));
        match ev {
            Event::Start(e) | Event::Empty(e) => match e.local_name().as_ref() {
                "style" => {
                    if let Some(id) = attr(&e, "styleId") {
                        if empty {
                            defs.insert(id, StyleDef::default());
                        } else {
                            current = Some((id, StyleDef::default()));
                        }
                    }
                }
                "name" => {
                    if let (Some((_, def)), Some(v)) = (current.as_mut(), attr(&e, "val")) {
                        let v = v.to_lowercase();
                        if let Some(n) = v.strip_prefix("heading ")
                            && let Ok(n) = n.trim().parse::<u8>()
                            && (1..=9).contains(&n)
                        {
                            def.level = Some(n);
                        } else if v == "title" {
                            def.level = def.level.or(Some(1));
                        }
                    }
                }
                "outlineLvl" => {
                    if let (Some((_, def)), Some(v)) = (current.as_mut(), attr(&e, "val"))
                        && let Ok(n) = v.parse::<u8>()
                        && n < 9
                    {
                        def.level = Some(n + 1);
                    }
                }
                "basedOn" => {
                    if let (Some((_, def)), Some(v)) = (current.as_mut(), attr(&e, "val")) {
                        def.based_on = Some(v);
                    }
                }
                _ => {}
            },
            Event::End(e) if e.local_name().as_ref() == "style" => {
                if let Some((id, def)) = current.take() {
                    defs.insert(id, def);
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    let mut out = std::collections::HashMap::new();
    for id in defs.keys() {
        let mut at = id.as_str();
        for _ in 0..10 {
            let Some(def) = defs.get(at) else { break };
            if let Some(level) = def.level {
                out.insert(id.clone(), level);
                break;
            }
            match &def.based_on {
                Some(b) => at = b.as_str(),
                None => break,
            }
        }
    }
    Ok(out)
}

fn document_blocks(
    xml: &str,
    styles: &std::collections::HashMap<String, u8>,
    clock: &Clock,
) -> Result<Extracted, ExtractError> {
    let invalid = |e: quick_xml::Error| {
        ExtractError::Invalid(Format::Docx, format!("word/document.xml: {e}"))
    };
    // Pages: Word's last rendering if it left marks, else explicit page breaks.
    let rendered = xml.contains("lastRenderedPageBreak");
    let mut reader = Reader::from_str(xml);
    let mut blocks = Vec::new();
    let mut page: u32 = 1;
    let mut in_para = false;
    let mut in_text = false;
    let mut text = String::new();
    let mut level: Option<u8> = None;
    let mut para_page = page;
    let mut count = 0usize;
    loop {
        let ev = reader.read_event().map_err(invalid)?;
        let empty = matches!(ev, Event::Empty(_));
        match ev {
            Event::Start(e) | Event::Empty(e) => match e.local_name().as_ref() {
                "p" if !empty => {
                    in_para = true;
                    text.clear();
                    level = None;
                    para_page = page;
                }
                "pStyle" if in_para => {
                    if let Some(v) = attr(&e, "val") {
                        level = styles.get(&v).copied().or(level);
                    }
                }
                "outlineLvl" if in_para => {
                    if let Some(n) = attr(&e, "val").and_then(|v| v.parse::<u8>().ok())
                        && n < 9
                    {
                        level = Some(n + 1);
                    }
                }
                "t" if !empty => in_text = true,
                "tab" if in_para => text.push(' '),
                "br" | "cr" => {
                    if !rendered && attr(&e, "type").as_deref() == Some("page") {
                        page += 1;
                        if text.trim().is_empty() {
                            para_page = page;
                        }
                    } else {
                        text.push(' ');
                    }
                }
                "lastRenderedPageBreak" => {
                    page += 1;
                    if text.trim().is_empty() {
                        para_page = page;
                    }
                }
                _ => {}
            },
            Event::Text(t) if in_text => text.push_str(&t),
            Event::GeneralRef(r) if in_text => {
                if let Ok(Some(c)) = r.resolve_char_ref() {
                    text.push(c);
                } else {
                    match &*r {
                        "amp" => text.push('&'),
                        "lt" => text.push('<'),
                        "gt" => text.push('>'),
                        "quot" => text.push('"'),
                        "apos" => text.push('\''),
                        _ => {}
                    }
                }
            }
            Event::End(e) => match e.local_name().as_ref() {
                "t" => in_text = false,
                "p" => {
                    in_para = false;
                    let t = collapse_ws(&text);
                    if !t.is_empty() {
                        blocks.push(Block {
                            kind: level.map_or(BlockKind::Paragraph, BlockKind::Heading),
                            text: t,
                            page: Some(para_page),
                        });
                    }
                    text.clear();
                    count += 1;
                    if count.is_multiple_of(256) {
                        clock.check()?;
                    }
                }
                _ => {}
            },
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(Extracted {
        pages: Some(page),
        blocks,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use std::io::Write;

    use super::*;

    /// A DOCX with a "Heading 1" and a "Heading 2" style (the second based on a custom style
    /// with `w:outlineLvl`), paragraphs, an entity, a page break and an empty paragraph.
    pub(crate) fn sample_docx() -> Vec<u8> {
        let styles = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">
  <w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
  <w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/></w:style>
  <w:style w:type="paragraph" w:styleId="Custom2"><w:name w:val="Custom"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style>
  <w:style w:type="paragraph" w:styleId="Kop2"><w:name w:val="Kop 2"/><w:basedOn w:val="Custom2"/></w:style>
</w:styles>"#;
        let document = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">
  <w:body>
    <w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Part Three</w:t></w:r></w:p>
    <w:p><w:r><w:t xml:space="preserve">Capital requirements </w:t></w:r><w:r><w:t>&amp; own funds.</w:t></w:r></w:p>
    <w:p/>
    <w:p><w:r><w:br w:type="page"/></w:r></w:p>
    <w:p><w:pPr><w:pStyle w:val="Kop2"/></w:pPr><w:r><w:t>Article 116 Exposures to public sector entities</w:t></w:r></w:p>
    <w:p><w:r><w:t>Exposures to PSEs are risk weighted according to Art. 116(2).</w:t></w:r><w:r><w:tab/><w:t>Done.</w:t></w:r></w:p>
  </w:body>
</w:document>"#;
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let opts = zip::write::SimpleFileOptions::default();
        zip.start_file("[Content_Types].xml", opts).unwrap();
        zip.write_all(b"<Types/>").unwrap();
        zip.start_file("word/styles.xml", opts).unwrap();
        zip.write_all(styles.as_bytes()).unwrap();
        zip.start_file("word/document.xml", opts).unwrap();
        zip.write_all(document.as_bytes()).unwrap();
        zip.finish().unwrap().into_inner()
    }

    /// A two-page PDF with known headings; with an outline (`Part Three` on page 1, `Article 116`
    /// under it on page 2) or without one.
    pub(crate) fn sample_pdf(with_outline: bool) -> Vec<u8> {
        use pdf_oxide::writer::{DocumentBuilder, OutlineItem};
        let mut b = DocumentBuilder::new();
        b.a4_page()
            .at(72.0, 770.0)
            .heading(1, "Part Three")
            .font("Helvetica", 11.0)
            .paragraph("Capital requirements for credit risk apply to every exposure class.")
            .paragraph("Institutions shall calculate their risk weighted exposure amounts.")
            .done();
        b.a4_page()
            .at(72.0, 770.0)
            .heading(2, "Article 116 Exposures to PSEs")
            .font("Helvetica", 11.0)
            .paragraph(
                "Exposures to public sector entities shall be risk weighted under Art. 116(2).",
            )
            .paragraph("Regional governments follow the rules of Article 115.")
            .done();
        let b = if with_outline {
            b.bookmark_tree(|o| {
                o.add_item(OutlineItem::new("Part Three", 0));
                o.add_child(OutlineItem::new("Article 116 Exposures to PSEs", 1));
                o.pop();
            })
        } else {
            b
        };
        b.build().unwrap()
    }

    fn headings(x: &Extracted) -> Vec<(u8, String, Option<u32>)> {
        x.blocks
            .iter()
            .filter_map(|b| match b.kind {
                BlockKind::Heading(l) => Some((l, b.text.clone(), b.page)),
                BlockKind::Paragraph => None,
            })
            .collect()
    }

    fn text_on(x: &Extracted, page: u32) -> String {
        x.blocks
            .iter()
            .filter(|b| b.kind == BlockKind::Paragraph && b.page == Some(page))
            .map(|b| b.text.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn docx_headings_come_from_the_styles() {
        let x = extract(Format::Docx, &sample_docx(), Limits::default()).unwrap();
        assert_eq!(
            headings(&x),
            [
                (1, "Part Three".to_owned(), Some(1)),
                (
                    2,
                    "Article 116 Exposures to public sector entities".to_owned(),
                    Some(2)
                ),
            ]
        );
        assert_eq!(x.blocks[1].text, "Capital requirements & own funds.");
        assert_eq!(
            x.blocks[3].text,
            "Exposures to PSEs are risk weighted according to Art. 116(2). Done."
        );
        assert_eq!(x.pages, Some(2));
    }

    #[test]
    fn a_damaged_docx_is_refused_with_the_word_message() {
        let e = extract(Format::Docx, b"PK\x03\x04 not really", Limits::default()).unwrap_err();
        assert!(
            e.to_string().starts_with("Word document extraction failed"),
            "{e}"
        );
    }

    #[test]
    fn pdf_outline_entries_are_headings_on_their_pages() {
        let x = extract(Format::Pdf, &sample_pdf(true), Limits::default()).unwrap();
        assert_eq!(x.pages, Some(2));
        assert_eq!(
            headings(&x),
            [
                (1, "Part Three".to_owned(), Some(1)),
                (2, "Article 116 Exposures to PSEs".to_owned(), Some(2)),
            ]
        );
        assert!(
            text_on(&x, 1).contains("Capital requirements for credit risk"),
            "{x:?}"
        );
        assert!(
            text_on(&x, 2).contains("risk weighted under Art. 116(2)"),
            "{x:?}"
        );
        assert!(!text_on(&x, 2).contains("Article 116 Exposures"), "{x:?}");
    }

    #[test]
    fn pdf_without_outline_infers_headings_from_font_sizes() {
        let x = extract(Format::Pdf, &sample_pdf(false), Limits::default()).unwrap();
        assert_eq!(x.pages, Some(2));
        assert_eq!(
            headings(&x),
            [
                (1, "Part Three".to_owned(), Some(1)),
                (2, "Article 116 Exposures to PSEs".to_owned(), Some(2)),
            ]
        );
        assert!(
            text_on(&x, 2).contains("Regional governments follow"),
            "{x:?}"
        );
    }

    #[test]
    fn pdf_limits_and_damage_give_clear_errors() {
        let pdf = sample_pdf(true);
        let few = Limits {
            max_pages: 1,
            ..Limits::default()
        };
        assert_eq!(
            extract_isolated(Format::Pdf, &pdf, few).unwrap_err(),
            ExtractError::TooManyPages { pages: 2, max: 1 }
        );
        let small = Limits {
            max_bytes: 10,
            ..Limits::default()
        };
        assert!(matches!(
            extract_isolated(Format::Pdf, &pdf, small),
            Err(ExtractError::TooLarge(Format::Pdf, 10))
        ));
        let none = Limits {
            max_time: Duration::ZERO,
            ..Limits::default()
        };
        assert!(matches!(
            extract_isolated(Format::Pdf, &pdf, none),
            Err(ExtractError::TimedOut(Format::Pdf, _))
        ));
        let e = extract_isolated(Format::Pdf, b"%PDF-1.7 garbage", Limits::default()).unwrap_err();
        assert!(e.to_string().starts_with("PDF extraction failed"), "{e}");
    }

    #[test]
    fn txt_is_utf8_with_form_feeds_as_pages() {
        let x = extract(
            Format::Txt,
            "\u{feff}First para\nstill first.\n\nSecond.\u{c}Page two text.".as_bytes(),
            Limits::default(),
        )
        .unwrap();
        assert_eq!(x.pages, Some(2));
        assert_eq!(
            x.blocks
                .iter()
                .map(|b| (b.text.as_str(), b.page))
                .collect::<Vec<_>>(),
            [
                ("First para still first.", Some(1)),
                ("Second.", Some(1)),
                ("Page two text.", Some(2))
            ]
        );
        let e = extract(Format::Txt, b"ok \xff\xfe bad", Limits::default()).unwrap_err();
        assert_eq!(e, ExtractError::InvalidUtf8(3));
        assert!(e.to_string().starts_with("Text file extraction failed"));
        assert!(matches!(
            extract(Format::Txt, b"  \n\n ", Limits::default()),
            Err(ExtractError::Empty(Format::Txt))
        ));
    }

    #[test]
    fn a_panicking_parser_is_an_error_not_a_crash() {
        let e = isolate(Format::Pdf, || -> Result<(), ExtractError> {
            panic!("parser bug")
        })
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "PDF extraction failed: the file could not be read (it may be damaged)."
        );
    }
}
