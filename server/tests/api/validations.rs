//! Validations: a landed result opens one pending validation in the completion's transaction, a
//! reprocessed file's new result supersedes the earlier pending one, a result pending review opens
//! none, and the client's pending count equals the pending records after every landing,
//! reprocess, decision and deletion; decisions only from pending with the specification's
//! message, the approver rule with a client-specific approver, two approvers deciding at once
//! (one wins, the other is told it is not pending), status changes from the status seen, the
//! filters and paging of the lists, the analysis from the run's result, and the events.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};
use server::service::runs::{self as runs, Figures, Outcome, RunChecks, RunMode, RunResult};

use crate::helpers::*;
use crate::realtime::{Ws, client_id};
use crate::runs::{queue, stored_file};

const APPROVER2: &str = "approver2@example.com";

fn result(rwas: f64, bps: f64) -> RunResult {
    RunResult {
        lever_id: Some("lever-pse".into()),
        lever_name: Some("Public Sector Entities (PSE)".into()),
        savings_rwas: rwas,
        savings_bps: bps,
        confidence: None,
        rows: 4,
        matched: 3,
        not_matched: 1,
        errors: 0,
        mapped_columns: 2,
        classification: None,
        checks: RunChecks {
            error_rows: 0,
            unreadable_values: 0,
            flagged_rows: 0,
            totals_reconciled: true,
        },
        reporting_date: None,
    }
}

/// Queues, claims and completes a run of `file` with `outcome` (no worker runs in these tests):
/// the run's id.
async fn land(app: &TestApp, client: &str, file: &str, outcome: Outcome) -> String {
    let run = queue(app, client, file, RunMode::Manual, Some("lever-pse")).await;
    let row = runs::claim(&app.state, "validations-test", Duration::from_secs(15))
        .await
        .unwrap()
        .expect("a run to claim");
    assert_eq!(row.id, run);
    assert!(
        runs::finish(
            &app.state,
            &row,
            "validations-test",
            outcome,
            Figures::default(),
            row.seq + 1,
        )
        .await
        .unwrap()
    );
    run
}

fn completed(rwas: f64, bps: f64) -> Outcome {
    Outcome::Completed {
        processed_key: format!("clients/x/output/{}.csv", uuid::Uuid::new_v4()),
        result: result(rwas, bps),
        facts: None,
    }
}

/// The client's stored count and its pending records, which must always be equal.
async fn counts(app: &TestApp, client: &str) -> i64 {
    let (stored,): (i64,) = sqlx::query_as("SELECT pending_validations FROM clients WHERE id = $1")
        .bind(client)
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
    let (records,): (i64,) = sqlx::query_as(
        "SELECT COUNT(*) FROM file_validations WHERE client_id = $1 AND status = 'pending'",
    )
    .bind(client)
    .fetch_one(&app.state.db.pool)
    .await
    .unwrap();
    assert_eq!(stored, records, "the pending count equals the records");
    stored
}

/// The validations of a file: (id, status, run id, superseded by), oldest first.
async fn of_file(app: &TestApp, file: &str) -> Vec<(String, String, String, Option<String>)> {
    sqlx::query_as(
        "SELECT id, status, run_id, superseded_by FROM file_validations WHERE file_id = $1 ORDER BY created_at, id",
    )
    .bind(file)
    .fetch_all(&app.state.db.pool)
    .await
    .unwrap()
}

async fn csv_file(app: &TestApp, client: &str, name: &str) -> String {
    stored_file(app, client, name, b"NIF,Exposure_Amount\nQ2826000H,1\n").await
}

