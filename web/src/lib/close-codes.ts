import { CloseCode } from '@/api/types/CloseCode'

/**
 * WebSocket close codes of the document socket (`/api/collab/{reportId}`) and the event socket
 * (`/api/ws`), generated from `collab::close` (`make types`), and what to tell the user about them.
 */
export { CloseCode }

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
