//! Where a PDF's sections start: its outline, else a printed table of contents, else headings
//! recognised by their font; and the lines each section holds.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

use super::{
    ImportError, Line, MAX_HEURISTIC_HEADERS, MAX_SECTIONS, MAX_TOC_ENTRIES, MAX_TOC_TITLE_CHARS,
    Method, TOC_KEEP, TOC_PAGES,
};

/// A section's heading: its title and level, its page (from 0) and, when found on the page, the
/// first and last lines that carry it (the text starts after them; without them, at the top of
/// the page).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Heading {
    pub title: String,
    pub level: u8,
    pub page: usize,
    pub lines: Option<(usize, usize)>,
}

/// The headings found and where they came from.
pub(crate) struct Found {
    pub method: Method,
    pub headings: Vec<Heading>,
    /// Pages before this one hold no section text (a table of contents).
    pub body_from: usize,
}

/// The lines of a section: from `start` (page, line) up to `end` (page, line, exclusive).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Range {
    pub start: (usize, usize),
    pub end: (usize, usize),
    /// The section's last page.
    pub end_page: usize,
}

/// Letters and digits of `s`, lower-cased: how titles and lines are compared.
pub(crate) fn norm(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

static PAGE_NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:page\s*)?[-–—]?\s*\d{1,4}\s*[-–—]?(?:\s*(?:of|/)\s*\d{1,4})?$").unwrap()
});

/// Removes running heads and footers (a line among the first or last two of a page whose text,
/// digits aside, recurs on at least 3 pages and half of them) and lone page numbers there.
pub(crate) fn remove_running_lines(pages: &mut [Vec<Line>]) {
    let key = |l: &Line| -> String {
        norm(&l.text)
            .chars()
            .map(|c| if c.is_ascii_digit() { '#' } else { c })
            .collect()
    };
    let edge = |i: usize, len: usize| i < 2 || i + 2 >= len;
    let mut counts: HashMap<String, usize> = HashMap::new();
    for lines in pages.iter() {
        let mut seen = std::collections::HashSet::new();
        for (i, l) in lines.iter().enumerate() {
            if edge(i, lines.len()) && seen.insert(key(l)) {
                *counts.entry(key(l)).or_default() += 1;
            }
        }
    }
    let need = 3.max(pages.len().div_ceil(2));
    for lines in pages.iter_mut() {
        let len = lines.len();
        let mut i = 0;
        lines.retain(|l| {
            let at = i;
            i += 1;
            !(edge(at, len)
                && (PAGE_NUMBER.is_match(&l.text)
                    || counts.get(&key(l)).is_some_and(|c| *c >= need)))
        });
    }
}

/// The headings, from the outline, else the table of contents, else the fonts.
pub(crate) fn find(
    outline: &[pdf_oxide::outline::OutlineItem],
    pages: &[Vec<Line>],
) -> Result<Found, ImportError> {
    let from_outline = outline_headings(outline, pages)?;
    if !from_outline.is_empty() {
        return Ok(Found {
            method: Method::Outline,
            headings: from_outline,
            body_from: 0,
        });
    }
    if let Some((headings, body_from)) = toc_headings(pages) {
        return Ok(Found {
            method: Method::TableOfContents,
            headings,
            body_from,
        });
    }
    let headings = font_headings(pages);
    Ok(Found {
        method: if headings.is_empty() {
            Method::WholeDocument
        } else {
            Method::Headings
        },
        headings,
        body_from: 0,
    })
}

/// Where `title` is on a page: a line that carries it, or two consecutive lines that do
/// together (a wrapped title); with a number before the title ("2.1 Scope") or without.
fn locate(lines: &[Line], title: &str) -> Option<(usize, usize)> {
    let want = norm(title);
    if want.is_empty() {
        return None;
    }
    let bare = norm(strip_number(title).1);
    let matches = |text: &str| text == want || (!bare.is_empty() && text == bare);
    for (i, l) in lines.iter().enumerate() {
        let a = norm(&l.text);
        if a.is_empty() {
            continue;
        }
        if matches(&a) {
            return Some((i, i));
        }
        if (want.starts_with(&a) || bare.starts_with(&a))
            && let Some(next) = lines.get(i + 1)
            && matches(&format!("{a}{}", norm(&next.text)))
        {
            return Some((i, i + 1));
        }
    }
    None
}

