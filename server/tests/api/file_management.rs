//! File Management (administrators): the list over every client with its filters, sort and
//! paging done by the database, bulk lever assignment queuing one run per file (processed only
//! once the run completes), bulk deletion with a result per file, the edit history of every
//! change, and savings edits driving the client's savings sync and its events. The route rules
//! (admins only) are in matrix.rs.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::*;
use crate::realtime::{Ws, client_id};
use crate::runs::{client_totals, generated_csv, wait_final};

async fn send(s: &Session, method: reqwest::Method, path: &str, b: Value) -> (StatusCode, Value) {
    crate::helpers::send(s, method, path, Some(b)).await
}

/// Uploads a file to a client as `s` (not processed): its id.
async fn upload(s: &Session, client: &str, name: &str, bytes: Vec<u8>) -> String {
    let csrf = s.cookie("capopt_csrf").unwrap_or_default();
    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(bytes).file_name(name.to_string()),
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
    v["file"]["id"].as_str().unwrap().to_string()
}

async fn lever_id(app: &TestApp, code: &str) -> String {
    let (id,): (String,) = sqlx::query_as("SELECT id FROM levers WHERE code = $1")
        .bind(code)
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
    id
}

/// A file row written directly (the list's fixtures: known dates, levers, flags and savings).
#[allow(clippy::too_many_arguments)]
async fn insert_file(
    app: &TestApp,
    client: &str,
    name: &str,
    uploaded_at: &str,
    lever: Option<&str>,
    processed: bool,
    rwas: f64,
) -> String {
    let id = uuid::Uuid::new_v4().to_string();
    sqlx::query(
        "INSERT INTO client_files (id, client_id, name, name_lower, original_name, file_path, file_type,
            uploaded_at, lever_id, processed, savings_rwas, savings_bps, processing_status)
         VALUES ($1, $2, $3, lower($3), $3, '', 'csv', $4, $5, $6, $7, $8, $9)",
    )
    .bind(&id)
    .bind(client)
    .bind(name)
    .bind(uploaded_at)
    .bind(lever)
    .bind(i64::from(processed))
    .bind(rwas)
    .bind(rwas / 1e6)
    .bind(if processed { "processed" } else { "uploaded" })
    .execute(&app.state.db.pool)
    .await
    .unwrap();
    id
}

/// The RWA savings of a client's processed files (what the savings sync totals).
async fn processed_sum(app: &TestApp, client: &str) -> f64 {
    let (t,): (f64,) = sqlx::query_as(
        "SELECT COALESCE(SUM(savings_rwas), 0.0) FROM client_files WHERE client_id = $1 AND processed = 1",
    )
    .bind(client)
    .fetch_one(&app.state.db.pool)
    .await
    .unwrap();
    t
}

