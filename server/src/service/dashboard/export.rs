//! Export of the dashboards' figures, made by the server from the same reads the screens use:
//! XLSX (one sheet per table), CSV (one file, a section column naming the table) or PDF ('Capital
//! Optimization Dashboard', A4 portrait: one section per table, with its chart, laid out by the
//! report export). Text cells are written as text in XLSX and neutralised against formulas in
//! CSV.

use chrono::NaiveDate;
use rust_xlsxwriter::{Format, Workbook, XlsxError};

use super::client::ClientDashboard;
use super::{
    ClientPerformance, DashboardMetrics, Evolution, LeverSummary, OverviewBreakdown, Period,
};
use crate::error::{ApiError, ApiResult};
use crate::service::Scope;
use crate::state::AppState;

/// A file to download.
#[derive(Debug, Clone)]
pub struct ExportFile {
    /// Its name.
    pub name: String,
    /// Its media type.
    pub content_type: &'static str,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// The export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// A workbook.
    Xlsx,
    /// Comma-separated values.
    Csv,
    /// A PDF document.
    Pdf,
}

impl ExportFormat {
    /// `xlsx`, `csv` or `pdf` (any case); anything else is refused.
    pub fn parse(s: Option<&str>) -> ApiResult<ExportFormat> {
        match s.map(|s| s.trim().to_ascii_lowercase()).as_deref() {
            None | Some("") | Some("xlsx") => Ok(ExportFormat::Xlsx),
            Some("csv") => Ok(ExportFormat::Csv),
            Some("pdf") => Ok(ExportFormat::Pdf),
            _ => Err(ApiError::validation("Format must be xlsx, csv or pdf")),
        }
    }
}

/// The title of the dashboards' PDF.
pub const PDF_TITLE: &str = "Capital Optimization Dashboard";

/// One cell of a table.
#[derive(Debug, Clone)]
enum Cell {
    Text(String),
    Number(f64),
    Empty,
}

impl From<&str> for Cell {
    fn from(s: &str) -> Cell {
        Cell::Text(s.into())
    }
}
impl From<String> for Cell {
    fn from(s: String) -> Cell {
        Cell::Text(s)
    }
}
impl From<f64> for Cell {
    fn from(x: f64) -> Cell {
        if x.is_finite() {
            Cell::Number(x)
        } else {
            Cell::Empty
        }
    }
}
impl From<Option<f64>> for Cell {
    fn from(x: Option<f64>) -> Cell {
        x.map(Cell::from).unwrap_or(Cell::Empty)
    }
}

/// A titled table.
struct Table {
    title: &'static str,
    header: Vec<&'static str>,
    rows: Vec<Vec<Cell>>,
}

/// A chart drawn above a table in the PDF, from the table's own columns.
struct TableChart {
    kind: crate::pdf::model::ChartKind,
    x: &'static str,
    y: Vec<&'static str>,
}

/// A number as the screens write it (Spanish style, two decimals): `1.234.567,89`.
fn spanish(x: f64) -> String {
    let s = format!("{:.2}", x.abs());
    let (int, frac) = s.split_once('.').unwrap_or((&s, "00"));
    let mut grouped = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            grouped.push('.');
        }
        grouped.push(c);
    }
    let sign = if x < 0.0 && s != "0.00" { "-" } else { "" };
    format!("{sign}{grouped},{frac}")
}

/// The tables (and their charts) as a report to lay out: one section per table.
fn pdf_report(
    subtitle: String,
    tables: &[Table],
    charts: &[(usize, TableChart)],
) -> crate::pdf::Report {
    use crate::pdf::model::{Block, Branding, Cell as PdfCell, Chart, Section, Table as PdfTable};
    use serde_json::{Map, Value};
    let sections = tables
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mut blocks = Vec::new();
            for (_, c) in charts.iter().filter(|(at, _)| *at == i) {
                let col = |name: &str| t.header.iter().position(|h| *h == name);
                let rows: Vec<Map<String, Value>> = t
                    .rows
                    .iter()
                    .map(|r| {
                        let mut m = Map::new();
                        for name in std::iter::once(&c.x).chain(&c.y) {
                            let v = match col(name).and_then(|k| r.get(k)) {
                                Some(Cell::Text(s)) => Value::from(s.as_str()),
                                Some(Cell::Number(x)) => Value::from(*x),
                                _ => Value::Null,
                            };
                            m.insert((*name).to_owned(), v);
                        }
                        m
                    })
                    .collect();
                blocks.push(Block::Chart(Box::new(Chart {
                    kind: c.kind,
                    x_column: c.x.to_owned(),
                    y_columns: c.y.iter().map(|y| (*y).to_owned()).collect(),
                    rows,
                    width: 640.0,
                    height: 300.0,
                    font_size: 10.0,
                    ..Chart::default()
                })));
            }
            let mut rows = vec![t.header.iter().map(|h| PdfCell::text(*h, true)).collect()];
            rows.extend(t.rows.iter().map(|r| {
                r.iter()
                    .map(|c| {
                        PdfCell::text(
                            match c {
                                Cell::Text(s) => s.clone(),
                                Cell::Number(x) => spanish(*x),
                                Cell::Empty => "—".into(),
                            },
                            false,
                        )
                    })
                    .collect()
            }));
            blocks.push(Block::Table(PdfTable {
                font_size: Some(9.0),
                width_pct: None,
                rows,
            }));
            Section {
                title: t.title.to_owned(),
                blocks,
                ..Section::default()
            }
        })
        .collect();
    crate::pdf::Report {
        title: PDF_TITLE.to_owned(),
        branding: Branding {
            subtitle,
            font_family: "Arial".into(),
            heading_font_family: "Arial".into(),
            ..Branding::default()
        },
        sections,
    }
}

