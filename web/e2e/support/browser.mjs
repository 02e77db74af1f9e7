// Helpers for the browser tests. @playwright/test launches Debian's Chromium with these
// arguments (playwright.config.js); no browser is ever downloaded.
import { mkdir } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

import { DEMO_PASSWORD } from './server.mjs'

const screenshotDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'screenshots')

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** Debian's Chromium, or $CHROMIUM_BIN. */
export const CHROMIUM_BIN = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium'

// The contexts newPage made and nobody closed yet; useServer closes them after a spec file, so a
// file's pages (live sockets, polling) never keep running through the next files.
const openContexts = new Set()

/** Closes every context newPage made that is still open. */
export async function closeOpenContexts() {
  const contexts = [...openContexts]
  openContexts.clear()
  await Promise.all(contexts.map((context) => context.close().catch(() => {})))
}

/**
 * A fresh browser context (own cookies) on the server at `baseUrl`; its page collects uncaught
 * page errors in `page.errors`, which the tests assert empty.
 */
export async function newPage(browser, baseUrl, options = {}) {
  const context = await browser.newContext({ baseURL: baseUrl, viewport: { width: 1280, height: 800 }, ...options })
  openContexts.add(context)
  context.on('close', () => openContexts.delete(context))
  // Contexts made by hand do not take the config's `use` timeouts.
  context.setDefaultTimeout(15_000)
  const page = await context.newPage()
  const errors = []
  page.on('pageerror', (error) => errors.push(error))
  page.errors = errors
  return page
}

/** Signs in through the login form. */
export async function login(page, email, password = DEMO_PASSWORD) {
  await page.goto('/login')
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password', { exact: true }).fill(password)
  await page.getByRole('button', { name: 'Sign In' }).click()
}

/** The value of the CSRF cookie of a page's context. */
export async function csrfToken(context) {
  const cookie = (await context.cookies()).find((c) => c.name === 'capopt_csrf')
  return cookie?.value ?? ''
}

/** A JSON API call from the page's context (shares its cookies), with the CSRF header. */
export async function apiCall(page, method, path, body) {
  const context = page.context()
  // The server hands out the CSRF cookie on any API response; make sure there is one.
  if (method !== 'GET' && !(await csrfToken(context))) await context.request.get('/api/health')
  const response = await context.request.fetch(path, {
    method,
    data: body,
    headers: method === 'GET' ? {} : { 'X-CSRF-Token': await csrfToken(context) },
  })
  const text = await response.text()
  return { status: response.status(), body: text ? JSON.parse(text) : undefined }
}

/** Saves a screenshot under e2e/screenshots when E2E_SCREENSHOTS is set. */
export async function screenshot(page, name) {
  if (!process.env.E2E_SCREENSHOTS) return
  await mkdir(screenshotDir, { recursive: true })
  await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true, animations: 'disabled' })
}
