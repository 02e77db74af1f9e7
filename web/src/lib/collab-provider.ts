import * as authProtocol from 'y-protocols/auth'
import { messageAuth, WebsocketProvider } from 'y-websocket'
import * as Y from 'yjs'

import { FINAL_CLOSE_CODES } from './close-codes'

/** Connection state of a document, as shown to the user. */
export type DocumentStatus = 'connecting' | 'connected' | 'disconnected'

export type DocumentConnection = {
  doc: Y.Doc
  provider: WebsocketProvider
  /** Closes the socket and frees the document. Call once, on unmount. */
  destroy: () => void
}

export type ConnectOptions = {
  /** Connection state changes (also called once right away with the current state). */
  onStatus?: (status: DocumentStatus) => void
  /** The first full sync with the server finished (also called at once if it already had). */
  onSynced?: () => void
  /** The server refused the document for good (close code 4401, 4403 or 4404): no reconnection. */
  onRefused?: (code: number) => void
  /** Another close code (the provider reconnects by itself). */
  onClosed?: (code: number) => void
  /**
   * The server answered an edit with the protocol's permission-denied message: the caller may
   * read but no longer write (for example a role changed to viewer while the report was open).
   */
  onPermissionDenied?: (reason: string) => void
  /** Origin of the server; defaults to the page's. */
  origin?: string
  /** The WebSocket class to use (tests); defaults to the browser's. */
  WebSocketPolyfill?: typeof WebSocket
}

/** `ws(s)://host/api/collab`: the y-websocket server URL; the report id is the room. */
export function collabServerUrl(origin: string = window.location.origin): string {
  const url = new URL(origin)
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:'
  url.pathname = '/api/collab'
  url.search = ''
  url.hash = ''
  return url.toString().replace(/\/$/, '')
}

/**
 * Opens the collaborative document of a report: one Y.Doc and one y-websocket provider, which
 * authenticates with the session cookie (nothing secret in the URL). Refusals (not signed in, no
 * access, no such report) stop the reconnection loop.
 */
export function connectReportDocument(reportId: string, options: ConnectOptions = {}): DocumentConnection {
  const doc = new Y.Doc()
  const provider = new WebsocketProvider(collabServerUrl(options.origin), reportId, doc, {
    disableBc: true,
    ...(options.WebSocketPolyfill ? { WebSocketPolyfill: options.WebSocketPolyfill } : {}),
    // Only refusals are final; an idle timeout, a slow connection or a restart reconnects.
    shouldReconnect: (event) => !FINAL_CLOSE_CODES.has(event.code),
  })
  let destroyed = false

  const onStatus = ({ status }: { status: DocumentStatus }) => options.onStatus?.(status)
  const onSync = (synced: boolean) => {
    if (synced) options.onSynced?.()
  }
  const onClose = (event: CloseEvent | null) => {
    const code = event?.code ?? 0
    if (FINAL_CLOSE_CODES.has(code)) {
      options.onRefused?.(code)
    } else if (code !== 0) {
      options.onClosed?.(code)
    }
  }
  // The protocol's auth message: the server refused an edit.
  provider.messageHandlers[messageAuth] = (_encoder, decoder, p) => {
    authProtocol.readAuthMessage(decoder, p.doc, (_doc, reason) => options.onPermissionDenied?.(reason))
  }
  provider.on('status', onStatus)
  provider.on('sync', onSync)
  provider.on('connection-close', onClose)
  // The provider connects inside its constructor: report what already happened.
  options.onStatus?.(provider.wsconnected ? 'connected' : provider.wsconnecting ? 'connecting' : 'disconnected')
  if (provider.synced) options.onSynced?.()

  return {
    doc,
    provider,
    destroy: () => {
      if (destroyed) return
      destroyed = true
      provider.off('status', onStatus)
      provider.off('sync', onSync)
      provider.off('connection-close', onClose)
      provider.destroy()
      doc.destroy()
    },
  }
}
