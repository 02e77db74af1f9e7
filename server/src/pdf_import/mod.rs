//! A report template out of a PDF ('Create template from PDF', spec 002): the document's
//! sections (title, level, pages, text), the tables and figures in their text, and the brand
//! colours of its first page. No HTTP, no SQL: the service runs [`import_isolated`] on a
//! blocking thread and turns the result into a template.
//!
//! The steps, each reporting its progress through the caller's callback:
//! - **parse**: every page's text spans (pdf_oxide), grouped into lines (spans whose baselines
//!   are closer than half their font size, and never more than [`LINE_TOLERANCE`] units apart,
//!   share a line; a horizontal gap wider than the font size starts a new cell), with running
//!   heads and footers (the same line on many pages) and lone page numbers removed;
//! - **analyze**: the sections' headings, from the first source that has them: the PDF's
//!   outline (bookmarks); else a printed table of contents in the first [`TOC_PAGES`] pages
//!   (lines ending in a page number, usually after dot leaders); else lines set larger or bolder
//!   than the body text ([`structure`]);
//! - **extract**: each section's text, from its heading to the next, with the figures
//!   (a Figure, Chart, Graph or Exhibit caption followed by numbers) and tables (aligned rows
//!   with numeric cells) found in it ([`blocks`]).
//!
//! The caps and thresholds are the specification's (the constants below). The palette is read
//! from what page 1 draws in colour: its filled shapes weighted by area and its text weighted by
//! glyph area (pdf_oxide is built without its rasteriser, so images on the page do not count).

mod blocks;
mod structure;
#[cfg(test)]
mod tests;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

pub use blocks::{Block, Chart, Table};

/// Largest PDF taken.
pub const MAX_BYTES: u64 = 50 * 1024 * 1024;
/// Most pages read (page numbers run from 1 to 1000).
pub const MAX_PAGES: usize = 1000;
/// Longest an import may take (checked between pages).
pub const MAX_TIME: Duration = Duration::from_secs(60);
/// Most sections a template may get from a PDF; more fails the import.
pub const MAX_SECTIONS: usize = 100;
/// Most headings the font heuristics keep.
pub const MAX_HEURISTIC_HEADERS: usize = 60;
/// Most table-of-contents entries read.
pub const MAX_TOC_ENTRIES: usize = 100;
/// Above this many entries, a table of contents keeps levels 1 and 2 only, and is cut to it.
pub const TOC_KEEP: usize = 60;
/// Pages searched for a printed table of contents.
pub const TOC_PAGES: usize = 5;
/// Longest section title; a longer one is cut and ends with an ellipsis.
pub const MAX_TITLE_CHARS: usize = 120;
/// Longest title read from a table of contents.
pub const MAX_TOC_TITLE_CHARS: usize = 80;
/// Spans further apart vertically than this never share a line.
pub const LINE_TOLERANCE: f32 = 15.0;
/// A section with less text than this gets the placeholder paragraph after it.
pub const MIN_CONTENT_CHARS: usize = 150;
/// The placeholder of a section with (almost) no text, the editor's new-section text.
pub const PLACEHOLDER: &str = "Enter your content here...";
/// Text the single section of a PDF without structure keeps.
pub const FALLBACK_CHARS: usize = 5000;
/// Longest text a section keeps (the template's section limit).
pub const MAX_SECTION_CHARS: usize = 20_000;

/// The steps the importer runs itself (upload and generate belong to the service).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Reading the pages.
    Parse,
    /// Finding the sections.
    Analyze,
    /// Reading each section's text, tables and figures.
    Extract,
}

/// How far a step is: `done` of `total` units (pages, sources, sections).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// The step.
    pub step: Step,
    /// Units done.
    pub done: usize,
    /// Units in all.
    pub total: usize,
}

/// Where the sections came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// The PDF's outline.
    Outline,
    /// A printed table of contents.
    TableOfContents,
    /// Headings recognised by their font.
    Headings,
    /// No structure: one section with the start of the text.
    WholeDocument,
}

