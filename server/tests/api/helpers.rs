use std::sync::Arc;

use reqwest::cookie::{CookieStore, Jar};
use reqwest::{Client, Response, StatusCode};
use serde_json::{Value, json};
use server::config::Config;
use server::state::AppState;

pub(crate) const DEMO_PASSWORD: &str = "Demo-Password-1";
pub(crate) const ADMIN: &str = "admin@example.com";
pub(crate) const APPROVER: &str = "approver@example.com";
pub(crate) const USER_A: &str = "user@bank-a.example";
pub(crate) const USER_B: &str = "user@bank-b.example";
pub(crate) const VIEWER: &str = "viewer@example.com";

/// A running server with demo data.
pub(crate) struct TestApp {
    pub base: String,
    pub state: AppState,
    _dir: tempdir::TempDir,
}

pub(crate) mod tempdir {
    /// A directory removed on drop.
    pub(crate) struct TempDir(pub std::path::PathBuf);
    impl TempDir {
        pub(crate) fn new() -> TempDir {
            let p = std::env::temp_dir().join(format!("capopt-test-{}", uuid::Uuid::new_v4()));
            std::fs::create_dir_all(&p).unwrap();
            TempDir(p)
        }
    }
    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// A fresh database URL: a new SQLite file, or a new PostgreSQL database on `TEST_DATABASE_URL`.
pub(crate) async fn fresh_database_url(dir: &std::path::Path) -> Option<String> {
    let Ok(base) = std::env::var("TEST_DATABASE_URL") else {
        return None;
    };
    sqlx::any::install_default_drivers();
    let name = format!("capopt_test_{}", uuid::Uuid::new_v4().simple());
    let mut conn = <sqlx::AnyConnection as sqlx::Connection>::connect(&base)
        .await
        .expect("connect TEST_DATABASE_URL");
    sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut conn)
        .await
        .expect("create test database");
    let (prefix, _) = base.rsplit_once('/').expect("database URL with a path");
    let _ = dir;
    Some(format!("{prefix}/{name}"))
}

impl TestApp {
    /// Starts a server with demo data.
    pub(crate) async fn spawn() -> TestApp {
        TestApp::spawn_with(|_| {}).await
    }

