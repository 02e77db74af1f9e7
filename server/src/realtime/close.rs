//! WebSocket close codes of the event socket (`/api/ws`), defined once here and mirrored in
//! `web/src/lib/event-close-codes.ts`; change both together. The values are the same as those of the
//! collaborative-document socket: private-use range 4000-4999, `code - 4000` reads like the
//! matching HTTP status.

/// The session ended (signed out or revoked) or the user no longer exists.
pub const UNAUTHENTICATED: u16 = 4401;
/// No frame (not even a pong) was received for 40 s.
pub const IDLE_TIMEOUT: u16 = 4408;
/// The client did not read its events fast enough: its bounded send queue overflowed.
pub const SLOW_CONSUMER: u16 = 4409;
/// A received frame was larger than the socket accepts.
pub const MESSAGE_TOO_LARGE: u16 = 4413;
/// The server is shutting down; reconnect (to another instance).
pub const SHUTTING_DOWN: u16 = 4503;

/// The reason text sent with a close code (at most 123 bytes, RFC 6455).
pub fn reason(code: u16) -> &'static str {
    match code {
        UNAUTHENTICATED => "session ended",
        IDLE_TIMEOUT => "idle timeout",
        SLOW_CONSUMER => "slow consumer",
        MESSAGE_TOO_LARGE => "message too large",
        SHUTTING_DOWN => "shutting down",
        _ => "closed",
    }
}