fn names(v: &Value) -> Vec<String> {
    v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn the_list_filters_sorts_and_pages_in_the_database() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let admin = app.login(ADMIN).await;
    let a = client_id(&app, "Bank A").await;
    let b = client_id(&app, "Bank B").await;
    let pse = lever_id(&app, "pse").await; // Assets
    let corp = lever_id(&app, "corporates").await; // CRMT
    // Bank A: noon of 1-6 January; Bank B: the last second of the same days.
    let mut a_files = Vec::new();
    for d in 1..=6 {
        let lever = match d % 3 {
            0 => None,
            1 => Some(pse.as_str()),
            _ => Some(corp.as_str()),
        };
        a_files.push(
            insert_file(
                &app,
                &a,
                &format!("FMX-Alpha-{d}.csv"),
                &format!("2026-01-0{d}T12:00:00.000000Z"),
                lever,
                d % 2 == 0,
                d as f64 * 1000.0,
            )
            .await,
        );
        insert_file(
            &app,
            &b,
            &format!("fmx-beta-{d}.csv"),
            &format!("2026-01-0{d}T23:59:59.999999Z"),
            if d % 2 == 0 { Some(pse.as_str()) } else { None },
            d % 2 == 1,
            d as f64 * 10.0,
        )
        .await;
    }
    let list = |q: &str| {
        let admin = admin.clone();
        let q = q.to_string();
        async move {
            // Only this test's files (the demo data has its own), unless the test searches.
            let base = if q.starts_with("q=") || q.contains("&q=") {
                ""
            } else {
                "q=fmx&"
            };
            let (st, v) = admin.json(&format!("/api/admin/files?{base}{q}")).await;
            assert_eq!(st, StatusCode::OK, "{q}: {v}");
            v
        }
    };
    // Everything, newest first, 10 a page by default, with the total.
    let v = list("").await;
    assert_eq!(v["total"], 12);
    assert_eq!(
        (v["page"].as_i64(), v["pageSize"].as_i64()),
        (Some(1), Some(10))
    );
    assert_eq!(
        names(&v)[..3],
        ["fmx-beta-6.csv", "FMX-Alpha-6.csv", "fmx-beta-5.csv"]
    );
    let first = &v["items"][1];
    assert_eq!(first["clientName"], "Bank A");
    assert_eq!(first["leverName"], Value::Null, "day 6: no lever");
    let pse_row = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "FMX-Alpha-4.csv")
        .unwrap();
    assert_eq!(pse_row["leverName"], "Public Sector Entities (PSE)");
    assert_eq!(pse_row["leverCategory"], "Assets");
    assert_eq!(pse_row["processed"], true);
    assert_eq!(pse_row["savingsRwas"], 4000.0);
    // Free text is any case and a part of the name.
    assert_eq!(list("q=ALPHA").await["total"], 6);
    assert_eq!(names(&list("q=beta-3").await), ["fmx-beta-3.csv"]);
    // One client.
    let v = list(&format!("client_id={b}")).await;
    assert_eq!(v["total"], 6);
    assert!(names(&v).iter().all(|n| n.starts_with("fmx-beta")));
    // Category, and a lever within it.
    assert_eq!(
        list("category=CRMT").await["total"],
        2,
        "Bank A days 2 and 5"
    );
    assert_eq!(list("category=Assets").await["total"], 2 + 3);
    let v = list(&format!("category=Assets&lever={pse}&client_id={a}")).await;
    assert_eq!(names(&v), ["FMX-Alpha-4.csv", "FMX-Alpha-1.csv"]);
    assert_eq!(list("lever=none").await["total"], 2 + 3);
    // Dates inclusive to the end of the day (Bank B's last second of the 3rd is in).
    let v = list("from=2026-01-02&to=2026-01-03").await;
    assert_eq!(
        names(&v),
        [
            "fmx-beta-3.csv",
            "FMX-Alpha-3.csv",
            "fmx-beta-2.csv",
            "FMX-Alpha-2.csv"
        ]
    );
    // Status.
    assert_eq!(list("status=processed").await["total"], 6);
    let v = list(&format!("status=unprocessed&client_id={a}")).await;
    assert_eq!(
        names(&v),
        ["FMX-Alpha-5.csv", "FMX-Alpha-3.csv", "FMX-Alpha-1.csv"]
    );
    // Everything at once.
    let v = list(&format!(
        "client_id={a}&category=Assets&lever={pse}&from=2026-01-04&to=2026-01-04&status=processed&q=alpha"
    ))
    .await;
    assert_eq!(names(&v), ["FMX-Alpha-4.csv"]);
    // Paging: 5 a page, the last page holds what is left; the total stays.
    let v = list("page_size=5&page=3").await;
    assert_eq!(v["total"], 12);
    assert_eq!(names(&v), ["fmx-beta-1.csv", "FMX-Alpha-1.csv"]);
    assert_eq!(list("page_size=5&page=4").await["items"], json!([]));
    // Sorting.
    let v = list("sort=savings_rwas&dir=asc&page_size=5").await;
    assert_eq!(names(&v)[0], "fmx-beta-1.csv");
    let v = list("sort=savings_rwas&dir=desc&page_size=5").await;
    assert_eq!(names(&v)[0], "FMX-Alpha-6.csv");
    let v = list("sort=client&dir=asc&page_size=20").await;
    assert!(names(&v)[..6].iter().all(|n| n.starts_with("FMX-Alpha")));
    let v = list("sort=name&dir=asc&page_size=5").await;
    assert_eq!(names(&v)[0], "FMX-Alpha-1.csv");
    let v = list("sort=status&dir=desc&page_size=20").await;
    assert!(
        v["items"].as_array().unwrap()[..6]
            .iter()
            .all(|f| f["processed"] == true)
    );
    // Pages in the far half are read from the other end of the sort: every sort, both ways,
    // paged by 5 gives the same rows in the same order as one page of 50.
    for sort in [
        "uploaded_at",
        "name",
        "client",
        "savings_rwas",
        "savings_bps",
        "status",
    ] {
        for dir in ["asc", "desc"] {
            let whole = names(&list(&format!("sort={sort}&dir={dir}&page_size=50")).await);
            let mut paged = Vec::new();
            for page in 1..=3 {
                let v = list(&format!("sort={sort}&dir={dir}&page_size=5&page={page}")).await;
                assert_eq!(v["total"], 12, "{sort} {dir} page {page}");
                paged.extend(names(&v));
            }
            assert_eq!(paged, whole, "{sort} {dir}");
        }
    }
    // The latest run's live state comes with each file.
    let run = crate::runs::queue(
        &app,
        &a,
        &a_files[0],
        server::service::runs::RunMode::Manual,
        Some(&pse),
    )
    .await;
    let v = list(&format!("q=alpha-1&client_id={a}")).await;
    assert_eq!(v["items"][0]["latestRun"]["id"], run.as_str());
    assert_eq!(v["items"][0]["latestRun"]["state"], "queued");
    // Bad input: a clear message, nothing listed.
    for (q, message) in [
        ("page_size=7", "Rows per page must be 5, 10, 20 or 50"),
        ("page=0", "The page must be a whole number from 1"),
        (
            "status=done",
            "Status must be all, processed or unprocessed, not done",
        ),
        (
            "from=2026-02-01&to=2026-01-01",
            "The start date must be on or before the end date",
        ),
        ("from=01/02/2026", "Invalid start date: use YYYY-MM-DD"),
    ] {
        let (st, v) = admin.json(&format!("/api/admin/files?{q}")).await;
        assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{q}");
        assert_eq!(v["message"], message, "{q}");
    }
}

