// The report editor's AI text assistant and logo in two browsers against the real server
// (built-in engine): Ana processes a generated PSE file, double-clicks a section of a report and
// asks for its capital savings; the section is rewritten with the run's real saving (read here
// from the file's record), marked AI-generated, and her co-editor sees it arrive live. She
// uploads a logo from the Branding panel; the header shows it in both browsers.
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
const work = mkdtempSync(join(tmpdir(), 'capopt-e2e-assistant-'))

// A 1x1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkaPhfDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64')

/** An amount as the built-in engine writes it: `EUR 1,234,567.89`. */
function eur(x) {
  const [int, frac] = Math.abs(x).toFixed(2).split('.')
  return `EUR ${x < 0 ? '-' : ''}${int.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${frac}`
}

async function uploadViaApi(page, path) {
  const context = page.context()
  if (!(await context.cookies()).some((c) => c.name === 'capopt_csrf')) await context.request.get('/api/health')
  const csrf = (await context.cookies()).find((c) => c.name === 'capopt_csrf')?.value ?? ''
  const response = await context.request.post('/api/files', {
    headers: { 'X-CSRF-Token': csrf },
    multipart: {
      file: { name: path.split('/').pop(), mimeType: 'text/csv', buffer: readFileSync(path) },
      options: JSON.stringify({ mode: 'enhanced-ai', leverId: null, process: true, mapping: null, riskWeightFormat: null, maturityUnit: null }),
    },
  })
  expect(response.status()).toBe(201)
}

test.describe('report AI text assistant', () => {
  const env = useServer()

  test('a section is written from the real figures and received live; a logo goes in the header', async ({ browser }) => {
    const path = join(work, 'assistant-pse.csv')
    execFileSync(BIN, ['generate-exposures', '--lever', 'pse', '--rows', '40', '--seed', '7', '--output', path])
    const ana = await newPage(browser, env.server.baseUrl, { viewport: { width: 1400, height: 1100 } })
    await login(ana, ACCOUNTS.userA)
    await expect(ana).toHaveURL((url) => url.pathname === '/client/home')
    await uploadViaApi(ana, path)
    let record
    await expect(async () => {
      record = (await apiCall(ana, 'GET', '/api/files')).body.find((f) => f.name === 'assistant-pse.csv')
      expect(record?.processed).toBe(true)
    }).toPass({ timeout: 90_000 })
    const processed = (await apiCall(ana, 'GET', '/api/files')).body.filter((f) => f.processed)
    expect(processed).toHaveLength(1)

    const created = await apiCall(ana, 'POST', '/api/reports', { name: 'Capital disclosure' })
    expect(created.status).toBe(201)
    const url = `/client/report-generator/edit/${created.body.id}`
    await ana.goto(url)
    const section = ana.getByRole('region', { name: 'Introduction' })
    await expect(ana.getByRole('textbox', { name: 'Introduction content' })).toBeVisible()

    const pablo = await newPage(browser, env.server.baseUrl)
    await login(pablo, ACCOUNTS.approver)
    await expect(pablo).toHaveURL((u) => u.pathname === '/client/home')
    await pablo.goto(url)
    await expect(pablo.getByRole('textbox', { name: 'Introduction content' })).toBeVisible()

    // The assistant: a blank request is refused, then Enter sends.
    await section.getByRole('heading', { name: 'Introduction' }).dblclick()
    const dialog = ana.getByRole('dialog', { name: 'AI Text Assistant' })
    await expect(dialog).toBeVisible()
    await dialog.getByLabel('Section type').selectOption('capital')
    const prompt = dialog.getByLabel('What should this section say?')
    await prompt.press('Enter')
    await expect(dialog.getByText('Please enter a prompt.')).toBeVisible()
    await prompt.fill('Describe our capital savings and the rules behind them')
    await prompt.press('Enter')
    await expect(dialog).toBeHidden({ timeout: 30_000 })

    const saving = `a saving of ${eur(record.savingsRwas)}`
    const anaText = ana.getByRole('textbox', { name: 'Introduction content' })
    await expect(anaText).toContainText(saving)
    await expect(anaText).toContainText('basis points of CET1 ratio')
    await expect(section.getByText('AI-generated')).toBeVisible()
    // Live for the co-editor.
    await expect(pablo.getByRole('textbox', { name: 'Introduction content' })).toContainText(saving)
    await expect(pablo.getByRole('region', { name: 'Introduction' }).getByText('AI-generated')).toBeVisible()

    // A logo from the Branding panel, in both headers.
    await ana.getByRole('button', { name: 'Branding' }).click()
    await ana.getByLabel('Logo').setInputFiles({ name: 'bank-logo.png', mimeType: 'image/png', buffer: PNG })
    await expect(ana.getByText('Logo uploaded')).toBeVisible()
    for (const page of [ana, pablo]) {
      const logo = page.getByTestId('report-header').getByRole('img', { name: 'Logo' })
      await expect(logo).toBeVisible()
      await expect.poll(() => logo.evaluate((img) => img.naturalWidth)).toBe(1)
    }
    // The navigation goes to the sections it names.
    await expect(ana.getByRole('navigation', { name: 'Report navigation' }).getByRole('button', { name: 'Overview' })).toBeEnabled()
    await screenshot(ana, 'report-assistant')
    expect(ana.errors).toEqual([])
  })
})
