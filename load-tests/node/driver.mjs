// Typing load with the stock providers, as browsers run them: N editors, each with its own Y.Doc,
// its own socket and the provider a browser would use against that server (y-websocket's
// WebsocketProvider for capopt and @y/websocket-server, Hocuspocus's own provider for
// Hocuspocus), each inserting a token `[m<editor>.<n>@<sent>]` into one Y.Text `rate` times a
// second. The editors are spread over `processes` Node processes (this file forks them: one
// process's event loop cannot apply 300 editors' updates and would measure itself), which follow
// one schedule in wall-clock time set by the parent once every editor has synced.
//
// Measured per connection, by kind of message (update, sync step 1, sync step 2, awareness,
// other), in both directions: messages and bytes per second. Deliveries: every token sent during
// the window (`m`) is looked for in the frames each other connection receives (the inserted text
// travels as plain UTF-8 in a v1 update, however the server batches it); a token found twice in
// one connection's frames is a duplicate. Latency: observers (the first `observers` editors)
// record, for each token, the time from its insertion (its `@<sent>`, epoch milliseconds, which
// every process reads from the same clock) to its first arrival in a received frame.
//
// Usage: node driver.mjs '<json config>'  (see `defaults` below); prints one JSON object.

import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'

import WebSocket from 'ws'
import * as Y from 'yjs'
import { WebsocketProvider } from 'y-websocket'
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider'
import * as decoding from 'lib0/decoding'

const defaults = {
  target: 'capopt', // capopt | hocuspocus | y-websocket
  base: 'http://127.0.0.1:8080',
  doc: 'load-test-doc',
  cookie: '',
  editors: 50,
  rate: 5,
  seconds: 20,
  observers: 10,
  // Editors that read their socket slowly: they pause reading for `slowPauseMs` every second.
  slow: 0,
  slowPauseMs: 800,
  // Also move the caret (awareness) with every edit, as Tiptap's caret extension does.
  awareness: false,
  connectTimeoutMs: 60000,
  drainMs: 3000,
  // Node processes the editors are spread over (editor i goes to process i % processes).
  processes: 2,
}
const cfg = { ...defaults, ...JSON.parse(process.argv[2] || '{}') }
const wsBase = cfg.base.replace(/^http/, 'ws')
const KINDS = ['update', 'step1', 'step2', 'awareness', 'other']

// Epoch milliseconds, fractional: one clock for every process of the run.
const now = () => performance.timeOrigin + performance.now()

/** The kind of a y-protocols message (after Hocuspocus's document-name prefix, if any). */
function kindOf(bytes) {
  try {
    const d = decoding.createDecoder(bytes)
    if (cfg.target === 'hocuspocus') decoding.readVarString(d)
    const type = decoding.readVarUint(d)
    if (type === 0) {
      const sub = decoding.readVarUint(d)
      return sub === 0 ? 'step1' : sub === 1 ? 'step2' : sub === 2 ? 'update' : 'other'
    }
    if (type === 1) return 'awareness'
    return 'other'
  } catch {
    return 'other'
  }
}

function counters() {
  const c = {}
  for (const k of KINDS) c[k] = { messages: 0, bytes: 0 }
  return c
}

const state = {
  measuring: false,
  sentBy: new Map(), // editor -> tokens sent in the window
  latencies: [],
  editors: [],
}

// Tokens look like `[m12.345@1764151234567.8]`: editor 12, edit 345, sent in the measured window
// (`m`) at that epoch millisecond. Warm-up tokens start with `w` and are not counted.
const TOKEN = /\[m(\d+)\.\d+@([\d.]+)\]/g

class Conn {
  constructor(i) {
    this.i = i
    this.rx = counters()
    this.tx = counters()
    this.seen = new Set()
    this.deliveries = 0
    this.duplicates = 0
    this.observer = i < cfg.observers
    this.slow = i >= cfg.editors - cfg.slow
    this.closes = 0
    this.opens = 0
  }

  onFrame(buf) {
    const bytes = buf instanceof ArrayBuffer ? new Uint8Array(buf) : new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength)
    const kind = kindOf(bytes)
    if (state.measuring) {
      this.rx[kind].messages++
      this.rx[kind].bytes += bytes.byteLength
    }
    if (kind === 'update' || kind === 'step2') {
      const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')
      const t = now()
      for (const m of text.matchAll(TOKEN)) {
        const token = m[0]
        if (Number(m[1]) === this.i) continue
        if (this.seen.has(token)) {
          this.duplicates++
          continue
        }
        this.seen.add(token)
        this.deliveries++
        if (this.observer) state.latencies.push(t - Number(m[2]))
      }
    }
  }

  onSend(data) {
    if (!state.measuring) return
    const bytes = data instanceof Uint8Array ? data : new Uint8Array(data)
    const kind = kindOf(bytes)
    this.tx[kind].messages++
    this.tx[kind].bytes += bytes.byteLength
  }
}