fn outline_headings(
    items: &[pdf_oxide::outline::OutlineItem],
    pages: &[Vec<Line>],
) -> Result<Vec<Heading>, ImportError> {
    fn flatten(
        items: &[pdf_oxide::outline::OutlineItem],
        level: u8,
        out: &mut Vec<(String, u8, usize)>,
    ) {
        for item in items {
            if let Some(pdf_oxide::outline::Destination::PageIndex(page)) = item.dest {
                out.push((crate::knowledge::collapse_ws(&item.title), level, page));
            }
            flatten(&item.children, level.saturating_add(1).min(6), out);
        }
    }
    let mut entries = Vec::new();
    flatten(items, 1, &mut entries);
    entries.retain(|(title, _, page)| *page < pages.len() && !norm(title).is_empty());
    if entries.len() > TOC_KEEP {
        entries.retain(|(_, level, _)| *level <= 2);
    }
    if entries.len() > MAX_SECTIONS {
        return Err(ImportError::TooManySections(entries.len()));
    }
    // The outline's order is the reading order; an entry pointing before its predecessor is
    // placed at its predecessor's page.
    let mut last_page = 0;
    Ok(entries
        .into_iter()
        .map(|(title, level, page)| {
            let page = page.max(last_page);
            last_page = page;
            let lines = locate(&pages[page], &title);
            Heading {
                title,
                level,
                page,
                lines,
            }
        })
        .collect())
}

static LEADERS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?P<title>.*?[^\s.…·_])\s*(?:(?:\.\s*){2,}|…+|(?:·\s*){2,}|_{2,})\s*(?P<page>\d{1,4})$",
    )
    .unwrap()
});
static NUMBERED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?P<num>(?:\d{1,3}\.)*\d{1,3}\.?|[A-Z]\.|[IVXLC]{1,6}\.)\s+(?P<rest>\S.*)$")
        .unwrap()
});
static CONTENTS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^(?:table\s+of\s+)?contents$|^index$").unwrap());

/// A title's numbering ("2.1") and the rest ("Scope"); no numbering gives `None`.
fn strip_number(title: &str) -> (Option<&str>, &str) {
    match NUMBERED.captures(title) {
        Some(c) => (
            c.name("num").map(|m| m.as_str()),
            c.name("rest").map_or(title, |m| m.as_str()),
        ),
        None => (None, title),
    }
}

fn clean_toc_title(raw: &str) -> String {
    let t = crate::knowledge::collapse_ws(raw);
    let t = t.trim_matches(|c: char| c.is_whitespace() || ".…·_-–:".contains(c));
    if t.chars().count() <= MAX_TOC_TITLE_CHARS {
        return t.to_owned();
    }
    let cut: String = t.chars().take(MAX_TOC_TITLE_CHARS - 1).collect();
    format!("{}…", cut.trim_end())
}

/// A table-of-contents line: its title and printed page number.
fn toc_entry(line: &Line) -> Option<(String, u32, f32)> {
    let (title, page) = if let Some(c) = LEADERS.captures(&line.text) {
        (c["title"].to_owned(), c["page"].parse::<u32>().ok()?)
    } else if line.cells.len() >= 2 {
        let last = line.cells.last()?;
        if !(1..=4).contains(&last.len()) || !last.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        let title = line.cells[..line.cells.len() - 1].join(" ");
        (title, last.parse::<u32>().ok()?)
    } else {
        return None;
    };
    let title = clean_toc_title(&title);
    if !(1..=1000).contains(&page) || !title.chars().any(char::is_alphabetic) {
        return None;
    }
    Some((title, page, line.x))
}

