// Browser tests (`npm run e2e`): @playwright/test drives Debian's Chromium (never a downloaded
// browser) against the real server, one fresh server per spec file (e2e/support/suite.mjs).
// CAPOPT_BIN and WEB_DIST name the binary and the built app (see the Makefile's test-e2e).
import { defineConfig } from '@playwright/test'

import { CHROMIUM_ARGS, CHROMIUM_BIN } from './e2e/support/browser.mjs'

export default defineConfig({
  testDir: 'e2e',
  testMatch: '*.test.mjs',
  // The specs start servers and share one machine; run them one at a time, in file order.
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  // One retry in CI, where the machine is shared with builds: a test that fails twice fails the
  // run, and one that passes only on retry is named in the summary (summary-reporter.mjs).
  retries: process.env.CI ? 1 : 0,
  timeout: 120_000,
  expect: { timeout: 15_000 },
  outputDir: 'test-results',
  reporter: [['list'], ['./e2e/support/summary-reporter.mjs']],
  use: {
    browserName: 'chromium',
    headless: true,
    viewport: { width: 1280, height: 800 },
    actionTimeout: 15_000,
    navigationTimeout: 30_000,
    screenshot: 'only-on-failure',
    launchOptions: { executablePath: CHROMIUM_BIN, args: CHROMIUM_ARGS },
  },
})
