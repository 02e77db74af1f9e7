import { CloseCode } from './close-codes'

/**
 * The close codes the event socket (`/api/ws`) uses: a subset of the product's one set of close
 * codes (`close-codes.ts`, generated from `collab::close`, which the server's event hub reuses).
 */
export const EventCloseCode = {
  /** The session ended (signed out or revoked): sign in again. */
  UNAUTHENTICATED: CloseCode.UNAUTHENTICATED,
  /** Nothing was received from the client for 40 s. */
  IDLE_TIMEOUT: CloseCode.IDLE_TIMEOUT,
  /** The client did not read its events fast enough. */
  SLOW_CONSUMER: CloseCode.SLOW_CONSUMER,
  /** A frame sent by the client was too large. */
  MESSAGE_TOO_LARGE: CloseCode.MESSAGE_TOO_LARGE,
  /** The server is shutting down: reconnect. */
  SHUTTING_DOWN: CloseCode.SHUTTING_DOWN,
} as const
