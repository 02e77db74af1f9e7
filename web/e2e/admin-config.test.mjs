// The administrators' Processing Runs, Column Configuration and Universal Column Mappings screens
// against the real server: a run a client starts shows up live with its stages on the runs page
// (without the page reloading itself over and over), a column made required by an administrator
// is required by the client's mapping dialog, and the universal suggestions are added, switched
// and counted, and a definition dragged to a new place with the keyboard keeps that place after a
// reload.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

import { expect, test } from '@playwright/test'

import { apiCall, csrfToken, login, newPage, screenshot } from './support/browser.mjs'
import { ACCOUNTS } from './support/server.mjs'
import { useServer } from './support/suite.mjs'

const webDir = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const BIN = resolve(webDir, process.env.CAPOPT_BIN ?? '../target/debug/capopt')
const work = mkdtempSync(join(tmpdir(), 'capopt-e2e-admin-'))

function generate(lever, rows, name, seed = 7) {
  const path = join(work, name)
  execFileSync(BIN, ['generate-exposures', '--lever', lever, '--rows', String(rows), '--seed', String(seed), '--output', path])
  return path
}

test.describe('administrators: processing runs, column configuration, universal mappings', () => {
  const env = useServer()

  test('a run a client starts shows up live on the runs page with its stages', async ({ browser }) => {
    const admin = await newPage(browser, env.server.baseUrl, { viewport: { width: 1500, height: 1000 } })
    await login(admin, ACCOUNTS.admin)
    await expect(admin).toHaveURL(/\/admin\/dashboard/)
    await admin.getByRole('complementary', { name: 'Admin navigation' }).getByRole('link', { name: 'Processing Runs' }).click()
    await expect(admin.getByRole('heading', { name: 'Processing Runs' })).toBeVisible()
    const table = admin.getByRole('table', { name: 'Processing runs' })
    await expect(table.getByText('No processing runs found')).toBeVisible()
    // Count the page's reads of the list, and record every state and stage the rows show.
    let reads = 0
    admin.on('request', (r) => {
      if (r.method() === 'GET' && new URL(r.url()).pathname === '/api/admin/runs') reads++
    })
    await admin.evaluate(() => {
      const { document, MutationObserver } = globalThis
      globalThis.__seen = new Set()
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('[data-testid="run-stage"], [data-testid="run-state"]')) globalThis.__seen.add(el.textContent)
      }).observe(document.body, { subtree: true, childList: true, characterData: true })
    })
    // The page subscribes to the admin runs topic, then reads the list again.
    await admin.waitForTimeout(1000)
    const before = reads

    // The client uploads a large file for processing (enhanced AI: the run classifies it).
    const user = await newPage(browser, env.server.baseUrl)
    await login(user, ACCOUNTS.userA)
    await expect(user).toHaveURL(/\/client\/home/)
    const path = generate('pse', 150_000, 'live-run.csv')
    const upload = await user.context().request.post('/api/files', {
      headers: { 'X-CSRF-Token': await csrfToken(user.context()) },
      multipart: {
        file: { name: 'live-run.csv', mimeType: 'text/csv', buffer: readFileSync(path) },
        options: JSON.stringify({ mode: 'enhanced-ai', leverId: null, process: true, mapping: null, riskWeightFormat: null, maturityUnit: null }),
      },
    })
    expect(upload.status()).toBe(201)

    const row = table.getByRole('row', { name: /live-run\.csv/ })
    await expect(row).toBeVisible()
    await expect(row.getByText('Bank A')).toBeVisible()
    await expect(row.getByText('Enhanced AI')).toBeVisible()
    await expect(row.getByTestId('run-state')).toHaveText('Completed', { timeout: 90_000 })
    await expect(row.getByText('Public Sector Entities (PSE)')).toBeVisible()
    await screenshot(admin, 'admin-runs-live')
    const seen = await admin.evaluate(() => [...globalThis.__seen])
    expect(seen).toContain('Running')
    expect(seen.some((s) => ['Reading the file', 'Classifying the lever', 'Mapping columns', 'Analysing exposures', 'Writing the optimized file'].includes(s))).toBe(true)
    // Progress came through the events, not by reading the page again and again: the new run and
    // its end are the only reasons to read it (a few reads, not one per event).
    expect(reads - before).toBeLessThanOrEqual(6)

    expect(admin.errors).toEqual([])
  })

  test('a column made required by an administrator is required by the client mapping dialog', async ({ browser }) => {
    const admin = await newPage(browser, env.server.baseUrl, { viewport: { width: 1400, height: 1100 } })
    await login(admin, ACCOUNTS.admin)
    await expect(admin).toHaveURL(/\/admin\/dashboard/)
    await admin.getByRole('complementary', { name: 'Admin navigation' }).getByRole('link', { name: 'Column Configuration' }).click()
    await expect(admin.getByRole('heading', { name: 'Column Configuration' })).toBeVisible()
    await expect(admin.getByText('No lever selected')).toBeVisible()
    const lever = admin.getByLabel('Lever')
    const pse = await lever.locator('option', { hasText: /Public Sector/ }).first().getAttribute('value')
    await lever.selectOption(pse)
    const list = admin.getByRole('list', { name: /Column definitions of Public Sector/ })
    await expect(list.getByTestId('column-definition')).toHaveCount(19)

    // Make SCRA_Grade required.
    await admin.getByRole('button', { name: 'Edit SCRA_Grade' }).click()
    const dialog = admin.getByRole('dialog', { name: 'Edit Column Definition' })
    await dialog.getByLabel('Required').check()
    await dialog.getByRole('button', { name: 'Save Changes' }).click()
    await expect(admin.getByText('Column updated')).toBeVisible()
    await expect(dialog).toBeHidden()

    await screenshot(admin, 'admin-column-configuration')

    // The client's mapping dialog now requires SCRA_Grade, which the file does not have.
    const user = await newPage(browser, env.server.baseUrl, { viewport: { width: 1400, height: 1100 } })
    await login(user, ACCOUNTS.userA)
    await expect(user).toHaveURL(/\/client\/home/)
    await user.goto('/client/file-processor?mode=manual')
    await user.getByLabel('File to upload').setInputFiles(generate('pse', 50, 'required.csv'))
    const userLever = user.getByLabel('Lever')
    await expect(userLever).toBeEnabled()
    await userLever.selectOption(await userLever.locator('option', { hasText: /Public Sector/ }).first().getAttribute('value'))
    await user.getByRole('button', { name: 'Upload & Process' }).click()
    const mapping = user.getByRole('dialog', { name: 'Column Mapping' })
    await expect(mapping).toBeVisible()
    const validation = mapping.getByRole('region', { name: 'Validation' })
    await expect(validation.getByText('Missing required columns for PSE analysis')).toBeVisible()
    await expect(validation.getByText('SCRA_Grade', { exact: true })).toBeVisible()
    await mapping.getByRole('button', { name: 'Process File with Mapping' }).click()
    await expect(user.getByText('The following required columns are not mapped: SCRA_Grade')).toBeVisible()

    // Delete with the confirmation.
    await admin.getByRole('button', { name: 'Delete SCRA_Grade' }).click()
    const confirm = admin.getByRole('dialog', { name: 'Delete Column Definition' })
    await confirm.getByRole('button', { name: 'Delete' }).click()
    await expect(admin.getByText('Column deleted')).toBeVisible()
    await expect(list.getByTestId('column-definition')).toHaveCount(18)
    expect(admin.errors).toEqual([])
    expect(user.errors).toEqual([])
  })

  test('column definitions reordered with the keyboard keep their new order after a reload', async ({ browser }) => {
    const admin = await newPage(browser, env.server.baseUrl, { viewport: { width: 1400, height: 1100 } })
    await login(admin, ACCOUNTS.admin)
    await expect(admin).toHaveURL(/\/admin\/dashboard/)
    await admin.getByRole('complementary', { name: 'Admin navigation' }).getByRole('link', { name: 'Column Configuration' }).click()
    await expect(admin.getByRole('heading', { name: 'Column Configuration' })).toBeVisible()
    const chooseLever = async () => {
      const lever = admin.getByLabel('Lever')
      await expect(lever.locator('option', { hasText: /Corporates/ }).first()).toBeAttached()
      await lever.selectOption(await lever.locator('option', { hasText: /Corporates/ }).first().getAttribute('value'))
      const list = admin.getByRole('list', { name: /Column definitions of Corporates/ })
      await expect(list.getByTestId('column-definition').first()).toBeVisible()
      return list
    }
    const names = async (list) =>
      (await list.getByRole('button', { name: /^Move / }).evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')))).map((l) =>
        l.replace(/^Move /, ''),
      )
    let list = await chooseLever()
    const before = await names(list)
    expect(before.length).toBeGreaterThan(3)
    const moved = before[0]
    const row = list.getByTestId('column-definition').first()
    const handle = list.getByRole('button', { name: `Move ${moved}`, exact: true })

    // Space picks the row up (the handle says it is pressed once the drag started).
    await handle.focus()
    await admin.keyboard.press('Space')
    await expect(handle).toHaveAttribute('aria-pressed', 'true')
    // dnd-kit's keyboard sensor starts listening for the next keys a timer after the pick-up, and a
    // loaded browser can run input before that timer (such keys are lost), while the pick-up alone
    // may already announce a target. So press Down until the row has moved, which only a handled
    // key does, and read where it went from the page rather than counting presses.
    await expect(async () => {
      await admin.keyboard.press('ArrowDown')
      await expect(row).toHaveAttribute('style', /translate3d\(0px, [1-9]/, { timeout: 1_000 })
    }).toPass({ timeout: 15_000 })
    // The drop lands where dnd-kit's `over` is, which it settles a render after the move: wait
    // until the next row has made way (moved up), which the list does only once `over` changed,
    // or Space can drop the row back on its own place (seen once in CI: no reorder was sent).
    // A row that made way has moved up; if none has (`over` still the row itself after a lost
    // update), one more Down gives dnd-kit a new position to settle on.
    const madeWay = list.locator('[data-testid="column-definition"][style*="translate3d(0px, -"]')
    await expect(async () => {
      if ((await madeWay.count()) === 0) await admin.keyboard.press('ArrowDown')
      await expect(madeWay.first()).toBeVisible({ timeout: 1_000 })
    }).toPass({ timeout: 15_000 })
    const saved = admin.waitForResponse((r) => r.request().method() === 'PUT' && /\/column-definitions\/order$/.test(new URL(r.url()).pathname))
    await admin.keyboard.press('Space')
    expect((await saved).status()).toBe(200)
    await expect(handle).not.toHaveAttribute('aria-pressed', 'true')

    // The row left the top for a place further down, and every other row kept its relative order.
    await expect.poll(async () => (await names(list))[0]).not.toBe(moved)
    const after = await names(list)
    const place = after.indexOf(moved)
    expect(place).toBeGreaterThan(0)
    expect(after.filter((n) => n !== moved)).toEqual(before.slice(1))
    expect([...after].sort()).toEqual([...before].sort())
    await expect(admin.getByText('Error updating column')).toHaveCount(0)

    // The new order is the server's: it survives a reload, and the display orders follow it.
    await admin.reload()
    await expect(admin.getByRole('heading', { name: 'Column Configuration' })).toBeVisible()
    list = await chooseLever()
    await expect.poll(() => names(list)).toEqual(after)
    const orders = await list.getByTestId('column-definition').evaluateAll((els) =>
      els.map((e) => Number(/#(\d+)/.exec(e.textContent ?? '')?.[1] ?? Number.NaN)),
    )
    expect(orders).toEqual([...orders].sort((a, b) => a - b))
    expect(admin.errors).toEqual([])
  })

  test('universal mappings: add, switch, count, and global learning', async ({ browser }) => {
    const admin = await newPage(browser, env.server.baseUrl)
    await login(admin, ACCOUNTS.admin)
    await expect(admin).toHaveURL(/\/admin\/dashboard/)
    await admin.getByRole('complementary', { name: 'Admin navigation' }).getByRole('link', { name: 'Universal Mappings' }).click()
    await expect(admin.getByRole('heading', { name: 'Universal Column Mappings' })).toBeVisible()
    const total = admin.getByLabel('Total Suggestions')
    await expect(total).not.toHaveText('…')
    const start = Number(await total.textContent())

    await admin.getByLabel('Source Column Name').fill('Codigo Fiscal Cliente')
    await admin.getByRole('button', { name: 'Add Suggestion' }).click()
    await expect(admin.getByText('Please enter both source and target column names')).toBeVisible()
    await admin.getByLabel('Target Column Name').fill('NIF')
    await admin.getByRole('button', { name: 'Add Suggestion' }).click()
    await expect(admin.getByText('Suggestion added')).toBeVisible()
    await expect(total).toHaveText(String(start + 1))
    const row = admin.getByTestId('suggestion-row').filter({ hasText: 'codigo fiscal cliente' })
    await expect(row.getByText('80%')).toBeVisible()

    await row.getByRole('switch').click()
    await expect(admin.getByText('Suggestion disabled')).toBeVisible()
    await expect(row.getByRole('switch')).toHaveAttribute('aria-checked', 'false')

    const learning = admin.getByRole('switch', { name: 'Global Learning' })
    await expect(learning).toHaveAttribute('aria-checked', 'true')
    await learning.click()
    await expect(admin.getByText('Global learning disabled')).toBeVisible()
    await admin.reload()
    await expect(admin.getByRole('switch', { name: 'Global Learning' })).toHaveAttribute('aria-checked', 'false')
    const setting = await apiCall(admin, 'GET', '/api/admin/universal-suggestions')
    expect(setting.body.globalLearning).toBe(false)
    await admin.getByRole('switch', { name: 'Global Learning' }).click()
    await expect(admin.getByText('Global learning enabled')).toBeVisible()

    await admin.getByRole('button', { name: 'Delete codigo fiscal cliente → NIF' }).click()
    await expect(admin.getByText('Suggestion deleted')).toBeVisible()
    await expect(total).toHaveText(String(start))
    await screenshot(admin, 'admin-universal-mappings')
    expect(admin.errors).toEqual([])
  })
})