impl Method {
    /// The code the wire uses.
    pub fn code(self) -> &'static str {
        match self {
            Method::Outline => "outline",
            Method::TableOfContents => "table_of_contents",
            Method::Headings => "headings",
            Method::WholeDocument => "whole_document",
        }
    }
}

/// A section found in the PDF.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    /// Title (1 to [`MAX_TITLE_CHARS`] characters).
    pub title: String,
    /// Level, 1 for a top-level heading.
    pub level: u8,
    /// First page (from 1).
    pub page_start: u32,
    /// Last page.
    pub page_end: u32,
    /// Text, paragraphs separated by a blank line.
    pub content: String,
    /// Tables and charts found in the section's text, in order.
    pub blocks: Vec<Block>,
}

/// What an import found.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// The document's title (its metadata), if it has one.
    pub title: Option<String>,
    /// Pages.
    pub pages: usize,
    /// Where the sections came from.
    pub method: Method,
    /// Sections in order.
    pub sections: Vec<Section>,
    /// Brand colours of page 1 (`#rrggbb`), most used first, at most 5.
    pub palette: Vec<String>,
    /// Page 1's background colour when a coloured shape covers most of it.
    pub background: Option<String>,
}

/// Why a PDF gives no template. The section messages are the specification's.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ImportError {
    /// Larger than [`MAX_BYTES`].
    #[error("The PDF is larger than 50MB.")]
    TooLarge,
    /// More pages than [`MAX_PAGES`].
    #[error("The PDF has {0} pages, more than the 1000 a template can be made from.")]
    TooManyPages(usize),
    /// Took longer than [`MAX_TIME`].
    #[error("Reading the PDF took longer than {} seconds.", MAX_TIME.as_secs())]
    TimedOut,
    /// Not a PDF the parser can read.
    #[error("The file could not be read as a PDF: {0}")]
    Invalid(String),
    /// The parser panicked.
    #[error("The file could not be read as a PDF (it may be damaged).")]
    Panicked,
    /// Over [`MAX_SECTIONS`].
    #[error(
        "Detected {0} sections, which exceeds the safe limit of 100. Please check the document structure."
    )]
    TooManySections(usize),
    /// No titled section.
    #[error(
        "No valid sections could be detected from the PDF. Please ensure the document has a clear structure."
    )]
    NoSections,
}

impl ImportError {
    /// The step the error belongs to.
    pub fn step(&self) -> Step {
        match self {
            ImportError::TooManySections(_) | ImportError::NoSections => Step::Analyze,
            _ => Step::Parse,
        }
    }
}

/// [`import`] under `catch_unwind`. Call it on a blocking thread.
pub fn import_isolated(
    bytes: &[u8],
    progress: &mut dyn FnMut(Progress),
) -> Result<Imported, ImportError> {
    match catch_unwind(AssertUnwindSafe(|| import(bytes, progress))) {
        Ok(r) => r,
        Err(_) => Err(ImportError::Panicked),
    }
}

/// A line of a page.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Line {
    /// The line's text (cells joined by a space).
    pub text: String,
    /// Its cells: runs of text separated by a gap wider than the font size.
    pub cells: Vec<String>,
    /// Largest font size in it.
    pub size: f32,
    /// Whether all its text is bold.
    pub bold: bool,
    /// Left edge.
    pub x: f32,
    /// Baseline (PDF units, from the bottom of the page).
    pub y: f32,
}

pub(crate) struct Clock(Instant);

impl Clock {
    pub(crate) fn check(&self) -> Result<(), ImportError> {
        if self.0.elapsed() > MAX_TIME {
            Err(ImportError::TimedOut)
        } else {
            Ok(())
        }
    }
}

