//! Charts drawn by the server as SVG (bar, line, area and pie), which the PDF embeds as vector
//! graphics: the chart node's size, font, colour scheme, legend and grid, its y values read as
//! numbers (a value that is not a number counts as 0), the pie's outer radius a quarter of the
//! smaller side.

use std::fmt::Write as _;

use serde_json::{Map, Value};

use super::fonts;
use super::model::{Chart, ChartKind, MAX_CHART_ROWS, Rgb};

const GRID: &str = "#e5e7eb";
const AXIS: &str = "#9ca3af";
const LABEL: &str = "#4b5563";
/// Average advance of a character in em, to lay labels out without measuring glyphs.
const CHAR_EM: f64 = 0.56;

/// XML text: the five special characters escaped, characters XML cannot hold left out.
pub(crate) fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(' '),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

/// A cell's value as a number: JSON numbers and numeric text; anything else is 0.
pub fn number(v: Option<&Value>) -> f64 {
    let n = match v {
        Some(Value::Number(n)) => n.as_f64().unwrap_or(0.0),
        Some(Value::String(s)) => s.trim().parse::<f64>().unwrap_or(0.0),
        Some(Value::Bool(b)) => f64::from(u8::from(*b)),
        _ => 0.0,
    };
    if n.is_finite() { n } else { 0.0 }
}

/// A cell's value as a category label.
pub fn label(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::Bool(b)) => b.to_string(),
        _ => String::new(),
    }
}

/// A compact number for an axis or a label: `1.2M`, `350k`, `12.5`.
pub fn compact(x: f64) -> String {
    let a = x.abs();
    let (v, suffix) = if a >= 1e12 {
        (x / 1e12, "T")
    } else if a >= 1e9 {
        (x / 1e9, "B")
    } else if a >= 1e6 {
        (x / 1e6, "M")
    } else if a >= 1e3 {
        (x / 1e3, "k")
    } else {
        (x, "")
    };
    let mut s = format!("{v:.2}");
    while s.contains('.') && (s.ends_with('0') || s.ends_with('.')) {
        s.pop();
    }
    if s == "-0" {
        s = "0".into();
    }
    format!("{s}{suffix}")
}

/// Round tick values covering `lo..=hi` (about five of them).
fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let (lo, hi) = if hi - lo < 1e-12 {
        if hi == 0.0 {
            (0.0, 1.0)
        } else {
            (lo.min(0.0), hi.max(0.0) + hi.abs() * 0.1)
        }
    } else {
        (lo, hi)
    };
    let raw = (hi - lo) / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * mag);
    let start = (lo / step).floor() * step;
    let mut out = Vec::new();
    let mut t = start;
    while t <= hi + step * 1e-9 && out.len() < 20 {
        out.push(if t.abs() < step * 1e-9 { 0.0 } else { t });
        t += step;
    }
    if out.last().is_some_and(|l| *l < hi) {
        out.push(t);
    }
    out
}

fn text_width(s: &str, size: f64) -> f64 {
    s.chars().count() as f64 * size * CHAR_EM
}

/// `s` cut to about `width` px, with an ellipsis.
fn fit(s: &str, width: f64, size: f64) -> String {
    let max = (width / (size * CHAR_EM)).floor().max(1.0) as usize;
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

struct Svg {
    out: String,
    family: &'static str,
    size: f64,
}

impl Svg {
    fn text(&mut self, x: f64, y: f64, anchor: &str, fill: &str, s: &str) {
        let _ = write!(
            self.out,
            r##"<text x="{x:.1}" y="{y:.1}" text-anchor="{anchor}" font-family="{}" font-size="{:.1}" fill="{fill}">{}</text>"##,
            self.family,
            self.size,
            xml_escape(s)
        );
    }
    fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, stroke: &str, dash: bool) {
        let _ = write!(
            self.out,
            r##"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{stroke}" stroke-width="1"{}/>"##,
            if dash {
                r##" stroke-dasharray="3 3""##
            } else {
                ""
            }
        );
    }
    fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: Rgb) {
        let _ = write!(
            self.out,
            r##"<rect x="{x:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{}"/>"##,
            w.max(0.0),
            h.max(0.0),
            fill.hex()
        );
    }
}