    /// Starts a server with demo data and the test configuration changed by `change`.
    pub(crate) async fn spawn_with(change: impl FnOnce(&mut Config)) -> TestApp {
        let dir = tempdir::TempDir::new();
        let url = fresh_database_url(&dir.0).await;
        let mut config = Config::for_tests(dir.0.clone(), url);
        change(&mut config);
        let state = server::build_state(config).await.expect("state");
        server::seed::seed_demo(&state, DEMO_PASSWORD)
            .await
            .expect("seed");
        // Processing-run workers, as `serve` starts them (none with `run_concurrency` 0).
        server::jobs::start(&state);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let app = server::app(state.clone());
        tokio::spawn(async move {
            axum::serve(
                listener,
                app.into_make_service_with_connect_info::<std::net::SocketAddr>(),
            )
            .await
            .unwrap();
        });
        TestApp {
            base: format!("http://{addr}"),
            state,
            _dir: dir,
        }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// A browser-like client with its own cookie jar and the CSRF cookie already obtained.
    pub(crate) async fn client(&self) -> Session {
        let jar = Arc::new(Jar::default());
        let http = Client::builder()
            .cookie_provider(jar.clone())
            .build()
            .unwrap();
        let s = Session {
            http,
            jar,
            base: self.base.clone(),
        };
        let r = s.get("/api/health").await;
        assert_eq!(r.status(), StatusCode::OK);
        s
    }

    /// A client signed in as `email` with the demo password.
    pub(crate) async fn login(&self, email: &str) -> Session {
        let s = self.client().await;
        let r = s
            .post(
                "/api/auth/login",
                json!({"email": email, "password": DEMO_PASSWORD}),
            )
            .await;
        assert_eq!(r.status(), StatusCode::OK, "login {email}");
        s
    }

    /// The latest mail to an address, waited for (up to 5 s): some mail, such as the reset
    /// link, is written after the answer.
    pub(crate) async fn mail_to(&self, to: &str) -> String {
        for _ in 0..100 {
            if let Some(m) = self.last_mail_to(to).await {
                return m;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("no mail to {to}");
    }

    /// The latest mail sent to an address.
    pub(crate) async fn last_mail_to(&self, to: &str) -> Option<String> {
        let row: Option<(String,)> = sqlx::query_as(
            "SELECT body FROM outbox WHERE to_addr = $1 ORDER BY created_at DESC LIMIT 1",
        )
        .bind(to)
        .fetch_optional(&self.state.db.pool)
        .await
        .unwrap();
        row.map(|r| r.0)
    }
}

/// Extracts the token that follows `marker` in a mail body.
pub(crate) fn token_after(body: &str, marker: &str) -> String {
    let start = body.find(marker).expect("link in mail") + marker.len();
    body[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect()
}

/// A client session.
#[derive(Clone)]
pub(crate) struct Session {
    pub http: Client,
    pub jar: Arc<Jar>,
    pub base: String,
}

impl Session {
    pub(crate) fn cookie(&self, name: &str) -> Option<String> {
        let mut all = String::new();
        for path in ["/", "/api/auth/"] {
            let u: reqwest::Url = format!("{}{}", self.base, path).parse().unwrap();
            if let Some(h) = self.jar.cookies(&u) {
                all.push_str(h.to_str().unwrap());
                all.push_str("; ");
            }
        }
        all.split("; ")
            .filter_map(|kv| kv.split_once('='))
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.to_string())
    }

    pub(crate) async fn get(&self, path: &str) -> Response {
        self.http
            .get(format!("{}{}", self.base, path))
            .send()
            .await
            .unwrap()
    }

    pub(crate) async fn post(&self, path: &str, body: Value) -> Response {
        let csrf = self.cookie("capopt_csrf").unwrap_or_default();
        self.http
            .post(format!("{}{}", self.base, path))
            .header("x-csrf-token", csrf)
            .json(&body)
            .send()
            .await
            .unwrap()
    }

    pub(crate) async fn post_empty(&self, path: &str) -> Response {
        let csrf = self.cookie("capopt_csrf").unwrap_or_default();
        self.http
            .post(format!("{}{}", self.base, path))
            .header("x-csrf-token", csrf)
            .send()
            .await
            .unwrap()
    }

    pub(crate) async fn json(&self, path: &str) -> (StatusCode, Value) {
        let r = self.get(path).await;
        let s = r.status();
        (s, r.json().await.unwrap_or(Value::Null))
    }
}

/// Sends `method` to `path` as `s` with the CSRF header and an optional JSON body: the status
/// and the JSON answer.
pub(crate) async fn send(
    s: &Session,
    method: reqwest::Method,
    path: &str,
    payload: Option<Value>,
) -> (StatusCode, Value) {
    let csrf = s.cookie("capopt_csrf").unwrap_or_default();
    let mut req = s
        .http
        .request(method, format!("{}{}", s.base, path))
        .header("x-csrf-token", csrf);
    if let Some(b) = payload {
        req = req.json(&b);
    }
    body(req.send().await.unwrap()).await
}

/// Status and JSON body of a response.
pub(crate) async fn body(r: Response) -> (StatusCode, Value) {
    let s = r.status();
    (s, r.json().await.unwrap_or(Value::Null))
}

/// The text of a PDF, its pages joined, whitespace collapsed (read with pdf_oxide).
pub(crate) fn pdf_text(pdf: &[u8]) -> String {
    let doc = pdf_oxide::document::PdfDocument::from_bytes(pdf.to_vec()).expect("a PDF");
    let n = doc.page_count().unwrap();
    let text: Vec<String> = (0..n).map(|i| doc.extract_text(i).unwrap()).collect();
    text.join("\n")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Width and height of each page of a PDF, in points.
pub(crate) fn pdf_pages(pdf: &[u8]) -> Vec<(f32, f32)> {
    let doc = pdf_oxide::document::PdfDocument::from_bytes(pdf.to_vec()).expect("a PDF");
    (0..doc.page_count().unwrap())
        .map(|i| {
            let (x0, y0, x1, y1) = doc.get_page_media_box(i).unwrap();
            (x1 - x0, y1 - y0)
        })
        .collect()
}

/// The titles of a PDF's outline, depth first, with their levels (1 at the top).
pub(crate) fn pdf_outline(pdf: &[u8]) -> Vec<(usize, String)> {
    fn walk(
        items: &[pdf_oxide::outline::OutlineItem],
        level: usize,
        out: &mut Vec<(usize, String)>,
    ) {
        for i in items {
            out.push((level, i.title.clone()));
            walk(&i.children, level + 1, out);
        }
    }
    let doc = pdf_oxide::document::PdfDocument::from_bytes(pdf.to_vec()).expect("a PDF");
    let mut out = Vec::new();
    if let Ok(Some(items)) = doc.get_outline() {
        walk(&items, 1, &mut out);
    }
    out
}

/// The number of raster images over all pages of a PDF (read with pdf_oxide).
pub(crate) fn pdf_image_count(pdf: &[u8]) -> usize {
    let doc = pdf_oxide::document::PdfDocument::from_bytes(pdf.to_vec()).expect("a PDF");
    (0..doc.page_count().unwrap())
        .map(|i| doc.extract_images(i).map(|v| v.len()).unwrap_or(0))
        .sum()
}
