//! The report as typst markup. Every text of the report (titles, runs of text, captions, table
//! cells, link targets) enters the markup as a typst string literal through [`lit`], which
//! escapes the only two characters that could end it, so no text is ever read as markup or
//! code; colours, sizes and font families are written by this module from parsed values, never
//! copied from the document. Images and charts are files of the compilation named by this
//! module (`asset-{n}.{ext}`, `chart-{n}.svg`).

use std::fmt::Write as _;

use super::assets::{ImageKind, Resolved};
use super::chart;
use super::fonts;
use super::model::{
    Align, Block, Cell, Chart, Inline, Layout, Marks, Orientation, Report, Rgb, Section, Table,
};

/// Page geometry: 794 by 1123 px at 96 px per inch, in points.
pub const PAGE_SHORT_PT: f64 = 794.0 * 0.75;
/// The long side.
pub const PAGE_LONG_PT: f64 = 1123.0 * 0.75;
/// Margins (20 mm) in points.
pub const MARGIN_PT: f64 = 20.0 / 25.4 * 72.0;
/// Most columns of a table (cells beyond are left out).
pub const MAX_TABLE_COLUMNS: u32 = 50;
/// Base font size in points at scale 1 (the editor's 16 px).
const BASE_PT: f64 = 12.0;

/// A typst string literal holding `s` as text: backslashes and quotes escaped, line breaks and
/// tabs written as escapes, other control characters left out.
pub fn lit(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A typst length in points.
fn pt(x: f64) -> String {
    let x = if x.is_finite() { x } else { 0.0 };
    format!("{x:.2}pt")
}

fn color(c: Rgb) -> String {
    format!("rgb(\"{}\")", c.hex())
}

fn family(name: &str) -> String {
    format!("(\"{}\",)", fonts::family_for(name))
}

/// A readable text colour on `bg`: white on dark colours, near-black on light ones.
fn on(bg: Rgb) -> &'static str {
    let l = 0.2126 * f64::from(bg.0) + 0.7152 * f64::from(bg.1) + 0.0722 * f64::from(bg.2);
    if l < 150.0 {
        "white"
    } else {
        "rgb(\"#0f172a\")"
    }
}

/// The typst source of a report and the files it names.
pub struct Source {
    /// The markup.
    pub markup: String,
    /// Files of the compilation: (name, bytes).
    pub files: Vec<(String, Vec<u8>)>,
}

struct Writer<'a> {
    out: String,
    files: Vec<(String, Vec<u8>)>,
    resolved: &'a Resolved,
    /// Charts met so far (their order in the document is their key in `resolved`).
    charts: usize,
    /// The text width in points.
    text_width: f64,
    scale: f64,
}

/// The typst source of `report`, with its images and charts from `resolved`.
pub fn source(report: &Report, resolved: &Resolved) -> Source {
    let b = &report.branding;
    let (w, h) = match b.orientation {
        Orientation::Portrait => (PAGE_SHORT_PT, PAGE_LONG_PT),
        Orientation::Landscape => (PAGE_LONG_PT, PAGE_SHORT_PT),
    };
    let s = b.font_scale;
    let mut wr = Writer {
        out: String::with_capacity(16 * 1024),
        files: Vec::new(),
        resolved,
        charts: 0,
        text_width: w - 2.0 * MARGIN_PT,
        scale: s,
    };
    let title = if report.title.trim().is_empty() {
        "Report"
    } else {
        report.title.as_str()
    };
    let o = &mut wr.out;
    let _ = writeln!(o, "#set document(title: {})", lit(title));
    let _ = writeln!(
        o,
        "#set page(width: {}, height: {}, margin: {}, fill: {},",
        pt(w),
        pt(h),
        pt(MARGIN_PT),
        color(b.background)
    );
    let _ = writeln!(
        o,
        "  header: context {{ if here().page() > 1 {{ set text(size: 8pt, fill: luma(110)); text({}); h(1fr); text({}); v(-4pt); line(length: 100%, stroke: 0.4pt + luma(200)) }} }},",
        lit(title),
        lit(&b.subtitle)
    );
    let _ = writeln!(
        o,
        "  footer: context align(center, text(size: 8pt, fill: luma(110))[Page #counter(page).display() of #counter(page).final().first()]))"
    );
    let _ = writeln!(
        o,
        "#set text(font: {}, size: {}, fill: rgb(\"#1e293b\"), lang: \"en\")",
        family(&b.font_family),
        pt(BASE_PT * s)
    );
    let _ = writeln!(o, "#set par(leading: 0.65em, spacing: 0.9em)");
    let _ = writeln!(o, "#show raw: set text(font: (\"{}\",))", fonts::MONO);
    let _ = writeln!(
        o,
        "#show heading: set text(font: {}, fill: rgb(\"#0f172a\"))",
        family(&b.heading_font_family)
    );
    // Section titles are level 1; the editor's headings 1 to 6 are levels 2 to 7.
    for (level, size, weight) in [
        (1, 13.5, "semibold"),
        (2, 19.2, "bold"),
        (3, 15.6, "bold"),
        (4, 13.2, "semibold"),
        (5, 12.0, "bold"),
        (6, 12.0, "bold"),
        (7, 12.0, "bold"),
    ] {
        let _ = writeln!(
            o,
            "#show heading.where(level: {level}): set text(size: {}, weight: \"{weight}\")",
            pt(size * s)
        );
    }
    let _ = writeln!(o, "#show heading: set block(above: 1.1em, below: 0.6em)");
    wr.header_band(report);
    for section in &report.sections {
        wr.section(section, b.secondary);
    }
    Source {
        markup: wr.out,
        files: wr.files,
    }
}

