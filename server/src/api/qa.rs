//! The Q&A agent over HTTP (the 'Q&A Agent' tab of Our Files): ask a question about the client's
//! files (all of them, or one in focus) and read the answer as it streams, read and clear one's
//! conversation. Every route reads the client named by `client_id` (members, viewers and
//! administrators: asking reads the client's data and writes only the caller's own
//! conversation). The rules live in [`crate::service::qa`].
//!
//! The answer streams as Server-Sent Events (`text/event-stream`): axum serves them natively
//! (`Sse`, keep-alive comments through proxies), each event carries its kind (`started`,
//! `progress`, `delta`, `done`) and a JSON body the web app parses with the generated
//! `QaEvent` type, and a `fetch` reads them from a POST (the question is a JSON body, checked
//! against CSRF like every other change), which `EventSource` could not send.

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::extract::{ClientQuery, ClientRead};
use crate::error::{ApiResult, AppJson};
use crate::service::qa::{self as service, QaAsk, QaConversation, QaEvent};
use crate::state::AppState;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(ask_question))
        .routes(routes!(get_conversation, clear_conversation))
}

fn event_name(e: &QaEvent) -> &'static str {
    match e {
        QaEvent::Started { .. } => "started",
        QaEvent::Progress { .. } => "progress",
        QaEvent::Delta { .. } => "delta",
        QaEvent::Done { .. } => "done",
    }
}

/// Asks the agent about the client's files (or the file `fileId`); the answer streams as
/// Server-Sent Events: `started`, `progress` (a model's characters so far), `delta` (the next
/// piece of the answer), then `done` with the question and the answer as stored. A blank or too
/// long question, or a file not of the client, is refused before anything is asked or stored.
#[utoipa::path(post, path = "/qa/ask", params(ClientQuery), request_body = QaAsk,
    responses((status = 200, description = "The answer as Server-Sent Events (QaEvent)", content_type = "text/event-stream"),
        (status = 401, body = crate::error::ErrorBody), (status = 404, body = crate::error::ErrorBody),
        (status = 422, body = crate::error::ErrorBody)))]
pub async fn ask_question(
    State(state): State<AppState>,
    ClientRead(scope): ClientRead,
    AppJson(req): AppJson<QaAsk>,
) -> ApiResult<Sse<impl Stream<Item = Result<Event, Infallible>>>> {
    let question = service::check(&state, &scope, req).await?;
    let rx = service::ask(state, scope, question);
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        let e = rx.recv().await?;
        let event = Event::default()
            .event(event_name(&e))
            .json_data(&e)
            .unwrap_or_else(|_| Event::default().event("error"));
        Some((Ok(event), rx))
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

/// The caller's conversation about the client (the latest 200 messages, oldest first) and the
/// engine answering now.
#[utoipa::path(get, path = "/qa/conversation", params(ClientQuery),
    responses((status = 200, body = QaConversation), (status = 401, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody)))]
pub async fn get_conversation(
    State(state): State<AppState>,
    ClientRead(scope): ClientRead,
) -> ApiResult<axum::Json<QaConversation>> {
    Ok(axum::Json(service::conversation(&state, &scope).await?))
}

/// Clears the caller's conversation about the client (other users' are kept).
#[utoipa::path(delete, path = "/qa/conversation", params(ClientQuery),
    responses((status = 204), (status = 401, body = crate::error::ErrorBody),
        (status = 404, body = crate::error::ErrorBody)))]
pub async fn clear_conversation(
    State(state): State<AppState>,
    ClientRead(scope): ClientRead,
) -> ApiResult<StatusCode> {
    service::clear(&state, &scope).await?;
    Ok(StatusCode::NO_CONTENT)
}
