//! Processing runs: a run end to end (savings equal the command line's on the same file, the
//! processed output is the command line's output), idempotent completion, lease expiry and
//! re-claim, the attempts limit, cancel, live progress events and snapshots, review below the
//! confidence threshold, plain refusals, and a server killed in the middle of a run (a second
//! server finishes it exactly once).

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::Value;
use server::service::runs::{
    self as runs, Figures, NewRun, Outcome, RunChecks, RunMode, RunResult,
};

use crate::helpers::*;
use crate::realtime::{Ws, client_id};

/// A generated exposure file of `rows` rows of `lever`.
pub(crate) fn generated_csv(lever: analysis::model::Lever, rows: usize, seed: u64) -> Vec<u8> {
    let mut out = Vec::new();
    analysis::generate::generate_exposures(
        lever,
        rows,
        seed,
        &analysis::refdata::RefData::builtin(),
        &mut out,
    )
    .unwrap();
    out
}

/// Stores `bytes` as an uploaded original of `client` and inserts its file row: its id.
pub(crate) async fn stored_file(app: &TestApp, client: &str, name: &str, bytes: &[u8]) -> String {
    let key = server::storage::Storage::input_key(&client.into(), name);
    let tmp = app.state.storage.temp_file().await.unwrap().1;
    std::fs::write(&tmp, bytes).unwrap();
    app.state
        .storage
        .put_file(&key, &tmp, "text/csv")
        .await
        .unwrap();
    let id = uuid::Uuid::new_v4().to_string();
    sqlx::query(
        "INSERT INTO client_files (id, client_id, name, name_lower, original_name, file_path, object_key,
            size_bytes, uploaded_at, processing_status, file_type)
         VALUES ($1, $2, $3, lower($3), $3, $4, $4, $5, $6, 'queued', $7)",
    )
    .bind(&id)
    .bind(client)
    .bind(name)
    .bind(key.as_str())
    .bind(bytes.len() as i64)
    .bind(server::db::now())
    .bind(name.rsplit('.').next().unwrap_or_default().to_lowercase())
    .execute(&app.state.db.pool)
    .await
    .unwrap();
    id
}

async fn user_id(app: &TestApp, email: &str) -> String {
    let (id,): (String,) = sqlx::query_as("SELECT id FROM users WHERE email = $1")
        .bind(email)
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
    id
}

