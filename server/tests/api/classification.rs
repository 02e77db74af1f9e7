//! Enhanced Classification Training: the lists (each file's latest enhanced-AI classification,
//! counts, pages, statuses), one classification with the engine's evidence and the stored file
//! read again, approval (the review recorded with its confidence delta, the file processed with
//! the chosen lever, a new mapping saved as a template once), rejection, the events, and reviews
//! that teach the classifier per client: a correction changes its own client's next prediction
//! at once and only leans another client's towards it.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};
use server::service::runs::RunMode;

use crate::helpers::*;
use crate::realtime::{Ws, client_id};
use crate::runs::{generated_csv, queue, stored_file, wait_final};

/// A file no evidence points at: the classifier proposes no lever and it waits for review.
const UNKNOWN: &[u8] = b"Reference,Amount,Notes\nA-1,1000,first\nA-2,2000,second\nA-3,1500,third\n";

/// Stores a file of `client`, runs it in enhanced-AI mode to its end: (file, run, snapshot).
async fn classified(
    app: &TestApp,
    s: &Session,
    client: &str,
    name: &str,
    bytes: &[u8],
) -> (String, String, Value) {
    let file = stored_file(app, client, name, bytes).await;
    let run = queue(app, client, &file, RunMode::EnhancedAi, None).await;
    let v = wait_final(s, &run, 60).await;
    (file, run, v)
}

async fn lever(app: &TestApp, code: &str) -> String {
    let (id,): (String,) = sqlx::query_as("SELECT id FROM levers WHERE code = $1")
        .bind(code)
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
    id
}

async fn page(s: &Session, query: &str) -> Value {
    let (st, v) = s
        .json(&format!("/api/admin/classification-reviews?{query}"))
        .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    v
}

fn ids(page: &Value) -> Vec<String> {
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_string())
        .collect()
}

async fn feedback_row(app: &TestApp, run: &str) -> (String, String, f64, String, Option<String>) {
    sqlx::query_as(
        "SELECT feedback_type, reviewed_lever, confidence_delta, explanation, follow_up_run_id
         FROM classification_feedback WHERE run_id = $1",
    )
    .bind(run)
    .fetch_one(&app.state.db.pool)
    .await
    .unwrap()
}

async fn templates(app: &TestApp, client: &str) -> Vec<(String, String)> {
    sqlx::query_as(
        "SELECT template_name, target_mapping FROM column_mappings WHERE client_id = $1
         ORDER BY created_at",
    )
    .bind(client)
    .fetch_all(&app.state.db.pool)
    .await
    .unwrap()
}

