// One real server per spec file, started before its first test and stopped after its last (the
// file's browser contexts closed first).
import { test } from '@playwright/test'

import { closeOpenContexts } from './browser.mjs'
import { startServer } from './server.mjs'

/** Registers the hooks; the returned object's `server` is set once `beforeAll` ran. */
export function useServer() {
  const env = { server: undefined }
  test.beforeAll(async () => {
    env.server = await startServer()
  })
  test.afterAll(async () => {
    await closeOpenContexts()
    await env.server?.stop()
  })
  return env
}
