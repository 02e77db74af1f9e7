//! Sign-in, session refresh and sign-out, the current user, password reset, terms and the
//! password-age change.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum_extra::extract::cookie::{CookieJar, SameSite};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::tokens::{self, hash_token, random_token};
use crate::auth::{self, AuthUser, ClientIp, Role, password};
use crate::db::misc::AuditEvent;
use crate::db::{self, sessions, users};
use crate::error::{ApiError, ApiResult, AppJson};
use crate::state::AppState;

/// Routes under `/api/auth`.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(login))
        .routes(routes!(refresh))
        .routes(routes!(logout))
        .routes(routes!(me))
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
    pub id: String,
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
    let u = users::by_id(&state.db.pool, user_id)
        .await?
        .ok_or(ApiError::Unauthenticated)?;
    let clients = users::client_memberships(&state.db.pool, user_id).await?;
    let year_ago = chrono::Utc::now() - chrono::Duration::days(365);
    // A missing password_changed_at counts as now (spec 000 section 4).
    let requires_password_change = u
        .password_changed_at
        .as_deref()
        .and_then(db::parse_ts)
        .is_some_and(|t| t < year_ago);
    Ok(Me {
        id: u.id,
        email: u.email,
        name: u.name,
        last_name: u.last_name,
        role: Role::parse(&u.role),
        company: u.company,
        client: clients.into_iter().next().map(|m| ClientRef {
            id: m.client_id,
            name: m.client_name,
        }),
        requires_terms: u.terms_accepted_at.is_none(),
        terms_accepted_at: u.terms_accepted_at,
        password_changed_at: u.password_changed_at,
        requires_password_change,
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
fn with_session_cookies(
    state: &AppState,
    jar: CookieJar,
    access: String,
    refresh: Option<String>,
) -> CookieJar {
    let secure = state.config.cookie_secure;
    let jar = jar.add(auth::session_cookie(
        auth::ACCESS_COOKIE,
        access,
        "/",
        tokens::ACCESS_TTL_SECS,
        secure,
        SameSite::Lax,
    ));
    match refresh {
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

fn in_secs(secs: i64) -> String {
    db::ts(chrono::Utc::now() + chrono::Duration::seconds(secs))
}

/// Opens a session for a user: session row, refresh token, cookies.
pub async fn open_session(
    state: &AppState,
    jar: CookieJar,
    user_id: &str,
    ip: &str,
    ua: Option<&str>,
) -> ApiResult<CookieJar> {
    let session_id = db::new_id();
    let refresh = random_token();
    let mut tx = state.db.pool.begin().await?;
    sessions::create_session(&mut *tx, &session_id, user_id, Some(ip), ua).await?;
    sessions::insert_refresh(
        &mut *tx,
        &db::new_id(),
        user_id,
        &session_id,
        &hash_token(&refresh),
        &in_secs(tokens::REFRESH_TTL_SECS),
    )
    .await?;
    tx.commit().await?;
    let access = state.keys.access_token(user_id, &session_id)?;
    Ok(with_session_cookies(state, jar, access, Some(refresh)))
}

fn invalid_credentials() -> ApiError {
    ApiError::Unauthorized {
        code: "invalid_credentials",
        message: "Invalid credentials".into(),
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
    let email = req.email.trim().to_lowercase();
    if !crate::api::valid_email(&email) {
        return Err(ApiError::validation("Invalid email address"));
    }
    // Failures of this account from this address make the attempt wait its turn (a correct
    // password then passes); only a flood of guesses is refused.
    if let Err(refused) = state.limits.login(&email, &ip).await {
        crate::audit::record(
            &state,
            AuditEvent {
                event_type: "login_rate_limited",
                entity_type: "user",
                entity_id: None,
                actor_id: None,
                details: json!({"email": email}),
                severity: "warning",
                ip: Some(&ip),
            },
        )
        .await;
        let wait = refused.retry_after.as_secs().max(1);
        return Err(ApiError::RateLimited(format!(
            "Too many login attempts. Please wait {} and try again.",
            if wait < 90 {
                format!("{wait} seconds")
            } else {
                format!("{} minutes", wait.div_ceil(60))
            }
        )));
    }
    let user = users::by_email(&state.db.pool, &email).await?;
    let hash = user.as_ref().and_then(|u| u.password_hash.clone());
    let ok = password::verify(
        &req.password,
        hash.as_deref().unwrap_or(password::dummy_hash()),
    )
    .await
        && hash.is_some();
    let Some(user) = user.filter(|_| ok) else {
        state.limits.login_failed(&email, &ip);
        crate::audit::record(
            &state,
            AuditEvent {
                event_type: "login_failed",
                entity_type: "user",
                entity_id: None,
                actor_id: None,
                details: json!({"email": email}),
                severity: "warning",
                ip: Some(&ip),
            },
        )
        .await;
        return Err(invalid_credentials());
    };
    state.limits.login_succeeded(&email, &ip);
    let ua = headers
        .get(axum::http::header::USER_AGENT)
        .and_then(|v| v.to_str().ok());
    let jar = open_session(&state, jar, &user.id, &ip, ua).await?;
    // A new CSRF token with the new session.
    let jar = jar.add(crate::api::csrf_cookie(state.config.cookie_secure));
    crate::audit::record(
        &state,
        AuditEvent {
            event_type: "login",
            entity_type: "user",
            entity_id: Some(&user.id),
            actor_id: Some(&user.id),
            details: json!({}),
            severity: "info",
            ip: Some(&ip),
        },
    )
    .await;
    let me = load_me(&state, &user.id).await?;
    Ok((jar, axum::Json(SessionResponse { user: me })))
}

/// Rotates the refresh token and issues a new access token.
#[utoipa::path(post, path = "/auth/refresh", responses((status = 200, body = SessionResponse), (status = 401, body = crate::error::ErrorBody)))]
pub async fn refresh(
    State(state): State<AppState>,
    jar: CookieJar,
) -> ApiResult<impl IntoResponse> {
    let Some(presented) = jar.get(auth::REFRESH_COOKIE).map(|c| c.value().to_owned()) else {
        return Err(ApiError::Unauthenticated);
    };
    let Some(row) = sessions::refresh_by_hash(&state.db.pool, &hash_token(&presented)).await?
    else {
        return Err(ApiError::Unauthenticated);
    };
    if db::parse_ts(&row.expires_at).is_none_or(|t| t < chrono::Utc::now())
        || !sessions::session_active(&state.db.pool, &row.session_id).await?
    {
        return Err(ApiError::Unauthenticated);
    }
    if let Some(revoked) = row.revoked_at.as_deref() {
        // A rotated token presented again: benign right after rotation (two tabs refreshing at
        // once; the browser already holds the new cookie), otherwise a stolen token: end the session.
        let recent = db::parse_ts(revoked).is_some_and(|t| {
            chrono::Utc::now() - t < chrono::Duration::seconds(tokens::REFRESH_GRACE_SECS)
        });
        if !recent {
            sessions::revoke_session(&state.db.pool, &row.session_id).await?;
            crate::audit::record(
                &state,
                AuditEvent {
                    event_type: "refresh_token_reuse",
                    entity_type: "session",
                    entity_id: Some(&row.session_id),
                    actor_id: Some(&row.user_id),
                    details: json!({}),
                    severity: "critical",
                    ip: None,
                },
            )
            .await;
            return Err(ApiError::Unauthenticated);
        }
        let access = state.keys.access_token(&row.user_id, &row.session_id)?;
        let me = load_me(&state, &row.user_id).await?;
        return Ok((
            with_session_cookies(&state, jar, access, None),
            axum::Json(SessionResponse { user: me }),
        ));
    }
    let new_refresh = random_token();
    let new_id = db::new_id();
    let mut tx = state.db.pool.begin().await?;
    if !sessions::rotate_refresh(&mut *tx, &row.id, &new_id).await? {
        return Err(ApiError::Unauthenticated);
    }
    sessions::insert_refresh(
        &mut *tx,
        &new_id,
        &row.user_id,
        &row.session_id,
        &hash_token(&new_refresh),
        &in_secs(tokens::REFRESH_TTL_SECS),
    )
    .await?;
    tx.commit().await?;
    let access = state.keys.access_token(&row.user_id, &row.session_id)?;
    let me = load_me(&state, &row.user_id).await?;
    Ok((
        with_session_cookies(&state, jar, access, Some(new_refresh)),
        axum::Json(SessionResponse { user: me }),
    ))
}

/// Signs out: revokes the session and its refresh tokens and clears the cookies.
#[utoipa::path(post, path = "/auth/logout", responses((status = 204)))]
pub async fn logout(State(state): State<AppState>, jar: CookieJar) -> ApiResult<impl IntoResponse> {
    if let Some(user) = auth::authenticate(&state, &jar).await? {
        sessions::revoke_session(&state.db.pool, &user.session_id).await?;
        state.recheck_user(&user.id).await;
    } else if let Some(r) = jar.get(auth::REFRESH_COOKIE).map(|c| c.value().to_owned())
        && let Some(row) = sessions::refresh_by_hash(&state.db.pool, &hash_token(&r)).await?
    {
        sessions::revoke_session(&state.db.pool, &row.session_id).await?;
        state.recheck_user(&row.user_id).await;
    }
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
    let email = req.email.trim().to_lowercase();
    if !crate::api::valid_email(&email) {
        return Err(ApiError::validation("Please enter a valid email address"));
    }
    if !state.limits.mail(&ip) {
        return Err(ApiError::RateLimited(
            "Too many requests. Please try again later.".into(),
        ));
    }
    // The lookup, the reset row and the mail happen after the answer, so that it takes the same
    // time whether or not the address has an account.
    let state2 = state.clone();
    tokio::spawn(async move {
        if let Err(e) = send_reset_link(&state2, &email).await {
            tracing::warn!(error = %e, "password reset mail failed");
        }
    });
    Ok((
        StatusCode::ACCEPTED,
        axum::Json(MessageResponse {
            message: "If an account exists for this address, a reset link has been sent.".into(),
        }),
    ))
}

/// Writes a reset token and mails its link when `email` has an account.
async fn send_reset_link(state: &AppState, email: &str) -> ApiResult<()> {
    if let Some(user) = users::by_email(&state.db.pool, email).await? {
        let token = random_token();
        sessions::insert_reset(
            &state.db.pool,
            &user.id,
            &hash_token(&token),
            &in_secs(tokens::RESET_TTL_SECS),
        )
        .await?;
        let link = format!(
            "{}/reset-password?token={}",
            state.config.public_url(),
            token
        );
        let body = format!(
            "Hello {},\n\nA password reset was requested for your account. Open this link within one hour to choose a new password:\n\n{link}\n\nThe link works once. If you did not ask for it, ignore this message.\n",
            if user.name.is_empty() {
                &user.email
            } else {
                &user.name
            }
        );
        state
            .mailer
            .send(&state.db, &user.email, "Reset your password", &body)
            .await?;
    }
    Ok(())
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
    AppJson(req): AppJson<ResetPasswordRequest>,
) -> ApiResult<StatusCode> {
    password::check_strong(&req.password)?;
    let hash = password::hash(&req.password).await?;
    let mut tx = state.db.pool.begin().await?;
    let Some(user_id) = sessions::consume_reset(&mut *tx, &hash_token(req.token.trim())).await?
    else {
        return Err(ApiError::bad_request(
            "invalid_token",
            "Invalid or expired reset link",
        ));
    };
    users::set_password(&mut *tx, &user_id, &hash).await?;
    tx.commit().await?;
    sessions::revoke_user_sessions(&state.db.pool, &user_id).await?;
    state.recheck_user(&user_id).await;
    crate::audit::record(
        &state,
        AuditEvent {
            event_type: "password_reset",
            entity_type: "user",
            entity_id: Some(&user_id),
            actor_id: Some(&user_id),
            details: json!({}),
            severity: "info",
            ip: None,
        },
    )
    .await;
    Ok(StatusCode::NO_CONTENT)
}

/// Accepts the terms of use.
#[utoipa::path(post, path = "/auth/accept-terms", responses((status = 200, body = Me)))]
pub async fn accept_terms(
    State(state): State<AppState>,
    user: AuthUser,
) -> ApiResult<axum::Json<Me>> {
    users::accept_terms(&state.db.pool, &user.id).await?;
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
    user: AuthUser,
    AppJson(req): AppJson<ChangePasswordRequest>,
) -> ApiResult<StatusCode> {
    if req.current_password.is_empty() {
        return Err(ApiError::validation("Current password is required"));
    }
    // One password policy: the rules of reset and invitation.
    password::check_strong(&req.new_password)?;
    if !state.limits.password_change(&user.id) {
        return Err(ApiError::RateLimited(
            "Too many password change attempts. Please wait a few minutes and try again.".into(),
        ));
    }
    let row = users::by_id(&state.db.pool, &user.id)
        .await?
        .ok_or(ApiError::Unauthenticated)?;
    let ok = match row.password_hash.as_deref() {
        Some(h) => password::verify(&req.current_password, h).await,
        None => false,
    };
    if !ok {
        return Err(ApiError::bad_request(
            "wrong_password",
            "Current password is incorrect",
        ));
    }
    let hash = password::hash(&req.new_password).await?;
    users::set_password(&state.db.pool, &user.id, &hash).await?;
    // Whoever else holds a session of this account (a stolen one, say) is signed out, and their
    // open sockets closed, at once; this session goes on.
    sessions::revoke_other_sessions(&state.db.pool, &user.id, &user.session_id).await?;
    state.recheck_user(&user.id).await;
    crate::audit::record(
        &state,
        AuditEvent {
            event_type: "password_changed",
            entity_type: "user",
            entity_id: Some(&user.id),
            actor_id: Some(&user.id),
            details: json!({}),
            severity: "info",
            ip: None,
        },
    )
    .await;
    Ok(StatusCode::NO_CONTENT)
}
