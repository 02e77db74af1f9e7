//! The `/api/ws` handler: authenticates the upgrade with the session cookie, refuses cross-site
//! sockets, and runs one task per connection that multiplexes the client's requests, the queued
//! events, the heartbeat and the hub's close requests.
//!
//! Client requests (JSON text frames):
//! - `{"op":"subscribe","topics":["client:{id}:board", ...]}` answered per topic with
//!   `subscribed` (its `seq` is the topic's current sequence), `denied` or `error`;
//! - `{"op":"unsubscribe","topics":[...]}` answered with `unsubscribed`;
//! - `{"op":"ping"}` answered with `pong` (lets a browser detect a dead link; the server's own
//!   ping frames are answered by the browser without the page seeing them).
//!
//! The loop is generic over `Sink`/`Stream` so that it can be driven by channels in tests.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocketUpgrade};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum_extra::extract::cookie::CookieJar;
use bytes::Bytes;
use futures_util::{Sink, SinkExt, Stream, StreamExt};
use serde::Deserialize;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::events::{ErrorMessage, Event, Reason};
use super::{Conn, Hub, SubscribeOutcome, close, current_seqs, encode};
use crate::db::Db;
use crate::error::ApiError;
use crate::state::AppState;

/// The server pings every 20 s.
pub const PING_INTERVAL: Duration = Duration::from_secs(20);
/// A connection from which nothing (not even a pong) arrived for 40 s is closed.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(40);
/// Read buffer per socket (client requests are small; larger frames still fit up to
/// [`MAX_MESSAGE`], the buffer grows for them).
pub const READ_BUFFER: usize = 4 * 1024;
/// Bytes buffered before a write reaches the socket (frames of one batch are coalesced).
pub const WRITE_BUFFER: usize = 4 * 1024;
/// Cap on buffered outgoing bytes when the socket does not drain.
pub const MAX_WRITE_BUFFER: usize = 256 * 1024;
/// Largest frame a client may send.
pub const MAX_MESSAGE: usize = 16 * 1024;
/// Frames sent in one batch before flushing.
const BATCH: usize = 64;

/// Routes.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(ws_handler))
}

/// Upgrades an authenticated, same-origin request to the event socket: JSON frames
/// `{op: "subscribe" | "unsubscribe", topics}` and `{op: "ping"}` in, events
/// `{topic, seq, type, data}` and answers out (see `realtime`).
#[utoipa::path(get, path = "/ws",
    responses((status = 101, description = "Switching to the event socket"), (status = 401, body = crate::error::ErrorBody), (status = 403, body = crate::error::ErrorBody), (status = 426, body = crate::error::ErrorBody)))]
pub async fn ws_handler(
    State(state): State<AppState>,
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
    let jar = CookieJar::from_headers(&headers);
    let user = match crate::auth::authenticate(&state, &jar).await {
        Ok(Some(u)) => u,
        Ok(None) => return ApiError::Unauthenticated.into_response(),
        Err(e) => return e.into_response(),
    };
    let hub = state.hub.clone();
    let db = state.db.clone();
    ws.read_buffer_size(READ_BUFFER)
        .write_buffer_size(WRITE_BUFFER)
        .max_write_buffer_size(MAX_WRITE_BUFFER)
        .max_message_size(MAX_MESSAGE)
        .max_frame_size(MAX_MESSAGE)
        .on_upgrade(move |socket| async move {
            let (conn, rx, kill) = hub.register(user);
            let (sink, stream) = socket.split();
            run(&hub, &db, &conn, rx, kill, sink, stream).await;
            hub.unregister(&conn);
        })
}

/// A client request.
#[derive(Debug, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
enum Request {
    Subscribe { topics: Vec<String> },
    Unsubscribe { topics: Vec<String> },
    Ping,
}

