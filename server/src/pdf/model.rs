//! The report as the PDF draws it, read from the report's shared document (`collab::report`:
//! sections, branding, and each section's Tiptap nodes, charts, tables and images included, as
//! the editor stores them) or built by the server (the dashboards, a template's preview).
//!
//! Reading never fails a document: an unknown node is read for its text, a missing or
//! malformed attribute is its default, a value out of range is clamped, nesting deeper than
//! [`MAX_DEPTH`] is read as plain text.

use serde_json::{Map, Value};
use yrs::Map as _;
use yrs::types::text::YChange;
use yrs::{Any, Doc, Out, ReadTxn, Text, Transact, Xml, XmlFragment, XmlOut};

/// Deepest nesting of blocks read as structure (lists in lists, quotes); deeper content is
/// read as paragraphs of its text.
pub const MAX_DEPTH: usize = 12;
/// Most data rows a chart draws (the contract's bound).
pub const MAX_CHART_ROWS: usize = 1000;
/// Most series a chart draws (one per colour of a scheme).
pub const MAX_SERIES: usize = 10;

/// An sRGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// Reads `#rrggbb` or `#rgb` (any case, with or without `#`); anything else is `None`.
    pub fn parse(s: &str) -> Option<Rgb> {
        let h = s.trim().strip_prefix('#').unwrap_or(s.trim());
        let digits: Vec<u8> = h
            .chars()
            .map(|c| c.to_digit(16).map(|d| d as u8))
            .collect::<Option<_>>()?;
        match digits.as_slice() {
            [r, g, b] => Some(Rgb(r * 17, g * 17, b * 17)),
            [r1, r2, g1, g2, b1, b2] => Some(Rgb(r1 * 16 + r2, g1 * 16 + g2, b1 * 16 + b2)),
            _ => None,
        }
    }

    /// `#rrggbb`.
    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

/// Page orientation (the editor's Settings: Portrait PDF, Landscape PDF).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Orientation {
    /// 794 by 1123 px.
    #[default]
    Portrait,
    /// 1123 by 794 px.
    Landscape,
}

/// The report's branding (root map `branding` of the document); defaults as in the editor.
#[derive(Debug, Clone, PartialEq)]
pub struct Branding {
    /// The header band's colour.
    pub primary: Rgb,
    /// Accents (rules, quotes, table headers).
    pub secondary: Rgb,
    /// The page colour.
    pub background: Rgb,
    /// Body font family as chosen.
    pub font_family: String,
    /// Heading font family as chosen.
    pub heading_font_family: String,
    /// Font scale, 0.8 to 1.5.
    pub font_scale: f64,
    /// Page orientation.
    pub orientation: Orientation,
    /// Subtitle under the report name.
    pub subtitle: String,
    /// The logo: the media id of an image of the report.
    pub logo: Option<String>,
}

impl Default for Branding {
    fn default() -> Self {
        Branding {
            primary: Rgb(0x1e, 0x3a, 0x8a),
            secondary: Rgb(0x0e, 0xa5, 0xe9),
            background: Rgb(0xff, 0xff, 0xff),
            font_family: "SF Pro Display".into(),
            heading_font_family: "SF Pro Display".into(),
            font_scale: 1.0,
            orientation: Orientation::Portrait,
            subtitle: String::new(),
            logo: None,
        }
    }
}

/// A section's layout (the editor's style popover).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    /// One column.
    #[default]
    Single,
    /// Two columns of text.
    TwoColumn,
    /// Larger type.
    Hero,
}

/// A report to draw.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Report {
    /// The report's name (header band, document title).
    pub title: String,
    /// Its branding.
    pub branding: Branding,
    /// Its sections in order.
    pub sections: Vec<Section>,
}

/// A section: its title (a level-1 heading and outline entry), look and content.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Section {
    /// Title.
    pub title: String,
    /// Layout.
    pub layout: Layout,
    /// Background colour, if any.
    pub background: Option<Rgb>,
    /// Content.
    pub blocks: Vec<Block>,
}