/// Reads `bytes` as a PDF and finds its sections, tables, figures and palette.
pub fn import(bytes: &[u8], progress: &mut dyn FnMut(Progress)) -> Result<Imported, ImportError> {
    use pdf_oxide::document::PdfDocument;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(ImportError::TooLarge);
    }
    let clock = Clock(Instant::now());
    let invalid = |e: pdf_oxide::error::Error| ImportError::Invalid(e.to_string());
    let doc = PdfDocument::from_bytes(bytes.to_vec()).map_err(invalid)?;
    let n = doc.page_count().map_err(invalid)?;
    if n > MAX_PAGES {
        return Err(ImportError::TooManyPages(n));
    }
    progress(Progress {
        step: Step::Parse,
        done: 0,
        total: n,
    });
    let mut pages: Vec<Vec<Line>> = Vec::with_capacity(n);
    let mut palette = Vec::new();
    let mut background = None;
    for page in 0..n {
        clock.check()?;
        let spans = doc.extract_spans(page).map_err(invalid)?;
        if page == 0 {
            let paths = doc.extract_paths(0).unwrap_or_default();
            let (w, h) = doc
                .get_page_media_box(0)
                .map(|(x0, y0, x1, y1)| ((x1 - x0).abs(), (y1 - y0).abs()))
                .unwrap_or((595.0, 842.0));
            (palette, background) = page_palette(&spans, &paths, w * h);
        }
        pages.push(lines_of(&spans));
        progress(Progress {
            step: Step::Parse,
            done: page + 1,
            total: n,
        });
    }
    structure::remove_running_lines(&mut pages);
    let title = document_title(&doc);

    progress(Progress {
        step: Step::Analyze,
        done: 0,
        total: 1,
    });
    let outline = doc.get_outline().ok().flatten().unwrap_or_default();
    let found = structure::find(&outline, &pages)?;
    progress(Progress {
        step: Step::Analyze,
        done: 1,
        total: 1,
    });

    let total = found.headings.len().max(1);
    progress(Progress {
        step: Step::Extract,
        done: 0,
        total,
    });
    let sections = if found.headings.is_empty() {
        let text = paragraphs(&structure::all_lines(&pages), FALLBACK_CHARS);
        if text.is_empty() {
            return Err(ImportError::NoSections);
        }
        let title = title
            .clone()
            .map(|t| cut_title(&t))
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| "Document Content".to_owned());
        progress(Progress {
            step: Step::Extract,
            done: total,
            total,
        });
        vec![Section {
            title,
            level: 1,
            page_start: 1,
            page_end: u32::try_from(n.max(1)).unwrap_or(u32::MAX),
            content: with_placeholder(text),
            blocks: Vec::new(),
        }]
    } else {
        let mut out = Vec::with_capacity(found.headings.len());
        for (i, range) in structure::ranges(&found.headings, &pages, found.body_from)
            .into_iter()
            .enumerate()
        {
            clock.check()?;
            let h = &found.headings[i];
            let lines = structure::lines_in(&pages, &range);
            let (blocks, rest) = blocks::find(&lines);
            let content = with_placeholder(paragraphs(&rest, MAX_SECTION_CHARS));
            out.push(Section {
                title: cut_title(&h.title),
                level: h.level,
                page_start: page_number(range.start.0),
                page_end: page_number(range.end_page),
                content,
                blocks,
            });
            progress(Progress {
                step: Step::Extract,
                done: i + 1,
                total,
            });
        }
        out
    };
    let sections: Vec<Section> = sections
        .into_iter()
        .filter(|s| (1..=199).contains(&s.title.chars().count()))
        .collect();
    if sections.is_empty() {
        return Err(ImportError::NoSections);
    }
    if sections.len() > MAX_SECTIONS {
        return Err(ImportError::TooManySections(sections.len()));
    }
    Ok(Imported {
        title,
        pages: n,
        method: found.method,
        sections,
        palette,
        background,
    })
}

fn page_number(index: usize) -> u32 {
    u32::try_from(index + 1).unwrap_or(u32::MAX)
}

