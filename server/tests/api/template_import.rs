//! 'Create template from PDF' over HTTP: the steps stream with their states, the template holds
//! the PDF's sections with their pages, tables and charts and its first page's colour, and a
//! report made from it gets them as the editor's nodes; a file that is not a PDF, a PDF over
//! the section limit and a caller who is not an administrator create nothing.

use reqwest::StatusCode;
use serde_json::{Value, json};
use server::docs::SqlDocStore;

use crate::helpers::*;

const PATH: &str = "/api/admin/report-templates/import";

/// A three-page PDF with an outline: a blue banner on page 1, a table and a figure in the
/// second section.
fn pdf(sections: usize) -> Vec<u8> {
    use pdf_oxide::writer::{DocumentBuilder, OutlineItem};
    let mut b = DocumentBuilder::new();
    let body = "Institutions shall calculate their risk weighted exposure amounts for credit \
        risk by applying the standardised approach to every exposure class, with the risk \
        weights and conditions set out in this Chapter.";
    b.a4_page()
        .filled_rect(0.0, 780.0, 595.0, 62.0, 0.0, 0.3, 0.6)
        .font("Helvetica", 11.0)
        .at(72.0, 740.0)
        .text("Executive Summary")
        .at(72.0, 720.0)
        .paragraph(body)
        .done();
    let mut page = b
        .a4_page()
        .font("Helvetica", 11.0)
        .at(72.0, 770.0)
        .text("Capital Requirements")
        .at(72.0, 750.0)
        .paragraph(body)
        .at(72.0, 660.0)
        .text("Table 1: Risk weights");
    for (r, row) in [
        ["Exposure class", "Risk weight", "RWA"],
        ["Sovereigns", "0%", "0"],
        ["Institutions", "20%", "1,250"],
        ["Corporates", "100%", "8,400"],
    ]
    .iter()
    .enumerate()
    {
        for (c, cell) in row.iter().enumerate() {
            page = page
                .at([72.0, 260.0, 400.0][c], 640.0 - 16.0 * r as f32)
                .text(cell);
        }
    }
    page.at(72.0, 560.0)
        .text("Figure 2: CET1 ratio")
        .at(72.0, 540.0)
        .text("2022 13.1")
        .at(72.0, 524.0)
        .text("2023 13.8")
        .at(72.0, 508.0)
        .text("2024 14.6")
        .done();
    for i in 2..sections.max(3) {
        b.a4_page()
            .font("Helvetica", 11.0)
            .at(72.0, 770.0)
            .text(&format!("Part {i}"))
            .done();
    }
    b.bookmark_tree(|o| {
        o.add_item(OutlineItem::new("Executive Summary", 0));
        o.add_item(OutlineItem::new("Capital Requirements", 1));
        for i in 2..sections {
            o.add_item(OutlineItem::new(format!("Part {i}"), i));
        }
    })
    .build()
    .unwrap()
}

async fn import(
    s: &Session,
    name: &str,
    bytes: Vec<u8>,
    fields: &[(&str, &str)],
) -> (StatusCode, String) {
    let csrf = s.cookie("capopt_csrf").unwrap_or_default();
    let mut form = reqwest::multipart::Form::new();
    for (k, v) in fields {
        form = form.text(k.to_string(), v.to_string());
    }
    form = form.part(
        "file",
        reqwest::multipart::Part::bytes(bytes)
            .file_name(name.to_owned())
            .mime_str("application/pdf")
            .unwrap(),
    );
    let r = s
        .http
        .post(format!("{}{PATH}", s.base))
        .header("x-csrf-token", csrf)
        .multipart(form)
        .send()
        .await
        .expect("upload");
    let st = r.status();
    (st, r.text().await.unwrap())
}

/// The events of a Server-Sent Events body: (event name, data).
fn events(body: &str) -> Vec<(String, Value)> {
    body.split("\n\n")
        .filter_map(|frame| {
            let mut name = None;
            let mut data = String::new();
            for line in frame.lines() {
                if let Some(n) = line.strip_prefix("event:") {
                    name = Some(n.trim().to_owned());
                } else if let Some(d) = line.strip_prefix("data:") {
                    data.push_str(d.trim_start());
                }
            }
            Some((name?, serde_json::from_str(&data).ok()?))
        })
        .collect()
}