impl Writer<'_> {
    fn header_band(&mut self, report: &Report) {
        let b = &report.branding;
        let fg = on(b.primary);
        let s = self.scale;
        let title = if report.title.trim().is_empty() {
            "Report"
        } else {
            report.title.as_str()
        };
        let logo = b
            .logo
            .as_ref()
            .and_then(|id| self.image_file(id))
            .map(|file| format!("image({}, height: 34pt)", lit(&file)))
            .unwrap_or_else(|| "[]".into());
        let _ = writeln!(
            self.out,
            "#block(width: 100%, fill: {}, inset: (x: 16pt, y: 13pt), radius: 3pt, below: 16pt, grid(columns: (1fr, auto), column-gutter: 12pt, align: (left + horizon, right + horizon), [#text(font: {}, size: {}, weight: \"bold\", fill: {fg}, {})#if {} != \"\" [ \\ #text(size: {}, fill: {fg}, {})]], {logo}))",
            color(b.primary),
            family(&b.heading_font_family),
            pt(18.0 * s),
            lit(title),
            lit(&b.subtitle),
            pt(10.5 * s),
            lit(&b.subtitle),
        );
    }

    fn section(&mut self, section: &Section, accent: Rgb) {
        let title = if section.title.trim().is_empty() {
            "Untitled section"
        } else {
            section.title.as_str()
        };
        let open = match section.background {
            Some(bg) => {
                let _ = write!(
                    self.out,
                    "#block(width: 100%, fill: {}, inset: 9pt, radius: 4pt, breakable: true)[",
                    color(bg)
                );
                true
            }
            None => false,
        };
        let _ = writeln!(self.out, "#heading(level: 1, {})\n", lit(title));
        match section.layout {
            Layout::Single => self.blocks(&section.blocks, accent, 0),
            Layout::TwoColumn => {
                self.out.push_str("#columns(2, gutter: 18pt)[\n");
                self.blocks(&section.blocks, accent, 0);
                self.out.push_str("]\n");
            }
            Layout::Hero => {
                self.out
                    .push_str("#[#set text(size: 1.25em)\n#set par(leading: 0.8em)\n");
                self.blocks(&section.blocks, accent, 0);
                self.out.push_str("]\n");
            }
        }
        if open {
            self.out.push_str("]\n");
        }
        self.out.push('\n');
    }

    fn blocks(&mut self, blocks: &[Block], accent: Rgb, heading_shift: u8) {
        for b in blocks {
            self.block(b, accent, heading_shift);
            self.out.push_str("\n\n");
        }
    }

    /// Blocks as a content block `[...]`.
    fn content(&mut self, blocks: &[Block], accent: Rgb) {
        self.out.push('[');
        self.blocks(blocks, accent, 0);
        self.out.push(']');
    }

    fn block(&mut self, block: &Block, accent: Rgb, _shift: u8) {
        match block {
            Block::Paragraph(inlines) => {
                if inlines.is_empty() {
                    self.out.push_str("#v(0.6em)");
                } else {
                    self.inlines(inlines);
                }
            }
            Block::Heading { level, content } => {
                let _ = write!(self.out, "#heading(level: {})[", level.clamp(&1, &6) + 1);
                self.inlines(content);
                self.out.push(']');
            }
            Block::BulletList(items) => {
                self.out.push_str("#list(");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.content(item, accent);
                }
                self.out.push(')');
            }
            Block::OrderedList { start, items } => {
                let _ = write!(self.out, "#enum(start: {}", start.clamp(&0, &1_000_000));
                for item in items {
                    self.out.push_str(", ");
                    self.content(item, accent);
                }
                self.out.push(')');
            }
            Block::Blockquote(inner) => {
                let _ = write!(
                    self.out,
                    "#block(inset: (left: 10pt, y: 3pt), stroke: (left: 2.5pt + {}))",
                    color(accent)
                );
                self.content(inner, accent);
            }
            Block::CodeBlock(code) => {
                let _ = write!(
                    self.out,
                    "#block(width: 100%, fill: luma(244), inset: 8pt, radius: 3pt, raw(block: true, {}))",
                    lit(code)
                );
            }
            Block::Rule => self
                .out
                .push_str("#line(length: 100%, stroke: 0.6pt + luma(190))"),
            Block::Table(t) => self.table(t, accent),
            Block::Chart(c) => self.chart(c),
            Block::Image(img) => self.image(img),
        }
    }

    fn inlines(&mut self, inlines: &[Inline]) {
        for i in inlines {
            match i {
                Inline::HardBreak => self.out.push_str("#linebreak()"),
                Inline::Text(text, marks) => self.run(text, marks),
            }
        }
    }

    fn run(&mut self, text: &str, m: &Marks) {
        let mut args = Vec::new();
        if m.bold {
            args.push("weight: \"bold\"".to_owned());
        }
        if m.italic {
            args.push("style: \"italic\"".to_owned());
        }
        if let Some(f) = &m.font_family {
            args.push(format!("font: {}", family(f)));
        }
        if let Some(size) = m.size_pt {
            args.push(format!("size: {}", pt(size.clamp(8.0, 72.0))));
        }
        if let Some(c) = m.color {
            args.push(format!("fill: {}", color(c)));
        }
        let body = if m.code {
            format!("raw({})", lit(text))
        } else {
            lit(text)
        };
        let mut expr = if args.is_empty() && !m.code {
            body
        } else {
            args.push(body);
            format!("text({})", args.join(", "))
        };
        if m.underline {
            expr = format!("underline({expr})");
        }
        if m.strike {
            expr = format!("strike({expr})");
        }
        if let Some(href) = &m.link {
            expr = format!("link({}, {expr})", lit(href));
        }
        self.out.push('#');
        self.out.push_str(&expr);
    }

    fn table(&mut self, t: &Table, accent: Rgb) {
        let placed = place(&t.rows);
        if placed.cells.is_empty() {
            return;
        }
        let widths: Vec<String> = (0..placed.columns as usize)
            .map(|c| {
                let w = placed.widths.get(c).copied().flatten().unwrap_or(100.0);
                format!("{:.2}fr", w.max(10.0))
            })
            .collect();
        let header = t.rows.len() > 1
            && t.rows[0].iter().all(|c| c.header && c.rowspan == 1)
            && !t.rows[0].is_empty();
        self.out.push_str("#[");
        if let Some(size) = t.font_size {
            let _ = writeln!(self.out, "#set text(size: {})", pt(size));
        }
        let _ = write!(
            self.out,
            "#block(width: {}%, table(columns: ({},), stroke: 0.5pt + luma(185), inset: 5pt,",
            t.width_pct.unwrap_or(100),
            widths.join(", ")
        );
        let mut in_header = false;
        for p in &placed.cells {
            let cell = &t.rows[p.row][p.index];
            if header && p.row == 0 && !in_header {
                self.out.push_str(" table.header(");
                in_header = true;
            } else if in_header && p.row != 0 {
                self.out.push_str("),");
                in_header = false;
            }
            let fill = if cell.header {
                format!(", fill: {}", color(tint(accent)))
            } else {
                String::new()
            };
            let _ = write!(
                self.out,
                " table.cell(x: {}, y: {}, colspan: {}, rowspan: {}{fill})[{}",
                p.x,
                p.y,
                p.colspan,
                p.rowspan,
                if cell.header {
                    "#set text(weight: \"bold\")\n"
                } else {
                    ""
                }
            );
            self.blocks(&cell.blocks, accent, 0);
            self.out.push_str("],");
        }
        if in_header {
            self.out.push_str("),");
        }
        self.out.push_str("))]");
    }

    fn chart(&mut self, c: &Chart) {
        let n = self.charts;
        self.charts += 1;
        let rows = self.resolved.chart_rows.get(&n).unwrap_or(&c.rows);
        let svg = chart::svg(c, rows);
        let name = format!("chart-{n}.svg");
        self.files.push((name.clone(), svg.into_bytes()));
        let width = (c.width * 0.75).min(self.text_width);
        self.out.push_str("#align(center, block(breakable: false)[");
        if !c.title.trim().is_empty() {
            let _ = write!(
                self.out,
                "#text(weight: \"semibold\", size: {}, {})\n\n",
                pt(13.0 * self.scale),
                lit(&c.title)
            );
        }
        let _ = write!(
            self.out,
            "#image({}, width: {}, alt: {})])",
            lit(&name),
            pt(width),
            lit(if c.title.is_empty() {
                "Chart"
            } else {
                &c.title
            })
        );
    }

    /// The compilation's file of an image of the report, added once.
    fn image_file(&mut self, media_id: &str) -> Option<String> {
        let asset = self.resolved.images.get(media_id)?;
        let ext = match asset.kind {
            ImageKind::Png => "png",
            ImageKind::Jpeg => "jpg",
            ImageKind::Gif => "gif",
            ImageKind::Webp => "webp",
        };
        let name = format!("asset-{}.{ext}", asset.ordinal);
        if !self.files.iter().any(|(n, _)| *n == name) {
            self.files.push((name.clone(), asset.bytes.clone()));
        }
        Some(name)
    }

    fn image(&mut self, img: &super::model::Image) {
        let align = match img.align {
            Align::Left => "left",
            Align::Center => "center",
            Align::Right => "right",
        };
        let _ = write!(
            self.out,
            "#align({align}, block(width: {}%, breakable: false)[",
            img.width_pct
        );
        match self.image_file(&img.media_id) {
            Some(file) => {
                let _ = write!(
                    self.out,
                    "#image({}, width: 100%, alt: {})",
                    lit(&file),
                    lit(&img.alt)
                );
            }
            None => {
                let _ = write!(
                    self.out,
                    "#block(width: 100%, stroke: 0.5pt + luma(180), inset: 10pt, text(fill: luma(110), {}))",
                    lit(&format!(
                        "Image unavailable{}",
                        if img.alt.is_empty() {
                            String::new()
                        } else {
                            format!(": {}", img.alt)
                        }
                    ))
                );
            }
        }
        if !img.caption.trim().is_empty() {
            let _ = write!(
                self.out,
                "\n\n#align({align}, text(size: 0.85em, style: \"italic\", fill: luma(90), {}))",
                lit(&img.caption)
            );
        }
        self.out.push_str("])");
    }
}

