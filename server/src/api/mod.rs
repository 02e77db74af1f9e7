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
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::{CSRF_COOKIE, CSRF_HEADER};
use crate::error::{ApiError, ErrorBody};
use crate::state::AppState;

pub mod admin;
pub mod admin_clients;
pub mod admin_files;
pub mod admin_users;
pub mod auth;
pub mod board;
pub mod calculator;
pub mod classification;
pub mod clients;
pub mod collab_ws;
pub mod dashboard;
pub mod extract;
pub mod files;
pub mod insights;
pub mod invitations;
pub mod justifications;
pub mod knowledge;
pub mod lever_dictionary;
pub mod levers;
pub mod mappings;
pub mod profile;
pub mod qa;
pub mod report_assistant;
pub mod report_media;
pub mod report_templates;
pub mod report_versions;
pub mod reports;
pub mod runs;
pub mod support;
pub mod upload;
pub mod validations;
pub mod waitlist;

/// The parts of the OpenAPI description that are not routes (the routes come from the router
/// itself, see [`router`]).
#[derive(OpenApi)]
#[openapi(
    info(title = "Capital Optimization Portal API", version = "1"),
    components(schemas(ErrorBody))
)]
pub struct ApiDoc;

/// Every API route with its OpenAPI description, paths relative to `/api`. A route can only be
/// added here through `routes!`, so the description and the authorization matrix test
/// (`server/tests/api/matrix.rs`, which walks this description) cover every route.
pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(health))
        .merge(auth::router())
        .merge(invitations::router())
        .merge(waitlist::router())
        .merge(dashboard::router())
        .merge(admin::router())
        .merge(admin_clients::router())
        .merge(admin_users::router())
        .merge(admin_files::router())
        .merge(reports::router())
        .merge(report_media::router())
        .merge(report_templates::router())
        .merge(report_versions::router())
        .merge(report_assistant::router())
        .merge(justifications::router())
        .merge(runs::router())
        .merge(collab_ws::router())
        .merge(board::router())
        .merge(clients::router())
        .merge(files::router())
        .merge(levers::router())
        .merge(mappings::router())
        .merge(validations::router())
        .merge(classification::router())
        .merge(insights::router())
        .merge(calculator::router())
        .merge(support::router())
        .merge(lever_dictionary::router())
        .merge(knowledge::router())
        .merge(profile::router())
        .merge(qa::router())
        .merge(crate::realtime::ws::router())
}

/// The OpenAPI description of the API with its paths as served (under `/api`).
pub fn openapi() -> utoipa::openapi::OpenApi {
    let (_, mut doc) = routes().split_for_parts();
    doc.paths.paths = std::mem::take(&mut doc.paths.paths)
        .into_iter()
        .map(|(path, item)| (format!("/api{path}"), item))
        .collect();
    doc
}

/// All API routes (mounted under `/api`).
pub fn router(state: AppState) -> Router<AppState> {
    let (router, _) = routes().split_for_parts();
    let doc = std::sync::Arc::new(openapi());
    router
        .route(
            "/openapi.json",
            get(move || {
                let doc = doc.clone();
                async move { axum::Json((*doc).clone()) }
            }),
        )
        .fallback(|| async {
            ApiError::NotFound {
                code: "not_found",
                message: "No such endpoint".into(),
            }
        })
        .method_not_allowed_fallback(|| async {
            error_response(
                StatusCode::METHOD_NOT_ALLOWED,
                "method_not_allowed",
                "This endpoint does not accept this method",
            )
        })
        .layer(axum::middleware::from_fn_with_state(state, csrf_guard))
        .layer(axum::middleware::from_fn(json_errors))
}

fn error_response(status: StatusCode, code: &str, message: &str) -> Response {
    (
        status,
        axum::Json(ErrorBody {
            code: code.into(),
            message: message.into(),
        }),
    )
        .into_response()
}

/// The answer of a socket route called without the WebSocket upgrade: 401 to anonymous callers
/// (as any protected route), 426 to signed-in ones.
pub async fn not_an_upgrade(state: &AppState, headers: &axum::http::HeaderMap) -> Response {
    match crate::auth::authenticate(state, &CookieJar::from_headers(headers)).await {
        Ok(Some(_)) => error_response(
            StatusCode::UPGRADE_REQUIRED,
            "upgrade_required",
            "This endpoint only accepts WebSocket connections",
        ),
        Ok(None) => ApiError::Unauthenticated.into_response(),
        Err(e) => e.into_response(),
    }
}

/// Gives every error answer of the API the one `{code, message}` body, including the ones axum
/// produces itself (path and query-string rejections, an unsupported media type): a plain-text
/// error becomes JSON with a code for its status and its text as the message (server errors get
/// the generic message).
async fn json_errors(req: Request<Body>, next: Next) -> Response {
    let resp = next.run(req).await;
    let status = resp.status();
    let is_json = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return resp;
    }
    let (parts, body) = resp.into_parts();
    let text = axum::body::to_bytes(body, 16 * 1024)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_string())
        .unwrap_or_default();
    let code = match status {
        StatusCode::BAD_REQUEST => "bad_request",
        StatusCode::UNAUTHORIZED => "unauthenticated",
        StatusCode::FORBIDDEN => "forbidden",
        StatusCode::NOT_FOUND => "not_found",
        StatusCode::METHOD_NOT_ALLOWED => "method_not_allowed",
        StatusCode::CONFLICT => "conflict",
        StatusCode::PAYLOAD_TOO_LARGE => "too_large",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
        StatusCode::UNPROCESSABLE_ENTITY => "validation_failed",
        StatusCode::UPGRADE_REQUIRED => "upgrade_required",
        StatusCode::TOO_MANY_REQUESTS => "rate_limited",
        s if s.is_server_error() => "internal",
        _ => "error",
    };
    let message = if status.is_server_error() || text.is_empty() {
        status
            .canonical_reason()
            .unwrap_or("An unexpected error occurred. Please try again.")
            .to_string()
    } else {
        text
    };
    let mut out = error_response(status, code, &message);
    for (name, value) in parts.headers.iter() {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            out.headers_mut().append(name.clone(), value.clone());
        }
    }
    out
}

/// Health response.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct Health {
    /// Always "ok" when the server and its database answer.
    pub status: &'static str,
}

/// Liveness and database check.
#[utoipa::path(get, path = "/health", responses((status = 200, body = Health)))]
pub async fn health(State(state): State<AppState>) -> Result<axum::Json<Health>, ApiError> {
    crate::service::health(&state).await?;
    Ok(axum::Json(Health { status: "ok" }))
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
        let c = csrf_cookie(state.config.cookie_secure);
        if let Ok(v) = HeaderValue::from_str(&c.to_string()) {
            resp.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    resp
}

/// A fresh CSRF cookie (readable by the web app, which echoes it in `X-CSRF-Token`). Handed to
/// a client that has none, and replaced at sign-in so a token known before does not outlive it.
pub fn csrf_cookie(secure: bool) -> Cookie<'static> {
    Cookie::build((CSRF_COOKIE, crate::auth::tokens::random_token()))
        .path("/")
        .same_site(SameSite::Strict)
        .secure(secure)
        .http_only(false)
        .build()
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
