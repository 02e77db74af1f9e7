//! The PDF export of reports and template previews through the API: who may export, and the
//! PDF read back (text, pages, orientation, outline).

use reqwest::StatusCode;
use serde_json::{Value, json};
use yrs::{Any, ReadTxn, Text, Transact, Xml, XmlElementPrelim, XmlFragment, XmlTextPrelim};

use crate::helpers::*;

async fn create(s: &Session, input: Value) -> String {
    let (status, b) = body(s.post("/api/reports", input).await).await;
    assert_eq!(status, StatusCode::CREATED, "{b}");
    b["id"].as_str().unwrap().to_owned()
}

/// An edit made in the editor: a bold run and a heading appended to the first section.
async fn edit(app: &TestApp, id: &str) {
    let state = app.state.collab.document_state_v1(id).await.unwrap();
    let doc = yrs::Doc::new();
    {
        use yrs::updates::decoder::Decode;
        doc.transact_mut()
            .apply_update(yrs::Update::decode_v1(&state).unwrap())
            .unwrap();
    }
    let first = collab::report::sections_of(&doc)[0].id.clone();
    let frag = doc.get_or_insert_xml_fragment(collab::report::fragment_name(&first).as_str());
    let before = doc.transact().state_vector();
    {
        let mut txn = doc.transact_mut();
        let h = frag.push_back(&mut txn, XmlElementPrelim::empty("heading"));
        h.insert_attribute(&mut txn, "level", Any::from(2.0));
        h.push_back(&mut txn, XmlTextPrelim::new("Live heading"));
        let p = frag.push_back(&mut txn, XmlElementPrelim::empty("paragraph"));
        let t = p.push_back(&mut txn, XmlTextPrelim::new(""));
        let bold: yrs::types::Attrs = [(
            std::sync::Arc::from("bold"),
            Any::from(std::collections::HashMap::<String, Any>::new()),
        )]
        .into();
        t.insert_with_attributes(&mut txn, 0, "Edited by a colleague", bold);
    }
    let update = doc.transact().encode_state_as_update_v1(&before);
    app.state.collab.apply_update(id, update).await.unwrap();
}

