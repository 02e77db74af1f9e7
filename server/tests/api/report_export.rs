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
