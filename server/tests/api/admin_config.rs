//! The administrators' configuration and runs screens: the six levers' column definitions
//! (seeded from the engine's standard columns, read by everyone, changed and reordered by
//! administrators, driving the mapping dialog's and the engine's required columns), the
//! universal column suggestions and their global-learning switch, and every client's processing
//! runs (filters and pages in SQL, retry of a failed run).

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use server::service::runs::RunMode;

use crate::helpers::*;
use crate::realtime::client_id;
use crate::runs::{generated_csv, queue, stored_file, wait_final};

async fn lever_id(app: &TestApp, code: &str) -> String {
    let (id,): (String,) = sqlx::query_as("SELECT id FROM levers WHERE code = $1")
        .bind(code)
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
    id
}

fn names(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect()
}

const ADMINS_ONLY: &str =
    "Access denied: Only administrators can create/update/delete lever column definitions";

/// Migration 0009 gives each of the six levers the engine's standard columns with the lever's
/// required set: what the mapping dialog read from the fallbacks before, now as definitions
/// every signed-in user reads.
#[tokio::test]
async fn the_six_levers_have_the_engines_standard_columns_as_definitions() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let viewer = app.login(VIEWER).await;
    for code in [
        "pse",
        "rgla",
        "mdb",
        "institutions",
        "corporates",
        "sovereigns",
    ] {
        let lever = lever_id(&app, code).await;
        let (st, defs) = viewer
            .json(&format!("/api/levers/{lever}/column-definitions"))
            .await;
        assert_eq!(st, StatusCode::OK, "{defs}");
        let expected =
            server::service::levers::fallback_columns(analysis::model::Lever::parse(code));
        assert_eq!(defs.as_array().unwrap().len(), expected.len(), "{code}");
        let (_, cols) = viewer.json(&format!("/api/levers/{lever}/columns")).await;
        assert_eq!(cols, serde_json::to_value(&expected).unwrap(), "{code}");
        let orders: Vec<i64> = defs
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["displayOrder"].as_i64().unwrap())
            .collect();
        assert_eq!(orders, (1..=expected.len() as i64).collect::<Vec<_>>());
    }
    let pse = lever_id(&app, "pse").await;
    let (_, cols) = viewer.json(&format!("/api/levers/{pse}/columns")).await;
    let required: Vec<&str> = cols
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["isRequired"] == true)
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        required,
        ["Current_Risk_Weight", "Exposure_Amount", "NIF", "Maturity"]
    );
    let (st, _) = app
        .client()
        .await
        .json(&format!("/api/levers/{pse}/column-definitions"))
        .await;
    assert_eq!(st, StatusCode::UNAUTHORIZED);
}

/// Administrators add (at the end by default), reorder in one call and remove definitions; bad
/// orders and other users change nothing; a lever left without required columns falls back to
/// the specification's set.
#[tokio::test]
async fn administrators_reorder_column_definitions_in_one_call() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let admin = app.login(ADMIN).await;
    let user = app.login(USER_A).await;
    let mdb = lever_id(&app, "mdb").await;
    let path = format!("/api/levers/{mdb}/column-definitions");
    let (st, d) = send(
        &admin,
        Method::POST,
        &path,
        Some(json!({"name": "Issuer_Group", "dataType": "text", "category": "optional"})),
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{d}");
    assert_eq!(d["displayOrder"], 20, "after the 19 seeded columns");
    let (_, defs) = admin.json(&path).await;
    let ids: Vec<String> = defs
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_str().unwrap().to_string())
        .collect();
    let before = names(&defs);
    assert_eq!(before.last().unwrap(), "Issuer_Group");
    let order = format!("{path}/order");
    // Refusals change nothing.
    let mut reversed = ids.clone();
    reversed.reverse();
    let (st, v) = send(&user, Method::PUT, &order, Some(json!({"ids": reversed}))).await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    assert_eq!(v["message"], ADMINS_ONLY);
    let missing_one: Vec<String> = ids[1..].to_vec();
    let repeated: Vec<String> = [ids.clone(), vec![ids[0].clone()]].concat();
    let foreign: Vec<String> = [vec!["not-a-definition".to_string()], ids[1..].to_vec()].concat();
    for bad in [
        json!({ "ids": missing_one }),
        json!({ "ids": repeated }),
        json!({ "ids": foreign }),
    ] {
        let (st, v) = send(&admin, Method::PUT, &order, Some(bad)).await;
        assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
        assert_eq!(
            v["message"],
            "The order must list each of the lever's column definitions once"
        );
    }
    assert_eq!(names(&admin.json(&path).await.1), before);
    // The whole new order at once.
    let (st, v) = send(&admin, Method::PUT, &order, Some(json!({"ids": reversed}))).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    let mut expected = before.clone();
    expected.reverse();
    assert_eq!(names(&v), expected);
    let (_, defs) = user.json(&path).await;
    assert_eq!(names(&defs), expected);
    let orders: Vec<i64> = defs
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["displayOrder"].as_i64().unwrap())
        .collect();
    assert_eq!(orders, (1..=20).collect::<Vec<_>>());
    let (_, cols) = user.json(&format!("/api/levers/{mdb}/columns")).await;
    assert_eq!(names(&cols), expected, "the mapping dialog's order");
    // No required column left: the dialog asks for the specification's MDB set, as the engine.
    for d in defs.as_array().unwrap() {
        if d["isRequired"] == true {
            let mut body = d.clone();
            let o = body.as_object_mut().unwrap();
            for k in ["id", "leverId"] {
                o.remove(k);
            }
            o.insert("isRequired".into(), json!(false));
            let (st, v) = send(
                &admin,
                Method::PUT,
                &format!(
                    "/api/lever-column-definitions/{}",
                    d["id"].as_str().unwrap()
                ),
                Some(body),
            )
            .await;
            assert_eq!(st, StatusCode::OK, "{v}");
        }
    }
    let (_, cols) = user.json(&format!("/api/levers/{mdb}/columns")).await;
    let mut required: Vec<&str> = cols
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["isRequired"] == true)
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    required.sort();
    assert_eq!(
        required,
        ["Exposure_Amount", "LEI", "Legal_Name", "Maturity"]
    );
}

