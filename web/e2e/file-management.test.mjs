// File Management in the browser against the real server: an administrator filters every
// client's files, selects them (select-all on the page), assigns a lever in bulk and watches the
// queued runs move live to Processed, opens a file's details (Details with a savings edit, Edit
// History with the recorded changes, Actions with the downloads), and deletes in bulk with one
// file another administrator deleted meanwhile (the partial toast). Input files come from
// `capopt generate-exposures`.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

import { expect, test } from '@playwright/test'

import { apiCall, login, newPage, screenshot } from './support/browser.mjs'
import { ACCOUNTS } from './support/server.mjs'
import { useServer } from './support/suite.mjs'

const webDir = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const BIN = resolve(webDir, process.env.CAPOPT_BIN ?? '../target/debug/capopt')
const work = mkdtempSync(join(tmpdir(), 'capopt-e2e-fm-'))

function generate(lever, rows, name, seed = 7) {
  const path = join(work, name)
  execFileSync(BIN, ['generate-exposures', '--lever', lever, '--rows', String(rows), '--seed', String(seed), '--output', path])
  return path
}

/** Uploads a file (not processed) as the page's user; the stored file. */
async function upload(page, path, clientId) {
  const context = page.context()
  const csrf = (await context.cookies()).find((c) => c.name === 'capopt_csrf')?.value ?? ''
  const response = await context.request.post(clientId ? `/api/files?client_id=${clientId}` : '/api/files', {
    headers: { 'X-CSRF-Token': csrf },
    multipart: {
      file: { name: path.split('/').pop(), mimeType: 'text/csv', buffer: readFileSync(path) },
      options: JSON.stringify({ mode: 'manual', leverId: null, process: false, mapping: null, riskWeightFormat: null, maturityUnit: null }),
    },
  })
  expect(response.status()).toBe(201)
  return (await response.json()).file
}