fn document_title(doc: &pdf_oxide::document::PdfDocument) -> Option<String> {
    let info = doc.trailer().as_dict()?.get("Info")?.clone();
    let info = doc.resolve_references(&info, 2).ok()?;
    let title = info.as_dict()?.get("Title")?.as_string()?;
    let t =
        crate::knowledge::collapse_ws(&pdf_oxide::optional_content::decode_pdf_text_string(title));
    (!t.is_empty()).then_some(t)
}

/// A title cut to [`MAX_TITLE_CHARS`] characters, ending with an ellipsis when cut.
pub fn cut_title(raw: &str) -> String {
    let t = crate::knowledge::collapse_ws(raw);
    if t.chars().count() <= MAX_TITLE_CHARS {
        return t;
    }
    let mut out: String = t.chars().take(MAX_TITLE_CHARS - 1).collect();
    out = out.trim_end().to_owned();
    out.push('…');
    out
}

fn with_placeholder(text: String) -> String {
    if text.chars().count() >= MIN_CONTENT_CHARS {
        text
    } else if text.is_empty() {
        PLACEHOLDER.to_owned()
    } else {
        format!("{text}\n\n{PLACEHOLDER}")
    }
}

/// Lines joined into paragraphs (a vertical gap wider than 1.8 lines, or a new page, starts
/// one), separated by blank lines, cut at a paragraph boundary after `max` characters.
fn paragraphs(lines: &[(usize, &Line)], max: usize) -> String {
    let mut out = String::new();
    let mut para = String::new();
    let mut last: Option<(usize, &Line)> = None;
    let flush = |para: &mut String, out: &mut String| -> bool {
        let t = crate::knowledge::collapse_ws(para);
        para.clear();
        if t.is_empty() {
            return true;
        }
        let extra = if out.is_empty() { 0 } else { 2 };
        if out.chars().count() + extra + t.chars().count() > max {
            if out.is_empty() {
                // One paragraph longer than the bound: its first words up to it.
                let cut: String = t.chars().take(max).collect();
                let cut = match cut.rfind(' ') {
                    Some(i) if i > max / 2 => &cut[..i],
                    _ => cut.as_str(),
                };
                out.push_str(cut.trim_end());
            }
            return false;
        }
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(&t);
        true
    };
    for &(page, line) in lines {
        if let Some((lp, l)) = last {
            let gap = l.y - line.y;
            let new_para = lp != page || gap > l.size.max(line.size) * 1.8 || gap < 0.0;
            if new_para && !flush(&mut para, &mut out) {
                return out;
            }
        }
        // A word broken across lines with a hyphen is joined.
        if para.ends_with('-') && line.text.starts_with(char::is_lowercase) {
            para.pop();
        } else if !para.is_empty() {
            para.push(' ');
        }
        para.push_str(&line.text);
        last = Some((page, line));
    }
    flush(&mut para, &mut out);
    out
}

fn is_bold(s: &pdf_oxide::layout::TextSpan) -> bool {
    use pdf_oxide::layout::FontWeight;
    !matches!(
        s.font_weight,
        FontWeight::Thin
            | FontWeight::ExtraLight
            | FontWeight::Light
            | FontWeight::Normal
            | FontWeight::Medium
    ) || s.font_name.to_ascii_lowercase().contains("bold")
}

