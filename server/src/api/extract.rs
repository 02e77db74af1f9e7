//! Extractors that turn a request into the service layer's inputs: the [`Actor`] (caller and
//! address) and the client [`Scope`] a route works on, decided by [`crate::access`] through
//! [`service::scope`]. A handler that takes [`ClientRead`] or [`ClientWrite`] cannot run for a
//! caller without that right.

use axum::extract::{FromRequestParts, Query};
use axum::http::request::Parts;
use serde::Deserialize;

use crate::access::Need;
use crate::auth::{AuthUser, ClientIp};
use crate::error::ApiError;
use crate::service::{self, Actor, Scope};
use crate::state::AppState;

impl FromRequestParts<AppState> for Actor {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let user = AuthUser::from_request_parts(parts, state).await?;
        let Ok(ClientIp(ip)) = ClientIp::from_request_parts(parts, state).await;
        Ok(Actor { user, ip })
    }
}

/// Which client a request works on (optional: the caller's first client by default).
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
pub struct ClientQuery {
    /// The client; required only for members of several clients and admins who work on another
    /// client than their first. Also accepted as `client`.
    #[serde(alias = "client")]
    pub client_id: Option<String>,
}

async fn scope_from_query(
    parts: &mut Parts,
    state: &AppState,
    need: Need,
) -> Result<Scope, ApiError> {
    let actor = Actor::from_request_parts(parts, state).await?;
    let Query(q) = Query::<ClientQuery>::try_from_uri(&parts.uri)
        .map_err(|e| ApiError::bad_request("invalid_query", e.body_text()))?;
    service::scope(state, actor, q.client_id.as_deref(), need).await
}

/// A caller who may read the client named by the `client_id` query parameter (or their own).
#[derive(Debug, Clone)]
pub struct ClientRead(pub Scope);

impl FromRequestParts<AppState> for ClientRead {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        Ok(ClientRead(
            scope_from_query(parts, state, Need::Read).await?,
        ))
    }
}

/// A caller who may change the client named by the `client_id` query parameter (or their own).
#[derive(Debug, Clone)]
pub struct ClientWrite(pub Scope);

impl FromRequestParts<AppState> for ClientWrite {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        Ok(ClientWrite(
            scope_from_query(parts, state, Need::Write).await?,
        ))
    }
}

/// An admin making a back-office change (403 for everyone else, 401 without a session).
#[derive(Debug, Clone)]
pub struct AdminActor(pub Actor);

impl FromRequestParts<AppState> for AdminActor {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        let actor = Actor::from_request_parts(parts, state).await?;
        actor.user.require_admin()?;
        Ok(AdminActor(actor))
    }
}