/// The series of a chart: (name, value per row).
fn series(chart: &Chart, rows: &[Map<String, Value>]) -> Vec<(String, Vec<f64>)> {
    chart
        .y_columns
        .iter()
        .map(|c| (c.clone(), rows.iter().map(|r| number(r.get(c))).collect()))
        .collect()
}

/// Legend entries laid out in rows under the plot; returns the height they take.
fn legend_height(entries: &[String], width: f64, size: f64) -> f64 {
    if entries.is_empty() {
        return 0.0;
    }
    let rows = legend_rows(entries, width, size).len() as f64;
    rows * size * 1.6 + size * 0.6
}

fn legend_rows(entries: &[String], width: f64, size: f64) -> Vec<Vec<(usize, f64)>> {
    let mut rows: Vec<Vec<(usize, f64)>> = vec![Vec::new()];
    let mut used = 0.0;
    for (i, e) in entries.iter().enumerate() {
        let w = size * 1.6 + text_width(&fit(e, width * 0.5, size), size) + size;
        if used + w > width && !rows.last().is_some_and(Vec::is_empty) {
            rows.push(Vec::new());
            used = 0.0;
        }
        if let Some(r) = rows.last_mut() {
            r.push((i, w));
        }
        used += w;
    }
    rows
}

fn draw_legend(svg: &mut Svg, entries: &[String], colors: &[Rgb], top: f64, width: f64) {
    let size = svg.size;
    for (r, row) in legend_rows(entries, width - 2.0 * size, size)
        .iter()
        .enumerate()
    {
        let total: f64 = row.iter().map(|(_, w)| w).sum();
        let mut x = (width - total) / 2.0;
        let y = top + size * 0.6 + r as f64 * size * 1.6;
        for (i, w) in row {
            svg.rect(x, y, size * 0.9, size * 0.9, colors[i % colors.len()]);
            svg.text(
                x + size * 1.3,
                y + size * 0.8,
                "start",
                LABEL,
                &fit(&entries[*i], width * 0.5, size),
            );
            x += w;
        }
    }
}

/// The chart as an SVG document of `chart.width` by `chart.height` px. `rows` are the rows to
/// draw (at most [`MAX_CHART_ROWS`] are used).
pub fn svg(chart: &Chart, rows: &[Map<String, Value>]) -> String {
    let rows = &rows[..rows.len().min(MAX_CHART_ROWS)];
    let (w, h) = (chart.width, chart.height);
    let size = chart.font_size;
    let colors = chart.scheme.colors();
    let mut svg = Svg {
        out: String::with_capacity(4096 + rows.len() * 64),
        family: fonts::family_for(&chart.font_family),
        size,
    };
    let _ = write!(
        svg.out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">"##
    );
    let categories: Vec<String> = rows.iter().map(|r| label(r.get(&chart.x_column))).collect();
    if chart.y_columns.is_empty() || rows.is_empty() {
        svg.text(w / 2.0, h / 2.0, "middle", LABEL, "No data");
        svg.out.push_str("</svg>");
        return svg.out;
    }
    if chart.kind == ChartKind::Pie {
        pie(&mut svg, chart, rows, &categories, &colors);
    } else {
        cartesian(&mut svg, chart, rows, &categories, &colors);
    }
    svg.out.push_str("</svg>");
    svg.out
}

