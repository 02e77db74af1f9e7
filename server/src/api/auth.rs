//! Sign-in, session refresh and sign-out, the current user, password reset, terms and the
//! password-age change.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum_extra::extract::cookie::{CookieJar, SameSite};
use serde::{Deserialize, Serialize};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::tokens;
use crate::auth::{self, AuthUser, ClientIp, Role};
use crate::error::{ApiResult, AppJson};
use crate::ids::UserId;
use crate::service::Actor;
use crate::service::auth::{self as service, SessionTokens};
use crate::state::AppState;

/// Routes under `/api/auth`.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(login))
        .routes(routes!(refresh))
        .routes(routes!(logout))
        .routes(routes!(me))
        .routes(routes!(session))
        .routes(routes!(forgot_password))
        .routes(routes!(reset_password))
        .routes(routes!(accept_terms))
        .routes(routes!(change_password))
}

/// A client the user belongs to.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct ClientRef {
    /// Id.
    pub id: String,
    /// Name.
    pub name: String,
}

/// The signed-in user as the web app sees it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct Me {
    /// Id.
    pub id: UserId,
    /// Email.
    pub email: String,
    /// First name.
    pub name: String,
    /// Last name.
    pub last_name: String,
    /// Role in force.
    pub role: Role,
    /// Company.
    pub company: Option<String>,
    /// The client the client screens work on (the user's first client), if any.
    pub client: Option<ClientRef>,
    /// When the terms were accepted.
    pub terms_accepted_at: Option<String>,
    /// When the password was last changed.
    pub password_changed_at: Option<String>,
    /// The blocking terms dialog must show.
    pub requires_terms: bool,
    /// The password is older than one year: the blocking password dialog must show.
    pub requires_password_change: bool,
}

/// Loads the [`Me`] view of a user.
pub async fn load_me(state: &AppState, user_id: &str) -> ApiResult<Me> {
    let p = service::profile(state, user_id).await?;
    let u = p.user;
    Ok(Me {
        id: u.id.into(),
        email: u.email,
        name: u.name,
        last_name: u.last_name,
        role: Role::parse(&u.role),
        company: u.company,
        client: p.clients.into_iter().next().map(|m| ClientRef {
            id: m.client_id,
            name: m.client_name,
        }),
        requires_terms: u.terms_accepted_at.is_none(),
        terms_accepted_at: u.terms_accepted_at,
        password_changed_at: u.password_changed_at,
        requires_password_change: p.requires_password_change,
    })
}

/// Login request.
#[derive(Debug, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct LoginRequest {
    /// Email.
    pub email: String,
    /// Password.
    pub password: String,
}

/// Login and refresh response.
#[derive(Debug, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct SessionResponse {
    /// The signed-in user.
    pub user: Me,
}

/// Sets the access and refresh cookies of a session.
fn with_session_cookies(state: &AppState, jar: CookieJar, tokens: SessionTokens) -> CookieJar {
    let secure = state.config.cookie_secure;
    let jar = jar.add(auth::session_cookie(
        auth::ACCESS_COOKIE,
        tokens.access,
        "/",
        tokens::ACCESS_TTL_SECS,
        secure,
        SameSite::Lax,
    ));
    match tokens.refresh {
        Some(r) => jar.add(auth::session_cookie(
            auth::REFRESH_COOKIE,
            r,
            "/api/auth",
            tokens::REFRESH_TTL_SECS,
            secure,
            SameSite::Strict,
        )),
        None => jar,
    }
}

/// Signs in with email and password.
#[utoipa::path(post, path = "/auth/login", request_body = LoginRequest,
    responses((status = 200, body = SessionResponse), (status = 401, body = crate::error::ErrorBody), (status = 429, body = crate::error::ErrorBody)))]
pub async fn login(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    headers: axum::http::HeaderMap,
    jar: CookieJar,
    AppJson(req): AppJson<LoginRequest>,
) -> ApiResult<impl IntoResponse> {
    let ua = headers
        .get(axum::http::header::USER_AGENT)
        .and_then(|v| v.to_str().ok());
    let tokens = service::login(&state, &req.email, &req.password, &ip, ua).await?;
    let user_id = tokens.user_id.clone();
    let jar = with_session_cookies(&state, jar, tokens);
    // A new CSRF token with the new session.
    let jar = jar.add(crate::api::csrf_cookie(state.config.cookie_secure));
    let me = load_me(&state, &user_id).await?;
    Ok((jar, axum::Json(SessionResponse { user: me })))
}

/// Rotates the refresh token and issues a new access token.
#[utoipa::path(post, path = "/auth/refresh", responses((status = 200, body = SessionResponse), (status = 401, body = crate::error::ErrorBody)))]
pub async fn refresh(
    State(state): State<AppState>,
    jar: CookieJar,
) -> ApiResult<impl IntoResponse> {
    let presented = jar.get(auth::REFRESH_COOKIE).map(|c| c.value().to_owned());
    let tokens = service::refresh(&state, presented.as_deref()).await?;
    let me = load_me(&state, &tokens.user_id).await?;
    Ok((
        with_session_cookies(&state, jar, tokens),
        axum::Json(SessionResponse { user: me }),
    ))
}

