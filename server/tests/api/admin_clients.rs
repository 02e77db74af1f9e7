//! The Clients page and the client data room: the Filter menu over created-by and membership,
//! search, a new client with every administrator, the inline savings edit against the files' sum
//! and the one-at-a-time rule, the official figures, client memberships and the data room.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::*;
use crate::realtime::{Ws, client_id};

const ADMIN2: &str = "second.admin@example.com";

/// The exact gain in bps of an RWA reduction `d` with capital `c` and RWAs `r` (domain.md 4).
fn exact_bps(c: f64, r: f64, d: f64) -> f64 {
    10_000.0 * c * d / (r * (r - d))
}

fn names(v: &Value) -> Vec<String> {
    let mut n: Vec<String> = v
        .as_array()
        .expect("a list")
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect();
    n.sort();
    n
}

fn new_client(name: &str) -> Value {
    json!({"name": name, "description": format!("{name} description"), "fromDate": "2024-06-01"})
}

#[tokio::test]
async fn the_filter_menu_search_and_a_new_client_with_every_admin() {
    let app = TestApp::spawn().await;
    server::seed::create_admin(&app.state, ADMIN2, "Second", "Admin", DEMO_PASSWORD)
        .await
        .unwrap();
    let admin = app.login(ADMIN).await;
    let admin2 = app.login(ADMIN2).await;

    let (st, created) = send(
        &admin,
        Method::POST,
        "/api/admin/clients",
        Some(json!({
            "name": "Client X", "description": "Regional lender", "fromDate": "2024-01-01",
            "cet1SavingsRwas": 1e9, "officialCet1Capital": 13e9, "officialTotalRwas": 100e9
        })),
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{created}");
    assert_eq!(created["adminsAdded"], 2, "both administrators joined");
    let x = &created["client"];
    assert_eq!(x["memberCount"], 2);
    assert_eq!(x["cet1SavingsRwas"], 1e9);
    // 13 / 99 - 13 % = 13.1313 bps, the one bps function's exact gain.
    let bps = x["cet1SavingsBps"].as_f64().unwrap();
    assert!((bps - exact_bps(13e9, 100e9, 1e9)).abs() < 1e-9, "{bps}");
    assert!((bps - 13.131_313).abs() < 1e-5);
    assert_eq!(
        x["officialCet1Ratio"], 0.13,
        "capital / RWAs when no ratio is typed"
    );
    let (st, y) = send(
        &admin2,
        Method::POST,
        "/api/admin/clients",
        Some(new_client("Client Y")),
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{y}");

    // The second administrator leaves Bank B; Bank B was last changed 40 days ago.
    let bank_b = client_id(&app, "Bank B").await;
    let (admin2_id,): (String,) = sqlx::query_as("SELECT id FROM users WHERE email = $1")
        .bind(ADMIN2)
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
    sqlx::query("DELETE FROM client_users WHERE client_id = $1 AND user_id = $2")
        .bind(&bank_b)
        .bind(&admin2_id)
        .execute(&app.state.db.pool)
        .await
        .unwrap();
    let old = server::db::ts(chrono::Utc::now() - chrono::Duration::days(40));
    sqlx::query("UPDATE clients SET last_updated = $1 WHERE id = $2")
        .bind(&old)
        .bind(&bank_b)
        .execute(&app.state.db.pool)
        .await
        .unwrap();

    let list = |s: Session, q: &'static str| async move {
        let (st, v) = s.json(&format!("/api/admin/clients{q}")).await;
        assert_eq!(st, StatusCode::OK, "{q}: {v}");
        names(&v)
    };
    assert_eq!(
        list(admin2.clone(), "").await,
        ["Bank A", "Bank B", "Client X", "Client Y"]
    );
    // Created by the second admin, or including them.
    assert_eq!(
        list(admin2.clone(), "?filter=mine").await,
        ["Bank A", "Client X", "Client Y"]
    );
    // Created by another admin and including this one.
    assert_eq!(
        list(admin2.clone(), "?filter=shared").await,
        ["Bank A", "Client X"]
    );
    assert_eq!(
        list(admin.clone(), "?filter=shared").await,
        ["Client Y"],
        "the first admin created the banks and Client X"
    );
    assert_eq!(
        list(admin2.clone(), "?filter=recent").await,
        ["Bank A", "Client X", "Client Y"]
    );
    assert_eq!(list(admin2.clone(), "?q=client%20x").await, ["Client X"]);
    assert_eq!(
        list(admin2.clone(), "?q=REGIONAL").await,
        ["Client X"],
        "the description is searched"
    );
    assert_eq!(
        list(admin2.clone(), "?q=100%25").await,
        Vec::<String>::new(),
        "% is a character, not a wildcard"
    );
    let (st, v) = admin.json("/api/admin/clients?filter=owned").await;
    assert_eq!(st, StatusCode::BAD_REQUEST, "{v}");
    // Most recently updated first.
    let (_, all) = admin.json("/api/admin/clients").await;
    assert_eq!(all.as_array().unwrap().last().unwrap()["name"], "Bank B");
}

#[tokio::test]
async fn a_new_client_is_refused_with_the_dialogs_messages_and_changes_nothing() {
    let app = TestApp::spawn().await;
    let admin = app.login(ADMIN).await;
    let tomorrow = (chrono::Utc::now().date_naive() + chrono::Duration::days(1)).to_string();
    for (body, message) in [
        (
            json!({"name": " ", "description": "d", "fromDate": "2024-06-01"}),
            "Client name is required",
        ),
        (
            json!({"name": "N", "description": "", "fromDate": "2024-06-01"}),
            "Description is required",
        ),
        (
            json!({"name": "N", "description": "d", "fromDate": null}),
            "From date is required",
        ),
        (
            json!({"name": "N", "description": "d", "fromDate": "2023-12-31"}),
            "From date must be between 1 January 2024 and today",
        ),
        (
            json!({"name": "N", "description": "d", "fromDate": tomorrow}),
            "From date must be between 1 January 2024 and today",
        ),
        (
            json!({"name": "N", "description": "d", "fromDate": "2024-06-01", "officialCet1Capital": 1e9}),
            "Enter both the official CET1 capital and total RWAs, or neither",
        ),
        (
            json!({"name": "N", "description": "d", "fromDate": "2024-06-01", "cet1SavingsRwas": 2e9, "officialCet1Capital": 1e8, "officialTotalRwas": 1e9}),
            "CET1 Savings (RWAs) must be smaller than the total RWAs",
        ),
    ] {
        let (st, v) = send(&admin, Method::POST, "/api/admin/clients", Some(body)).await;
        assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
        assert_eq!(v["message"], message);
    }
    let (_, all) = admin.json("/api/admin/clients").await;
    assert_eq!(names(&all), ["Bank A", "Bank B"]);
    // Not for anyone else.
    let user = app.login(USER_A).await;
    let (st, _) = send(
        &user,
        Method::POST,
        "/api/admin/clients",
        Some(new_client("Sneaky")),
    )
    .await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    let (_, all) = admin.json("/api/admin/clients").await;
    assert_eq!(names(&all), ["Bank A", "Bank B"]);
}

/// A processed file of a client with its savings, written directly (the savings sync is what is
/// tested here, not processing).
async fn processed_file(app: &TestApp, client: &str, savings: f64) {
    sqlx::query(
        "INSERT INTO client_files (id, client_id, name, file_path, uploaded_at, processed, savings_rwas, processing_status)
         VALUES ($1, $2, 'done.csv', '', $3, 1, $4, 'processed')",
    )
    .bind(uuid::Uuid::new_v4().to_string())
    .bind(client)
    .bind(server::db::now())
    .bind(savings)
    .execute(&app.state.db.pool)
    .await
    .unwrap();
}

#[tokio::test]
async fn the_inline_savings_edit_and_the_files_sum() {
    let app = TestApp::spawn().await;
    let admin = app.login(ADMIN).await;
    let bank_a = client_id(&app, "Bank A").await;
    let (c, r) = (6_530_000_000.0, 48_200_000_000.0);
    let path = format!("/api/admin/clients/{bank_a}/savings");

    // No processed file: the typed figure is the client's savings, bps from the one function.
    let (st, v) = send(
        &admin,
        Method::PUT,
        &path,
        Some(json!({"cet1SavingsRwas": 5_000_000.0})),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["syncedFromFiles"], false);
    assert_eq!(v["client"]["cet1SavingsRwas"], 5_000_000.0);
    let bps = v["client"]["cet1SavingsBps"].as_f64().unwrap();
    assert!((bps - exact_bps(c, r, 5e6)).abs() < 1e-9, "{bps}");
    // The month's history row follows.
    let now = chrono::Utc::now().date_naive();
    let (month_rwas,): (f64,) = sqlx::query_as(
        "SELECT total_rwas FROM savings_history WHERE client_id = $1 AND year = $2 AND month = $3",
    )
    .bind(&bank_a)
    .bind(chrono::Datelike::year(&now) as i64)
    .bind(chrono::Datelike::month(&now) as i64)
    .fetch_one(&app.state.db.pool)
    .await
    .unwrap();
    assert_eq!(month_rwas, 5_000_000.0);

    // A processed file with savings: its sum is the client's total (the automatic sync); a typed
    // figure more than 0.01 away from it does not stand.
    processed_file(&app, &bank_a, 2_000_000.0).await;
    let (st, v) = send(
        &admin,
        Method::PUT,
        &path,
        Some(json!({"cet1SavingsRwas": 3_000_000.0})),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["syncedFromFiles"], true);
    assert_eq!(v["client"]["cet1SavingsRwas"], 2_000_000.0);
    assert_eq!(v["client"]["fileSumRwas"], 2_000_000.0);
    let (_, v) = send(
        &admin,
        Method::PUT,
        &path,
        Some(json!({"cet1SavingsRwas": 2_000_000.005})),
    )
    .await;
    assert_eq!(
        v["syncedFromFiles"], false,
        "within the 0.01 tolerance of the files' sum"
    );

    // Bad input changes nothing.
    for bad in [
        json!({"cet1SavingsRwas": -1}),
        json!({"cet1SavingsRwas": r}),
    ] {
        let (st, v) = send(&admin, Method::PUT, &path, Some(bad)).await;
        assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    }
    let (st, _) = send(
        &admin,
        Method::PUT,
        "/api/admin/clients/no-such-client/savings",
        Some(json!({"cet1SavingsRwas": 1})),
    )
    .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    let (_, list) = admin.json("/api/admin/clients").await;
    let a = list
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == bank_a.as_str())
        .unwrap()
        .clone();
    assert_eq!(a["cet1SavingsRwas"], 2_000_000.0);
    // Every edit is in the audit trail, shown by the data room.
    let (st, room) = admin.json(&format!("/api/admin/clients/{bank_a}")).await;
    assert_eq!(st, StatusCode::OK);
    let edits = room["activity"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["eventType"] == "client_savings_edited")
        .count();
    assert_eq!(edits, 3);
}