#[tokio::test]
async fn readers_export_a_report_with_its_live_edits_and_strangers_are_refused() {
    let app = TestApp::spawn().await;
    let user = app.login(USER_A).await;
    let id = create(&user, json!({"name": "Q3 Pillar 3 disclosure"})).await;
    edit(&app, &id).await;

    let r = user.get(&format!("/api/reports/{id}/export")).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], "application/pdf");
    assert_eq!(r.headers()["cache-control"], "no-store");
    let disposition = r.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        disposition.contains("Q3 Pillar 3 disclosure.pdf"),
        "{disposition}"
    );
    let pdf = r.bytes().await.unwrap();
    assert!(pdf.starts_with(b"%PDF-"));
    let text = pdf_text(&pdf);
    for expected in [
        "Q3 Pillar 3 disclosure",
        "Introduction",
        "Live heading",
        "Edited by a colleague",
        "Page 1 of 1",
    ] {
        assert!(text.contains(expected), "{expected:?} missing from {text}");
    }
    assert_eq!(
        pdf_outline(&pdf),
        vec![
            (1, "Introduction".to_owned()),
            (2, "Live heading".to_owned())
        ]
    );
    for (w, h) in pdf_pages(&pdf) {
        assert!(
            (w - 595.5).abs() < 1.0 && (h - 842.25).abs() < 1.0,
            "portrait: {w} x {h}"
        );
    }

    // A viewer of the client may export; another client's user and strangers may not.
    let viewer = app.login(VIEWER).await;
    let r = viewer.get(&format!("/api/reports/{id}/export")).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert!(pdf_text(&r.bytes().await.unwrap()).contains("Edited by a colleague"));
    let other = app.login(USER_B).await;
    let r = other.get(&format!("/api/reports/{id}/export")).await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    let (_, e) = body(r).await;
    assert_eq!(e["message"], "Report not found");
    let anonymous = app.client().await;
    assert_eq!(
        anonymous
            .get(&format!("/api/reports/{id}/export"))
            .await
            .status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        user.get("/api/reports/no-such-report/export")
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn a_template_based_report_and_the_template_preview_export_in_its_branding() {
    let app = TestApp::spawn().await;
    let admin = app.login(ADMIN).await;
    let (st, t) = body(
        admin
            .post(
                "/api/admin/report-templates",
                json!({"name": "EBA Pillar 3", "templateType": "eba"}),
            )
            .await,
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{t}");
    let tid = t["id"].as_str().unwrap().to_owned();
    let edit = json!({
        "name": "EBA Pillar 3",
        "description": "",
        "sections": [
            {"title": "Purpose", "kind": "introduction", "content": "Why this report exists.\n\nA \"quoted\" #set page(fill: red) line."},
            {"title": "Regulatory Framework", "kind": "regulatory", "content": "CRR Article 116."}
        ],
        "branding": {"primaryColor": "#0f766e", "secondaryColor": "#f59e0b", "backgroundColor": "#ffffff",
            "fontFamily": "Georgia", "headingFontFamily": "Arial", "fontScale": 1.0,
            "orientation": "landscape", "subtitle": "Pillar 3 disclosures"},
        "isActive": true
    });
    let (st, saved) = send(
        &admin,
        reqwest::Method::PUT,
        &format!("/api/admin/report-templates/{tid}"),
        Some(edit),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{saved}");

    // 'Export Preview' (administrators only).
    let r = admin
        .get(&format!("/api/admin/report-templates/{tid}/export"))
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    assert!(
        r.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .contains("EBA Pillar 3.pdf")
    );
    let pdf = r.bytes().await.unwrap();
    let text = pdf_text(&pdf);
    for expected in [
        "EBA Pillar 3",
        "Pillar 3 disclosures",
        "Why this report exists.",
        "#set page(fill: red)",
        "CRR Article 116.",
    ] {
        assert!(text.contains(expected), "{expected:?} missing from {text}");
    }
    assert_eq!(
        pdf_outline(&pdf)
            .into_iter()
            .map(|(_, t)| t)
            .collect::<Vec<_>>(),
        ["Purpose", "Regulatory Framework"]
    );
    for (w, h) in pdf_pages(&pdf) {
        assert!(
            (w - 842.25).abs() < 1.0 && (h - 595.5).abs() < 1.0,
            "landscape: {w} x {h}"
        );
    }
    let user = app.login(USER_A).await;
    assert_eq!(
        user.get(&format!("/api/admin/report-templates/{tid}/export"))
            .await
            .status(),
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        admin
            .get("/api/admin/report-templates/missing/export")
            .await
            .status(),
        StatusCode::NOT_FOUND
    );

    // A report made from it exports in the same branding.
    let id = create(
        &user,
        json!({"name": "From the template", "template_id": tid}),
    )
    .await;
    let pdf = user
        .get(&format!("/api/reports/{id}/export"))
        .await
        .bytes()
        .await
        .unwrap();
    for (w, h) in pdf_pages(&pdf) {
        assert!(
            (w - 842.25).abs() < 1.0 && (h - 595.5).abs() < 1.0,
            "landscape: {w} x {h}"
        );
    }
    assert!(pdf_text(&pdf).contains("CRR Article 116."));
}

/// Appends an image node and a chart of an uploaded file (with no rows of its own) to the first
/// section, as the editor writes them.
async fn insert_media(app: &TestApp, id: &str, image: &str, broken: &str, table: &str) {
    let state = app.state.collab.document_state_v1(id).await.unwrap();
    let doc = yrs::Doc::new();
    {
        use yrs::updates::decoder::Decode;
        doc.transact_mut()
            .apply_update(yrs::Update::decode_v1(&state).unwrap())
            .unwrap();
    }
    let first = collab::report::sections_of(&doc)[0].id.clone();
    let frag = doc.get_or_insert_xml_fragment(collab::report::fragment_name(&first).as_str());
    let before = doc.transact().state_vector();
    {
        let mut txn = doc.transact_mut();
        for (media, alt) in [(image, "Stored picture"), (broken, "Broken picture")] {
            let img = frag.push_back(&mut txn, XmlElementPrelim::empty("image"));
            img.insert_attribute(&mut txn, "mediaId", media);
            img.insert_attribute(&mut txn, "src", format!("/api/reports/{id}/media/{media}"));
            img.insert_attribute(&mut txn, "alt", alt);
        }
        let chart = frag.push_back(&mut txn, XmlElementPrelim::empty("chart"));
        for (k, v) in [
            ("chartId", "6f1c1d7e-0000-4000-8000-000000000001".to_owned()),
            ("chartType", "bar".to_owned()),
            ("title", "Savings by quarter".to_owned()),
            ("xColumn", "Quarter".to_owned()),
            ("yColumns", r#"["Savings"]"#.to_owned()),
            ("rows", "[]".to_owned()),
            (
                "source",
                json!({"kind": "media", "mediaId": table, "sheet": ""}).to_string(),
            ),
        ] {
            chart.insert_attribute(&mut txn, k, v);
        }
    }
    let update = doc.transact().encode_state_as_update_v1(&before);
    app.state.collab.apply_update(id, update).await.unwrap();
}

#[tokio::test]
async fn a_report_exports_its_stored_images_and_charts_of_its_uploaded_files() {
    let app = TestApp::spawn().await;
    let user = app.login(USER_A).await;
    let id = create(&user, json!({"name": "Media disclosure"})).await;
    let picture = {
        let img = image::RgbImage::from_pixel(40, 20, image::Rgb([30, 80, 160]));
        let mut out = std::io::Cursor::new(Vec::new());
        image::DynamicImage::ImageRgb8(img)
            .write_to(&mut out, image::ImageFormat::Png)
            .unwrap();
        out.into_inner()
    };
    let (st, image) = crate::report_media::upload(&user, &id, "logo.png", picture).await;
    assert_eq!(st, StatusCode::CREATED, "{image}");
    // A PNG header over nothing: accepted as an upload, drawn as unavailable, never a failure.
    let (st, broken) =
        crate::report_media::upload(&user, &id, "broken.png", crate::report_media::png()).await;
    assert_eq!(st, StatusCode::CREATED, "{broken}");
    let csv = b"Quarter,Savings\nQ1-2026,120\nQ2-2026,180\nQ3-2026,240\n".to_vec();
    let (st, table) = crate::report_media::upload(&user, &id, "quarters.csv", csv).await;
    assert_eq!(st, StatusCode::CREATED, "{table}");
    insert_media(
        &app,
        &id,
        image["id"].as_str().unwrap(),
        broken["id"].as_str().unwrap(),
        table["id"].as_str().unwrap(),
    )
    .await;

    let r = user.get(&format!("/api/reports/{id}/export")).await;
    assert_eq!(r.status(), StatusCode::OK);
    let pdf = r.bytes().await.unwrap();
    let text = pdf_text(&pdf);
    // The chart was drawn from the file's rows, read from storage (the node holds none).
    for expected in [
        "Savings by quarter",
        "Q1-2026",
        "Q3-2026",
        "Image unavailable: Broken picture",
    ] {
        assert!(text.contains(expected), "{expected:?} missing from {text}");
    }
    assert!(
        !text.contains("Image unavailable: Stored picture"),
        "{text}"
    );
    assert_eq!(
        pdf_image_count(&pdf),
        1,
        "the stored picture, and the chart as vectors"
    );

    // Once the picture is deleted, the export still succeeds and says so.
    let image_id = image["id"].as_str().unwrap();
    let (st, _) = send(
        &user,
        reqwest::Method::DELETE,
        &format!("/api/reports/{id}/media/{image_id}"),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::NO_CONTENT);
    let r = user.get(&format!("/api/reports/{id}/export")).await;
    assert_eq!(r.status(), StatusCode::OK);
    let pdf = r.bytes().await.unwrap();
    assert!(pdf_text(&pdf).contains("Image unavailable: Stored picture"));
    assert_eq!(pdf_image_count(&pdf), 0);
}