/// Queues a run of a file, as an upload does (in a transaction).
pub(crate) async fn queue(
    app: &TestApp,
    client: &str,
    file_id: &str,
    mode: RunMode,
    lever: Option<&str>,
) -> String {
    let user = user_id(app, USER_A).await;
    let mut tx = app.state.db.pool.begin().await.unwrap();
    let id = runs::enqueue(
        &mut tx,
        NewRun {
            client_id: client.into(),
            file_id: file_id.to_string(),
            user_id: user.into(),
            mode,
            lever_id: lever.map(str::to_string),
            mapping: None,
            risk_weight_format: None,
            maturity_unit: None,
        },
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
    id.to_string()
}

/// The run as the API gives it.
async fn snapshot(s: &Session, run: &str) -> Value {
    let (st, v) = s.json(&format!("/api/runs/{run}")).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    v
}

/// Waits (up to `secs`) for a run to end; its snapshot.
pub(crate) async fn wait_final(s: &Session, run: &str, secs: u64) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    loop {
        let v = snapshot(s, run).await;
        if !matches!(v["state"].as_str(), Some("queued" | "running")) {
            return v;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "run still {}",
            v["state"]
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

pub(crate) async fn file_row(
    app: &TestApp,
    file: &str,
) -> (i64, f64, f64, String, Option<String>, Option<String>) {
    sqlx::query_as(
        "SELECT processed, savings_rwas, savings_bps, processing_status, processing_error, processed_object_key
         FROM client_files WHERE id = $1",
    )
    .bind(file)
    .fetch_one(&app.state.db.pool)
    .await
    .unwrap()
}

pub(crate) async fn client_totals(app: &TestApp, client: &str) -> (f64, f64) {
    sqlx::query_as("SELECT cet1_savings_rwas, cet1_savings_bps FROM clients WHERE id = $1")
        .bind(client)
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap()
}

/// The current month's history row: (rows for the month, total, bps, growth, breakdown).
async fn this_month(app: &TestApp, client: &str) -> (i64, f64, f64, f64, String) {
    use chrono::Datelike;
    let today = chrono::Utc::now().date_naive();
    let (n,): (i64,) = sqlx::query_as(
        "SELECT COUNT(*) FROM savings_history WHERE client_id = $1 AND year = $2 AND month = $3",
    )
    .bind(client)
    .bind(today.year() as i64)
    .bind(today.month() as i64)
    .fetch_one(&app.state.db.pool)
    .await
    .unwrap();
    let (t, b, g, l): (f64, f64, f64, String) = sqlx::query_as(
        "SELECT total_rwas, total_bps, monthly_growth_rate, lever_breakdown FROM savings_history
         WHERE client_id = $1 AND year = $2 AND month = $3",
    )
    .bind(client)
    .bind(today.year() as i64)
    .bind(today.month() as i64)
    .fetch_one(&app.state.db.pool)
    .await
    .unwrap();
    (n, t, b, g, l)
}

/// The previous month's total (seeded demo history).
async fn previous_month_total(app: &TestApp, client: &str) -> f64 {
    use chrono::Datelike;
    let today = chrono::Utc::now().date_naive();
    let (y, m) = if today.month() == 1 {
        (today.year() - 1, 12)
    } else {
        (today.year(), today.month() - 1)
    };
    let (t,): (f64,) = sqlx::query_as(
        "SELECT total_rwas FROM savings_history WHERE client_id = $1 AND year = $2 AND month = $3",
    )
    .bind(client)
    .bind(y as i64)
    .bind(m as i64)
    .fetch_one(&app.state.db.pool)
    .await
    .unwrap();
    t
}

/// Bank A's official figures, as the seed writes them.
pub(crate) async fn figures(app: &TestApp, client: &str) -> (f64, f64) {
    sqlx::query_as("SELECT official_cet1_capital, official_total_rwas FROM clients WHERE id = $1")
        .bind(client)
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap()
}

/// `capopt analyze` on the same file: (summary, output bytes).
pub(crate) fn cli(
    bytes: &[u8],
    name: &str,
    lever: &str,
    figures: Option<(f64, f64)>,
) -> (analysis::pipeline::AnalysisSummary, Vec<u8>) {
    let dir = std::env::temp_dir().join(format!("capopt-cli-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join(name);
    std::fs::write(&input, bytes).unwrap();
    let output = dir.join(format!("optimized_{name}"));
    let args = analysis::cli::AnalyzeArgs {
        input: input.clone(),
        lever: lever.to_string(),
        mapping: None,
        refdata: None,
        ruleset: None,
        reporting_date: None,
        client_country: "ES".into(),
        cet1_capital: figures.map(|f| f.0),
        total_rwas: figures.map(|f| f.1),
        output: output.clone(),
        summary: None,
        threads: None,
        max_file_mb: 2048,
        maturity_unit: None,
        risk_weight_format: None,
        compare_ruleset: None,
        trace_row: None,
    };
    let report = analysis::cli::run_analyze(&args).unwrap();
    let out = std::fs::read(&output).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    (report.summary, out)
}

#[tokio::test]
async fn a_run_completes_with_the_savings_and_output_of_the_command_line() {
    let app = TestApp::spawn().await;
    let s = app.login(USER_A).await;
    let client = client_id(&app, "Bank A").await;
    let before_prev = previous_month_total(&app, &client).await;
    let bytes = generated_csv(analysis::model::Lever::Pse, 3000, 7);
    let file = stored_file(&app, &client, "pse.csv", &bytes).await;
    let run = queue(&app, &client, &file, RunMode::EnhancedAi, None).await;
    let done = wait_final(&s, &run, 120).await;
    assert_eq!(done["state"], "completed", "{done}");
    assert_eq!(done["stage"], "done");
    assert_eq!(done["attempts"], 1);
    assert_eq!(done["percent"], 100.0);
    assert_eq!(done["rowsDone"], 3000);

    let (cet1, rwas) = figures(&app, &client).await;
    let (summary, cli_out) = cli(&bytes, "pse.csv", "auto", Some((cet1, rwas)));
    let result = &done["result"];
    assert!(summary.total_rwa_saving > 0.0, "the file saves something");
    assert_eq!(
        result["savingsRwas"].as_f64().unwrap(),
        summary.total_rwa_saving
    );
    let bps = summary.bps.unwrap().bps_exact;
    assert!(
        (result["savingsBps"].as_f64().unwrap() - bps).abs() < 1e-9,
        "{result} vs {bps}"
    );
    assert_eq!(result["rows"], summary.rows);
    assert_eq!(result["matched"], summary.matched);
    assert!(result["confidence"].as_f64().unwrap() >= 0.7);
    assert!(result["classification"]["evidence"].is_array());
    assert_eq!(result["checks"]["totalsReconciled"], true);

    // The file record, the stored output (the command line's bytes), the client's totals and
    // the month's history row.
    let (processed, f_rwas, f_bps, status, error, out_key) = file_row(&app, &file).await;
    assert_eq!((processed, status.as_str(), error), (1, "processed", None));
    assert_eq!(f_rwas, summary.total_rwa_saving);
    assert!((f_bps - bps).abs() < 1e-9);
    let key = server::storage::ObjectKey::parse(&out_key.unwrap()).unwrap();
    let stored = app.state.storage.get_bytes(&key).await.unwrap();
    assert!(
        stored.as_ref() == cli_out.as_slice(),
        "the processed file is the command line's output"
    );
    let (t_rwas, t_bps) = client_totals(&app, &client).await;
    assert_eq!(
        t_rwas, summary.total_rwa_saving,
        "the client's total is its files' sum"
    );
    assert!((t_bps - bps).abs() < 1e-9);
    let (n, h_total, h_bps, growth, breakdown) = this_month(&app, &client).await;
    assert_eq!(n, 1);
    assert_eq!(h_total, t_rwas);
    assert!((h_bps - t_bps).abs() < 1e-9);
    let expected_growth = if before_prev != 0.0 {
        (t_rwas - before_prev) / before_prev * 100.0
    } else {
        0.0
    };
    assert!(
        (growth - expected_growth).abs() < 1e-9,
        "{growth} vs {expected_growth}"
    );
    let breakdown: Value = serde_json::from_str(&breakdown).unwrap();
    let lever_id = done["result"]["leverId"]
        .as_str()
        .expect("the demo levers include PSE");
    assert_eq!(breakdown[lever_id].as_f64().unwrap(), t_rwas);
    assert_eq!(result["leverName"], "Public Sector Entities (PSE)");

    // Listed for the client; not reachable from another client.
    let (st, list) = s.json(&format!("/api/runs?client_id={client}")).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(list[0]["id"], run.as_str());
    let other = app.login(USER_B).await;
    assert_eq!(
        other.get(&format!("/api/runs/{run}")).await.status(),
        StatusCode::NOT_FOUND
    );
}

fn result(rwas: f64) -> RunResult {
    RunResult {
        lever_id: None,
        lever_name: None,
        savings_rwas: rwas,
        savings_bps: 0.0,
        confidence: None,
        rows: 1,
        matched: 1,
        not_matched: 0,
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

async fn claimed(app: &TestApp, owner: &str) -> server::db::runs::RunRow {
    runs::claim(&app.state, owner, Duration::from_secs(15))
        .await
        .unwrap()
        .expect("a run to claim")
}

async fn expire_lease(app: &TestApp, run: &str) {
    sqlx::query("UPDATE processing_runs SET lease_until = $1 WHERE id = $2")
        .bind("2000-01-01T00:00:00.000000Z")
        .bind(run)
        .execute(&app.state.db.pool)
        .await
        .unwrap();
}

#[tokio::test]
async fn completing_twice_writes_the_effects_once() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let client = client_id(&app, "Bank A").await;
    let file = stored_file(
        &app,
        &client,
        "a.csv",
        b"NIF,Exposure_Amount\nQ2826000H,1\n",
    )
    .await;
    let run = queue(&app, &client, &file, RunMode::Manual, None).await;
    let row = claimed(&app, "owner-1").await;
    assert_eq!(row.id, run);
    let audits = |app: &TestApp| {
        let pool = app.state.db.pool.clone();
        async move {
            let (n,): (i64,) = sqlx::query_as(
                "SELECT COUNT(*) FROM audit_events WHERE event_type = 'run_completed'",
            )
            .fetch_one(&pool)
            .await
            .unwrap();
            n
        }
    };
    let outcome = || Outcome::Completed {
        processed_key: "clients/x/output/once.csv".into(),
        result: result(1_000_000.0),
        facts: None,
    };
    let first = runs::finish(
        &app.state,
        &row,
        "owner-1",
        outcome(),
        Figures::default(),
        row.seq + 1,
    )
    .await;
    assert!(first.unwrap());
    let second = runs::finish(
        &app.state,
        &row,
        "owner-1",
        outcome(),
        Figures::default(),
        row.seq + 2,
    )
    .await;
    assert!(!second.unwrap(), "a second completion writes nothing");
    assert_eq!(audits(&app).await, 1);
    let (t_rwas, _) = client_totals(&app, &client).await;
    assert_eq!(t_rwas, 1_000_000.0, "the savings count once");
    let (n, h_total, ..) = this_month(&app, &client).await;
    assert_eq!((n, h_total), (1, 1_000_000.0));
    let (processed, f_rwas, ..) = file_row(&app, &file).await;
    assert_eq!((processed, f_rwas), (1, 1_000_000.0));
}

#[tokio::test]
async fn an_expired_lease_is_claimed_again_and_the_old_owner_writes_nothing() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let client = client_id(&app, "Bank A").await;
    let file = stored_file(
        &app,
        &client,
        "a.csv",
        b"NIF,Exposure_Amount\nQ2826000H,1\n",
    )
    .await;
    let run = queue(&app, &client, &file, RunMode::Manual, None).await;
    let dead = claimed(&app, "dead-owner").await;
    assert!(
        runs::claim(&app.state, "other", Duration::from_secs(15))
            .await
            .unwrap()
            .is_none(),
        "a live lease is not claimed"
    );
    expire_lease(&app, &run).await;
    let again = claimed(&app, "second-owner").await;
    assert_eq!((again.id.as_str(), again.attempts), (run.as_str(), 2));
    assert!(
        again.seq > dead.seq,
        "a new attempt's events sort after the old one's"
    );
    // The dead owner's heartbeat and completion are refused.
    let hb = runs::heartbeat(
        &app.state,
        &dead,
        "dead-owner",
        runs::RunStage::Evaluating,
        Figures::default(),
        dead.seq + 5,
        Duration::from_secs(15),
    )
    .await;
    assert_eq!(hb.unwrap(), None);
    let late = runs::finish(
        &app.state,
        &dead,
        "dead-owner",
        Outcome::Completed {
            processed_key: "clients/x/output/late.csv".into(),
            result: result(5.0),
            facts: None,
        },
        Figures::default(),
        dead.seq + 6,
    )
    .await;
    assert!(!late.unwrap());
    assert_ne!(client_totals(&app, &client).await.0, 5.0);
    // The second owner completes.
    assert!(
        runs::finish(
            &app.state,
            &again,
            "second-owner",
            Outcome::Completed {
                processed_key: "clients/x/output/ok.csv".into(),
                result: result(7.0),
                facts: None,
            },
            Figures::default(),
            again.seq + 1
        )
        .await
        .unwrap()
    );
    assert_eq!(client_totals(&app, &client).await.0, 7.0);
}

#[tokio::test]
async fn a_run_fails_with_a_message_after_its_last_claim_expires() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let s = app.login(USER_A).await;
    let client = client_id(&app, "Bank A").await;
    let file = stored_file(
        &app,
        &client,
        "a.csv",
        b"NIF,Exposure_Amount\nQ2826000H,1\n",
    )
    .await;
    let run = queue(&app, &client, &file, RunMode::Manual, None).await;
    for attempt in 1..=3 {
        let r = claimed(&app, &format!("owner-{attempt}")).await;
        assert_eq!(r.attempts, attempt);
        expire_lease(&app, &run).await;
    }
    assert!(
        runs::claim(&app.state, "owner-4", Duration::from_secs(15))
            .await
            .unwrap()
            .is_none(),
        "no fourth claim"
    );
    assert_eq!(runs::fail_exhausted(&app.state).await.unwrap(), 1);
    let v = snapshot(&s, &run).await;
    assert_eq!(v["state"], "failed");
    assert_eq!(v["attempts"], 3);
    assert!(
        v["error"].as_str().unwrap().contains("stopped 3 times"),
        "{v}"
    );
    let (processed, _, _, status, error, _) = file_row(&app, &file).await;
    assert_eq!((processed, status.as_str()), (0, "failed"));
    assert!(error.unwrap().contains("stopped 3 times"));
    assert_eq!(
        runs::fail_exhausted(&app.state).await.unwrap(),
        0,
        "failed once"
    );
}

#[tokio::test]
async fn cancel_a_queued_run_at_once_and_a_running_run_between_chunks() {
    let app = TestApp::spawn_with(|c| {
        c.run_concurrency = 0;
        c.max_upload_mb = 100;
    })
    .await;
    let s = app.login(USER_A).await;
    let viewer = app.login(VIEWER).await;
    let client = client_id(&app, "Bank A").await;
    let file = stored_file(
        &app,
        &client,
        "a.csv",
        b"NIF,Exposure_Amount\nQ2826000H,1\n",
    )
    .await;
    let run = queue(&app, &client, &file, RunMode::Manual, None).await;
    let r = viewer
        .post(&format!("/api/runs/{run}/cancel"), serde_json::json!({}))
        .await;
    assert_eq!(r.status(), StatusCode::FORBIDDEN, "viewers cannot cancel");
    let r = s
        .post(&format!("/api/runs/{run}/cancel"), serde_json::json!({}))
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    let v: Value = r.json().await.unwrap();
    assert_eq!(
        (v["state"].as_str(), v["stage"].as_str()),
        (Some("cancelled"), Some("done"))
    );
    assert!(
        runs::claim(&app.state, "w", Duration::from_secs(15))
            .await
            .unwrap()
            .is_none(),
        "a cancelled run is never claimed"
    );
    let r = s
        .post(&format!("/api/runs/{run}/cancel"), serde_json::json!({}))
        .await;
    assert_eq!(
        r.status(),
        StatusCode::CONFLICT,
        "an ended run cannot be cancelled"
    );
    assert_eq!(file_row(&app, &file).await.3, "uploaded");

    // A running run over a large file: the engine stops between chunks, nothing is stored.
    let bytes = generated_csv(analysis::model::Lever::Pse, 300_000, 3);
    let file = stored_file(&app, &client, "big.csv", &bytes).await;
    let run = queue(&app, &client, &file, RunMode::EnhancedAi, None).await;
    let state = app.state.clone();
    let worker = tokio::spawn(async move { server::jobs::runs::run_once(&state, "worker").await });
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let v = snapshot(&s, &run).await;
        if v["state"] == "running" && v["stage"] == "evaluating" {
            break;
        }
        assert!(v["state"] == "running" || v["state"] == "queued", "{v}");
        assert!(
            tokio::time::Instant::now() < deadline,
            "never evaluating: {v}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let r = s
        .post(&format!("/api/runs/{run}/cancel"), serde_json::json!({}))
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    worker.await.unwrap();
    let v = snapshot(&s, &run).await;
    assert_eq!(v["state"], "cancelled", "{v}");
    assert!(
        v["rowsDone"].as_i64().unwrap() < 300_000,
        "stopped before the end: {v}"
    );
    let (processed, _, _, status, _, out_key) = file_row(&app, &file).await;
    assert_eq!((processed, status.as_str(), out_key), (0, "uploaded", None));
    let outputs = app.state.storage.list_keys().await.unwrap();
    assert!(
        outputs.iter().all(|k| !k.contains("/output/")),
        "no output stored: {outputs:?}"
    );
}

#[tokio::test]
async fn progress_events_increase_and_a_late_subscriber_misses_nothing() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let s = app.login(USER_A).await;
    let client = client_id(&app, "Bank A").await;
    let bytes = generated_csv(analysis::model::Lever::Pse, 60_000, 11);
    let file = stored_file(&app, &client, "pse.csv", &bytes).await;
    let run = queue(&app, &client, &file, RunMode::EnhancedAi, None).await;
    let topic = format!("client:{client}:run:{run}");

    // An early viewer sees every event from the start.
    let mut early = Ws::connect(&s).await;
    let sub = early.subscribe(&[&topic]).await;
    assert_eq!(sub[0]["type"], "subscribed");
    let state = app.state.clone();
    let worker = tokio::spawn(async move { server::jobs::runs::run_once(&state, "worker").await });

    // A late viewer: subscribe first, then the snapshot; apply only later events.
    tokio::time::sleep(Duration::from_millis(700)).await;
    let mut late = Ws::connect(&s).await;
    late.subscribe(&[&topic]).await;
    let snap = snapshot(&s, &run).await;

    let collect = |mut ws: Ws| async move {
        let mut out = Vec::new();
        while let Some(v) = ws.next_json(Duration::from_secs(60)).await {
            if v["type"] == "run.progress" {
                let end = !matches!(v["data"]["state"].as_str(), Some("running" | "queued"));
                out.push(v);
                if end {
                    break;
                }
            }
        }
        out
    };
    // A run that ended before the late viewer's snapshot sends it nothing more.
    let ended = !matches!(snap["state"].as_str(), Some("running" | "queued"));
    let late_events = async move {
        if ended {
            Vec::new()
        } else {
            collect(late).await
        }
    };
    let (early_events, late_events) = tokio::join!(collect(early), late_events);
    worker.await.unwrap();
    assert!(early_events.len() >= 3, "{early_events:?}");
    for w in early_events.windows(2) {
        assert!(
            w[1]["seq"].as_i64() > w[0]["seq"].as_i64(),
            "sequence increases"
        );
        assert_eq!(w[1]["seq"], w[1]["data"]["seq"]);
        assert!(w[1]["data"]["rowsDone"].as_i64() >= w[0]["data"]["rowsDone"].as_i64());
    }
    let last = early_events.last().unwrap();
    assert_eq!(last["data"]["state"], "completed");
    assert_eq!(last["data"]["rowsDone"], 60_000);
    // The late viewer's snapshot plus its later events end in the same final state.
    let applied: Vec<&Value> = late_events
        .iter()
        .filter(|e| e["seq"].as_i64() > snap["seq"].as_i64())
        .collect();
    let final_view = applied.last().map(|e| &e["data"]).unwrap_or(&snap);
    assert_eq!(final_view["state"], "completed");
    assert_eq!(final_view["seq"], last["seq"]);
    assert_eq!(
        snapshot(&s, &run).await["seq"],
        last["seq"],
        "the stored snapshot has the last seq"
    );
}

#[tokio::test]
async fn a_file_the_classifier_is_unsure_of_waits_for_review_with_zero_savings() {
    let app = TestApp::spawn().await;
    let s = app.login(USER_A).await;
    let client = client_id(&app, "Bank A").await;
    let csv = b"Reference,Amount,Notes\nA-1,1000,first\nA-2,2000,second\nA-3,1500,third\n";
    let file = stored_file(&app, &client, "unknown.csv", csv).await;
    let run = queue(&app, &client, &file, RunMode::EnhancedAi, None).await;
    let v = wait_final(&s, &run, 60).await;
    assert_eq!(v["state"], "pending_review", "{v}");
    assert!(v["result"]["confidence"].as_f64().unwrap() < 0.7);
    assert_eq!(v["result"]["savingsRwas"], 0.0);
    let (processed, rwas, _, status, _, out_key) = file_row(&app, &file).await;
    assert_eq!(
        (processed, rwas, status.as_str(), out_key),
        (0, 0.0, "pending_review", None)
    );
}

#[tokio::test]
async fn a_pdf_is_not_processed_and_says_it_needs_csv_or_excel() {
    let app = TestApp::spawn().await;
    let s = app.login(USER_A).await;
    let client = client_id(&app, "Bank A").await;
    let file = stored_file(&app, &client, "report.pdf", b"%PDF-1.7\n%\xe2\xe3\n").await;
    let run = queue(&app, &client, &file, RunMode::EnhancedAi, None).await;
    let v = wait_final(&s, &run, 60).await;
    assert_eq!(v["state"], "failed");
    assert_eq!(v["error"], server::jobs::runs::NEEDS_CSV_OR_EXCEL);
    let (_, _, _, status, error, _) = file_row(&app, &file).await;
    assert_eq!(status, "failed");
    assert_eq!(
        error.as_deref(),
        Some(server::jobs::runs::NEEDS_CSV_OR_EXCEL)
    );
}

#[tokio::test]
async fn manual_mode_analyses_under_the_chosen_lever() {
    let app = TestApp::spawn().await;
    let s = app.login(USER_A).await;
    let client = client_id(&app, "Bank A").await;
    let (lever,): (String,) = sqlx::query_as("SELECT id FROM levers WHERE code = 'pse'")
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
    let bytes = generated_csv(analysis::model::Lever::Pse, 500, 5);
    let file = stored_file(&app, &client, "m.csv", &bytes).await;
    let run = queue(&app, &client, &file, RunMode::Manual, Some(&lever)).await;
    let v = wait_final(&s, &run, 60).await;
    assert_eq!(v["state"], "completed", "{v}");
    assert_eq!(v["result"]["leverId"], lever.as_str());
    assert_eq!(v["result"]["confidence"], Value::Null);
    let (cet1, rwas) = figures(&app, &client).await;
    let (summary, _) = cli(&bytes, "m.csv", "pse", Some((cet1, rwas)));
    assert_eq!(
        v["result"]["savingsRwas"].as_f64().unwrap(),
        summary.total_rwa_saving
    );
}

/// A person's decision on a classified file is stored once per run, read back by the classifier
/// (a file with the same columns shows it in its evidence) and measured (the 'Continuous
/// Learning' figures, absent until a review exists); a manual run classified nothing, so
/// reviewing it records nothing.
#[tokio::test]
async fn a_reviewed_classification_teaches_the_classifier_and_is_measured() {
    use server::service::classification::{Decision, record_review};
    fn approve<'a>(code: &'a str, by: &'a str) -> Decision<'a> {
        Decision {
            approved: true,
            lever_code: Some(code),
            by: Some(by),
            explanation: "",
            follow_up_run_id: None,
        }
    }
    let app = TestApp::spawn().await;
    let s = app.login(USER_A).await;
    let client = client_id(&app, "Bank A").await;
    let admin = user_id(&app, ADMIN).await;
    let file = stored_file(
        &app,
        &client,
        "first.csv",
        &generated_csv(analysis::model::Lever::Pse, 300, 31),
    )
    .await;
    let run = queue(&app, &client, &file, RunMode::EnhancedAi, None).await;
    let v = wait_final(&s, &run, 60).await;
    assert_eq!(v["state"], "completed", "{v}");
    let c = &v["result"]["classification"];
    assert_eq!(c["lever"], "pse");
    assert!(!c["headers"].as_array().unwrap().is_empty(), "{c}");
    assert!(
        c.get("learning").is_none(),
        "no reviews yet, no figures: {c}"
    );

    // An administrator choosing another lever for the file corrects the classification.
    let (rgla,): (String,) = sqlx::query_as("SELECT id FROM levers WHERE code = 'rgla'")
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
    let a = app.login(ADMIN).await;
    let r = a
        .post(
            &format!("/api/admin/files/{file}/lever"),
            serde_json::json!({ "leverId": rgla }),
        )
        .await;
    assert!(r.status().is_success(), "{}", r.status());
    let (proposed, reviewed, by): (String, String, String) = sqlx::query_as(
        "SELECT proposed_lever, reviewed_lever, created_by FROM classification_feedback
         WHERE run_id = $1",
    )
    .bind(&run)
    .fetch_one(&app.state.db.pool)
    .await
    .unwrap();
    assert_eq!((proposed.as_str(), reviewed.as_str()), ("pse", "rgla"));
    assert_eq!(by, admin);

    let row = server::db::runs::get(&app.state.db.pool, &run)
        .await
        .unwrap()
        .unwrap();
    let mut conn = app.state.db.pool.acquire().await.unwrap();
    // A second review of the same run replaces the first.
    let recorded = record_review(&mut conn, &row, approve("pse", &admin))
        .await
        .unwrap()
        .expect("recorded");
    assert!(!recorded.corrected);
    assert_eq!(recorded.confidence_delta, 0.1);
    assert!(
        record_review(&mut conn, &row, approve("not-a-lever", &admin))
            .await
            .unwrap()
            .is_none()
    );
    let (n, reviewed): (i64, String) = sqlx::query_as(
        "SELECT COUNT(*), MAX(reviewed_lever) FROM classification_feedback WHERE run_id = $1",
    )
    .bind(&run)
    .fetch_one(&mut *conn)
    .await
    .unwrap();
    assert_eq!((n, reviewed.as_str()), (1, "pse"));

    let (lever,): (String,) = sqlx::query_as("SELECT id FROM levers WHERE code = 'pse'")
        .fetch_one(&mut *conn)
        .await
        .unwrap();
    drop(conn);
    let manual_file = stored_file(
        &app,
        &client,
        "manual.csv",
        &generated_csv(analysis::model::Lever::Pse, 50, 33),
    )
    .await;
    let manual = queue(&app, &client, &manual_file, RunMode::Manual, Some(&lever)).await;
    assert_eq!(wait_final(&s, &manual, 60).await["state"], "completed");
    let manual_row = server::db::runs::get(&app.state.db.pool, &manual)
        .await
        .unwrap()
        .unwrap();
    let mut conn = app.state.db.pool.acquire().await.unwrap();
    assert!(
        record_review(&mut conn, &manual_row, approve("pse", &admin))
            .await
            .unwrap()
            .is_none(),
        "a manual run classified nothing"
    );
    drop(conn);

    let second = stored_file(
        &app,
        &client,
        "second.csv",
        &generated_csv(analysis::model::Lever::Pse, 300, 32),
    )
    .await;
    let run2 = queue(&app, &client, &second, RunMode::EnhancedAi, None).await;
    let v2 = wait_final(&s, &run2, 60).await;
    assert_eq!(v2["state"], "completed", "{v2}");
    let c2 = &v2["result"]["classification"];
    let l = &c2["learning"];
    assert_eq!(
        (
            &l["reviewed"],
            &l["approved"],
            &l["accuracy"],
            &l["similar"]
        ),
        (
            &Value::from(1),
            &Value::from(1),
            &Value::from(1.0),
            &Value::from(1)
        ),
        "{c2}"
    );
    assert_eq!(l["earlierAccuracy"], Value::Null);
    assert!(
        c2["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["description"]
                .as_str()
                .is_some_and(|d| d.contains("reviewed as pse (approved)"))),
        "{c2}"
    );
}

/// A classification corrected once changes the next prediction: a file the classifier cannot
/// place waits for review; an administrator gives it a lever; the next file with the same
/// columns is classified as that lever and goes on to the analysis.
#[tokio::test]
async fn a_corrected_classification_changes_the_next_prediction() {
    let app = TestApp::spawn().await;
    let s = app.login(USER_A).await;
    let client = client_id(&app, "Bank A").await;
    let csv = b"Reference,Amount,Notes\nA-1,1000,first\nA-2,2000,second\nA-3,1500,third\n";
    let file = stored_file(&app, &client, "unknown.csv", csv).await;
    let run = queue(&app, &client, &file, RunMode::EnhancedAi, None).await;
    let v = wait_final(&s, &run, 60).await;
    assert_eq!(v["state"], "pending_review", "{v}");
    let before = v["result"]["classification"].clone();
    assert_ne!(before["lever"], "corporates", "{before}");

    let (corporates,): (String,) =
        sqlx::query_as("SELECT id FROM levers WHERE code = 'corporates'")
            .fetch_one(&app.state.db.pool)
            .await
            .unwrap();
    let a = app.login(ADMIN).await;
    let r = a
        .post(
            &format!("/api/admin/files/{file}/lever"),
            serde_json::json!({ "leverId": corporates }),
        )
        .await;
    assert!(r.status().is_success(), "{}", r.status());

    // The classifier as the runs call it, over the stored reviews: the same columns now read
    // as corporates, above the review threshold.
    let reviews = server::service::classification::reviews(&app.state.db.pool)
        .await
        .unwrap();
    assert_eq!(reviews.len(), 1);
    let headers = ["Reference", "Amount", "Notes"];
    let rows = vec![vec!["B-1", "500", "x"], vec!["B-2", "700", "y"]];
    let refdata = analysis::refdata::RefData::builtin();
    let plain = analysis::classify::classify(&headers, &rows, &refdata);
    let taught = analysis::classify::classify_with_feedback(&headers, &rows, &refdata, &reviews);
    assert_ne!(plain.lever, Some(analysis::model::Lever::Corporates));
    assert_eq!(taught.lever, Some(analysis::model::Lever::Corporates));
    assert!(taught.confidence >= 0.7, "{}", taught.confidence);

    // So the next upload with those columns no longer waits for review: it goes on to the
    // analysis under that lever (which this bare file cannot feed: it lacks the lever's columns).
    let next = stored_file(
        &app,
        &client,
        "unknown-2.csv",
        b"Reference,Amount,Notes\nB-1,500,x\nB-2,700,y\n",
    )
    .await;
    let run2 = queue(&app, &client, &next, RunMode::EnhancedAi, None).await;
    let v2 = wait_final(&s, &run2, 60).await;
    assert_eq!(v2["state"], "failed", "{v2}");
    assert!(
        v2["error"]
            .as_str()
            .unwrap()
            .starts_with("Missing required columns"),
        "{v2}"
    );
}

/// Starts `capopt serve` on an ephemeral port over `data_dir` and `database_url` (SQLite in the
/// data directory when `None`), with short leases: (child, base URL).
async fn spawn_server(
    data_dir: &std::path::Path,
    database_url: Option<&str>,
) -> (tokio::process::Child, String) {
    use tokio::io::{AsyncBufReadExt, BufReader};
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_capopt"));
    cmd.arg("serve")
        .env("PORT", "0")
        .env("DATA_DIR", data_dir)
        .env("JWT_SECRET", "sigkill-test-secret-sigkill-test-secret")
        .env("SEED_DEMO", "1")
        .env("DEMO_PASSWORD", DEMO_PASSWORD)
        .env("RUN_LEASE_SECS", "3")
        .env("RUN_THREADS", "1")
        // Shares the cores with the other tests: idle-policy engine threads would wait for them.
        .env("RUN_IDLE", "false")
        .env("MAX_UPLOAD_MB", "200")
        .env("RUST_LOG", "warn")
        .env_remove("REDIS_URL")
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true);
    match database_url {
        Some(u) => cmd.env("DATABASE_URL", u),
        None => cmd.env_remove("DATABASE_URL"),
    };
    let mut child = cmd.spawn().expect("start capopt serve");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let base = tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(i) = line.find("http://") {
                return line[i..].trim().to_string();
            }
        }
        panic!("capopt serve exited before listening");
    })
    .await
    .expect("listening within 60 s");
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, base)
}

