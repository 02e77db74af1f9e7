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

/// Everything the server logs at debug level and above, captured for the whole test process
/// (other tests' lines land here too; the tests only look for their own secrets).
fn captured_log() -> std::sync::Arc<std::sync::Mutex<Vec<u8>>> {
    use std::sync::{Arc, Mutex, OnceLock};
    static LOG: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LOG.get_or_init(|| {
        struct Sink(Arc<Mutex<Vec<u8>>>);
        impl std::io::Write for Sink {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let buf = Arc::new(Mutex::new(Vec::new()));
        let w = buf.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_env_filter("debug,sqlx=warn,hyper=warn,hyper_util=warn,reqwest=warn,tungstenite=warn,tokio_tungstenite=warn")
            .with_ansi(false)
            .with_writer(move || Sink(w.clone()))
            .finish();
        tracing::subscriber::set_global_default(subscriber).expect("log capture installed once");
        buf
    })
    .clone()
}

fn log_contains(log: &std::sync::Arc<std::sync::Mutex<Vec<u8>>>, needle: &str) -> bool {
    String::from_utf8_lossy(&log.lock().unwrap()).contains(needle)
}

#[tokio::test]
async fn reset_and_invitation_links_stay_out_of_the_log_and_the_admins_outbox() {
    let log = captured_log();
    let app = TestApp::spawn().await;
    let admin = app.login(ADMIN).await;
    let (_, me) = admin.json("/api/auth/me").await;
    let r = admin
        .post(
            "/api/admin/invitations",
            json!({"name": "Nora", "last_name": "Nueva", "email": "nora@bank-a.example",
                   "role": "user", "client_id": me["client"]["id"]}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let invitation = token_after(&app.mail_to("nora@bank-a.example").await, "/signup/");
    let anon = app.client().await;
    assert_eq!(
        anon.get(&format!("/api/invitations/{invitation}"))
            .await
            .status(),
        StatusCode::OK
    );
    anon.get(&format!("/signup/{invitation}")).await;
    let r = anon
        .post("/api/auth/forgot-password", json!({"email": USER_A}))
        .await;
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    let reset = token_after(&app.mail_to(USER_A).await, "token=");
    anon.get(&format!("/reset-password?token={reset}")).await;
    assert!(invitation.len() >= 32 && reset.len() >= 32);

    // An admin sees that the mails were sent, never the links' tokens.
    let (st, outbox) = admin.json("/api/admin/outbox").await;
    assert_eq!(st, StatusCode::OK);
    let text = outbox.to_string();
    assert!(text.contains("nora@bank-a.example") && text.contains(USER_A));
    assert!(text.contains("/signup/") && text.contains("reset-password?token="));
    assert!(
        log_contains(&log, "/api/invitations/{token}") && log_contains(&log, "mail queued"),
        "requests and mails are logged, without their secrets"
    );
    for secret in [&invitation, &reset] {
        assert!(
            !text.contains(secret.as_str()),
            "token in the admin outbox: {text}"
        );
        assert!(!log_contains(&log, secret), "token in the log");
    }
    // The links still work for their owners.
    let r = anon
        .post(
            "/api/auth/reset-password",
            json!({"token": reset, "password": "Fresh-Pass-9"}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::NO_CONTENT);
}

/// A minimal SMTP server that accepts every message and hands each one's data over.
async fn fake_smtp() -> (u16, tokio::sync::mpsc::UnboundedReceiver<String>) {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let tx = tx.clone();
            tokio::spawn(async move {
                let (r, mut w) = stream.into_split();
                let mut lines = BufReader::new(r).lines();
                let _ = w.write_all(b"220 fake ESMTP\r\n").await;
                let mut data: Option<String> = None;
                while let Ok(Some(line)) = lines.next_line().await {
                    if let Some(d) = data.as_mut() {
                        if line == "." {
                            let _ = tx.send(data.take().unwrap());
                            let _ = w.write_all(b"250 queued\r\n").await;
                        } else {
                            d.push_str(&line);
                            d.push('\n');
                        }
                        continue;
                    }
                    let verb = line.get(..4).unwrap_or("").to_ascii_uppercase();
                    let reply: &[u8] = match verb.as_str() {
                        "EHLO" | "HELO" => b"250 fake\r\n",
                        "DATA" => {
                            data = Some(String::new());
                            b"354 go on\r\n"
                        }
                        "QUIT" => {
                            let _ = w.write_all(b"221 bye\r\n").await;
                            break;
                        }
                        _ => b"250 ok\r\n",
                    };
                    let _ = w.write_all(reply).await;
                }
            });
        }
    });
    (port, rx)
}

#[tokio::test]
async fn a_delivered_mail_keeps_no_body_in_the_outbox() {
    let (port, mut delivered) = fake_smtp().await;
    let app = TestApp::spawn_with(|c| c.smtp_url = Some(format!("smtp://127.0.0.1:{port}"))).await;
    let anon = app.client().await;
    let r = anon
        .post("/api/auth/forgot-password", json!({"email": USER_A}))
        .await;
    assert_eq!(r.status(), StatusCode::ACCEPTED);
    let sent = tokio::time::timeout(Duration::from_secs(10), delivered.recv())
        .await
        .expect("mail delivered by SMTP")
        .unwrap();
    assert!(sent.contains("reset-password?token="), "{sent}");
    let mut row = None;
    for _ in 0..100 {
        let r: Option<(String, Option<String>)> = sqlx::query_as(
            "SELECT body, sent_at FROM outbox WHERE to_addr = $1 AND sent_at IS NOT NULL",
        )
        .bind(USER_A)
        .fetch_optional(&app.state.db.pool)
        .await
        .unwrap();
        if r.is_some() {
            row = r;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (stored, _) = row.expect("the outbox row is marked sent");
    assert!(
        !stored.contains("token="),
        "a delivered mail's body is gone from the outbox: {stored}"
    );
}

/// The address the server recorded for the latest failed sign-in.
async fn last_failed_login_ip(app: &TestApp) -> Option<String> {
    let row: Option<(Option<String>,)> = sqlx::query_as(
        "SELECT ip FROM audit_events WHERE event_type = 'login_failed' ORDER BY created_at DESC LIMIT 1",
    )
    .fetch_optional(&app.state.db.pool)
    .await
    .unwrap();
    row.and_then(|r| r.0)
}

async fn fail_login_with(app: &TestApp, headers: &[(&str, &str)]) -> Option<String> {
    let s = app.client().await;
    let csrf = s.cookie("capopt_csrf").unwrap();
    let mut req = s
        .http
        .post(app.url("/api/auth/login"))
        .header("x-csrf-token", csrf)
        .json(&json!({"email": "nobody@example.com", "password": "wrong"}));
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    assert_eq!(req.send().await.unwrap().status(), StatusCode::UNAUTHORIZED);
    last_failed_login_ip(app).await
}

#[tokio::test]
async fn behind_a_proxy_the_client_is_the_rightmost_untrusted_hop() {
    // Without TRUST_PROXY the headers are ignored.
    let app = TestApp::spawn().await;
    let spoofed = [("x-forwarded-for", "203.0.113.9")];
    assert_eq!(
        fail_login_with(&app, &spoofed).await.as_deref(),
        Some("127.0.0.1")
    );

    // One trusted proxy: the address it appended, not what the client wrote before it.
    let app = TestApp::spawn_with(|c| c.trust_proxy = true).await;
    let forwarded = [("x-forwarded-for", "203.0.113.9, 198.51.100.7")];
    assert_eq!(
        fail_login_with(&app, &forwarded).await.as_deref(),
        Some("198.51.100.7")
    );
    let garbage = [("x-forwarded-for", "203.0.113.9, not-an-address")];
    assert_eq!(
        fail_login_with(&app, &garbage).await.as_deref(),
        Some("127.0.0.1"),
        "an unreadable hop falls back to the peer"
    );

    // A chain of trusted proxies: skip them from the right.
    let app = TestApp::spawn_with(|c| {
        c.trust_proxy = true;
        c.trusted_proxies = vec!["127.0.0.1".into(), "198.51.100.0/24".into()];
    })
    .await;
    let chain = [(
        "x-forwarded-for",
        "203.0.113.9, 192.0.2.44, 198.51.100.20, 198.51.100.7",
    )];
    assert_eq!(
        fail_login_with(&app, &chain).await.as_deref(),
        Some("192.0.2.44")
    );

    // A configured header set by the proxy.
    let app = TestApp::spawn_with(|c| {
        c.trust_proxy = true;
        c.client_ip_header = Some("X-Real-IP".into());
    })
    .await;
    let real = [
        ("x-forwarded-for", "203.0.113.9"),
        ("x-real-ip", "192.0.2.45"),
    ];
    assert_eq!(
        fail_login_with(&app, &real).await.as_deref(),
        Some("192.0.2.45")
    );
}

/// A fresh client whose requests come from `ip` (through a trusted proxy).
async fn from_address(app: &TestApp, ip: &str) -> (Session, String) {
    (app.client().await, ip.to_string())
}

async fn login_from(s: &(Session, String), email: &str, password: &str) -> StatusCode {
    let (s, ip) = s;
    let csrf = s.cookie("capopt_csrf").unwrap();
    s.http
        .post(format!("{}/api/auth/login", s.base))
        .header("x-csrf-token", csrf)
        .header("x-forwarded-for", ip.as_str())
        .json(&json!({"email": email, "password": password}))
        .send()
        .await
        .unwrap()
        .status()
}

#[tokio::test]
async fn sign_in_limits_count_failures_only_and_never_lock_the_owner_out() {
    let app = TestApp::spawn_with(|c| c.trust_proxy = true).await;
    let owner = from_address(&app, "198.51.100.7").await;
    let attacker = from_address(&app, "203.0.113.9").await;

    // Successful sign-ins never count.
    for i in 0..8 {
        assert_eq!(
            login_from(&owner, USER_B, DEMO_PASSWORD).await,
            StatusCode::OK,
            "sign-in {i}"
        );
    }
    // Five wrong guesses elsewhere do not block the owner's correct password.
    for _ in 0..5 {
        assert_eq!(
            login_from(&attacker, USER_B, "guess").await,
            StatusCode::UNAUTHORIZED
        );
    }
    assert_eq!(
        login_from(&owner, USER_B, DEMO_PASSWORD).await,
        StatusCode::OK
    );
    // The owner's own typos only slow the next attempt down; the correct password passes.
    for _ in 0..5 {
        assert_eq!(
            login_from(&owner, USER_B, "typo").await,
            StatusCode::UNAUTHORIZED
        );
    }
    let started = std::time::Instant::now();
    assert_eq!(
        login_from(&owner, USER_B, "typo").await,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        login_from(&owner, USER_B, DEMO_PASSWORD).await,
        StatusCode::OK
    );
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "after five failures each attempt waits its turn"
    );

    // Guessing faster than the back-off allows is refused.
    let guesses = (0..12).map(|_| login_from(&attacker, USER_B, "guess"));
    let answers = futures_util::future::join_all(guesses).await;
    assert!(
        answers.contains(&StatusCode::TOO_MANY_REQUESTS),
        "{answers:?}"
    );
    assert!(
        answers
            .iter()
            .all(|s| *s == StatusCode::TOO_MANY_REQUESTS || *s == StatusCode::UNAUTHORIZED)
    );
    // ...and still does not touch the owner at another address.
    assert_eq!(
        login_from(&owner, USER_B, DEMO_PASSWORD).await,
        StatusCode::OK
    );
}

#[tokio::test]
async fn a_whole_bank_behind_one_proxy_signs_in() {
    let app = TestApp::spawn_with(|c| c.trust_proxy = true).await;
    let proxy = from_address(&app, "192.0.2.10").await;
    // Forty sign-ins of the bank's staff through the one address within minutes.
    for i in 0..40 {
        let email = [USER_A, APPROVER, VIEWER, ADMIN][i % 4];
        assert_eq!(
            login_from(&proxy, email, DEMO_PASSWORD).await,
            StatusCode::OK,
            "sign-in {i}"
        );
    }
}

#[tokio::test]
async fn control_characters_in_names_titles_ids_and_waitlist_fields_are_refused() {
    let app = TestApp::spawn().await;
    let user = app.login(USER_A).await;
    let admin = app.login(ADMIN).await;
    let anon = app.client().await;
    let (_, board) = user.json("/api/board").await;
    let column = board["columns"][0]["id"].as_str().unwrap().to_string();
    let (_, me) = admin.json("/api/auth/me").await;
    let expect_422 = |what: &str, r: (StatusCode, serde_json::Value)| {
        assert_eq!(r.0, StatusCode::UNPROCESSABLE_ENTITY, "{what}: {}", r.1);
        assert!(
            r.1["code"].is_string() && r.1["message"].is_string(),
            "{what}: {}",
            r.1
        );
    };

    for bad in [
        "Ana\u{0}",
        "Ana\u{7}",
        "Ana\u{1b}[31m",
        "An\u{85}a",
        "Ana\nLópez",
    ] {
        let r = anon
            .post(
                "/api/waitlist",
                json!({"email": "ana@bank.example", "name": bad, "source": "hero"}),
            )
            .await;
        expect_422("waitlist name", body(r).await);
        let r = user.post("/api/reports", json!({"name": bad})).await;
        expect_422("report name", body(r).await);
        let r = user
            .post("/api/reports/folders", json!({"name": bad}))
            .await;
        expect_422("folder name", body(r).await);
        let r = user
            .post(
                "/api/board/tasks",
                json!({"column_id": column, "title": bad}),
            )
            .await;
        expect_422("task title", body(r).await);
        let r = user.post("/api/board/columns", json!({"name": bad})).await;
        expect_422("column name", body(r).await);
        let r = admin
            .post(
                "/api/admin/invitations",
                json!({"name": bad, "last_name": "L", "email": "x@bank-a.example",
                       "role": "user", "client_id": me["client"]["id"]}),
            )
            .await;
        expect_422("invitation name", body(r).await);
    }
    for email in ["ana\u{0}@bank.example", "ana@bank.example\u{0}"] {
        let r = anon
            .post("/api/waitlist", json!({"email": email, "source": "hero"}))
            .await;
        expect_422("waitlist email", body(r).await);
    }
    let r = anon
        .post(
            "/api/waitlist",
            json!({"email": "ana@bank.example", "source": "hero\u{0}"}),
        )
        .await;
    expect_422("waitlist source", body(r).await);
    // Ids in paths, bodies and query strings.
    for path in [
        "/api/reports/abc%00def",
        "/api/reports/%07",
        "/api/board?client_id=a%00b",
        "/api/invitations/tok%00en",
    ] {
        expect_422(path, user.json(path).await);
    }
    let r = user
        .post(
            "/api/board/tasks",
            json!({"column_id": format!("{column}\u{0}"), "title": "T"}),
        )
        .await;
    expect_422("column id", body(r).await);
    // Line breaks and tabs stay allowed where text is long: a task's description.
    let r = user
        .post(
            "/api/board/tasks",
            json!({"column_id": column, "title": "Review", "description": "Line 1\n\tLine 2\r\n"}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let r = user
        .post(
            "/api/board/tasks",
            json!({"column_id": column, "title": "Review", "description": "a\u{0}b"}),
        )
        .await;
    expect_422("description", body(r).await);
}

#[tokio::test]
async fn api_answers_are_not_stored_and_the_policy_headers_are_strict() {
    let app = TestApp::spawn().await;
    let anon = app.client().await;
    let user = app.login(USER_A).await;
    for r in [
        anon.get("/api/health").await,
        anon.get("/api/auth/me").await,
        user.get("/api/auth/me").await,
        user.get("/api/no-such-endpoint").await,
        user.post("/api/reports", json!({"name": ""})).await,
    ] {
        assert_eq!(
            r.headers()
                .get("cache-control")
                .and_then(|v| v.to_str().ok()),
            Some("no-store"),
            "{}",
            r.url()
        );
        assert!(r.headers().get("strict-transport-security").is_none());
        let csp = r
            .headers()
            .get("content-security-policy")
            .and_then(|v| v.to_str().ok())
            .unwrap()
            .to_string();
        let connect: Vec<&str> = csp
            .split(';')
            .map(str::trim)
            .find_map(|d| d.strip_prefix("connect-src "))
            .expect("a connect-src directive")
            .split_whitespace()
            .collect();
        let host = app.base.trim_start_matches("http://");
        for source in &connect {
            assert!(
                *source == "'self'"
                    || *source == format!("ws://{host}")
                    || *source == format!("wss://{host}"),
                "connect-src allows {source}: {csp}"
            );
        }
        assert!(connect.contains(&"'self'"));
    }

    let secure = TestApp::spawn_with(|c| c.cookie_secure = true).await;
    let r = reqwest::get(secure.url("/api/health")).await.unwrap();
    let hsts = r
        .headers()
        .get("strict-transport-security")
        .and_then(|v| v.to_str().ok())
        .expect("HSTS with COOKIE_SECURE=1");
    assert!(hsts.starts_with("max-age=31536000"), "{hsts}");
}

#[tokio::test]
async fn the_csrf_token_changes_at_sign_in() {
    let app = TestApp::spawn().await;
    let s = app.client().await;
    let before = s
        .cookie("capopt_csrf")
        .expect("a CSRF cookie before sign-in");
    let r = s
        .post(
            "/api/auth/login",
            json!({"email": USER_A, "password": DEMO_PASSWORD}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    let after = s
        .cookie("capopt_csrf")
        .expect("a CSRF cookie after sign-in");
    assert_ne!(before, after, "rotated at sign-in");
    // The token known before sign-in no longer passes; the new one does.
    let r = s
        .http
        .post(app.url("/api/reports"))
        .header("x-csrf-token", &before)
        .json(&json!({"name": "Q3"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), StatusCode::FORBIDDEN);
    assert_eq!(
        s.post("/api/reports", json!({"name": "Q3"})).await.status(),
        StatusCode::CREATED
    );
}

#[cfg(unix)]
#[tokio::test]
async fn the_data_directory_and_database_file_are_the_servers_alone() {
    use std::os::unix::fs::PermissionsExt;
    let app = TestApp::spawn().await;
    let dir = app.state.config.data_dir.clone();
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&dir), 0o700, "data directory");
    if std::env::var("TEST_DATABASE_URL").is_err() {
        for name in ["capopt.db", "capopt.db-wal", "capopt.db-shm"] {
            let p = dir.join(name);
            if p.exists() {
                assert_eq!(mode(&p), 0o600, "{name}");
            } else {
                assert_ne!(name, "capopt.db", "the database file exists");
            }
        }
    }
}

#[tokio::test]
async fn forgot_password_answers_without_touching_the_database_for_known_addresses() {
    // Another writer holds the tables a reset writes to: an answer that waited for them would
    // tell a known address from an unknown one by its time.
    let app = TestApp::spawn().await;
    let anon = app.client().await;
    let pool = &app.state.db.pool;
    let mut blocker = pool.begin().await.unwrap();
    if std::env::var("TEST_DATABASE_URL").is_ok() {
        sqlx::query("LOCK TABLE password_resets, outbox IN ACCESS EXCLUSIVE MODE")
            .execute(&mut *blocker)
            .await
            .unwrap();
    } else {
        sqlx::query("INSERT INTO waitlist (id, email, name, source, created_at) VALUES ('w', 'w@x.io', NULL, 'hero', 'now')")
            .execute(&mut *blocker)
            .await
            .unwrap();
    }
    let mut times = Vec::new();
    for email in [USER_A, "nobody@bank-a.example", USER_B] {
        let started = std::time::Instant::now();
        let r = tokio::time::timeout(
            Duration::from_secs(3),
            anon.post("/api/auth/forgot-password", json!({"email": email})),
        )
        .await
        .unwrap_or_else(|_| panic!("the answer for {email} waited for the database"));
        assert_eq!(r.status(), StatusCode::ACCEPTED);
        times.push(started.elapsed());
    }
    blocker.rollback().await.unwrap();
    // The mails still go out once the tables are free.
    assert!(app.mail_to(USER_A).await.contains("reset-password?token="));
    assert!(app.mail_to(USER_B).await.contains("reset-password?token="));
    assert!(app.last_mail_to("nobody@bank-a.example").await.is_none());
    assert!(
        times.iter().all(|t| *t < Duration::from_secs(1)),
        "{times:?}"
    );
}

/// A built web app in a temporary directory: index.html, one hashed bundle, one plain file.
fn fake_web_dist() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("capopt-dist-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    std::fs::write(
        dir.join("index.html"),
        "<!doctype html><html><head><script type=\"module\" src=\"/assets/index-B1a2c3D4.js\"></script></head><body><div id=\"root\"></div></body></html>",
    )
    .unwrap();
    let js = "export function hello(name) { return `Hello, ${name}!` }\n".repeat(400);
    std::fs::write(dir.join("assets/index-B1a2c3D4.js"), js).unwrap();
    std::fs::write(
        dir.join("favicon.svg"),
        "<svg xmlns=\"http://www.w3.org/2000/svg\"/>",
    )
    .unwrap();
    dir
}

#[tokio::test]
async fn hashed_bundles_are_compressed_and_cached_for_good_and_index_html_is_revalidated() {
    let dist = fake_web_dist();
    let d = dist.clone();
    let app = TestApp::spawn_with(move |c| c.web_dist = d).await;
    let http = reqwest::Client::new();
    let get = |path: &str| {
        http.get(app.url(path))
            .header("accept-encoding", "gzip, br")
            .send()
    };
    let header = |r: &reqwest::Response, name: &str| {
        r.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };

    let r = get("/assets/index-B1a2c3D4.js").await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(
        header(&r, "cache-control").as_deref(),
        Some("public, max-age=31536000, immutable")
    );
    let encoding = header(&r, "content-encoding");
    assert!(
        matches!(encoding.as_deref(), Some("gzip") | Some("br")),
        "{encoding:?}"
    );
    let bytes = r.bytes().await.unwrap();
    assert!(bytes.len() < 4000, "compressed: {} bytes", bytes.len());

    // A bundle this deployment does not have is not cached (another instance may have it).
    let r = get("/assets/index-Zz9y8x7W.js").await.unwrap();
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    assert_ne!(
        header(&r, "cache-control").as_deref(),
        Some("public, max-age=31536000, immutable")
    );

    // index.html (and every client-side route) is revalidated on every load.
    for path in ["/", "/index.html", "/client/board", "/favicon.svg"] {
        let r = get(path).await.unwrap();
        assert_eq!(r.status(), StatusCode::OK, "{path}");
        assert_eq!(
            header(&r, "cache-control").as_deref(),
            Some("no-cache"),
            "{path}"
        );
    }
    let _ = std::fs::remove_dir_all(dist);
}