/// Signs out: revokes the session and its refresh tokens and clears the cookies.
#[utoipa::path(post, path = "/auth/logout", responses((status = 204)))]
pub async fn logout(State(state): State<AppState>, jar: CookieJar) -> ApiResult<impl IntoResponse> {
    let caller = auth::authenticate(&state, &jar).await?;
    let refresh = jar.get(auth::REFRESH_COOKIE).map(|c| c.value().to_owned());
    service::logout(&state, caller.as_ref(), refresh.as_deref()).await?;
    let jar = jar
        .add(auth::removal_cookie(auth::ACCESS_COOKIE, "/"))
        .add(auth::removal_cookie(auth::REFRESH_COOKIE, "/api/auth"));
    Ok((jar, StatusCode::NO_CONTENT))
}

/// The signed-in user (session restore on page load).
#[utoipa::path(get, path = "/auth/me", responses((status = 200, body = Me), (status = 401, body = crate::error::ErrorBody)))]
pub async fn me(State(state): State<AppState>, user: AuthUser) -> ApiResult<axum::Json<Me>> {
    Ok(axum::Json(load_me(&state, &user.id).await?))
}

/// Whether the browser has a session, and whose.
#[derive(Debug, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct SessionState {
    /// The signed-in user, or none.
    pub user: Option<Me>,
}

/// The session of this browser, restored on page load without an error when there is none: the
/// access cookie's user, else the refresh cookie's (rotated, with new cookies), else no user.
#[utoipa::path(get, path = "/auth/session", responses((status = 200, body = SessionState)))]
pub async fn session(
    State(state): State<AppState>,
    jar: CookieJar,
) -> ApiResult<(CookieJar, axum::Json<SessionState>)> {
    if let Some(user) = auth::authenticate(&state, &jar).await? {
        let me = load_me(&state, &user.id).await?;
        return Ok((jar, axum::Json(SessionState { user: Some(me) })));
    }
    let presented = jar.get(auth::REFRESH_COOKIE).map(|c| c.value().to_owned());
    if presented.is_some() {
        match service::refresh(&state, presented.as_deref()).await {
            Ok(tokens) => {
                let me = load_me(&state, &tokens.user_id).await?;
                let jar = with_session_cookies(&state, jar, tokens);
                return Ok((jar, axum::Json(SessionState { user: Some(me) })));
            }
            Err(crate::error::ApiError::Unauthenticated) => {}
            Err(e) => return Err(e),
        }
    }
    Ok((jar, axum::Json(SessionState { user: None })))
}

/// Forgot-password request.
#[derive(Debug, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct ForgotPasswordRequest {
    /// Email.
    pub email: String,
}

/// A plain message response.
#[derive(Debug, Serialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct MessageResponse {
    /// Message.
    pub message: String,
}

/// Sends a single-use reset link if the account exists; the answer never tells.
#[utoipa::path(post, path = "/auth/forgot-password", request_body = ForgotPasswordRequest, responses((status = 202, body = MessageResponse)))]
pub async fn forgot_password(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    AppJson(req): AppJson<ForgotPasswordRequest>,
) -> ApiResult<impl IntoResponse> {
    service::forgot_password(&state, &req.email, &ip).await?;
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(MessageResponse {
            message: "If an account exists for this address, a reset link has been sent.".into(),
        }),
    ))
}

/// Reset-password request.
#[derive(Debug, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct ResetPasswordRequest {
    /// The token from the link.
    pub token: String,
    /// The new password.
    pub password: String,
}

/// Sets a new password with a reset token (single use, expiring); ends every session of the user.
#[utoipa::path(post, path = "/auth/reset-password", request_body = ResetPasswordRequest,
    responses((status = 204), (status = 400, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn reset_password(
    State(state): State<AppState>,
    ClientIp(ip): ClientIp,
    AppJson(req): AppJson<ResetPasswordRequest>,
) -> ApiResult<StatusCode> {
    service::reset_password(&state, &req.token, &req.password, &ip).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Accepts the terms of use.
#[utoipa::path(post, path = "/auth/accept-terms", responses((status = 200, body = Me)))]
pub async fn accept_terms(
    State(state): State<AppState>,
    Actor { user, ip }: Actor,
) -> ApiResult<axum::Json<Me>> {
    service::accept_terms(&state, &user, &ip).await?;
    Ok(axum::Json(load_me(&state, &user.id).await?))
}

/// Password change from the password-age dialog.
#[derive(Debug, Deserialize, utoipa::ToSchema, ts_rs::TS)]
#[ts(export)]
pub struct ChangePasswordRequest {
    /// The current password.
    pub current_password: String,
    /// The new password.
    pub new_password: String,
}

/// Changes the signed-in user's password (the current one is verified; the new one follows the
/// rules of reset and invitation); ends the user's other sessions. Rate-limited per user.
#[utoipa::path(post, path = "/auth/change-password", request_body = ChangePasswordRequest,
    responses((status = 204), (status = 400, body = crate::error::ErrorBody), (status = 422, body = crate::error::ErrorBody)))]
pub async fn change_password(
    State(state): State<AppState>,
    Actor { user, ip }: Actor,
    AppJson(req): AppJson<ChangePasswordRequest>,
) -> ApiResult<StatusCode> {
    service::change_password(&state, &user, &req.current_password, &req.new_password, &ip).await?;
    Ok(StatusCode::NO_CONTENT)
}
