import { describe, expect, it, vi } from 'vitest'

import { connectReportDocument } from './collab-provider'

/** A socket that opens at once and lets the test deliver server frames. */
class FakeSocket {
  static last: FakeSocket | null = null
  binaryType = 'arraybuffer'
  readyState = 0
  onopen: (() => void) | null = null
  onmessage: ((ev: { data: ArrayBuffer }) => void) | null = null
  onclose: ((ev: { code: number }) => void) | null = null
  onerror: (() => void) | null = null
  sent: Uint8Array[] = []
  url: string
  constructor(url: string) {
    this.url = url
    FakeSocket.last = this
    queueMicrotask(() => {
      this.readyState = 1
      this.onopen?.()
    })
  }
  send(data: Uint8Array) {
    this.sent.push(data)
  }
  close() {
    this.readyState = 3
  }
  deliver(bytes: Uint8Array) {
    this.onmessage?.({ data: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer })
  }
}

describe('report document connection', () => {
  it("reports the protocol's permission-denied answer", async () => {
    const denied = vi.fn()
    const conn = connectReportDocument('r-1', {
      origin: 'http://localhost',
      onPermissionDenied: denied,
      WebSocketPolyfill: FakeSocket as unknown as typeof WebSocket,
    })
    await vi.waitFor(() => expect(FakeSocket.last?.readyState).toBe(1))
    expect(FakeSocket.last?.url).toBe('ws://localhost/api/collab/r-1')
    // y-protocols: [messageAuth = 2, permissionDenied = 0, reason as a length-prefixed string]
    const reason = new TextEncoder().encode('read-only')
    FakeSocket.last!.deliver(new Uint8Array([2, 0, reason.length, ...reason]))
    expect(denied).toHaveBeenCalledWith('read-only')
    conn.destroy()
  })
})
