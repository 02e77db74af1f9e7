//! `GET /api/collab/{reportId}`: the WebSocket of a report's collaborative document, speaking
//! y-protocols exactly (the stock `y-websocket` 3.x provider connects to
//! `ws(s)://host/api/collab` with the report id as its room).
//!
//! Authorisation happens before the document is touched, from the session cookie (a browser sends
//! it on a same-origin socket; other clients send a `Cookie` header). No secret travels in the
//! URL. A cross-site Origin is refused before the upgrade. Everything else is answered by
//! upgrading and closing with a code of `collab::close` (generated into `web/src/api/types/CloseCode.ts`),
//! so the client can tell "sign in again" from "not yours":
//! - no valid session: 4401;
//! - no such report: 4404; a report of a client the caller is not a member of: 4403;
//! - members of the report's client and admins edit; viewers read only (the hub drops their sync
//!   updates and answers with the protocol's permission-denied message).
//!
//! The rights follow the session while the socket is open (`docs::sessions`): a sign-out closes
//! it with 4401, a lost membership with 4403, a change of role applies from the next message.
//!
//! This module only adapts axum's socket: the protocol, the document and its persistence belong
//! to `collab::Hub`.

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum_extra::extract::cookie::CookieJar;
use bytes::Bytes;
use collab::close::CloseReason;
use futures_util::{SinkExt, StreamExt};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::{AuthUser, authenticate};
use crate::docs::sessions::rights_for;
use crate::error::ApiError;
use crate::state::AppState;

/// Most bytes read from the socket at once. tungstenite zero-fills this much of its buffer before
/// every read attempt, and y-protocols frames are small (an edit or a presence change is tens to
/// hundreds of bytes), so a small value saves that work on every wake-up; a large initial sync
/// just takes more reads.
const READ_BUFFER: usize = 2 * 1024;
/// Socket write buffer size (small buffers keep an idle connection cheap).
const WRITE_BUFFER: usize = 8 * 1024;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(collab_socket))
}

/// A caller allowed to open a report's document.
struct Admitted {
    user: AuthUser,
    /// The report's client.
    client_id: String,
    access: collab::Access,
}

/// The caller, the report's client and what the caller may do, or why they are refused.
async fn decide(
    state: &AppState,
    headers: &HeaderMap,
    report_id: &str,
) -> Result<Admitted, CloseReason> {
    let jar = CookieJar::from_headers(headers);
    let user = match authenticate(state, &jar).await {
        Ok(Some(user)) => user,
        Ok(None) => return Err(CloseReason::UNAUTHENTICATED),
        Err(e) => {
            tracing::error!(error = %e, "collab socket: authentication failed");
            return Err(CloseReason::INTERNAL_ERROR);
        }
    };
    let client_id = match crate::service::reports::client_of(state, report_id).await {
        Ok(Some(c)) => c,
        Ok(None) => return Err(CloseReason::NOT_FOUND),
        Err(e) => {
            tracing::error!(error = %e, "collab socket: report lookup failed");
            return Err(CloseReason::INTERNAL_ERROR);
        }
    };
    let access = rights_for(&user, &client_id)?;
    Ok(Admitted {
        user,
        client_id,
        access,
    })
}

/// Opens the collaborative document of a report: a WebSocket speaking the y-websocket protocol
/// (sync and awareness messages). Members of the report's client and admins write, viewers read;
/// refusals complete the upgrade and close with a code of `collab::close` (4401 no session, 4403
/// not allowed, 4404 no such report).
#[utoipa::path(get, path = "/collab/{report_id}", params(("report_id" = String, Path, description = "Report id")),
    responses((status = 101, description = "Switching to the document socket"), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody), (status = 426, body = crate::error::ErrorBody)))]
pub async fn collab_socket(
    State(state): State<AppState>,
    Path(report_id): Path<String>,
    headers: HeaderMap,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    if !crate::api::origin_allowed(&state, &headers) {
        return ApiError::Forbidden("Cross-site WebSocket refused".into()).into_response();
    }
    let ws = match ws {
        Ok(ws) => ws,
        Err(_) => return crate::api::not_an_upgrade(&state, &headers).await,
    };
    let decision = decide(&state, &headers, &report_id).await;
    let max = state.collab.config().max_frame_bytes;
    ws.read_buffer_size(READ_BUFFER)
        .write_buffer_size(WRITE_BUFFER)
        .max_message_size(max)
        .max_frame_size(max)
        .on_upgrade(move |socket| serve(state, socket, report_id, decision))
}

async fn serve(
    state: AppState,
    socket: WebSocket,
    report_id: String,
    decision: Result<Admitted, CloseReason>,
) {
    let (mut tx, mut rx) = socket.split();
    let why = match decision {
        Err(refused) => {
            // Complete the closing handshake before dropping the socket: closing a TCP socket with
            // the client's first frames still unread makes the kernel answer with a reset, and the
            // client would see 1006 instead of our code.
            let _ = tx
                .send(Message::Close(Some(CloseFrame {
                    code: refused.code,
                    reason: refused.reason.into(),
                })))
                .await;
            let _ = tokio::time::timeout(std::time::Duration::from_secs(2), async {
                while let Some(Ok(m)) = rx.next().await {
                    if matches!(m, Message::Close(_)) {
                        break;
                    }
                }
            })
            .await;
            return;
        }
        Ok(Admitted {
            user,
            client_id,
            access,
        }) => {
            // Registered for as long as the socket is served, so that a sign-out or a role change
            // reaches it (see `docs::sessions`).
            let (_registration, rights) = state.doc_sessions.register(&user, &client_id, access);
            let rx = rx.filter_map(|m| async move {
                match m {
                    Ok(Message::Binary(b)) => Some(Ok(b)),
                    // Pings, pongs and text count as activity only.
                    Ok(Message::Ping(_) | Message::Pong(_) | Message::Text(_)) => {
                        Some(Ok(Bytes::new()))
                    }
                    Ok(Message::Close(_)) => None,
                    Err(e) => Some(Err(e)),
                }
            });
            let mut frames = (&mut tx)
                .with(|b: Bytes| std::future::ready(Ok::<_, axum::Error>(Message::Binary(b))));
            state
                .collab
                .serve_connection_with(&report_id, rights, Box::pin(rx), &mut frames)
                .await
        }
    };
    let _ = tx
        .send(Message::Close(Some(CloseFrame {
            code: why.code,
            reason: why.reason.into(),
        })))
        .await;
}