/// A column an administrator makes required is required by the client's mapping dialog and by
/// the engine: a run without it fails with the missing column named.
#[tokio::test]
async fn a_required_definition_is_checked_by_the_engine() {
    let app = TestApp::spawn().await;
    let admin = app.login(ADMIN).await;
    let user = app.login(USER_A).await;
    let pse = lever_id(&app, "pse").await;
    let (_, defs) = admin
        .json(&format!("/api/levers/{pse}/column-definitions"))
        .await;
    let scra = defs
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "SCRA_Grade")
        .unwrap()
        .clone();
    let mut body = scra.clone();
    let o = body.as_object_mut().unwrap();
    o.remove("id");
    o.remove("leverId");
    o.insert("isRequired".into(), json!(true));
    let (st, v) = send(
        &admin,
        Method::PUT,
        &format!(
            "/api/lever-column-definitions/{}",
            scra["id"].as_str().unwrap()
        ),
        Some(body),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    let (_, cols) = user.json(&format!("/api/levers/{pse}/columns")).await;
    assert!(
        cols.as_array()
            .unwrap()
            .iter()
            .any(|c| c["name"] == "SCRA_Grade" && c["isRequired"] == true)
    );
    let client = client_id(&app, "Bank A").await;
    let bytes = generated_csv(analysis::model::Lever::Pse, 50, 3);
    let file = stored_file(&app, &client, "required.csv", &bytes).await;
    let run = queue(&app, &client, &file, RunMode::Manual, Some(&pse)).await;
    let v = wait_final(&user, &run, 60).await;
    assert_eq!(v["state"], "failed", "{v}");
    let error = v["error"].as_str().unwrap();
    assert!(error.contains("Missing required columns"), "{error}");
    assert!(error.contains("SCRA_Grade"), "{error}");
}

