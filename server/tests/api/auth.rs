use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::*;

#[tokio::test]
async fn each_demo_role_signs_in_and_sees_its_role_and_client() {
    let app = TestApp::spawn().await;
    for (email, role, client) in [
        (ADMIN, "admin", Some("Bank A")),
        (APPROVER, "approver", Some("Bank A")),
        (USER_A, "user", Some("Bank A")),
        (USER_B, "user", Some("Bank B")),
        (VIEWER, "viewer", Some("Bank A")),
    ] {
        let s = app.login(email).await;
        let (status, me) = s.json("/api/auth/me").await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(me["role"], role, "{email}");
        assert_eq!(me["client"]["name"].as_str(), client, "{email}");
        assert_eq!(me["requires_terms"], false);
        assert_eq!(me["requires_password_change"], false);
    }
}

#[tokio::test]
async fn wrong_password_and_unknown_account_get_the_same_answer_and_are_audited() {
    let app = TestApp::spawn().await;
    let s = app.client().await;
    let (st1, b1) = body(
        s.post(
            "/api/auth/login",
            json!({"email": ADMIN, "password": "nope"}),
        )
        .await,
    )
    .await;
    let (st2, b2) = body(
        s.post(
            "/api/auth/login",
            json!({"email": "nobody@example.com", "password": "nope"}),
        )
        .await,
    )
    .await;
    assert_eq!(
        (st1, st2),
        (StatusCode::UNAUTHORIZED, StatusCode::UNAUTHORIZED)
    );
    assert_eq!(b1, b2);
    assert_eq!(b1["message"], "Invalid credentials");
    assert_eq!(
        server::db::misc::audit_count(&app.state.db.pool, "login_failed")
            .await
            .unwrap(),
        2
    );
    let (st, b) = body(
        s.post(
            "/api/auth/login",
            json!({"email": "not-an-email", "password": "x"}),
        )
        .await,
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(b["message"], "Invalid email address");
}

#[tokio::test]
async fn login_attempts_are_rate_limited_per_account() {
    let app = TestApp::spawn().await;
    let s = app.client().await;
    for _ in 0..5 {
        let r = s
            .post(
                "/api/auth/login",
                json!({"email": USER_B, "password": "wrong"}),
            )
            .await;
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    }
    // A flood of further guesses from this address is refused (each attempt waits its turn
    // after five failures, and only so many may wait).
    let guesses = (0..8).map(|_| {
        s.post(
            "/api/auth/login",
            json!({"email": USER_B, "password": "wrong"}),
        )
    });
    let mut limited = None;
    for r in futures_util::future::join_all(guesses).await {
        if r.status() == StatusCode::TOO_MANY_REQUESTS {
            limited = Some(body(r).await.1);
        }
    }
    assert_eq!(limited.expect("a guess refused")["code"], "rate_limited");
    // The owner's correct password still passes the back-off (see security.rs), and another
    // account from the same address is not locked out.
    let r = s
        .post(
            "/api/auth/login",
            json!({"email": USER_A, "password": DEMO_PASSWORD}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
}

#[tokio::test]
async fn requests_without_a_session_are_refused() {
    let app = TestApp::spawn().await;
    let s = app.client().await;
    for path in [
        "/api/auth/me",
        "/api/admin/dashboard/metrics",
        "/api/admin/outbox",
    ] {
        let (st, b) = s.json(path).await;
        assert_eq!(st, StatusCode::UNAUTHORIZED, "{path}");
        assert_eq!(b["code"], "unauthenticated");
    }
    let r = s
        .post(
            "/api/admin/invitations",
            json!({"name": "a", "last_name": "b", "email": "x@y.io", "role": "user"}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn non_admins_never_reach_admin_endpoints() {
    let app = TestApp::spawn().await;
    for email in [APPROVER, USER_A, VIEWER] {
        let s = app.login(email).await;
        for path in ["/api/admin/dashboard/metrics", "/api/admin/outbox"] {
            let (st, _) = s.json(path).await;
            assert_eq!(st, StatusCode::FORBIDDEN, "{email} {path}");
        }
        let r = s
            .post(
                "/api/admin/invitations",
                json!({"name": "a", "last_name": "b", "email": "x@y.io", "role": "admin"}),
            )
            .await;
        assert_eq!(r.status(), StatusCode::FORBIDDEN, "{email}");
    }
    let n: (i64,) = sqlx::query_as("SELECT COUNT(*) FROM invitations")
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
    assert_eq!(n.0, 0);
}

#[tokio::test]
async fn state_changes_need_the_csrf_token_and_a_same_site_origin() {
    let app = TestApp::spawn().await;
    let s = app.client().await;
    let r = s
        .http
        .post(app.url("/api/auth/login"))
        .json(&json!({"email": ADMIN, "password": DEMO_PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    assert_eq!(body(r).await.1["code"], "csrf_failed");
    let csrf = s.cookie("capopt_csrf").unwrap();
    let r = s
        .http
        .post(app.url("/api/auth/login"))
        .header("x-csrf-token", "forged")
        .json(&json!({"email": ADMIN, "password": DEMO_PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let r = s
        .http
        .post(app.url("/api/auth/login"))
        .header("x-csrf-token", &csrf)
        .header("origin", "https://evil.example")
        .json(&json!({"email": ADMIN, "password": DEMO_PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let r = s
        .http
        .post(app.url("/api/auth/login"))
        .header("x-csrf-token", &csrf)
        .header("origin", app.base.clone())
        .json(&json!({"email": ADMIN, "password": DEMO_PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::OK);
}

#[tokio::test]
async fn cookies_are_http_only_and_refresh_rotates() {
    let app = TestApp::spawn().await;
    let s = app.client().await;
    let r = s
        .post(
            "/api/auth/login",
            json!({"email": USER_A, "password": DEMO_PASSWORD}),
        )
        .await;
    let set: Vec<String> = r
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .collect();
    for name in ["capopt_access", "capopt_refresh"] {
        let c = set.iter().find(|c| c.starts_with(name)).expect(name);
        assert!(c.contains("HttpOnly"), "{c}");
        assert!(c.contains("SameSite"), "{c}");
    }
    let first = s.cookie("capopt_refresh").unwrap();
    let r = s.post_empty("/api/auth/refresh").await;
    assert_eq!(r.status(), StatusCode::OK);
    let second = s.cookie("capopt_refresh").unwrap();
    assert_ne!(first, second);
    // The first token, presented again long after its rotation, ends the session (theft).
    sqlx::query("UPDATE refresh_tokens SET revoked_at = '2000-01-01T00:00:00.000000Z' WHERE revoked_at IS NOT NULL")
        .execute(&app.state.db.pool)
        .await
        .unwrap();
    let thief = app.client().await;
    let r = thief
        .http
        .post(app.url("/api/auth/refresh"))
        .header("cookie", format!("capopt_refresh={first}; capopt_csrf=t"))
        .header("x-csrf-token", "t")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    let (st, _) = s.json("/api/auth/me").await;
    assert_eq!(st, StatusCode::UNAUTHORIZED, "the whole session is revoked");
}

#[tokio::test]
async fn logout_revokes_the_session_everywhere() {
    let app = TestApp::spawn().await;
    let s = app.login(USER_A).await;
    let access = s.cookie("capopt_access").unwrap();
    let r = s.post_empty("/api/auth/logout").await;
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    // A copy of the old access token no longer works.
    let r = s
        .http
        .get(app.url("/api/auth/me"))
        .header("cookie", format!("capopt_access={access}"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    let r = s.post_empty("/api/auth/refresh").await;
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn forgot_and_reset_password_with_a_single_use_link() {
    let app = TestApp::spawn().await;
    let s = app.client().await;
    let r = s
        .post("/api/auth/forgot-password", json!({"email": USER_A}))
        .await;
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    let known = body(r).await.1;
    let r = s
        .post(
            "/api/auth/forgot-password",
            json!({"email": "ghost@example.com"}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    assert_eq!(
        body(r).await.1,
        known,
        "the answer never reveals whether the address exists"
    );
    let mail = app.mail_to(USER_A).await;
    assert!(app.last_mail_to("ghost@example.com").await.is_none());
    let token = token_after(&mail, "/reset-password?token=");

    let (st, b) = body(
        s.post(
            "/api/auth/reset-password",
            json!({"token": token, "password": "short"}),
        )
        .await,
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(b["message"], "Password must be at least 8 characters");
    let (st, b) = body(
        s.post(
            "/api/auth/reset-password",
            json!({"token": token, "password": "alllowercase1"}),
        )
        .await,
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        b["message"],
        "Password must contain at least one uppercase letter"
    );

    let r = s
        .post(
            "/api/auth/reset-password",
            json!({"token": token, "password": "New-Password-2"}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    let (st, b) = body(
        s.post(
            "/api/auth/reset-password",
            json!({"token": token, "password": "Other-Password-3"}),
        )
        .await,
    )
    .await;
    assert_eq!(st, StatusCode::BAD_REQUEST, "single use");
    assert_eq!(b["code"], "invalid_token");

    let r = s
        .post(
            "/api/auth/login",
            json!({"email": USER_A, "password": DEMO_PASSWORD}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    let r = s
        .post(
            "/api/auth/login",
            json!({"email": USER_A, "password": "New-Password-2"}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
}

#[tokio::test]
async fn expired_reset_links_are_refused() {
    let app = TestApp::spawn().await;
    let s = app.client().await;
    s.post("/api/auth/forgot-password", json!({"email": USER_B}))
        .await;
    let token = token_after(&app.mail_to(USER_B).await, "/reset-password?token=");
    sqlx::query("UPDATE password_resets SET expires_at = '2000-01-01T00:00:00.000000Z'")
        .execute(&app.state.db.pool)
        .await
        .unwrap();
    let (st, _) = body(
        s.post(
            "/api/auth/reset-password",
            json!({"token": token, "password": "New-Password-2"}),
        )
        .await,
    )
    .await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn old_passwords_require_a_change_and_the_current_one_is_checked() {
    let app = TestApp::spawn().await;
    sqlx::query(
        "UPDATE users SET password_changed_at = '2020-01-01T00:00:00.000000Z' WHERE email = $1",
    )
    .bind(USER_A)
    .execute(&app.state.db.pool)
    .await
    .unwrap();
    let s = app.login(USER_A).await;
    assert_eq!(
        s.json("/api/auth/me").await.1["requires_password_change"],
        true
    );
    let (st, b) = body(
        s.post(
            "/api/auth/change-password",
            json!({"current_password": "wrong", "new_password": "Fresh-Pass-9"}),
        )
        .await,
    )
    .await;
    assert_eq!(
        (st, b["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("wrong_password"))
    );
    let (st, b) = body(
        s.post(
            "/api/auth/change-password",
            json!({"current_password": DEMO_PASSWORD, "new_password": "abc"}),
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
    let r = s
        .post(
            "/api/auth/change-password",
            json!({"current_password": DEMO_PASSWORD, "new_password": "Fresh-Pass-9"}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
    assert_eq!(
        s.json("/api/auth/me").await.1["requires_password_change"],
        false
    );
}

#[tokio::test]
async fn admin_dashboard_metrics_are_computed_from_the_data() {
    let app = TestApp::spawn().await;
    let s = app.login(ADMIN).await;
    let (st, m) = s.json("/api/admin/dashboard/metrics").await;
    assert_eq!(st, StatusCode::OK);
    let clients = server::db::clients::list(&app.state.db.pool).await.unwrap();
    let total: f64 = clients.iter().map(|c| c.cet1_savings_rwas).sum();
    assert_eq!(m["clients"]["value"], 2.0);
    assert!((m["capital"]["value"].as_f64().unwrap() - total).abs() < 1e-6);
    assert!(total > 0.0);
    assert_eq!(
        m["levers"]["value"], 6.0,
        "Bank A uses 4 levers, Bank B 3, PSE in both"
    );
    assert!(m["capital"]["previous"].as_f64().unwrap() < total);
    // A new client changes the count at once.
    server::db::clients::insert(
        &app.state.db.pool,
        &server::db::clients::NewClient {
            name: "Bank C",
            description: "",
            from_date: None,
            created_by: None,
            official_cet1_capital: None,
            official_total_rwas: None,
            official_cet1_ratio: None,
        },
    )
    .await
    .unwrap();
    assert_eq!(
        s.json("/api/admin/dashboard/metrics").await.1["clients"]["value"],
        3.0
    );
}

#[tokio::test]
async fn openapi_document_lists_the_endpoints() {
    let app = TestApp::spawn().await;
    let s = app.client().await;
    let (st, doc) = s.json("/api/openapi.json").await;
    assert_eq!(st, StatusCode::OK);
    for p in [
        "/api/auth/login",
        "/api/waitlist",
        "/api/admin/invitations",
        "/api/admin/dashboard/metrics",
    ] {
        assert!(doc["paths"][p].is_object(), "{p}");
    }
    let (st, b) = s.json("/api/does-not-exist").await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    assert_eq!(b["code"], "not_found");
}

#[tokio::test]
async fn role_changes_take_effect_at_once_and_are_audited() {
    let app = TestApp::spawn().await;
    let admin = app.login(ADMIN).await;
    let viewer = app.login(VIEWER).await;
    let (viewer_id,): (String,) = sqlx::query_as("SELECT id FROM users WHERE email = $1")
        .bind(VIEWER)
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
    // Non-admins cannot change roles, not even their own.
    let r = viewer
        .http
        .put(app.url(&format!("/api/admin/users/{viewer_id}/role")))
        .header("x-csrf-token", viewer.cookie("capopt_csrf").unwrap())
        .json(&json!({"role": "admin"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    let put = |role: &str| {
        admin
            .http
            .put(app.url(&format!("/api/admin/users/{viewer_id}/role")))
            .header("x-csrf-token", admin.cookie("capopt_csrf").unwrap())
            .json(&json!({"role": role}))
            .send()
    };
    assert_eq!(
        put("owner").await.unwrap().status(),
        StatusCode::UNPROCESSABLE_ENTITY
    );
    let (st, me) = body(put("user").await.unwrap()).await;
    assert_eq!((st, me["role"].as_str()), (StatusCode::OK, Some("user")));
    assert_eq!(
        viewer.json("/api/auth/me").await.1["role"],
        "user",
        "the open session sees the new role at once"
    );
    assert_eq!(
        server::db::misc::audit_count(&app.state.db.pool, "role_changed")
            .await
            .unwrap(),
        1
    );
    // An unknown stored role counts as user.
    sqlx::query("UPDATE users SET role = 'superhero' WHERE id = $1")
        .bind(&viewer_id)
        .execute(&app.state.db.pool)
        .await
        .unwrap();
    assert_eq!(viewer.json("/api/auth/me").await.1["role"], "user");
    assert_eq!(
        viewer.json("/api/admin/outbox").await.0,
        StatusCode::FORBIDDEN
    );
}

#[tokio::test]
async fn the_session_probe_answers_without_an_error_and_restores_from_the_refresh_cookie() {
    let app = TestApp::spawn().await;
    // Anonymous: no user, no error.
    let (st, v) = app.client().await.json("/api/auth/session").await;
    assert_eq!((st, v["user"].clone()), (StatusCode::OK, Value::Null));
    // Signed in: the user.
    let a = app.login(USER_A).await;
    let (st, v) = a.json("/api/auth/session").await;
    assert_eq!(
        (st, v["user"]["email"].as_str()),
        (StatusCode::OK, Some(USER_A))
    );
    // Only the refresh cookie left (the access token expired): the session is restored and the
    // refresh token rotated.
    let refresh = a.cookie("capopt_refresh").unwrap();
    let b = app.client().await;
    let url: reqwest::Url = format!("{}/api/auth/", app.base).parse().unwrap();
    b.jar
        .add_cookie_str(&format!("capopt_refresh={refresh}; Path=/api/auth"), &url);
    let (st, v) = b.json("/api/auth/session").await;
    assert_eq!(
        (st, v["user"]["email"].as_str()),
        (StatusCode::OK, Some(USER_A))
    );
    assert_ne!(b.cookie("capopt_refresh").unwrap(), refresh, "rotated");
    // A signed-out session: no user again.
    a.post_empty("/api/auth/logout").await;
    let (st, v) = a.json("/api/auth/session").await;
    assert_eq!((st, v["user"].clone()), (StatusCode::OK, Value::Null));
}