#[tokio::test]
async fn the_lists_hold_each_files_latest_classification_and_decisions_move_it() {
    let app = TestApp::spawn().await;
    let user = app.login(USER_A).await;
    let admin = app.login(ADMIN).await;
    let client = client_id(&app, "Bank A").await;

    // An unknown layout (pending review), a PSE file classified twice (only the latest run is an
    // item), and a PDF whose run failed (counted as rejected).
    let (unknown, unknown_run, v) = classified(&app, &user, &client, "unknown.csv", UNKNOWN).await;
    assert_eq!(v["state"], "pending_review", "{v}");
    let pse_bytes = generated_csv(analysis::model::Lever::Pse, 200, 41);
    let (pse, first_pse_run, v) = classified(&app, &user, &client, "pse.csv", &pse_bytes).await;
    assert_eq!(v["state"], "completed", "{v}");
    let pse_run = queue(&app, &client, &pse, RunMode::EnhancedAi, None).await;
    assert_eq!(wait_final(&user, &pse_run, 60).await["state"], "completed");
    let (_, pdf_run, v) =
        classified(&app, &user, &client, "report.pdf", b"%PDF-1.7\n%\xe2\n").await;
    assert_eq!(v["state"], "failed");

    // Administrators only.
    let (st, _) = user.json("/api/admin/classification-reviews").await;
    assert_eq!(st, StatusCode::FORBIDDEN);

    let pending = page(&admin, "tab=pending").await;
    assert_eq!(
        pending["counts"],
        json!({"pending": 2, "reviewed": 1, "all": 3}),
        "{pending}"
    );
    assert_eq!(pending["learning"], Value::Null, "no review yet");
    assert_eq!(ids(&pending), [pse_run.clone(), unknown_run.clone()]);
    assert!(!ids(&page(&admin, "tab=all").await).contains(&first_pse_run));
    let items = pending["items"].as_array().unwrap();
    assert_eq!(items[0]["predictedLever"], "pse");
    assert_eq!(items[0]["predictedLeverId"], lever(&app, "pse").await);
    assert!(items[0]["confidence"].as_f64().unwrap() >= 0.7);
    assert_eq!(items[0]["runState"], "completed");
    assert_eq!(items[0]["status"], "requires_review");
    assert_eq!(items[1]["predictedLever"], Value::Null);
    assert_eq!(items[1]["runState"], "pending_review");
    assert_eq!(items[1]["fileName"], "unknown.csv");
    assert_eq!(items[1]["clientName"], "Bank A");
    let reviewed = page(&admin, "tab=reviewed").await;
    assert_eq!(ids(&reviewed), std::slice::from_ref(&pdf_run));
    assert_eq!(reviewed["items"][0]["status"], "rejected");
    assert_eq!(reviewed["items"][0]["reviewedAt"], Value::Null);
    // Pages.
    let second = page(&admin, "tab=pending&page=2&page_size=1").await;
    assert_eq!(
        (ids(&second), &second["total"]),
        (vec![unknown_run.clone()], &json!(2))
    );
    let (st, _) = admin
        .json("/api/admin/classification-reviews?tab=other")
        .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);

    // One classification: the engine's evidence and the stored file read again.
    let (st, d) = admin
        .json(&format!("/api/admin/classification-reviews/{pse_run}"))
        .await;
    assert_eq!(st, StatusCode::OK, "{d}");
    let a = &d["analysis"];
    assert_eq!(a["lever"], "pse");
    assert!(a["reason"].as_str().unwrap().starts_with("pse ("), "{a}");
    assert!(!a["evidence"].as_array().unwrap().is_empty());
    assert!(
        a["identifierHits"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["list"] == "PSE" && h["found"].as_u64().unwrap() > 0),
        "{a}"
    );
    assert_eq!(a["competitors"].as_array().unwrap().len(), 5);
    let nif = a["columns"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["role"] == "nif")
        .expect("a NIF column");
    assert_eq!(nif["standardColumn"], "NIF", "{nif}");
    assert!(nif["confidence"].as_f64().unwrap() > 0.5);
    assert_eq!(d["suggestions"][0]["lever"], "pse");
    assert!(
        !d["suggestions"][0]["reasons"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert!(d["inspection"]["columns"].as_array().unwrap().len() > 3);
    assert_eq!(d["followUp"], Value::Null);
    let (st, d) = admin
        .json(&format!("/api/admin/classification-reviews/{unknown_run}"))
        .await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(d["analysis"]["lever"], Value::Null);
    assert_eq!(d["suggestions"], json!([]), "no evidence, no suggestion");
    let columns: Vec<&str> = d["inspection"]["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(columns, ["Reference", "Amount", "Notes"]);
    // An earlier run of a file is not an item.
    let (st, _) = admin
        .json(&format!(
            "/api/admin/classification-reviews/{first_pse_run}"
        ))
        .await;
    assert_eq!(st, StatusCode::NOT_FOUND);

    // The team already has a template with this mapping: approving with it saves none.
    let mapping = json!({"Exposure_ID": "Reference", "Exposure_Amount": "Amount"});
    let r = admin
        .post(
            &format!("/api/mapping-templates?client_id={client}"),
            json!({"name": "Reference layout", "sourceColumns": ["Reference", "Amount", "Notes"], "mapping": mapping}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let mut ws = Ws::connect(&admin).await;
    let answers = ws
        .subscribe(&["admin:classification", &format!("client:{client}:files")])
        .await;
    assert!(
        answers.iter().all(|a| a["type"] == "subscribed"),
        "{answers:?}"
    );

    // Approve with a correction: the review, its delta, the default feedback; the file is
    // processed with the chosen lever (a manual-mode run with that lever and the mapping).
    let corporates = lever(&app, "corporates").await;
    let (st, out) = body(
        admin
            .post(
                &format!("/api/admin/classification-reviews/{unknown_run}/approve"),
                json!({"leverId": corporates, "feedback": "  ", "mapping": mapping}),
            )
            .await,
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{out}");
    assert_eq!(out["item"]["status"], "approved");
    assert_eq!(out["item"]["corrected"], true);
    assert_eq!(out["item"]["confidenceDelta"], -0.2);
    assert_eq!(
        out["item"]["feedback"],
        "No specific feedback provided by admin"
    );
    assert_eq!(out["item"]["reviewedBy"], ADMIN);
    assert_eq!(out["item"]["reviewedLeverId"], corporates.as_str());
    assert_eq!(out["template"], Value::Null, "the mapping was not new");
    let follow = out["run"]["id"].as_str().unwrap().to_string();
    assert_eq!(out["item"]["followUpRunId"], follow.as_str());
    assert_eq!(out["run"]["mode"], "manual");
    let (kind, reviewed_lever, delta, explanation, follow_up) =
        feedback_row(&app, &unknown_run).await;
    assert_eq!(
        (
            kind.as_str(),
            reviewed_lever.as_str(),
            delta,
            explanation.as_str()
        ),
        (
            "approval",
            "corporates",
            -0.2,
            "No specific feedback provided by admin"
        )
    );
    assert_eq!(follow_up.as_deref(), Some(follow.as_str()));
    let row = server::db::runs::get(&app.state.db.pool, &follow)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(row.lever_id.as_deref(), Some(corporates.as_str()));
    assert!(
        row.options.contains("\"Exposure_ID\":\"Reference\""),
        "{}",
        row.options
    );
    let (file_lever,): (Option<String>,) =
        sqlx::query_as("SELECT lever_id FROM client_files WHERE id = $1")
            .bind(&unknown)
            .fetch_one(&app.state.db.pool)
            .await
            .unwrap();
    assert_eq!(file_lever.as_deref(), Some(corporates.as_str()));
    // The events, after the commit.
    let mut seen = Vec::new();
    while let Some(f) = ws.next_json(Duration::from_millis(500)).await {
        seen.push((
            f["topic"].as_str().unwrap_or("").to_string(),
            f["type"].as_str().unwrap_or("").to_string(),
            f["data"].clone(),
        ));
    }
    assert!(
        seen.iter().any(|(t, k, d)| t == "admin:classification"
            && k == "classification.reviewed"
            && d["runId"] == unknown_run.as_str()
            && d["status"] == "approved"),
        "{seen:?}"
    );
    assert!(
        seen.iter()
            .any(|(t, k, _)| t.ends_with(":files") && k == "file.updated"),
        "{seen:?}"
    );

    // Decided once: a second decision is refused.
    let r = admin
        .post(
            &format!("/api/admin/classification-reviews/{unknown_run}/reject"),
            json!({}),
        )
        .await;
    let (st, v) = body(r).await;
    assert_eq!(
        (st, v["code"].as_str()),
        (StatusCode::CONFLICT, Some("already_reviewed"))
    );
    // The follow-up run ends (this bare file lacks the lever's columns); the item stays the
    // file's, approved, with its follow-up.
    let f = wait_final(&admin, &follow, 60).await;
    assert!(
        matches!(f["state"].as_str(), Some("completed" | "failed")),
        "{f}"
    );
    let (_, d) = admin
        .json(&format!("/api/admin/classification-reviews/{unknown_run}"))
        .await;
    assert_eq!(d["item"]["status"], "approved");
    assert_eq!(d["followUp"]["id"], follow.as_str());
    assert_eq!(
        d["mapping"],
        Value::Null,
        "the classifying run had no mapping"
    );

    // Reject the PSE classification: recorded, the file untouched, nothing processed.
    let before: (i64, f64) =
        sqlx::query_as("SELECT processed, savings_rwas FROM client_files WHERE id = $1")
            .bind(&pse)
            .fetch_one(&app.state.db.pool)
            .await
            .unwrap();
    let (st, out) = body(
        admin
            .post(
                &format!("/api/admin/classification-reviews/{pse_run}/reject"),
                json!({"feedback": "Not a public sector file"}),
            )
            .await,
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{out}");
    assert_eq!(out["item"]["status"], "rejected");
    assert_eq!(out["run"], Value::Null);
    let (kind, _, delta, explanation, follow_up) = feedback_row(&app, &pse_run).await;
    assert_eq!(
        (kind.as_str(), delta, explanation.as_str(), follow_up),
        ("rejection", 0.1, "Not a public sector file", None)
    );
    let after: (i64, f64) =
        sqlx::query_as("SELECT processed, savings_rwas FROM client_files WHERE id = $1")
            .bind(&pse)
            .fetch_one(&app.state.db.pool)
            .await
            .unwrap();
    assert_eq!(before, after);
    // A rejection does not teach the classifier.
    assert_eq!(
        server::service::classification::reviews(&app.state.db.pool)
            .await
            .unwrap()
            .len(),
        1
    );

    let lists = page(&admin, "tab=reviewed").await;
    assert_eq!(
        lists["counts"],
        json!({"pending": 0, "reviewed": 3, "all": 3})
    );
    // Newest decision first; the failed run (never decided) last.
    assert_eq!(ids(&lists), [pse_run.clone(), unknown_run.clone(), pdf_run]);
    let l = &lists["learning"];
    assert_eq!(
        (&l["reviewed"], &l["approved"]),
        (&json!(1), &json!(0)),
        "{l}"
    );
    assert_eq!(page(&admin, "tab=pending").await["items"], json!([]));

    // A new mapping approved without a template is saved as one of the client's templates.
    let (_, other_run, v) = classified(
        &app,
        &user,
        &client,
        "ledger.csv",
        b"Ref,Value,Comment\nL-1,10,a\nL-2,20,b\n",
    )
    .await;
    assert_eq!(v["state"], "pending_review", "{v}");
    let new_mapping = json!({"Exposure_ID": "Ref", "Exposure_Amount": "Value"});
    let (st, out) = body(
        admin
            .post(
                &format!("/api/admin/classification-reviews/{other_run}/approve"),
                json!({"leverId": corporates, "feedback": "Corporate ledger", "mapping": new_mapping}),
            )
            .await,
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{out}");
    assert_eq!(
        out["template"]["name"], "Corporates with Eligible Collateral - ledger.csv",
        "{out}"
    );
    assert_eq!(out["template"]["mapping"], new_mapping);
    let saved = templates(&app, &client).await;
    assert_eq!(saved.len(), 2, "{saved:?}");
}

#[tokio::test]
async fn decisions_are_refused_without_a_usable_lever_or_for_other_runs() {
    let app = TestApp::spawn().await;
    let user = app.login(USER_A).await;
    let admin = app.login(ADMIN).await;
    let client = client_id(&app, "Bank A").await;
    let (_, run, _) = classified(&app, &user, &client, "unknown.csv", UNKNOWN).await;
    let url = format!("/api/admin/classification-reviews/{run}/approve");
    for (body_json, code) in [
        (json!({"leverId": "tbd"}), StatusCode::UNPROCESSABLE_ENTITY),
        (
            json!({"leverId": "no-such-lever"}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
        (
            json!({"leverId": lever(&app, "pse").await, "feedback": "x".repeat(5001)}),
            StatusCode::UNPROCESSABLE_ENTITY,
        ),
    ] {
        let r = admin.post(&url, body_json.clone()).await;
        assert_eq!(r.status(), code, "{body_json}");
    }
    let r = admin
        .post(
            "/api/admin/classification-reviews/no-such-run/approve",
            json!({"leverId": lever(&app, "pse").await}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    // A manual run is not a classification.
    let file = stored_file(&app, &client, "manual.csv", UNKNOWN).await;
    let manual = queue(
        &app,
        &client,
        &file,
        RunMode::Manual,
        Some(&lever(&app, "pse").await),
    )
    .await;
    wait_final(&user, &manual, 60).await;
    let (st, _) = admin
        .json(&format!("/api/admin/classification-reviews/{manual}"))
        .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    // Nothing was recorded by the refusals.
    let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM classification_feedback")
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
    assert_eq!(n, 0);
}

/// The classifier as a run of `client` calls it, over the stored reviews, for the unknown
/// layout's columns: (lever code, confidence).
async fn prediction(app: &TestApp, client: &str) -> (Option<String>, f64, Value) {
    let mut conn = app.state.db.pool.acquire().await.unwrap();
    let reviews = server::service::classification::reviews_for(&mut conn, client)
        .await
        .unwrap();
    let headers = ["Reference", "Amount", "Notes"];
    let rows = vec![vec!["B-1", "500", "x"], vec!["B-2", "700", "y"]];
    let (c, learning) = server::service::classification::classify(
        &reviews,
        &headers,
        &rows,
        &analysis::refdata::RefData::builtin(),
    );
    (
        c.lever.map(|l| l.as_str().to_string()),
        c.confidence,
        serde_json::to_value(learning).unwrap(),
    )
}

/// A classification corrected once in review changes its own client's next prediction at once
/// (the next upload with those columns is classified as the corrected lever above the 0.7
/// threshold and goes on to the analysis), and only leans another client's towards it (proposed
/// for review, below the threshold) until that client's own review; each client then follows
/// its own correction.
#[tokio::test]
async fn a_corrected_classification_changes_the_next_prediction_of_its_own_client() {
    let app = TestApp::spawn().await;
    let user_a = app.login(USER_A).await;
    let user_b = app.login(USER_B).await;
    let admin = app.login(ADMIN).await;
    let bank_a = client_id(&app, "Bank A").await;
    let bank_b = client_id(&app, "Bank B").await;

    let (none_a, _, _) = prediction(&app, &bank_a).await;
    assert_eq!(none_a, None, "no evidence, no lever");
    let (_, run_a, v) = classified(&app, &user_a, &bank_a, "unknown.csv", UNKNOWN).await;
    assert_eq!(v["state"], "pending_review", "{v}");
    let corporates = lever(&app, "corporates").await;
    let r = admin
        .post(
            &format!("/api/admin/classification-reviews/{run_a}/approve"),
            json!({"leverId": corporates, "feedback": "A corporate loan book"}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);

    // Bank A's own review counts fully: its next file is confidently corporates.
    let (lever_a, confidence_a, learning_a) = prediction(&app, &bank_a).await;
    assert_eq!(lever_a.as_deref(), Some("corporates"));
    assert!(confidence_a >= 0.7, "{confidence_a}");
    assert_eq!(
        (
            &learning_a["reviewed"],
            &learning_a["clientReviewed"],
            &learning_a["similar"]
        ),
        (&json!(1), &json!(1), &json!(1))
    );
    // Bank B sees another client's review as a hint only: proposed, below the threshold.
    let (lever_b, confidence_b, learning_b) = prediction(&app, &bank_b).await;
    assert_eq!(lever_b.as_deref(), Some("corporates"));
    assert!(confidence_b < 0.7 && confidence_b > 0.3, "{confidence_b}");
    assert_eq!(
        (
            &learning_b["reviewed"],
            &learning_b["clientReviewed"],
            &learning_b["clientAccuracy"]
        ),
        (&json!(1), &json!(0), &Value::Null)
    );

    // Through real runs: Bank B's upload waits for review with corporates proposed and the
    // review in its evidence ...
    let (_, run_b, v) = classified(&app, &user_b, &bank_b, "unknown.csv", UNKNOWN).await;
    assert_eq!(v["state"], "pending_review", "{v}");
    let c = &v["result"]["classification"];
    assert_eq!(c["lever"], "corporates", "{c}");
    assert!(
        c["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["kind"] == "feedback" && e["lever"] == "corporates"),
        "{c}"
    );
    assert_eq!(c["learning"]["clientReviewed"], 0);
    // ... while Bank A's goes on to the analysis under corporates (which this bare file cannot
    // feed: it lacks the lever's columns).
    let (_, _, v) = classified(&app, &user_a, &bank_a, "unknown-2.csv", UNKNOWN).await;
    assert_eq!(v["state"], "failed", "{v}");
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .starts_with("Missing required columns"),
        "{v}"
    );

    // Bank B's own review says sovereigns: each client now follows its own correction.
    let sovereigns = lever(&app, "sovereigns").await;
    let r = admin
        .post(
            &format!("/api/admin/classification-reviews/{run_b}/approve"),
            json!({"leverId": sovereigns}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    let (lever_b, confidence_b, learning_b) = prediction(&app, &bank_b).await;
    assert_eq!(lever_b.as_deref(), Some("sovereigns"));
    assert!(confidence_b >= 0.7, "{confidence_b}");
    // Bank B's own review corrected a corporates proposal: its own accuracy is 0.
    assert_eq!(
        (
            &learning_b["reviewed"],
            &learning_b["clientReviewed"],
            &learning_b["clientAccuracy"]
        ),
        (&json!(2), &json!(1), &json!(0.0))
    );
    let (lever_a, confidence_a, _) = prediction(&app, &bank_a).await;
    assert_eq!(lever_a.as_deref(), Some("corporates"));
    assert!(confidence_a >= 0.7, "{confidence_a}");
}

/// A run whose classified lever cannot be analysed (the file lacks that lever's required
/// columns) fails, and keeps its classification: the training list shows what the AI proposed
/// beside the failure, here the lever a review taught it for this layout.
#[tokio::test]
async fn a_run_that_fails_after_classifying_keeps_its_classification() {
    let app = TestApp::spawn().await;
    let user = app.login(USER_A).await;
    let admin = app.login(ADMIN).await;
    let client = client_id(&app, "Bank A").await;
    let corporates = lever(&app, "corporates").await;
    let (_, run, v) = classified(&app, &user, &client, "ledger-1.csv", UNKNOWN).await;
    assert_eq!(v["state"], "pending_review", "{v}");
    let r = admin
        .post(
            &format!("/api/admin/classification-reviews/{run}/approve"),
            json!({"leverId": corporates, "feedback": "A corporate ledger"}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    // The same layout again: now classified as corporates, whose analysis needs columns the
    // file does not have.
    let (_, second, v) = classified(&app, &user, &client, "ledger-2.csv", UNKNOWN).await;
    assert_eq!(v["state"], "failed", "{v}");
    assert!(
        v["error"]
            .as_str()
            .is_some_and(|e| e.contains("Missing required columns")),
        "{v}"
    );
    assert_eq!(v["result"]["leverId"], json!(corporates), "{v}");
    assert_eq!(v["result"]["savingsRwas"], 0.0);
    assert!(v["result"]["classification"].is_object(), "{v}");
    let all = page(&admin, "tab=all&page_size=50").await;
    let item = all["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == json!(second))
        .unwrap_or_else(|| panic!("{all}"));
    assert_eq!(item["predictedLever"], "corporates", "{item}");
    assert_eq!(item["runState"], "failed");
    // The file has no lever and no savings from it.
    let (lever_id, processed): (Option<String>, i64) = sqlx::query_as(
        "SELECT f.lever_id, f.processed FROM client_files f JOIN processing_runs r ON r.file_id = f.id WHERE r.id = $1",
    )
    .bind(&second)
    .fetch_one(&app.state.db.pool)
    .await
    .unwrap();
    assert_eq!((lever_id, processed), (None, 0));
}