#[tokio::test]
async fn a_landed_result_opens_one_validation_and_the_count_follows_every_change() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let client = client_id(&app, "Bank A").await;
    assert_eq!(counts(&app, &client).await, 0);

    // A result lands: one pending validation, in the completion's transaction.
    let file = csv_file(&app, &client, "a.csv").await;
    let first_run = land(&app, &client, &file, completed(1_000.0, 0.5)).await;
    let v = of_file(&app, &file).await;
    assert_eq!(v.len(), 1);
    assert_eq!(
        (v[0].1.as_str(), v[0].2.as_str()),
        ("pending", first_run.as_str())
    );
    assert_eq!(counts(&app, &client).await, 1);

    // A second completion of the same run writes nothing (the run is no longer running).
    let row = server::db::runs::get(&app.state.db.pool, &first_run)
        .await
        .unwrap()
        .unwrap();
    assert!(
        !runs::finish(
            &app.state,
            &row,
            "validations-test",
            completed(1.0, 0.0),
            Figures::default(),
            row.seq + 9
        )
        .await
        .unwrap()
    );
    assert_eq!(of_file(&app, &file).await.len(), 1);
    assert_eq!(counts(&app, &client).await, 1);

    // Reprocessed: a fresh pending validation, the earlier pending one superseded by it.
    let second_run = land(&app, &client, &file, completed(2_000.0, 1.0)).await;
    let v = of_file(&app, &file).await;
    assert_eq!(v.len(), 2);
    assert_eq!(v[0].1, "superseded");
    assert_eq!(v[0].3.as_deref(), Some(v[1].0.as_str()));
    assert_eq!(
        (v[1].1.as_str(), v[1].2.as_str()),
        ("pending", second_run.as_str())
    );
    assert_eq!(counts(&app, &client).await, 1);

    // A run that ends pending review opens none (the classification review comes first).
    let unsure = csv_file(&app, &client, "unsure.csv").await;
    land(
        &app,
        &client,
        &unsure,
        Outcome::PendingReview {
            result: result(0.0, 0.0),
        },
    )
    .await;
    assert!(of_file(&app, &unsure).await.is_empty());
    assert_eq!(counts(&app, &client).await, 1);

    // A second file, then decisions and deletions: the count stays equal to the records.
    let other = csv_file(&app, &client, "b.csv").await;
    land(&app, &client, &other, completed(500.0, 0.2)).await;
    assert_eq!(counts(&app, &client).await, 2);
    let approver = app.login(APPROVER).await;
    let pending_of_other = of_file(&app, &other).await[0].0.clone();
    let r = approver
        .post_empty(&format!("/api/validations/{pending_of_other}/approve"))
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(counts(&app, &client).await, 1);

    // Deleting a file with a pending validation lowers the count; with a decided one it does not.
    let user = app.login(USER_A).await;
    let r = user
        .http
        .delete(app.url(&format!("/api/files/{file}")))
        .header("x-csrf-token", user.cookie("capopt_csrf").unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    assert!(of_file(&app, &file).await.is_empty());
    assert_eq!(counts(&app, &client).await, 0);
    let r = user
        .http
        .delete(app.url(&format!("/api/files/{other}")))
        .header("x-csrf-token", user.cookie("capopt_csrf").unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    assert_eq!(counts(&app, &client).await, 0);
    let (_, summary) = user
        .json(&format!("/api/validations/summary?client_id={client}"))
        .await;
    assert_eq!(summary["pendingValidations"], 0);
    assert_eq!(summary["canApprove"], false);
}

async fn reject(s: &Session, id: &str, reason: &str) -> (StatusCode, Value) {
    body(
        s.post(
            &format!("/api/validations/{id}/reject"),
            json!({ "reason": reason }),
        )
        .await,
    )
    .await
}

async fn change_status(
    s: &Session,
    id: &str,
    to: &str,
    expected: &str,
    reason: Option<&str>,
) -> (StatusCode, Value) {
    body(
        s.post(
            &format!("/api/validations/{id}/status"),
            json!({ "status": to, "expectedStatus": expected, "reason": reason }),
        )
        .await,
    )
    .await
}

#[tokio::test]
async fn decisions_go_from_pending_only_and_store_who_when_and_why() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let client = client_id(&app, "Bank A").await;
    let a = csv_file(&app, &client, "a.csv").await;
    let b = csv_file(&app, &client, "b.csv").await;
    land(&app, &client, &a, completed(1_000.0, 0.5)).await;
    land(&app, &client, &b, completed(2_000.0, 1.0)).await;
    let va = of_file(&app, &a).await[0].0.clone();
    let vb = of_file(&app, &b).await[0].0.clone();
    let approver = app.login(APPROVER).await;

    let (st, v) = body(
        approver
            .post_empty(&format!("/api/validations/{va}/approve"))
            .await,
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["status"], "approved");
    assert!(v["validatedAt"].is_string());
    assert_eq!(v["validatedByName"], "Pablo Approver");
    assert_eq!(counts(&app, &client).await, 1);

    // Not pending any more: the specification's message, nothing changed.
    let (st, e) = body(
        approver
            .post_empty(&format!("/api/validations/{va}/approve"))
            .await,
    )
    .await;
    assert_eq!(st, StatusCode::CONFLICT);
    assert_eq!(
        e["message"],
        "Cannot approve/reject validation that is not pending (current status: approved)"
    );
    let (st, e) = reject(&approver, &va, "too late").await;
    assert_eq!(st, StatusCode::CONFLICT);
    assert_eq!(
        e["message"],
        "Cannot approve/reject validation that is not pending (current status: approved)"
    );

    // A rejection needs a reason; a blank one changes nothing.
    let (st, e) = reject(&approver, &vb, "   ").await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(e["message"], "Please provide a reason for rejection");
    assert_eq!(counts(&app, &client).await, 1);
    let (st, v) = reject(&approver, &vb, "  The lever is wrong\nfor these rows ").await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["status"], "rejected");
    assert_eq!(v["rejectionReason"], "The lever is wrong\nfor these rows");
    assert_eq!(counts(&app, &client).await, 0);

    // Change Validation Status: back to pending (the count follows), from the status seen only.
    let (st, e) = change_status(&approver, &vb, "pending", "approved", None).await;
    assert_eq!(st, StatusCode::CONFLICT, "{e}");
    assert_eq!(
        e["message"],
        "Cannot change validation status: it is rejected now, not approved"
    );
    let (st, v) = change_status(&approver, &vb, "pending", "rejected", None).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["status"], "pending");
    assert!(v["validatedAt"].is_null() && v["rejectionReason"].is_null());
    assert_eq!(counts(&app, &client).await, 1);
    let (st, _) = change_status(&approver, &vb, "rejected", "pending", None).await;
    assert_eq!(
        st,
        StatusCode::UNPROCESSABLE_ENTITY,
        "a rejection needs its reason"
    );
    let (st, _) = change_status(&approver, &vb, "superseded", "pending", None).await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    let (st, v) = change_status(&approver, &va, "rejected", "approved", Some("Second look")).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(counts(&app, &client).await, 1);

    // A superseded validation is history: it can neither be decided nor change.
    land(&app, &client, &b, completed(3_000.0, 1.5)).await;
    let (st, e) = body(
        approver
            .post_empty(&format!("/api/validations/{vb}/approve"))
            .await,
    )
    .await;
    assert_eq!(st, StatusCode::CONFLICT);
    assert_eq!(
        e["message"],
        "Cannot approve/reject validation that is not pending (current status: superseded)"
    );
    let (st, _) = change_status(&approver, &vb, "approved", "superseded", None).await;
    assert_eq!(st, StatusCode::CONFLICT);
    // An earlier decided validation of a file with a newer result cannot change either.
    land(&app, &client, &a, completed(4_000.0, 2.0)).await;
    let (st, e) = change_status(&approver, &va, "pending", "rejected", None).await;
    assert_eq!(st, StatusCode::CONFLICT, "{e}");
    assert_eq!(counts(&app, &client).await, 2);

    // Unknown ids answer 404 with the specification's message.
    let (st, e) = body(
        approver
            .post_empty("/api/validations/no-such-id/approve")
            .await,
    )
    .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    assert_eq!(e["message"], "Validation record not found");

    // The audit trail names each decision.
    let (n,): (i64,) = sqlx::query_as(
        "SELECT COUNT(*) FROM audit_events WHERE event_type IN ('validation_approved', 'validation_rejected', 'validation_status_changed')",
    )
    .fetch_one(&app.state.db.pool)
    .await
    .unwrap();
    assert_eq!(n, 4);
}

