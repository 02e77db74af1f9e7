//! The Q&A agent: the built-in engine's answers to the chips, their variants and a named
//! exposure on the hand-computed PSE file of the insights tests, uploaded and processed through
//! the API; conversations per user and client; refusals (another client's file, a blank
//! question) that store nothing; and the OpenAI-compatible path against an in-process fake of
//! `/v1/chat/completions` (streamed chunks with quirks, a figure the data does not contain, a
//! 429 with Retry-After, a 503 retried, a timeout).
//!
//! Hand-computed figures of `HAND_PSE` (three rows, all 100 % today): 1,000,000 + 500,000 +
//! 250,000 = 1,750,000 of exposure; ADIF 1,000,000 x (100 % - 50 %) = 500,000 and AEAT 500,000 x
//! (100 % - 20 %) = 400,000 of RWA reduction, 900,000 in all; 2 of 3 matched (66.67 %); the
//! maturities: 24 months twice (1-5 years: 1,250,000, 71.43 %) and 2 months (<= 3 months:
//! 500,000, 28.57 %); the bad NIF's row (250,000) not matched.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::*;
use crate::insights::HAND_PSE;

pub(crate) async fn client_of(s: &Session) -> String {
    let (_, me) = s.json("/api/auth/me").await;
    me["client"]["id"].as_str().expect("a client").to_string()
}

/// Uploads `bytes` as `name` for the session's client with the PSE lever and processing asked
/// for, and waits for its run to complete: the file's id.
pub(crate) async fn processed_upload(
    s: &Session,
    client: &str,
    name: &str,
    bytes: &[u8],
) -> String {
    let csrf = s.cookie("capopt_csrf").unwrap_or_default();
    let form = reqwest::multipart::Form::new()
        .part(
            "file",
            reqwest::multipart::Part::bytes(bytes.to_vec()).file_name(name.to_string()),
        )
        .text(
            "options",
            json!({"mode": "manual", "leverId": "lever-pse", "process": true, "mapping": {
                "Exposure_ID": "Exposure_ID", "Legal_Name": "Counterparty", "NIF": "NIF",
                "Exposure_Amount": "Exposure_Amount", "Current_Risk_Weight": "Current_Risk_Weight",
                "Maturity": "Maturity (months)", "Currency": "Currency"}})
            .to_string(),
        );
    let r = s
        .http
        .post(format!("{}/api/files?client_id={client}", s.base))
        .header("x-csrf-token", csrf)
        .multipart(form)
        .send()
        .await
        .unwrap();
    let (st, v) = body(r).await;
    assert_eq!(st, StatusCode::CREATED, "{v}");
    let run = v["run"]["id"].as_str().expect("a queued run").to_string();
    let done = crate::runs::wait_final(s, &run, 60).await;
    assert_eq!(done["state"], "completed", "{done}");
    v["file"]["id"].as_str().unwrap().to_string()
}

/// The events of an answer's stream: (event, data).
fn events(text: &str) -> Vec<(String, Value)> {
    text.split("\n\n")
        .filter_map(|block| {
            let mut name = None;
            let mut data = String::new();
            for line in block.lines() {
                if let Some(n) = line.strip_prefix("event:") {
                    name = Some(n.trim().to_string());
                } else if let Some(d) = line.strip_prefix("data:") {
                    data.push_str(d.trim_start());
                }
            }
            Some((name?, serde_json::from_str(&data).ok()?))
        })
        .collect()
}

/// An answer: the status, and for 200 the streamed text, the `done` event and the events.
struct Asked {
    status: StatusCode,
    error: Value,
    streamed: String,
    done: Value,
    kinds: Vec<String>,
}

async fn ask(s: &Session, client: &str, question: &str, file: Option<&str>) -> Asked {
    let csrf = s.cookie("capopt_csrf").unwrap_or_default();
    let mut payload = json!({"question": question});
    if let Some(f) = file {
        payload["fileId"] = json!(f);
    }
    let r = s
        .http
        .post(format!("{}/api/qa/ask?client_id={client}", s.base))
        .header("x-csrf-token", csrf)
        .json(&payload)
        .send()
        .await
        .unwrap();
    let status = r.status();
    let is_sse = r
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    let text = r.text().await.unwrap();
    if status != StatusCode::OK {
        return Asked {
            status,
            error: serde_json::from_str(&text).unwrap_or(Value::Null),
            streamed: String::new(),
            done: Value::Null,
            kinds: vec![],
        };
    }
    assert!(is_sse, "an answer streams as text/event-stream");
    let ev = events(&text);
    let streamed: String = ev
        .iter()
        .filter(|(k, _)| k == "delta")
        .map(|(_, d)| d["text"].as_str().unwrap().to_string())
        .collect();
    let done = ev
        .iter()
        .find(|(k, _)| k == "done")
        .map(|(_, d)| d.clone())
        .unwrap_or_else(|| panic!("no done event in {text}"));
    assert_eq!(done["answer"]["content"].as_str().unwrap(), streamed);
    Asked {
        status,
        error: Value::Null,
        streamed,
        done,
        kinds: ev.into_iter().map(|(k, _)| k).collect(),
    }
}

