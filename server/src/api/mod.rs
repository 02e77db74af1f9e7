//! The REST API under `/api`: one module per area, one error body, CSRF protection for
//! state-changing requests, and an OpenAPI document generated from the handlers.

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum_extra::extract::cookie::{Cookie, CookieJar, SameSite};
use utoipa::OpenApi;

use crate::auth::{CSRF_COOKIE, CSRF_HEADER};
use crate::error::{ApiError, ErrorBody};
use crate::state::AppState;

pub mod admin;
pub mod auth;
pub mod board;
pub mod collab_ws;
pub mod dashboard;
pub mod extract;
pub mod invitations;
pub mod reports;
pub mod waitlist;

/// The OpenAPI description of the API, served at `/api/openapi.json`.
#[derive(OpenApi)]
#[openapi(
    info(title = "Capital Optimization Portal API", version = "1"),
    paths(
        health,
        auth::login,
        auth::refresh,
        auth::logout,
        auth::me,
        auth::forgot_password,
        auth::reset_password,
        auth::accept_terms,
        auth::change_password,
        invitations::create_invitation,
        invitations::get_invitation,
        invitations::accept_invitation,
        waitlist::join_waitlist,
        dashboard::get_metrics,
        admin::list_outbox,
        admin::set_user_role,
        reports::list_reports,
        reports::get_report,
        reports::create_report,
        reports::update_report,
        reports::delete_report,
        reports::get_draft_limit,
        reports::list_folders,
        reports::create_folder,
        reports::delete_folder,
        board::get_board,
        board::create_column,
        board::rename_column,
        board::move_column,
        board::create_task,
        board::update_task,
        board::delete_task,
        board::move_task,
        board::create_category,
        board::delete_category,
    ),
    components(schemas(ErrorBody))
)]
pub struct ApiDoc;

/// All API routes (mounted under `/api`).
pub fn router(state: AppState) -> Router<AppState> {
    Router::new()
        .route("/health", get(health))
        .route("/openapi.json", get(openapi))
        .merge(auth::router())
        .merge(invitations::router())
        .merge(waitlist::router())
        .merge(dashboard::router())
        .merge(admin::router())
        .merge(reports::router())
        .merge(collab_ws::router())
        .merge(board::router())
        .merge(crate::realtime::ws::router())
        .fallback(|| async {
            ApiError::NotFound {
                code: "not_found",
                message: "No such endpoint".into(),
            }
        })
        .layer(axum::middleware::from_fn_with_state(state, csrf_guard))
}

/// Health response.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct Health {
    /// Always "ok" when the server and its database answer.
    pub status: &'static str,
}

/// Liveness and database check.
#[utoipa::path(get, path = "/api/health", responses((status = 200, body = Health)))]
pub async fn health(State(state): State<AppState>) -> Result<axum::Json<Health>, ApiError> {
    state.db.ping().await?;
    Ok(axum::Json(Health { status: "ok" }))
}

async fn openapi() -> impl IntoResponse {
    axum::Json(ApiDoc::openapi())
}

/// A simple address check: one `@`, a non-empty local part, a dotted domain, no spaces.
pub fn valid_email(s: &str) -> bool {
    let s = s.trim();
    if s.len() > 254 || s.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return false;
    }
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && !domain.contains('@')
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !domain.contains("..")
}

/// Whether a request's Origin (when present) is this server or an allowed origin.
pub fn origin_allowed(state: &AppState, headers: &axum::http::HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
        return true;
    };
    if state
        .config
        .allowed_origins
        .iter()
        .any(|o| o.trim_end_matches('/') == origin)
    {
        return true;
    }
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"))
        .is_some_and(|h| h == host)
}

/// CSRF protection (double-submit token plus Origin check) for every state-changing request; also
/// hands out the CSRF cookie to any client that lacks one.
async fn csrf_guard(State(state): State<AppState>, req: Request<Body>, next: Next) -> Response {
    let jar = CookieJar::from_headers(req.headers());
    let cookie_token = jar.get(CSRF_COOKIE).map(|c| c.value().to_owned());
    let unsafe_method = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if unsafe_method {
        if !origin_allowed(&state, req.headers()) {
            return ApiError::Forbidden("Cross-site request refused".into()).into_response();
        }
        let header_token = req.headers().get(CSRF_HEADER).and_then(|v| v.to_str().ok());
        let ok = matches!((&cookie_token, header_token), (Some(c), Some(h)) if !c.is_empty() && constant_eq(c.as_bytes(), h.as_bytes()));
        if !ok {
            return (
                StatusCode::FORBIDDEN,
                axum::Json(ErrorBody {
                    code: "csrf_failed".into(),
                    message: "Missing or invalid CSRF token. Reload the page and try again.".into(),
                }),
            )
                .into_response();
        }
    }
    let mut resp = next.run(req).await;
    if cookie_token.is_none() {
        let c = Cookie::build((CSRF_COOKIE, crate::auth::tokens::random_token()))
            .path("/")
            .same_site(SameSite::Strict)
            .secure(state.config.cookie_secure)
            .http_only(false)
            .build();
        if let Ok(v) = HeaderValue::from_str(&c.to_string()) {
            resp.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    resp
}

fn constant_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::valid_email;

    #[test]
    fn email_check() {
        assert!(valid_email("a@b.co"));
        assert!(!valid_email("a@b"));
        assert!(!valid_email("a b@c.de"));
        assert!(!valid_email("@c.de"));
        assert!(!valid_email("a@@c.de"));
    }
}