/// Block content.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// A paragraph.
    Paragraph(Vec<Inline>),
    /// A heading of the section (level 1 to 6 as in the editor).
    Heading {
        /// Level.
        level: u8,
        /// Text.
        content: Vec<Inline>,
    },
    /// A bullet list: each item's blocks.
    BulletList(Vec<Vec<Block>>),
    /// A numbered list.
    OrderedList {
        /// The first number.
        start: i64,
        /// Each item's blocks.
        items: Vec<Vec<Block>>,
    },
    /// A quote.
    Blockquote(Vec<Block>),
    /// Preformatted text.
    CodeBlock(String),
    /// A horizontal rule.
    Rule,
    /// A table.
    Table(Table),
    /// A chart.
    Chart(Box<Chart>),
    /// An image.
    Image(Image),
}

/// Inline content.
#[derive(Debug, Clone, PartialEq)]
pub enum Inline {
    /// A run of text with its marks.
    Text(String, Marks),
    /// A line break within the paragraph.
    HardBreak,
}

/// The marks of a run of text.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Marks {
    /// Bold.
    pub bold: bool,
    /// Italic.
    pub italic: bool,
    /// Underlined.
    pub underline: bool,
    /// Struck through.
    pub strike: bool,
    /// Inline code.
    pub code: bool,
    /// Font family as chosen.
    pub font_family: Option<String>,
    /// Size in points (8 to 72).
    pub size_pt: Option<f64>,
    /// Colour.
    pub color: Option<Rgb>,
    /// Link target (http, https or mailto only).
    pub link: Option<String>,
}

/// A table.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    /// Font size in points (8 to 24).
    pub font_size: Option<f64>,
    /// Width in percent of the text width (25, 50, 75 or 100).
    pub width_pct: Option<u8>,
    /// Rows of cells.
    pub rows: Vec<Vec<Cell>>,
}

/// A table cell.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// A header cell (`tableHeader`).
    pub header: bool,
    /// Columns spanned (at least 1).
    pub colspan: u32,
    /// Rows spanned (at least 1).
    pub rowspan: u32,
    /// Widths in px of the spanned columns, when set in the editor.
    pub colwidth: Option<Vec<f64>>,
    /// Content.
    pub blocks: Vec<Block>,
}

impl Cell {
    /// A one-column, one-row cell holding a paragraph of plain text.
    pub fn text(text: impl Into<String>, header: bool) -> Cell {
        let text = text.into();
        Cell {
            header,
            colspan: 1,
            rowspan: 1,
            colwidth: None,
            blocks: vec![Block::Paragraph(if text.is_empty() {
                Vec::new()
            } else {
                vec![Inline::Text(text, Marks::default())]
            })],
        }
    }
}

/// A chart's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChartKind {
    /// Bars.
    #[default]
    Bar,
    /// Lines.
    Line,
    /// A pie of the first series.
    Pie,
    /// Filled areas.
    Area,
}

/// A chart's colour scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ColorScheme {
    /// The default ten colours.
    #[default]
    Default,
    /// The banking ten colours.
    Banking,
}

impl ColorScheme {
    /// The scheme's colours, in series order.
    pub fn colors(self) -> [Rgb; 10] {
        let hex: [&str; 10] = match self {
            ColorScheme::Default => [
                "#3b82f6", "#ef4444", "#10b981", "#f59e0b", "#8b5cf6", "#06b6d4", "#ec4899",
                "#84cc16", "#f97316", "#6366f1",
            ],
            ColorScheme::Banking => [
                "#1e3a8a", "#1e40af", "#0f766e", "#047857", "#b45309", "#7c2d12", "#334155",
                "#475569", "#0369a1", "#6d28d9",
            ],
        };
        hex.map(|h| Rgb::parse(h).unwrap_or(Rgb(0, 0, 0)))
    }
}

/// Where a chart's rows come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChartSource {
    /// A file uploaded to the report (a sheet of a workbook, or a CSV).
    Media {
        /// The media item.
        media_id: String,
        /// The sheet (empty for a CSV or the first sheet).
        sheet: String,
    },
    /// One of the client's own datasets (always current).
    Client {
        /// The dataset's name.
        dataset: String,
    },
}

/// A chart node (contract `chart`).
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    /// Its id.
    pub id: String,
    /// Type.
    pub kind: ChartKind,
    /// Title (may be empty).
    pub title: String,
    /// The category column.
    pub x_column: String,
    /// The value columns (at most [`MAX_SERIES`]).
    pub y_columns: Vec<String>,
    /// The rows stored in the document (the last snapshot of a client dataset).
    pub rows: Vec<Map<String, Value>>,
    /// Where the rows come from.
    pub source: Option<ChartSource>,
    /// Width in px (300 to 1200).
    pub width: f64,
    /// Height in px (200 to 800).
    pub height: f64,
    /// Font size in px (8 to 24).
    pub font_size: f64,
    /// Font family as chosen.
    pub font_family: String,
    /// Colours.
    pub scheme: ColorScheme,
    /// Legend shown.
    pub show_legend: bool,
    /// Grid shown.
    pub show_grid: bool,
}

