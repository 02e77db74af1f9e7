//! Lever justifications: templates kept by administrators (the spec's required fields and
//! category rule, one default, a misspelt placeholder refused before anything is stored), and the
//! audit memo of a real run of the hand-computed PSE file, whose every placeholder is filled from
//! the run: client, lever, run, file, exposures, the two reclassified exposures with their
//! weights, articles, confidence and reasons, the validation status and the rule set.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::*;
use crate::insights::{client_of, processed};
use crate::realtime::Ws;

const PATH: &str = "/api/admin/justification-templates";

#[tokio::test]
async fn justification_templates_are_checked_kept_with_one_default_and_deleted() {
    let app = TestApp::spawn().await;
    let admin = app.login(ADMIN).await;
    let mut ws = Ws::connect(&admin).await;
    ws.subscribe(&["admin:justifications"]).await;

    // Refused with a clear message, and nothing stored.
    for (input, message) in [
        (
            json!({"name": " ", "templateContent": "x"}),
            "Template name is required",
        ),
        (
            json!({"name": "Memo", "templateContent": "  \n"}),
            "Template content is required",
        ),
    ] {
        let (st, v) = send(&admin, Method::POST, PATH, Some(input)).await;
        assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
        assert_eq!(v["message"], message);
    }
    let (st, v) = send(
        &admin,
        Method::POST,
        PATH,
        Some(json!({"name": "Memo", "templateContent": "Client\n{{ clientNmae }}"})),
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .starts_with("Unknown placeholder on line 2."),
        "{v}"
    );
    let (st, v) = send(
        &admin,
        Method::POST,
        PATH,
        Some(json!({"name": "Memo", "templateContent": "{% for c in classifications %}{{ c.exposureId }}"})),
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .starts_with("Template syntax error"),
        "{v}"
    );
    assert_eq!(admin.json(PATH).await.1, json!([]));

    // The default memo, then two templates; the second default replaces the first.
    let (st, d) = admin.json(&format!("{PATH}/defaults")).await;
    assert_eq!(st, StatusCode::OK, "{d}");
    let content = d["templateContent"].as_str().unwrap().to_owned();
    assert!(
        content.contains("{{ clientName }}") && content.contains("{% for c in classifications %}")
    );
    let names: Vec<&str> = d["placeholders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    for p in [
        "date",
        "clientName",
        "leverName",
        "runId",
        "fileCount",
        "totalExposures",
        "avgConfidence",
        "validationScore",
        "classifications",
        "timestamp",
        "modelVersion",
        "validationStatus",
    ] {
        assert!(names.contains(&p), "{p} missing from {names:?}");
    }
    let (st, first) = send(
        &admin,
        Method::POST,
        PATH,
        Some(json!({"name": "Audit memo", "category": "Regulatory", "templateContent": content, "isDefault": true})),
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{first}");
    assert_eq!(first["category"], "regulatory");
    assert_eq!(first["isDefault"], true);
    assert_eq!(first["createdBy"], "Alicia Admin", "{first}");
    let frame = ws.next_json(Duration::from_secs(5)).await.expect("event");
    assert_eq!(frame["type"], "justifications.changed");
    assert_eq!(frame["data"]["templateId"], first["id"], "{frame}");
    let (st, second) = send(
        &admin,
        Method::POST,
        PATH,
        Some(json!({"name": "Short", "category": "policy", "templateContent": "{{ runId }}", "isDefault": true})),
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{second}");
    // The spec's category rule: anything else is custom.
    assert_eq!(second["category"], "custom");
    let (_, list) = admin.json(PATH).await;
    let list = list.as_array().unwrap().clone();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["id"], second["id"], "newest first");
    assert_eq!(list[0]["isDefault"], true);
    assert_eq!(list[1]["isDefault"], false, "one default at a time");

    // Edited; a bad edit changes nothing.
    let one = format!("{PATH}/{}", first["id"].as_str().unwrap());
    let (st, v) = send(
        &admin,
        Method::PUT,
        &one,
        Some(
            json!({"name": "Audit memo", "category": "internal", "templateContent": "{{ nope }}"}),
        ),
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    let (_, list) = admin.json(PATH).await;
    assert_eq!(list[1]["templateContent"], first["templateContent"]);
    let (st, edited) = send(
        &admin,
        Method::PUT,
        &one,
        Some(json!({"name": "Audit memo v2", "category": "internal", "templateContent": "{{ clientName }}", "isDefault": false})),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{edited}");
    assert_eq!(
        (edited["name"].as_str(), edited["category"].as_str()),
        (Some("Audit memo v2"), Some("internal"))
    );

    // Deleted; then it is gone.
    let (st, _) = send(&admin, Method::DELETE, &one, None).await;
    assert_eq!(st, StatusCode::NO_CONTENT);
    let (st, _) = send(&admin, Method::DELETE, &one, None).await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    let (st, _) = send(
        &admin,
        Method::PUT,
        &one,
        Some(json!({"name": "x", "templateContent": "y"})),
    )
    .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    assert_eq!(admin.json(PATH).await.1.as_array().unwrap().len(), 1);

    // Client users never reach them.
    let user = app.login(USER_A).await;
    assert_eq!(user.json(PATH).await.0, StatusCode::FORBIDDEN);
}

fn line_of<'t>(text: &'t str, start: &str) -> &'t str {
    text.lines()
        .find(|l| l.starts_with(start))
        .unwrap_or_else(|| panic!("no line starting {start:?} in:\n{text}"))
}

#[tokio::test]
async fn a_memo_fills_every_placeholder_from_a_real_run() {
    let app = TestApp::spawn().await;
    let admin = app.login(ADMIN).await;
    let user = app.login(USER_A).await;
    let client = client_of(&user).await;
    let run = processed(&app, &user, &client, "hand-pse.csv").await;
    let memo_path = format!("/api/admin/runs/{run}/justification-memo");

    // The decisions' own confidence, from the explainability API, for the mean.
    let (_, page) = user
        .json(&format!(
            "/api/insights/runs/{run}/decisions?client_id={client}"
        ))
        .await;
    let confidence = |id: &str| {
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["exposureId"] == id)
            .unwrap()["confidence"]
            .as_f64()
            .unwrap()
    };
    let (adif, aeat) = (confidence("EXP-ADIF-24M"), confidence("EXP-AEAT-2M"));

    // Without a template: the built-in audit memo.
    let (st, m) = send(&admin, Method::POST, &memo_path, Some(json!({}))).await;
    assert_eq!(st, StatusCode::OK, "{m}");
    let text = m["text"].as_str().unwrap();
    assert_eq!(m["templateId"], Value::Null);
    assert_eq!(m["clientName"], "Bank A");
    assert_eq!(
        (
            m["classificationsListed"].as_u64(),
            m["classificationsTotal"].as_u64()
        ),
        (Some(2), Some(2))
    );
    assert!(!text.contains("{{") && !text.contains("{%"), "{text}");
    assert_eq!(line_of(text, "Client:"), "Client: Bank A");
    assert_eq!(
        line_of(text, "Lever:"),
        "Lever: Public Sector Entities (PSE)"
    );
    let scope = format!("Processing run {run} (1 file: hand-pse.csv, completed ");
    assert!(
        line_of(text, "Processing run").starts_with(&scope),
        "{text}"
    );
    assert!(
        line_of(text, "Processing run").ends_with(
            "evaluated 3 exposures, of which 2 were matched against the reference entity data (validation score 66.67%)."
        ),
        "{text}"
    );
    // 1,000,000 x (100 - 50) % + 500,000 x (100 - 20) %.
    assert_eq!(
        line_of(text, "2 exposures qualify"),
        format!(
            "2 exposures qualify for a lower risk weight under EU-CRR3, reducing risk-weighted assets by EUR 900,000.00. Average confidence of the reclassifications: {:.2}%.",
            (adif + aeat) / 2.0
        )
    );
    // Largest RWA reduction first: ADIF (500,000) before AEAT (400,000); the bad NIF is not listed.
    let entries: Vec<&str> = text.lines().filter(|l| l.starts_with("- ")).collect();
    assert_eq!(
        entries,
        [
            "- EXP-ADIF-24M (Public Sector Entities (PSE), Administrador de Infraestructuras Ferroviarias): 100% -> 50%",
            "- EXP-AEAT-2M (Public Sector Entities (PSE), Agencia Estatal de Administracion Tributaria): 100% -> 20%",
        ]
    );
    let refs: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("  Reference:"))
        .collect();
    assert_eq!(
        refs[0],
        format!("  Reference: CRR Art. 116(1) Table 2; confidence {adif:.2}%")
    );
    assert!(
        refs[1].starts_with("  Reference: CRR Art. 116(3)"),
        "{refs:?}"
    );
    assert!(!text.contains("EXP-BAD-NIF"));
    assert_eq!(
        line_of(text, "Validation status:"),
        "Validation status: pending"
    );
    assert!(
        line_of(text, "Generated ").ends_with(&format!(
            "by capopt engine {}, rule set EU-CRR3.",
            env!("CARGO_PKG_VERSION")
        )),
        "{text}"
    );
    assert!(m["fileName"].as_str().unwrap().ends_with(".txt"));

    // A template of the administrator's, then the default one when none is named.
    let (_, t) = send(
        &admin,
        Method::POST,
        PATH,
        Some(json!({"name": "One line", "templateContent": "{{ leverName }}|{{ totalExposures }}|{% for c in classifications %}{{ c.exposureId }}={{ c.proposedRiskWeight }};{% endfor %}{{ classificationsOmitted }}", "isDefault": true})),
    )
    .await;
    let expected = "Public Sector Entities (PSE)|3|EXP-ADIF-24M=50%;EXP-AEAT-2M=20%;0";
    let (st, m) = send(
        &admin,
        Method::POST,
        &memo_path,
        Some(json!({"templateId": t["id"]})),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{m}");
    assert_eq!(m["text"], expected);
    let (_, m) = send(&admin, Method::POST, &memo_path, Some(json!({}))).await;
    assert_eq!(
        (m["text"].as_str(), m["templateName"].as_str()),
        (Some(expected), Some("One line"))
    );

    // Unknown run or template; a client user refused.
    let (st, _) = send(
        &admin,
        Method::POST,
        "/api/admin/runs/nope/justification-memo",
        Some(json!({})),
    )
    .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    let (st, _) = send(
        &admin,
        Method::POST,
        &memo_path,
        Some(json!({"templateId": "nope"})),
    )
    .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    let (st, v) = send(&user, Method::POST, &memo_path, Some(json!({}))).await;
    assert_eq!(st, StatusCode::FORBIDDEN, "{v}");
}
