//! User Management: the list searched, filtered and paged by the database, the CSV export of the
//! same query, profile edits with their rules, client roles, invitations and temporary passwords,
//! Email All, bulk client membership, and deletion ending the user's sessions and sockets at once
//! while their audit trail stays.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::*;
use crate::realtime::{Ws, client_id};

async fn user_id(app: &TestApp, email: &str) -> String {
    let (id,): (String,) = sqlx::query_as("SELECT id FROM users WHERE email = $1")
        .bind(email)
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
    id
}

fn emails(page: &Value) -> Vec<String> {
    page["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|u| u["email"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn the_list_is_searched_filtered_and_paged_by_the_server() {
    let app = TestApp::spawn().await;
    let admin = app.login(ADMIN).await;
    let (st, all) = admin.json("/api/admin/users").await;
    assert_eq!(st, StatusCode::OK, "{all}");
    assert_eq!(all["total"], 6);
    assert_eq!(all["pageSize"], 10);
    // By name: Alicia, Ana, Bruno, Pablo, Paula, Victor.
    assert_eq!(
        emails(&all),
        [
            ADMIN,
            USER_A,
            USER_B,
            APPROVER,
            "approver2@example.com",
            VIEWER
        ]
    );
    let row = |email: &str| {
        all["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|u| u["email"] == email)
            .unwrap()
            .clone()
    };
    assert_eq!(row(ADMIN)["role"], "admin");
    assert_eq!(row(APPROVER)["isApprover"], true);
    assert_eq!(
        row("approver2@example.com")["isApprover"],
        true,
        "Bank A's own approver"
    );
    assert_eq!(row(USER_A)["isApprover"], false);
    assert_eq!(row(USER_A)["clients"][0]["clientName"], "Bank A");
    assert_eq!(row(USER_A)["clients"][0]["role"], "member");

    // Search over name, last name, email and company.
    for (q, expected) in [
        ("garc", vec![USER_A]),
        ("ALICIA", vec![ADMIN]),
        ("bank-b", vec![USER_B]),
        ("ana%20garc", vec![USER_A]),
    ] {
        let (_, page) = admin.json(&format!("/api/admin/users?q={q}")).await;
        assert_eq!(emails(&page), expected, "{q}");
    }
    let (_, page) = admin.json("/api/admin/users?q=bank%20a").await;
    assert_eq!(page["total"], 4, "company Bank A: {page}");
    // Role filter (an unknown stored role counts as user).
    sqlx::query("UPDATE users SET role = 'owner' WHERE email = $1")
        .bind(USER_B)
        .execute(&app.state.db.pool)
        .await
        .unwrap();
    for (role, n) in [
        ("admin", 1),
        ("approvers", 1),
        ("user", 3),
        ("viewer", 1),
        ("all", 6),
    ] {
        let (st, page) = admin.json(&format!("/api/admin/users?role={role}")).await;
        assert_eq!(st, StatusCode::OK);
        assert_eq!(page["total"], n, "{role}: {page}");
    }
    let (_, page) = admin.json("/api/admin/users?role=user&q=bank%20a").await;
    assert_eq!(page["total"], 2, "approver2 and Ana: {page}");
    // Pages.
    let (_, p2) = admin.json("/api/admin/users?page=2&page_size=5").await;
    assert_eq!(p2["total"], 6);
    assert_eq!(emails(&p2), [VIEWER]);
    let (_, p3) = admin.json("/api/admin/users?page=3&page_size=5").await;
    assert_eq!(emails(&p3), Vec::<String>::new());
    for bad in ["page_size=7", "role=owner"] {
        let (st, v) = admin.json(&format!("/api/admin/users?{bad}")).await;
        assert_eq!(st, StatusCode::BAD_REQUEST, "{bad}: {v}");
    }

    // The export is the same query, unpaged, as CSV.
    let r = admin
        .get("/api/admin/users/export?q=bank%20a&role=user")
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/csv")
    );
    let csv = r.text().await.unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "Name,Last Name,Email,Company,Role,Approver,Clients,Created At"
    );
    assert_eq!(lines.len(), 3, "{csv}");
    assert!(lines[1].starts_with("Ana,García,user@bank-a.example,Bank A,user,no,Bank A,"));
    assert!(lines[2].contains("approver2@example.com,Bank A,user,yes,Bank A (approver)"));

    // Not for anyone else.
    let user = app.login(USER_A).await;
    assert_eq!(
        user.get("/api/admin/users").await.status(),
        StatusCode::FORBIDDEN
    );
    assert_eq!(
        user.get("/api/admin/users/export").await.status(),
        StatusCode::FORBIDDEN
    );
}