/// A light tint of `c` for header cells.
fn tint(c: Rgb) -> Rgb {
    let t = |v: u8| (f64::from(v) + (255.0 - f64::from(v)) * 0.85).round() as u8;
    Rgb(t(c.0), t(c.1), t(c.2))
}

/// A cell placed on the table's grid.
#[derive(Debug, PartialEq)]
struct Placed {
    row: usize,
    index: usize,
    x: u32,
    y: u32,
    colspan: u32,
    rowspan: u32,
}

struct Placement {
    cells: Vec<Placed>,
    columns: u32,
    /// Each column's width in px when a cell set it.
    widths: Vec<Option<f64>>,
}

/// Places the cells as HTML tables do: each row's cells left to right in the first free
/// positions, skipping positions taken by cells spanning from rows above; spans cut to the
/// table's bounds, so no two cells overlap.
fn place(rows: &[Vec<Cell>]) -> Placement {
    let mut taken: std::collections::HashSet<(u32, u32)> = std::collections::HashSet::new();
    let mut cells = Vec::new();
    let mut columns = 0u32;
    let mut widths: Vec<Option<f64>> = Vec::new();
    let n_rows = rows.len() as u32;
    for (r, row) in rows.iter().enumerate() {
        let y = r as u32;
        let mut x = 0u32;
        for (i, cell) in row.iter().enumerate() {
            while taken.contains(&(x, y)) {
                x += 1;
            }
            if x >= MAX_TABLE_COLUMNS {
                break;
            }
            // The span stops at the first taken position, the column limit and the last row.
            let mut colspan = 1;
            while colspan < cell.colspan.max(1)
                && x + colspan < MAX_TABLE_COLUMNS
                && !taken.contains(&(x + colspan, y))
            {
                colspan += 1;
            }
            let mut rowspan = 1;
            while rowspan < cell.rowspan.max(1)
                && y + rowspan < n_rows
                && (x..x + colspan).all(|cx| !taken.contains(&(cx, y + rowspan)))
            {
                rowspan += 1;
            }
            for dx in 0..colspan {
                for dy in 0..rowspan {
                    taken.insert((x + dx, y + dy));
                }
            }
            if let Some(ws) = &cell.colwidth {
                for (k, w) in ws.iter().take(colspan as usize).enumerate() {
                    let c = (x as usize) + k;
                    if widths.len() <= c {
                        widths.resize(c + 1, None);
                    }
                    widths[c].get_or_insert(*w);
                }
            }
            cells.push(Placed {
                row: r,
                index: i,
                x,
                y,
                colspan,
                rowspan,
            });
            x += colspan;
            columns = columns.max(x);
        }
    }
    Placement {
        cells,
        columns,
        widths,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_literal_cannot_be_escaped_from() {
        assert_eq!(lit("plain"), "\"plain\"");
        assert_eq!(lit("a\"b"), "\"a\\\"b\"");
        assert_eq!(lit("back\\"), "\"back\\\\\"");
        assert_eq!(lit("\\\""), "\"\\\\\\\"\"");
        assert_eq!(
            lit("line\nbreak\r\ttab\u{0}\u{7}"),
            "\"line\\nbreak\\ttab\""
        );
        assert_eq!(
            lit("#set page(fill: red) *bold* $x$ [y] // c"),
            "\"#set page(fill: red) *bold* $x$ [y] // c\""
        );
        // Whatever the text, the literal is one token: the only unescaped quotes are its ends.
        for hostile in [
            "\")#panic(\"",
            "\\\")#eval(\"1\")",
            "\"\"\"",
            "]\n#{ loop {} }",
        ] {
            let l = lit(hostile);
            let inner = &l[1..l.len() - 1];
            let mut chars = inner.chars();
            while let Some(c) = chars.next() {
                if c == '\\' {
                    assert!(chars.next().is_some());
                } else {
                    assert_ne!(c, '"', "{l}");
                }
            }
        }
    }

    fn cell(colspan: u32, rowspan: u32) -> Cell {
        Cell {
            colspan,
            rowspan,
            ..Cell::text("x", false)
        }
    }

    #[test]
    fn cells_are_placed_around_spans_and_never_overlap() {
        // | a (rowspan 2) | b | c |
        // |               | d | e |
        // | f (colspan 3)         |
        let rows = vec![
            vec![cell(1, 2), cell(1, 1), cell(1, 1)],
            vec![cell(1, 1), cell(1, 1)],
            vec![cell(3, 1)],
        ];
        let p = place(&rows);
        assert_eq!(p.columns, 3);
        let at: Vec<(u32, u32, u32, u32)> = p
            .cells
            .iter()
            .map(|c| (c.x, c.y, c.colspan, c.rowspan))
            .collect();
        assert_eq!(
            at,
            vec![
                (0, 0, 1, 2),
                (1, 0, 1, 1),
                (2, 0, 1, 1),
                (1, 1, 1, 1),
                (2, 1, 1, 1),
                (0, 2, 3, 1)
            ]
        );
        // Spans past the table's end are cut.
        let p = place(&[vec![cell(2, 9)], vec![cell(1, 1), cell(1, 1), cell(1, 1)]]);
        assert_eq!((p.cells[0].colspan, p.cells[0].rowspan), (2, 2));
        assert_eq!((p.cells[1].x, p.cells[1].y), (2, 1));
        // A huge colspan stops at the column limit.
        let p = place(&[vec![cell(100, 1), cell(1, 1)]]);
        assert_eq!(p.columns, MAX_TABLE_COLUMNS);
        assert_eq!(p.cells.len(), 1);
    }
}
