//! Authentication and authorisation: roles, the `AuthUser` extractor (the one place where a
//! request's caller and rights are established), session cookies, CSRF protection and login rate
//! limits.

pub mod client_ip;
pub mod password;
pub mod ratelimit;
pub mod tokens;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum_extra::extract::cookie::{Cookie, CookieJar, SameSite};
use serde::{Deserialize, Serialize};

use crate::access::{MemberRole, Membership};
use crate::error::{ApiError, ApiResult};
use crate::ids::{SessionId, UserId};
use crate::state::AppState;

/// Cookie holding the access token.
pub const ACCESS_COOKIE: &str = "capopt_access";
/// Cookie holding the refresh token (sent only to `/api/auth`).
pub const REFRESH_COOKIE: &str = "capopt_refresh";
/// Readable cookie whose value must be echoed in [`CSRF_HEADER`] on state-changing requests.
pub const CSRF_COOKIE: &str = "capopt_csrf";
/// Header carrying the CSRF token.
pub const CSRF_HEADER: &str = "x-csrf-token";

/// A user's role. Any stored value other than the four counts as `user`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema, ts_rs::TS,
)]
#[serde(rename_all = "lowercase")]
#[ts(export)]
pub enum Role {
    /// Full access, admin back office, every client.
    Admin,
    /// A user plus validation rights.
    Approver,
    /// Client user.
    User,
    /// Read-only.
    Viewer,
}

impl Role {
    /// Reads a stored role; unknown values count as `user`.
    pub fn parse(s: &str) -> Role {
        match s.trim().to_ascii_lowercase().as_str() {
            "admin" => Role::Admin,
            "approver" => Role::Approver,
            "viewer" => Role::Viewer,
            _ => Role::User,
        }
    }
    /// Parses a role given as input, rejecting unknown values.
    pub fn parse_strict(s: &str) -> Option<Role> {
        match s.trim().to_ascii_lowercase().as_str() {
            "admin" => Some(Role::Admin),
            "approver" => Some(Role::Approver),
            "user" => Some(Role::User),
            "viewer" => Some(Role::Viewer),
            _ => None,
        }
    }
    /// The stored form.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Approver => "approver",
            Role::User => "user",
            Role::Viewer => "viewer",
        }
    }
}

/// The authenticated caller of a request, loaded fresh from the database on every request so that
/// a revoked session or a changed role takes effect at once.
#[derive(Debug, Clone)]
pub struct AuthUser {
    /// User id.
    pub id: UserId,
    /// Email.
    pub email: String,
    /// Role in force.
    pub role: Role,
    /// Session id (from the access token).
    pub session_id: SessionId,
    /// Clients the user belongs to, by name, with the user's role in each.
    pub clients: Vec<Membership>,
}

impl AuthUser {
    /// Whether the caller is an admin.
    pub fn is_admin(&self) -> bool {
        self.role == Role::Admin
    }
    /// Refuses admins-only operations to everyone else.
    pub fn require_admin(&self) -> ApiResult<()> {
        if self.is_admin() {
            Ok(())
        } else {
            Err(ApiError::Forbidden("Access denied".into()))
        }
    }
    /// Refuses any change to viewers (for changes that concern no client, such as the caller's
    /// own account; a client's data goes through [`crate::access`]).
    pub fn require_writer(&self) -> ApiResult<()> {
        if self.role == Role::Viewer {
            Err(ApiError::read_only())
        } else {
            Ok(())
        }
    }
}

/// The session an access token names, when the token is valid (signature and expiry); nothing is
/// read from the database.
pub fn verify_access(state: &AppState, jar: &CookieJar) -> Option<tokens::Claims> {
    let token = jar.get(ACCESS_COOKIE)?;
    state.keys.verify(token.value())
}

/// Loads the caller behind a session: `None` when the session was revoked or the user is gone.
/// Requests reach it through [`authenticate`]; open sockets are re-checked with it directly.
pub async fn load_caller(
    state: &AppState,
    user_id: &str,
    session_id: &str,
) -> sqlx::Result<Option<AuthUser>> {
    let Some(row) = crate::db::users::session_user(&state.db.pool, user_id, session_id).await?
    else {
        return Ok(None);
    };
    let clients = crate::db::users::client_memberships(&state.db.pool, &row.id)
        .await?
        .into_iter()
        .map(|m| Membership {
            client_id: m.client_id.into(),
            client_name: m.client_name,
            role: MemberRole::parse(&m.role),
        })
        .collect();
    Ok(Some(AuthUser {
        id: row.id.into(),
        email: row.email,
        role: Role::parse(&row.role),
        session_id: session_id.into(),
        clients,
    }))
}

/// Resolves the caller from the access cookie; `None` when there is no valid session.
pub async fn authenticate(state: &AppState, jar: &CookieJar) -> ApiResult<Option<AuthUser>> {
    let Some(claims) = verify_access(state, jar) else {
        return Ok(None);
    };
    Ok(load_caller(state, &claims.sub, &claims.sid).await?)
}

impl FromRequestParts<AppState> for AuthUser {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        if let Some(u) = parts.extensions.get::<AuthUser>() {
            return Ok(u.clone());
        }
        let jar = CookieJar::from_headers(&parts.headers);
        let user = authenticate(state, &jar)
            .await?
            .ok_or(ApiError::Unauthenticated)?;
        parts.extensions.insert(user.clone());
        Ok(user)
    }
}

/// An authenticated admin; everyone else gets 403 (401 without a session).
#[derive(Debug, Clone)]
pub struct AdminUser(pub AuthUser);

impl FromRequestParts<AppState> for AdminUser {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let u = AuthUser::from_request_parts(parts, state).await?;
        u.require_admin()?;
        Ok(AdminUser(u))
    }
}

/// Builds a session cookie.
pub fn session_cookie(
    name: &'static str,
    value: String,
    path: &'static str,
    max_age_secs: i64,
    secure: bool,
    same_site: SameSite,
) -> Cookie<'static> {
    Cookie::build((name, value))
        .path(path)
        .http_only(true)
        .secure(secure)
        .same_site(same_site)
        .max_age(cookie::time::Duration::seconds(max_age_secs))
        .build()
}

/// A cookie that removes `name` at `path`.
pub fn removal_cookie(name: &'static str, path: &'static str) -> Cookie<'static> {
    let mut c = Cookie::build((name, "")).path(path).build();
    c.make_removal();
    c
}

/// The client's address: the socket peer, or behind trusted proxies the rightmost untrusted
/// forwarded hop ([`client_ip::client_addr`]).
#[derive(Debug, Clone)]
pub struct ClientIp(pub String);

impl FromRequestParts<AppState> for ClientIp {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let peer = parts
            .extensions
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
            .map(|c| c.0.ip());
        let ip = client_ip::client_addr(&state.config, peer, &parts.headers)
            .map(|ip| ip.to_string())
            .unwrap_or_else(|| "unknown".into());
        Ok(ClientIp(ip))
    }
}
