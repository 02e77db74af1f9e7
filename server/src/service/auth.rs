//! Sign-in, session refresh and sign-out, the caller's profile, password reset, terms and the
//! password change: the rules, rate limits, tokens and audit records. Cookies and headers are the
//! API's business (`api::auth`); this module hands it the tokens to set.

use serde_json::json;

use super::{Audit, AuditActor, Change};
use crate::auth::tokens::{self, hash_token, random_token};
use crate::auth::{AuthUser, password};
use crate::db::misc::AuditEvent;
use crate::db::users::{MembershipRow, UserRow};
use crate::db::{self, sessions, users};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// A user as their own screens show them.
#[derive(Debug)]
pub struct Profile {
    /// The user's row.
    pub user: UserRow,
    /// Their client memberships, by name.
    pub clients: Vec<MembershipRow>,
    /// The password is older than one year: the blocking password dialog must show.
    pub requires_password_change: bool,
}

/// The tokens of a session to put in cookies: a new access token, and a new refresh token when it
/// rotated.
#[derive(Debug)]
pub struct SessionTokens {
    /// The user.
    pub user_id: String,
    /// The access JWT.
    pub access: String,
    /// The refresh token, when a new one was issued.
    pub refresh: Option<String>,
}

/// A user's profile (401 when the user is gone).
pub async fn profile(state: &AppState, user_id: &str) -> ApiResult<Profile> {
    let user = users::by_id(&state.db.pool, user_id)
        .await?
        .ok_or(ApiError::Unauthenticated)?;
    let clients = users::client_memberships(&state.db.pool, user_id).await?;
    let year_ago = chrono::Utc::now() - chrono::Duration::days(365);
    // A missing password_changed_at counts as now (spec 000 section 4).
    let requires_password_change = user
        .password_changed_at
        .as_deref()
        .and_then(db::parse_ts)
        .is_some_and(|t| t < year_ago);
    Ok(Profile {
        user,
        clients,
        requires_password_change,
    })
}

fn in_secs(secs: i64) -> String {
    db::ts(chrono::Utc::now() + chrono::Duration::seconds(secs))
}

/// Opens a session for a user: the session row and its first refresh token, in one transaction.
pub async fn open_session(
    state: &AppState,
    user_id: &str,
    ip: &str,
    user_agent: Option<&str>,
) -> ApiResult<SessionTokens> {
    let session_id = db::new_id();
    let refresh = random_token();
    let mut tx = state.db.pool.begin().await?;
    sessions::create_session(&mut *tx, &session_id, user_id, Some(ip), user_agent).await?;
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
    Ok(SessionTokens {
        user_id: user_id.to_owned(),
        access: state.keys.access_token(user_id, &session_id)?,
        refresh: Some(refresh),
    })
}

fn invalid_credentials() -> ApiError {
    ApiError::Unauthorized {
        code: "invalid_credentials",
        message: "Invalid credentials".into(),
    }
}

async fn audit_attempt(state: &AppState, event_type: &str, email: &str, ip: &str) {
    crate::audit::record(
        state,
        AuditEvent {
            event_type,
            entity_type: "user",
            entity_id: None,
            actor_id: None,
            details: json!({"email": email}),
            severity: "warning",
            ip: Some(ip),
        },
    )
    .await;
}

/// Signs in with email and password and opens a session. Failures of an account from an address
/// make its next attempts wait their turn (a correct password then passes); only a flood of
/// guesses is refused.
pub async fn login(
    state: &AppState,
    email: &str,
    password_text: &str,
    ip: &str,
    user_agent: Option<&str>,
) -> ApiResult<SessionTokens> {
    let email = email.trim().to_lowercase();
    if !crate::api::valid_email(&email) {
        return Err(ApiError::validation("Invalid email address"));
    }
    if let Err(refused) = state.limits.login(&email, ip).await {
        audit_attempt(state, "login_rate_limited", &email, ip).await;
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
        password_text,
        hash.as_deref().unwrap_or(password::dummy_hash()),
    )
    .await
        && hash.is_some();
    let Some(user) = user.filter(|_| ok) else {
        state.limits.login_failed(&email, ip);
        audit_attempt(state, "login_failed", &email, ip).await;
        return Err(invalid_credentials());
    };
    state.limits.login_succeeded(&email, ip);
    let tokens = open_session(state, &user.id, ip, user_agent).await?;
    crate::audit::record(
        state,
        AuditEvent {
            event_type: "login",
            entity_type: "user",
            entity_id: Some(&user.id),
            actor_id: Some(&user.id),
            details: json!({}),
            severity: "info",
            ip: Some(ip),
        },
    )
    .await;
    Ok(tokens)
}

