//! The lever dictionary: adding and editing levers with the specification's validation, the
//! analysis files (several at once, xlsx/xls/csv, 25 MB each) kept under the lever's folder, a
//! rename that moves them (also when it fails half-way, and after a crash), deleting only what
//! nothing uses, and the live topic.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::*;
use crate::realtime::Ws;

const CSV: &str = "Exposure_ID,NIF,Exposure_Amount\nE1,P2800000A,1000\n";

async fn upload_files(s: &Session, lever: &str, files: &[(&str, Vec<u8>)]) -> (StatusCode, Value) {
    let csrf = s.cookie("capopt_csrf").unwrap_or_default();
    let mut form = reqwest::multipart::Form::new().percent_encode_noop();
    for (name, bytes) in files {
        form = form.part(
            "files",
            reqwest::multipart::Part::bytes(bytes.clone()).file_name(name.to_string()),
        );
    }
    let r = s
        .http
        .post(format!("{}/api/admin/levers/{lever}/files", s.base))
        .header("x-csrf-token", csrf)
        .multipart(form)
        .send()
        .await
        .expect("upload");
    body(r).await
}

async fn add_lever(s: &Session, name: &str) -> Value {
    let (st, v) = send(
        s,
        Method::POST,
        "/api/admin/levers",
        Some(json!({"name": name, "category": "Assets", "description": "Covered bonds"})),
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{v}");
    v
}

async fn keys(app: &TestApp) -> Vec<String> {
    let mut k = app.state.storage.list_keys_under("levers").await.unwrap();
    k.sort();
    k
}

async fn file_keys(app: &TestApp, lever: &str) -> Vec<(String, Option<String>, Option<String>)> {
    sqlx::query_as(
        "SELECT object_key, moving_to, moved_from FROM lever_files WHERE lever_id = $1 ORDER BY name",
    )
    .bind(lever)
    .fetch_all(&app.state.db.pool)
    .await
    .unwrap()
}

fn message(v: &Value) -> &str {
    v["message"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn adding_and_editing_a_lever_follow_the_specification() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let admin = app.login(ADMIN).await;
    let user = app.login(USER_A).await;
    let path = "/api/admin/levers";
    for (body, status, msg) in [
        (
            json!({"name": "  ", "category": "Assets", "description": "d"}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "Lever name is required.",
        ),
        (
            json!({"name": "Covered bonds", "category": "", "description": "d"}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "Category is required.",
        ),
        (
            json!({"name": "Covered bonds", "category": "Assets", "description": " "}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "Description is required.",
        ),
        (
            json!({"name": "Covered bonds", "category": "Other", "description": "d"}),
            StatusCode::UNPROCESSABLE_ENTITY,
            "Category must be one of Assets, CET1 deductions, CRMT.",
        ),
    ] {
        let (st, v) = send(&admin, Method::POST, path, Some(body)).await;
        assert_eq!((st, message(&v)), (status, msg));
    }
    // Nothing was added by the refusals, nor by a user.
    let (st, before) = admin.json(path).await;
    assert_eq!(st, StatusCode::OK);
    let (st, _) = send(
        &user,
        Method::POST,
        path,
        Some(json!({"name": "Covered bonds", "category": "Assets", "description": "d"})),
    )
    .await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    assert_eq!(user.json(path).await.0, StatusCode::FORBIDDEN);

    let lever = add_lever(&admin, "  Covered Bonds ").await;
    assert_eq!(lever["name"], "Covered Bonds");
    assert_eq!(lever["category"], "Assets");
    assert_eq!(lever["fileCount"], 0);
    assert_eq!(lever["folder"], "covered-bonds");
    let (_, after) = admin.json(path).await;
    assert_eq!(
        after.as_array().unwrap().len(),
        before.as_array().unwrap().len() + 1
    );
    // A name that gives the same folder is taken.
    let (st, v) = send(
        &admin,
        Method::POST,
        path,
        Some(json!({"name": "covered   bonds", "category": "CRMT", "description": "d"})),
    )
    .await;
    assert_eq!(
        (st, message(&v)),
        (
            StatusCode::CONFLICT,
            "A lever with this name already exists."
        )
    );

    // Edit: the name must not be blank; 'Other' is allowed; the inline category selector.
    let id = lever["id"].as_str().unwrap();
    let (st, v) = send(
        &admin,
        Method::PUT,
        &format!("{path}/{id}"),
        Some(json!({"name": "", "category": "Other", "description": ""})),
    )
    .await;
    assert_eq!(
        (st, message(&v)),
        (StatusCode::UNPROCESSABLE_ENTITY, "Lever name is required.")
    );
    let (st, v) = send(
        &admin,
        Method::PUT,
        &format!("{path}/{id}"),
        Some(json!({"name": "Covered Bonds", "category": "Other", "description": "Long text"})),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(
        (&v["category"], &v["description"]),
        (&json!("Other"), &json!("Long text"))
    );
    let (st, v) = send(
        &admin,
        Method::PUT,
        &format!("{path}/{id}/category"),
        Some(json!({"category": "Sovereign"})),
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    let (st, v) = send(
        &admin,
        Method::PUT,
        &format!("{path}/{id}/category"),
        Some(json!({"category": "CET1 deductions"})),
    )
    .await;
    assert_eq!(
        (st, &v["category"]),
        (StatusCode::OK, &json!("CET1 deductions"))
    );
    let (st, _) = send(
        &user,
        Method::PUT,
        &format!("{path}/{id}/category"),
        Some(json!({"category": "Assets"})),
    )
    .await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    let (_, list) = admin.json(path).await;
    let row = list
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["id"] == id)
        .unwrap()
        .clone();
    assert_eq!(row["category"], "CET1 deductions");
}

#[tokio::test]
async fn analysis_uploads_are_typed_bounded_and_stored_under_the_levers_folder() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let admin = app.login(ADMIN).await;
    let lever = add_lever(&admin, "Covered Bonds").await;
    let id = lever["id"].as_str().unwrap();

    // Refusals store nothing: a PDF, a binary named .csv, an oversized file (with a good one in
    // the same upload), no file at all, too many files.
    let big = vec![b'a'; 25 * 1024 * 1024 + 1];
    type Case<'a> = (Vec<(&'a str, Vec<u8>)>, StatusCode, &'a str);
    let cases: Vec<Case<'_>> = vec![
        (
            vec![("rules.pdf", b"%PDF-1.4\n".to_vec())],
            StatusCode::UNPROCESSABLE_ENTITY,
            "Please upload only xlsx, xls, csv files.",
        ),
        (
            vec![
                ("a.csv", CSV.into()),
                ("tool.csv", b"MZ\x90\0\x03\0".to_vec()),
            ],
            StatusCode::UNPROCESSABLE_ENTITY,
            "Please upload only xlsx, xls, csv files.",
        ),
        (
            vec![("a.csv", CSV.into()), ("big.csv", big)],
            StatusCode::PAYLOAD_TOO_LARGE,
            "Files must be smaller than 25MB",
        ),
        (
            (0..21)
                .map(|_| ("a.csv", CSV.as_bytes().to_vec()))
                .collect(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "Upload at most 20 files at once.",
        ),
    ];
    for (files, status, msg) in cases {
        let (st, v) = upload_files(&admin, id, &files).await;
        assert_eq!((st, message(&v)), (status, msg));
    }
    // A well-formed form without any file (what a browser sends for an empty selection).
    let csrf = admin.cookie("capopt_csrf").unwrap_or_default();
    let r = admin
        .http
        .post(format!("{}/api/admin/levers/{id}/files", admin.base))
        .header("x-csrf-token", csrf)
        .header("content-type", "multipart/form-data; boundary=X")
        .body("--X--\r\n")
        .send()
        .await
        .unwrap();
    let (st, v) = body(r).await;
    assert_eq!(
        (st, message(&v)),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            "Please select at least one file to upload."
        )
    );
    assert!(keys(&app).await.is_empty());
    let user = app.login(USER_A).await;
    let (st, _) = upload_files(&user, id, &[("a.csv", CSV.into())]).await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    let (st, v) = upload_files(&admin, "no-such-lever", &[("a.csv", CSV.into())]).await;
    assert_eq!(
        (st, message(&v)),
        (StatusCode::NOT_FOUND, "No lever selected for file upload.")
    );
    assert!(keys(&app).await.is_empty());

    // Several at once.
    // A workbook is recognised by its archive signature (the file is stored, never opened).
    let xlsx = [&b"PK\x03\x04"[..], &[0u8; 64][..]].concat();
    let (st, v) = upload_files(
        &admin,
        id,
        &[("Q1 exposures.csv", CSV.into()), ("Q2.xlsx", xlsx.clone())],
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{v}");
    assert_eq!(v.as_array().unwrap().len(), 2);
    let stored = keys(&app).await;
    assert_eq!(stored.len(), 2);
    assert!(
        stored
            .iter()
            .all(|k| k.starts_with("levers/covered-bonds/")),
        "{stored:?}"
    );
    let (_, files) = admin.json(&format!("/api/admin/levers/{id}/files")).await;
    let names: Vec<&str> = files
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"Q1 exposures.csv") && names.contains(&"Q2.xlsx"));
    let csv_file = files
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "Q1 exposures.csv")
        .unwrap();
    assert_eq!(csv_file["sizeBytes"], CSV.len());
    let (_, list) = admin.json("/api/admin/levers").await;
    let row = list
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["id"] == id)
        .unwrap();
    assert_eq!(row["fileCount"], 2);

    // Delete one: its row and its object.
    let fid = csv_file["id"].as_str().unwrap();
    let (st, _) = send(
        &user,
        Method::DELETE,
        &format!("/api/admin/lever-files/{fid}"),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    let (st, _) = send(
        &admin,
        Method::DELETE,
        &format!("/api/admin/lever-files/{fid}"),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::NO_CONTENT);
    assert_eq!(keys(&app).await.len(), 1);
    let (st, _) = send(
        &admin,
        Method::DELETE,
        &format!("/api/admin/lever-files/{fid}"),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_rename_moves_the_files_to_the_new_folder_live() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let admin = app.login(ADMIN).await;
    let watcher = app.login(ADMIN).await;
    let mut ws = Ws::connect(&watcher).await;
    let answers = ws.subscribe(&["admin:levers"]).await;
    assert_eq!(answers[0]["type"], "subscribed");
    let user = app.login(USER_A).await;
    let mut theirs = Ws::connect(&user).await;
    assert_eq!(
        theirs.subscribe(&["admin:levers"]).await[0]["type"],
        "denied"
    );

    let lever = add_lever(&admin, "Covered Bonds").await;
    let id = lever["id"].as_str().unwrap();
    let f = ws.next_json(Duration::from_secs(5)).await.expect("event");
    assert_eq!(
        (&f["type"], &f["data"]["leverId"]),
        (&json!("levers.changed"), &json!(id))
    );
    let files: Vec<(&str, Vec<u8>)> = vec![
        ("a.csv", CSV.into()),
        ("b.csv", format!("{CSV}E2,P2800000A,2000\n").into_bytes()),
    ];
    let (st, _) = upload_files(&admin, id, &files).await;
    assert_eq!(st, StatusCode::CREATED);
    ws.next_json(Duration::from_secs(5))
        .await
        .expect("upload event");

    let (st, v) = send(
        &admin,
        Method::PUT,
        &format!("/api/admin/levers/{id}"),
        Some(json!({"name": "  Sovereign  Guaranteed Bonds ", "category": "Assets", "description": "Covered bonds"})),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["name"], "Sovereign  Guaranteed Bonds");
    assert_eq!(v["folder"], "sovereign-guaranteed-bonds");
    assert_eq!(v["moving"], false);
    let stored = keys(&app).await;
    assert_eq!(stored.len(), 2, "the old objects are gone: {stored:?}");
    assert!(
        stored
            .iter()
            .all(|k| k.starts_with("levers/sovereign-guaranteed-bonds/"))
    );
    for (key, moving_to, moved_from) in file_keys(&app, id).await {
        assert!(key.starts_with("levers/sovereign-guaranteed-bonds/"));
        assert_eq!((moving_to, moved_from), (None, None));
    }
    // The bytes came along.
    let (_, list) = admin.json(&format!("/api/admin/levers/{id}/files")).await;
    for f in list.as_array().unwrap() {
        let r = admin
            .get(&format!(
                "/api/admin/lever-files/{}/download",
                f["id"].as_str().unwrap()
            ))
            .await;
        assert_eq!(r.status(), StatusCode::OK);
        let bytes = r.bytes().await.unwrap();
        let expected = &files.iter().find(|(n, _)| *n == f["name"]).unwrap().1;
        assert_eq!(&bytes[..], &expected[..]);
    }
    // Announced: the move's start, then the rename.
    let mut types = Vec::new();
    while let Some(f) = ws.next_json(Duration::from_millis(500)).await {
        types.push(f["type"].clone());
    }
    assert_eq!(
        types,
        vec![json!("levers.changed"), json!("levers.changed")]
    );
    assert!(theirs.next_json(Duration::from_millis(100)).await.is_none());
}

#[tokio::test]
async fn a_move_that_fails_half_way_changes_nothing() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let admin = app.login(ADMIN).await;
    let lever = add_lever(&admin, "Covered Bonds").await;
    let id = lever["id"].as_str().unwrap();
    let files: Vec<(&str, Vec<u8>)> = vec![
        ("a.csv", CSV.into()),
        ("b.csv", CSV.into()),
        ("c.csv", CSV.into()),
    ];
    let (st, _) = upload_files(&admin, id, &files).await;
    assert_eq!(st, StatusCode::CREATED);
    let before = file_keys(&app, id).await;
    // The second file's object is gone from the store: its copy fails after the first copy.
    let lost = server::storage::ObjectKey::parse(&before[1].0).unwrap();
    app.state.storage.delete(&lost).await.unwrap();

    let (st, v) = send(
        &admin,
        Method::PUT,
        &format!("/api/admin/levers/{id}"),
        Some(json!({"name": "Renamed Bonds", "category": "Assets", "description": "x"})),
    )
    .await;
    assert_eq!(st, StatusCode::CONFLICT, "{v}");
    assert_eq!(
        message(&v),
        "The lever's analysis files could not be moved to the new folder, so nothing was changed. Please try again."
    );
    // The lever keeps its name and files; the copies are gone; no move is left marked.
    let (_, list) = admin.json("/api/admin/levers").await;
    let row = list
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["id"] == id)
        .unwrap();
    assert_eq!(
        (&row["name"], &row["moving"]),
        (&json!("Covered Bonds"), &json!(false))
    );
    assert_eq!(file_keys(&app, id).await, before);
    let mut kept = vec![before[0].0.clone(), before[2].0.clone()];
    kept.sort();
    assert_eq!(keys(&app).await, kept);
    // Nothing is stuck: the lever can be edited and renamed once the file is gone.
    let (_, files) = admin.json(&format!("/api/admin/levers/{id}/files")).await;
    let b = files
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "b.csv")
        .unwrap();
    let (st, _) = send(
        &admin,
        Method::DELETE,
        &format!("/api/admin/lever-files/{}", b["id"].as_str().unwrap()),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::NO_CONTENT);
    let (st, v) = send(
        &admin,
        Method::PUT,
        &format!("/api/admin/levers/{id}"),
        Some(json!({"name": "Renamed Bonds", "category": "Assets", "description": "x"})),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    let stored = keys(&app).await;
    assert_eq!(stored.len(), 2);
    assert!(
        stored
            .iter()
            .all(|k| k.starts_with("levers/renamed-bonds/"))
    );
}

