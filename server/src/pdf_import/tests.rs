//! The importer on PDFs generated here with known structure: an outline, a printed table of
//! contents only, headings only, over 100 sections, no text at all, and no structure.

use pdf_oxide::writer::{DocumentBuilder, FluentPageBuilder, OutlineItem};

use super::*;

const BODY: &str = "Institutions shall calculate their risk weighted exposure amounts for credit \
    risk by applying the standardised approach to every exposure class, with the risk weights \
    set out in this Chapter and the conditions of eligibility that apply to each of them.";

/// A paragraph of its own for `i`: [`BODY`]'s words rotated, so that no two pages start or end
/// with the same line (which the importer would take for a running head).
fn body(i: usize) -> String {
    let words: Vec<&str> = BODY.split_whitespace().collect();
    let k = (i * 7) % words.len();
    words[k..]
        .iter()
        .chain(&words[..k])
        .copied()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Each section's title, level and first and last page.
fn heads(x: &Imported) -> Vec<(&str, u8, u32, u32)> {
    x.sections
        .iter()
        .map(|s| (s.title.as_str(), s.level, s.page_start, s.page_end))
        .collect()
}

fn run(bytes: &[u8]) -> Result<Imported, ImportError> {
    let mut steps = Vec::new();
    let r = import_isolated(bytes, &mut |p| steps.push(p));
    if r.is_ok() {
        // Every step reports its start and its end, in order.
        for step in [Step::Parse, Step::Analyze, Step::Extract] {
            let of: Vec<_> = steps.iter().filter(|p| p.step == step).collect();
            assert!(
                of.first().is_some_and(|p| p.done == 0),
                "{step:?} starts at 0"
            );
            assert!(
                of.last().is_some_and(|p| p.done == p.total),
                "{step:?} ends done"
            );
        }
    }
    r
}

/// Writes `rows` as a table: one line per row, cells at the given x positions.
fn table<'a>(
    mut page: FluentPageBuilder<'a>,
    top: f32,
    xs: &[f32],
    rows: &[&[&str]],
) -> FluentPageBuilder<'a> {
    for (r, row) in rows.iter().enumerate() {
        for (c, cell) in row.iter().enumerate() {
            page = page.at(xs[c], top - 16.0 * r as f32).text(cell);
        }
    }
    page
}

fn outline_pdf() -> Vec<u8> {
    let mut b = DocumentBuilder::new();
    b.a4_page()
        .filled_rect(0.0, 780.0, 595.0, 62.0, 0.0, 0.3, 0.6)
        .font("Helvetica-Bold", 20.0)
        .at(72.0, 800.0)
        .text("Pillar 3 Disclosures 2025")
        .font("Helvetica", 11.0)
        .at(72.0, 740.0)
        .text("Introduction")
        .at(72.0, 720.0)
        .paragraph(BODY)
        .done();
    let page = b
        .a4_page()
        .font("Helvetica", 11.0)
        .at(72.0, 770.0)
        .text("Capital Requirements")
        .at(72.0, 750.0)
        .paragraph(BODY)
        .at(72.0, 660.0)
        .text("Table 1: Risk weights by exposure class");
    let page = table(
        page,
        640.0,
        &[72.0, 260.0, 400.0],
        &[
            &["Exposure class", "Risk weight", "RWA"],
            &["Sovereigns", "0%", "0"],
            &["Institutions", "20%", "1,250"],
            &["Corporates", "100%", "8,400"],
        ],
    );
    page.at(72.0, 560.0)
        .text("Figure 2: CET1 ratio")
        .at(72.0, 540.0)
        .text("2022 13.1")
        .at(72.0, 524.0)
        .text("2023 13.8")
        .at(72.0, 508.0)
        .text("2024 14.6")
        .at(72.0, 480.0)
        .text("The ratio rose every year.")
        .done();
    b.a4_page()
        .font("Helvetica", 11.0)
        .at(72.0, 770.0)
        .text("Leverage Ratio")
        .at(72.0, 750.0)
        .paragraph("Short.")
        .done();
    b.bookmark_tree(|o| {
        o.add_item(OutlineItem::new("Introduction", 0));
        o.add_item(OutlineItem::new("Capital Requirements", 1));
        o.add_child(OutlineItem::new("Leverage Ratio", 2));
        o.pop();
    })
    .build()
    .unwrap()
}

