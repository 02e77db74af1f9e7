//! The PDF module end to end: documents built the way the editor stores them, read into the
//! model, written as markup, compiled, and the PDF read back with pdf_oxide.

use serde_json::json;
use yrs::Any;

use super::fixture::*;
use super::model::*;
use super::*;

fn sample() -> DocBuilder {
    let mut b = DocBuilder::new();
    b.branding(&[
        ("primaryColor", s("#0f766e")),
        ("subtitle", s("Quarterly filing")),
        ("fontFamily", s("Times New Roman")),
        ("logoMediaId", s("logo-1")),
    ]);
    b.section(
        "Executive Summary",
        &[("layout", "two-column"), ("background", "#f1f5f9")],
        vec![
            rich_paragraph(),
            el(
                "heading",
                vec![("level", Any::from(2.0))],
                vec![t("Key figures")],
            ),
            el(
                "bulletList",
                vec![],
                vec![
                    el("listItem", vec![], vec![p("First point")]),
                    el(
                        "listItem",
                        vec![],
                        vec![
                            p("Second point"),
                            el(
                                "orderedList",
                                vec![("start", Any::from(3.0))],
                                vec![el("listItem", vec![], vec![p("Nested three")])],
                            ),
                        ],
                    ),
                ],
            ),
        ],
    );
    b.section(
        "Capital Adequacy",
        &[("layout", "hero")],
        vec![
            el("blockquote", vec![], vec![p("A quoted line")]),
            el(
                "codeBlock",
                vec![("language", s("sql"))],
                vec![t("SELECT 1;\nSELECT 2;")],
            ),
            el("horizontalRule", vec![], vec![]),
            table_node(),
            chart_node("c1", "bar", "Savings by month"),
            el(
                "image",
                vec![
                    ("mediaId", s("img-1")),
                    ("src", s("/api/reports/r1/media/img-1")),
                    ("alt", s("Org chart")),
                    ("width", s("50%")),
                    ("align", s("right")),
                    ("caption", s("Figure: the organisation")),
                ],
                vec![],
            ),
            el(
                "image",
                vec![("mediaId", s("gone-1")), ("alt", s("Deleted picture"))],
                vec![],
            ),
        ],
    );
    b
}