#[tokio::test]
async fn approvers_are_global_or_the_clients_own_and_nobody_else_decides() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let client = client_id(&app, "Bank A").await;
    let mut ids = Vec::new();
    for n in 0..3 {
        let f = csv_file(&app, &client, &format!("f{n}.csv")).await;
        land(&app, &client, &f, completed(100.0 * (n + 1) as f64, 0.1)).await;
        ids.push(of_file(&app, &f).await[0].0.clone());
    }
    // The seeded second approver is a user whose membership of Bank A is 'approver'.
    let (role,): (String,) = sqlx::query_as("SELECT role FROM users WHERE email = $1")
        .bind(APPROVER2)
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
    assert_eq!(role, "user");
    let own = app.login(APPROVER2).await;
    let (_, summary) = own
        .json(&format!("/api/validations/summary?client_id={client}"))
        .await;
    assert_eq!(summary["canApprove"], true);
    let (st, v) = body(
        own.post_empty(&format!("/api/validations/{}/approve", ids[0]))
            .await,
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");

    // Members and viewers of Bank A: 403 with the specification's messages; Bank B: 404.
    for email in [USER_A, VIEWER] {
        let s = app.login(email).await;
        let (st, e) = body(
            s.post_empty(&format!("/api/validations/{}/approve", ids[1]))
                .await,
        )
        .await;
        assert_eq!(st, StatusCode::FORBIDDEN, "{email}");
        assert_eq!(
            e["message"],
            "Only administrators and approvers can approve validations."
        );
        let (st, e) = reject(&s, &ids[1], "no").await;
        assert_eq!(st, StatusCode::FORBIDDEN);
        assert_eq!(
            e["message"],
            "Only administrators and approvers can reject validations."
        );
        let (st, detail) = s.json(&format!("/api/validations/{}", ids[1])).await;
        assert_eq!(st, StatusCode::OK);
        assert_eq!(detail["canApprove"], false);
    }
    let other = app.login(USER_B).await;
    let (st, e) = body(
        other
            .post_empty(&format!("/api/validations/{}/approve", ids[1]))
            .await,
    )
    .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    assert!(!e.to_string().contains(&client));
    let (st, _) = other.json(&format!("/api/validations/{}", ids[1])).await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    assert_eq!(counts(&app, &client).await, 2);

    // The client role is read on every request: taken away, the next decision is refused.
    sqlx::query(
        "UPDATE client_users SET role = 'member' WHERE user_id = (SELECT id FROM users WHERE email = $1)",
    )
    .bind(APPROVER2)
    .execute(&app.state.db.pool)
    .await
    .unwrap();
    let (st, _) = body(
        own.post_empty(&format!("/api/validations/{}/approve", ids[1]))
            .await,
    )
    .await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    // The admin decides on any client.
    let admin = app.login(ADMIN).await;
    let (st, _) = reject(&admin, &ids[2], "Reference data out of date").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(counts(&app, &client).await, 1);
}