test.describe('File Management', () => {
  const env = useServer()

  test('filters, selection, bulk lever assignment with live runs, the details tabs and a partial bulk delete', async ({ browser }) => {
    const userA = await newPage(browser, env.server.baseUrl)
    await login(userA, ACCOUNTS.userA)
    await expect(userA).toHaveURL(/\/client\/home/)
    const alpha = await upload(userA, generate('pse', 150_000, 'fm-alpha.csv', 1))
    const beta = await upload(userA, generate('pse', 50, 'fm-beta.csv', 2))
    const userB = await newPage(browser, env.server.baseUrl)
    await login(userB, ACCOUNTS.userB)
    await expect(userB).toHaveURL(/\/client\/home/)
    const gamma = await upload(userB, generate('pse', 50, 'fm-gamma.csv', 3))

    const page = await newPage(browser, env.server.baseUrl, { viewport: { width: 1440, height: 1000 } })
    await login(page, ACCOUNTS.admin)
    await expect(page).toHaveURL(/\/admin\/dashboard/)
    await page.getByRole('complementary', { name: 'Admin navigation' }).getByRole('link', { name: 'File Management' }).click()
    await expect(page.getByRole('heading', { name: 'File Management' })).toBeVisible()
    const table = page.getByRole('table', { name: 'Files' })
    const row = (name) => table.getByRole('row').filter({ hasText: name })
    // The search applies 500 ms after the last key (its list may come from the cache).
    const search = async (text) => {
      await page.getByLabel('Search').fill(text)
      await page.waitForTimeout(800)
    }

    // Filters, applied by the server.
    await search('fm-')
    await expect(table.getByRole('row')).toHaveCount(4)
    await expect(row('fm-gamma.csv')).toContainText('Bank B')
    await expect(row('fm-alpha.csv')).toContainText('To Be Determined')
    await expect(row('fm-alpha.csv')).toContainText('Pending')
    await page.getByLabel('Client').selectOption({ label: 'Bank B' })
    await expect(table.getByRole('row')).toHaveCount(2)
    await expect(row('fm-gamma.csv')).toBeVisible()
    const lever = page.getByLabel('Lever', { exact: true })
    await expect(lever).toBeDisabled()
    await page.getByLabel('Lever Category').selectOption('Assets')
    await expect(lever).toBeEnabled()
    await expect(page.getByText('No files found matching your criteria')).toBeVisible()
    await page.getByRole('button', { name: 'Clear Filters' }).click()
    await expect(page.getByLabel('Search')).toHaveValue('')
    await expect(lever).toBeDisabled()
    await expect(page.getByRole('button', { name: 'Clear Filters' })).toHaveCount(0)
    await search('fm-')
    await page.getByLabel('Status').selectOption('processed')
    await expect(page.getByText('No files found matching your criteria')).toBeVisible()
    await page.getByLabel('Status').selectOption('all')
    await expect(table.getByRole('row')).toHaveCount(4)

    // Selection: one row makes the page's checkbox mixed; the actions wait for a selection.
    await expect(page.getByRole('button', { name: 'Delete Files' })).toBeDisabled()
    await expect(page.getByRole('button', { name: 'Assign Lever' })).toBeDisabled()
    await page.getByRole('checkbox', { name: `Select row ${alpha.id}` }).check()
    await expect(page.getByRole('checkbox', { name: 'Select all rows on this page' })).toHaveAttribute('aria-checked', 'mixed')
    await page.getByRole('checkbox', { name: `Select row ${beta.id}` }).check()
    await expect(page.getByRole('button', { name: 'Clear Selection (2)' })).toBeEnabled()

    // Bulk assignment queues a run per file; the runs move live to Processed.
    await page.getByRole('button', { name: 'Assign Lever' }).click()
    const assign = page.getByRole('dialog', { name: 'Assign Lever' })
    await assign.getByLabel('Lever').selectOption({ label: 'Public Sector Entities (PSE) (Assets)' })
    await assign.getByRole('button', { name: 'Assign Lever' }).click()
    await expect(page.getByText('Lever assigned', { exact: true })).toBeVisible()
    await expect(page.getByText('Lever assigned to 2 files')).toBeVisible()
    await expect(assign).toBeHidden()
    await expect(page.getByRole('button', { name: 'Clear Selection (0)' })).toBeDisabled()
    await expect(row('fm-alpha.csv')).toContainText('Public Sector Entities (PSE)')
    // The large file's run is seen under way (queued, or a stage with its percent) ...
    await expect(row('fm-alpha.csv').getByTestId('run-state')).toHaveText(/Queued|\d+%/)
    // ... and then processed, with savings, without a reload.
    await expect(row('fm-alpha.csv')).toContainText('Processed', { timeout: 90_000 })
    await expect(row('fm-alpha.csv').getByTestId('run-state')).toHaveCount(0)
    await expect(row('fm-alpha.csv')).toContainText('€')
    await expect(row('fm-beta.csv')).toContainText('Processed', { timeout: 60_000 })
    await screenshot(page, 'file-management')

    // The details dialog.
    await row('fm-alpha.csv').getByText('fm-alpha.csv').click()
    const details = page.getByRole('dialog', { name: 'fm-alpha.csv' })
    await expect(details).toContainText('Bank A')
    await expect(details.getByRole('tab', { name: 'Details' })).toHaveAttribute('aria-selected', 'true')
    await expect(details).toContainText('Changes to savings will be immediately reflected in client dashboards and reports.')
    await expect(details.getByRole('button', { name: 'Process File with New Lever' })).toHaveCount(0)
    const saveRwas = details.getByRole('button', { name: 'Save Savings (RWAs)' })
    await expect(saveRwas).toBeDisabled()
    await details.getByLabel('Savings (RWAs)', { exact: true }).fill('12345.67')
    await expect(saveRwas).toBeEnabled()
    await saveRwas.click()
    await expect(page.getByText('Savings updated')).toBeVisible()
    await expect(saveRwas).toBeDisabled()
    await details.getByRole('tab', { name: 'Edit History' }).click()
    const history = details.getByRole('table', { name: 'Edit history' })
    await expect(history.getByRole('row').nth(1)).toContainText('Savings Rwas')
    await expect(history.getByRole('row').nth(1)).toContainText('12.345,67')
    await expect(history).toContainText('Lever')
    await expect(history).toContainText('Not set')
    await expect(history).toContainText('Public Sector Entities (PSE)')
    await expect(history).toContainText('Processed')
    await details.getByRole('tab', { name: 'Actions' }).click()
    const download = page.waitForEvent('download')
    await details.getByRole('button', { name: 'Download Original File' }).click()
    expect((await download).suggestedFilename()).toBe('fm-alpha.csv')
    const processed = page.waitForEvent('download')
    await details.getByRole('button', { name: 'Download Processed File' }).click()
    expect((await processed).suggestedFilename()).toBe('optimized_fm-alpha.csv')
    await page.keyboard.press('Escape')
    await expect(details).toBeHidden()
    await expect(row('fm-alpha.csv')).toContainText('12.346')

    // Bulk delete while another administrator deletes one of the files: the partial toast.
    await page.getByRole('checkbox', { name: `Select row ${beta.id}` }).check()
    await page.getByRole('checkbox', { name: `Select row ${gamma.id}` }).check()
    await page.getByRole('button', { name: 'Delete Files' }).click()
    const confirm = page.getByRole('dialog', { name: 'Delete Files' })
    await expect(confirm).toContainText('You are about to permanently delete 2 file(s). This action cannot be undone.')
    const other = await newPage(browser, env.server.baseUrl)
    await login(other, ACCOUNTS.admin)
    await expect(other).toHaveURL(/\/admin\/dashboard/)
    expect((await apiCall(other, 'DELETE', `/api/files/${gamma.id}`)).status).toBe(204)
    await confirm.getByRole('button', { name: 'Delete Files' }).click()
    await expect(page.getByText('Partial deletion completed')).toBeVisible()
    await expect(page.getByText('1 deleted successfully, 1 failed')).toBeVisible()
    await expect(confirm).toBeHidden()
    await expect(page.getByRole('button', { name: 'Clear Selection (0)' })).toBeDisabled()
    await expect(table.getByRole('row')).toHaveCount(2)
    await expect(row('fm-alpha.csv')).toBeVisible()
    expect(page.errors).toEqual([])
  })

  test('other roles are sent away from the screen', async ({ browser }) => {
    const page = await newPage(browser, env.server.baseUrl)
    await login(page, ACCOUNTS.userA)
    await expect(page).toHaveURL(/\/client\/home/)
    await page.goto('/admin/file-management')
    await expect(page).toHaveURL(/\/client\/home/)
    expect((await apiCall(page, 'GET', '/api/admin/files')).status).toBe(403)
  })
})
