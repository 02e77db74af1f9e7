//! Report templates: created with the specification's validation and the type's default sections,
//! edited (sections with their text, branding, active flag; the type stays), offered to clients
//! only while active, written into a new report's document, deleted; administrators only.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use server::docs::SqlDocStore;

use crate::helpers::*;
use crate::realtime::Ws;

const PATH: &str = "/api/admin/report-templates";

fn branding() -> Value {
    json!({"primaryColor": "#0F766E", "secondaryColor": "#f59e0b", "backgroundColor": "#ffffff",
        "fontFamily": "Georgia", "headingFontFamily": "Inter", "fontScale": 1.1,
        "orientation": "landscape", "subtitle": "Pillar 3 disclosures"})
}

#[tokio::test]
async fn templates_are_created_edited_offered_and_written_into_reports() {
    let app = TestApp::spawn().await;
    let admin = app.login(ADMIN).await;
    let user = app.login(USER_A).await;
    let mut ws = Ws::connect(&admin).await;
    ws.subscribe(&["admin:templates"]).await;

    // The specification's validation; nothing is stored.
    for (input, message) in [
        (
            json!({"name": "  ", "templateType": "eba"}),
            "Template name is required",
        ),
        (json!({"name": "Pillar 3"}), "Template type is required"),
        (
            json!({"name": "Pillar 3", "templateType": "pillar_iv"}),
            "Unknown template type 'pillar_iv'.",
        ),
    ] {
        let (st, v) = send(&admin, Method::POST, PATH, Some(input)).await;
        assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
        assert_eq!(v["message"], message);
    }
    assert_eq!(admin.json(PATH).await.1, json!([]));

    // Created with the type's default sections and the default branding, active.
    let (st, t) = send(
        &admin,
        Method::POST,
        PATH,
        Some(json!({"name": " Basel III Pillar 3 ", "description": "Annual", "templateType": "basel_iii"})),
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{t}");
    let id = t["id"].as_str().unwrap().to_owned();
    assert_eq!(t["name"], "Basel III Pillar 3");
    assert_eq!(t["isActive"], true);
    let titles = |t: &Value| {
        t["sections"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["title"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        titles(&t),
        [
            "Executive Summary",
            "Basel III Overview",
            "Capital Adequacy"
        ]
    );
    assert_eq!(t["branding"]["fontFamily"], "SF Pro Display");
    assert_eq!(t["branding"]["orientation"], "portrait");
    let frame = ws.next_json(Duration::from_secs(5)).await.expect("event");
    assert_eq!(frame["type"], "templates.changed");
    assert_eq!(frame["data"]["templateId"], id);

    // Edited: sections with text, branding, still active. The type stays (an unknown field).
    let edit = json!({
        "name": "Basel III Pillar 3",
        "description": "Annual disclosure",
        "sections": [
            {"id": t["sections"][0]["id"], "title": "Executive Summary", "kind": "summary",
             "content": "This report sets out the bank's capital position.\n\nIt covers the year."},
            {"title": "Capital Requirements", "kind": "capital", "content": ""}
        ],
        "branding": branding(),
        "isActive": true
    });
    let mut with_type = edit.clone();
    with_type["templateType"] = json!("eba");
    let (st, _) = send(
        &admin,
        Method::PUT,
        &format!("{PATH}/{id}"),
        Some(with_type),
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    let mut bad = edit.clone();
    bad["sections"][1]["title"] = json!("  ");
    let (st, v) = send(&admin, Method::PUT, &format!("{PATH}/{id}"), Some(bad)).await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(v["message"], "Section 2 needs a title.");
    let mut bad = edit.clone();
    bad["branding"]["primaryColor"] = json!("teal");
    let (st, _) = send(&admin, Method::PUT, &format!("{PATH}/{id}"), Some(bad)).await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        titles(&admin.json(&format!("{PATH}/{id}")).await.1).len(),
        3,
        "refused edits change nothing"
    );

    let (st, saved) = send(
        &admin,
        Method::PUT,
        &format!("{PATH}/{id}"),
        Some(edit.clone()),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{saved}");
    assert_eq!(
        titles(&saved),
        ["Executive Summary", "Capital Requirements"]
    );
    assert_eq!(saved["templateType"], "basel_iii");
    assert_eq!(saved["branding"]["primaryColor"], "#0f766e");
    assert!(!saved["sections"][1]["id"].as_str().unwrap().is_empty());
    assert_eq!(
        ws.next_json(Duration::from_secs(5)).await.expect("event")["type"],
        "templates.changed"
    );

    // Offered to clients while active; a report made from it starts with its sections and text.
    let (st, offered) = user.json("/api/report-templates").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(offered.as_array().unwrap().len(), 1);
    let (st, report) = body(
        user.post(
            "/api/reports",
            json!({"name": "FY report", "template_id": id}),
        )
        .await,
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{report}");
    assert_eq!(report["template_id"], id.as_str());
    assert_eq!(report["section_count"], 2);
    let store = SqlDocStore::new(&app.state.db);
    let stored = store
        .load(report["id"].as_str().unwrap())
        .await
        .unwrap()
        .unwrap();
    let sections = collab::report::read_sections(&stored).unwrap();
    assert_eq!(
        sections
            .iter()
            .map(|s| s.title.as_str())
            .collect::<Vec<_>>(),
        ["Executive Summary", "Capital Requirements"]
    );
    {
        use yrs::{GetString, Transact};
        let doc = collab::doc_from_stored(&stored).unwrap();
        let first = doc.get_or_insert_xml_fragment(collab::report::fragment_name(&sections[0].id));
        assert_eq!(
            first.get_string(&doc.transact()),
            "<paragraph>This report sets out the bank's capital position.</paragraph><paragraph>It covers the year.</paragraph>"
        );
        let second = doc.get_or_insert_xml_fragment(collab::report::fragment_name(&sections[1].id));
        assert_eq!(
            second.get_string(&doc.transact()),
            "<paragraph></paragraph>"
        );
        // The template's branding is the report's, in the shared document.
        use yrs::Map;
        let branding = doc.get_or_insert_map(collab::report::BRANDING_MAP);
        let txn = doc.transact();
        let get = |k: &str| branding.get(&txn, k).map(|v| v.to_string(&txn));
        assert_eq!(get("primaryColor").as_deref(), Some("#0f766e"));
        assert_eq!(get("orientation").as_deref(), Some("landscape"));
        assert_eq!(get("subtitle").as_deref(), Some("Pillar 3 disclosures"));
        assert_eq!(get("fontScale").as_deref(), Some("1.1"));
    }

    // Inactive: no longer offered, and no report can start from it.
    let mut inactive = edit.clone();
    inactive["isActive"] = json!(false);
    let (st, _) = send(&admin, Method::PUT, &format!("{PATH}/{id}"), Some(inactive)).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(user.json("/api/report-templates").await.1, json!([]));
    let (st, v) = body(
        user.post(
            "/api/reports",
            json!({"name": "Another", "template_id": id}),
        )
        .await,
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(v["message"], "Failed to fetch template");
    assert_eq!(
        admin.json(PATH).await.1.as_array().unwrap().len(),
        1,
        "administrators see it"
    );

    // Clients cannot manage templates.
    let (st, _) = send(
        &user,
        Method::POST,
        PATH,
        Some(json!({"name": "Mine", "templateType": "custom"})),
    )
    .await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    let (st, _) = send(&user, Method::DELETE, &format!("{PATH}/{id}"), None).await;
    assert_eq!(st, StatusCode::FORBIDDEN);

    // Deleted: gone; the report made from it keeps its content and its template label.
    let (st, _) = send(&admin, Method::DELETE, &format!("{PATH}/{id}"), None).await;
    assert_eq!(st, StatusCode::NO_CONTENT);
    let (st, v) = admin.json(&format!("{PATH}/{id}")).await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    assert_eq!(v["message"], "Template Not Found");
    let (st, kept) = user
        .json(&format!("/api/reports/{}", report["id"].as_str().unwrap()))
        .await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(kept["report"]["template_id"], id.as_str());
}