/// Rotates a refresh token and issues a new access token. A rotated token presented again right
/// after its rotation (two tabs refreshing at once) gets a new access token only; later, it is a
/// stolen token and ends the whole session.
pub async fn refresh(state: &AppState, presented: Option<&str>) -> ApiResult<SessionTokens> {
    let Some(presented) = presented else {
        return Err(ApiError::Unauthenticated);
    };
    let Some(row) = sessions::refresh_by_hash(&state.db.pool, &hash_token(presented)).await? else {
        return Err(ApiError::Unauthenticated);
    };
    if db::parse_ts(&row.expires_at).is_none_or(|t| t < chrono::Utc::now())
        || !sessions::session_active(&state.db.pool, &row.session_id).await?
    {
        return Err(ApiError::Unauthenticated);
    }
    if let Some(revoked) = row.revoked_at.as_deref() {
        let recent = db::parse_ts(revoked).is_some_and(|t| {
            chrono::Utc::now() - t < chrono::Duration::seconds(tokens::REFRESH_GRACE_SECS)
        });
        if !recent {
            sessions::revoke_session(&state.db.pool, &row.session_id).await?;
            crate::audit::record(
                state,
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
            state.recheck_user(&row.user_id).await;
            return Err(ApiError::Unauthenticated);
        }
        return Ok(SessionTokens {
            access: state.keys.access_token(&row.user_id, &row.session_id)?,
            user_id: row.user_id,
            refresh: None,
        });
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
    Ok(SessionTokens {
        access: state.keys.access_token(&row.user_id, &row.session_id)?,
        user_id: row.user_id,
        refresh: Some(new_refresh),
    })
}

/// Ends the session of the caller (found by the access token, else by the refresh token) and
/// closes its open sockets. Without either, nothing to end.
pub async fn logout(
    state: &AppState,
    caller: Option<&AuthUser>,
    refresh: Option<&str>,
) -> ApiResult<()> {
    if let Some(user) = caller {
        sessions::revoke_session(&state.db.pool, &user.session_id).await?;
        state.recheck_user(&user.id).await;
    } else if let Some(r) = refresh
        && let Some(row) = sessions::refresh_by_hash(&state.db.pool, &hash_token(r)).await?
    {
        sessions::revoke_session(&state.db.pool, &row.session_id).await?;
        state.recheck_user(&row.user_id).await;
    }
    Ok(())
}

/// Sends a single-use reset link when the address has an account. The answer never tells: the
/// lookup, the reset row and the mail happen after it, so that it takes the same time either way.
pub async fn forgot_password(state: &AppState, email: &str, ip: &str) -> ApiResult<()> {
    let email = email.trim().to_lowercase();
    if !crate::api::valid_email(&email) {
        return Err(ApiError::validation("Please enter a valid email address"));
    }
    if !state.limits.mail(ip) {
        return Err(ApiError::RateLimited(
            "Too many requests. Please try again later.".into(),
        ));
    }
    let state = state.clone();
    tokio::spawn(async move {
        if let Err(e) = send_reset_link(&state, &email).await {
            tracing::warn!(error = %e, "password reset mail failed");
        }
    });
    Ok(())
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

/// Sets a new password with a reset token (single use, expiring) and ends every session of the
/// user, their open sockets included.
pub async fn reset_password(
    state: &AppState,
    token: &str,
    new_password: &str,
    ip: &str,
) -> ApiResult<()> {
    password::check_strong(new_password)?;
    let hash = password::hash(new_password).await?;
    let mut ch = Change::begin_unannounced(state).await?;
    let Some(user_id) = sessions::consume_reset(ch.conn(), &hash_token(token.trim())).await? else {
        return Err(ApiError::bad_request(
            "invalid_token",
            "Invalid or expired reset link",
        ));
    };
    users::set_password(ch.conn(), &user_id, &hash).await?;
    sessions::revoke_user_sessions(ch.conn(), &user_id).await?;
    ch.commit_unannounced(
        AuditActor {
            user_id: Some(&user_id),
            ip,
        },
        Audit {
            event_type: "password_reset",
            entity_type: "user",
            entity_id: &user_id,
            details: json!({}),
            severity: "info",
        },
    )
    .await?;
    state.recheck_user(&user_id).await;
    Ok(())
}

/// Records that the user accepted the terms of use.
pub async fn accept_terms(state: &AppState, user: &AuthUser, ip: &str) -> ApiResult<()> {
    let mut ch = Change::begin_unannounced(state).await?;
    users::accept_terms(ch.conn(), &user.id).await?;
    ch.commit_unannounced(
        AuditActor {
            user_id: Some(&user.id),
            ip,
        },
        Audit {
            event_type: "terms_accepted",
            entity_type: "user",
            entity_id: &user.id,
            details: json!({}),
            severity: "info",
        },
    )
    .await
}

/// Changes the caller's password: the current one is verified, the new one follows the rules of
/// reset and invitation; the user's other sessions end (their sockets closed at once) and this one
/// goes on. Rate-limited per user.
pub async fn change_password(
    state: &AppState,
    user: &AuthUser,
    current: &str,
    new_password: &str,
    ip: &str,
) -> ApiResult<()> {
    if current.is_empty() {
        return Err(ApiError::validation("Current password is required"));
    }
    password::check_strong(new_password)?;
    if !state.limits.password_change(&user.id) {
        return Err(ApiError::RateLimited(
            "Too many password change attempts. Please wait a few minutes and try again.".into(),
        ));
    }
    let row = users::by_id(&state.db.pool, &user.id)
        .await?
        .ok_or(ApiError::Unauthenticated)?;
    let ok = match row.password_hash.as_deref() {
        Some(h) => password::verify(current, h).await,
        None => false,
    };
    if !ok {
        return Err(ApiError::bad_request(
            "wrong_password",
            "Current password is incorrect",
        ));
    }
    let hash = password::hash(new_password).await?;
    let mut ch = Change::begin_unannounced(state).await?;
    users::set_password(ch.conn(), &user.id, &hash).await?;
    sessions::revoke_other_sessions(ch.conn(), &user.id, &user.session_id).await?;
    ch.commit_unannounced(
        AuditActor {
            user_id: Some(&user.id),
            ip,
        },
        Audit {
            event_type: "password_changed",
            entity_type: "user",
            entity_id: &user.id,
            details: json!({}),
            severity: "info",
        },
    )
    .await?;
    state.recheck_user(&user.id).await;
    Ok(())
}