#[tokio::test]
async fn a_pdf_becomes_a_template_with_its_sections_tables_charts_and_colours() {
    let app = TestApp::spawn().await;
    let admin = app.login(ADMIN).await;
    let (st, sse) = import(
        &admin,
        "pillar_3-2025.pdf",
        pdf(3),
        &[("templateType", "basel_iii")],
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{sse}");
    let events = events(&sse);
    // Every step goes through to completed, in order; the last event is done.
    let completed: Vec<&str> = events
        .iter()
        .filter(|(n, v)| n == "step" && v["state"] == "completed")
        .map(|(_, v)| v["step"].as_str().unwrap())
        .collect();
    assert_eq!(
        completed,
        ["upload", "parse", "analyze", "extract", "generate"],
        "{sse}"
    );
    let parse: Vec<(u64, u64)> = events
        .iter()
        .filter(|(n, v)| n == "step" && v["step"] == "parse")
        .map(|(_, v)| (v["done"].as_u64().unwrap(), v["total"].as_u64().unwrap()))
        .collect();
    assert_eq!(parse.first(), Some(&(0, 3)));
    assert_eq!(parse.last(), Some(&(3, 3)));
    let (last, done) = events.last().unwrap();
    assert_eq!(last, "done", "{sse}");
    assert_eq!(
        done["summary"],
        json!({"method": "outline", "pages": 3, "sections": 3, "tables": 1, "charts": 1,
            "palette": ["#004d99"]})
    );
    let t = &done["template"];
    assert_eq!(t["name"], "pillar 3 2025");
    assert_eq!(t["templateType"], "basel_iii");
    assert_eq!(t["branding"]["primaryColor"], "#004d99");
    let sections = t["sections"].as_array().unwrap();
    let heads: Vec<(&str, &str, u64, u64)> = sections
        .iter()
        .map(|s| {
            (
                s["title"].as_str().unwrap(),
                s["kind"].as_str().unwrap(),
                s["pageStart"].as_u64().unwrap(),
                s["pageEnd"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        heads,
        [
            ("Executive Summary", "summary", 1, 1),
            ("Capital Requirements", "capital", 2, 2),
            ("Part 2", "content", 3, 3),
        ]
    );
    assert_eq!(
        sections[1]["blocks"],
        json!([
            {"kind": "table", "caption": "Table 1: Risk weights",
             "columns": ["Exposure class", "Risk weight", "RWA"],
             "rows": [["Sovereigns", "0%", "0"], ["Institutions", "20%", "1,250"], ["Corporates", "100%", "8,400"]]},
            {"kind": "chart", "title": "CET1 ratio", "labels": ["2022", "2023", "2024"],
             "values": [13.1, 13.8, 14.6]},
        ])
    );
    // Stored as streamed.
    let id = t["id"].as_str().unwrap();
    let (st, stored) = admin
        .json(&format!("/api/admin/report-templates/{id}"))
        .await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(&stored, t);

    // A report from it holds the table and the chart as the editor's nodes.
    let user = app.login(USER_A).await;
    let (st, report) = body(
        user.post("/api/reports", json!({"name": "FY", "template_id": id}))
            .await,
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{report}");
    let stored = SqlDocStore::new(&app.state.db)
        .load(report["id"].as_str().unwrap())
        .await
        .unwrap()
        .unwrap();
    let sections = collab::report::read_sections(&stored).unwrap();
    use yrs::{GetString, Transact};
    let doc = collab::doc_from_stored(&stored).unwrap();
    let capital = doc
        .get_or_insert_xml_fragment(collab::report::fragment_name(&sections[1].id))
        .get_string(&doc.transact());
    assert!(
        capital.contains("<paragraph>Table 1: Risk weights</paragraph><table"),
        "{capital}"
    );
    assert!(
        capital.contains("<tableHeader><paragraph>Risk weight</paragraph></tableHeader>"),
        "{capital}"
    );
    assert!(
        capital.contains("<tableCell><paragraph>1,250</paragraph></tableCell>"),
        "{capital}"
    );
    assert!(capital.contains("<chart "), "{capital}");
    assert!(capital.contains(r#"title="CET1 ratio""#), "{capital}");

    // Imported into an existing report: the current state is kept as an automatic version,
    // then the sections follow the report's last.
    let (st, plain) = body(user.post("/api/reports", json!({"name": "Plain"})).await).await;
    assert_eq!(st, StatusCode::CREATED, "{plain}");
    let rid = plain["id"].as_str().unwrap();
    let (st, imported) = body(
        user.post(
            &format!("/api/reports/{rid}/import-template"),
            json!({"templateId": id}),
        )
        .await,
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{imported}");
    assert_eq!(imported["sections"], 3);
    assert_eq!(imported["version"]["kind"], "before_import");
    assert_eq!(
        imported["version"]["name"],
        "Before importing “pillar 3 2025”"
    );
    assert_eq!(imported["version"]["section_count"], 1);
    // The live document (its writes are group-committed).
    let titles = || async {
        let state = app.state.collab.document_state_v1(rid).await.unwrap();
        collab::report::read_sections_v1(&state)
            .unwrap()
            .into_iter()
            .map(|s| s.title)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        titles().await,
        [
            "Introduction",
            "Executive Summary",
            "Capital Requirements",
            "Part 2"
        ]
    );
    // Restoring the automatic version undoes the import.
    let vid = imported["version"]["id"].as_str().unwrap();
    let (st, _) = body(
        user.post(
            &format!("/api/reports/{rid}/versions/{vid}/restore"),
            json!({}),
        )
        .await,
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(titles().await, ["Introduction"]);
    // A viewer imports nothing; a template that is not there is refused.
    let viewer = app.login(VIEWER).await;
    let (st, _) = body(
        viewer
            .post(
                &format!("/api/reports/{rid}/import-template"),
                json!({"templateId": id}),
            )
            .await,
    )
    .await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    let (st, v) = body(
        user.post(
            &format!("/api/reports/{rid}/import-template"),
            json!({"templateId": "missing"}),
        )
        .await,
    )
    .await;
    // As for a report created from a missing or inactive template: the spec's message.
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert_eq!(v["message"], "Failed to fetch template");
    assert_eq!(titles().await, ["Introduction"]);

    // The preview export lays the table and the chart out too.
    let r = admin
        .get(&format!("/api/admin/report-templates/{id}/export"))
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    let pdf_bytes = r.bytes().await.unwrap().to_vec();
    let text = {
        let d = pdf_oxide::document::PdfDocument::from_bytes(pdf_bytes).unwrap();
        (0..d.page_count().unwrap())
            .map(|p| d.extract_text(p).unwrap())
            .collect::<String>()
    };
    assert!(
        text.contains("Corporates") && text.contains("CET1 ratio"),
        "{text}"
    );
}

#[tokio::test]
async fn what_cannot_make_a_template_creates_nothing() {
    let app = TestApp::spawn().await;
    let admin = app.login(ADMIN).await;
    let count = |v: Value| v.as_array().unwrap().len();

    // Not a PDF, whatever its name says.
    let (st, sse) = import(&admin, "report.pdf", b"PK\x03\x04 a zip".to_vec(), &[]).await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{sse}");
    assert_eq!(
        serde_json::from_str::<Value>(&sse).unwrap()["message"],
        "Please upload a PDF file"
    );
    // A name with a control character.
    let (st, sse) = import(&admin, "a.pdf", pdf(3), &[("name", "Pillar\u{7}3")]).await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{sse}");
    assert_eq!(
        serde_json::from_str::<Value>(&sse).unwrap()["message"],
        "name must not contain control characters."
    );
    // An unknown type.
    let (st, sse) = import(&admin, "a.pdf", pdf(3), &[("templateType", "pillar_iv")]).await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{sse}");

    // Over 100 sections: the analysis fails with the specification's message.
    let (st, sse) = import(&admin, "big.pdf", pdf(101), &[]).await;
    assert_eq!(st, StatusCode::OK, "{sse}");
    let events = events(&sse);
    let (last, failed) = events.last().unwrap();
    assert_eq!(last, "failed", "{sse}");
    assert_eq!(failed["step"], "analyze");
    assert_eq!(
        failed["message"],
        "Detected 101 sections, which exceeds the safe limit of 100. Please check the document structure."
    );
    assert!(
        events
            .iter()
            .any(|(n, v)| n == "step" && v["step"] == "analyze" && v["state"] == "error")
    );
    assert_eq!(count(admin.json("/api/admin/report-templates").await.1), 0);

    // A damaged PDF fails at parse.
    let mut damaged = pdf(3);
    damaged.truncate(400);
    let (st, sse) = import(&admin, "damaged.pdf", damaged, &[]).await;
    assert_eq!(st, StatusCode::OK, "{sse}");
    let (last, failed) = events_last(&sse);
    assert_eq!(last, "failed", "{sse}");
    assert_eq!(failed["step"], "parse");
    assert_eq!(count(admin.json("/api/admin/report-templates").await.1), 0);

    // Over 50 MB: refused while it is received, before any step runs.
    let mut huge = pdf(3);
    huge.resize(50 * 1024 * 1024 + 1, b' ');
    let (st, sse) = import(&admin, "huge.pdf", huge, &[]).await;
    assert_eq!(st, StatusCode::PAYLOAD_TOO_LARGE, "{sse}");
    assert_eq!(
        serde_json::from_str::<Value>(&sse).unwrap()["message"],
        "The PDF is larger than 50MB."
    );
    assert_eq!(count(admin.json("/api/admin/report-templates").await.1), 0);

    // Only administrators import.
    let user = app.login(USER_A).await;
    let (st, _) = import(&user, "a.pdf", pdf(3), &[]).await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    assert_eq!(count(admin.json("/api/admin/report-templates").await.1), 0);
}

fn events_last(body: &str) -> (String, Value) {
    events(body).pop().expect("an event")
}
