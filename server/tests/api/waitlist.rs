use reqwest::StatusCode;
use serde_json::json;

use crate::helpers::*;

#[tokio::test]
async fn waitlist_adds_once_and_reports_duplicates() {
    let app = TestApp::spawn().await;
    let s = app.client().await;
    let (st, b) = body(
        s.post(
            "/api/waitlist",
            json!({"email": "cfo@bank.example", "name": null, "source": "hero"}),
        )
        .await,
    )
    .await;
    assert_eq!(
        (st, b["code"].as_str(), b["success"].as_bool()),
        (StatusCode::OK, Some("OK"), Some(true))
    );
    let (st, b) = body(
        s.post(
            "/api/waitlist",
            json!({"email": "CFO@bank.example ", "name": "CFO", "source": "cta"}),
        )
        .await,
    )
    .await;
    assert_eq!(
        (st, b["code"].as_str(), b["success"].as_bool()),
        (StatusCode::OK, Some("ALREADY_REGISTERED"), Some(false))
    );
    let (st, b) = body(
        s.post(
            "/api/waitlist",
            json!({"email": "not an email", "name": null, "source": "hero"}),
        )
        .await,
    )
    .await;
    assert_eq!(
        (st, b["code"].as_str()),
        (StatusCode::UNPROCESSABLE_ENTITY, Some("INVALID_EMAIL"))
    );
    assert_eq!(b["message"], "Please enter a valid email address");
    let (st, _) = body(
        s.post(
            "/api/waitlist",
            json!({"email": "x@bank.example", "name": null, "source": "footer"}),
        )
        .await,
    )
    .await;
    assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY);
    let n: (i64,) = sqlx::query_as("SELECT COUNT(*) FROM waitlist")
        .fetch_one(&app.state.db.pool)
        .await
        .unwrap();
    assert_eq!(n.0, 1);
}

#[tokio::test]
async fn waitlist_is_rate_limited_per_address() {
    let app = TestApp::spawn().await;
    let s = app.client().await;
    let mut codes = vec![];
    for i in 0..7 {
        let (_, b) = body(
            s.post(
                "/api/waitlist",
                json!({"email": format!("p{i}@bank.example"), "name": null, "source": "hero"}),
            )
            .await,
        )
        .await;
        codes.push(b["code"].as_str().unwrap().to_string());
    }
    assert_eq!(&codes[..5], ["OK"; 5]);
    assert_eq!(codes[5], "RATE_LIMITED");
}