/// Runs one connection until it ends; returns the close code it ended with (`None` when the peer
/// went away).
pub async fn run<S, R>(
    hub: &Hub,
    db: &Db,
    conn: &Arc<Conn>,
    mut rx: mpsc::Receiver<Utf8Bytes>,
    kill: CancellationToken,
    mut sink: S,
    mut stream: R,
) -> Option<u16>
where
    S: Sink<Message> + Unpin,
    R: Stream<Item = Result<Message, axum::Error>> + Unpin,
{
    let mut ping = tokio::time::interval_at(Instant::now() + PING_INTERVAL, PING_INTERVAL);
    let mut last_heard = Instant::now();
    let mut batch: Vec<Utf8Bytes> = Vec::new();
    let code: Option<u16> = loop {
        tokio::select! {
            biased;
            _ = kill.cancelled() => break Some(conn.close_code()),
            n = rx.recv_many(&mut batch, BATCH) => {
                if n == 0 {
                    break Some(close::SHUTTING_DOWN);
                }
                let send = async {
                    for f in batch.drain(..) {
                        sink.feed(Message::Text(f)).await?;
                    }
                    sink.flush().await
                };
                tokio::select! {
                    r = send => if r.is_err() { break None },
                    // Blocked on a socket that does not drain while the hub gave up on it.
                    _ = kill.cancelled() => break Some(conn.close_code()),
                }
                batch.clear();
            }
            msg = stream.next() => {
                last_heard = Instant::now();
                match msg {
                    Some(Ok(Message::Text(t))) => {
                        let replies = handle(hub, db, conn, t.as_str()).await;
                        let send = async {
                            for reply in replies {
                                sink.feed(Message::Text(reply)).await?;
                            }
                            sink.flush().await
                        };
                        if send.await.is_err() {
                            return None;
                        }
                    }
                    Some(Ok(Message::Binary(_))) => {
                        let reply = encode("", 0, &Event::Error(ErrorMessage { message: "Binary frames are not accepted".into() }));
                        if sink.send(Message::Text(reply)).await.is_err() {
                            break None;
                        }
                    }
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                    Some(Ok(Message::Close(_))) | None => break None,
                    Some(Err(e)) => {
                        // axum wraps tungstenite's error without exposing its type: a frame over
                        // MAX_MESSAGE is its `Capacity` variant.
                        let too_large = format!("{e:?}").contains("Capacity");
                        break if too_large { Some(close::MESSAGE_TOO_LARGE) } else { None };
                    }
                }
            }
            _ = ping.tick() => {
                if last_heard.elapsed() >= IDLE_TIMEOUT {
                    break Some(close::IDLE_TIMEOUT);
                }
                if sink.send(Message::Ping(Bytes::new())).await.is_err() {
                    break None;
                }
            }
        }
    };
    if let Some(code) = code {
        let frame = CloseFrame {
            code,
            reason: Utf8Bytes::from_static(close::reason(code)),
        };
        // Best effort with a deadline: a slow consumer's socket may not take even this.
        let _ = tokio::time::timeout(
            Duration::from_secs(1),
            sink.send(Message::Close(Some(frame))),
        )
        .await;
    }
    code
}

async fn handle(hub: &Hub, db: &Db, conn: &Arc<Conn>, text: &str) -> Vec<Utf8Bytes> {
    let req: Request = match serde_json::from_str(text) {
        Ok(r) => r,
        Err(_) => {
            return vec![encode(
                "",
                0,
                &Event::Error(ErrorMessage {
                    message: "Unknown request".into(),
                }),
            )];
        }
    };
    match req {
        Request::Ping => vec![encode("", 0, &Event::Pong)],
        Request::Subscribe { topics } => {
            let topics: Vec<&str> = topics
                .iter()
                .take(super::MAX_SUBSCRIPTIONS)
                .map(String::as_str)
                .collect();
            let outcomes: Vec<SubscribeOutcome> =
                topics.iter().map(|t| hub.subscribe(conn, t)).collect();
            // Read after registering: an event committed later has a higher seq and reaches this
            // connection. One read for all the topics subscribed.
            let subscribed: Vec<&str> = topics
                .iter()
                .zip(&outcomes)
                .filter(|(_, o)| matches!(o, SubscribeOutcome::Subscribed))
                .map(|(t, _)| *t)
                .collect();
            let seqs = match current_seqs(&db.pool, &subscribed).await {
                Ok(seqs) => Some(seqs.into_iter()),
                Err(e) => {
                    tracing::warn!(error = %e, "reading topic sequences failed");
                    for t in &subscribed {
                        hub.unsubscribe(conn, t);
                    }
                    None
                }
            };
            let mut seqs = seqs;
            topics
                .iter()
                .zip(outcomes)
                .map(|(t, outcome)| match outcome {
                    SubscribeOutcome::Subscribed => match seqs.as_mut().and_then(Iterator::next) {
                        Some(seq) => encode(t, seq, &Event::Subscribed),
                        None => encode(
                            t,
                            0,
                            &Event::Error(ErrorMessage {
                                message: "Subscription failed, retry".into(),
                            }),
                        ),
                    },
                    SubscribeOutcome::UnknownTopic => encode(
                        t,
                        0,
                        &Event::Denied(Reason {
                            reason: "unknown_topic",
                        }),
                    ),
                    SubscribeOutcome::Forbidden => encode(
                        t,
                        0,
                        &Event::Denied(Reason {
                            reason: "forbidden",
                        }),
                    ),
                    SubscribeOutcome::TooMany => encode(
                        t,
                        0,
                        &Event::Denied(Reason {
                            reason: "too_many_subscriptions",
                        }),
                    ),
                })
                .collect()
        }
        Request::Unsubscribe { topics } => topics
            .iter()
            .take(super::MAX_SUBSCRIPTIONS)
            .map(|t| {
                hub.unsubscribe(conn, t);
                encode(
                    t,
                    0,
                    &Event::Unsubscribed(Reason {
                        reason: "requested",
                    }),
                )
            })
            .collect(),
    }
}
