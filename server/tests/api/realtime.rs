//! The event socket `/api/ws`: authentication, origin check, subscription rights, sequence
//! numbers, re-checks, slow consumers, and (ignored unless `TEST_DATABASE_URL` and
//! `TEST_REDIS_URL` are set) two server processes relaying each other's events through Redis.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::HeaderValue;

use crate::helpers::*;

type Stream =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// A test client of the event socket.
pub(crate) struct Ws {
    pub stream: Stream,
}

/// The cookies a session would send to `base`.
pub(crate) fn cookie_header(s: &Session) -> Option<String> {
    use reqwest::cookie::CookieStore;
    let url: reqwest::Url = format!("{}/api/ws", s.base).parse().unwrap();
    s.jar.cookies(&url).map(|h| h.to_str().unwrap().to_string())
}

impl Ws {
    /// Opens a socket with the given cookies and Origin; the HTTP status on refusal.
    pub(crate) async fn try_connect(
        base: &str,
        cookie: Option<String>,
        origin: Option<&str>,
    ) -> Result<Ws, StatusCode> {
        let ws_url = base.replacen("http://", "ws://", 1) + "/api/ws";
        let mut req = ws_url.into_client_request().unwrap();
        if let Some(c) = cookie {
            req.headers_mut()
                .insert("cookie", HeaderValue::from_str(&c).unwrap());
        }
        if let Some(o) = origin {
            req.headers_mut()
                .insert("origin", HeaderValue::from_str(o).unwrap());
        }
        match tokio_tungstenite::connect_async(req).await {
            Ok((stream, _)) => Ok(Ws { stream }),
            Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => {
                Err(StatusCode::from_u16(resp.status().as_u16()).unwrap())
            }
            Err(e) => panic!("websocket connect: {e}"),
        }
    }

    /// Opens a socket as the signed-in session `s`.
    pub(crate) async fn connect(s: &Session) -> Ws {
        Ws::try_connect(&s.base, cookie_header(s), None)
            .await
            .expect("websocket accepted")
    }

    pub(crate) async fn send(&mut self, v: Value) {
        self.stream
            .send(Message::text(v.to_string()))
            .await
            .unwrap();
    }

    /// The next JSON frame within `wait`, skipping pings; `None` on timeout or close.
    pub(crate) async fn next_json(&mut self, wait: Duration) -> Option<Value> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let msg = tokio::time::timeout_at(deadline, self.stream.next())
                .await
                .ok()??
                .ok()?;
            match msg {
                Message::Text(t) => return Some(serde_json::from_str(t.as_str()).unwrap()),
                Message::Close(_) => return None,
                _ => continue,
            }
        }
    }

    /// Subscribes and returns the per-topic answers.
    pub(crate) async fn subscribe(&mut self, topics: &[&str]) -> Vec<Value> {
        self.send(json!({"op": "subscribe", "topics": topics}))
            .await;
        let mut out = Vec::new();
        while out.len() < topics.len() {
            let v = self
                .next_json(Duration::from_secs(5))
                .await
                .expect("subscription answer");
            if ["subscribed", "denied", "error"].contains(&v["type"].as_str().unwrap_or("")) {
                out.push(v);
            }
        }
        out
    }

    /// The close code the server ends the socket with, within `wait` (frames before it are skipped).
    pub(crate) async fn close_code(&mut self, wait: Duration) -> Option<u16> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            match tokio::time::timeout_at(deadline, self.stream.next())
                .await
                .ok()?
            {
                Some(Ok(Message::Close(Some(f)))) => return Some(u16::from(f.code)),
                Some(Ok(Message::Close(None))) | None | Some(Err(_)) => return Some(1006),
                Some(Ok(_)) => continue,
            }
        }
    }
}

pub(crate) async fn client_id(app: &TestApp, name: &str) -> String {
    let (id,): (String,) = sqlx::query_as("SELECT id FROM clients WHERE name = $1")
        .bind(name)
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
    id
}

pub(crate) async fn first_column(s: &Session) -> String {
    let (st, board) = s.json("/api/board").await;
    assert_eq!(st, StatusCode::OK);
    board["columns"][0]["id"].as_str().unwrap().to_string()
}