#[test]
fn the_outline_gives_the_sections_with_their_pages_tables_charts_and_palette() {
    let x = run(&outline_pdf()).unwrap();
    assert_eq!(x.method, Method::Outline);
    assert_eq!(x.pages, 3);
    assert_eq!(
        heads(&x),
        [
            ("Introduction", 1, 1, 1),
            ("Capital Requirements", 1, 2, 2),
            ("Leverage Ratio", 2, 3, 3),
        ]
    );
    let intro = &x.sections[0];
    assert!(
        intro.content.starts_with("Institutions shall calculate"),
        "{}",
        intro.content
    );
    assert!(
        !intro.content.contains("Pillar 3"),
        "the cover title is not in a section"
    );
    let capital = &x.sections[1];
    assert_eq!(
        capital.blocks,
        [
            Block::Table(Table {
                caption: "Table 1: Risk weights by exposure class".into(),
                columns: vec!["Exposure class".into(), "Risk weight".into(), "RWA".into()],
                rows: vec![
                    vec!["Sovereigns".into(), "0%".into(), "0".into()],
                    vec!["Institutions".into(), "20%".into(), "1,250".into()],
                    vec!["Corporates".into(), "100%".into(), "8,400".into()],
                ],
            }),
            Block::Chart(Chart {
                title: "CET1 ratio".into(),
                labels: vec!["2022".into(), "2023".into(), "2024".into()],
                values: vec![13.1, 13.8, 14.6],
            }),
        ]
    );
    assert!(capital.content.contains("The ratio rose every year."));
    assert!(
        !capital.content.contains("Sovereigns"),
        "table rows leave the text"
    );
    assert!(
        !capital.content.contains("13.8"),
        "chart numbers leave the text"
    );
    // Less than 150 characters: the text is kept and the placeholder follows.
    assert_eq!(x.sections[2].content, format!("Short.\n\n{PLACEHOLDER}"));
    // The banner's blue is the brand colour.
    assert_eq!(x.palette.first().map(String::as_str), Some("#004d99"));
}

fn toc_pdf() -> Vec<u8> {
    let mut b = DocumentBuilder::new();
    b.a4_page()
        .font("Helvetica", 11.0)
        .at(72.0, 770.0)
        .text("Contents")
        .at(72.0, 740.0)
        .text("1 Introduction .................................... 1")
        .at(72.0, 724.0)
        .text("2 Own Funds ....................................... 2")
        .at(72.0, 708.0)
        .text("2.1 Common Equity Tier 1 ........................... 2")
        .at(72.0, 692.0)
        .text("3 Conclusion ...................................... 3")
        .done();
    // The printed page numbers count from the first page after the contents.
    for (i, (title, extra)) in [
        ("1 Introduction", None),
        ("2 Own Funds", Some("2.1 Common Equity Tier 1")),
        ("3 Conclusion", None),
    ]
    .into_iter()
    .enumerate()
    {
        let mut page = b
            .a4_page()
            .font("Helvetica", 11.0)
            .at(72.0, 770.0)
            .text(title)
            .at(72.0, 750.0)
            .paragraph(&body(i));
        if let Some(extra) = extra {
            page = page
                .at(72.0, 650.0)
                .text(extra)
                .at(72.0, 630.0)
                .paragraph(&body(i + 10));
        }
        page.done();
    }
    b.build().unwrap()
}

#[test]
fn without_an_outline_the_printed_contents_give_the_sections() {
    let x = run(&toc_pdf()).unwrap();
    assert_eq!(x.method, Method::TableOfContents);
    assert_eq!(
        heads(&x),
        [
            ("1 Introduction", 1, 2, 2),
            ("2 Own Funds", 1, 3, 3),
            ("2.1 Common Equity Tier 1", 2, 3, 3),
            ("3 Conclusion", 1, 4, 4),
        ]
    );
    assert!(
        x.sections[1].content.starts_with(&body(1)[..30]),
        "{:#?}",
        x.sections
    );
    assert!(
        !x.sections[1].content.contains("Common Equity"),
        "{}",
        x.sections[1].content
    );
    assert!(
        !x.sections[0].content.contains("...."),
        "the contents are no section's text"
    );
}

/// Headings by font only; the second page's title is wrapped over two lines (`long_title`).
fn headings_pdf(long_title: [&str; 2]) -> Vec<u8> {
    let mut b = DocumentBuilder::new();
    b.a4_page()
        .font("Helvetica-Bold", 18.0)
        .at(72.0, 770.0)
        .text("Market Risk")
        .font("Helvetica", 11.0)
        .at(72.0, 745.0)
        .paragraph(BODY)
        .font("Helvetica-Bold", 14.0)
        .at(72.0, 660.0)
        .text("Interest Rate Risk")
        .font("Helvetica", 11.0)
        .at(72.0, 640.0)
        .paragraph(BODY)
        .done();
    b.a4_page()
        .font("Helvetica-Bold", 18.0)
        .at(72.0, 770.0)
        .text(long_title[0])
        .at(72.0, 748.0)
        .text(long_title[1])
        .font("Helvetica", 11.0)
        .at(72.0, 722.0)
        .paragraph(&body(3))
        .at(72.0, 660.0)
        .paragraph(&body(4))
        .done();
    b.build().unwrap()
}