#[tokio::test]
async fn recovery_undoes_an_abandoned_move_and_finishes_a_committed_one() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let admin = app.login(ADMIN).await;
    let lever = add_lever(&admin, "Covered Bonds").await;
    let id = lever["id"].as_str().unwrap();
    let (st, _) = upload_files(&admin, id, &[("a.csv", CSV.into()), ("b.csv", CSV.into())]).await;
    assert_eq!(st, StatusCode::CREATED);
    let before = file_keys(&app, id).await;
    let storage = &app.state.storage;
    let pool = &app.state.db.pool;

    // A crash during step 2: the move is marked, one file was copied, the heartbeat stopped.
    let copy_a = server::storage::Storage::lever_key("renamed", "a.csv");
    let copy_b = server::storage::Storage::lever_key("renamed", "b.csv");
    storage
        .copy(
            &server::storage::ObjectKey::parse(&before[0].0).unwrap(),
            &copy_a,
        )
        .await
        .unwrap();
    let old = server::db::ts(chrono::Utc::now() - chrono::Duration::minutes(10));
    sqlx::query("UPDATE levers SET move_token = 't1', move_name = 'Renamed', move_heartbeat = $2 WHERE id = $1")
        .bind(id)
        .bind(&old)
        .execute(pool)
        .await
        .unwrap();
    for (key, copy) in [(&before[0].0, &copy_a), (&before[1].0, &copy_b)] {
        sqlx::query("UPDATE lever_files SET moving_to = $2 WHERE object_key = $1")
            .bind(key)
            .bind(copy.as_str())
            .execute(pool)
            .await
            .unwrap();
    }
    // While marked, uploads and renames wait.
    let (st, v) = upload_files(&admin, id, &[("c.csv", CSV.into())]).await;
    assert_eq!(st, StatusCode::CONFLICT, "{v}");
    let (_, list) = admin.json("/api/admin/levers").await;
    assert_eq!(
        list.as_array()
            .unwrap()
            .iter()
            .find(|l| l["id"] == id)
            .unwrap()["moving"],
        true
    );
    // A move whose heartbeat is fresh is left alone.
    sqlx::query("UPDATE levers SET move_heartbeat = $2 WHERE id = $1")
        .bind(id)
        .bind(server::db::now())
        .execute(pool)
        .await
        .unwrap();
    let (undone, _) = server::service::lever_dictionary::recover_moves(&app.state)
        .await
        .unwrap();
    assert_eq!(undone, 0);
    sqlx::query("UPDATE levers SET move_heartbeat = $2 WHERE id = $1")
        .bind(id)
        .bind(&old)
        .execute(pool)
        .await
        .unwrap();
    let (undone, _) = server::service::lever_dictionary::recover_moves(&app.state)
        .await
        .unwrap();
    assert_eq!(undone, 1);
    assert_eq!(file_keys(&app, id).await, before);
    assert!(!storage.exists(&copy_a).await.unwrap());
    let (_, list) = admin.json("/api/admin/levers").await;
    let row = list
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["id"] == id)
        .unwrap();
    assert_eq!(
        (&row["name"], &row["moving"]),
        (&json!("Covered Bonds"), &json!(false))
    );

    // A crash after step 3: the files point at their copies, the old objects remain.
    let new_a = server::storage::Storage::lever_key("covered-bonds", "a.csv");
    let old_a = server::storage::ObjectKey::parse(&before[0].0).unwrap();
    storage.copy(&old_a, &new_a).await.unwrap();
    sqlx::query("UPDATE lever_files SET object_key = $2, moved_from = $1 WHERE object_key = $1")
        .bind(old_a.as_str())
        .bind(new_a.as_str())
        .execute(pool)
        .await
        .unwrap();
    let (_, deleted) = server::service::lever_dictionary::recover_moves(&app.state)
        .await
        .unwrap();
    assert_eq!(deleted, 1);
    assert!(!storage.exists(&old_a).await.unwrap());
    assert!(storage.exists(&new_a).await.unwrap());
    let after = file_keys(&app, id).await;
    assert!(
        after
            .iter()
            .all(|(_, to, from)| to.is_none() && from.is_none())
    );
    let (st, _) = upload_files(&admin, id, &[("c.csv", CSV.into())]).await;
    assert_eq!(st, StatusCode::CREATED);
}