const QUIET: Duration = Duration::from_millis(400);
const WAIT: Duration = Duration::from_secs(5);

#[tokio::test]
async fn the_socket_needs_a_session_and_the_same_origin() {
    let app = TestApp::spawn().await;
    assert_eq!(
        Ws::try_connect(&app.base, None, None).await.err(),
        Some(StatusCode::UNAUTHORIZED)
    );
    let a = app.login(USER_A).await;
    let cookies = cookie_header(&a);
    assert_eq!(
        Ws::try_connect(&app.base, cookies.clone(), Some("https://evil.example"))
            .await
            .err(),
        Some(StatusCode::FORBIDDEN)
    );
    let host = app.base.clone();
    assert!(
        Ws::try_connect(&app.base, cookies, Some(&host))
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn a_client_user_never_receives_another_clients_events() {
    let app = TestApp::spawn().await;
    let bank_a = client_id(&app, "Bank A").await;
    let bank_b = client_id(&app, "Bank B").await;
    let a = app.login(USER_A).await;
    let b = app.login(USER_B).await;
    let col = first_column(&a).await;

    let mut wa = Ws::connect(&a).await;
    let mut wb = Ws::connect(&b).await;
    let topic_a = format!("client:{bank_a}:board");
    let ans = wa.subscribe(&[&topic_a]).await;
    assert_eq!(ans[0]["type"], "subscribed");
    // Bank B's user asks for Bank A's board and for a made-up topic: both refused.
    let ans = wb
        .subscribe(&[
            &topic_a,
            "client:x:secrets",
            &format!("client:{bank_b}:board"),
        ])
        .await;
    assert_eq!(
        (ans[0]["type"].as_str(), ans[0]["data"]["reason"].as_str()),
        (Some("denied"), Some("forbidden"))
    );
    assert_eq!(
        (ans[1]["type"].as_str(), ans[1]["data"]["reason"].as_str()),
        (Some("denied"), Some("unknown_topic"))
    );
    assert_eq!(ans[2]["type"], "subscribed");

    let r = a
        .post(
            "/api/board/tasks",
            json!({"column_id": col, "title": "Check PSE list"}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let ev = wa.next_json(WAIT).await.expect("event on Bank A's socket");
    assert_eq!(
        (ev["topic"].as_str(), ev["type"].as_str()),
        (Some(topic_a.as_str()), Some("task.created"))
    );
    assert_eq!(ev["data"]["tasks"][0]["title"], "Check PSE list");
    assert_eq!(
        wb.next_json(QUIET).await,
        None,
        "Bank B's socket got nothing"
    );
}

#[tokio::test]
async fn admins_watch_any_client_and_the_admin_topics() {
    let app = TestApp::spawn().await;
    let bank_b = client_id(&app, "Bank B").await;
    let mut admin = Ws::connect(&app.login(ADMIN).await).await;
    let ans = admin
        .subscribe(&[
            &format!("client:{bank_b}:board"),
            "admin:runs",
            &format!("client:{bank_b}:run:r1"),
        ])
        .await;
    assert!(ans.iter().all(|a| a["type"] == "subscribed"), "{ans:?}");
    let mut user = Ws::connect(&app.login(APPROVER).await).await;
    let ans = user
        .subscribe(&[
            "admin:runs",
            "admin:dashboard",
            &format!("client:{bank_b}:savings"),
        ])
        .await;
    assert!(ans.iter().all(|a| a["type"] == "denied"), "{ans:?}");
    // A viewer of Bank A receives its board.
    let bank_a = client_id(&app, "Bank A").await;
    let mut viewer = Ws::connect(&app.login(VIEWER).await).await;
    assert_eq!(
        viewer.subscribe(&[&format!("client:{bank_a}:board")]).await[0]["type"],
        "subscribed"
    );
}

#[tokio::test]
async fn events_follow_the_topic_sequence_and_pings_are_answered() {
    let app = TestApp::spawn().await;
    let bank_a = client_id(&app, "Bank A").await;
    let a = app.login(USER_A).await;
    let col = first_column(&a).await; // a read: no event
    let mut ws = Ws::connect(&a).await;
    let topic = format!("client:{bank_a}:board");
    let ans = ws.subscribe(&[&topic]).await;
    let start = ans[0]["seq"].as_i64().unwrap();
    assert_eq!(
        start, 0,
        "the default columns came with the client: reading the board published nothing"
    );
    for i in 0..5 {
        let r = a
            .post(
                "/api/board/tasks",
                json!({"column_id": col, "title": format!("Task {i}")}),
            )
            .await;
        assert_eq!(
            r.headers()["x-event-seq"].to_str().unwrap(),
            (start + 1 + i).to_string()
        );
    }
    for i in 0..5 {
        let ev = ws.next_json(WAIT).await.unwrap();
        assert_eq!(ev["seq"].as_i64(), Some(start + 1 + i));
    }
    // Several topics in one request (their sequence numbers are read at once): each answer in
    // the order asked, with its own topic's last sequence number, a refusal in between.
    let bank_b = client_id(&app, "Bank B").await;
    let mut second = Ws::connect(&a).await;
    let savings = format!("client:{bank_a}:savings");
    let ans = second
        .subscribe(&[&topic, &format!("client:{bank_b}:board"), &savings])
        .await;
    let got: Vec<_> = ans
        .iter()
        .map(|a| (a["topic"].as_str(), a["type"].as_str(), a["seq"].as_i64()))
        .collect();
    assert_eq!(
        got[0],
        (Some(topic.as_str()), Some("subscribed"), Some(start + 5))
    );
    assert_eq!(
        (got[1].1, ans[1]["data"]["reason"].as_str()),
        (Some("denied"), Some("forbidden"))
    );
    assert_eq!(
        got[2],
        (Some(savings.as_str()), Some("subscribed"), Some(0))
    );
    ws.send(json!({"op": "ping"})).await;
    assert_eq!(ws.next_json(WAIT).await.unwrap()["type"], "pong");
    ws.send(json!({"op": "nonsense"})).await;
    assert_eq!(ws.next_json(WAIT).await.unwrap()["type"], "error");
    // Unsubscribed: nothing more arrives.
    ws.send(json!({"op": "unsubscribe", "topics": [topic]}))
        .await;
    assert_eq!(ws.next_json(WAIT).await.unwrap()["type"], "unsubscribed");
    a.post(
        "/api/board/tasks",
        json!({"column_id": col, "title": "Unseen"}),
    )
    .await;
    assert_eq!(ws.next_json(QUIET).await, None);
}

#[tokio::test]
async fn an_ended_session_closes_its_sockets() {
    let app = TestApp::spawn().await;
    let a = app.login(USER_A).await;
    let mut ws = Ws::connect(&a).await;
    let other = app.login(USER_A).await;
    let mut ws_other = Ws::connect(&other).await;
    assert_eq!(
        a.post_empty("/api/auth/logout").await.status(),
        StatusCode::NO_CONTENT
    );
    // Sign-out re-checks the user's sockets at once: no waiting for the periodic re-check.
    assert_eq!(ws.close_code(WAIT).await, Some(4401));
    // The user's other session is untouched.
    ws_other.send(json!({"op": "ping"})).await;
    assert_eq!(ws_other.next_json(WAIT).await.unwrap()["type"], "pong");
}

#[tokio::test]
async fn a_lost_membership_drops_the_subscription() {
    let app = TestApp::spawn().await;
    let bank_a = client_id(&app, "Bank A").await;
    let a = app.login(USER_A).await;
    let col = first_column(&a).await;
    let mut ws = Ws::connect(&a).await;
    let topic = format!("client:{bank_a}:board");
    ws.subscribe(&[&topic]).await;
    sqlx::query("DELETE FROM client_users WHERE client_id = $1 AND user_id = (SELECT id FROM users WHERE email = $2)")
        .bind(&bank_a)
        .bind(USER_A)
        .execute(&app.state.db.pool)
        .await
        .unwrap();
    app.state.recheck_all().await;
    // The app is told to load the caller again, then the topic is dropped.
    let v = ws.next_json(WAIT).await.unwrap();
    assert_eq!(v["type"], "session.changed", "{v}");
    let v = ws.next_json(WAIT).await.unwrap();
    assert_eq!(
        (
            v["type"].as_str(),
            v["topic"].as_str(),
            v["data"]["reason"].as_str()
        ),
        (
            Some("unsubscribed"),
            Some(topic.as_str()),
            Some("forbidden")
        )
    );
    let approver = app.login(APPROVER).await;
    approver
        .post(
            "/api/board/tasks",
            json!({"column_id": col, "title": "After removal"}),
        )
        .await;
    assert_eq!(ws.next_json(QUIET).await, None);
    assert_eq!(ws.subscribe(&[&topic]).await[0]["type"], "denied");
}

#[tokio::test]
async fn a_role_change_reaches_the_open_app_at_once() {
    let app = TestApp::spawn().await;
    let a = app.login(USER_A).await;
    let (_, me) = a.json("/api/auth/me").await;
    let mut ws = Ws::connect(&a).await;
    ws.send(json!({"op": "ping"})).await;
    assert_eq!(ws.next_json(WAIT).await.unwrap()["type"], "pong");
    let admin = app.login(ADMIN).await;
    let csrf = admin.cookie("capopt_csrf").unwrap();
    let r = admin
        .http
        .put(app.url(&format!(
            "/api/admin/users/{}/role",
            me["id"].as_str().unwrap()
        )))
        .header("x-csrf-token", csrf)
        .json(&json!({"role": "viewer"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), reqwest::StatusCode::OK);
    let v = ws.next_json(WAIT).await.unwrap();
    assert_eq!(
        (v["type"].as_str(), v["topic"].as_str()),
        (Some("session.changed"), Some(""))
    );
    // Nothing changed for the caller: no frame.
    app.state.recheck_all().await;
    assert_eq!(ws.next_json(QUIET).await, None);
}

#[tokio::test]
async fn a_consumer_that_does_not_read_is_disconnected_not_buffered() {
    let app = TestApp::spawn().await;
    let bank_a = client_id(&app, "Bank A").await;
    let a = app.login(USER_A).await;
    let mut ws = Ws::connect(&a).await;
    let topic = format!("client:{bank_a}:board");
    ws.subscribe(&[&topic]).await;
    assert_eq!(app.state.hub.subscriber_count(&topic), 1);
    // The test stops reading; the server keeps publishing 16 KB events until the socket and then
    // the bounded queue are full.
    let big = server::realtime::Event::Error(server::realtime::events::ErrorMessage {
        message: "x".repeat(16 * 1024),
    });
    let t = server::realtime::Topic::board(&bank_a);
    let mut seq = 1_000;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while app
        .state
        .hub
        .stats()
        .slow_consumers
        .load(std::sync::atomic::Ordering::Relaxed)
        == 0
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "never detected as a slow consumer"
        );
        for _ in 0..64 {
            seq += 1;
            app.state.hub.publish(&t, seq, &big);
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while app.state.hub.connection_count() > 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "slow consumer not closed"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(app.state.hub.subscriber_count(&topic), 0);
    drop(ws);
}

/// Starts `capopt serve` on an ephemeral port and returns (child, base URL).
async fn spawn_instance(
    database_url: &str,
    redis_url: &str,
    seed: bool,
) -> (tokio::process::Child, String, std::path::PathBuf) {
    use tokio::io::{AsyncBufReadExt, BufReader};
    let dir = std::env::temp_dir().join(format!("capopt-instance-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_capopt"))
        .arg("serve")
        .env("PORT", "0")
        .env("DATA_DIR", &dir)
        .env("DATABASE_URL", database_url)
        .env("REDIS_URL", redis_url)
        .env("JWT_SECRET", "multi-instance-secret-multi-instance-secret")
        .env("SEED_DEMO", if seed { "1" } else { "0" })
        .env("DEMO_PASSWORD", DEMO_PASSWORD)
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start capopt serve");
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
    .expect("instance listening within 60 s");
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, base, dir)
}

async fn login_at(base: &str, email: &str) -> Session {
    use std::sync::Arc;
    let jar = Arc::new(reqwest::cookie::Jar::default());
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
    let r = s
        .post(
            "/api/auth/login",
            json!({"email": email, "password": DEMO_PASSWORD}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::OK);
    s
}

#[tokio::test]
#[ignore = "needs PostgreSQL and Redis: run by `make test-scale` with TEST_DATABASE_URL and TEST_REDIS_URL"]
async fn two_instances_relay_each_others_events_through_redis() {
    let redis_url = std::env::var("TEST_REDIS_URL").expect("TEST_REDIS_URL");
    assert!(
        std::env::var("TEST_DATABASE_URL").is_ok(),
        "TEST_DATABASE_URL must point at PostgreSQL"
    );
    let tmp = std::env::temp_dir();
    let db_url = fresh_database_url(&tmp).await.unwrap();
    let (mut inst_a, base_a, dir_a) = spawn_instance(&db_url, &redis_url, true).await;
    let (mut inst_b, base_b, dir_b) = spawn_instance(&db_url, &redis_url, false).await;

    let on_a = login_at(&base_a, USER_A).await;
    let on_b = login_at(&base_b, APPROVER).await;
    let bank_b_on_b = login_at(&base_b, USER_B).await;
    let (_, board) = on_a.json("/api/board").await;
    let bank_a = board["client_id"].as_str().unwrap().to_string();
    let col = board["columns"][0]["id"].as_str().unwrap().to_string();
    let (_, board_b) = bank_b_on_b.json("/api/board").await;
    let bank_b = board_b["client_id"].as_str().unwrap().to_string();

    let topic = format!("client:{bank_a}:board");
    let mut ws_b = Ws::connect(&on_b).await;
    let mut ws_a = Ws::connect(&on_a).await;
    let mut ws_other = Ws::connect(&bank_b_on_b).await;
    assert_eq!(ws_b.subscribe(&[&topic]).await[0]["type"], "subscribed");
    assert_eq!(ws_a.subscribe(&[&topic]).await[0]["type"], "subscribed");
    assert_eq!(ws_other.subscribe(&[&topic]).await[0]["type"], "denied");
    assert_eq!(
        ws_other
            .subscribe(&[&format!("client:{bank_b}:board")])
            .await[0]["type"],
        "subscribed"
    );

    // A change made on instance A reaches the subscriber on instance B, and the other way round,
    // each exactly once and in sequence.
    let r = on_a
        .post(
            "/api/board/tasks",
            json!({"column_id": col, "title": "Made on A"}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let seq_a: i64 = r.headers()["x-event-seq"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    let ev = ws_b
        .next_json(WAIT)
        .await
        .expect("instance B relays A's event");
    assert_eq!(
        (ev["seq"].as_i64(), ev["data"]["tasks"][0]["title"].as_str()),
        (Some(seq_a), Some("Made on A"))
    );
    let ev = ws_a.next_json(WAIT).await.unwrap();
    assert_eq!(ev["seq"].as_i64(), Some(seq_a));

    let r = on_b
        .post(
            "/api/board/tasks",
            json!({"column_id": col, "title": "Made on B"}),
        )
        .await;
    assert_eq!(r.status(), StatusCode::CREATED);
    let ev = ws_a
        .next_json(WAIT)
        .await
        .expect("instance A relays B's event");
    assert_eq!(
        (ev["seq"].as_i64(), ev["data"]["tasks"][0]["title"].as_str()),
        (Some(seq_a + 1), Some("Made on B"))
    );
    let ev = ws_b.next_json(WAIT).await.unwrap();
    assert_eq!(ev["seq"].as_i64(), Some(seq_a + 1));
    assert_eq!(ws_b.next_json(QUIET).await, None, "no duplicate");
    assert_eq!(
        ws_other.next_json(QUIET).await,
        None,
        "Bank B saw nothing of Bank A"
    );

    let _ = inst_a.kill().await;
    let _ = inst_b.kill().await;
    let _ = std::fs::remove_dir_all(dir_a);
    let _ = std::fs::remove_dir_all(dir_b);
}