/// The headings of a printed table of contents in the first pages, placed on the pages they
/// name (the offset between printed and physical page numbers is the one most entries agree
/// on), and the first page after the contents.
fn toc_headings(pages: &[Vec<Line>]) -> Option<(Vec<Heading>, usize)> {
    let mut entries: Vec<(String, u32, f32)> = Vec::new();
    let mut last_toc_page = None;
    for (p, lines) in pages.iter().enumerate().take(TOC_PAGES) {
        let found: Vec<_> = lines.iter().filter_map(toc_entry).collect();
        let titled = lines.iter().any(|l| CONTENTS.is_match(l.text.trim()));
        if found.len() >= 3 && (titled || found.len() * 2 >= lines.len()) {
            entries.extend(found);
            last_toc_page = Some(p);
        } else if last_toc_page.is_some() {
            break;
        }
    }
    let last_toc_page = last_toc_page?;
    entries.truncate(MAX_TOC_ENTRIES);
    // Printed page numbers only go forward.
    let mut high = 0;
    entries.retain(|(_, page, _)| {
        let keep = *page >= high;
        high = high.max(*page);
        keep
    });
    // Levels: from the numbering ("2.1" is level 2), else from the indentation.
    let mut indents: Vec<i32> = entries
        .iter()
        .map(|(_, _, x)| (x / 5.0).round() as i32)
        .collect();
    indents.sort_unstable();
    indents.dedup();
    let mut headings: Vec<(String, u8, u32)> = entries
        .into_iter()
        .map(|(title, page, x)| {
            let level = match strip_number(&title).0 {
                Some(num) if num.chars().next().is_some_and(|c| c.is_ascii_digit()) => {
                    num.trim_end_matches('.').split('.').count()
                }
                _ => {
                    let at = (x / 5.0).round() as i32;
                    indents.iter().position(|i| *i == at).unwrap_or(0) + 1
                }
            };
            (title, u8::try_from(level.min(6)).unwrap_or(6), page)
        })
        .collect();
    if headings.len() > TOC_KEEP {
        headings.retain(|(_, level, _)| *level <= 2);
        headings.truncate(TOC_KEEP);
    }
    if headings.len() < 2 {
        return None;
    }
    let body_from = last_toc_page + 1;
    // The offset from printed to physical pages: where the first entries' titles are found.
    let normed: Vec<Vec<String>> = pages
        .iter()
        .map(|lines| lines.iter().map(|l| norm(&l.text)).collect())
        .collect();
    let mut offsets: HashMap<i64, usize> = HashMap::new();
    for (title, _, printed) in headings.iter().take(10) {
        let (want, bare) = (norm(title), norm(strip_number(title).1));
        for (p, lines) in normed.iter().enumerate().skip(body_from) {
            if lines
                .iter()
                .any(|l| *l == want || (!bare.is_empty() && *l == bare))
            {
                *offsets
                    .entry(p as i64 - (i64::from(*printed) - 1))
                    .or_default() += 1;
                break;
            }
        }
    }
    let offset = offsets
        .into_iter()
        .max_by_key(|(o, count)| (*count, -o.abs()))
        .map_or(0, |(o, _)| o);
    let out: Vec<Heading> = headings
        .into_iter()
        .filter_map(|(title, level, printed)| {
            let page = i64::from(printed) - 1 + offset;
            let page = usize::try_from(page).ok()?.max(body_from);
            if page >= pages.len() {
                return None;
            }
            let lines = locate(&pages[page], &title);
            Some(Heading {
                title,
                level,
                page,
                lines,
            })
        })
        .collect();
    (out.len() >= 2).then_some((out, body_from))
}

static CAPTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:figure|chart|graph|exhibit|table)\s*[\dA-Z][\w.\-]*\s*[:.\-–—]").unwrap()
});

#[allow(clippy::cast_possible_truncation)]
fn half_points(size: f32) -> i32 {
    (size * 2.0).round() as i32
}

