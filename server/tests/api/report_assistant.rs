//! The report editor's AI text assistant: a section written by the built-in engine from the
//! client's real figures (the hand-computed PSE file of the insights tests, uploaded and
//! processed through the API: 3 exposures, EUR 1,750,000.00, 2 matched (66.67%), RWAs from
//! EUR 1,750,000.00 to EUR 850,000.00, EUR 900,000.00 saved); what it cannot write from; the
//! refusals (blank prompt, viewer, another client's report); and a configured model's text
//! checked against the data.

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::*;
use crate::insights::HAND_PSE;
use crate::qa::{Fake, client_of, fake_model, processed_upload};

async fn report_of(s: &Session) -> String {
    let (st, v) = body(s.post("/api/reports", json!({"name": "Pillar 3"})).await).await;
    assert_eq!(st, StatusCode::CREATED, "{v}");
    v["id"].as_str().unwrap().to_string()
}

async fn generate(s: &Session, report: &str, kind: &str, prompt: &str) -> (StatusCode, Value) {
    body(
        s.post(
            &format!("/api/reports/{report}/sections/generate"),
            json!({"sectionTitle": "Capital Position", "sectionType": kind,
                   "content": "Enter your content here...", "prompt": prompt}),
        )
        .await,
    )
    .await
}

#[tokio::test]
async fn the_builtin_engine_writes_sections_from_the_clients_real_figures() {
    let app = TestApp::spawn().await;
    let user = app.login(USER_A).await;
    let client = client_of(&user).await;
    let report = report_of(&user).await;

    // Nothing processed yet: it says so instead of writing.
    let (st, v) = generate(&user, &report, "capital", "Describe our capital savings").await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert_eq!(v["code"], "generation_failed");
    let m = v["message"].as_str().unwrap();
    assert!(
        m.starts_with("Unable to generate content: ") && m.contains("no processed file"),
        "{m}"
    );

    processed_upload(&user, &client, "hand-pse.csv", HAND_PSE.as_bytes()).await;

    // A capital section states the real saving, its rule and article.
    let (st, v) = generate(&user, &report, "capital", "Describe our capital savings").await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["provider"], "builtin");
    let text = v["content"].as_str().unwrap();
    assert!(
        text.contains(
            "reduce risk-weighted assets from EUR 1,750,000.00 to EUR 850,000.00, a saving of \
             EUR 900,000.00 (51.43% of the original risk-weighted assets)"
        ),
        "{text}"
    );
    assert!(text.contains("Art"), "the article applied: {text}");
    assert!(!text.contains("\n\n\n"), "{text}");

    // A summary states the real totals.
    let (st, v) = generate(&user, &report, "summary", "Summarise the results").await;
    assert_eq!(st, StatusCode::OK, "{v}");
    let text = v["content"].as_str().unwrap();
    assert!(
        text.contains(
            "One processed file covers 3 exposures with a total exposure amount of EUR \
             1,750,000.00. Of these, 2 (66.67%) were matched"
        ),
        "{text}"
    );

    // A regulatory section names what stays unmatched.
    let (_, v) = generate(
        &user,
        &report,
        "regulatory",
        "Which exposures stay unmatched?",
    )
    .await;
    assert!(
        v["content"]
            .as_str()
            .unwrap()
            .contains("1 exposure (33.33%) could not be matched"),
        "{v}"
    );
}

#[tokio::test]
async fn bad_requests_and_other_callers_are_refused() {
    let app = TestApp::spawn().await;
    let user = app.login(USER_A).await;
    let report = report_of(&user).await;

    let (st, v) = generate(&user, &report, "capital", "  \n  ").await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(v["message"], "Please enter a prompt.");
    let (st, _) = generate(&user, &report, "sonnet", "Write").await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    let (st, _) = generate(&user, &report, "capital", &"x".repeat(2001)).await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);

    // A viewer reads the report but does not write it.
    let viewer = app.login(VIEWER).await;
    let (st, _) = generate(&viewer, &report, "capital", "Write").await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    // Another client's user does not find it.
    let other = app.login(USER_B).await;
    let (st, _) = generate(&other, &report, "capital", "Write").await;
    assert_eq!(st, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_models_section_is_shown_only_when_its_figures_are_in_the_data() {
    let (base, fake) = fake_model().await;
    let app = TestApp::spawn_with(|c| {
        c.llm_base_url = Some(base.clone());
        c.llm_model = Some("fake-model".into());
        c.llm_api_key = Some(server::config::Secret::from("sk-test-key"));
        c.llm_timeout_secs = 1;
        c.llm_max_retries = 0;
    })
    .await;
    let user = app.login(USER_A).await;
    let client = client_of(&user).await;
    processed_upload(&user, &client, "hand-pse.csv", HAND_PSE.as_bytes()).await;
    let report = report_of(&user).await;

    *fake.next.lock().unwrap() = Fake::Stream(vec![
        "The proposed risk weights save EUR 900,000.00 of risk-weighted assets ",
        "across 3 exposures.",
    ]);
    let (st, v) = generate(&user, &report, "capital", "Describe the saving").await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["provider"], "openai");
    assert_eq!(
        v["content"],
        "The proposed risk weights save EUR 900,000.00 of risk-weighted assets across 3 exposures."
    );
    // The model was given the section, the request, the tone and the client's data.
    let sent = fake.requests.lock().unwrap().last().cloned().unwrap();
    let system = sent["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("professional banking tone") && system.contains("EUR 900,000.00"));
    let asked = sent["messages"][1]["content"].as_str().unwrap();
    assert!(
        asked.contains("Section title: Capital Position")
            && asked.contains("Section type: capital")
            && asked.contains("Request: Describe the saving"),
        "{asked}"
    );

    // A figure the data does not hold: not shown.
    *fake.next.lock().unwrap() = Fake::Stream(vec!["The saving is EUR 4,200,000.00."]);
    let (st, v) = generate(&user, &report, "capital", "Describe the saving").await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert_eq!(v["code"], "generation_failed");
    assert!(
        v["message"].as_str().unwrap().contains("4,200,000.00"),
        "{v}"
    );

    // Nothing written: 'No Content Generated'.
    *fake.next.lock().unwrap() = Fake::Stream(vec!["   "]);
    let (st, v) = generate(&user, &report, "capital", "Describe the saving").await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert_eq!(v["code"], "no_content");
    assert_eq!(
        v["message"],
        "AI returned empty content. Please try rephrasing your request."
    );

    // The service out of reach.
    *fake.next.lock().unwrap() = Fake::Slow(std::time::Duration::from_secs(3));
    let (st, v) = generate(&user, &report, "capital", "Describe the saving").await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert_eq!(v["code"], "ai_unavailable");
    assert_eq!(
        v["message"],
        "AI service unavailable. Please check configuration."
    );

    // Its rate limit, with the wait it quoted.
    *fake.next.lock().unwrap() = Fake::RateLimited("30");
    let (st, v) = generate(&user, &report, "capital", "Describe the saving").await;
    assert_eq!(st, StatusCode::TOO_MANY_REQUESTS, "{v}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .starts_with("I've reached my rate limit"),
        "{v}"
    );
}