impl Default for Chart {
    fn default() -> Self {
        Chart {
            id: String::new(),
            kind: ChartKind::Bar,
            title: String::new(),
            x_column: String::new(),
            y_columns: Vec::new(),
            rows: Vec::new(),
            source: None,
            width: 600.0,
            height: 400.0,
            font_size: 12.0,
            font_family: "Arial".into(),
            scheme: ColorScheme::Default,
            show_legend: true,
            show_grid: true,
        }
    }
}

/// Horizontal alignment of an image.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Align {
    /// Left.
    Left,
    /// Centre.
    #[default]
    Center,
    /// Right.
    Right,
}

/// An image node (contract `image`).
#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    /// The report's media item.
    pub media_id: String,
    /// Alternative text.
    pub alt: String,
    /// Width in percent of the text width (25, 50, 75 or 100).
    pub width_pct: u8,
    /// Alignment.
    pub align: Align,
    /// Caption (may be empty).
    pub caption: String,
}

// ---------------------------------------------------------------------------------------------
// Reading attribute values (strings per the contract; numbers and booleans as y-prosemirror
// writes the standard nodes' attributes are read too).

fn attr_string(v: &Out) -> Option<String> {
    match v {
        Out::Any(Any::String(s)) => Some(s.to_string()),
        Out::Any(Any::Number(n)) => Some(format_number(n.as_f64()?)),
        Out::Any(Any::Bool(b)) => Some(b.to_string()),
        _ => None,
    }
}

fn format_number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
}

fn attr_number(v: &Out) -> Option<f64> {
    let n = match v {
        Out::Any(Any::Number(n)) => n.as_f64()?,
        Out::Any(Any::String(s)) => s.trim().parse::<f64>().ok()?,
        _ => return None,
    };
    n.is_finite().then_some(n)
}