/// Headings from the fonts: lines set at least 15 % larger than the body text (the size most
/// characters use), the largest size being level 1, and short lines wholly in bold where the
/// body is not, one level below the sizes. Consecutive heading lines of one size form one
/// heading. Over [`MAX_HEURISTIC_HEADERS`], the deepest levels go first, then the rest is cut.
fn font_headings(pages: &[Vec<Line>]) -> Vec<Heading> {
    let mut by_size: HashMap<i32, (usize, usize)> = HashMap::new();
    for l in pages.iter().flatten() {
        let chars = l.text.chars().count();
        let e = by_size.entry(half_points(l.size)).or_default();
        e.0 += chars;
        if l.bold {
            e.1 += chars;
        }
    }
    let Some((&body, &(body_chars, body_bold))) = by_size
        .iter()
        .max_by_key(|(size, (count, _))| (*count, -**size))
    else {
        return Vec::new();
    };
    let body_is_bold = body_bold * 2 > body_chars;
    let is_heading_text = |l: &Line| {
        let n = l.text.chars().count();
        (2..=120).contains(&n)
            && l.text.chars().any(char::is_alphabetic)
            && !l.text.ends_with([',', ';'])
            && !CAPTION.is_match(&l.text)
            && l.cells.len() <= 2
    };
    let larger = |l: &Line| f64::from(half_points(l.size)) >= f64::from(body) * 1.15;
    let bold_heading = |l: &Line| {
        l.bold
            && !body_is_bold
            && half_points(l.size) >= body - 1
            && l.text.chars().count() <= 80
            && !l.text.ends_with('.')
            && l.cells.len() == 1
    };
    let mut sizes: Vec<i32> = pages
        .iter()
        .flatten()
        .filter(|l| is_heading_text(l) && larger(l))
        .map(|l| half_points(l.size))
        .collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    sizes.dedup();
    let bold_level = sizes.len() + 1;
    let mut headings: Vec<Heading> = Vec::new();
    for (p, lines) in pages.iter().enumerate() {
        let mut last: Option<(usize, i32, f32)> = None;
        for (i, l) in lines.iter().enumerate() {
            if !is_heading_text(l) {
                last = None;
                continue;
            }
            let level = if larger(l) {
                sizes
                    .iter()
                    .position(|s| *s == half_points(l.size))
                    .map(|i| i + 1)
            } else if bold_heading(l) {
                Some(bold_level)
            } else {
                None
            };
            let Some(level) = level else {
                last = None;
                continue;
            };
            let level = u8::try_from(level.min(6)).unwrap_or(6);
            let hp = half_points(l.size);
            // A title wrapped over two lines continues the heading above it.
            if let Some((at, last_hp, last_y)) = last
                && last_hp == hp
                && at + 1 == i
                && last_y - l.y <= l.size * 1.6
                && let Some(h) = headings.last_mut()
                && h.page == p
            {
                h.title.push(' ');
                h.title.push_str(&l.text);
                h.lines = h.lines.map(|(a, _)| (a, i));
                last = Some((i, hp, l.y));
                continue;
            }
            headings.push(Heading {
                title: l.text.clone(),
                level,
                page: p,
                lines: Some((i, i)),
            });
            last = Some((i, hp, l.y));
        }
    }
    while headings.len() > MAX_HEURISTIC_HEADERS {
        let deepest = headings.iter().map(|h| h.level).max().unwrap_or(1);
        if deepest <= 1 {
            break;
        }
        headings.retain(|h| h.level < deepest);
    }
    headings.truncate(MAX_HEURISTIC_HEADERS);
    headings
}

/// Each heading's lines: from after it to the next heading (or the end of the document), never
/// before `body_from`.
pub(crate) fn ranges(headings: &[Heading], pages: &[Vec<Line>], body_from: usize) -> Vec<Range> {
    let pos = |h: &Heading| (h.page, h.lines.map_or(0, |(a, _)| a));
    let last_page = pages.len().saturating_sub(1);
    headings
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let start_line = h.lines.map_or(0, |(_, b)| b + 1);
            let start = (
                h.page.max(body_from),
                if h.page < body_from { 0 } else { start_line },
            );
            let (end, end_page) = match headings.get(i + 1) {
                Some(next) => {
                    let end = pos(next).max(start);
                    let end_page = if end.1 == 0 && end.0 > start.0 {
                        end.0 - 1
                    } else {
                        end.0
                    };
                    (end, end_page)
                }
                None => ((last_page, pages.last().map_or(0, Vec::len)), last_page),
            };
            Range {
                start,
                end,
                end_page: end_page.max(h.page),
            }
        })
        .collect()
}

/// The lines of `range`, each with its page.
pub(crate) fn lines_in<'a>(pages: &'a [Vec<Line>], range: &Range) -> Vec<(usize, &'a Line)> {
    let mut out = Vec::new();
    let last = range.end.0.min(pages.len().saturating_sub(1));
    for (p, lines) in pages.iter().enumerate().take(last + 1).skip(range.start.0) {
        let from = if p == range.start.0 { range.start.1 } else { 0 };
        let to = if p == range.end.0 {
            range.end.1.min(lines.len())
        } else {
            lines.len()
        };
        for l in lines.iter().take(to).skip(from) {
            out.push((p, l));
        }
    }
    out
}

/// Every line of the document, each with its page.
pub(crate) fn all_lines(pages: &[Vec<Line>]) -> Vec<(usize, &Line)> {
    pages
        .iter()
        .enumerate()
        .flat_map(|(p, lines)| lines.iter().map(move |l| (p, l)))
        .collect()
}
