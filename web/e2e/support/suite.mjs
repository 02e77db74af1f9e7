// One real server and one browser per spec file, started before its tests and stopped after.
import { after, before } from 'node:test'

import { launchBrowser } from './browser.mjs'
import { startServer } from './server.mjs'

/** Registers the hooks; the returned object's `server` and `browser` are set once `before` ran. */
export function useServerAndBrowser() {
  const env = { server: undefined, browser: undefined }
  before(async () => {
    env.server = await startServer()
    env.browser = await launchBrowser()
  })
  after(async () => {
    await env.browser?.close()
    await env.server?.stop()
  })
  return env
}
