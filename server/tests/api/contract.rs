//! The API's contract: one `{code, message}` body for every error (including the ones axum makes
//! itself) and an OpenAPI description that lists every route, the sockets included.

use reqwest::StatusCode;
use serde_json::Value;

use crate::helpers::*;

async fn error_of(r: reqwest::Response) -> (StatusCode, Value) {
    let st = r.status();
    let ct = r
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let text = r.text().await.unwrap();
    assert!(ct.starts_with("application/json"), "{st} {ct}: {text}");
    let v: Value = serde_json::from_str(&text).unwrap();
    assert!(
        v["code"].is_string() && v["message"].is_string(),
        "{st}: {v}"
    );
    (st, v)
}

#[tokio::test]
async fn every_error_has_the_one_body() {
    let app = TestApp::spawn().await;
    let a = app.login(USER_A).await;
    // A method the route does not serve.
    let csrf = a.cookie("capopt_csrf").unwrap();
    let r = a
        .http
        .delete(app.url("/api/auth/me"))
        .header("x-csrf-token", &csrf)
        .send()
        .await
        .unwrap();
    let (st, v) = error_of(r).await;
    assert_eq!(
        (st, v["code"].as_str()),
        (StatusCode::METHOD_NOT_ALLOWED, Some("method_not_allowed"))
    );
    // A query string the route cannot read.
    let (st, v) = error_of(a.get("/api/board?client_id=a&client_id=b").await).await;
    assert_eq!(
        (st, v["code"].as_str()),
        (StatusCode::BAD_REQUEST, Some("invalid_query"))
    );
    // No such endpoint.
    let (st, v) = error_of(a.get("/api/nothing-here").await).await;
    assert_eq!(
        (st, v["code"].as_str()),
        (StatusCode::NOT_FOUND, Some("not_found"))
    );
    // A socket route without the upgrade: 426 signed in, 401 anonymous.
    let (st, v) = error_of(a.get("/api/ws").await).await;
    assert_eq!(
        (st, v["code"].as_str()),
        (StatusCode::UPGRADE_REQUIRED, Some("upgrade_required"))
    );
    let anon = app.client().await;
    let (st, _) = error_of(anon.get("/api/collab/some-report").await).await;
    assert_eq!(st, StatusCode::UNAUTHORIZED);
    // A body that is not JSON.
    let r = a
        .http
        .post(app.url("/api/board/columns"))
        .header("x-csrf-token", &csrf)
        .body("name=x")
        .send()
        .await
        .unwrap();
    let (st, _) = error_of(r).await;
    assert!(st.is_client_error(), "{st}");
}

#[tokio::test]
async fn the_openapi_description_comes_from_the_router() {
    let app = TestApp::spawn().await;
    let (st, doc) = app.client().await.json("/api/openapi.json").await;
    assert_eq!(st, StatusCode::OK);
    let paths = doc["paths"].as_object().unwrap();
    for p in [
        "/api/ws",
        "/api/collab/{report_id}",
        "/api/board/tasks/{id}/move",
        "/api/reports/{report_id}",
        "/api/clients",
    ] {
        assert!(paths.contains_key(p), "{p} missing from {:?}", paths.keys());
    }
    assert!(paths["/api/board/tasks/{id}"]["put"].is_object());
    assert!(paths["/api/board/tasks/{id}"]["delete"].is_object());
}