/// The file's history as the API gives it: (field, old, new, editor) newest first.
async fn history(s: &Session, file: &str) -> Vec<(String, Value, Value, Value)> {
    let (st, v) = s.json(&format!("/api/admin/files/{file}/history")).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    v.as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["field"].as_str().unwrap().to_string(),
                e["oldValue"].clone(),
                e["newValue"].clone(),
                e["editorName"].clone(),
            )
        })
        .collect()
}

#[tokio::test]
async fn bulk_assignment_queues_a_run_per_file_and_never_marks_them_processed() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let admin = app.login(ADMIN).await;
    let a = client_id(&app, "Bank A").await;
    let b = client_id(&app, "Bank B").await;
    let corp = lever_id(&app, "corporates").await;
    let f1 = upload(
        &admin,
        &a,
        "one.csv",
        generated_csv(analysis::model::Lever::Pse, 20, 1),
    )
    .await;
    let f2 = upload(
        &admin,
        &b,
        "two.csv",
        generated_csv(analysis::model::Lever::Pse, 20, 2),
    )
    .await;
    // An unknown lever refuses the whole request; nothing changes.
    let (st, v) = send(
        &admin,
        reqwest::Method::POST,
        "/api/admin/files/assign-lever",
        json!({"fileIds": [f1, f2], "leverId": "no-such-lever"}),
    )
    .await;
    assert_eq!(
        (st, v["message"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("Invalid lever ID"))
    );
    let (st, v) = send(
        &admin,
        reqwest::Method::POST,
        "/api/admin/files/assign-lever",
        json!({"fileIds": [], "leverId": corp}),
    )
    .await;
    assert_eq!(
        (st, v["message"].as_str()),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("Select at least one file")
        )
    );
    assert!(history(&admin, &f1).await.is_empty());

    let (st, v) = send(
        &admin,
        reqwest::Method::POST,
        "/api/admin/files/assign-lever",
        json!({"fileIds": [f1, f2, "no-such-file"], "leverId": corp}),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(
        (v["succeeded"].as_i64(), v["failed"].as_i64()),
        (Some(2), Some(1))
    );
    assert_eq!(v["results"][2]["error"], "File not found");
    for (i, file) in [&f1, &f2].into_iter().enumerate() {
        let run = v["results"][i]["runId"].as_str().unwrap();
        let (_, r) = admin.json(&format!("/api/runs/{run}")).await;
        assert_eq!(r["state"], "queued");
        assert_eq!(r["mode"], "manual");
        assert_eq!(r["fileId"], file.as_str());
        let (_, f) = admin.json(&format!("/api/admin/files/{file}")).await;
        assert_eq!(f["leverId"], corp.as_str());
        assert_eq!(f["leverName"], "Corporates with Eligible Collateral");
        assert_eq!(
            f["processed"], false,
            "processed only when the run completes"
        );
        assert_eq!(f["status"], "queued");
        assert_eq!(f["latestRun"]["id"], run);
        let h = history(&admin, file).await;
        assert_eq!(h.len(), 1, "{h:?}");
        assert_eq!(h[0].0, "lever");
        assert_eq!(h[0].1, Value::Null);
        assert_eq!(h[0].2, "Corporates with Eligible Collateral");
    }
    // Assigning again replaces the queued run (cancelled) with a new one.
    let first_run = v["results"][0]["runId"].as_str().unwrap().to_string();
    let pse = lever_id(&app, "pse").await;
    let (st, f) = send(
        &admin,
        reqwest::Method::POST,
        &format!("/api/admin/files/{f1}/lever"),
        json!({"leverId": pse}),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{f}");
    assert_ne!(f["latestRun"]["id"], first_run.as_str());
    assert_eq!(f["latestRun"]["state"], "queued");
    assert_eq!(f["leverName"], "Public Sector Entities (PSE)");
    let (_, old) = admin.json(&format!("/api/runs/{first_run}")).await;
    assert_eq!(old["state"], "cancelled");
    let (n,): (i64,) = sqlx::query_as(
        "SELECT COUNT(*) FROM processing_runs WHERE file_id = $1 AND state = 'queued'",
    )
    .bind(&f1)
    .fetch_one(&app.state.db.pool)
    .await
    .unwrap();
    assert_eq!(n, 1);
    let h = history(&admin, &f1).await;
    assert_eq!(
        (h[0].0.as_str(), &h[0].1, &h[0].2),
        (
            "lever",
            &json!("Corporates with Eligible Collateral"),
            &json!("Public Sector Entities (PSE)")
        )
    );
}

#[tokio::test]
async fn a_reprocessed_file_counts_once_its_run_completes_and_savings_edits_sync_the_client() {
    let app = TestApp::spawn().await;
    let admin = app.login(ADMIN).await;
    let a = client_id(&app, "Bank A").await;
    let pse = lever_id(&app, "pse").await;
    let corp = lever_id(&app, "corporates").await;
    let file = upload(
        &admin,
        &a,
        "pse.csv",
        generated_csv(analysis::model::Lever::Pse, 300, 7),
    )
    .await;
    let (st, f) = send(
        &admin,
        reqwest::Method::POST,
        &format!("/api/admin/files/{file}/lever"),
        json!({"leverId": pse}),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{f}");
    let run = f["latestRun"]["id"].as_str().unwrap().to_string();
    let done = wait_final(&admin, &run, 60).await;
    assert_eq!(done["state"], "completed", "{done}");
    let saved = done["result"]["savingsRwas"].as_f64().unwrap();
    assert!(saved > 0.0, "{done}");
    let (_, f) = admin.json(&format!("/api/admin/files/{file}")).await;
    assert_eq!(
        (f["processed"].as_bool(), f["status"].as_str()),
        (Some(true), Some("processed"))
    );
    let (totals, _) = client_totals(&app, &a).await;
    let others = processed_sum(&app, &a).await - saved;
    assert!(
        (totals - (others + saved)).abs() < 1e-6,
        "{totals} {others} {saved}"
    );
    // The run's completion is in the history, by the administrator the run acted for.
    let h = history(&admin, &file).await;
    let fields: Vec<&str> = h.iter().map(|e| e.0.as_str()).collect();
    assert!(
        fields.contains(&"processed") && fields.contains(&"savings_rwas"),
        "{h:?}"
    );
    let processed = h.iter().find(|e| e.0 == "processed").unwrap();
    assert_eq!(
        (&processed.1, &processed.2),
        (&json!("false"), &json!("true"))
    );
    assert!(processed.3.is_string(), "the editor is named: {h:?}");
    // The processed output downloads for the administrator.
    let r = admin.get(&format!("/api/files/{file}/processed")).await;
    assert_eq!(r.status(), StatusCode::OK);

    // A savings edit: the client's totals follow in the same transaction and the events go out.
    let mut ws = Ws::connect(&admin).await;
    let topic = format!("client:{a}:savings");
    ws.subscribe(&[topic.as_str()]).await;
    let (st, f) = send(
        &admin,
        reqwest::Method::PATCH,
        &format!("/api/admin/files/{file}"),
        json!({"savingsRwas": 1234.56}),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{f}");
    assert_eq!(f["savingsRwas"], 1234.56);
    let (totals, _) = client_totals(&app, &a).await;
    assert!((totals - (others + 1234.56)).abs() < 1e-6, "{totals}");
    let event = loop {
        let v = ws
            .next_json(Duration::from_secs(5))
            .await
            .expect("savings.changed");
        if v["type"] == "savings.changed" {
            break v;
        }
    };
    assert!((event["data"]["cet1SavingsRwas"].as_f64().unwrap() - totals).abs() < 1e-6);
    let (st, f) = send(
        &admin,
        reqwest::Method::PATCH,
        &format!("/api/admin/files/{file}"),
        json!({"savingsBps": 2.5}),
    )
    .await;
    assert_eq!((st, f["savingsBps"].as_f64()), (StatusCode::OK, Some(2.5)));
    let h = history(&admin, &file).await;
    assert_eq!(h[0].0, "savings_bps");
    assert_eq!(h[0].2, "2.5");
    assert_eq!(
        (h[1].0.as_str(), &h[1].2),
        ("savings_rwas", &json!("1234.56"))
    );

    // A corrected lever: the file is no longer processed until its new run completes, and its
    // savings leave the client's totals meanwhile.
    let (st, f) = send(
        &admin,
        reqwest::Method::POST,
        &format!("/api/admin/files/{file}/lever"),
        json!({"leverId": corp}),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{f}");
    let h = history(&admin, &file).await;
    let processed = h.iter().find(|e| e.0 == "processed").unwrap();
    assert_eq!(
        (&processed.1, &processed.2),
        (&json!("true"), &json!("false"))
    );
    let run = f["latestRun"]["id"].as_str().unwrap().to_string();
    let done = wait_final(&admin, &run, 60).await;
    assert_eq!(done["state"], "completed", "{done}");
    let (_, f) = admin.json(&format!("/api/admin/files/{file}")).await;
    assert_eq!(f["processed"], true);
    assert_eq!(f["leverId"], corp.as_str());
}

#[tokio::test]
async fn every_edit_is_in_the_history_and_bad_input_changes_nothing() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let admin = app.login(ADMIN).await;
    let a = client_id(&app, "Bank A").await;
    let file = upload(
        &admin,
        &a,
        "edit me.csv",
        generated_csv(analysis::model::Lever::Pse, 5, 3),
    )
    .await;
    let path = format!("/api/admin/files/{file}");
    for (b, message) in [
        (
            json!({"savingsRwas": -1}),
            "Savings (RWAs) must be a number of 0 or more",
        ),
        (
            json!({"savingsBps": -0.5}),
            "Savings (BPS) must be a number of 0 or more",
        ),
        (json!({}), "Nothing to change"),
        (json!({"name": "   "}), "File name is required"),
    ] {
        let (st, v) = send(&admin, reqwest::Method::PATCH, &path, b.clone()).await;
        assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{b}: {v}");
        assert_eq!(v["message"], message);
    }
    let (st, _) = send(
        &admin,
        reqwest::Method::PATCH,
        &path,
        json!({"savingsRwas": "lots"}),
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        history(&admin, &file).await.is_empty(),
        "refusals change nothing"
    );

    for b in [
        json!({"savingsRwas": 100.25}),
        json!({"savingsBps": 0.75}),
        json!({"name": "renamed.csv"}),
        // The same value again is no change.
        json!({"savingsRwas": 100.25}),
    ] {
        let (st, v) = send(&admin, reqwest::Method::PATCH, &path, b).await;
        assert_eq!(st, StatusCode::OK, "{v}");
    }
    // The search reads the renamed file under its new name, in any case, and no longer under
    // its old one (the lower-cased copy of the name moves with it).
    for (q, want) in [("RENAMED", 1), ("Renamed.CSV", 1), ("edit me", 0)] {
        let (st, v) = admin
            .json(&format!(
                "/api/admin/files?q={}&client_id={a}",
                q.replace(' ', "%20")
            ))
            .await;
        assert_eq!(st, StatusCode::OK);
        assert_eq!(v["total"], want, "{q}: {v}");
    }
    let pse = lever_id(&app, "pse").await;
    let (st, _) = send(
        &admin,
        reqwest::Method::POST,
        &format!("{path}/lever"),
        json!({"leverId": pse}),
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    let h = history(&admin, &file).await;
    let got: Vec<(String, Value, Value)> = h
        .iter()
        .map(|e| (e.0.clone(), e.1.clone(), e.2.clone()))
        .collect();
    assert_eq!(
        got,
        [
            (
                "lever".to_string(),
                Value::Null,
                json!("Public Sector Entities (PSE)")
            ),
            (
                "name".to_string(),
                json!("edit me.csv"),
                json!("renamed.csv")
            ),
            ("savings_bps".to_string(), json!("0"), json!("0.75")),
            ("savings_rwas".to_string(), json!("0"), json!("100.25")),
        ]
    );
    let (_, me) = admin.json("/api/auth/me").await;
    for e in &h {
        assert!(e.3.is_string(), "editor named: {e:?}");
        assert!(
            me.to_string()
                .contains(e.3.as_str().unwrap().split(' ').next().unwrap())
        );
    }
    // An editor who is gone is unknown (the screen shows 'Unknown User').
    sqlx::query("UPDATE file_edit_history SET edited_by = NULL WHERE file_id = $1")
        .bind(&file)
        .execute(&app.state.db.pool)
        .await
        .unwrap();
    assert!(history(&admin, &file).await.iter().all(|e| e.3.is_null()));
    // A stored PDF cannot be processed: its lever is not changed.
    let pdf = upload(&admin, &a, "scan.pdf", b"%PDF-1.7\n1 0 obj\n".to_vec()).await;
    let (st, v) = send(
        &admin,
        reqwest::Method::POST,
        &format!("/api/admin/files/{pdf}/lever"),
        json!({"leverId": pse}),
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(history(&admin, &pdf).await.is_empty());
}

#[tokio::test]
async fn bulk_delete_reports_each_file_and_removes_what_it_deleted() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let admin = app.login(ADMIN).await;
    let a = client_id(&app, "Bank A").await;
    let b = client_id(&app, "Bank B").await;
    let f1 = upload(
        &admin,
        &a,
        "d1.csv",
        generated_csv(analysis::model::Lever::Pse, 5, 1),
    )
    .await;
    let f2 = upload(
        &admin,
        &b,
        "d2.csv",
        generated_csv(analysis::model::Lever::Pse, 5, 2),
    )
    .await;
    let keep = upload(
        &admin,
        &a,
        "keep.csv",
        generated_csv(analysis::model::Lever::Pse, 5, 3),
    )
    .await;
    // One file that cannot be deleted (already gone).
    let (st, v) = send(
        &admin,
        reqwest::Method::POST,
        "/api/admin/files/delete",
        json!({"fileIds": [f1, "no-such-file", f2]}),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(
        (v["succeeded"].as_i64(), v["failed"].as_i64()),
        (Some(2), Some(1))
    );
    assert_eq!(v["results"][0]["success"], true);
    assert_eq!(v["results"][1]["success"], false);
    assert_eq!(v["results"][1]["error"], "File not found");
    assert_eq!(v["results"][2]["success"], true);
    for f in [&f1, &f2] {
        let (st, _) = admin.json(&format!("/api/admin/files/{f}")).await;
        assert_eq!(st, StatusCode::NOT_FOUND);
    }
    let (st, _) = admin.json(&format!("/api/admin/files/{keep}")).await;
    assert_eq!(st, StatusCode::OK);
    let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM client_files WHERE id IN ($1, $2)")
        .bind(&f1)
        .bind(&f2)
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
    assert_eq!(n, 0);
    // Their objects are gone; the kept file's is there.
    let r = admin.get(&format!("/api/files/{keep}/original")).await;
    assert_eq!(r.status(), StatusCode::OK);
    // Nothing selected: a clear refusal.
    let (st, v) = send(
        &admin,
        reqwest::Method::POST,
        "/api/admin/files/delete",
        json!({"fileIds": []}),
    )
    .await;
    assert_eq!(
        (st, v["message"].as_str()),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("Select at least one file")
        )
    );
}

#[tokio::test]
async fn members_and_approvers_can_neither_list_nor_change_files_here() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let admin = app.login(ADMIN).await;
    let a = client_id(&app, "Bank A").await;
    let file = upload(
        &admin,
        &a,
        "mine.csv",
        generated_csv(analysis::model::Lever::Pse, 5, 1),
    )
    .await;
    let pse = lever_id(&app, "pse").await;
    for who in [USER_A, APPROVER, VIEWER] {
        let s = app.login(who).await;
        let (st, _) = s.json("/api/admin/files").await;
        assert_eq!(st, StatusCode::FORBIDDEN, "{who}");
        let (st, _) = s.json(&format!("/api/admin/files/{file}/history")).await;
        assert_eq!(st, StatusCode::FORBIDDEN, "{who}");
        for (m, p, b) in [
            (
                reqwest::Method::PATCH,
                format!("/api/admin/files/{file}"),
                json!({"savingsRwas": 9}),
            ),
            (
                reqwest::Method::POST,
                format!("/api/admin/files/{file}/lever"),
                json!({"leverId": pse}),
            ),
            (
                reqwest::Method::POST,
                "/api/admin/files/assign-lever".into(),
                json!({"fileIds": [file], "leverId": pse}),
            ),
            (
                reqwest::Method::POST,
                "/api/admin/files/delete".into(),
                json!({"fileIds": [file]}),
            ),
        ] {
            let (st, v) = send(&s, m, &p, b).await;
            assert_eq!(st, StatusCode::FORBIDDEN, "{who} {p}: {v}");
        }
    }
    let (_, f) = admin.json(&format!("/api/admin/files/{file}")).await;
    assert_eq!(
        (f["savingsRwas"].as_f64(), &f["leverId"]),
        (Some(0.0), &Value::Null)
    );
    assert!(history(&admin, &file).await.is_empty());
}