/** A WebSocket class for the providers that counts every frame of its connection. */
function socketClass(conn) {
  const headers = cfg.cookie ? { cookie: cfg.cookie } : {}
  return class CountingSocket extends WebSocket {
    constructor(url, protocols) {
      super(url, protocols, { headers, perMessageDeflate: false })
      conn.opens++
      this.on('message', (data) => conn.onFrame(data))
      this.on('close', () => conn.closes++)
      if (conn.slow) {
        // A slow reader: stop reading the socket for a while every second.
        const timer = setInterval(() => {
          if (this._socket && this.readyState === WebSocket.OPEN) {
            this._socket.pause()
            setTimeout(() => this._socket && this._socket.resume(), cfg.slowPauseMs)
          }
        }, 1000)
        this.on('close', () => clearInterval(timer))
      }
    }

    send(data, ...rest) {
      conn.onSend(data)
      return super.send(data, ...rest)
    }
  }
}

function openEditor(i) {
  const conn = new Conn(i)
  const doc = new Y.Doc()
  const text = doc.getText('load')
  let provider
  let synced
  const ready = new Promise((resolve) => (synced = resolve))
  if (cfg.target === 'hocuspocus') {
    const websocketProvider = new HocuspocusProviderWebsocket({
      url: wsBase,
      WebSocketPolyfill: socketClass(conn),
    })
    provider = new HocuspocusProvider({
      name: cfg.doc,
      document: doc,
      token: 'load-test',
      websocketProvider,
      onSynced: () => synced(),
    })
    provider.attach?.()
  } else {
    const url = cfg.target === 'capopt' ? `${wsBase}/api/collab` : wsBase
    provider = new WebsocketProvider(url, cfg.doc, doc, {
      WebSocketPolyfill: socketClass(conn),
      disableBc: true,
    })
    provider.on('sync', (isSynced) => isSynced && synced())
  }
  return { i, conn, doc, text, provider, ready, n: 0 }
}