fn xlsx(tables: &[Table]) -> Result<Vec<u8>, XlsxError> {
    let mut wb = Workbook::new();
    let bold = Format::new().set_bold();
    let money = Format::new().set_num_format("#,##0.00");
    for t in tables {
        let ws = wb.add_worksheet();
        ws.set_name(t.title)?;
        for (c, h) in t.header.iter().enumerate() {
            ws.write_string_with_format(0, c as u16, *h, &bold)?;
            ws.set_column_width(c as u16, 22)?;
        }
        for (r, row) in t.rows.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                let (r, c) = (r as u32 + 1, c as u16);
                match cell {
                    Cell::Text(s) => {
                        ws.write_string(r, c, s)?;
                    }
                    Cell::Number(x) => {
                        ws.write_number_with_format(r, c, *x, &money)?;
                    }
                    Cell::Empty => {}
                }
            }
        }
    }
    wb.save_to_buffer()
}

fn csv(tables: &[Table]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut line = |cells: &[String]| {
        for (i, cell) in cells.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            analysis::output::write_csv_cell(&mut out, cell.as_bytes(), b',', true);
        }
        out.push(b'\n');
    };
    for t in tables {
        let mut head = vec!["section".to_string()];
        head.extend(t.header.iter().map(|h| h.to_string()));
        line(&head);
        for row in &t.rows {
            let mut cells = vec![t.title.to_string()];
            cells.extend(row.iter().map(|c| match c {
                Cell::Text(s) => s.clone(),
                Cell::Number(x) => format!("{}", (x * 100.0).round() / 100.0),
                Cell::Empty => String::new(),
            }));
            line(&cells);
        }
    }
    out
}

async fn file(
    base: String,
    format: ExportFormat,
    tables: &[Table],
    pdf: impl FnOnce() -> crate::pdf::Report,
) -> ApiResult<ExportFile> {
    Ok(match format {
        ExportFormat::Pdf => ExportFile {
            name: format!("{base}.pdf"),
            content_type: crate::service::pdf::PDF,
            bytes: crate::service::pdf::render(pdf(), &crate::pdf::NoAssets).await?,
        },
        ExportFormat::Xlsx => ExportFile {
            name: format!("{base}.xlsx"),
            content_type: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            bytes: xlsx(tables).map_err(|e| ApiError::Internal(e.into()))?,
        },
        ExportFormat::Csv => ExportFile {
            name: format!("{base}.csv"),
            content_type: "text/csv; charset=utf-8",
            bytes: csv(tables),
        },
    })
}

fn period_name(p: Period) -> &'static str {
    match p {
        Period::All => "All Time",
        Period::Year => "This Year",
        Period::Quarter => "This Quarter",
        Period::Month => "This Month",
    }
}

fn lever_rows(levers: &[LeverSummary]) -> Vec<Vec<Cell>> {
    levers
        .iter()
        .map(|l| {
            vec![
                l.name.as_str().into(),
                l.category.as_str().into(),
                l.value.into(),
                l.previous_value.into(),
                l.change_pct.into(),
                match l.impact {
                    super::Impact::High => "high",
                    super::Impact::Medium => "medium",
                    super::Impact::Low => "low",
                }
                .into(),
            ]
        })
        .collect()
}

const LEVER_HEADER: [&str; 6] = [
    "Lever",
    "Category",
    "CET1 savings (RWAs)",
    "Previous month (RWAs)",
    "Change (%)",
    "Impact",
];