#[test]
fn without_outline_or_contents_the_fonts_give_the_headings() {
    // Two lines of 4 x 17 - 1 = 67 characters: a title of 135, cut at 120.
    let line = "Operational Risk ".repeat(4);
    let x = run(&headings_pdf([line.trim(), line.trim()])).unwrap();
    assert_eq!(x.method, Method::Headings);
    let heads: Vec<_> = x
        .sections
        .iter()
        .map(|s| (s.title.clone(), s.level, s.page_start, s.page_end))
        .collect();
    assert_eq!(heads[0], ("Market Risk".to_owned(), 1, 1, 1));
    assert_eq!(heads[1], ("Interest Rate Risk".to_owned(), 2, 1, 1));
    // A title over 120 characters is cut and given an ellipsis.
    let t = &heads[2].0;
    assert!(
        t.chars().count() <= MAX_TITLE_CHARS && t.chars().count() > 110,
        "{t}"
    );
    assert!(
        t.ends_with('…') && t.starts_with("Operational Risk Operational"),
        "{t}"
    );
    assert_eq!((heads[2].1, heads[2].2), (1, 2));
    // Two paragraphs, separated by a blank line.
    assert_eq!(
        x.sections[2].content.matches("\n\n").count(),
        1,
        "{}",
        x.sections[2].content
    );
}

#[test]
fn over_100_sections_or_none_fail_with_the_spec_messages() {
    let mut b = DocumentBuilder::new();
    for i in 0..101 {
        b.a4_page()
            .font("Helvetica", 11.0)
            .at(72.0, 770.0)
            .text(&format!("Part {i}"))
            .done();
    }
    let pdf = b
        .bookmark_tree(|o| {
            for i in 0..101 {
                o.add_item(OutlineItem::new(format!("Part {i}"), i));
            }
        })
        .build()
        .unwrap();
    let e = run(&pdf).unwrap_err();
    assert_eq!(e, ImportError::TooManySections(101));
    assert_eq!(
        e.to_string(),
        "Detected 101 sections, which exceeds the safe limit of 100. Please check the document structure."
    );

    let mut b = DocumentBuilder::new();
    b.a4_page()
        .filled_rect(72.0, 600.0, 200.0, 100.0, 0.8, 0.1, 0.1)
        .done();
    let e = run(&b.build().unwrap()).unwrap_err();
    assert_eq!(e, ImportError::NoSections);
    assert_eq!(
        e.to_string(),
        "No valid sections could be detected from the PDF. Please ensure the document has a clear structure."
    );
}

#[test]
fn a_document_without_structure_is_one_section_of_its_first_5000_characters() {
    let mut b = DocumentBuilder::new();
    for p in 0..6 {
        let mut page = b.a4_page().font("Helvetica", 11.0).at(72.0, 770.0);
        for k in 0..4 {
            let n = p * 4 + k;
            page = page.paragraph(&body(n)).space(11.0);
        }
        page.done();
    }
    let x = run(&b.build().unwrap()).unwrap();
    assert_eq!(x.method, Method::WholeDocument);
    assert_eq!(x.sections.len(), 1);
    let s = &x.sections[0];
    assert_eq!(
        (s.title.as_str(), s.page_start, s.page_end),
        ("Document Content", 1, 6)
    );
    let n = s.content.chars().count();
    assert!(
        n <= FALLBACK_CHARS && n > FALLBACK_CHARS - BODY.len() - 2,
        "{n}"
    );
}

#[test]
fn what_is_not_a_pdf_is_refused_without_a_panic() {
    assert!(matches!(
        run(b"not a pdf at all"),
        Err(ImportError::Invalid(_))
    ));
    let mut truncated = outline_pdf();
    truncated.truncate(truncated.len() / 3);
    assert!(run(&truncated).is_err());
}

#[test]
fn numbers_are_read_as_the_spec_counts_them() {
    assert_eq!(blocks::number("1,250"), Some(1250.0));
    assert_eq!(blocks::number("12.5%"), Some(12.5));
    assert_eq!(blocks::number("(3.2)"), Some(-3.2));
    assert_eq!(blocks::number("2019-2020"), None);
    assert_eq!(blocks::number("CET1"), None);
}
