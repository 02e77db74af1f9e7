/**
 * WebSocket close codes of the event socket (`/api/ws`). Mirrors `server/src/realtime/close.rs`
 * exactly: change both together. The values follow HTTP statuses (`code - 4000`) and agree with
 * those of the collaborative document socket.
 */
export const EventCloseCode = {
  /** The session ended (signed out or revoked): sign in again. */
  UNAUTHENTICATED: 4401,
  /** Nothing was received from the client for 40 s. */
  IDLE_TIMEOUT: 4408,
  /** The client did not read its events fast enough. */
  SLOW_CONSUMER: 4409,
  /** A frame sent by the client was too large. */
  MESSAGE_TOO_LARGE: 4413,
  /** The server is shutting down: reconnect. */
  SHUTTING_DOWN: 4503,
} as const