#[tokio::test]
async fn two_approvers_deciding_at_once_make_one_decision() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let client = client_id(&app, "Bank A").await;
    let first = app.login(APPROVER).await;
    let second = app.login(APPROVER2).await;
    let mut ws = Ws::connect(&second).await;
    let topic = format!("client:{client}:validations");
    let answers = ws.subscribe(&[&topic]).await;
    assert_eq!(answers[0]["type"], "subscribed", "{answers:?}");
    for round in 0..4 {
        let f = csv_file(&app, &client, &format!("race-{round}.csv")).await;
        land(&app, &client, &f, completed(1_000.0, 0.5)).await;
        let id = of_file(&app, &f).await[0].0.clone();
        // One approves while the other rejects (or approves too), at the same moment.
        let approve_url = format!("/api/validations/{id}/approve");
        let a = first.post_empty(&approve_url);
        let b = async {
            if round % 2 == 0 {
                second
                    .post_empty(&format!("/api/validations/{id}/approve"))
                    .await
            } else {
                second
                    .post(
                        &format!("/api/validations/{id}/reject"),
                        json!({"reason": "race"}),
                    )
                    .await
            }
        };
        let (ra, rb) = tokio::join!(a, b);
        let (sa, ea) = body(ra).await;
        let (sb, eb) = body(rb).await;
        let statuses = [sa, sb];
        assert_eq!(
            statuses.iter().filter(|s| **s == StatusCode::OK).count(),
            1,
            "exactly one decision: {sa} {ea} / {sb} {eb}"
        );
        let loser = if sa == StatusCode::OK { &eb } else { &ea };
        let winner = if sa == StatusCode::OK { &ea } else { &eb };
        assert_eq!(
            statuses
                .iter()
                .filter(|s| **s == StatusCode::CONFLICT)
                .count(),
            1
        );
        assert_eq!(
            loser["message"],
            format!(
                "Cannot approve/reject validation that is not pending (current status: {})",
                winner["status"].as_str().unwrap()
            )
        );
        assert_eq!(counts(&app, &client).await, 0, "never below 0");
    }
    let (n,): (i64,) = sqlx::query_as(
        "SELECT COUNT(*) FROM audit_events WHERE event_type IN ('validation_approved', 'validation_rejected')",
    )
    .fetch_one(&app.state.db.pool)
    .await
    .unwrap();
    assert_eq!(n, 4, "one audited decision per validation");

    // The second approver's socket saw each landing and each single decision, in order.
    let mut seen = Vec::new();
    while let Some(frame) = ws.next_json(Duration::from_millis(500)).await {
        if frame["topic"] == topic.as_str() {
            seen.push((
                frame["type"].as_str().unwrap().to_string(),
                frame["data"]["pendingValidations"].as_i64().unwrap(),
                frame["seq"].as_i64().unwrap(),
            ));
        }
    }
    let kinds: Vec<&str> = seen.iter().map(|s| s.0.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "validation.created",
            "validation.updated",
            "validation.created",
            "validation.updated",
            "validation.created",
            "validation.updated",
            "validation.created",
            "validation.updated"
        ]
    );
    assert!(seen.iter().all(|s| s.1 == 0 || s.1 == 1));
    assert!(seen.windows(2).all(|w| w[1].2 == w[0].2 + 1), "no gaps");
}

