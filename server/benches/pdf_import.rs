//! The PDF import target: 'Create template from PDF' on a generated 300-page report (60
//! sections, a table every 10 pages, a figure with its numbers every 15) under 10 s, with the
//! outline and without it (headings found by their font), against a one-page PDF as the
//! baseline of the same run; the memory each import adds at its peak (the process's peak
//! resident set is reset before each import). Prints one JSON object.
//!
//! `make bench-pdf` (a release build). Not part of `cargo test`.

mod support;

use std::time::{Duration, Instant};

use pdf_oxide::writer::{DocumentBuilder, OutlineItem};
use serde_json::json;
use server::pdf_import::{Block, Imported, import};
use support::{peak_rss_kib, rss_kib};

const RUNS: usize = 3;
const PAGES: usize = 300;
const PAGES_PER_SECTION: usize = 5;

const BODY: &str = "Institutions shall calculate their risk weighted exposure amounts for \
    credit risk by applying the standardised approach to every exposure class, with the risk \
    weights set out in this Chapter; exposures to public sector entities treated as exposures \
    to the central government receive the sovereign's weight.";

fn title(section: usize) -> String {
    format!(
        "{}. Disclosure of exposure class {}",
        section + 1,
        section + 1
    )
}

/// The 300-page report, with or without its outline.
fn report(pages: usize, outline: bool) -> Vec<u8> {
    let mut b = DocumentBuilder::new();
    for page in 0..pages {
        let mut p = b.a4_page().at(72.0, 780.0);
        if page % PAGES_PER_SECTION == 0 {
            p = p
                .font("Helvetica-Bold", 16.0)
                .text(&title(page / PAGES_PER_SECTION))
                .at(72.0, 755.0);
        }
        p = p.font("Helvetica", 10.0);
        for _ in 0..4 {
            p = p.paragraph(BODY).space(6.0);
        }
        if page % 10 == 3 {
            p = p.at(72.0, 420.0).text("Table 1: Exposures by class");
            for r in 0..6 {
                let y = 400.0 - 14.0 * r as f32;
                let row = if r == 0 {
                    ["Class".to_owned(), "Exposure".to_owned(), "RWA".to_owned()]
                } else {
                    [
                        format!("Class {r}"),
                        format!("{},000", 100 + r * 7),
                        format!("{},500", 20 + r * 3),
                    ]
                };
                for (c, x) in [72.0, 260.0, 400.0].iter().enumerate() {
                    p = p.at(*x, y).text(&row[c]);
                }
            }
        }
        if page % 15 == 7 {
            p = p.at(72.0, 300.0).text("Figure 2: CET1 ratio by year");
            for (i, year) in (2020..2025).enumerate() {
                p = p
                    .at(72.0, 284.0 - 14.0 * i as f32)
                    .text(&format!("{year} {:.1}", 12.0 + i as f64 * 0.4));
            }
        }
        p.done();
    }
    let b = if outline {
        b.bookmark_tree(|o| {
            for page in (0..pages).step_by(PAGES_PER_SECTION) {
                o.add_item(OutlineItem::new(title(page / PAGES_PER_SECTION), page));
            }
        })
    } else {
        b
    };
    b.build().expect("a PDF")
}

/// Times `RUNS` imports; returns the median, the last result and the most memory one import
/// added at its peak.
fn time_import(pdf: &[u8]) -> (Duration, Imported, u64) {
    let mut times = Vec::new();
    let mut last = None;
    let mut added = 0;
    for _ in 0..RUNS {
        // Resets the peak resident set to the current one (Linux 4.0 and later).
        let _ = std::fs::write("/proc/self/clear_refs", "5");
        let before = rss_kib();
        let started = Instant::now();
        let x = import(pdf, &mut |_| {}).expect("the import succeeds");
        times.push(started.elapsed());
        added = added.max(peak_rss_kib().saturating_sub(before));
        last = Some(x);
    }
    times.sort();
    (times[times.len() / 2], last.unwrap(), added)
}

fn main() {
    let one = report(1, true);
    let with_outline = report(PAGES, true);
    let without = report(PAGES, false);
    let (baseline, _, _) = time_import(&one);
    let ms = |d: Duration| (d.as_secs_f64() * 1000.0 * 10.0).round() / 10.0;
    let mut cases = Vec::new();
    for (name, pdf) in [("outline", &with_outline), ("headings", &without)] {
        let (t, x, added) = time_import(pdf);
        let blocks = |f: &dyn Fn(&Block) -> bool| {
            x.sections
                .iter()
                .flat_map(|s| &s.blocks)
                .filter(|b| f(b))
                .count()
        };
        cases.push(json!({
            "structure": name,
            "pdf_bytes": pdf.len(),
            "pages": x.pages,
            "method": x.method.code(),
            "sections": x.sections.len(),
            "tables": blocks(&|b| matches!(b, Block::Table(_))),
            "charts": blocks(&|b| matches!(b, Block::Chart(_))),
            "median_ms": ms(t),
            "ratio_to_one_page": (t.as_secs_f64() / baseline.as_secs_f64()).round(),
            "peak_added_mib": (added as f64 / 1024.0 * 10.0).round() / 10.0,
        }));
    }
    let out = json!({
        "bench": "pdf_import",
        "runs": RUNS,
        "one_page_median_ms": ms(baseline),
        "imports": cases,
        "target_ms": 10_000,
    });
    println!("{}", serde_json::to_string_pretty(&out).unwrap());
}