async fn sign_in_at(base: &str, email: &str) -> Session {
    let jar = std::sync::Arc::new(reqwest::cookie::Jar::default());
    let http = reqwest::Client::builder()
        .cookie_provider(jar.clone())
        .build()
        .unwrap();
    let s = Session {
        http,
        jar,
        base: base.to_string(),
    };
    assert_eq!(s.get("/api/health").await.status(), StatusCode::OK);
    let r = s
        .post(
            "/api/auth/login",
            serde_json::json!({"email": email, "password": DEMO_PASSWORD}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    s
}

#[tokio::test]
async fn a_server_killed_during_a_run_leaves_it_to_the_next_which_completes_it_once() {
    let dir = std::env::temp_dir().join(format!("capopt-sigkill-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let database_url = fresh_database_url(&dir).await;
    let (mut first, base) = spawn_server(&dir, database_url.as_deref()).await;
    let s = sign_in_at(&base, USER_A).await;

    // Upload a large file for enhanced-AI processing through the API.
    let bytes = generated_csv(analysis::model::Lever::Pse, 400_000, 21);
    let form = reqwest::multipart::Form::new()
        .part(
            "file",
            reqwest::multipart::Part::bytes(bytes.clone()).file_name("big.csv"),
        )
        .text(
            "options",
            serde_json::json!({"mode": "enhanced-ai", "leverId": null, "process": true, "mapping": null,
                "riskWeightFormat": null, "maturityUnit": null})
            .to_string(),
        );
    let r = s
        .http
        .post(format!("{base}/api/files"))
        .header("x-csrf-token", s.cookie("capopt_csrf").unwrap_or_default())
        .multipart(form)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::CREATED);
    let up: Value = r.json().await.unwrap();
    let run = up["run"]["id"].as_str().expect("a queued run").to_string();
    let file = up["file"]["id"].as_str().unwrap().to_string();

    // Kill the server in the middle of the rows.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let v = snapshot(&s, &run).await;
        if v["state"] == "running" && v["rowsDone"].as_i64().unwrap_or(0) > 0 {
            break;
        }
        assert!(
            matches!(v["state"].as_str(), Some("queued" | "running")),
            "the run ended before the kill: {v}"
        );
        assert!(tokio::time::Instant::now() < deadline, "never evaluating");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    first.start_kill().unwrap(); // SIGKILL
    first.wait().await.unwrap();

    // A second server on the same database and storage finishes it.
    let killed_at = tokio::time::Instant::now();
    let (second, base2) = spawn_server(&dir, database_url.as_deref()).await;
    let s2 = sign_in_at(&base2, USER_A).await;
    let done = wait_final(&s2, &run, 120).await;
    assert_eq!(done["state"], "completed", "{done}");
    assert_eq!(done["attempts"], 2);
    assert!(
        killed_at.elapsed() < Duration::from_secs(90),
        "finished {:?} after the kill",
        killed_at.elapsed()
    );
    let saving = done["result"]["savingsRwas"].as_f64().unwrap();
    assert!(saving > 0.0);

    // Savings applied once: the file's, the client's total, one history row for the month,
    // one completion in the audit trail, one output object.
    let (st, f) = s2.json(&format!("/api/files/{file}")).await;
    assert_eq!(st, StatusCode::OK, "{f}");
    assert_eq!(f["savingsRwas"].as_f64().unwrap(), saving);
    assert_eq!(f["status"], "processed");
    let pool = server::db::Db::connect(
        &database_url
            .clone()
            .unwrap_or_else(|| format!("sqlite://{}/capopt.db", dir.display())),
    )
    .await
    .unwrap()
    .pool;
    let client: String =
        sqlx::query_as::<_, (String,)>("SELECT client_id FROM client_files WHERE id = $1")
            .bind(&file)
            .fetch_one(&pool)
            .await
            .unwrap()
            .0;
    let (total,): (f64,) = sqlx::query_as(
        "SELECT COALESCE(SUM(savings_rwas), 0.0) FROM client_files WHERE client_id = $1 AND processed = 1",
    )
    .bind(&client)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(total, saving, "the client's only processed file");
    let (client_total,): (f64,) =
        sqlx::query_as("SELECT cet1_savings_rwas FROM clients WHERE id = $1")
            .bind(&client)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(client_total, saving);
    let (completions,): (i64,) = sqlx::query_as(
        "SELECT COUNT(*) FROM audit_events WHERE event_type = 'run_completed' AND entity_id = $1",
    )
    .bind(&run)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(completions, 1);
    // Without the bank's figures: the command line refuses Bank A's for a file this large.
    let (summary, _) = cli(&bytes, "big.csv", "auto", None);
    assert_eq!(
        saving, summary.total_rwa_saving,
        "the command line's savings"
    );
    pool.close().await;
    drop(second);
    let _ = std::fs::remove_dir_all(&dir);
}