#[tokio::test]
async fn lists_filter_and_page_in_the_database_and_details_explain_the_result() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let client = client_id(&app, "Bank A").await;
    let mut ids = Vec::new();
    for n in 1..=6 {
        let f = csv_file(&app, &client, &format!("file-{n}.csv")).await;
        land(
            &app,
            &client,
            &f,
            completed(n as f64 * 1_000.0, n as f64 * 0.5),
        )
        .await;
        ids.push(of_file(&app, &f).await[0].0.clone());
    }
    let approver = app.login(APPROVER).await;
    approver
        .post_empty(&format!("/api/validations/{}/approve", ids[0]))
        .await;
    reject(&approver, &ids[1], "Not these").await;
    let s = app.login(VIEWER).await;
    let list = |q: &str| {
        let s = s.clone();
        let url = format!("/api/validations?client_id={client}&{q}");
        async move {
            let (st, v) = s.json(&url).await;
            assert_eq!(st, StatusCode::OK, "{url}: {v}");
            v
        }
    };
    let pending = list("tab=pending").await;
    assert_eq!(pending["total"], 4);
    assert_eq!(pending["pendingValidations"], 4);
    assert_eq!(pending["canApprove"], false);
    assert_eq!(
        pending["items"][0]["fileName"], "file-6.csv",
        "newest first"
    );
    assert_eq!(
        pending["items"][0]["leverName"],
        "Public Sector Entities (PSE)"
    );
    let history = list("tab=history").await;
    assert_eq!(history["total"], 2);
    assert_eq!(list("tab=history&status=rejected").await["total"], 1);
    assert_eq!(list("tab=pending&status=approved").await["total"], 0);
    let v = list("tab=pending&minRwas=3500&maxRwas=5000").await;
    let names: Vec<&str> = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["fileName"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["file-5.csv", "file-4.csv"]);
    assert_eq!(list("tab=pending&minBps=2.4").await["total"], 2);
    let page = list("tab=pending&pageSize=5&page=1").await;
    assert_eq!(page["items"].as_array().unwrap().len(), 4);
    let today = chrono::Utc::now().date_naive();
    assert_eq!(
        list(&format!("tab=pending&from={today}&to={today}")).await["total"],
        4
    );
    let tomorrow = today.succ_opt().unwrap();
    assert_eq!(
        list(&format!("tab=pending&from={tomorrow}")).await["total"],
        0
    );
    for bad in [
        "minRwas=lots",
        "pageSize=7",
        "tab=soon",
        "status=maybe",
        "minBps=3&maxBps=1",
        "from=31-01-2026",
    ] {
        let (st, e) = s
            .json(&format!("/api/validations?client_id={client}&{bad}"))
            .await;
        assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{bad}: {e}");
        assert!(e["message"].as_str().is_some_and(|m| !m.is_empty()));
    }

    // One validation: file, processing and the analysis written from the run's result.
    let (st, d) = s.json(&format!("/api/validations/{}", ids[1])).await;
    assert_eq!(st, StatusCode::OK, "{d}");
    assert_eq!(d["validation"]["status"], "rejected");
    assert_eq!(d["validation"]["rejectionReason"], "Not these");
    assert_eq!(d["validation"]["fileType"], "csv");
    assert_eq!(d["processing"]["mode"], "manual");
    assert_eq!(d["processing"]["rows"], 4);
    let analysis = d["analysis"].as_str().unwrap();
    assert!(
        analysis.starts_with("4 rows were analysed under Public Sector Entities (PSE): 3 matched the reference data (75.0 %), 1 were not matched"),
        "{analysis}"
    );
    assert!(
        analysis.contains("reduce RWAs by €2,000, 1.00 bps"),
        "{analysis}"
    );
}