#[tokio::test]
async fn edits_follow_the_dialogs_rules_and_reach_the_user_at_once() {
    let app = TestApp::spawn().await;
    let admin = app.login(ADMIN).await;
    let a_id = user_id(&app, USER_A).await;
    let admin_id = user_id(&app, ADMIN).await;
    let bank_b = client_id(&app, "Bank B").await;
    let path = format!("/api/admin/users/{a_id}");
    let edit = |patch: Value| {
        let mut body = json!({"name": "Ana", "lastName": "García", "email": USER_A, "company": "Bank A", "role": "user"});
        for (k, v) in patch.as_object().unwrap() {
            body[k] = v.clone();
        }
        body
    };
    for (patch, status, message) in [
        (json!({"name": "  "}), 422, "First name is required"),
        (json!({"email": ""}), 422, "Email is required"),
        (json!({"email": "not-an-email"}), 422, "Email is invalid"),
        (
            json!({"email": VIEWER}),
            409,
            "A user with this email already exists",
        ),
        (
            json!({"role": "owner"}),
            422,
            "Role must be one of admin, approver, user, viewer",
        ),
    ] {
        let (st, v) = send(&admin, Method::PATCH, &path, Some(edit(patch))).await;
        assert_eq!(st.as_u16(), status, "{v}");
        assert_eq!(v["message"], message);
    }
    let (st, v) = send(
        &admin,
        Method::PATCH,
        &format!("/api/admin/users/{admin_id}"),
        Some(json!({"name": "Alicia", "lastName": "Admin", "email": ADMIN, "role": "user"})),
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(v["message"], "You cannot change your own role");

    // Ana moves from Bank A to Bank B; her open app hears it.
    let ana = app.login(USER_A).await;
    let mut ws = Ws::connect(&ana).await;
    let (st, v) = send(
        &admin,
        Method::PATCH,
        &path,
        Some(edit(
            json!({"lastName": "García Pérez", "company": "Bank B", "clientIds": [bank_b]}),
        )),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["lastName"], "García Pérez");
    assert_eq!(v["clients"].as_array().unwrap().len(), 1);
    assert_eq!(v["clients"][0]["clientName"], "Bank B");
    let frame = ws.next_json(Duration::from_secs(5)).await.unwrap();
    assert_eq!(frame["type"], "session.changed");
    let (_, me) = ana.json("/api/auth/me").await;
    assert_eq!(me["client"]["name"], "Bank B");
    // The inline role selector: applied at once, audited.
    let (st, _) = send(
        &admin,
        Method::PUT,
        &format!("{path}/role"),
        Some(json!({"role": "viewer"})),
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    let (_, u) = admin.json(&path).await;
    assert_eq!(u["role"], "viewer");
    assert_eq!(
        server::db::misc::audit_count(&app.state.db.pool, "role_changed")
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        server::db::misc::audit_count(&app.state.db.pool, "user_updated")
            .await
            .unwrap(),
        1,
        "refused edits left no record"
    );

    // Assign to Client: two users join Bank B as its approvers.
    let viewer_id = user_id(&app, VIEWER).await;
    let (st, v) = send(
        &admin,
        Method::POST,
        "/api/admin/users/assign-client",
        Some(json!({"userIds": [a_id, viewer_id], "clientId": bank_b, "role": "approver"})),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["added"], 1, "Ana was a member already");
    assert_eq!(v["updated"], 2);
    let (_, vw) = admin.json(&format!("/api/admin/users/{viewer_id}")).await;
    assert!(
        vw["clients"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["clientName"] == "Bank B" && c["role"] == "approver")
    );
    let (st, _) = send(
        &admin,
        Method::POST,
        "/api/admin/users/assign-client",
        Some(json!({"userIds": [], "clientId": bank_b})),
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn removing_a_user_ends_their_sessions_and_sockets_and_keeps_their_audit_trail() {
    let app = TestApp::spawn().await;
    let admin = app.login(ADMIN).await;
    let a_id = user_id(&app, USER_A).await;
    let ana = app.login(USER_A).await;
    let mut ws = Ws::connect(&ana).await;
    let (logins,): (i64,) =
        sqlx::query_as("SELECT COUNT(*) FROM audit_events WHERE actor_id = $1 OR entity_id = $1")
            .bind(&a_id)
            .fetch_one(&app.state.db.pool)
            .await
            .unwrap();
    assert!(logins > 0);

    let admin_id = user_id(&app, ADMIN).await;
    let (st, v) = send(
        &admin,
        Method::DELETE,
        &format!("/api/admin/users/{admin_id}"),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(v["message"], "You cannot remove your own account");
    let viewer = app.login(VIEWER).await;
    let (st, _) = send(
        &viewer,
        Method::DELETE,
        &format!("/api/admin/users/{a_id}"),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    assert_eq!(ana.get("/api/auth/me").await.status(), StatusCode::OK);

    let (st, _) = send(
        &admin,
        Method::DELETE,
        &format!("/api/admin/users/{a_id}"),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::NO_CONTENT);
    // At once: the socket closes, the next request is refused, the refresh token is dead.
    assert_eq!(ws.close_code(Duration::from_secs(5)).await, Some(4401));
    assert_eq!(
        ana.get("/api/auth/me").await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        ana.post_empty("/api/auth/refresh").await.status(),
        StatusCode::UNAUTHORIZED
    );
    let r = app
        .client()
        .await
        .post(
            "/api/auth/login",
            json!({"email": USER_A, "password": DEMO_PASSWORD}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    // Their audit trail stays, with the deletion's record saying who they were.
    let (kept,): (i64,) =
        sqlx::query_as("SELECT COUNT(*) FROM audit_events WHERE (actor_id = $1 OR entity_id = $1) AND event_type <> 'user_deleted'")
            .bind(&a_id)
            .fetch_one(&app.state.db.pool)
            .await
            .unwrap();
    assert_eq!(kept, logins);
    let (details,): (String,) = sqlx::query_as(
        "SELECT details FROM audit_events WHERE event_type = 'user_deleted' AND entity_id = $1",
    )
    .bind(&a_id)
    .fetch_one(&app.state.db.pool)
    .await
    .unwrap();
    assert!(details.contains(USER_A), "{details}");
    let (_, page) = admin.json("/api/admin/users").await;
    assert_eq!(page["total"], 5);
    let (st, _) = send(
        &admin,
        Method::DELETE,
        &format!("/api/admin/users/{a_id}"),
        None,
    )
    .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_new_user_is_invited_by_mail_and_signs_up_from_its_link() {
    let app = TestApp::spawn().await;
    let admin = app.login(ADMIN).await;
    let bank_a = client_id(&app, "Bank A").await;
    for (body, message) in [
        (
            json!({"name": "", "lastName": "L", "email": "n@bank-a.example", "role": "user", "clientId": bank_a}),
            "Name is required",
        ),
        (
            json!({"name": "N", "lastName": " ", "email": "n@bank-a.example", "role": "user", "clientId": bank_a}),
            "Last name is required",
        ),
        (
            json!({"name": "N", "lastName": "L", "email": "nope", "role": "user", "clientId": bank_a}),
            "Invalid email address",
        ),
        (
            json!({"name": "N", "lastName": "L", "email": "n@bank-a.example", "role": "user", "clientId": null}),
            "Client is required",
        ),
    ] {
        let (st, v) = send(&admin, Method::POST, "/api/admin/users", Some(body)).await;
        assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
        assert_eq!(v["message"], message);
    }
    let (st, v) = send(
        &admin,
        Method::POST,
        "/api/admin/users",
        Some(json!({"name": "Nora", "lastName": "Nuevo", "email": "nora@bank-a.example", "role": "viewer", "clientId": bank_a})),
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{v}");
    assert_eq!(v["inviteSent"], true);
    assert_eq!(v["tempPassword"], Value::Null);
    let mail = app.mail_to("nora@bank-a.example").await;
    let token = token_after(&mail, "/signup/");
    let anon = app.client().await;
    let (st, _) = send(
        &anon,
        Method::POST,
        &format!("/api/invitations/{token}/accept"),
        Some(json!({"name": "Nora", "last_name": "Nuevo", "password": "Nora-Password-1"})),
    )
    .await;
    assert!(st.is_success(), "{st}");
    let (_, page) = admin.json("/api/admin/users?q=nora").await;
    assert_eq!(page["total"], 1);
    assert_eq!(page["items"][0]["role"], "viewer");
    assert_eq!(page["items"][0]["clients"][0]["clientName"], "Bank A");
    let (st, v) = send(
        &admin,
        Method::POST,
        "/api/admin/users",
        Some(json!({"name": "Nora", "lastName": "Again", "email": "NORA@bank-a.example", "role": "user", "clientId": bank_a})),
    )
    .await;
    assert_eq!(st, StatusCode::CONFLICT, "{v}");

    // Email All: one mail to each listed user (here the viewers).
    let (st, v) = send(
        &admin,
        Method::POST,
        "/api/admin/users/email",
        Some(json!({"subject": "Maintenance", "message": "Saturday 10:00", "role": "viewer"})),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["sent"], 2);
    assert_eq!(app.mail_to(VIEWER).await, "Saturday 10:00");
    assert_eq!(app.mail_to("nora@bank-a.example").await, "Saturday 10:00");
    let (st, _) = send(
        &admin,
        Method::POST,
        "/api/admin/users/email",
        Some(json!({"subject": " ", "message": "x"})),
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
}

#[tokio::test]
async fn when_the_invitation_cannot_be_mailed_a_temporary_password_is_shown_once() {
    // An SMTP server that refuses connections: the invitation cannot be delivered.
    let app = TestApp::spawn_with(|c| c.smtp_url = Some("smtp://127.0.0.1:1".into())).await;
    let admin = app.login(ADMIN).await;
    let bank_b = client_id(&app, "Bank B").await;
    let (st, v) = send(
        &admin,
        Method::POST,
        "/api/admin/users",
        Some(json!({"name": "Teo", "lastName": "Temporal", "email": "teo@bank-b.example", "role": "user", "clientId": bank_b})),
    )
    .await;
    assert_eq!(st, StatusCode::CREATED, "{v}");
    assert_eq!(v["inviteSent"], false);
    assert_eq!(v["tempPasswordSeconds"], 10);
    let temp = v["tempPassword"].as_str().unwrap().to_string();
    // The invitation's link cannot create a second account.
    let mail = app.mail_to("teo@bank-b.example").await;
    let token = token_after(&mail, "/signup/");
    let anon = app.client().await;
    assert_eq!(
        anon.get(&format!("/api/invitations/{token}"))
            .await
            .status(),
        StatusCode::NOT_FOUND
    );
    // The temporary password signs in once given; its owner must choose a new one.
    let teo = app.client().await;
    let r = teo
        .post(
            "/api/auth/login",
            json!({"email": "teo@bank-b.example", "password": temp}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    let (_, me) = teo.json("/api/auth/me").await;
    assert_eq!(me["requires_password_change"], true, "{me}");
    assert_eq!(me["client"]["name"], "Bank B");
    // Never stored in clear.
    let (hash,): (String,) = sqlx::query_as("SELECT password_hash FROM users WHERE email = $1")
        .bind("teo@bank-b.example")
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
    assert!(!hash.contains(&temp));
    assert_eq!(
        server::db::misc::audit_count(&app.state.db.pool, "user_created_with_temporary_password")
            .await
            .unwrap(),
        1
    );
}