/// Suggestions: the screen's figures, add (both names, a standard target, 0.8 and 1), switch,
/// delete, all administrators only; the global-learning switch stops confirmed mappings from
/// feeding suggestions and auto-mapping from using them.
#[tokio::test]
async fn universal_suggestions_and_the_global_learning_switch() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let admin = app.login(ADMIN).await;
    let user = app.login(USER_A).await;
    let base = "/api/admin/universal-suggestions";
    let (st, v) = admin.json(base).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["globalLearning"], true);
    assert_eq!(
        v["stats"],
        json!({"total": 0, "enabled": 0, "highConfidence": 0, "totalUsage": 0})
    );
    assert_eq!(user.get(base).await.status(), StatusCode::FORBIDDEN);
    // Adding needs both names and a standard column as the target.
    for body in [
        json!({"sourceColumnName": " ", "targetColumnName": "NIF"}),
        json!({"sourceColumnName": "Tax code", "targetColumnName": ""}),
    ] {
        let (st, v) = send(&admin, Method::POST, base, Some(body)).await;
        assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(
            v["message"],
            "Please enter both source and target column names"
        );
    }
    let (st, v) = send(
        &admin,
        Method::POST,
        base,
        Some(json!({"sourceColumnName": "Tax code", "targetColumnName": "Not_A_Column"})),
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    let (st, _) = send(
        &user,
        Method::POST,
        base,
        Some(json!({"sourceColumnName": "Tax code", "targetColumnName": "NIF"})),
    )
    .await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    let (st, added) = send(
        &admin,
        Method::POST,
        base,
        Some(json!({"sourceColumnName": "  Tax Code ", "targetColumnName": "nif"})),
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{added}");
    assert_eq!(added["sourceColumnName"], "tax code");
    assert_eq!(added["targetColumnName"], "NIF");
    assert_eq!(added["confidenceScore"], 0.8);
    assert_eq!(added["usageCount"], 1);
    assert_eq!(added["enabled"], true);
    let (st, _) = send(
        &admin,
        Method::POST,
        base,
        Some(json!({"sourceColumnName": "tax code", "targetColumnName": "NIF"})),
    )
    .await;
    assert_eq!(st, StatusCode::CONFLICT);
    // Auto-mapping uses it: a file whose NIF column is called "Tax code".
    let csv = "Exposure_ID,Tax code,Exposure_Amount\nE1,Q2826000H,1000\n";
    let inspect = |s: &Session| {
        let s = s.clone();
        async move {
            let csrf = s.cookie("capopt_csrf").unwrap_or_default();
            let form = reqwest::multipart::Form::new().part(
                "file",
                reqwest::multipart::Part::bytes(csv.as_bytes().to_vec()).file_name("t.csv"),
            );
            let r = s
                .http
                .post(format!("{}/api/files/inspect", s.base))
                .header("x-csrf-token", csrf)
                .multipart(form)
                .send()
                .await
                .unwrap();
            body(r).await.1
        }
    };
    assert_eq!(inspect(&user).await["suggestedMapping"]["NIF"], "Tax code");
    // Disabled: not used.
    let item = format!("{base}/{}", added["id"].as_str().unwrap());
    let (st, v) = send(
        &admin,
        Method::PATCH,
        &item,
        Some(json!({"enabled": false})),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["enabled"], false);
    assert!(inspect(&user).await["suggestedMapping"]["NIF"].is_null());
    let (st, _) = send(&admin, Method::PATCH, &item, Some(json!({"enabled": true}))).await;
    assert_eq!(st, StatusCode::OK);
    // Global learning off: auto-mapping ignores the enabled suggestion, and a confirmed mapping
    // is not counted.
    let learning = format!("{base}/learning");
    let (st, _) = send(
        &user,
        Method::PUT,
        &learning,
        Some(json!({"enabled": false})),
    )
    .await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    let (st, v) = send(
        &admin,
        Method::PUT,
        &learning,
        Some(json!({"enabled": false})),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(admin.json(base).await.1["globalLearning"], false);
    assert!(inspect(&user).await["suggestedMapping"]["NIF"].is_null());
    let pse = lever_id(&app, "pse").await;
    let confirm = |s: &Session, name: &'static str| {
        let s = s.clone();
        let pse = pse.clone();
        async move {
            let csrf = s.cookie("capopt_csrf").unwrap_or_default();
            let options = json!({"mode": "manual", "leverId": pse, "process": true,
                "mapping": {"NIF": "Tax code", "Exposure_ID": "Exposure_ID", "Exposure_Amount": "Exposure_Amount"}});
            let form = reqwest::multipart::Form::new()
                .part(
                    "file",
                    reqwest::multipart::Part::bytes(csv.as_bytes().to_vec()).file_name(name),
                )
                .text("options", options.to_string());
            let r = s
                .http
                .post(format!("{}/api/files", s.base))
                .header("x-csrf-token", csrf)
                .multipart(form)
                .send()
                .await
                .unwrap();
            let (st, v) = body(r).await;
            assert_eq!(st, StatusCode::CREATED, "{v}");
        }
    };
    confirm(&user, "off.csv").await;
    let (_, v) = admin.json(base).await;
    assert_eq!(v["stats"]["total"], 1, "{v}");
    assert_eq!(v["stats"]["totalUsage"], 1, "not counted while off");
    // On again: counted, and used.
    let (st, _) = send(
        &admin,
        Method::PUT,
        &learning,
        Some(json!({"enabled": true})),
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    confirm(&user, "on.csv").await;
    let (_, v) = admin.json(base).await;
    assert_eq!(
        v["stats"],
        json!({"total": 3, "enabled": 3, "highConfidence": 0, "totalUsage": 4}),
        "tax code -> NIF counted again; exposure_id and exposure_amount learnt: {v}"
    );
    let first = &v["items"][0];
    assert_eq!(
        first["sourceColumnName"], "tax code",
        "most confident first"
    );
    assert_eq!(inspect(&user).await["suggestedMapping"]["NIF"], "Tax code");
    // Delete.
    let (st, _) = send(&user, Method::DELETE, &item, None).await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    let (st, _) = send(&admin, Method::DELETE, &item, None).await;
    assert_eq!(st, StatusCode::NO_CONTENT);
    let (st, _) = send(&admin, Method::DELETE, &item, None).await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    assert_eq!(admin.json(base).await.1["stats"]["total"], 2);
}

/// Every client's runs, newest first, with names; filters and pages in SQL; a failed run is
/// retried once as a new queued run of its file; administrators only.
#[tokio::test]
async fn administrators_list_filter_page_and_retry_every_clients_runs() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let admin = app.login(ADMIN).await;
    let user = app.login(USER_A).await;
    let bank_a = client_id(&app, "Bank A").await;
    let bank_b = client_id(&app, "Bank B").await;
    let pse = lever_id(&app, "pse").await;
    let mut runs = Vec::new();
    for i in 0..7 {
        let client = if i % 2 == 0 { &bank_a } else { &bank_b };
        let file = stored_file(&app, client, &format!("run-{i}.csv"), b"NIF\nQ2826000H\n").await;
        runs.push(queue(&app, client, &file, RunMode::Manual, Some(&pse)).await);
        // Distinct creation times.
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    sqlx::query("UPDATE processing_runs SET state = 'failed', stage = 'done', error = 'Broken file' WHERE id = $1")
        .bind(&runs[2])
        .execute(&app.state.db.pool)
        .await
        .unwrap();
    let (st, page) = admin.json("/api/admin/runs?page_size=5").await;
    assert_eq!(st, StatusCode::OK, "{page}");
    assert_eq!(page["total"], 7);
    let items = page["items"].as_array().unwrap();
    assert_eq!(items.len(), 5);
    assert_eq!(items[0]["run"]["id"], runs[6].as_str(), "newest first");
    assert_eq!(items[0]["fileName"], "run-6.csv");
    assert_eq!(items[0]["clientName"], "Bank A");
    assert_eq!(items[0]["leverName"], "Public Sector Entities (PSE)");
    assert_eq!(items[1]["clientName"], "Bank B");
    let (_, page2) = admin.json("/api/admin/runs?page_size=5&page=2").await;
    assert_eq!(page2["items"].as_array().unwrap().len(), 2);
    assert_eq!(page2["items"][1]["run"]["id"], runs[0].as_str());
    let (_, b) = admin
        .json(&format!("/api/admin/runs?client_id={bank_b}"))
        .await;
    assert_eq!(b["total"], 3);
    assert!(
        b["items"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["clientName"] == "Bank B")
    );
    let (_, failed) = admin.json("/api/admin/runs?status=failed").await;
    assert_eq!(failed["total"], 1);
    assert_eq!(failed["items"][0]["run"]["error"], "Broken file");
    let (_, none) = admin
        .json(&format!("/api/admin/runs?status=failed&client_id={bank_b}"))
        .await;
    assert_eq!(none["total"], 0);
    for bad in ["status=done", "page_size=7", "page=0"] {
        let (st, v) = admin.json(&format!("/api/admin/runs?{bad}")).await;
        assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{bad}: {v}");
    }
    assert_eq!(
        user.get("/api/admin/runs").await.status(),
        StatusCode::FORBIDDEN
    );
    let (st, one) = admin.json(&format!("/api/admin/runs/{}", runs[2])).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(one["fileName"], "run-2.csv");
    // Retry: only the failed run, once, by administrators.
    let (st, v) = send(
        &user,
        Method::POST,
        &format!("/api/admin/runs/{}/retry", runs[2]),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::FORBIDDEN, "{v}");
    let (st, v) = send(
        &admin,
        Method::POST,
        &format!("/api/admin/runs/{}/retry", runs[1]),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::CONFLICT, "{v}");
    assert_eq!(v["message"], "Only a failed run can be retried");
    let (st, retried) = send(
        &admin,
        Method::POST,
        &format!("/api/admin/runs/{}/retry", runs[2]),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{retried}");
    assert_eq!(retried["state"], "queued");
    assert_ne!(retried["id"], runs[2].as_str());
    let (_, page) = admin.json("/api/admin/runs").await;
    assert_eq!(page["total"], 8);
    assert_eq!(page["items"][0]["run"]["id"], retried["id"]);
    assert_eq!(page["items"][0]["fileName"], "run-2.csv");
    assert_eq!(page["items"][0]["run"]["mode"], "manual");
    let (status,): (String,) = sqlx::query_as(
        "SELECT f.processing_status FROM client_files f JOIN processing_runs r ON r.file_id = f.id WHERE r.id = $1",
    )
    .bind(&runs[2])
    .fetch_one(&app.state.db.pool)
    .await
    .unwrap();
    assert_eq!(status, "queued");
    let (st, v) = send(
        &admin,
        Method::POST,
        &format!("/api/admin/runs/{}/retry", runs[2]),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::CONFLICT, "retried once: {v}");
    // Cancel (the runs' own route) works for administrators on any client.
    let id = retried["id"].as_str().unwrap();
    let (st, v) = send(
        &admin,
        Method::POST,
        &format!("/api/runs/{id}/cancel"),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["state"], "cancelled");
}

/// Column Configuration and Universal Column Mappings are live across administrators: each
/// change goes out after its commit on `admin:columns` (with the lever) or `admin:mappings`;
/// other users may not subscribe, and a refused change publishes nothing.
#[tokio::test]
async fn configuration_changes_reach_other_administrators_live() {
    use std::time::Duration;

    use crate::realtime::Ws;

    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let admin = app.login(ADMIN).await;
    let watcher = app.login(ADMIN).await;
    let user = app.login(USER_A).await;
    let mut ws = Ws::connect(&watcher).await;
    let answers = ws.subscribe(&["admin:columns", "admin:mappings"]).await;
    assert!(
        answers.iter().all(|a| a["type"] == "subscribed"),
        "{answers:?}"
    );
    let mut theirs = Ws::connect(&user).await;
    let denied = theirs.subscribe(&["admin:columns", "admin:mappings"]).await;
    assert!(denied.iter().all(|a| a["type"] == "denied"), "{denied:?}");
    let mdb = lever_id(&app, "mdb").await;
    let path = format!("/api/levers/{mdb}/column-definitions");
    // A refused change sends nothing; the accepted one sends the lever.
    let (st, _) = send(
        &user,
        Method::POST,
        &path,
        Some(json!({"name": "Issuer_Group", "dataType": "text", "category": "optional"})),
    )
    .await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    let (st, d) = send(
        &admin,
        Method::POST,
        &path,
        Some(json!({"name": "Issuer_Group", "dataType": "text", "category": "optional"})),
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{d}");
    let f = ws.next_json(Duration::from_secs(5)).await.expect("event");
    assert_eq!(
        (&f["topic"], &f["type"], &f["data"]["leverId"]),
        (
            &json!("admin:columns"),
            &json!("definitions.changed"),
            &json!(mdb)
        )
    );
    assert!(f["at"].as_i64().is_some_and(|t| t > 0), "publish time: {f}");
    let id = d["id"].as_str().unwrap();
    let (st, _) = send(
        &admin,
        Method::DELETE,
        &format!("/api/lever-column-definitions/{id}"),
        None,
    )
    .await;
    assert!(st.is_success(), "{st}");
    let f = ws.next_json(Duration::from_secs(5)).await.expect("event");
    assert_eq!(
        (&f["type"], &f["data"]["leverId"]),
        (&json!("definitions.changed"), &json!(mdb))
    );

    // Universal mappings: the switch and a new suggestion.
    let base = "/api/admin/universal-suggestions";
    let (st, _) = send(
        &admin,
        Method::PUT,
        &format!("{base}/learning"),
        Some(json!({"enabled": false})),
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    let f = ws.next_json(Duration::from_secs(5)).await.expect("event");
    assert_eq!(
        (&f["topic"], &f["type"]),
        (&json!("admin:mappings"), &json!("suggestions.changed"))
    );
    let (st, v) = send(
        &admin,
        Method::POST,
        base,
        Some(json!({"sourceColumnName": "Tax code", "targetColumnName": "NIF"})),
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{v}");
    let g = ws.next_json(Duration::from_secs(5)).await.expect("event");
    assert_eq!(g["type"], "suggestions.changed");
    assert_eq!(
        g["seq"].as_i64(),
        f["seq"].as_i64().map(|s| s + 1),
        "in order, none lost"
    );
    // Nothing else was sent, and the other user's socket got nothing at all.
    assert!(ws.next_json(Duration::from_millis(300)).await.is_none());
    assert!(theirs.next_json(Duration::from_millis(100)).await.is_none());
}
