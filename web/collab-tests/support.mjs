// Helpers for the collaboration tests: the real `capopt` server (which can be killed with SIGKILL
// and restarted on the same data directory and port), signed-in sessions, and real y-websocket
// providers that authenticate with the session cookie like a browser does.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

import WebSocket from 'ws'

import { freshDatabase } from '../e2e/support/server.mjs'
import { WebsocketProvider } from 'y-websocket'
import * as Y from 'yjs'

const here = dirname(fileURLToPath(import.meta.url))
const webDir = resolve(here, '..')
const repoDir = resolve(webDir, '..')

export const DEMO_PASSWORD = 'Demo-Password-1'
export const ACCOUNTS = {
  admin: 'admin@example.com',
  approver: 'approver@example.com',
  userA: 'user@bank-a.example',
  userB: 'user@bank-b.example',
  viewer: 'viewer@example.com',
}

/** The close codes of the web app (`web/src/api/types/CloseCode.ts`, generated from `collab::close`), read from its source. */
export function webCloseCodes() {
  const src = readFileSync(join(webDir, 'src/api/types/CloseCode.ts'), 'utf8')
  return Object.fromEntries([...src.matchAll(/^\s+([A-Z_]+): (\d+),$/gm)].map((m) => [m[1], Number(m[2])]))
}

/** The close codes of the server (`collab/src/close.rs`), read from its source. */
export function serverCloseCodes() {
  const src = readFileSync(join(repoDir, 'collab/src/close.rs'), 'utf8')
  return Object.fromEntries([...src.matchAll(/^pub const ([A-Z_]+): u16 = (\d+);$/gm)].map((m) => [m[1], Number(m[2])]))
}

function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolvePort(port))
    })
  })
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/** Polls `check` until it returns true (or throws after `timeoutMs`, naming `what`). */
export async function until(what, check, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await check()) return
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(25)
  }
}

/** A `capopt serve` process on a fixed port and data directory, which can be killed and restarted. */
export class Server {
  constructor() {
    this.child = null
    this.output = []
  }

  async start() {
    if (!this.dataDir) {
      this.dataDir = await mkdtemp(join(tmpdir(), 'capopt-collab-'))
      // SQLite in the data directory, or a fresh PostgreSQL database with $E2E_DATABASE_URL; kept
      // across restarts like the data directory.
      this.database = freshDatabase(this.dataDir)
      this.port = await freePort()
      this.baseUrl = `http://127.0.0.1:${this.port}`
    }
    const bin = resolve(webDir, process.env.CAPOPT_BIN ?? '../target/debug/capopt')
    if (!existsSync(bin)) throw new Error(`capopt binary not found at ${bin} (set CAPOPT_BIN)`)
    const child = spawn(bin, ['serve'], {
      env: {
        ...process.env,
        DATA_DIR: this.dataDir,
        ...(this.database.url ? { DATABASE_URL: this.database.url } : {}),
        SEED_DEMO: '1',
        DEMO_PASSWORD,
        PORT: String(this.port),
        BIND: '127.0.0.1',
        WEB_DIST: join(this.dataDir, 'no-web-app'),
        RUST_LOG: process.env.RUST_LOG ?? 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    child.stdout.on('data', (c) => this.output.push(c.toString()))
    child.stderr.on('data', (c) => this.output.push(c.toString()))
    this.child = child
    const deadline = Date.now() + 60_000
    for (;;) {
      if (child.exitCode !== null) throw new Error(`capopt exited with ${child.exitCode}:\n${this.output.join('')}`)
      try {
        const r = await fetch(`${this.baseUrl}/api/health`)
        if (r.ok) return
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`capopt did not start:\n${this.output.join('')}`)
      await sleep(100)
    }
  }

  /** Kills the process at once (no shutdown, no flush). */
  async kill() {
    if (!this.child || this.child.exitCode !== null) return
    const exited = new Promise((r) => this.child.once('exit', r))
    this.child.kill('SIGKILL')
    await exited
  }

  async stop() {
    if (this.child && this.child.exitCode === null) {
      const exited = new Promise((r) => this.child.once('exit', r))
      this.child.kill('SIGTERM')
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000)
      await exited
      clearTimeout(timer)
    }
    if (this.dataDir) await rm(this.dataDir, { recursive: true, force: true })
    this.database?.drop()
  }
}

/** Signs in and returns `{cookie, csrf}` for API calls and sockets. */
export async function signIn(baseUrl, email) {
  const jar = new Map()
  const keep = (response) => {
    for (const c of response.headers.getSetCookie()) {
      const [pair] = c.split(';')
      const i = pair.indexOf('=')
      jar.set(pair.slice(0, i), pair.slice(i + 1))
    }
  }
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ')
  keep(await fetch(`${baseUrl}/api/health`))
  const r = await fetch(`${baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Cookie: cookie(), 'X-CSRF-Token': jar.get('capopt_csrf') },
    body: JSON.stringify({ email, password: DEMO_PASSWORD }),
  })
  if (!r.ok) throw new Error(`login ${email}: HTTP ${r.status}`)
  keep(r)
  return { cookie: cookie(), csrf: jar.get('capopt_csrf'), baseUrl }
}

/** A JSON API call as a signed-in session. */
export async function apiCall(session, method, path, body) {
  const r = await fetch(`${session.baseUrl}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', Cookie: session.cookie, 'X-CSRF-Token': session.csrf },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await r.text()
  return { status: r.status, body: text ? JSON.parse(text) : undefined }
}

/** Creates a report and returns its id. */
export async function createReport(session, name) {
  const { status, body } = await apiCall(session, 'POST', '/api/reports', { name })
  if (status !== 201) throw new Error(`create report: HTTP ${status} ${JSON.stringify(body)}`)
  return body.id
}

/**
 * A real y-websocket provider for the report, authenticated by the session cookie (sent as a
 * header, as a browser sends it on a same-origin socket). Records close codes.
 */
export function openProvider(session, reportId, options = {}) {
  const doc = new Y.Doc()
  const cookie = session.cookie
  class CookieWebSocket extends WebSocket {
    constructor(url, protocols) {
      super(url, protocols, { headers: { Cookie: cookie } })
    }
  }
  const serverUrl = session.baseUrl.replace(/^http/, 'ws') + '/api/collab'
  const provider = new WebsocketProvider(serverUrl, reportId, doc, {
    WebSocketPolyfill: CookieWebSocket,
    disableBc: true,
    ...options,
  })
  const closes = []
  provider.on('connection-close', (event) => {
    if (event) closes.push(event.code)
  })
  return { doc, provider, closes, destroy: () => provider.destroy() }
}

/** Waits for a provider's first sync. */
export function synced(p, what = 'sync') {
  return until(what, () => p.provider.synced)
}

/** The sections of a report document, titles in order. */
export function sectionTitles(doc) {
  const out = []
  doc.getMap('sections').forEach((v, id) => out.push({ id, title: v.get('title'), order: v.get('order') }))
  return out.sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : a.id < b.id ? -1 : 1)).map((s) => s.title)
}
