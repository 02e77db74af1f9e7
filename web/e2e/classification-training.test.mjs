// Enhanced Classification Training in the browser against the real server: a member of Bank A
// processes two files in enhanced-AI mode (a PSE file the classifier places, and a layout it
// cannot place, which waits for review); both reach the administrator's Pending Review list
// live. The administrator reviews the unknown layout (the engine's analysis, the learning
// opportunity, the processor's drag-and-drop mapper under a chosen lever) and rejects it with
// feedback; then approves the PSE classification, and the processing the approval queued is
// followed live to its 'Processing Complete' card with the run's real savings. The lists follow.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

import { expect, test } from '@playwright/test'

import { apiCall, csrfToken, login, newPage, screenshot } from './support/browser.mjs'
import { ACCOUNTS } from './support/server.mjs'
import { useServer } from './support/suite.mjs'

const webDir = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const BIN = resolve(webDir, process.env.CAPOPT_BIN ?? '../target/debug/capopt')
const work = mkdtempSync(join(tmpdir(), 'capopt-e2e-training-'))

const env = useServer()

/** A generated PSE exposure file. */
function generate(name, rows, seed) {
  const path = join(work, name)
  execFileSync(BIN, ['generate-exposures', '--lever', 'pse', '--rows', String(rows), '--seed', String(seed), '--output', path])
  return path
}

/** Uploads a file for enhanced-AI processing from the page's session; waits for its run to end in `state`. */
async function processFile(page, path, state) {
  const context = page.context()
  if (!(await csrfToken(context))) await context.request.get('/api/health')
  const response = await context.request.post('/api/files', {
    headers: { 'X-CSRF-Token': await csrfToken(context) },
    multipart: {
      file: { name: path.split('/').pop(), mimeType: 'text/csv', buffer: readFileSync(path) },
      options: JSON.stringify({ mode: 'enhanced-ai', leverId: null, process: true, mapping: null, riskWeightFormat: null, maturityUnit: null }),
    },
  })
  expect(response.status()).toBe(201)
  const { run, file } = await response.json()
  await expect.poll(async () => (await apiCall(page, 'GET', `/api/runs/${run.id}`)).body.state, { timeout: 60_000 }).toBe(state)
  return file.id
}

/** Drags with the mouse in small steps past the activation distance, like a person. */
async function drag(page, from, to) {
  await from.scrollIntoViewIfNeeded()
  const a = await from.boundingBox()
  const b = await to.boundingBox()
  await page.mouse.move(a.x + 30, a.y + a.height / 2)
  await page.mouse.down()
  await page.mouse.move(a.x + 40, a.y + a.height / 2 + 8, { steps: 4 })
  await page.mouse.move(b.x + 60, b.y + b.height / 2, { steps: 12 })
  await page.mouse.up()
}