function percentile(sorted, p) {
  if (!sorted.length) return null
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

const sleepUntil = (t) => new Promise((r) => setTimeout(r, Math.max(0, t - now())))

/** One process's share: open its editors, report them synced, type on the parent's schedule. */
async function worker(index) {
  const mine = []
  for (let i = index; i < cfg.editors; i += cfg.processes) mine.push(i)
  for (const [k, i] of mine.entries()) {
    state.editors.push(openEditor(i))
    state.sentBy.set(i, 0)
    if (k % 20 === 19) await new Promise((r) => setTimeout(r, 20))
  }
  const timeout = new Promise((_, reject) =>
    setTimeout(() => reject(new Error('editors did not sync in time')), cfg.connectTimeoutMs),
  )
  await Promise.race([Promise.all(state.editors.map((e) => e.ready)), timeout])
  const schedule = new Promise((resolve) => process.once('message', resolve))
  process.send({ synced: mine.length })
  const { startAt, measureFrom, measureUntil } = await schedule

  // Typing: each editor on its own timer, phases spread over the period.
  const period = 1000 / cfg.rate
  const timers = []
  await sleepUntil(startAt)
  for (const e of state.editors) {
    const start = Math.random() * period
    timers.push(
      setTimeout(() => {
        const tick = () => {
          e.n++
          const t = now()
          const measured = t >= measureFrom && t < measureUntil
          const token = measured ? `[m${e.i}.${e.n}@${t.toFixed(1)}]` : `[w${e.i}.${e.n}]`
          if (measured) state.sentBy.set(e.i, state.sentBy.get(e.i) + 1)
          // At the end, as a writer types: a token is never split by another's insertion, so
          // it stays whole in any diff or sync step 2 the server computes.
          const len = e.text.length
          e.text.insert(len, token)
          if (cfg.awareness) {
            e.provider.awareness?.setLocalStateField('cursor', { anchor: len, head: len })
          }
        }
        tick()
        timers.push(setInterval(tick, period))
      }, start),
    )
  }
  await sleepUntil(measureFrom)
  state.measuring = true
  await sleepUntil(measureUntil)
  state.measuring = false
  for (const t of timers) clearInterval(t)
  // Let what is in flight arrive; frames still count for deliveries, not for rates.
  await new Promise((r) => setTimeout(r, cfg.drainMs))
  const conns = state.editors.map((e) => ({
    i: e.i,
    slow: e.conn.slow,
    rx: e.conn.rx,
    tx: e.conn.tx,
    deliveries: e.conn.deliveries,
    duplicates: e.conn.duplicates,
    opens: e.conn.opens,
    sent: state.sentBy.get(e.i),
  }))
  process.send({ conns, latencies: state.latencies }, () => {
    for (const e of state.editors) e.provider.destroy()
    setTimeout(() => process.exit(0), 200)
  })
}

/** The parent: forks the processes, sets the schedule once all are synced, merges the results. */
async function coordinate() {
  const children = []
  const synced = []
  const results = []
  const failed = new Promise((_, reject) => {
    for (let p = 0; p < cfg.processes; p++) {
      const child = fork(fileURLToPath(import.meta.url), [JSON.stringify({ ...cfg, worker: p })], {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      })
      children.push(child)
      synced.push(new Promise((resolve) => child.once('message', resolve)))
      results.push(
        new Promise((resolve) =>
          child.on('message', (m) => {
            if (m.conns) resolve(m)
          }),
        ),
      )
      child.on('exit', (code) => code !== 0 && reject(new Error(`driver process ${p} exited with ${code}`)))
    }
  })
  failed.catch(() => {})
  await Promise.race([Promise.all(synced), failed])
  const period = 1000 / cfg.rate
  const startAt = now() + 200
  // One period of warm-up, not measured, then the window.
  const measureFrom = startAt + period * 2
  const measureUntil = measureFrom + cfg.seconds * 1000
  for (const child of children) child.send({ startAt, measureFrom, measureUntil })
  const parts = await Promise.race([Promise.all(results), failed])
  const elapsed = cfg.seconds

  const conns = parts.flatMap((p) => p.conns)
  const sentTotal = conns.reduce((a, c) => a + c.sent, 0)
  const expectedPer = (c) => sentTotal - c.sent
  const fast = conns.filter((c) => !c.slow)
  const perSecond = (pick) => {
    const out = {}
    for (const k of KINDS) {
      const m = fast.reduce((a, c) => a + pick(c)[k].messages, 0) / fast.length / elapsed
      const b = fast.reduce((a, c) => a + pick(c)[k].bytes, 0) / fast.length / elapsed
      out[k] = { messagesPerSecond: +m.toFixed(2), bytesPerSecond: Math.round(b) }
    }
    return out
  }
  const lat = parts.flatMap((p) => p.latencies).sort((a, b) => a - b)
  const slowConns = conns.filter((c) => c.slow)
  const result = {
    target: cfg.target,
    editors: cfg.editors,
    driverProcesses: cfg.processes,
    ratePerEditor: cfg.rate,
    seconds: elapsed,
    awareness: cfg.awareness,
    updatesSent: sentTotal,
    intendedUpdates: Math.round(cfg.editors * cfg.rate * elapsed),
    deliveries: conns.reduce((a, c) => a + c.deliveries, 0),
    expectedDeliveries: conns.reduce((a, c) => a + expectedPer(c), 0),
    duplicateDeliveries: conns.reduce((a, c) => a + c.duplicates, 0),
    reconnects: conns.reduce((a, c) => a + Math.max(0, c.opens - 1), 0),
    latencyMs: {
      samples: lat.length,
      p50: percentile(lat, 50),
      p99: percentile(lat, 99),
      max: lat.length ? lat[lat.length - 1] : null,
    },
    perConnectionReceived: perSecond((c) => c.rx),
    perConnectionSent: perSecond((c) => c.tx),
    slow: slowConns.length
      ? {
          connections: slowConns.length,
          deliveries: slowConns.reduce((a, c) => a + c.deliveries, 0),
          expected: slowConns.reduce((a, c) => a + expectedPer(c), 0),
          duplicates: slowConns.reduce((a, c) => a + c.duplicates, 0),
          reconnects: slowConns.reduce((a, c) => a + Math.max(0, c.opens - 1), 0),
        }
      : null,
  }
  process.stdout.write(JSON.stringify(result) + '\n')
}

const run = cfg.worker === undefined ? coordinate() : worker(cfg.worker)
run.catch((e) => {
  console.error(e?.stack || String(e))
  process.exit(1)
})