/// A page's spans grouped into lines, top to bottom.
fn lines_of(spans: &[pdf_oxide::layout::TextSpan]) -> Vec<Line> {
    struct Run<'a> {
        spans: Vec<&'a pdf_oxide::layout::TextSpan>,
        y: f32,
        size: f32,
    }
    let mut runs: Vec<Run<'_>> = Vec::new();
    for s in spans {
        if s.text.trim().is_empty() {
            continue;
        }
        let size = s.font_size.max(1.0);
        let tolerance = (size * 0.5).min(LINE_TOLERANCE);
        match runs
            .iter_mut()
            .rev()
            .take(3)
            .find(|r| (r.y - s.bbox.y).abs() < tolerance.max(r.size * 0.5).min(LINE_TOLERANCE))
        {
            Some(r) => {
                r.spans.push(s);
                r.size = r.size.max(size);
            }
            None => runs.push(Run {
                spans: vec![s],
                y: s.bbox.y,
                size,
            }),
        }
    }
    let mut lines: Vec<Line> = runs
        .into_iter()
        .map(|mut r| {
            r.spans.sort_by(|a, b| a.bbox.x.total_cmp(&b.bbox.x));
            let mut cells: Vec<String> = Vec::new();
            let mut end: Option<f32> = None;
            for s in &r.spans {
                let text = s.text.trim();
                let gap = end.map(|e| s.bbox.x - e);
                match (cells.last_mut(), gap) {
                    (Some(cell), Some(g)) if g <= r.size => {
                        if g > r.size * 0.1 || s.text.starts_with(' ') || cell.ends_with(' ') {
                            cell.push(' ');
                        }
                        cell.push_str(text);
                    }
                    _ => cells.push(text.to_owned()),
                }
                end = Some(s.bbox.x + s.bbox.width);
            }
            let cells: Vec<String> = cells
                .into_iter()
                .map(|c| crate::knowledge::collapse_ws(&c))
                .filter(|c| !c.is_empty())
                .collect();
            Line {
                text: cells.join(" "),
                bold: r.spans.iter().all(|s| is_bold(s)),
                x: r.spans.first().map(|s| s.bbox.x).unwrap_or_default(),
                y: r.y,
                size: r.size,
                cells,
            }
        })
        .filter(|l| !l.text.is_empty())
        .collect();
    // Top to bottom (PDF y grows upwards); the extraction order breaks ties.
    lines.sort_by(|a, b| b.y.total_cmp(&a.y));
    lines
}

fn hex(r: f32, g: f32, b: f32) -> String {
    let c = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    format!("#{:02x}{:02x}{:02x}", c(r), c(g), c(b))
}

/// Page 1's brand colours (chromatic colours by the area they cover, most first, at most 5,
/// near duplicates merged) and its background (a non-white fill over 60 % of the page).
fn page_palette(
    spans: &[pdf_oxide::layout::TextSpan],
    paths: &[pdf_oxide::elements::PathContent],
    page_area: f32,
) -> (Vec<String>, Option<String>) {
    let mut weights: Vec<([f32; 3], f32)> = Vec::new();
    let mut add = |c: [f32; 3], w: f32| {
        // Also refuses NaN.
        if w.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            return;
        }
        let max = c.iter().copied().fold(0.0f32, f32::max);
        let min = c.iter().copied().fold(1.0f32, f32::min);
        // Greys, black and white are not brand colours.
        if max - min < 0.12 {
            return;
        }
        match weights
            .iter_mut()
            .find(|(k, _)| k.iter().zip(&c).all(|(a, b)| (a - b).abs() < 0.06))
        {
            Some((_, total)) => *total += w,
            None => weights.push((c, w)),
        }
    };
    let mut background = None;
    for p in paths {
        if let Some(fill) = p.fill_color {
            let area = (p.bbox.width * p.bbox.height).abs().min(page_area);
            let c = [fill.r, fill.g, fill.b];
            if area > page_area * 0.6 && c.iter().any(|v| *v < 0.97) {
                background = Some(hex(c[0], c[1], c[2]));
                continue;
            }
            add(c, area);
        }
    }
    for s in spans {
        let glyphs = s.text.trim().chars().count() as f32;
        add(
            [s.color.r, s.color.g, s.color.b],
            glyphs * s.font_size * s.font_size * 0.5,
        );
    }
    weights.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut out: Vec<([f32; 3], String)> = Vec::new();
    for (c, _) in weights {
        if out
            .iter()
            .all(|(k, _)| k.iter().zip(&c).map(|(a, b)| (a - b).abs()).sum::<f32>() > 0.25)
        {
            out.push((c, hex(c[0], c[1], c[2])));
        }
        if out.len() == 5 {
            break;
        }
    }
    (out.into_iter().map(|(_, h)| h).collect(), background)
}