fn has_line(answer: &str, line: &str) {
    assert!(
        answer.lines().any(|l| l == line),
        "no line {line:?} in:\n{answer}"
    );
}

async fn stored_messages(app: &TestApp) -> i64 {
    sqlx::query_scalar("SELECT COUNT(*) FROM qa_messages")
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap()
}

#[tokio::test]
async fn the_builtin_engine_answers_the_chips_with_hand_computed_figures() {
    let app = TestApp::spawn().await;
    let user = app.login(USER_A).await;
    let client = client_of(&user).await;
    let file = processed_upload(&user, &client, "hand-pse.csv", HAND_PSE.as_bytes()).await;
    let f = Some(file.as_str());

    // Total exposures in this file.
    let a = ask(&user, &client, "Total exposures in this file", f).await;
    assert_eq!(a.status, StatusCode::OK);
    assert_eq!(a.kinds.first().map(String::as_str), Some("started"));
    assert_eq!(a.done["answer"]["provider"], "builtin");
    assert_eq!(a.done["failure"], Value::Null);
    let t = &a.streamed;
    assert!(t.starts_with("1. Total exposures\n"), "{t}");
    has_line(t, "- Scope: the file hand-pse.csv");
    has_line(t, "- Exposures: 3");
    has_line(t, "- Total exposure amount: EUR 1,750,000.00");
    has_line(t, "- Matched exposures: 2 (66.67%)");
    has_line(t, "2. Exposures by asset class");
    has_line(t, "- The files give no asset class for their exposures.");

    // Key findings, in other words.
    let t = ask(&user, &client, "Can you summarise the key findings?", f)
        .await
        .streamed;
    assert!(t.starts_with("1. Key findings\n"), "{t}");
    has_line(t.as_str(), "- RWA reduction: EUR 900,000.00");
    has_line(&t, "- Matched exposures: 2 of 3 (66.67%)");
    has_line(&t, "- Not matched: 1");
    let biggest: Vec<&str> = t
        .lines()
        .skip_while(|l| *l != "2. Biggest savings")
        .skip(1)
        .take(2)
        .collect();
    assert!(
        biggest[0].starts_with(
            "- EXP-ADIF-24M (hand-pse.csv, row 1): EUR 500,000.00 RWA reduction, risk weight 100.00% to 50.00%"
        ),
        "{t}"
    );
    assert!(
        biggest[1].starts_with(
            "- EXP-AEAT-2M (hand-pse.csv, row 2): EUR 400,000.00 RWA reduction, risk weight 100.00% to 20.00%"
        ),
        "{t}"
    );

    // Main risk factors.
    let t = ask(&user, &client, "What are the main risk factors?", f)
        .await
        .streamed;
    has_line(&t, "3. Concentration by maturity");
    has_line(
        &t,
        "- 1-5 years: EUR 1,250,000.00 (71.43% of the amount, 2 exposures)",
    );
    has_line(
        &t,
        "- <= 3 months: EUR 500,000.00 (28.57% of the amount, 1 exposure)",
    );
    assert!(
        t.lines().any(|l| l.starts_with(
            "- EXP-ADIF-24M (hand-pse.csv, row 1): EUR 1,000,000.00 (57.14% of the amount)"
        )),
        "{t}"
    );
    has_line(&t, "- Not matched: 1");
    has_line(
        &t,
        "- 1 exposure, EUR 250,000.00: the NIF's check character is wrong",
    );
    // AEAT's 2 months are taken as its original maturity (no Origination_Date): flagged.
    has_line(&t, "- Flagged exposures: 1");

    // Optimisation opportunities.
    let t = ask(&user, &client, "optimisation opportunities", f)
        .await
        .streamed;
    assert!(t.starts_with("1. Optimisation opportunities\n"), "{t}");
    has_line(&t, "- RWA reduction found so far: EUR 900,000.00");
    has_line(&t, "2. Missing or incorrect data");
    // The file has no CQS column: all three exposures lack one.
    has_line(
        &t,
        "- 3 exposures, EUR 1,750,000.00, have no credit quality step: where the counterparty is \
         rated, giving its CQS may lower their risk weight",
    );
    has_line(
        &t,
        "- 1 exposure, EUR 250,000.00, not matched because the NIF's check character is wrong: \
         correcting the data may let them match",
    );
    has_line(&t, "3. Entities not in the reference data");
    has_line(
        &t,
        "- No exposure was held back by an entity missing from the reference data.",
    );

    // A named exposure: its row and its decision trace (CRR Art. 116, as the insights tests).
    let t = ask(&user, &client, "Why does EXP-ADIF-24M get its weight?", f)
        .await
        .streamed;
    assert!(
        t.starts_with("1. Exposure EXP-ADIF-24M (hand-pse.csv, row 1)\n"),
        "{t}"
    );
    has_line(&t, "- Identifier: Q2801660H");
    has_line(&t, "- Current risk weight: 100.00%");
    has_line(&t, "- Proposed risk weight: 50.00%");
    has_line(&t, "- RWA reduction: EUR 500,000.00");
    has_line(&t, "2. Decision trace of EXP-ADIF-24M");
    assert!(t.contains("CRR Art. 116(1)"), "{t}");
    // By its NIF too; an id no file holds is said so.
    let t = ask(&user, &client, "Tell me about Q2826000H", None)
        .await
        .streamed;
    assert!(
        t.starts_with("1. Exposure EXP-AEAT-2M (hand-pse.csv, row 2)\n"),
        "{t}"
    );
    has_line(&t, "- Proposed risk weight: 20.00%");
    let t = ask(&user, &client, "Tell me about EXP-NOPE-99", None)
        .await
        .streamed;
    assert!(t.starts_with("1. Exposure not found\n"), "{t}");
    assert!(t.contains("EXP-NOPE-99"), "{t}");

    // What it cannot answer, it says.
    let t = ask(&user, &client, "Will it rain in Madrid tomorrow?", None)
        .await
        .streamed;
    assert!(t.starts_with("1. I can't answer that\n"), "{t}");

    // All files: a second copy of the file doubles the totals.
    processed_upload(&user, &client, "hand-pse-copy.csv", HAND_PSE.as_bytes()).await;
    let t = ask(
        &user,
        &client,
        "How many exposures do we have in total?",
        None,
    )
    .await
    .streamed;
    has_line(&t, "- Files analysed: 2");
    has_line(&t, "- Exposures: 6");
    has_line(&t, "- Total exposure amount: EUR 3,500,000.00");
    has_line(&t, "- hand-pse.csv: 3 exposures, EUR 1,750,000.00");

    // The conversation is the user's: nine questions, nine answers, in order.
    let (st, conv) = user
        .json(&format!("/api/qa/conversation?client_id={client}"))
        .await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(conv["provider"], "builtin");
    let msgs = conv["messages"].as_array().unwrap();
    assert_eq!(msgs.len(), 18, "{conv}");
    assert_eq!(msgs[0]["role"], "user");
    assert_eq!(msgs[0]["content"], "Total exposures in this file");
    assert_eq!(msgs[0]["fileId"], file.as_str());
    assert_eq!(msgs[1]["role"], "assistant");
    assert_eq!(msgs[17]["role"], "assistant");
    assert_eq!(
        msgs[16]["content"],
        "How many exposures do we have in total?"
    );
    assert_eq!(msgs[16]["fileId"], Value::Null);

    // A viewer of the client may ask; their conversation is their own.
    let viewer = app.login(VIEWER).await;
    let a = ask(&viewer, &client, "Total exposures in this file", f).await;
    assert_eq!(a.status, StatusCode::OK);
    has_line(&a.streamed, "- Exposures: 3");
    let (_, vconv) = viewer
        .json(&format!("/api/qa/conversation?client_id={client}"))
        .await;
    assert_eq!(vconv["messages"].as_array().unwrap().len(), 2);

    // Clearing one's conversation leaves the others'.
    let (st, _) = send(
        &user,
        reqwest::Method::DELETE,
        &format!("/api/qa/conversation?client_id={client}"),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::NO_CONTENT);
    let (_, conv) = user
        .json(&format!("/api/qa/conversation?client_id={client}"))
        .await;
    assert_eq!(conv["messages"].as_array().unwrap().len(), 0);
    let (_, vconv) = viewer
        .json(&format!("/api/qa/conversation?client_id={client}"))
        .await;
    assert_eq!(vconv["messages"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn a_regulatory_question_is_answered_from_the_knowledge_base_with_its_article_and_page() {
    let app = TestApp::spawn().await;
    let user = app.login(USER_A).await;
    let client = client_of(&user).await;

    // Before the regulation is uploaded: said plainly, nothing made up.
    let a = ask(
        &user,
        &client,
        "What does Article 116 say about public sector entities?",
        None,
    )
    .await;
    assert_eq!(a.status, StatusCode::OK);
    assert!(
        a.streamed.starts_with(
            "1. What the regulation says\n- The knowledge base holds no passage about this."
        ),
        "{}",
        a.streamed
    );

    let admin = app.login(ADMIN).await;
    let (st, v) = crate::knowledge::upload(
        &admin,
        &[("crr.txt", crate::knowledge::txt().into_bytes())],
        &[("category", "assets")],
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{v}");
    let doc = crate::knowledge::settled(&admin, v[0]["id"].as_str().unwrap()).await;
    assert_eq!(doc["status"], "completed", "{doc}");

    // The passage of the TXT's second page, cited with its document, articles and page; even
    // with no analysed file, and without the client's figures.
    for question in [
        "What does Article 116 say about public sector entities?",
        "Which CRR article applies to public sector entities?",
    ] {
        let a = ask(&user, &client, question, None).await;
        assert_eq!(a.status, StatusCode::OK);
        assert_eq!(
            a.streamed,
            "1. What the regulation says\n\
             - Source: crr.txt, Article 116(2), Article 115, page 2\n\
             - Exposures to public sector entities are risk weighted under Article 116(2), as regional governments are under Art. 115.\n",
            "{question}"
        );
    }
    // A question the knowledge base has nothing on.
    let a = ask(
        &user,
        &client,
        "What does the regulation say about crypto assets?",
        None,
    )
    .await;
    assert!(
        a.streamed
            .contains("The knowledge base holds no passage about this."),
        "{}",
        a.streamed
    );
}

#[tokio::test]
async fn another_clients_file_and_bad_questions_are_refused_and_store_nothing() {
    let app = TestApp::spawn().await;
    let user = app.login(USER_A).await;
    let client = client_of(&user).await;
    let file = processed_upload(&user, &client, "hand-pse.csv", HAND_PSE.as_bytes()).await;
    let other = app.login(USER_B).await;
    let other_client = client_of(&other).await;

    // Bank B's user naming Bank A's file under their own client: not found.
    let a = ask(
        &other,
        &other_client,
        "Total exposures in this file",
        Some(&file),
    )
    .await;
    assert_eq!(a.status, StatusCode::NOT_FOUND);
    assert_eq!(a.error["message"], "File not found");
    // Naming Bank A: the client is not theirs.
    let a = ask(&other, &client, "Total exposures in this file", Some(&file)).await;
    assert_eq!(a.status, StatusCode::NOT_FOUND);
    let (st, _) = other
        .json(&format!("/api/qa/conversation?client_id={client}"))
        .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    // Bank B's own question about all its files sees none of Bank A's.
    let a = ask(&other, &other_client, "Total exposures", None).await;
    assert_eq!(a.status, StatusCode::OK);
    assert!(
        a.streamed.starts_with("1. No analysed files\n"),
        "{}",
        a.streamed
    );
    assert!(!a.streamed.contains("hand-pse"), "{}", a.streamed);
    let stored = stored_messages(&app).await;
    assert_eq!(stored, 2);

    // Blank, too long or unknown-file questions: a clear error, nothing stored.
    let a = ask(&user, &client, "   ", None).await;
    assert_eq!(a.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(a.error["message"], "Please enter a question");
    let long = "x".repeat(2001);
    let a = ask(&user, &client, &long, None).await;
    assert_eq!(a.status, StatusCode::UNPROCESSABLE_ENTITY);
    let a = ask(&user, &client, "Total exposures", Some("no-such-file")).await;
    assert_eq!(a.status, StatusCode::NOT_FOUND);
    assert_eq!(stored_messages(&app).await, stored);

    // A run whose stored original is gone cannot be searched for a named exposure: said so.
    let key: String = sqlx::query_scalar("SELECT object_key FROM client_files WHERE id = $1")
        .bind(&file)
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
    app.state
        .storage
        .delete(&server::storage::ObjectKey::parse(&key).unwrap())
        .await
        .unwrap();
    let t = ask(&user, &client, "Tell me about EXP-ADIF-24M", None)
        .await
        .streamed;
    assert!(t.starts_with("1. Exposure not found\n"), "{t}");
    has_line(
        &t,
        "- Not searched: hand-pse.csv (the stored original of its analysis could not be read)",
    );
    // The totals are read from what the run kept, so they still answer.
    let t = ask(&user, &client, "Total exposures", None).await.streamed;
    has_line(&t, "- Total exposure amount: EUR 1,750,000.00");

    // A run completed before its figures were kept: answered from its result's counts, and said.
    sqlx::query("UPDATE processing_runs SET facts = NULL WHERE file_id = $1")
        .bind(&file)
        .execute(&app.state.db.pool)
        .await
        .unwrap();
    let t = ask(&user, &client, "Total exposures and key findings", None)
        .await
        .streamed;
    has_line(&t, "- Exposures: 3");
    has_line(&t, "- Matched exposures: 2 (66.67%)");
    has_line(&t, "- RWA reduction: EUR 900,000.00");
    assert!(!t.contains("Total exposure amount"), "{t}");
    has_line(
        &t,
        "- Not included in the breakdowns: hand-pse.csv (analysed before breakdowns were kept; \
         process it again to include it)",
    );
}

/// What the fake model answers next.
#[derive(Debug, Clone)]
pub(crate) enum Fake {
    /// A streamed answer: these pieces of content, in chunks with quirks.
    Stream(Vec<&'static str>),
    /// 429 with this Retry-After.
    RateLimited(&'static str),
    /// 503 once, then the stream.
    Unavailable(Vec<&'static str>),
    /// 429 once with this Retry-After, then the stream.
    RateLimitedOnce(&'static str, Vec<&'static str>),
    /// Waits this long before answering.
    Slow(Duration),
}

#[derive(Clone)]
pub(crate) struct FakeState {
    pub(crate) next: Arc<Mutex<Fake>>,
    pub(crate) requests: Arc<Mutex<Vec<Value>>>,
    auth: Arc<Mutex<Vec<String>>>,
}

fn sse_body(pieces: &[&str]) -> String {
    let mut out = String::new();
    for (i, p) in pieces.iter().enumerate() {
        // Quirks: an unknown field, finish_reason "" then null, no usage anywhere.
        let chunk = json!({
            "id": "chatcmpl-fake",
            "object": "chat.completion.chunk",
            "service_tier": "on_demand",
            "choices": [{"index": 0, "delta": {"content": p},
                         "finish_reason": if i % 2 == 0 { json!("") } else { Value::Null }}],
        });
        out.push_str(&format!("data: {chunk}\n\n"));
    }
    out.push_str(": keep-alive comment\n\n");
    out.push_str(
        "data: {\"id\":\"chatcmpl-fake\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
    );
    out.push_str("data: [DONE]\n\n");
    out
}

async fn fake_completions(
    axum::extract::State(s): axum::extract::State<FakeState>,
    headers: axum::http::HeaderMap,
    axum::Json(body): axum::Json<Value>,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    s.requests.lock().unwrap().push(body);
    s.auth.lock().unwrap().push(
        headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string(),
    );
    let next = s.next.lock().unwrap().clone();
    let stream = |pieces: &[&str]| {
        // The body arrives in pieces cut mid-line.
        let text = sse_body(pieces);
        let bytes = text.into_bytes();
        let parts: Vec<Result<bytes::Bytes, std::convert::Infallible>> = bytes
            .chunks(37)
            .map(|c| Ok(bytes::Bytes::copy_from_slice(c)))
            .collect();
        (
            [("content-type", "text/event-stream")],
            axum::body::Body::from_stream(futures_util::stream::iter(parts)),
        )
            .into_response()
    };
    match next {
        Fake::Stream(p) => stream(&p),
        Fake::RateLimited(after) => (
            StatusCode::TOO_MANY_REQUESTS,
            [("retry-after", after)],
            axum::Json(json!({"error": {"message": "Rate limit reached", "type": "rate_limit"}})),
        )
            .into_response(),
        Fake::Unavailable(p) => {
            *s.next.lock().unwrap() = Fake::Stream(p);
            (StatusCode::SERVICE_UNAVAILABLE, "busy").into_response()
        }
        Fake::RateLimitedOnce(after, p) => {
            *s.next.lock().unwrap() = Fake::Stream(p);
            (
                StatusCode::TOO_MANY_REQUESTS,
                [("retry-after", after)],
                "slow down",
            )
                .into_response()
        }
        Fake::Slow(d) => {
            tokio::time::sleep(d).await;
            stream(&["1. Too late\n"])
        }
    }
}

pub(crate) async fn fake_model() -> (String, FakeState) {
    let state = FakeState {
        next: Arc::new(Mutex::new(Fake::Stream(vec![]))),
        requests: Arc::new(Mutex::new(vec![])),
        auth: Arc::new(Mutex::new(vec![])),
    };
    let app = axum::Router::new()
        .route(
            "/v1/chat/completions",
            axum::routing::post(fake_completions),
        )
        .with_state(state.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}/v1"), state)
}

#[tokio::test]
async fn the_openai_compatible_path_streams_checks_figures_and_reports_limits() {
    let (base, fake) = fake_model().await;
    let app = TestApp::spawn_with(|c| {
        c.llm_base_url = Some(base.clone());
        c.llm_model = Some("fake-model".into());
        c.llm_api_key = Some(server::config::Secret::from("sk-test-key"));
        c.llm_timeout_secs = 1;
        c.llm_max_retries = 2;
    })
    .await;
    let user = app.login(USER_A).await;
    let client = client_of(&user).await;
    let file = processed_upload(&user, &client, "hand-pse.csv", HAND_PSE.as_bytes()).await;
    // Bank B's data must never reach the model.
    let other = app.login(USER_B).await;
    let other_client = client_of(&other).await;
    processed_upload(
        &other,
        &other_client,
        "bank-b-secret.csv",
        HAND_PSE.as_bytes(),
    )
    .await;
    let f = Some(file.as_str());

    // A streamed answer whose figures are all in the data.
    *fake.next.lock().unwrap() = Fake::Stream(vec![
        "1. Total exposures\n- Exposures: 3\n",
        "- Total exposure amount: EUR 1,750,000.00\n",
        "- Matched: 66.67%\n",
    ]);
    let a = ask(&user, &client, "Total exposures in this file", f).await;
    assert_eq!(a.status, StatusCode::OK);
    assert_eq!(a.done["answer"]["provider"], "openai");
    assert_eq!(a.done["failure"], Value::Null);
    assert_eq!(
        a.streamed,
        "1. Total exposures\n- Exposures: 3\n- Total exposure amount: EUR 1,750,000.00\n- Matched: 66.67%\n"
    );
    {
        let reqs = fake.requests.lock().unwrap();
        let sent = &reqs[0];
        assert_eq!(sent["model"], "fake-model");
        assert_eq!(sent["stream"], true);
        let system = sent["messages"][0]["content"].as_str().unwrap();
        assert!(system.contains("EUR 1,750,000.00"), "{system}");
        assert!(system.contains("hand-pse.csv"), "{system}");
        assert!(!system.contains("bank-b-secret"), "{system}");
        assert_eq!(
            sent["messages"][1]["content"],
            "Total exposures in this file"
        );
        assert_eq!(fake.auth.lock().unwrap()[0], "Bearer sk-test-key");
    }

    // A figure the data does not contain: the answer is refused, with a clear message. (The
    // model reads the conversation so far with the question.)
    *fake.next.lock().unwrap() = Fake::Stream(vec![
        "1. Total exposures\n- Total exposure amount: EUR 2,000,000.00\n",
    ]);
    let a = ask(&user, &client, "Total exposures in this file", f).await;
    assert_eq!(a.done["failure"], "ungrounded");
    assert!(!a.streamed.contains("1. Total exposures"), "{}", a.streamed);
    assert!(a.streamed.contains("2,000,000.00"), "{}", a.streamed);
    assert!(a.streamed.contains("not shown"), "{}", a.streamed);
    {
        let reqs = fake.requests.lock().unwrap();
        let roles: Vec<&str> = reqs[1]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        assert_eq!(roles, ["system", "user", "assistant", "user"]);
        assert_eq!(
            reqs[1]["messages"][2]["content"],
            "1. Total exposures\n- Exposures: 3\n- Total exposure amount: EUR 1,750,000.00\n- Matched: 66.67%\n"
        );
    }

    // A 429 quoting a long wait: the spec's message with the wait, no retry.
    let before = fake.requests.lock().unwrap().len();
    *fake.next.lock().unwrap() = Fake::RateLimited("30");
    let a = ask(&user, &client, "Summarise key findings", f).await;
    assert_eq!(a.done["failure"], "rate_limited");
    assert_eq!(
        a.streamed,
        "I've reached my rate limit. Please try again in 30 seconds."
    );
    assert_eq!(fake.requests.lock().unwrap().len(), before + 1);

    // A 503 is retried after a back-off, and the next answer is shown.
    let before = fake.requests.lock().unwrap().len();
    *fake.next.lock().unwrap() =
        Fake::Unavailable(vec!["1. Key findings\n- RWA reduction: EUR 900,000.00\n"]);
    let a = ask(&user, &client, "Summarise key findings", f).await;
    assert_eq!(a.done["failure"], Value::Null, "{}", a.streamed);
    assert_eq!(
        a.streamed,
        "1. Key findings\n- RWA reduction: EUR 900,000.00\n"
    );
    assert_eq!(fake.requests.lock().unwrap().len(), before + 2);

    // A 429 quoting a short wait is waited for and retried.
    let before = fake.requests.lock().unwrap().len();
    *fake.next.lock().unwrap() =
        Fake::RateLimitedOnce("1", vec!["1. Key findings\n- Not matched: 1\n"]);
    let started = std::time::Instant::now();
    let a = ask(&user, &client, "Summarise key findings", f).await;
    assert!(started.elapsed() >= Duration::from_secs(1));
    assert_eq!(a.done["failure"], Value::Null, "{}", a.streamed);
    assert_eq!(a.streamed, "1. Key findings\n- Not matched: 1\n");
    assert_eq!(fake.requests.lock().unwrap().len(), before + 2);

    // A model slower than the timeout: the spec's error reply.
    *fake.next.lock().unwrap() = Fake::Slow(Duration::from_secs(3));
    let started = std::time::Instant::now();
    let a = ask(&user, &client, "Summarise key findings", f).await;
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(a.done["failure"], "failed");
    assert_eq!(
        a.streamed,
        "Sorry, I encountered an error analyzing the files. Please try again."
    );

    // Every question and reply was kept, the refusals' replies included.
    let (_, conv) = user
        .json(&format!("/api/qa/conversation?client_id={client}"))
        .await;
    assert_eq!(conv["provider"], "openai");
    assert_eq!(conv["messages"].as_array().unwrap().len(), 12);
}

/// The fields of one CSV line (quotes and doubled quotes; the generator writes no line breaks
/// inside fields).
fn fields(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                out.last_mut().unwrap().push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(String::new()),
            (c, _) => out.last_mut().unwrap().push(c),
        }
    }
    out
}

/// `1234567.891` as `1,234,567.89`, written apart from the server's formatter.
fn money(x: f64) -> String {
    let cents = (x * 100.0).round() as i128;
    let (int, frac) = (cents / 100, (cents % 100).abs());
    let digits = int.abs().to_string();
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    format!("{}{grouped}.{frac:02}", if int < 0 { "-" } else { "" })
}

#[tokio::test]
async fn totals_by_asset_class_and_country_of_a_generated_file_equal_the_sums_of_its_rows() {
    let app = TestApp::spawn().await;
    let user = app.login(USER_A).await;
    let client = client_of(&user).await;
    let mut bytes = Vec::new();
    analysis::generate::generate_exposures_with(
        analysis::model::Lever::Sovereigns,
        400,
        15,
        &analysis::refdata::RefData::builtin(),
        &analysis::generate::GenerateOptions {
            asset_class: true,
            ..Default::default()
        },
        &mut bytes,
    )
    .unwrap();
    // The sums, from the file itself.
    let text = String::from_utf8(bytes.clone()).unwrap();
    let mut lines = text.lines();
    let headers = fields(lines.next().unwrap());
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (amount, class, country) = (col("Exposure_Amount"), col("Asset_Class"), col("Country"));
    let mut by_country: std::collections::BTreeMap<String, (u64, f64)> = Default::default();
    let mut rows = 0u64;
    let mut total = 0.0;
    let mut by_class: std::collections::BTreeMap<String, (u64, f64)> = Default::default();
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let r = fields(line);
        let a: f64 = r[amount].trim().parse().expect("a plain amount");
        rows += 1;
        total += a;
        let c = r[class].trim();
        let e = by_class
            .entry(if c.is_empty() {
                "(blank)".into()
            } else {
                c.to_string()
            })
            .or_default();
        e.0 += 1;
        e.1 += a;
        let k = r[country].trim().to_uppercase();
        let e = by_country
            .entry(if k.is_empty() { "(blank)".into() } else { k })
            .or_default();
        e.0 += 1;
        e.1 += a;
    }
    assert!(!by_class.is_empty());

    let file = crate::runs::stored_file(&app, &client, "generated-sovereigns.csv", &bytes).await;
    let run = crate::runs::queue(
        &app,
        &client,
        &file,
        server::service::runs::RunMode::Manual,
        Some("lever-sovereigns"),
    )
    .await;
    let done = crate::runs::wait_final(&user, &run, 120).await;
    assert_eq!(done["state"], "completed", "{done}");

    let started = std::time::Instant::now();
    let a = ask(&user, &client, "Total exposures in this file", Some(&file)).await;
    let took = started.elapsed();
    let t = &a.streamed;
    has_line(t, &format!("- Exposures: {rows}"));
    has_line(t, &format!("- Total exposure amount: EUR {}", money(total)));
    for (c, (n, sum)) in &by_class {
        has_line(
            t,
            &format!(
                "- {c}: {} exposure{}, EUR {} ({:.2}%)",
                n,
                if *n == 1 { "" } else { "s" },
                money(*sum),
                sum / total * 100.0
            ),
        );
    }
    // The three largest countries by amount.
    let t = ask(&user, &client, "Any concentration by country?", Some(&file))
        .await
        .streamed;
    let mut countries: Vec<_> = by_country.into_iter().collect();
    countries.sort_by(|a, b| b.1.1.total_cmp(&a.1.1).then_with(|| a.0.cmp(&b.0)));
    assert!(countries.len() > 1, "{countries:?}");
    let listed: Vec<&str> = t
        .lines()
        .skip_while(|l| *l != "1. Concentration by country")
        .skip(1)
        .take_while(|l| l.starts_with("- ") && !l.ends_with("more groups"))
        .collect();
    let expected: Vec<String> = countries
        .iter()
        .take(3)
        .map(|(k, (n, sum))| {
            format!(
                "- {k}: EUR {} ({:.2}% of the amount, {n} exposure{})",
                money(*sum),
                sum / total * 100.0,
                if *n == 1 { "" } else { "s" }
            )
        })
        .collect();
    assert_eq!(listed, expected, "{t}");
    // Read from the figures the run kept, not from the file: far under the 200 ms target even
    // in a debug build on a busy machine (a generous bound, so the test is not flaky).
    assert!(took < Duration::from_secs(2), "{took:?}");
}

/// With a model configured, lever extraction asks it for the schema's JSON, reads it streamed,
/// and refuses an answer that breaks the schema or quotes a weight the text does not hold.
#[tokio::test]
async fn the_model_extracts_levers_as_json_checked_against_the_schema_and_the_text() {
    let (base, fake) = fake_model().await;
    let app = TestApp::spawn_with(|c| {
        c.llm_base_url = Some(base.clone());
        c.llm_model = Some("fake-model".into());
        c.llm_api_key = Some(server::config::Secret::from("sk-test-key"));
        c.llm_timeout_secs = 2;
        c.llm_max_retries = 0;
    })
    .await;
    let admin = app.login(ADMIN).await;
    let (st, v) = crate::knowledge::upload(
        &admin,
        &[("crr.txt", crate::knowledge::CRR.as_bytes().to_vec())],
        &[("category", "Assets")],
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{v}");
    let id = v[0]["id"].as_str().unwrap().to_string();
    crate::knowledge::settled(&admin, &id).await;
    let path = format!("/api/admin/knowledge/documents/{id}/extract");
    let lever = |weight: u32, category: &str| -> &'static str {
        Box::leak(
            json!({"levers": [{
                "leverName": "Public Sector Entities (PSE)", "leverCategory": category,
                "description": "Article 116", "articleReference": "Article 116",
                "confidenceScore": 0.85,
                "variables": [{"name": "original_maturity_months", "type": "number", "description": "months"}],
                "rules": [{"ruleName": "Short term", "ruleType": "calculation",
                    "ruleDescription": "Original maturity of three months or less",
                    "conditions": {"maturity": "le_3m_original"}, "actions": {"riskWeight": weight},
                    "priority": 90, "isActive": true, "articleReference": "Article 116(3)"}]
            }]})
            .to_string()
            .into_boxed_str(),
        )
    };
    // The answer arrives in pieces, as a fenced JSON block.
    let good = lever(20, "Assets");
    let (a, b) = good.split_at(good.len() / 2);
    *fake.next.lock().unwrap() = Fake::Stream(vec!["```json\n", a, b, "\n```"]);
    let (st, x) = send(&admin, reqwest::Method::POST, &path, None).await;
    assert_eq!(st, StatusCode::OK, "{x}");
    assert_eq!(x["engine"], "openai");
    assert_eq!(
        x["levers"][0]["rules"][0]["actions"],
        json!({"riskWeight": 20})
    );
    {
        let reqs = fake.requests.lock().unwrap();
        let sent = reqs.last().unwrap();
        assert_eq!(sent["response_format"]["type"], "json_object");
        let system = sent["messages"][0]["content"].as_str().unwrap();
        assert!(system.contains("leverCategory"), "{system}");
        let user = sent["messages"][1]["content"].as_str().unwrap();
        assert!(
            user.contains("Article 116") && user.contains("[page 1]"),
            "{user}"
        );
    }
    // A weight the text does not hold (the articles have no 35 %).
    *fake.next.lock().unwrap() = Fake::Stream(vec![lever(35, "Assets")]);
    let (st, v) = send(&admin, reqwest::Method::POST, &path, None).await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(v["message"].as_str().unwrap().contains("35"), "{v}");
    // Outside the schema.
    *fake.next.lock().unwrap() = Fake::Stream(vec![lever(20, "Loans")]);
    let (st, v) = send(&admin, reqwest::Method::POST, &path, None).await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .starts_with("Extraction error: the model's extraction does not follow the schema"),
        "{v}"
    );
    // Not JSON at all.
    *fake.next.lock().unwrap() = Fake::Stream(vec!["I found three levers."]);
    let (st, v) = send(&admin, reqwest::Method::POST, &path, None).await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("not the JSON asked for"),
        "{v}"
    );
    // The model's rate limit: the specification's message with the quoted wait.
    *fake.next.lock().unwrap() = Fake::RateLimited("30");
    let (st, v) = send(&admin, reqwest::Method::POST, &path, None).await;
    assert_eq!(st, StatusCode::TOO_MANY_REQUESTS, "{v}");
    assert_eq!(
        v["message"],
        "I've reached my rate limit. Please try again in 30 seconds."
    );
}