fn pie(svg: &mut Svg, chart: &Chart, rows: &[Map<String, Value>], cats: &[String], colors: &[Rgb]) {
    let (w, h, size) = (chart.width, chart.height, chart.font_size);
    let column = &chart.y_columns[0];
    let values: Vec<f64> = rows
        .iter()
        .map(|r| number(r.get(column)).max(0.0))
        .collect();
    let total: f64 = values.iter().sum();
    let legend_h = if chart.show_legend {
        legend_height(cats, w - 2.0 * size, size)
    } else {
        0.0
    };
    let radius = w.min(h) / 4.0;
    let (cx, cy) = (w / 2.0, (h - legend_h) / 2.0);
    if total <= 0.0 {
        svg.text(cx, cy, "middle", LABEL, "No data");
        return;
    }
    let mut angle = -std::f64::consts::FRAC_PI_2;
    let label_each = values.iter().filter(|v| **v > 0.0).count() <= 12;
    for (i, v) in values.iter().enumerate() {
        if *v <= 0.0 {
            continue;
        }
        let sweep = v / total * std::f64::consts::TAU;
        let color = colors[i % colors.len()].hex();
        if sweep >= std::f64::consts::TAU - 1e-9 {
            let _ = write!(
                svg.out,
                r##"<circle cx="{cx:.1}" cy="{cy:.1}" r="{radius:.1}" fill="{color}" stroke="#ffffff" stroke-width="1"/>"##
            );
        } else {
            let (x1, y1) = (cx + radius * angle.cos(), cy + radius * angle.sin());
            let end = angle + sweep;
            let (x2, y2) = (cx + radius * end.cos(), cy + radius * end.sin());
            let large = u8::from(sweep > std::f64::consts::PI);
            let _ = write!(
                svg.out,
                r##"<path d="M{cx:.2},{cy:.2} L{x1:.2},{y1:.2} A{radius:.2},{radius:.2} 0 {large} 1 {x2:.2},{y2:.2} Z" fill="{color}" stroke="#ffffff" stroke-width="1"/>"##
            );
        }
        if label_each {
            let mid = angle + sweep / 2.0;
            let r = radius + size * 1.2;
            let (lx, ly) = (cx + r * mid.cos(), cy + r * mid.sin() + size * 0.35);
            let anchor = if mid.cos() >= 0.1 {
                "start"
            } else if mid.cos() <= -0.1 {
                "end"
            } else {
                "middle"
            };
            let pct = v / total * 100.0;
            let text = format!("{} {}%", fit(&cats[i], w * 0.3, size), compact(pct));
            svg.text(lx, ly, anchor, LABEL, &text);
        }
        angle += sweep;
    }
    if chart.show_legend {
        draw_legend(svg, cats, colors, h - legend_h, w);
    }
}

