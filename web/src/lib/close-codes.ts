/**
 * WebSocket close codes of the collaborative document socket (`/api/collab/{reportId}`).
 * Mirrors `collab/src/close.rs` exactly: change both together. The codes follow HTTP statuses
 * (`code - 4000`).
 */
export const CloseCode = {
  /** The peer closed the connection. */
  NORMAL: 1000,
  /** A frame could not be decoded as a y-protocols message. */
  INVALID_MESSAGE: 4400,
  /** No valid session: sign in again. */
  UNAUTHENTICATED: 4401,
  /** Signed in, but the report belongs to another client. */
  FORBIDDEN: 4403,
  /** The report does not exist (or was deleted). */
  NOT_FOUND: 4404,
  /** Nothing was received within the idle timeout. */
  IDLE_TIMEOUT: 4408,
  /** The connection could not keep up with the document's updates. */
  SLOW_CONSUMER: 4409,
  /** A frame exceeded the maximum size. */
  MESSAGE_TOO_LARGE: 4413,
  /** The document could not be loaded or stored; nothing stored was changed. */
  INTERNAL_ERROR: 4500,
  /** The server is restarting: reconnect. */
  SHUTTING_DOWN: 4503,
} as const

export type CloseCodeValue = (typeof CloseCode)[keyof typeof CloseCode]

/** Codes after which reconnecting cannot help: the caller must sign in or has no access. */
export const FINAL_CLOSE_CODES: ReadonlySet<number> = new Set([CloseCode.UNAUTHENTICATED, CloseCode.FORBIDDEN, CloseCode.NOT_FOUND])

/** A sentence for the user about why the document connection was closed. */
export function closeMessage(code: number): string {
  switch (code) {
    case CloseCode.UNAUTHENTICATED:
      return 'Your session has expired. Sign in again to keep editing.'
    case CloseCode.FORBIDDEN:
      return 'You do not have access to this report.'
    case CloseCode.NOT_FOUND:
      return 'Report not found'
    case CloseCode.MESSAGE_TOO_LARGE:
      return 'The last change was too large to send.'
    case CloseCode.INTERNAL_ERROR:
      return 'The report could not be loaded or saved. Reconnecting...'
    case CloseCode.SHUTTING_DOWN:
      return 'The server is restarting. Reconnecting...'
    default:
      return 'Connection lost. Reconnecting...'
  }
}
