//! WebSocket close codes shared by the collaboration service, the server and the web app.
//!
//! The codes live in the private-use range 4000–4999 and follow HTTP status numbers where one
//! fits, so that `code - 4000` reads like the matching HTTP status. The web app mirrors them in
//! `web/src/api/types/CloseCode.ts`, generated from `server::realtime::close::ALL` (`make types`).

/// Normal closure (RFC 6455): the peer closed the connection or its stream ended.
pub const NORMAL: u16 = 1000;
/// The message could not be decoded as a y-protocols message.
pub const INVALID_MESSAGE: u16 = 4400;
/// The caller is not authenticated (no session or an expired one): sent by the server before a
/// connection reaches a document, or when the session behind an open connection ends.
pub const UNAUTHENTICATED: u16 = 4401;
/// The caller is authenticated but may not open this document (or lost access to it while
/// connected). Sent by the server.
pub const FORBIDDEN: u16 = 4403;
/// The document does not exist in the store.
pub const NOT_FOUND: u16 = 4404;
/// Nothing was received from the peer within the idle timeout (clients renew their awareness
/// every 15 s, so a live client is never idle that long).
pub const IDLE_TIMEOUT: u16 = 4408;
/// The peer did not read its frames fast enough: its bounded outbound queue overflowed and it
/// stayed behind (queue not drained to half) for more than 10 s.
pub const SLOW_CONSUMER: u16 = 4409;
/// A received frame exceeded the maximum frame size ([`crate::HubConfig::max_frame_bytes`]).
pub const MESSAGE_TOO_LARGE: u16 = 4413;
/// The document could not be loaded or persisted, or its task failed. Nothing stored was
/// changed; the client may reconnect later.
pub const INTERNAL_ERROR: u16 = 4500;
/// The service is shutting down; the client should reconnect (to another instance).
pub const SHUTTING_DOWN: u16 = 4503;

/// Why a connection ended: the close code and a short reason to put in the WebSocket close
/// frame (at most 123 bytes, as RFC 6455 requires).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CloseReason {
    /// The WebSocket close code, one of the constants of this module.
    pub code: u16,
    /// A short, human-readable reason.
    pub reason: &'static str,
}

impl CloseReason {
    /// The peer closed the connection (or its stream ended).
    pub const NORMAL: Self = Self {
        code: NORMAL,
        reason: "closed",
    };
    /// A frame could not be decoded.
    pub const INVALID_MESSAGE: Self = Self {
        code: INVALID_MESSAGE,
        reason: "invalid message",
    };
    /// The caller has no valid session (none at all, or one that ended while connected).
    pub const UNAUTHENTICATED: Self = Self {
        code: UNAUTHENTICATED,
        reason: "authentication required",
    };
    /// The caller may not open this document (or may no longer).
    pub const FORBIDDEN: Self = Self {
        code: FORBIDDEN,
        reason: "access denied",
    };
    /// The document does not exist.
    pub const NOT_FOUND: Self = Self {
        code: NOT_FOUND,
        reason: "document not found",
    };
    /// No frame received within the idle timeout.
    pub const IDLE_TIMEOUT: Self = Self {
        code: IDLE_TIMEOUT,
        reason: "idle timeout",
    };
    /// The outbound queue overflowed.
    pub const SLOW_CONSUMER: Self = Self {
        code: SLOW_CONSUMER,
        reason: "slow consumer",
    };
    /// A frame exceeded the maximum size.
    pub const MESSAGE_TOO_LARGE: Self = Self {
        code: MESSAGE_TOO_LARGE,
        reason: "message too large",
    };
    /// The document could not be loaded or persisted.
    pub const INTERNAL_ERROR: Self = Self {
        code: INTERNAL_ERROR,
        reason: "internal error",
    };
    /// The service is shutting down.
    pub const SHUTTING_DOWN: Self = Self {
        code: SHUTTING_DOWN,
        reason: "shutting down",
    };
}

impl std::fmt::Display for CloseReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.code, self.reason)
    }
}