fn cartesian(
    svg: &mut Svg,
    chart: &Chart,
    rows: &[Map<String, Value>],
    cats: &[String],
    colors: &[Rgb],
) {
    let (w, h, size) = (chart.width, chart.height, chart.font_size);
    let data = series(chart, rows);
    let names: Vec<String> = data.iter().map(|(n, _)| n.clone()).collect();
    let (mut lo, mut hi) = (0.0f64, 0.0f64);
    for (_, vs) in &data {
        for v in vs {
            lo = lo.min(*v);
            hi = hi.max(*v);
        }
    }
    let ticks = ticks(lo, hi);
    let (y_min, y_max) = (
        ticks.first().copied().unwrap_or(0.0),
        ticks.last().copied().unwrap_or(1.0),
    );
    let tick_w = ticks
        .iter()
        .map(|t| text_width(&compact(*t), size))
        .fold(0.0, f64::max);
    let legend_h = if chart.show_legend {
        legend_height(&names, w - 2.0 * size, size)
    } else {
        0.0
    };
    let left = 10.0 + tick_w + size * 0.6;
    let right = w - 16.0;
    let top = 12.0;
    let bottom = h - legend_h - size * 2.2;
    let (pw, ph) = ((right - left).max(10.0), (bottom - top).max(10.0));
    let span = (y_max - y_min).max(1e-12);
    let y_of = |v: f64| bottom - (v - y_min) / span * ph;
    let n = rows.len();
    let band = pw / n as f64;
    let x_of = |i: usize| {
        if chart.kind == ChartKind::Bar {
            left + band * (i as f64 + 0.5)
        } else if n == 1 {
            left + pw / 2.0
        } else {
            left + pw * i as f64 / (n - 1) as f64
        }
    };
    // Grid and y axis.
    for t in &ticks {
        let y = y_of(*t);
        if chart.show_grid {
            svg.line(left, y, right, y, GRID, true);
        }
        svg.text(
            left - size * 0.5,
            y + size * 0.35,
            "end",
            LABEL,
            &compact(*t),
        );
    }
    // Category labels, as many as fit side by side.
    let widest = cats
        .iter()
        .map(|c| text_width(c, size))
        .fold(size, f64::max);
    let slot = if chart.kind == ChartKind::Bar || n == 1 {
        band
    } else {
        pw / (n - 1) as f64
    };
    let every = ((widest.min(slot * 4.0) + size) / slot).ceil().max(1.0) as usize;
    for (i, c) in cats.iter().enumerate() {
        let x = x_of(i);
        if chart.show_grid && chart.kind != ChartKind::Bar && i % every == 0 {
            svg.line(x, top, x, bottom, GRID, true);
        }
        if i % every == 0 {
            svg.text(
                x,
                bottom + size * 1.3,
                "middle",
                LABEL,
                &fit(c, slot * every as f64 - 2.0, size),
            );
        }
    }
    svg.line(left, bottom, right, bottom, AXIS, false);
    svg.line(left, top, left, bottom, AXIS, false);
    let zero = y_of(0.0f64.clamp(y_min, y_max));
    match chart.kind {
        ChartKind::Bar => {
            let k = data.len() as f64;
            let group = band * 0.8;
            let bar = (group / k).max(0.5);
            for (s, (_, vs)) in data.iter().enumerate() {
                for (i, v) in vs.iter().enumerate() {
                    let x = left + band * i as f64 + (band - group) / 2.0 + bar * s as f64;
                    let y = y_of(*v);
                    let (y0, y1) = if y < zero { (y, zero) } else { (zero, y) };
                    svg.rect(
                        x + bar * 0.05,
                        y0,
                        bar * 0.9,
                        y1 - y0,
                        colors[s % colors.len()],
                    );
                }
            }
        }
        ChartKind::Line | ChartKind::Area => {
            for (s, (_, vs)) in data.iter().enumerate() {
                let color = colors[s % colors.len()].hex();
                let mut pts = String::new();
                for (i, v) in vs.iter().enumerate() {
                    let _ = write!(pts, "{:.2},{:.2} ", x_of(i), y_of(*v));
                }
                if chart.kind == ChartKind::Area {
                    let _ = write!(
                        svg.out,
                        r##"<polygon points="{:.2},{zero:.2} {pts}{:.2},{zero:.2}" fill="{color}" fill-opacity="0.3" stroke="none"/>"##,
                        x_of(0),
                        x_of(n - 1)
                    );
                }
                let _ = write!(
                    svg.out,
                    r##"<polyline points="{}" fill="none" stroke="{color}" stroke-width="2" stroke-linejoin="round"/>"##,
                    pts.trim_end()
                );
                if n <= 60 {
                    for (i, v) in vs.iter().enumerate() {
                        let _ = write!(
                            svg.out,
                            r##"<circle cx="{:.2}" cy="{:.2}" r="3" fill="#ffffff" stroke="{color}" stroke-width="1.5"/>"##,
                            x_of(i),
                            y_of(*v)
                        );
                    }
                }
            }
        }
        ChartKind::Pie => {}
    }
    if chart.show_legend {
        draw_legend(svg, &names, colors, h - legend_h, w);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pdf::model::ColorScheme;
    use serde_json::json;

    fn rows(v: Value) -> Vec<Map<String, Value>> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_object().unwrap().clone())
            .collect()
    }

    fn chart(kind: ChartKind) -> Chart {
        Chart {
            kind,
            x_column: "Month".into(),
            y_columns: vec!["RWA".into(), "Bps".into()],
            ..Chart::default()
        }
    }

    #[test]
    fn values_that_are_not_numbers_count_as_zero() {
        assert_eq!(number(Some(&json!(12.5))), 12.5);
        assert_eq!(number(Some(&json!(" 7 "))), 7.0);
        assert_eq!(number(Some(&json!("n/a"))), 0.0);
        assert_eq!(number(Some(&json!(null))), 0.0);
        assert_eq!(number(None), 0.0);
        assert_eq!(number(Some(&json!({"x": 1}))), 0.0);
    }

    #[test]
    fn compact_numbers() {
        assert_eq!(compact(0.0), "0");
        assert_eq!(compact(1500.0), "1.5k");
        assert_eq!(compact(2_000_000.0), "2M");
        assert_eq!(compact(-3_250_000_000.0), "-3.25B");
        assert_eq!(compact(12.345), "12.35");
    }

    #[test]
    fn ticks_cover_the_values_with_round_steps() {
        let t = ticks(0.0, 87.0);
        assert_eq!(t.first(), Some(&0.0));
        assert!(*t.last().unwrap() >= 87.0);
        assert!(t.len() <= 8, "{t:?}");
        let t = ticks(-40.0, 60.0);
        assert!(t[0] <= -40.0 && t.contains(&0.0));
        let t = ticks(0.0, 0.0);
        assert_eq!(t.first(), Some(&0.0));
        assert!(*t.last().unwrap() >= 0.999, "{t:?}");
    }

    #[test]
    fn bar_chart_draws_one_bar_per_value_in_the_scheme_colours_with_legend_and_grid() {
        let r = rows(json!([
            {"Month": "Jan", "RWA": 10, "Bps": "5"},
            {"Month": "Feb", "RWA": 20, "Bps": "x"},
            {"Month": "Mar", "RWA": 30, "Bps": 2}
        ]));
        let s = svg(&chart(ChartKind::Bar), &r);
        assert!(s.starts_with("<svg") && s.ends_with("</svg>"));
        assert_eq!(
            s.matches("fill=\"#3b82f6\"").count(),
            3 + 1,
            "3 bars + legend"
        );
        // The non-numeric value draws a bar of height 0.
        assert_eq!(s.matches("fill=\"#ef4444\"").count(), 3 + 1);
        assert!(s.contains(">Jan<") && s.contains(">Mar<"));
        assert!(s.contains(">RWA<") && s.contains(">Bps<"), "legend");
        assert!(s.contains("stroke-dasharray"), "grid");
        assert!(s.contains(r##"width="600" height="400""##));
        assert!(s.contains("font-family=\"Liberation Sans\""));

        let mut plain = chart(ChartKind::Bar);
        plain.show_grid = false;
        plain.show_legend = false;
        plain.scheme = ColorScheme::Banking;
        let s = svg(&plain, &r);
        assert!(!s.contains("stroke-dasharray"));
        assert!(!s.contains(">RWA<"));
        assert_eq!(s.matches("fill=\"#1e3a8a\"").count(), 3);
    }

    #[test]
    fn line_area_and_pie() {
        let r = rows(json!([
            {"Month": "Jan", "RWA": 10, "Bps": 1},
            {"Month": "Feb", "RWA": 30, "Bps": 3}
        ]));
        let s = svg(&chart(ChartKind::Line), &r);
        assert_eq!(s.matches("<polyline").count(), 2);
        let s = svg(&chart(ChartKind::Area), &r);
        assert_eq!(s.matches("<polygon").count(), 2);
        let mut p = chart(ChartKind::Pie);
        p.width = 600.0;
        p.height = 400.0;
        let s = svg(&p, &r);
        // Two slices of the first y column, radius a quarter of min(600, 400).
        assert_eq!(s.matches("<path").count(), 2);
        assert!(s.contains("A100.00,100.00"), "{s}");
        assert!(s.contains(">Jan 25%<") && s.contains(">Feb 75%<"), "{s}");
    }

    #[test]
    fn hostile_labels_are_escaped_and_empty_data_says_so() {
        let r = rows(json!([{"Month": "<script>&\"x\u{1}", "RWA": 1, "Bps": 1}]));
        let s = svg(&chart(ChartKind::Bar), &r);
        assert!(!s.contains("<script>"));
        assert!(s.contains("&lt;script&gt;&amp;&quot;x<"));
        let s = svg(&chart(ChartKind::Bar), &[]);
        assert!(s.contains(">No data<"));
    }
}
