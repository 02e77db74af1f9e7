//! WebSocket close codes of the event socket (`/api/ws`). They are the product's one set of close
//! codes, defined in `collab::close` (shared with the document socket) and mirrored in
//! `web/src/lib/close-codes.ts`: private-use range 4000-4999, `code - 4000` reads like the
//! matching HTTP status.

pub use collab::close::{
    IDLE_TIMEOUT, MESSAGE_TOO_LARGE, SHUTTING_DOWN, SLOW_CONSUMER, UNAUTHENTICATED,
};

/// The reason text sent with a close code on the event socket (at most 123 bytes, RFC 6455).
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