#[test]
fn the_model_reads_every_node_kind() {
    let r = sample().report("Q3 Report");
    assert_eq!(r.title, "Q3 Report");
    assert_eq!(r.branding.primary, Rgb(0x0f, 0x76, 0x6e));
    assert_eq!(r.branding.subtitle, "Quarterly filing");
    assert_eq!(r.branding.logo.as_deref(), Some("logo-1"));
    assert_eq!(r.branding.orientation, Orientation::Portrait);
    assert_eq!(r.sections.len(), 2);
    let s0 = &r.sections[0];
    assert_eq!(s0.title, "Executive Summary");
    assert_eq!(s0.layout, Layout::TwoColumn);
    assert_eq!(s0.background, Some(Rgb(0xf1, 0xf5, 0xf9)));
    let Block::Paragraph(runs) = &s0.blocks[0] else {
        panic!("{:?}", s0.blocks[0])
    };
    let find = |text: &str| {
        runs.iter()
            .find_map(|i| match i {
                Inline::Text(t, m) if t == text => Some(m.clone()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no run {text:?} in {runs:?}"))
    };
    assert!(find("bold").bold);
    let red = find("italic red");
    assert!(red.italic && !red.bold);
    assert_eq!(red.color, Some(Rgb(0xdc, 0x26, 0x26)));
    assert_eq!(red.size_pt, Some(14.0));
    assert_eq!(red.font_family.as_deref(), Some("Georgia"));
    assert!(find("code").code);
    assert!(find("underlined").underline);
    assert!(find("struck").strike);
    assert_eq!(find("link").link.as_deref(), Some("https://example.com/x"));
    assert!(runs.contains(&Inline::HardBreak));
    assert!(matches!(&s0.blocks[1], Block::Heading { level: 2, .. }));
    let Block::BulletList(items) = &s0.blocks[2] else {
        panic!()
    };
    assert_eq!(items.len(), 2);
    assert!(matches!(&items[1][1], Block::OrderedList { start: 3, .. }));

    let s1 = &r.sections[1];
    assert_eq!(s1.layout, Layout::Hero);
    assert!(matches!(&s1.blocks[0], Block::Blockquote(_)));
    assert_eq!(
        s1.blocks[1],
        Block::CodeBlock("SELECT 1;\nSELECT 2;".into())
    );
    assert_eq!(s1.blocks[2], Block::Rule);
    let Block::Table(table) = &s1.blocks[3] else {
        panic!()
    };
    assert_eq!(table.font_size, Some(10.0));
    assert_eq!(table.width_pct, Some(75));
    assert_eq!(table.rows.len(), 3);
    assert!(table.rows[0][0].header);
    assert_eq!(table.rows[0][1].colspan, 2);
    assert_eq!(table.rows[0][1].colwidth, Some(vec![120.0, 80.0]));
    assert_eq!(table.rows[1][0].rowspan, 2);
    let Block::Chart(chart) = &s1.blocks[4] else {
        panic!()
    };
    assert_eq!(chart.kind, ChartKind::Bar);
    assert_eq!(chart.title, "Savings by month");
    assert_eq!(chart.y_columns, vec!["RWA savings", "Bps"]);
    assert_eq!(chart.rows.len(), 3);
    assert_eq!(
        (chart.width, chart.height, chart.font_size),
        (600.0, 300.0, 12.0)
    );
    assert_eq!(chart.scheme, ColorScheme::Banking);
    assert_eq!(
        chart.source,
        Some(ChartSource::Client {
            dataset: "savings_by_month".into()
        })
    );
    assert!(chart.show_legend && chart.show_grid);
    let Block::Image(img) = &s1.blocks[5] else {
        panic!()
    };
    assert_eq!(
        (img.media_id.as_str(), img.width_pct, img.align),
        ("img-1", 50, Align::Right)
    );
    assert_eq!(img.caption, "Figure: the organisation");
}

#[test]
fn malformed_attributes_read_as_defaults() {
    let mut b = DocBuilder::new();
    b.branding(&[
        ("primaryColor", s("red; }")),
        ("fontScale", Any::from(9.0)),
        ("orientation", s("sideways")),
        ("logoUrl", s("../../etc/passwd")),
    ]);
    b.section(
        "S",
        &[("layout", "diagonal"), ("background", "url(x)")],
        vec![
            el(
                "chart",
                vec![
                    ("chartType", s("radar")),
                    ("yColumns", s("not json")),
                    ("rows", s("{\"no\": \"array\"}")),
                    ("width", s("99999")),
                    ("height", s("abc")),
                    ("fontSize", s("-3")),
                    ("showLegend", s("maybe")),
                    ("showGrid", s("false")),
                    ("source", s("{\"kind\":\"ftp\"}")),
                ],
                vec![],
            ),
            el(
                "image",
                vec![
                    ("mediaId", s("../../secret")),
                    ("width", s("33%")),
                    ("align", s("top")),
                ],
                vec![],
            ),
            el(
                "image",
                vec![
                    ("src", s("/api/reports/r/media/abc-123")),
                    ("width", s("33%")),
                    ("align", s("top")),
                ],
                vec![],
            ),
            el("heading", vec![("level", s("nine"))], vec![t("H")]),
            el(
                "table",
                vec![("fontSize", s("200")), ("width", s("12%"))],
                vec![el(
                    "tableRow",
                    vec![],
                    vec![el(
                        "tableCell",
                        vec![("colspan", s("-4")), ("colwidth", s("[\"a\"]"))],
                        vec![p("c")],
                    )],
                )],
            ),
            el("mystery", vec![], vec![p("kept text")]),
            el(
                "paragraph",
                vec![],
                vec![Node::Text(vec![(
                    "x".into(),
                    vec![
                        mark("link", vec![("href", s("javascript:alert(1)"))]),
                        mark(
                            "textStyle",
                            vec![("fontSize", s("huge")), ("color", s("expression()"))],
                        ),
                    ],
                )])],
            ),
        ],
    );
    let r = b.report("");
    assert_eq!(r.branding.primary, Branding::default().primary);
    assert_eq!(r.branding.font_scale, 1.0);
    assert_eq!(r.branding.orientation, Orientation::Portrait);
    assert_eq!(r.branding.logo, None);
    let s0 = &r.sections[0];
    assert_eq!((s0.layout, s0.background), (Layout::Single, None));
    let Block::Chart(c) = &s0.blocks[0] else {
        panic!()
    };
    assert_eq!(c.kind, ChartKind::Bar);
    assert!(c.y_columns.is_empty() && c.rows.is_empty() && c.source.is_none());
    assert_eq!((c.width, c.height, c.font_size), (1200.0, 400.0, 8.0));
    assert!(c.show_legend && !c.show_grid);
    // The image with a path for an id is left out; the one with a src is read from it.
    let Block::Image(img) = &s0.blocks[1] else {
        panic!("{:?}", s0.blocks[1])
    };
    assert_eq!(
        (img.media_id.as_str(), img.width_pct, img.align),
        ("abc-123", 100, Align::Center)
    );
    assert!(matches!(&s0.blocks[2], Block::Heading { level: 1, .. }));
    let Block::Table(tb) = &s0.blocks[3] else {
        panic!()
    };
    assert_eq!((tb.font_size, tb.width_pct), (Some(24.0), None));
    assert_eq!(
        (tb.rows[0][0].colspan, tb.rows[0][0].colwidth.clone()),
        (1, None)
    );
    assert_eq!(
        s0.blocks[4],
        Block::Paragraph(vec![Inline::Text("kept text".into(), Marks::default())])
    );
    let Block::Paragraph(runs) = &s0.blocks[5] else {
        panic!()
    };
    assert_eq!(runs[0], Inline::Text("x".into(), Marks::default()));
    // And the whole document still renders.
    render(&r, &Resolved::default()).expect("renders");
}

#[test]
fn deep_nesting_is_read_as_text() {
    let mut node = p("deep");
    for _ in 0..40 {
        node = el("blockquote", vec![], vec![node]);
    }
    let mut b = DocBuilder::new();
    b.section("Deep", &[], vec![node]);
    let r = b.report("Deep");
    let mut depth = 0;
    let mut blocks = &r.sections[0].blocks;
    while let Some(Block::Blockquote(inner)) = blocks.first() {
        depth += 1;
        blocks = inner;
    }
    assert!(depth <= MAX_DEPTH, "{depth}");
    assert_eq!(
        blocks[0],
        Block::Paragraph(vec![Inline::Text("deep".into(), Marks::default())])
    );
    render(&r, &Resolved::default()).expect("renders");
}

/// The PDF's text, page by page.
pub(crate) fn pdf_text(pdf: &[u8]) -> Vec<String> {
    let doc = pdf_oxide::document::PdfDocument::from_bytes(pdf.to_vec()).expect("a PDF");
    let n = doc.page_count().unwrap();
    (0..n).map(|i| doc.extract_text(i).unwrap()).collect()
}

/// The PDF's outline: (level, title).
pub(crate) fn pdf_outline(pdf: &[u8]) -> Vec<(usize, String)> {
    fn walk(
        items: &[pdf_oxide::outline::OutlineItem],
        level: usize,
        out: &mut Vec<(usize, String)>,
    ) {
        for i in items {
            out.push((level, i.title.clone()));
            walk(&i.children, level + 1, out);
        }
    }
    let doc = pdf_oxide::document::PdfDocument::from_bytes(pdf.to_vec()).unwrap();
    let mut out = Vec::new();
    if let Ok(Some(items)) = doc.get_outline() {
        walk(&items, 1, &mut out);
    }
    out
}

/// Width and height of each page, in points.
pub(crate) fn pdf_pages(pdf: &[u8]) -> Vec<(f32, f32)> {
    let doc = pdf_oxide::document::PdfDocument::from_bytes(pdf.to_vec()).unwrap();
    (0..doc.page_count().unwrap())
        .map(|i| {
            let (x0, y0, x1, y1) = doc.get_page_media_box(i).unwrap();
            (x1 - x0, y1 - y0)
        })
        .collect()
}

/// Raster images on each page.
pub(crate) fn pdf_images(pdf: &[u8]) -> Vec<usize> {
    let doc = pdf_oxide::document::PdfDocument::from_bytes(pdf.to_vec()).unwrap();
    (0..doc.page_count().unwrap())
        .map(|i| doc.extract_images(i).map(|v| v.len()).unwrap_or(0))
        .collect()
}

fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[tokio::test]
async fn a_report_renders_with_its_text_outline_pages_and_images() {
    let b = sample();
    let report = b.report("Q3 Report");
    let mut assets = MemoryAssets::default();
    assets.images.insert(
        "img-1".into(),
        ImageAsset {
            bytes: png(40, 20, [200, 30, 30]),
            content_type: "image/png".into(),
        },
    );
    assets.images.insert(
        "logo-1".into(),
        ImageAsset {
            bytes: png(16, 16, [255, 255, 255]),
            content_type: "image/png".into(),
        },
    );
    // The client dataset is current: four months, not the three stored.
    assets.datasets.push((
        ChartSource::Client {
            dataset: "savings_by_month".into(),
        },
        serde_json::from_value(json!([
            {"Month": "Jan", "RWA savings": 1, "Bps": 1},
            {"Month": "Feb", "RWA savings": 2, "Bps": 1},
            {"Month": "Mar", "RWA savings": 3, "Bps": 1},
            {"Month": "Apr", "RWA savings": 4, "Bps": 1}
        ]))
        .unwrap(),
    ));
    let resolved = resolve(&report, &assets).await.unwrap();
    assert_eq!(
        resolved.images.len(),
        2,
        "the image and the logo; the missing one is not there"
    );
    assert_eq!(resolved.chart_rows.get(&0).map(Vec::len), Some(4));
    let pdf = render(&report, &resolved).unwrap();
    assert!(pdf.starts_with(b"%PDF-"));

    let pages = pdf_pages(&pdf);
    assert!(!pages.is_empty());
    for (w, h) in &pages {
        assert!(
            (w - 595.5).abs() < 0.5 && (h - 842.25).abs() < 0.5,
            "{w} x {h}"
        );
    }
    let text = squash(&pdf_text(&pdf).join("\n"));
    for expected in [
        "Q3 Report",
        "Quarterly filing",
        "Executive Summary",
        "bold",
        "italic red",
        "Second line.",
        "Key figures",
        "First point",
        "Nested three",
        "A quoted line",
        "SELECT 1;",
        "Institutions",
        "3.1 bps",
        "Savings by month",
        "Figure: the organisation",
        "Image unavailable: Deleted picture",
        "Apr",
    ] {
        assert!(text.contains(expected), "{expected:?} missing from {text}");
    }
    let n = pages.len();
    assert!(text.contains(&format!("Page 1 of {n}")), "{text}");
    let outline = pdf_outline(&pdf);
    let titles: Vec<&str> = outline.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(
        titles,
        vec!["Executive Summary", "Key figures", "Capital Adequacy"],
        "{outline:?}"
    );
    assert_eq!(outline[1].0, 2, "a heading nests under its section");
    // Two raster images (the picture and the logo); the chart is vector, not an image.
    assert_eq!(pdf_images(&pdf).iter().sum::<usize>(), 2);
}

#[test]
fn landscape_swaps_the_page() {
    let mut b = DocBuilder::new();
    b.branding(&[("orientation", s("landscape"))]);
    b.section("Only", &[], vec![p("text")]);
    let pdf = render(&b.report("L"), &Resolved::default()).unwrap();
    for (w, h) in pdf_pages(&pdf) {
        assert!(
            (w - 842.25).abs() < 0.5 && (h - 595.5).abs() < 0.5,
            "{w} x {h}"
        );
    }
}

#[test]
fn hostile_text_is_text() {
    let hostile = [
        "#set page(fill: red)",
        "\")#panic(\"boom\")#(\"",
        "\\\")#panic(\"x\")//",
        "]#panic(\"y\")[",
        "$x^2$ *not bold* _no_ `raw` <label> @ref // comment /* c */",
        "#import \"/etc/passwd\": *",
        "#image(\"/etc/passwd\")",
    ];
    let mut b = DocBuilder::new();
    b.branding(&[("subtitle", s(hostile[1]))]);
    let nodes: Vec<Node> = hostile.iter().map(|h| p(h)).collect();
    b.section(hostile[2], &[], nodes);
    b.section(
        "T",
        &[],
        vec![
            el("codeBlock", vec![], vec![t(hostile[3])]),
            el(
                "image",
                vec![
                    ("mediaId", s("x")),
                    ("alt", s(hostile[1])),
                    ("caption", s(hostile[0])),
                ],
                vec![],
            ),
            el(
                "chart",
                vec![
                    ("title", s(hostile[2])),
                    ("xColumn", s("a")),
                    ("yColumns", s("[\"b\"]")),
                    ("rows", s(&json!([{"a": hostile[3], "b": 1}]).to_string())),
                ],
                vec![],
            ),
            el(
                "paragraph",
                vec![],
                vec![Node::Text(vec![(
                    hostile[4].into(),
                    vec![mark(
                        "link",
                        vec![("href", s("https://x.test/\")#panic(\""))],
                    )],
                )])],
            ),
        ],
    );
    let report = b.report(hostile[1]);
    // Any of these read as markup would fail the compilation (a panic) or change the page.
    let pdf = render(&report, &Resolved::default()).expect("hostile text renders as text");
    let text = squash(&pdf_text(&pdf).join("\n"));
    for h in [
        "#set page(fill: red)",
        "*not bold*",
        "#image(\"/etc/passwd\")",
        "#import",
    ] {
        assert!(text.contains(h), "{h:?} missing from {text}");
    }
}
