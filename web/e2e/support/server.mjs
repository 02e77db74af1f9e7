// Starts the real `capopt` server on a free port with a fresh data directory and demo data,
// serving the built web app, and stops it at the end.
import { execFileSync, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const webDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..')

/**
 * The database of a test server: a fresh PostgreSQL database on the server of
 * $E2E_DATABASE_URL when it is set (created here with psql, dropped at the end), else the SQLite
 * file in the server's data directory.
 */
export function freshDatabase(dataDir) {
  const base = process.env.E2E_DATABASE_URL
  if (!base) {
    const path = join(dataDir, 'capopt.db')
    return {
      url: undefined,
      query: (sql) => execFileSync('sqlite3', [path, sql], { encoding: 'utf8' }),
      drop: () => {},
    }
  }
  const name = `capopt_e2e_${Math.random().toString(36).slice(2, 12)}`
  execFileSync('psql', [base, '-qc', `CREATE DATABASE ${name}`])
  const url = `${base.slice(0, base.lastIndexOf('/'))}/${name}`
  return {
    url,
    query: (sql) => execFileSync('psql', [url, '-Atqc', sql], { encoding: 'utf8' }),
    drop: () => {
      try {
        execFileSync('psql', [base, '-qc', `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`])
      } catch {
        // Dropped by make clean-test-dbs later.
      }
    },
  }
}

export const DEMO_PASSWORD = 'Demo-Password-1'
export const ACCOUNTS = {
  admin: 'admin@example.com',
  approver: 'approver@example.com',
  /** Bank A's own approver (a user whose membership role is approver). */
  approver2: 'approver2@example.com',
  userA: 'user@bank-a.example',
  userB: 'user@bank-b.example',
  viewer: 'viewer@example.com',
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

async function waitForHealth(baseUrl, child, output, timeoutMs) {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`capopt exited with code ${child.exitCode} before it was healthy:\n${output.join('')}`)
    }
    try {
      const response = await fetch(`${baseUrl}/api/health`)
      if (response.ok) {
        const body = await response.json()
        if (body.status === 'ok') return
      }
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error(`capopt did not answer /api/health within ${timeoutMs} ms:\n${output.join('')}`)
}

/**
 * Starts `capopt serve`. The binary is $CAPOPT_BIN (default ../target/debug/capopt relative to
 * web/), the web app $WEB_DIST (default web/dist).
 */
export async function startServer() {
  const bin = resolve(webDir, process.env.CAPOPT_BIN ?? '../target/debug/capopt')
  const webDist = resolve(webDir, process.env.WEB_DIST ?? 'dist')
  if (!existsSync(bin)) throw new Error(`capopt binary not found at ${bin} (set CAPOPT_BIN)`)
  if (!existsSync(join(webDist, 'index.html'))) throw new Error(`built web app not found in ${webDist} (run npm run build)`)

  const dataDir = await mkdtemp(join(tmpdir(), 'capopt-e2e-'))
  const database = freshDatabase(dataDir)
  const port = await freePort()
  const baseUrl = `http://127.0.0.1:${port}`
  const output = []
  const child = spawn(bin, ['serve'], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      ...(database.url ? { DATABASE_URL: database.url } : {}),
      SEED_DEMO: '1',
      DEMO_PASSWORD,
      PORT: String(port),
      BIND: '127.0.0.1',
      WEB_DIST: webDist,
      PUBLIC_URL: baseUrl,
      RUST_LOG: process.env.RUST_LOG ?? 'warn',
      // The browser tests share the cores with Chromium and the other workers' servers: engine
      // threads scheduled as idle work would wait for all of them (the latency idle work buys
      // is measured by load-tests runs-live).
      RUN_IDLE: process.env.RUN_IDLE ?? 'false',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout.on('data', (chunk) => output.push(chunk.toString()))
  child.stderr.on('data', (chunk) => output.push(chunk.toString()))

  try {
    await waitForHealth(baseUrl, child, output, 60_000)
  } catch (error) {
    child.kill('SIGKILL')
    await rm(dataDir, { recursive: true, force: true })
    database.drop()
    throw error
  }

  return {
    baseUrl,
    dataDir,
    /** Runs one SQL statement on the server's database (SQLite or PostgreSQL); its output rows. */
    sql: database.query,
    output,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r))
        child.kill('SIGTERM')
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
        await exited
        clearTimeout(timer)
      }
      await rm(dataDir, { recursive: true, force: true })
      database.drop()
    },
  }
}

/**
 * The latest mail to `email`, read from the outbox table of the server's database (the
 * operator's view: admins see the links' tokens masked). Waits up to 5 s for it.
 */
export async function lastMailTo(server, email) {
  const sql = `SELECT body FROM outbox WHERE to_addr = '${email.replaceAll("'", "''")}' ORDER BY created_at DESC LIMIT 1`
  for (let i = 0; i < 50; i++) {
    const body = server.sql(sql)
    if (body.trim()) return { body }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`no mail to ${email} in the outbox`)
}