fn attr_bool(v: &Out) -> Option<bool> {
    match v {
        Out::Any(Any::Bool(b)) => Some(*b),
        Out::Any(Any::String(s)) => match s.trim() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// A JSON attribute: JSON text (the contract) or a structured value.
fn attr_json(v: &Out) -> Option<Value> {
    match v {
        Out::Any(Any::String(s)) => serde_json::from_str(s).ok(),
        Out::Any(any) => serde_json::to_value(any).ok(),
        _ => None,
    }
}

/// The node's attributes, read once.
struct Attrs(Vec<(String, Out)>);

impl Attrs {
    fn of(el: &yrs::XmlElementRef, txn: &impl ReadTxn) -> Attrs {
        Attrs(el.attributes(txn).map(|(k, v)| (k.to_owned(), v)).collect())
    }
    fn get(&self, key: &str) -> Option<&Out> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    fn string(&self, key: &str) -> Option<String> {
        self.get(key).and_then(attr_string)
    }
    fn number(&self, key: &str) -> Option<f64> {
        self.get(key).and_then(attr_number)
    }
    fn bool(&self, key: &str) -> Option<bool> {
        self.get(key).and_then(attr_bool)
    }
    fn json(&self, key: &str) -> Option<Value> {
        self.get(key).and_then(attr_json)
    }
}

fn clamp(n: Option<f64>, min: f64, max: f64, default: f64) -> f64 {
    match n {
        Some(n) => n.clamp(min, max),
        None => default,
    }
}

/// `25%`, `50%`, `75%` or `100%` (also `50`), else `None`.
fn percent(s: Option<String>) -> Option<u8> {
    let s = s?;
    let n: u8 = s.trim().trim_end_matches('%').trim().parse().ok()?;
    [25, 50, 75, 100].contains(&n).then_some(n)
}

/// A CSS font size (`12pt`, `16px`, `12`) in points, 8 to 72.
fn font_size_pt(s: &str) -> Option<f64> {
    let s = s.trim();
    let (num, factor) = if let Some(n) = s.strip_suffix("pt") {
        (n, 1.0)
    } else if let Some(n) = s.strip_suffix("px") {
        (n, 0.75)
    } else {
        (s, 1.0)
    };
    let v: f64 = num.trim().parse().ok()?;
    (v.is_finite() && v > 0.0).then(|| (v * factor).clamp(8.0, 72.0))
}

/// A link target kept only for web and mail addresses.
fn safe_link(href: &str) -> Option<String> {
    let h = href.trim();
    let lower = h.to_ascii_lowercase();
    let ok = ["http://", "https://", "mailto:"]
        .iter()
        .any(|p| lower.starts_with(p));
    (ok && h.len() <= 2000 && !h.chars().any(char::is_control)).then(|| h.to_owned())
}

/// A CSS colour (`#rrggbb`, `#rgb`, `rgb(r, g, b)`), else `None`.
fn css_color(s: &str) -> Option<Rgb> {
    let s = s.trim();
    if s.starts_with('#') {
        return Rgb::parse(s);
    }
    let inner = s
        .strip_prefix("rgb(")
        .or_else(|| s.strip_prefix("rgba("))?
        .strip_suffix(')')?;
    let parts: Vec<u8> = inner
        .split(',')
        .take(3)
        .map(|p| {
            p.trim()
                .parse::<f64>()
                .ok()
                .map(|v| v.clamp(0.0, 255.0) as u8)
        })
        .collect::<Option<_>>()?;
    match parts.as_slice() {
        [r, g, b] => Some(Rgb(*r, *g, *b)),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Reading the document.

/// Reads a report from its document (a v1 update of its full state) and its name.
pub fn read_report_v1(update_v1: &[u8], title: &str) -> Result<Report, String> {
    use yrs::updates::decoder::Decode;
    let doc = Doc::new();
    let update = yrs::Update::decode_v1(update_v1).map_err(|e| e.to_string())?;
    doc.transact_mut()
        .apply_update(update)
        .map_err(|e| e.to_string())?;
    Ok(read_report(&doc, title))
}

/// Reads a report from its document and its name.
pub fn read_report(doc: &Doc, title: &str) -> Report {
    let infos = collab::report::sections_of(doc);
    let txn = doc.transact();
    let map = txn.get_map(collab::report::SECTIONS_MAP);
    let sections = infos
        .into_iter()
        .map(|info| {
            let entry = map.as_ref().and_then(|m| match m.get(&txn, &info.id) {
                Some(Out::YMap(e)) => Some(e),
                _ => None,
            });
            let get = |key: &str| -> Option<String> {
                entry
                    .as_ref()
                    .and_then(|e| e.get(&txn, key))
                    .and_then(|v| attr_string(&v))
            };
            let layout = match get("layout").as_deref() {
                Some("two-column") => Layout::TwoColumn,
                Some("hero") => Layout::Hero,
                _ => Layout::Single,
            };
            let background = get("background").as_deref().and_then(Rgb::parse);
            let blocks = txn
                .get_xml_fragment(collab::report::fragment_name(&info.id).as_str())
                .map(|f| read_children(&f, &txn, 0))
                .unwrap_or_default();
            Section {
                title: info.title,
                layout,
                background,
                blocks,
            }
        })
        .collect();
    Report {
        title: title.to_owned(),
        branding: read_branding(&txn),
        sections,
    }
}

fn read_branding(txn: &impl ReadTxn) -> Branding {
    let mut b = Branding::default();
    let Some(map) = txn.get_map(collab::report::BRANDING_MAP) else {
        return b;
    };
    let get = |k: &str| map.get(txn, k);
    let s = |k: &str| get(k).as_ref().and_then(attr_string);
    if let Some(c) = s("primaryColor").as_deref().and_then(Rgb::parse) {
        b.primary = c;
    }
    if let Some(c) = s("secondaryColor").as_deref().and_then(Rgb::parse) {
        b.secondary = c;
    }
    if let Some(c) = s("backgroundColor").as_deref().and_then(Rgb::parse) {
        b.background = c;
    }
    if let Some(f) = s("fontFamily").filter(|f| !f.trim().is_empty() && f.len() <= 60) {
        b.font_family = f;
    }
    if let Some(f) = s("headingFontFamily").filter(|f| !f.trim().is_empty() && f.len() <= 60) {
        b.heading_font_family = f;
    }
    if let Some(x) = get("fontScale")
        .as_ref()
        .and_then(attr_number)
        .filter(|x| (0.8..=1.5).contains(x))
    {
        b.font_scale = x;
    }
    if s("orientation").as_deref() == Some("landscape") {
        b.orientation = Orientation::Landscape;
    }
    if let Some(sub) = s("subtitle").filter(|t| t.chars().count() <= 200) {
        b.subtitle = sub;
    }
    b.logo = s("logoMediaId")
        .or_else(|| s("logo"))
        .or_else(|| s("logoUrl").and_then(|u| media_id_of_src(&u)))
        .map(|id| id.trim().to_owned())
        .filter(|id| is_media_id(id));
    b
}

/// A media id is a UUID-like token (letters, digits, hyphens), never a path.
fn is_media_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 64 && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

/// The media id of `/api/reports/{reportId}/media/{mediaId}`.
fn media_id_of_src(src: &str) -> Option<String> {
    let rest = src.trim().split('?').next()?;
    let mut parts = rest.rsplit('/');
    let id = parts.next()?;
    (parts.next()? == "media" && is_media_id(id)).then(|| id.to_owned())
}

fn read_children<F: XmlFragment>(parent: &F, txn: &impl ReadTxn, depth: usize) -> Vec<Block> {
    let mut out = Vec::new();
    for child in parent.children(txn) {
        read_block(child, txn, depth, &mut out);
    }
    out
}

fn read_block(node: XmlOut, txn: &impl ReadTxn, depth: usize, out: &mut Vec<Block>) {
    let el = match node {
        XmlOut::Element(el) => el,
        XmlOut::Text(t) => {
            let inlines = read_text(&t, txn);
            if !inlines.is_empty() {
                out.push(Block::Paragraph(inlines));
            }
            return;
        }
        XmlOut::Fragment(f) => {
            out.extend(read_children(&f, txn, depth + 1));
            return;
        }
    };
    let tag = el.tag().to_string();
    if depth >= MAX_DEPTH {
        let text = plain_text(&el, txn);
        if !text.is_empty() {
            out.push(Block::Paragraph(vec![Inline::Text(text, Marks::default())]));
        }
        return;
    }
    let attrs = Attrs::of(&el, txn);
    match tag.as_str() {
        "paragraph" => out.push(Block::Paragraph(read_inlines(&el, txn))),
        "heading" => {
            let level = clamp(attrs.number("level"), 1.0, 6.0, 1.0) as u8;
            out.push(Block::Heading {
                level,
                content: read_inlines(&el, txn),
            });
        }
        "bulletList" => out.push(Block::BulletList(read_items(&el, txn, depth))),
        "orderedList" => {
            let start = attrs
                .number("start")
                .map(|n| n.clamp(-1e9, 1e9) as i64)
                .unwrap_or(1);
            out.push(Block::OrderedList {
                start,
                items: read_items(&el, txn, depth),
            });
        }
        "blockquote" => out.push(Block::Blockquote(read_children(&el, txn, depth + 1))),
        "codeBlock" => out.push(Block::CodeBlock(plain_text(&el, txn))),
        "horizontalRule" => out.push(Block::Rule),
        "table" => out.push(Block::Table(read_table(&el, &attrs, txn, depth))),
        "chart" => out.push(Block::Chart(Box::new(read_chart(&attrs)))),
        "image" => {
            if let Some(image) = read_image(&attrs) {
                out.push(Block::Image(image));
            }
        }
        // A hard break or text node at block level (malformed): its text as a paragraph.
        _ => {
            let children = read_children(&el, txn, depth + 1);
            if children.is_empty() {
                let text = plain_text(&el, txn);
                if !text.is_empty() {
                    out.push(Block::Paragraph(vec![Inline::Text(text, Marks::default())]));
                }
            } else {
                out.extend(children);
            }
        }
    }
}

fn read_items(list: &yrs::XmlElementRef, txn: &impl ReadTxn, depth: usize) -> Vec<Vec<Block>> {
    list.children(txn)
        .map(|item| match item {
            XmlOut::Element(li) => read_children(&li, txn, depth + 1),
            other => {
                let mut blocks = Vec::new();
                read_block(other, txn, depth + 1, &mut blocks);
                blocks
            }
        })
        .collect()
}

fn read_table(el: &yrs::XmlElementRef, attrs: &Attrs, txn: &impl ReadTxn, depth: usize) -> Table {
    let mut rows = Vec::new();
    for row in el.children(txn) {
        let XmlOut::Element(row) = row else { continue };
        let mut cells = Vec::new();
        for cell in row.children(txn) {
            let XmlOut::Element(cell) = cell else {
                continue;
            };
            let tag = cell.tag().to_string();
            let a = Attrs::of(&cell, txn);
            let colwidth = a.json("colwidth").and_then(|v| {
                let widths: Vec<f64> = v
                    .as_array()?
                    .iter()
                    .map(|w| w.as_f64().filter(|w| w.is_finite() && *w > 0.0))
                    .collect::<Option<_>>()?;
                (!widths.is_empty()).then_some(widths)
            });
            cells.push(Cell {
                header: tag == "tableHeader",
                colspan: clamp(a.number("colspan"), 1.0, 100.0, 1.0) as u32,
                rowspan: clamp(a.number("rowspan"), 1.0, 1000.0, 1.0) as u32,
                colwidth,
                blocks: read_children(&cell, txn, depth + 1),
            });
        }
        if !cells.is_empty() {
            rows.push(cells);
        }
    }
    Table {
        font_size: attrs.number("fontSize").map(|n| n.clamp(8.0, 24.0)),
        width_pct: percent(attrs.string("width")),
        rows,
    }
}

/// A chart from its attributes (every one optional; the defaults of the contract).
fn read_chart(a: &Attrs) -> Chart {
    let d = Chart::default();
    let kind = match a.string("chartType").as_deref() {
        Some("line") => ChartKind::Line,
        Some("pie") => ChartKind::Pie,
        Some("area") => ChartKind::Area,
        _ => ChartKind::Bar,
    };
    let y_columns = a
        .json("yColumns")
        .and_then(|v| {
            v.as_array().map(|xs| {
                xs.iter()
                    .filter_map(|x| x.as_str().map(str::to_owned))
                    .take(MAX_SERIES)
                    .collect()
            })
        })
        .unwrap_or_default();
    let rows = a
        .json("rows")
        .and_then(|v| match v {
            Value::Array(xs) => Some(
                xs.into_iter()
                    .filter_map(|x| match x {
                        Value::Object(m) => Some(m),
                        _ => None,
                    })
                    .take(MAX_CHART_ROWS)
                    .collect(),
            ),
            _ => None,
        })
        .unwrap_or_default();
    let source = a.json("source").and_then(|v| parse_source(&v));
    Chart {
        id: a.string("chartId").unwrap_or_default(),
        kind,
        title: a.string("title").unwrap_or_default(),
        x_column: a.string("xColumn").unwrap_or_default(),
        y_columns,
        rows,
        source,
        width: clamp(a.number("width"), 300.0, 1200.0, d.width),
        height: clamp(a.number("height"), 200.0, 800.0, d.height),
        font_size: clamp(a.number("fontSize"), 8.0, 24.0, d.font_size),
        font_family: a
            .string("fontFamily")
            .filter(|f| !f.trim().is_empty())
            .unwrap_or(d.font_family),
        scheme: match a.string("colorScheme").as_deref() {
            Some("banking") => ColorScheme::Banking,
            _ => ColorScheme::Default,
        },
        show_legend: a.bool("showLegend").unwrap_or(true),
        show_grid: a.bool("showGrid").unwrap_or(true),
    }
}

/// A chart's `source` (`{"kind":"media",...}` or `{"kind":"client",...}`).
pub fn parse_source(v: &Value) -> Option<ChartSource> {
    let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    match v.get("kind")?.as_str()? {
        "media" => {
            let media_id = s("mediaId").filter(|id| is_media_id(id))?;
            Some(ChartSource::Media {
                media_id,
                sheet: s("sheet").unwrap_or_default(),
            })
        }
        "client" => Some(ChartSource::Client {
            dataset: s("dataset").filter(|d| !d.is_empty())?,
        }),
        _ => None,
    }
}

fn read_image(a: &Attrs) -> Option<Image> {
    let media_id = a
        .string("mediaId")
        .filter(|id| is_media_id(id))
        .or_else(|| a.string("src").and_then(|s| media_id_of_src(&s)))?;
    Some(Image {
        media_id,
        alt: a.string("alt").unwrap_or_default(),
        width_pct: percent(a.string("width")).unwrap_or(100),
        align: match a.string("align").as_deref() {
            Some("left") => Align::Left,
            Some("right") => Align::Right,
            _ => Align::Center,
        },
        caption: a.string("caption").unwrap_or_default(),
    })
}

/// The inline content of a text block: its text nodes (with marks) and hard breaks.
fn read_inlines(el: &yrs::XmlElementRef, txn: &impl ReadTxn) -> Vec<Inline> {
    let mut out = Vec::new();
    for child in el.children(txn) {
        match child {
            XmlOut::Text(t) => out.extend(read_text(&t, txn)),
            XmlOut::Element(e) if e.tag().as_ref() == "hardBreak" => out.push(Inline::HardBreak),
            XmlOut::Element(e) => {
                let t = plain_text(&e, txn);
                if !t.is_empty() {
                    out.push(Inline::Text(t, Marks::default()));
                }
            }
            XmlOut::Fragment(_) => {}
        }
    }
    out
}

fn read_text(t: &yrs::XmlTextRef, txn: &impl ReadTxn) -> Vec<Inline> {
    t.diff(txn, YChange::identity)
        .into_iter()
        .filter_map(|d| {
            let text = match d.insert {
                Out::Any(Any::String(s)) => s.to_string(),
                _ => return None,
            };
            if text.is_empty() {
                return None;
            }
            let marks = d.attributes.map(|a| marks_of(&a)).unwrap_or_default();
            Some(Inline::Text(text, marks))
        })
        .collect()
}

/// The marks of a run, as y-prosemirror stores them: one attribute per mark named after it
/// (`bold`, `textStyle`...; `name--hash` for marks that may overlap), valued with the mark's
/// attributes.
fn marks_of(attrs: &yrs::types::Attrs) -> Marks {
    let mut m = Marks::default();
    for (key, value) in attrs.iter() {
        let name = key.split("--").next().unwrap_or(key);
        if matches!(value, Any::Null | Any::Undefined) {
            continue;
        }
        let field = |k: &str| match value {
            Any::Map(map) => map.get(k).and_then(|v| match v {
                Any::String(s) => Some(s.to_string()),
                Any::Number(n) => Some(format_number(n.as_f64()?)),
                _ => None,
            }),
            _ => None,
        };
        match name {
            "bold" | "strong" => m.bold = true,
            "italic" | "em" => m.italic = true,
            "underline" => m.underline = true,
            "strike" => m.strike = true,
            "code" => m.code = true,
            "link" => m.link = field("href").as_deref().and_then(safe_link),
            "textStyle" => {
                if let Some(f) = field("fontFamily").filter(|f| !f.trim().is_empty()) {
                    m.font_family = Some(f);
                }
                if let Some(s) = field("fontSize").as_deref().and_then(font_size_pt) {
                    m.size_pt = Some(s);
                }
                if let Some(c) = field("color").as_deref().and_then(css_color) {
                    m.color = Some(c);
                }
            }
            _ => {}
        }
    }
    m
}

/// The characters of a text node, without its marks.
fn text_of(t: &yrs::XmlTextRef, txn: &impl ReadTxn) -> String {
    let mut s = String::new();
    for d in t.diff(txn, YChange::identity) {
        if let Out::Any(Any::String(part)) = d.insert {
            s.push_str(&part);
        }
    }
    s
}

/// All the text under a node, its paragraphs on separate lines.
fn plain_text(el: &yrs::XmlElementRef, txn: &impl ReadTxn) -> String {
    let mut out = String::new();
    collect_text(&XmlOut::Element(el.clone()), txn, &mut out);
    out.trim_end_matches('\n').to_owned()
}

fn collect_text(node: &XmlOut, txn: &impl ReadTxn, out: &mut String) {
    match node {
        XmlOut::Text(t) => out.push_str(&text_of(t, txn)),
        XmlOut::Element(e) => {
            if e.tag().as_ref() == "hardBreak" {
                out.push('\n');
                return;
            }
            for c in e.children(txn) {
                collect_text(&c, txn, out);
            }
            if matches!(
                e.tag().as_ref(),
                "paragraph" | "heading" | "listItem" | "tableCell" | "tableHeader"
            ) && !out.ends_with('\n')
            {
                out.push('\n');
            }
        }
        XmlOut::Fragment(f) => {
            for c in f.children(txn) {
                collect_text(&c, txn, out);
            }
        }
    }
}

/// The plain paragraphs of a template section's starting text (the same split the report's
/// initial content uses), as blocks.
pub fn paragraphs(texts: &[String]) -> Vec<Block> {
    texts
        .iter()
        .map(|t| {
            Block::Paragraph(if t.is_empty() {
                Vec::new()
            } else {
                vec![Inline::Text(t.clone(), Marks::default())]
            })
        })
        .collect()
}
