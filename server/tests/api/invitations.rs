use reqwest::StatusCode;
use serde_json::json;

use crate::helpers::*;

async fn bank_a_id(app: &TestApp) -> String {
    let (id,): (String,) = sqlx::query_as("SELECT id FROM clients WHERE name = 'Bank A'")
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
    id
}

#[tokio::test]
async fn invited_user_signs_up_once_then_sees_the_terms() {
    let app = TestApp::spawn().await;
    let admin = app.login(ADMIN).await;
    let client_id = bank_a_id(&app).await;
    let r = admin
        .post("/api/admin/invitations", json!({"name": "Nora", "last_name": "Nueva", "email": "Nora@Bank-A.example", "role": "approver", "client_id": client_id}))
        .await;
    assert_eq!(r.status(), StatusCode::CREATED);
    assert_eq!(
        server::db::misc::audit_count(&app.state.db.pool, "invitation_created")
            .await
            .unwrap(),
        1
    );
    let mail = app
        .last_mail_to("nora@bank-a.example")
        .await
        .expect("invitation mail");
    let token = token_after(&mail, "/signup/");

    let anon = app.client().await;
    let (st, info) = anon.json(&format!("/api/invitations/{token}")).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(
        (
            info["email"].as_str(),
            info["role"].as_str(),
            info["company"].as_str()
        ),
        (
            Some("nora@bank-a.example"),
            Some("approver"),
            Some("Bank A")
        )
    );

    let (st, b) = body(
        anon.post(
            &format!("/api/invitations/{token}/accept"),
            json!({"name": " ", "last_name": "N", "password": "Strong-Pass-1"}),
        )
        .await,
    )
    .await;
    assert_eq!(
        (st, b["message"].as_str()),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("Please enter your first and last name")
        )
    );
    let (st, b) = body(
        anon.post(
            &format!("/api/invitations/{token}/accept"),
            json!({"name": "Nora", "last_name": "N", "password": "abc"}),
        )
        .await,
    )
    .await;
    assert_eq!(
        (st, b["message"].as_str()),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            Some("Password must be at least 8 characters")
        )
    );

    let r = anon
        .post(
            &format!("/api/invitations/{token}/accept"),
            json!({"name": "Nora", "last_name": "Nueva", "password": "Strong-Pass-1"}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::CREATED);
    // Used: the link is dead.
    let (st, b) = anon.json(&format!("/api/invitations/{token}")).await;
    assert_eq!(
        (st, b["message"].as_str()),
        (
            StatusCode::NOT_FOUND,
            Some("Invalid or expired invitation link")
        )
    );
    let r = anon
        .post(
            &format!("/api/invitations/{token}/accept"),
            json!({"name": "X", "last_name": "Y", "password": "Strong-Pass-1"}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);

    let r = anon
        .post(
            "/api/auth/login",
            json!({"email": "nora@bank-a.example", "password": "Strong-Pass-1"}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    let me = body(r).await.1["user"].clone();
    assert_eq!(me["role"], "approver");
    assert_eq!(me["client"]["name"], "Bank A");
    assert_eq!(me["requires_terms"], true);
    assert_eq!(me["requires_password_change"], false);
    let (st, me) = body(anon.post_empty("/api/auth/accept-terms").await).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(me["requires_terms"], false);
}

#[tokio::test]
async fn expired_or_unknown_invitations_are_refused() {
    let app = TestApp::spawn().await;
    let admin = app.login(ADMIN).await;
    let client_id = bank_a_id(&app).await;
    admin.post("/api/admin/invitations", json!({"name": "E", "last_name": "X", "email": "late@bank-a.example", "role": "user", "client_id": client_id})).await;
    let token = token_after(
        &app.last_mail_to("late@bank-a.example").await.unwrap(),
        "/signup/",
    );
    sqlx::query("UPDATE invitations SET expires_at = '2000-01-01T00:00:00.000000Z'")
        .execute(&app.state.db.pool)
        .await
        .unwrap();
    let anon = app.client().await;
    assert_eq!(
        anon.json(&format!("/api/invitations/{token}")).await.0,
        StatusCode::NOT_FOUND
    );
    let r = anon
        .post(
            &format!("/api/invitations/{token}/accept"),
            json!({"name": "E", "last_name": "X", "password": "Strong-Pass-1"}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert_eq!(
        anon.json("/api/invitations/not-a-token").await.0,
        StatusCode::NOT_FOUND
    );
    let n: (i64,) =
        sqlx::query_as("SELECT COUNT(*) FROM users WHERE email = 'late@bank-a.example'")
            .fetch_one(&app.state.db.pool)
            .await
            .unwrap();
    assert_eq!(n.0, 0);
}

#[tokio::test]
async fn invitation_input_is_validated() {
    let app = TestApp::spawn().await;
    let admin = app.login(ADMIN).await;
    let client_id = bank_a_id(&app).await;
    for (req, msg) in [
        (
            json!({"name": "", "last_name": "X", "email": "a@b.io", "role": "user", "client_id": client_id}),
            "Name is required",
        ),
        (
            json!({"name": "A", "last_name": "", "email": "a@b.io", "role": "user", "client_id": client_id}),
            "Last name is required",
        ),
        (
            json!({"name": "A", "last_name": "X", "email": "nope", "role": "user", "client_id": client_id}),
            "Invalid email address",
        ),
        (
            json!({"name": "A", "last_name": "X", "email": "a@b.io", "role": "superuser", "client_id": client_id}),
            "Role must be one of admin, approver, user, viewer",
        ),
        (
            json!({"name": "A", "last_name": "X", "email": "a@b.io", "role": "user"}),
            "Client is required",
        ),
    ] {
        let (st, b) = body(admin.post("/api/admin/invitations", req).await).await;
        assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(b["message"], msg);
    }
    let (st, b) = body(admin.post("/api/admin/invitations", json!({"name": "A", "last_name": "X", "email": USER_B, "role": "user", "client_id": client_id})).await).await;
    assert_eq!(
        (st, b["code"].as_str()),
        (StatusCode::CONFLICT, Some("email_taken"))
    );
    let n: (i64,) = sqlx::query_as("SELECT COUNT(*) FROM invitations")
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
    assert_eq!(n.0, 0);
}
