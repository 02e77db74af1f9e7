/** A WebSocket stand-in for the event socket (`/api/ws`) that a test drives by hand. */
export class FakeEventSocket {
  static all: FakeEventSocket[] = []
  readyState = 0
  sent: { op: string; topics?: string[] }[] = []
  closedWith: number | null = null
  onopen: ((ev: Event) => void) | null = null
  onclose: ((ev: CloseEvent) => void) | null = null
  onmessage: ((ev: MessageEvent) => void) | null = null
  onerror: ((ev: Event) => void) | null = null
  readonly url: string
  constructor(url = '') {
    this.url = url
    FakeEventSocket.all.push(this)
  }
  /** The socket opened last. */
  static latest(): FakeEventSocket {
    return FakeEventSocket.all[FakeEventSocket.all.length - 1]!
  }
  send(data: string) {
    this.sent.push(JSON.parse(data))
  }
  close(code = 1000) {
    this.closedWith = code
    this.serverClose(code)
  }
  open() {
    this.readyState = 1
    this.onopen?.(new Event('open'))
  }
  /** Delivers an event frame `{topic, seq, type, data}`. */
  frame(topic: string, seq: number, type: string, data: unknown = null) {
    this.onmessage?.(new MessageEvent('message', { data: JSON.stringify({ topic, seq, type, data }) }))
  }
  serverClose(code: number) {
    this.readyState = 3
    this.onclose?.(new CloseEvent('close', { code }))
  }
}
