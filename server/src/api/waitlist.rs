//! The landing page's waitlist.

use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::ClientIp;
use crate::error::{ApiResult, AppJson};
use crate::service::waitlist::{self as service, Joined};
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(join_waitlist))
}

/// Waitlist sign-up.
#[derive(Debug, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct WaitlistRequest {
    /// Email.
    pub email: String,
    /// Optional name.
    pub name: Option<String>,
    /// Which form: hero or cta.
    pub source: String,
}

/// Outcome codes.
#[derive(Debug, Clone, Copy, Serialize, utoipa::ToSchema, ts_rs::TS, PartialEq, Eq)]
#[ts(export)]
pub enum WaitlistCode {
    /// Added.
    #[serde(rename = "OK")]
    Ok,
    /// Already on the list.
    #[serde(rename = "ALREADY_REGISTERED")]
    AlreadyRegistered,
    /// Too many requests.
    #[serde(rename = "RATE_LIMITED")]
    RateLimited,
    /// Not an email address, or an unknown source.
    #[serde(rename = "INVALID_EMAIL")]
    InvalidEmail,
}

/// Waitlist outcome (the body is the same shape for every status).
#[derive(Debug, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct WaitlistResponse {
    /// Whether the address was added.
    pub success: bool,
    /// Message for the toast.
    pub message: String,
    /// Outcome code.
    pub code: WaitlistCode,
}

fn reply(
    status: StatusCode,
    success: bool,
    code: WaitlistCode,
    message: &str,
) -> (StatusCode, axum::Json<WaitlistResponse>) {
    (
        status,
        axum::Json(WaitlistResponse {
            success,
            code,
            message: message.into(),
        }),
    )
}

/// Adds an address to the waitlist.
#[utoipa::path(post, path = "/waitlist", request_body = WaitlistRequest,
    responses((status = 200, body = WaitlistResponse), (status = 422, body = WaitlistResponse), (status = 429, body = WaitlistResponse)))]
pub async fn join_waitlist(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    AppJson(req): AppJson<WaitlistRequest>,
) -> ApiResult<(StatusCode, axum::Json<WaitlistResponse>)> {
    let joined = service::join(&state, &req.email, req.name.as_deref(), &req.source, &ip).await?;
    Ok(match joined {
        Joined::Added => reply(
            StatusCode::OK,
            true,
            WaitlistCode::Ok,
            "You're on the list! We'll be in touch soon.",
        ),
        Joined::AlreadyRegistered => reply(
            StatusCode::OK,
            false,
            WaitlistCode::AlreadyRegistered,
            "This email is already on the waitlist.",
        ),
        Joined::InvalidEmail => reply(
            StatusCode::UNPROCESSABLE_ENTITY,
            false,
            WaitlistCode::InvalidEmail,
            "Please enter a valid email address",
        ),
        Joined::UnknownForm => reply(
            StatusCode::UNPROCESSABLE_ENTITY,
            false,
            WaitlistCode::InvalidEmail,
            "Unknown waitlist form",
        ),
        Joined::RateLimited => reply(
            StatusCode::TOO_MANY_REQUESTS,
            false,
            WaitlistCode::RateLimited,
            "Too many requests. Please try again in a few minutes.",
        ),
    })
}