/// The admin dashboard's figures for a period: the metric cards, the monthly evolution of the
/// current year, the overview's categories and levers (last 30 days), Lever Performance and
/// Client Performance.
pub async fn admin_export(
    state: &AppState,
    period: Period,
    format: ExportFormat,
    today: NaiveDate,
) -> ApiResult<ExportFile> {
    let m: DashboardMetrics = super::metrics_on(state, period, today).await?;
    let ev: Evolution =
        super::evolution_on(state, super::EvolutionView::Monthly, None, today).await?;
    let overview: OverviewBreakdown =
        super::breakdown_on(state, super::OverviewWindow::Last30Days, today).await?;
    let levers = super::lever_performance_on(state, today).await?;
    let clients: Vec<ClientPerformance> = super::client_performance(state, None).await?;
    let metric = |name: &str, x: &super::Metric| -> Vec<Cell> {
        vec![
            name.into(),
            period_name(period).into(),
            x.value.into(),
            x.previous.into(),
            x.change_pct.into(),
        ]
    };
    let tables = vec![
        Table {
            title: "Metrics",
            header: vec!["Metric", "Period", "Value", "Previous period", "Change (%)"],
            rows: vec![
                metric("Total Capital Optimized (EUR)", &m.capital),
                metric("Total bps Optimized", &m.bps),
                metric("Levers Used", &m.levers),
                metric("Total Clients", &m.clients),
            ],
        },
        Table {
            title: "Evolution",
            header: vec!["Month", "Cumulative (EUR)", "Change (EUR)"],
            rows: ev
                .points
                .iter()
                .map(|p| {
                    vec![
                        format!("{} {}", p.label, ev.year).into(),
                        p.cumulative.into(),
                        p.change.into(),
                    ]
                })
                .collect(),
        },
        Table {
            title: "Categories",
            header: vec!["Category", "Value (EUR, last 30 days)", "Share (%)"],
            rows: overview
                .categories
                .iter()
                .map(|c| {
                    vec![
                        c.name.as_str().into(),
                        c.total_value.into(),
                        c.percentage.into(),
                    ]
                })
                .collect(),
        },
        Table {
            title: "Levers",
            header: LEVER_HEADER.to_vec(),
            rows: lever_rows(&levers),
        },
        Table {
            title: "Clients",
            header: vec![
                "Client",
                "CET1 Capital",
                "CET1 Capital Ratio (%)",
                "Capital Optimized (RWAs)",
                "Capital Optimized (bps)",
                "Levers Used",
            ],
            rows: clients
                .iter()
                .map(|c| {
                    vec![
                        c.client.as_str().into(),
                        c.cet1_capital.into(),
                        c.cet1_ratio.map(|r| r * 100.0).into(),
                        c.optimized_value.into(),
                        c.bps_value.into(),
                        (c.levers as f64).into(),
                    ]
                })
                .collect(),
        },
    ];
    let slug = match period {
        Period::All => "all-time",
        Period::Year => "this-year",
        Period::Quarter => "this-quarter",
        Period::Month => "this-month",
    };
    use crate::pdf::model::ChartKind;
    let charts = [
        (
            1,
            TableChart {
                kind: ChartKind::Area,
                x: "Month",
                y: vec!["Cumulative (EUR)"],
            },
        ),
        (
            2,
            TableChart {
                kind: ChartKind::Pie,
                x: "Category",
                y: vec!["Value (EUR, last 30 days)"],
            },
        ),
    ];
    let subtitle = format!("All clients · {} · {today}", period_name(period));
    file(
        format!("admin_dashboard_{slug}_{today}"),
        format,
        &tables,
        || pdf_report(subtitle, &tables, &charts),
    )
    .await
}

/// A client name for a file name: letters and digits, the rest as underscores.
fn slug(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { '_' })
        .take(60)
        .collect();
    if s.is_empty() { "client".into() } else { s }
}