#[tokio::test]
async fn deleting_a_lever_that_files_or_runs_use_is_refused() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let admin = app.login(ADMIN).await;
    let user = app.login(USER_A).await;
    // The engine's own levers.
    let (st, v) = send(&admin, Method::DELETE, "/api/admin/levers/lever-pse", None).await;
    assert_eq!(st, StatusCode::CONFLICT);
    assert_eq!(
        message(&v),
        "'Public Sector Entities (PSE)' is one of the analysis engine's levers and cannot be deleted."
    );
    // A lever a client file names.
    let used = add_lever(&admin, "Used lever").await;
    let used_id = used["id"].as_str().unwrap();
    let client = crate::realtime::client_id(&app, "Bank A").await;
    let now = server::db::now();
    sqlx::query(
        "INSERT INTO client_files (id, client_id, name, file_path, uploaded_at, lever_id) VALUES ('f-used', $1, 'x.csv', '', $2, $3)",
    )
    .bind(&client)
    .bind(&now)
    .bind(used_id)
    .execute(&app.state.db.pool)
    .await
    .unwrap();
    let (st, v) = send(
        &admin,
        Method::DELETE,
        &format!("/api/admin/levers/{used_id}"),
        None,
    )
    .await;
    assert_eq!(
        (st, message(&v)),
        (
            StatusCode::CONFLICT,
            "'Used lever' cannot be deleted because 1 client file uses it."
        )
    );
    // An unused one with analysis files: deleted with them, by an administrator only.
    let unused = add_lever(&admin, "Unused lever").await;
    let unused_id = unused["id"].as_str().unwrap();
    let (st, _) = upload_files(&admin, unused_id, &[("a.csv", CSV.into())]).await;
    assert_eq!(st, StatusCode::CREATED);
    assert_eq!(keys(&app).await.len(), 1);
    let (st, _) = send(
        &user,
        Method::DELETE,
        &format!("/api/admin/levers/{unused_id}"),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    let (st, _) = send(
        &admin,
        Method::DELETE,
        &format!("/api/admin/levers/{unused_id}"),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::NO_CONTENT);
    assert!(keys(&app).await.is_empty());
    let (_, list) = admin.json("/api/admin/levers").await;
    assert!(
        list.as_array()
            .unwrap()
            .iter()
            .all(|l| l["id"] != unused_id)
    );
    assert!(list.as_array().unwrap().iter().any(|l| l["id"] == used_id));
}