#[tokio::test]
async fn a_real_run_opens_the_validation_with_its_analysis() {
    let app = TestApp::spawn().await;
    let client = client_id(&app, "Bank A").await;
    let s = app.login(USER_A).await;
    let csv = crate::runs::generated_csv(analysis::model::Lever::Pse, 300, 7);
    let file = stored_file(&app, &client, "pse.csv", &csv).await;
    let run = queue(&app, &client, &file, RunMode::EnhancedAi, None).await;
    let snap = crate::runs::wait_final(&s, &run, 60).await;
    assert_eq!(snap["state"], "completed", "{snap}");
    let v = of_file(&app, &file).await;
    assert_eq!(v.len(), 1);
    assert_eq!(counts(&app, &client).await, 1);
    let (st, d) = s.json(&format!("/api/validations/{}", v[0].0)).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(
        d["validation"]["savingsRwas"],
        snap["result"]["savingsRwas"]
    );
    assert_eq!(d["processing"]["mode"], "enhanced-ai");
    let analysis = d["analysis"].as_str().unwrap();
    assert!(
        analysis.starts_with("300 rows were analysed under"),
        "{analysis}"
    );
    assert!(
        analysis.contains("The lever was classified with"),
        "{analysis}"
    );
}

#[tokio::test]
async fn landings_decisions_and_deletions_at_once_keep_the_count_and_never_fail() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let client = client_id(&app, "Bank A").await;
    let mut files = Vec::new();
    for n in 0..4 {
        let f = csv_file(&app, &client, &format!("busy-{n}.csv")).await;
        land(&app, &client, &f, completed(100.0, 0.1)).await;
        files.push(f);
    }
    let first = app.login(APPROVER).await;
    let second = app.login(APPROVER2).await;
    let user = app.login(USER_A).await;
    let decider = |s: Session, reject: bool| {
        let client = client.clone();
        async move {
            let mut statuses = Vec::new();
            for _ in 0..12 {
                let (_, page) = s
                    .json(&format!("/api/validations?client_id={client}&tab=pending"))
                    .await;
                let Some(id) = page["items"][0]["id"].as_str().map(str::to_string) else {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                };
                let r = if reject {
                    s.post(
                        &format!("/api/validations/{id}/reject"),
                        json!({"reason": "busy"}),
                    )
                    .await
                } else {
                    s.post_empty(&format!("/api/validations/{id}/approve"))
                        .await
                };
                statuses.push(r.status().as_u16());
            }
            statuses
        }
    };
    let landings = async {
        for round in 0..2 {
            for f in &files[..2] {
                land(&app, &client, f, completed(200.0 + round as f64, 0.2)).await;
            }
        }
    };
    let deletions = async {
        tokio::time::sleep(Duration::from_millis(30)).await;
        let mut statuses = Vec::new();
        for f in &files[2..] {
            let r = user
                .http
                .delete(app.url(&format!("/api/files/{f}")))
                .header("x-csrf-token", user.cookie("capopt_csrf").unwrap())
                .send()
                .await
                .unwrap();
            statuses.push(r.status().as_u16());
        }
        statuses
    };
    let (a, b, (), d) = tokio::join!(
        decider(first.clone(), false),
        decider(second.clone(), true),
        landings,
        deletions
    );
    for s in a.iter().chain(&b) {
        assert!(
            matches!(s, 200 | 404 | 409),
            "a decision answered {s}: {a:?} {b:?}"
        );
    }
    // Reprocessed files (the first two) and deleted ones (the last two) are apart: a run of a
    // deleted file cannot be queued.
    assert!(d.iter().all(|s| *s == 204), "{d:?}");
    counts(&app, &client).await;
}