test('an administrator rejects one classification and approves another, whose processing is followed live to its result', async ({ browser }) => {
  const admin = await newPage(browser, env.server.baseUrl)
  const member = await newPage(browser, env.server.baseUrl)
  await login(admin, ACCOUNTS.admin)
  await expect(admin).toHaveURL(/\/admin\/dashboard/)
  await login(member, ACCOUNTS.userA)
  await expect(member).toHaveURL(/\/client\/home/)

  await admin.getByRole('complementary', { name: 'Admin navigation' }).getByRole('link', { name: 'Classification training' }).click()
  await expect(admin).toHaveURL(/\/admin\/classification-training$/)
  await expect(admin.getByRole('heading', { name: 'Enhanced Classification Training' })).toBeVisible()
  await expect(admin.getByText('No pending classifications to review')).toBeVisible()

  // The member processes two files; both reach the administrator's list without a reload.
  const unknownPath = join(work, 'ledger-export.csv')
  writeFileSync(unknownPath, 'Reference,Amount,Notes\nL-1,1000,first\nL-2,2000,second\nL-3,1500,third\n')
  const pseFile = await processFile(member, generate('pse-book.csv', 200, 21), 'completed')
  await processFile(member, unknownPath, 'pending_review')
  await expect(admin.getByRole('tab', { name: 'Pending Review (2)' })).toBeVisible()
  const pending = admin.getByRole('table', { name: 'Pending Review (2)' })
  const unknownRow = pending.getByRole('row').filter({ hasText: 'ledger-export.csv' })
  await expect(unknownRow).toContainText('To be determined')
  await expect(unknownRow).toContainText('10.0%')
  await expect(pending.getByRole('row').filter({ hasText: 'pse-book.csv' })).toContainText('Public Sector Entities')
  await expect(admin.getByText('Showing 1 to 2 of 2 items')).toBeVisible()

  // The unknown layout: the analysis, the learning opportunity, the shared mapper; rejected.
  await pending.getByRole('button', { name: 'Review ledger-export.csv' }).click()
  await expect(admin.getByRole('tab', { name: 'ledger-export.csv' })).toHaveAttribute('data-state', 'active')
  await expect(admin.getByTestId('active-reviews')).toHaveText('1 active review')
  const unknownReview = admin.getByRole('region', { name: 'Review of ledger-export.csv' })
  await expect(unknownReview.getByTestId('classification-reason')).toHaveText('No lever evidence found')
  await expect(unknownReview.getByTestId('learning-opportunity')).toBeVisible()
  const mapping = unknownReview.getByRole('region', { name: 'Column Mapping' })
  await mapping.getByLabel('Lever').selectOption({ label: 'Corporates with Eligible Collateral' })
  await expect(mapping.getByTestId('target-Exposure_ID')).toBeVisible()
  await drag(admin, mapping.getByTestId('source-Reference'), mapping.getByTestId('target-Exposure_ID'))
  await expect(mapping.getByTestId('target-Exposure_ID').getByRole('combobox')).toHaveValue('Reference')
  await unknownReview.getByLabel('Feedback (required for learning)').fill('An accounting export, not an exposure file')
  await screenshot(admin, 'classification-training-unknown-layout')
  await unknownReview.getByRole('button', { name: 'Reject' }).click()
  await expect(admin.getByText('Classification rejected successfully')).toBeVisible()
  await expect(admin.getByRole('tab', { name: 'ledger-export.csv' })).toHaveCount(0)
  await expect(admin.getByRole('tab', { name: 'Pending Review (1)' })).toBeVisible()

  // The PSE classification: the evidence and suggestions; approved with the proposed lever.
  await admin.getByRole('tab', { name: 'Pending Review (1)' }).click()
  await admin.getByRole('button', { name: 'Review pse-book.csv' }).click()
  const review = admin.getByRole('region', { name: 'Review of pse-book.csv' })
  const analysis = review.getByRole('region', { name: 'Classification Analysis' })
  await expect(analysis.getByTestId('classification-reason')).toContainText('pse (')
  await expect(analysis.getByRole('region', { name: 'Identifier hits' })).toContainText('PSE list:')
  await expect(review.getByRole('region', { name: 'Smart Suggestions' }).getByRole('listitem').first()).toHaveAttribute('data-tone', 'green')
  await expect(review.getByRole('region', { name: 'Column Mapping' }).getByLabel('Lever')).toHaveValue('lever-pse')
  await review.getByLabel('Feedback (required for learning)').fill('Spanish public sector counterparties')
  await review.getByRole('button', { name: 'Approve' }).click()
  await expect(admin.getByText('Classification approved successfully')).toBeVisible()

  const done = review.getByRole('region', { name: 'Processing Complete' })
  await expect(done).toBeVisible({ timeout: 60_000 })
  await expect(admin.getByText('File "pse-book.csv" has been processed with Public Sector Entities (PSE) lever')).toBeVisible()
  const { body: file } = await apiCall(admin, 'GET', `/api/files/${pseFile}`)
  expect(file.processed).toBe(true)
  const millions = `${new Intl.NumberFormat('es-ES', { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(file.savingsRwas / 1e6)} M€ RWAs`
  await expect(done.getByTestId('review-savings-millions')).toHaveText(millions)
  await expect(done).toContainText('pse-book.csv')
  await screenshot(admin, 'classification-training-review')

  // The lists: nothing pending, both decisions in Recently Reviewed with their dates.
  await done.getByRole('button', { name: 'Close' }).click()
  await expect(admin.getByRole('tab', { name: 'Pending Review (0)' })).toBeVisible()
  await admin.getByRole('tab', { name: 'Recently Reviewed (2)' }).click()
  const reviewed = admin.getByRole('table', { name: 'Recently Reviewed (2)' })
  await expect(reviewed.getByRole('row').filter({ hasText: 'pse-book.csv' })).toContainText('Approved')
  await expect(reviewed.getByRole('row').filter({ hasText: 'ledger-export.csv' })).toContainText('Rejected')
  await expect(reviewed.getByRole('button', { name: 'View Details pse-book.csv' })).toBeVisible()
  await screenshot(admin, 'classification-training-lists')

  for (const page of [admin, member]) expect(page.errors).toEqual([])
  for (const page of [admin, member]) await page.context().close()
})
