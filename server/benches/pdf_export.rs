//! The PDF export target: a 30-page report with 10 charts, 10 tables and 5 images, built as
//! the editor stores it, read from its document, its assets resolved from memory and laid out
//! by typst, timed over several runs; with a one-page report as the baseline of the same run,
//! and the process's peak memory. Prints one JSON object.
//!
//! `make bench-pdf` (a release build). Not part of `cargo test`.

mod support;

use std::time::{Duration, Instant};

use serde_json::json;
use server::pdf::fixture::{
    DocBuilder, Node, chart_node, el, p, png, rich_paragraph, s, table_node,
};
use server::pdf::model::ChartSource;
use server::pdf::{ImageAsset, MemoryAssets, render, resolve};
use support::peak_rss_kib;

const RUNS: usize = 5;

fn paragraph(i: usize) -> Node {
    p(&format!(
        "Paragraph {i}. The institution's exposures to public sector entities are risk-weighted \
         under Article 116 of the CRR; those treated as exposures to the central government \
         receive the sovereign's weight, which lowers the risk-weighted assets and raises the \
         CET1 ratio. This paragraph stands for the narrative a regulatory report carries \
         between its figures, tables and charts."
    ))
}

fn big_report() -> (DocBuilder, MemoryAssets) {
    let mut b = DocBuilder::new();
    b.branding(&[
        ("primaryColor", s("#1e3a8a")),
        ("subtitle", s("Pillar 3 disclosures")),
        ("logoMediaId", s("logo")),
    ]);
    let mut assets = MemoryAssets::default();
    assets.images.insert(
        "logo".into(),
        ImageAsset {
            bytes: png(64, 64, [255, 255, 255]),
            content_type: "image/png".into(),
        },
    );
    for i in 0..5 {
        assets.images.insert(
            format!("img-{i}"),
            ImageAsset {
                bytes: png(400, 250, [30 + i as u8 * 40, 90, 160]),
                content_type: "image/png".into(),
            },
        );
    }
    assets.datasets.push((
        ChartSource::Client { dataset: "savings_by_month".into() },
        (1..=24)
            .map(|m| {
                serde_json::from_value(json!({"Month": format!("M{m}"), "RWA savings": m * 1_000_000, "Bps": m as f64 * 0.4}))
                    .unwrap()
            })
            .collect(),
    ));
    let kinds = ["bar", "line", "area", "pie"];
    for sec in 0..10 {
        let mut nodes = vec![rich_paragraph()];
        nodes.push(el(
            "heading",
            vec![("level", yrs::Any::from(2.0))],
            vec![yrs_text(&format!("Figures {sec}"))],
        ));
        for i in 0..14 {
            nodes.push(paragraph(sec * 100 + i));
        }
        nodes.push(table_node());
        nodes.push(chart_node(
            &format!("c{sec}"),
            kinds[sec % 4],
            &format!("Chart {sec}"),
        ));
        if sec % 2 == 0 {
            nodes.push(el(
                "image",
                vec![
                    ("mediaId", s(&format!("img-{}", sec / 2))),
                    ("alt", s("Figure")),
                    ("width", s("75%")),
                    ("caption", s("An image of the report")),
                ],
                vec![],
            ));
        }
        for i in 14..20 {
            nodes.push(paragraph(sec * 100 + i));
        }
        b.section(&format!("Section {sec}"), &[], nodes);
    }
    (b, assets)
}

fn yrs_text(t: &str) -> Node {
    server::pdf::fixture::t(t)
}

fn time_export(
    rt: &tokio::runtime::Runtime,
    b: &DocBuilder,
    assets: &MemoryAssets,
) -> (Duration, Vec<u8>) {
    let started = Instant::now();
    let report = b.report("Capital optimisation report");
    let resolved = rt.block_on(resolve(&report, assets)).unwrap();
    let pdf = render(&report, &resolved).unwrap();
    (started.elapsed(), pdf)
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let mut small = DocBuilder::new();
    small.section("Only section", &[], vec![p("One page.")]);
    let none = MemoryAssets::default();
    // The first export parses the embedded fonts once.
    let (first, _) = time_export(&rt, &small, &none);
    let rss_before = peak_rss_kib();
    let baseline: Vec<Duration> = (0..RUNS)
        .map(|_| time_export(&rt, &small, &none).0)
        .collect();
    let (big, assets) = big_report();
    let mut times = Vec::new();
    let mut pdf = Vec::new();
    for _ in 0..RUNS {
        let (t, bytes) = time_export(&rt, &big, &assets);
        times.push(t);
        pdf = bytes;
    }
    let doc = pdf_oxide::document::PdfDocument::from_bytes(pdf.clone()).unwrap();
    let pages = doc.page_count().unwrap();
    let images: usize = (0..pages)
        .map(|i| doc.extract_images(i).map(|v| v.len()).unwrap_or(0))
        .sum();
    let report = big.report("x");
    let count = |f: &dyn Fn(&server::pdf::model::Block) -> bool| {
        report
            .sections
            .iter()
            .flat_map(|s| &s.blocks)
            .filter(|b| f(b))
            .count()
    };
    use server::pdf::model::Block;
    let ms = |d: Duration| (d.as_secs_f64() * 1000.0 * 10.0).round() / 10.0;
    let out = json!({
        "bench": "pdf_export",
        "runs": RUNS,
        "report": {
            "pages": pages,
            "charts": count(&|b| matches!(b, Block::Chart(_))),
            "tables": count(&|b| matches!(b, Block::Table(_))),
            "images": count(&|b| matches!(b, Block::Image(_))),
            "raster_images_in_pdf": images,
            "pdf_bytes": pdf.len(),
        },
        "first_export_ms": ms(first),
        "one_page_median_ms": ms(median(baseline.clone())),
        "report_median_ms": ms(median(times.clone())),
        "report_min_ms": ms(*times.iter().min().unwrap()),
        "report_max_ms": ms(*times.iter().max().unwrap()),
        "ratio_to_one_page": (median(times).as_secs_f64() / median(baseline).as_secs_f64() * 100.0).round() / 100.0,
        "peak_rss_mib_after_fonts": rss_before / 1024,
        "peak_rss_mib": peak_rss_kib() / 1024,
        "target_ms": 1000,
    });
    println!("{}", serde_json::to_string_pretty(&out).unwrap());
}