#[tokio::test]
async fn a_second_savings_edit_while_one_runs_is_ignored() {
    let app = TestApp::spawn().await;
    let admin = app.login(ADMIN).await;
    let bank_a = client_id(&app, "Bank A").await;
    let path = format!("/api/admin/clients/{bank_a}/savings");
    let (_, before) = admin.json(&format!("/api/admin/clients/{bank_a}")).await;

    // An edit holds the client (as the first of two concurrent requests does while it runs).
    let now = chrono::Utc::now();
    let until = server::db::ts(now + chrono::Duration::seconds(30));
    assert!(
        server::db::admin_clients::claim_savings_update(
            &app.state.db.pool,
            &bank_a,
            &server::db::ts(now),
            &until
        )
        .await
        .unwrap()
    );
    let (st, v) = send(
        &admin,
        Method::PUT,
        &path,
        Some(json!({"cet1SavingsRwas": 7_000_000.0})),
    )
    .await;
    assert_eq!(st, StatusCode::CONFLICT, "{v}");
    assert_eq!(v["code"], "update_in_progress");
    let (_, after) = admin.json(&format!("/api/admin/clients/{bank_a}")).await;
    assert_eq!(
        after["client"], before["client"],
        "the ignored edit changed nothing"
    );
    assert_eq!(after["activity"], before["activity"]);

    // Once the first lets go, the next edit runs.
    server::db::admin_clients::release_savings_update(&app.state.db.pool, &bank_a, &until)
        .await
        .unwrap();
    let (st, v) = send(
        &admin,
        Method::PUT,
        &path,
        Some(json!({"cet1SavingsRwas": 7_000_000.0})),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");

    // A hold whose holder died expires.
    let past = server::db::ts(chrono::Utc::now() - chrono::Duration::seconds(1));
    sqlx::query("UPDATE clients SET savings_update_until = $1 WHERE id = $2")
        .bind(&past)
        .bind(&bank_a)
        .execute(&app.state.db.pool)
        .await
        .unwrap();
    let (st, _) = send(
        &admin,
        Method::PUT,
        &path,
        Some(json!({"cet1SavingsRwas": 8_000_000.0})),
    )
    .await;
    assert_eq!(st, StatusCode::OK);

    // Ten edits at once: each is applied or ignored, never both at a time, and the hold is free
    // afterwards.
    let mut tasks = Vec::new();
    for i in 0..10 {
        let s = admin.clone();
        let p = path.clone();
        tasks.push(tokio::spawn(async move {
            send(
                &s,
                Method::PUT,
                &p,
                Some(json!({"cet1SavingsRwas": 1_000_000.0 + f64::from(i)})),
            )
            .await
            .0
        }));
    }
    let mut ok = 0;
    for t in tasks {
        match t.await.unwrap() {
            StatusCode::OK => ok += 1,
            StatusCode::CONFLICT => {}
            other => panic!("unexpected {other}"),
        }
    }
    assert!(ok >= 1);
    let (hold,): (Option<String>,) =
        sqlx::query_as("SELECT savings_update_until FROM clients WHERE id = $1")
            .bind(&bank_a)
            .fetch_one(&app.state.db.pool)
            .await
            .unwrap();
    assert_eq!(hold, None);
}

#[tokio::test]
async fn official_figures_members_and_the_data_room() {
    let app = TestApp::spawn().await;
    let admin = app.login(ADMIN).await;
    let bank_a = client_id(&app, "Bank A").await;
    let mut ws = Ws::connect(&admin).await;
    ws.subscribe(&["admin:clients"]).await;

    let (st, room) = admin.json(&format!("/api/admin/clients/{bank_a}")).await;
    assert_eq!(st, StatusCode::OK, "{room}");
    assert_eq!(room["client"]["name"], "Bank A");
    assert_eq!(
        room["history"].as_array().unwrap().len(),
        12,
        "the seeded year"
    );
    let members = room["members"].as_array().unwrap();
    let role_of = |email: &str| {
        members
            .iter()
            .find(|m| m["email"] == email)
            .map(|m| m["clientRole"].as_str().unwrap().to_string())
    };
    assert_eq!(role_of(USER_A).as_deref(), Some("member"));
    assert_eq!(
        role_of("approver2@example.com").as_deref(),
        Some("approver")
    );
    assert_eq!(role_of(USER_B), None);
    assert_eq!(room["fileCount"], 0);
    assert_eq!(room["reportCount"], 0);

    // Official figures: bps follow; a reported ratio 10 bps off C/R is pointed out.
    let rwas = room["client"]["cet1SavingsRwas"].as_f64().unwrap();
    let (st, v) = send(
        &admin,
        Method::PUT,
        &format!("/api/admin/clients/{bank_a}"),
        Some(json!({
            "name": "Bank A", "description": "Spanish retail and commercial bank (demo data)", "fromDate": "2024-01-01",
            "officialCet1Capital": 13e9, "officialTotalRwas": 100e9, "officialCet1Ratio": 0.131
        })),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert!((v["cet1SavingsBps"].as_f64().unwrap() - exact_bps(13e9, 100e9, rwas)).abs() < 1e-9);
    assert!(
        v["ratioWarning"]
            .as_str()
            .unwrap()
            .contains("differs from CET1 capital / total RWAs")
    );
    let frame = ws
        .next_json(std::time::Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(frame["type"], "client.changed");
    assert_eq!(frame["data"]["clientId"], bank_a.as_str());
    // The calculator reads the edited figures.
    let (_, calc) = admin
        .json(&format!("/api/calculator?client_id={bank_a}"))
        .await;
    assert_eq!(calc["cet1Capital"], 13e9, "{calc}");

    // Bank B's user joins Bank A as its approver, then leaves it.
    let (user_b,): (String,) = sqlx::query_as("SELECT id FROM users WHERE email = $1")
        .bind(USER_B)
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
    let b = app.login(USER_B).await;
    assert_eq!(
        b.get(&format!("/api/board?client_id={bank_a}"))
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    let member_path = format!("/api/admin/clients/{bank_a}/members/{user_b}");
    let (st, v) = send(
        &admin,
        Method::PUT,
        &member_path,
        Some(json!({"role": "owner"})),
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    let (st, _) = send(
        &admin,
        Method::PUT,
        &member_path,
        Some(json!({"role": "approver"})),
    )
    .await;
    assert_eq!(st, StatusCode::NO_CONTENT);
    assert_eq!(
        b.get(&format!("/api/board?client_id={bank_a}"))
            .await
            .status(),
        StatusCode::OK
    );
    let (_, room) = admin.json(&format!("/api/admin/clients/{bank_a}")).await;
    assert!(
        room["members"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["email"] == USER_B && m["clientRole"] == "approver")
    );
    let (st, _) = send(&admin, Method::DELETE, &member_path, None).await;
    assert_eq!(st, StatusCode::NO_CONTENT);
    assert_eq!(
        b.get(&format!("/api/board?client_id={bank_a}"))
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    let (st, _) = send(&admin, Method::DELETE, &member_path, None).await;
    assert_eq!(st, StatusCode::NOT_FOUND);

    // The admin sync puts every administrator back everywhere.
    sqlx::query("DELETE FROM client_users WHERE client_id = $1 AND user_id = (SELECT id FROM users WHERE email = $2)")
        .bind(&bank_a)
        .bind(ADMIN)
        .execute(&app.state.db.pool)
        .await
        .unwrap();
    let (st, v) = send(&admin, Method::POST, "/api/admin/clients/sync-admins", None).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(v["added"], 1);
    let (_, v) = send(&admin, Method::POST, "/api/admin/clients/sync-admins", None).await;
    assert_eq!(v["added"], 0);

    let (st, _) = admin.json("/api/admin/clients/no-such-client").await;
    assert_eq!(st, StatusCode::NOT_FOUND);
}