/// The client dashboard's figures: the totals, the monthly history and the levers
/// (`capital_optimization_{client}_{date}`).
pub async fn client_export(
    state: &AppState,
    scope: &Scope,
    format: ExportFormat,
    today: NaiveDate,
) -> ApiResult<ExportFile> {
    let d: ClientDashboard = super::client::dashboard_on(state, scope, today).await?;
    let tables = vec![
        Table {
            title: "Summary",
            header: vec![
                "Client",
                "RWA savings (EUR)",
                "CET1 savings (bps)",
                "Previous month (EUR)",
                "Change (%)",
                "Last updated",
            ],
            rows: vec![vec![
                d.client_name.as_str().into(),
                d.total_rwas.into(),
                d.total_bps.into(),
                d.previous_month_rwas.into(),
                d.change_pct.into(),
                d.last_updated.as_str().into(),
            ]],
        },
        Table {
            title: "Monthly evolution",
            header: vec![
                "Month",
                "RWA savings (EUR)",
                "CET1 savings (bps)",
                "Growth (%)",
            ],
            rows: d
                .history
                .iter()
                .map(|h| {
                    vec![
                        h.label.as_str().into(),
                        h.total_rwas.into(),
                        h.total_bps.into(),
                        h.growth_pct.into(),
                    ]
                })
                .collect(),
        },
        Table {
            title: "Levers",
            header: LEVER_HEADER.to_vec(),
            rows: lever_rows(&d.levers),
        },
    ];
    let charts = [(
        1,
        TableChart {
            kind: crate::pdf::model::ChartKind::Bar,
            x: "Month",
            y: vec!["RWA savings (EUR)"],
        },
    )];
    let subtitle = format!("{} · {today}", d.client_name);
    file(
        format!("capital_optimization_{}_{today}", slug(&d.client_name)),
        format,
        &tables,
        || pdf_report(subtitle, &tables, &charts),
    )
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_names_each_table_and_neutralises_formulas() {
        let t = [Table {
            title: "Clients",
            header: vec!["Client", "Value"],
            rows: vec![
                vec!["=HYPERLINK(\"x\")".into(), 1234.567.into()],
                vec!["B, S.A.".into(), Cell::Empty],
            ],
        }];
        let text = String::from_utf8(csv(&t)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "section,Client,Value");
        assert!(lines[1].starts_with("Clients,"));
        assert!(!lines[1].contains(",=HYPERLINK"), "{}", lines[1]);
        assert!(lines[1].ends_with(",1234.57"));
        assert_eq!(lines[2], "Clients,\"B, S.A.\",");
    }

    #[test]
    fn formats_are_xlsx_csv_or_pdf() {
        assert_eq!(ExportFormat::parse(None).unwrap(), ExportFormat::Xlsx);
        assert_eq!(ExportFormat::parse(Some("CSV")).unwrap(), ExportFormat::Csv);
        assert_eq!(ExportFormat::parse(Some("pdf")).unwrap(), ExportFormat::Pdf);
        assert!(ExportFormat::parse(Some("docx")).is_err());
    }

    #[test]
    fn numbers_are_written_as_on_the_screens() {
        assert_eq!(spanish(1234567.891), "1.234.567,89");
        assert_eq!(spanish(-12.5), "-12,50");
        assert_eq!(spanish(0.0), "0,00");
        assert_eq!(spanish(999.999), "1.000,00");
    }

    #[test]
    fn the_pdf_has_a_section_per_table_and_the_charts() {
        let t = [
            Table {
                title: "Summary",
                header: vec!["Client", "RWA savings (EUR)"],
                rows: vec![vec!["Banco <A>".into(), 1500.0.into()]],
            },
            Table {
                title: "Monthly evolution",
                header: vec!["Month", "RWA savings (EUR)"],
                rows: vec![
                    vec!["Jan 2026".into(), 10.0.into()],
                    vec!["Feb 2026".into(), Cell::Empty],
                ],
            },
        ];
        let charts = [(
            1,
            TableChart {
                kind: crate::pdf::model::ChartKind::Bar,
                x: "Month",
                y: vec!["RWA savings (EUR)"],
            },
        )];
        let r = pdf_report("Banco <A> · 2026-03-01".into(), &t, &charts);
        assert_eq!(r.title, PDF_TITLE);
        assert_eq!(r.sections.len(), 2);
        use crate::pdf::model::Block;
        assert!(matches!(r.sections[0].blocks[..], [Block::Table(_)]));
        let [Block::Chart(c), Block::Table(tb)] = &r.sections[1].blocks[..] else {
            panic!("{:?}", r.sections[1].blocks)
        };
        assert_eq!(c.rows.len(), 2);
        assert_eq!(c.rows[0]["RWA savings (EUR)"], serde_json::json!(10.0));
        assert_eq!(tb.rows.len(), 3, "header and two rows");
        let pdf = crate::pdf::render(&r, &crate::pdf::Resolved::default()).unwrap();
        let text = crate::pdf::tests::pdf_text(&pdf).join(" ");
        assert!(
            text.contains(PDF_TITLE) && text.contains("Banco <A>") && text.contains("1.500,00"),
            "{text}"
        );
    }

    #[test]
    fn a_workbook_has_one_sheet_per_table() {
        let t = [
            Table {
                title: "A",
                header: vec!["x"],
                rows: vec![vec![1.0.into()]],
            },
            Table {
                title: "B",
                header: vec!["y"],
                rows: vec![],
            },
        ];
        let bytes = xlsx(&t).unwrap();
        assert_eq!(&bytes[..2], b"PK");
    }
}
