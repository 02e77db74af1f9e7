//! Settings and profile: the user's own names, avatar (bounded, typed by content, in object
//! storage) and password; a client's project settings (members who may write it; viewers read
//! only; other clients' users see nothing; live on `client:{id}:settings`); the configuration
//! administrators see.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

use crate::helpers::*;
use crate::realtime::{Ws, client_id};

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89\0\0\0\rIDATx\x9cc\xf8\x0f\0\0\x01\x01\0\x05\x18\xd8N\0\0\0\0IEND\xaeB`\x82";

async fn put_avatar(s: &Session, name: &str, bytes: Vec<u8>) -> (StatusCode, Value) {
    let csrf = s.cookie("capopt_csrf").unwrap_or_default();
    let form = reqwest::multipart::Form::new().part(
        "avatar",
        reqwest::multipart::Part::bytes(bytes).file_name(name.to_string()),
    );
    let r = s
        .http
        .put(format!("{}/api/profile/avatar", s.base))
        .header("x-csrf-token", csrf)
        .multipart(form)
        .send()
        .await
        .expect("upload");
    body(r).await
}

fn message(v: &Value) -> &str {
    v["message"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn a_user_changes_their_names_and_password() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let s = app.login(USER_A).await;
    let (st, p) = s.json("/api/profile").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(
        (&p["email"], &p["avatarUrl"]),
        (&json!(USER_A), &Value::Null)
    );
    let anonymous = app.client().await;
    assert_eq!(
        anonymous.json("/api/profile").await.0,
        StatusCode::UNAUTHORIZED
    );

    for (body, msg) in [
        (
            json!({"name": " ", "lastName": "García"}),
            "First name is required",
        ),
        (
            json!({"name": "Ana", "lastName": ""}),
            "Last name is required",
        ),
    ] {
        let (st, v) = send(&s, Method::PUT, "/api/profile", Some(body)).await;
        assert_eq!((st, message(&v)), (StatusCode::UNPROCESSABLE_ENTITY, msg));
    }
    let (_, unchanged) = s.json("/api/profile").await;
    assert_eq!(unchanged["name"], p["name"]);
    let (st, v) = send(
        &s,
        Method::PUT,
        "/api/profile",
        Some(json!({"name": " Ana ", "lastName": "García López"})),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(
        (&v["name"], &v["lastName"]),
        (&json!("Ana"), &json!("García López"))
    );
    let (_, me) = s.json("/api/auth/me").await;
    assert_eq!(
        (&me["name"], &me["last_name"]),
        (&json!("Ana"), &json!("García López"))
    );
    // A field the profile does not change is refused, not ignored.
    let (st, _) = send(
        &s,
        Method::PUT,
        "/api/profile",
        Some(json!({"name": "Ana", "lastName": "G", "role": "admin"})),
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(s.json("/api/auth/me").await.1["role"], "user");

    // The password: the current one is checked, the new one follows the one policy.
    let (st, v) = send(
        &s,
        Method::POST,
        "/api/auth/change-password",
        Some(json!({"current_password": DEMO_PASSWORD, "new_password": "lowercase-only-1"})),
    )
    .await;
    assert_eq!(
        (st, message(&v)),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            "Password must contain at least one uppercase letter"
        )
    );
    let (st, _) = send(
        &s,
        Method::POST,
        "/api/auth/change-password",
        Some(json!({"current_password": "Not-The-Password-1", "new_password": "Fresh-Pass-9"})),
    )
    .await;
    assert_eq!(st, StatusCode::BAD_REQUEST);
    let (st, _) = send(
        &s,
        Method::POST,
        "/api/auth/change-password",
        Some(json!({"current_password": DEMO_PASSWORD, "new_password": "Fresh-Pass-9"})),
    )
    .await;
    assert_eq!(st, StatusCode::NO_CONTENT);
    let again = app.client().await;
    let r = again
        .post(
            "/api/auth/login",
            json!({"email": USER_A, "password": "Fresh-Pass-9"}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
}

#[tokio::test]
async fn avatars_are_bounded_typed_by_content_and_shown_to_colleagues_only() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let s = app.login(USER_A).await;
    let viewer = app.login(VIEWER).await;
    let other = app.login(USER_B).await;
    let admin = app.login(ADMIN).await;
    let stored = || async { app.state.storage.list_keys_under("avatars").await.unwrap() };

    let svg = br#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#;
    let (st, v) = put_avatar(&s, "me.svg", svg.to_vec()).await;
    assert_eq!(
        (st, message(&v)),
        (
            StatusCode::UNPROCESSABLE_ENTITY,
            "Please upload only PNG, JPEG, GIF or WebP images."
        )
    );
    // A PNG name does not make a PNG.
    let (st, _) = put_avatar(&s, "me.png", b"MZ\x90\0not an image".to_vec()).await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    let big = [PNG, &vec![0u8; 2 * 1024 * 1024][..]].concat();
    let (st, v) = put_avatar(&s, "me.png", big).await;
    assert_eq!(
        (st, message(&v)),
        (
            StatusCode::PAYLOAD_TOO_LARGE,
            "Images must be smaller than 2MB"
        )
    );
    assert!(stored().await.is_empty());

    let (st, p) = put_avatar(&s, "me.png", PNG.to_vec()).await;
    assert_eq!(st, StatusCode::OK, "{p}");
    let url = p["avatarUrl"].as_str().unwrap().to_owned();
    let me_id = p["id"].as_str().unwrap().to_owned();
    assert!(
        url.starts_with(&format!("/api/users/{me_id}/avatar?v=")),
        "{url}"
    );
    assert_eq!(stored().await.len(), 1);
    for (who, status) in [
        (&s, StatusCode::OK),
        (&viewer, StatusCode::OK),
        (&admin, StatusCode::OK),
        (&other, StatusCode::NOT_FOUND),
    ] {
        let r = who.get(&url).await;
        assert_eq!(r.status(), status);
        if status == StatusCode::OK {
            assert_eq!(r.headers()["content-type"], "image/png");
            assert_eq!(&r.bytes().await.unwrap()[..], PNG);
        }
    }
    // Replacing keeps one object; removing keeps none.
    let (st, p2) = put_avatar(&s, "again.png", PNG.to_vec()).await;
    assert_eq!(st, StatusCode::OK);
    assert_ne!(p2["avatarUrl"], json!(url));
    assert_eq!(stored().await.len(), 1);
    let (st, p3) = send(&s, Method::DELETE, "/api/profile/avatar", None).await;
    assert_eq!((st, &p3["avatarUrl"]), (StatusCode::OK, &Value::Null));
    assert!(stored().await.is_empty());
    assert_eq!(s.get(&url).await.status(), StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn project_settings_are_changed_by_members_who_may_write_the_client() {
    let app = TestApp::spawn_with(|c| c.run_concurrency = 0).await;
    let bank_a = client_id(&app, "Bank A").await;
    let member = app.login(USER_A).await;
    let viewer = app.login(VIEWER).await;
    let other = app.login(USER_B).await;
    let admin = app.login(ADMIN).await;
    let mut ws = Ws::connect(&viewer).await;
    let topic = format!("client:{bank_a}:settings");
    assert_eq!(ws.subscribe(&[&topic]).await[0]["type"], "subscribed");
    let mut theirs = Ws::connect(&other).await;
    assert_eq!(theirs.subscribe(&[&topic]).await[0]["type"], "denied");

    let path = format!("/api/project-settings?client_id={bank_a}");
    let (st, v) = member.json(&path).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(
        (&v["name"], &v["canEdit"]),
        (&json!("Bank A"), &json!(true))
    );
    let (st, v) = viewer.json(&path).await;
    assert_eq!((st, &v["canEdit"]), (StatusCode::OK, &json!(false)));
    let (st, _) = other.json(&path).await;
    assert_eq!(st, StatusCode::NOT_FOUND);

    // Refusals change nothing and announce nothing.
    let change = json!({"name": "Bank A Group", "description": "Spanish retail bank"});
    let (st, _) = send(&viewer, Method::PUT, &path, Some(change.clone())).await;
    assert_eq!(st, StatusCode::FORBIDDEN);
    let (st, _) = send(&other, Method::PUT, &path, Some(change.clone())).await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    let (st, v) = send(
        &member,
        Method::PUT,
        &path,
        Some(json!({"name": "  ", "description": "x"})),
    )
    .await;
    assert_eq!(
        (st, message(&v)),
        (StatusCode::UNPROCESSABLE_ENTITY, "Client name is required")
    );
    assert!(ws.next_json(Duration::from_millis(300)).await.is_none());
    assert_eq!(member.json(&path).await.1["name"], "Bank A");

    let (st, v) = send(&member, Method::PUT, &path, Some(change)).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(
        (&v["name"], &v["description"]),
        (&json!("Bank A Group"), &json!("Spanish retail bank"))
    );
    let f = ws.next_json(Duration::from_secs(5)).await.expect("event");
    assert_eq!(
        (&f["type"], &f["data"]["clientId"]),
        (&json!("project.updated"), &json!(bank_a))
    );
    // The member's session shows the new name; an administrator may change it too.
    assert_eq!(
        member.json("/api/auth/me").await.1["client"]["name"],
        "Bank A Group"
    );
    let (st, v) = send(
        &admin,
        Method::PUT,
        &path,
        Some(json!({"name": "Bank A", "description": ""})),
    )
    .await;
    assert_eq!((st, &v["description"]), (StatusCode::OK, &json!("")));
    assert!(theirs.next_json(Duration::from_millis(100)).await.is_none());
}

#[tokio::test]
async fn administrators_see_the_configuration_read_only() {
    let app = TestApp::spawn_with(|c| {
        c.run_concurrency = 0;
        c.mail_from = "Capital Desk <desk@bank.example>".into();
        c.max_upload_mb = 30;
    })
    .await;
    let admin = app.login(ADMIN).await;
    let (st, v) = admin.json("/api/admin/configuration").await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(v["mailFrom"], "Capital Desk <desk@bank.example>");
    assert_eq!(v["smtpConfigured"], false);
    assert_eq!(v["maxUploadMb"], 30);
    assert_eq!(v["leverFileMaxMb"], 25);
    assert_eq!(v["leverFileTypes"], json!(["xlsx", "xls", "csv"]));
    for who in [USER_A, APPROVER, VIEWER] {
        let s = app.login(who).await;
        assert_eq!(
            s.json("/api/admin/configuration").await.0,
            StatusCode::FORBIDDEN
        );
    }
}
