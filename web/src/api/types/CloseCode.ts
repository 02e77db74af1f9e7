// Generated from collab::close by the server's export_bindings_close_codes test. Do not edit.

/** WebSocket close codes of the event socket and the document socket (`code - 4000` reads like an HTTP status). */
export const CloseCode = {
  /** The peer closed the connection. */
  NORMAL: 1000,
  /** A frame could not be decoded. */
  INVALID_MESSAGE: 4400,
  /** No valid session (or the session ended): sign in again. */
  UNAUTHENTICATED: 4401,
  /** Signed in, but without access (or access was lost). */
  FORBIDDEN: 4403,
  /** The report does not exist (or was deleted). */
  NOT_FOUND: 4404,
  /** Nothing was received within the idle timeout. */
  IDLE_TIMEOUT: 4408,
  /** The connection could not keep up with its messages. */
  SLOW_CONSUMER: 4409,
  /** A frame exceeded the maximum size. */
  MESSAGE_TOO_LARGE: 4413,
  /** The document could not be loaded or stored; nothing stored was changed. */
  INTERNAL_ERROR: 4500,
  /** The server is restarting: reconnect. */
  SHUTTING_DOWN: 4503,
} as const
