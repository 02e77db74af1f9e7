// PDF export in the browser against the real server: a member of Bank A writes in a report and
// exports it (Export PDF downloads the server's PDF, no print dialog), a viewer exports it too,
// the client dashboard exports 'Capital Optimization Dashboard' as PDF. Each download is read
// back with poppler (pdfinfo, pdftotext) and its first page rendered with pdftoppm.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'

import { apiCall, login, newPage, screenshot } from './support/browser.mjs'
import { ACCOUNTS } from './support/server.mjs'
import { useServer } from './support/suite.mjs'

const env = useServer()
const dir = mkdtempSync(join(tmpdir(), 'capopt-pdf-'))

/** Saves a download and reads it back: its pdfinfo fields and its text. */
async function readPdf(download, name) {
  const path = join(dir, name)
  await download.saveAs(path)
  expect(readFileSync(path).subarray(0, 5).toString()).toBe('%PDF-')
  const info = Object.fromEntries(
    execFileSync('pdfinfo', [path], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.includes(':'))
      .map((l) => [l.slice(0, l.indexOf(':')).trim(), l.slice(l.indexOf(':') + 1).trim()]),
  )
  const text = execFileSync('pdftotext', ['-layout', path, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ')
  return { path, info, text }
}

/** The first page as a PNG under e2e/screenshots (with E2E_SCREENSHOTS), to look at. */
function renderFirstPage(path, name) {
  if (!process.env.E2E_SCREENSHOTS) return
  const out = join(import.meta.dirname, 'screenshots')
  mkdirSync(out, { recursive: true })
  execFileSync('pdftoppm', ['-png', '-r', '60', '-f', '1', '-l', '1', '-singlefile', path, join(out, name)])
}

test('a report and the client dashboard are exported as PDFs made by the server', async ({ browser }) => {
  const ana = await newPage(browser, env.server.baseUrl)
  await login(ana, ACCOUNTS.userA)
  await expect(ana).toHaveURL(/\/client\/home/)
  const created = await apiCall(ana, 'POST', '/api/reports', { name: 'Q3 Pillar 3 disclosure' })
  expect(created.status).toBe(201)
  await ana.goto(`/client/report-generator/edit/${created.body.id}`)
  const editor = ana.getByRole('textbox', { name: 'Introduction content' })
  await expect(editor).toBeVisible()
  await expect(ana.getByTestId('connection-status')).toHaveText('Connected: edits are shared live')
  await editor.click()
  await ana.keyboard.type('Capital savings rose in the quarter. ')
  await ana.keyboard.press('Control+b')
  await ana.keyboard.type('Bold figures')
  await ana.keyboard.press('Control+b')
  await ana.getByRole('button', { name: 'Heading 2' }).click()
  await ana.keyboard.press('End')
  await ana.keyboard.press('Enter')
  await ana.keyboard.type('Written <#set page(fill: red)> as text.')
  // Landscape, from the Settings panel (shared in the document).
  await ana.getByRole('button', { name: 'Settings' }).click()
  await ana.getByLabel('Landscape PDF').check()

  const download = ana.waitForEvent('download')
  await ana.getByRole('button', { name: 'Export PDF' }).click()
  const report = await readPdf(await download, 'report.pdf')
  expect((await download).suggestedFilename()).toBe('Q3 Pillar 3 disclosure.pdf')
  await expect(ana.getByText('Export Complete')).toBeVisible()
  expect(report.text).toContain('Q3 Pillar 3 disclosure')
  expect(report.text).toContain('Capital savings rose in the quarter.')
  expect(report.text).toContain('Written <#set page(fill: red)> as text.')
  expect(report.text).toContain('Page 1 of 1')
  expect(report.info.Pages).toBe('1')
  // 1123 by 794 px: 842.25 by 595.5 pt.
  expect(report.info['Page size']).toMatch(/^842\.2\d* x 595\.5 pts/)
  renderFirstPage(report.path, 'pdf-export-report-page1')
  await screenshot(ana, 'pdf-export-editor')

  // A viewer of Bank A exports it too.
  const viewer = await newPage(browser, env.server.baseUrl)
  await login(viewer, ACCOUNTS.viewer)
  await expect(viewer).toHaveURL(/\/client\/home/)
  await viewer.goto(`/client/report-generator/edit/${created.body.id}`)
  await expect(viewer.getByText('Read-only')).toBeVisible()
  const viewerDownload = viewer.waitForEvent('download')
  await viewer.getByRole('button', { name: 'Export PDF' }).click()
  const again = await readPdf(await viewerDownload, 'viewer.pdf')
  expect(again.text).toContain('Bold figures')

  // The client dashboard as PDF: A4 portrait, its title and the client's name.
  await ana.goto('/client/dashboard')
  await expect(ana.getByRole('heading', { name: 'Capital Optimization Dashboard' })).toBeVisible()
  await ana.getByRole('button', { name: 'Export' }).click()
  const dialog = ana.getByRole('dialog', { name: 'Export Dashboard' })
  await dialog.getByRole('radio', { name: 'PDF (A4 portrait)' }).check()
  const dashboardDownload = ana.waitForEvent('download')
  await dialog.getByRole('button', { name: 'Export' }).click()
  expect((await dashboardDownload).suggestedFilename()).toMatch(/^capital_optimization_Bank_A_\d{4}-\d{2}-\d{2}\.pdf$/)
  const dashboard = await readPdf(await dashboardDownload, 'dashboard.pdf')
  expect(dashboard.text).toContain('Capital Optimization Dashboard')
  expect(dashboard.text).toContain('Bank A')
  expect(dashboard.text).toContain('Monthly evolution')
  expect(dashboard.info['Page size']).toMatch(/^595\.5 x 842\.2\d* pts/)
  renderFirstPage(dashboard.path, 'pdf-export-dashboard-page1')
  expect(ana.errors).toEqual([])
  expect(viewer.errors).toEqual([])
})
