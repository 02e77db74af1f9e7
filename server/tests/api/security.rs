//! The findings of the security probe: default seeding, password changes, mail secrets, login
//! limits, forwarded addresses, control characters, headers and static assets.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::json;

use crate::helpers::*;

/// Starts `capopt serve` with the given extra environment (SEED_DEMO and DEMO_PASSWORD removed
/// from the inherited one) and returns the child, its base URL and its data directory.
async fn serve_binary(
    envs: &[(&str, &str)],
) -> (tokio::process::Child, String, std::path::PathBuf) {
    use tokio::io::{AsyncBufReadExt, BufReader};
    let dir = std::env::temp_dir().join(format!("capopt-serve-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_capopt"));
    cmd.arg("serve")
        .env_remove("SEED_DEMO")
        .env_remove("DEMO_PASSWORD")
        .env_remove("DATABASE_URL")
        .env("PORT", "0")
        .env("DATA_DIR", &dir)
        .env("WEB_DIST", dir.join("no-web"))
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true);
    if let Some(url) = fresh_database_url(&dir).await {
        cmd.env("DATABASE_URL", url);
    }
    for (k, v) in envs {
        cmd.env(k, v);
    }
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
    (child, base, dir)
}

async fn demo_login_status(base: &str, email: &str) -> StatusCode {
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
    s.post(
        "/api/auth/login",
        json!({"email": email, "password": DEMO_PASSWORD}),
    )
    .await
    .status()
}

#[tokio::test]
async fn serve_seeds_demo_accounts_only_when_seed_demo_is_set() {
    let (mut child, base, dir) = serve_binary(&[]).await;
    for email in [ADMIN, APPROVER, USER_A, USER_B, VIEWER] {
        assert_eq!(
            demo_login_status(&base, email).await,
            StatusCode::UNAUTHORIZED,
            "{email} must not exist without SEED_DEMO=1"
        );
    }
    child.kill().await.unwrap();
    let _ = std::fs::remove_dir_all(dir);

    let (mut child, base, dir) = serve_binary(&[("SEED_DEMO", "1")]).await;
    assert_eq!(demo_login_status(&base, ADMIN).await, StatusCode::OK);
    child.kill().await.unwrap();
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn a_password_change_ends_the_other_sessions_follows_the_reset_rules_and_is_limited() {
    use crate::realtime::Ws;
    let app = TestApp::spawn().await;
    let here = app.login(USER_A).await;
    let elsewhere = app.login(USER_A).await;
    let mut socket = Ws::connect(&elsewhere).await;

    // The rules of reset and invitation, with their messages.
    for (weak, message) in [
        ("abcdef", "Password must be at least 8 characters"),
        (
            "abcdefgh1",
            "Password must contain at least one uppercase letter",
        ),
        ("Abcdefghi", "Password must contain at least one number"),
    ] {
        let (st, b) = body(
            here.post(
                "/api/auth/change-password",
                json!({"current_password": DEMO_PASSWORD, "new_password": weak}),
            )
            .await,
        )
        .await;
        assert_eq!(
            (st, b["message"].as_str()),
            (StatusCode::UNPROCESSABLE_ENTITY, Some(message)),
            "{weak}"
        );
    }
    let r = here
        .post(
            "/api/auth/change-password",
            json!({"current_password": DEMO_PASSWORD, "new_password": "Fresh-Pass-9"}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::NO_CONTENT);

    // This session goes on; the other one and its socket end at once.
    assert_eq!(here.get("/api/auth/me").await.status(), StatusCode::OK);
    assert_eq!(
        elsewhere.get("/api/auth/me").await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        elsewhere.post_empty("/api/auth/refresh").await.status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(socket.close_code(Duration::from_secs(5)).await, Some(4401));

    // Guessing the current password from a stolen session is rate-limited.
    let mut limited = false;
    for _ in 0..10 {
        let r = here
            .post(
                "/api/auth/change-password",
                json!({"current_password": "guess", "new_password": "Other-Pass-8"}),
            )
            .await;
        match r.status() {
            StatusCode::BAD_REQUEST => {}
            StatusCode::TOO_MANY_REQUESTS => {
                limited = true;
                break;
            }
            other => panic!("unexpected {other}"),
        }
    }
    assert!(limited, "password changes are rate-limited");
}
