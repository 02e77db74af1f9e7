// 'Create template from PDF' in the browser against the real server: a report exported by the
// server (a PDF whose outline names its sections) is imported by an administrator, who follows
// the steps to completed and sees the sections found with their pages; a file that is not a PDF
// is refused first, and Start Over resets every step. A member of Bank A then imports the new
// template's sections into a report of hers: they appear in the editor, and Version History
// holds the automatic version taken before the import.
import { expect, test } from '@playwright/test'

import { apiCall, login, newPage, screenshot } from './support/browser.mjs'
import { ACCOUNTS } from './support/server.mjs'
import { useServer } from './support/suite.mjs'

const env = useServer()

const TEXT = (topic) =>
  `This section sets out the bank's ${topic} at the reporting date, with the figures agreed with the approver and the regulatory references that support them.`

test('a PDF becomes a template whose sections a report imports', async ({ browser }) => {
  const admin = await newPage(browser, env.server.baseUrl)
  await login(admin, ACCOUNTS.admin)
  await expect(admin).toHaveURL(/\/admin\/dashboard/)
  const ana = await newPage(browser, env.server.baseUrl)
  await login(ana, ACCOUNTS.userA)
  await expect(ana).toHaveURL((url) => url.pathname === '/client/home')

  // The source PDF: a report from a template with three known sections, exported by the server.
  const made = await apiCall(admin, 'POST', '/api/admin/report-templates', { name: 'Source layout', templateType: 'custom' })
  expect(made.status).toBe(201)
  const sections = [
    ['Executive Summary', 'summary'],
    ['Capital Position', 'capital'],
    ['Credit Risk Overview', 'content'],
  ].map(([title, kind]) => ({ id: '', title, kind, content: TEXT(title.toLowerCase()), blocks: [] }))
  const saved = await apiCall(admin, 'PUT', `/api/admin/report-templates/${made.body.id}`, {
    name: 'Source layout',
    description: '',
    sections,
    branding: made.body.branding,
    isActive: true,
  })
  expect(saved.status).toBe(200)
  const report = await apiCall(ana, 'POST', '/api/reports', { name: 'FY disclosure', template_id: made.body.id })
  expect(report.status).toBe(201)
  const exported = await ana.context().request.get(`/api/reports/${report.body.id}/export`)
  expect(exported.status()).toBe(200)
  const pdf = await exported.body()

  await admin.goto('/admin/report-generator-templates')
  await admin.getByRole('link', { name: 'Create from PDF' }).click()
  await expect(admin).toHaveURL(/\/admin\/report-generator-templates\/create-from-pdf$/)
  await expect(admin.getByRole('heading', { name: 'Create Template from PDF' })).toBeVisible()
  const steps = admin.getByRole('list', { name: 'Import steps' })
  for (const step of ['Upload', 'Parse', 'Analyze', 'Extract', 'Generate']) {
    await expect(steps.getByRole('listitem', { name: `${step}: Pending` })).toBeVisible()
  }
  await expect(admin.getByRole('button', { name: 'Process PDF' })).toBeDisabled()

  // Not a PDF: refused before anything is sent.
  const input = admin.getByLabel('PDF file')
  await input.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not a pdf') })
  await expect(admin.getByText('Please upload a PDF file')).toBeVisible()
  await expect(admin.getByRole('button', { name: 'Process PDF' })).toBeDisabled()

  await input.setInputFiles({ name: 'fy-disclosure.pdf', mimeType: 'application/pdf', buffer: pdf })
  await admin.getByLabel('Template Name').fill('Imported disclosure')
  await admin.getByLabel('Template Type').selectOption('basel_iii')
  await admin.getByRole('button', { name: 'Process PDF' }).click()
  for (const step of ['Upload', 'Parse', 'Analyze', 'Extract', 'Generate']) {
    await expect(steps.getByRole('listitem', { name: `${step}: Completed` })).toBeVisible()
  }
  await expect(admin.getByRole('progressbar', { name: 'Import progress' })).toHaveAttribute('aria-valuenow', '100')
  const result = admin.getByLabel('Import result')
  await expect(result.getByRole('heading', { name: 'Imported disclosure' })).toBeVisible()
  await expect(result).toContainText('sections from its outline')
  const found = result.getByRole('list', { name: 'Sections found' })
  for (const [title] of [['Executive Summary'], ['Capital Position'], ['Credit Risk Overview']]) {
    await expect(found.getByText(title, { exact: true })).toBeVisible()
  }
  await screenshot(admin, 'template-import-done')

  // Start Over resets every step.
  await admin.getByRole('button', { name: 'Start Over' }).click()
  for (const step of ['Upload', 'Parse', 'Analyze', 'Extract', 'Generate']) {
    await expect(steps.getByRole('listitem', { name: `${step}: Pending` })).toBeVisible()
  }
  await expect(admin.getByRole('button', { name: 'Process PDF' })).toBeDisabled()

  // The template, in the editor: its sections keep the pages they came from.
  await admin.goto('/admin/report-generator-templates')
  const card = admin.getByRole('article', { name: 'Imported disclosure' })
  await expect(card).toContainText('Basel III Standard')
  await card.getByRole('link', { name: 'Edit Imported disclosure' }).click()
  await admin.getByRole('tab', { name: /Sections/ }).click()
  const titles = await admin.getByLabel(/^Section \d+ title$/).evaluateAll((els) => els.map((e) => e.value))
  expect(titles).toEqual(expect.arrayContaining(['Executive Summary', 'Capital Position', 'Credit Risk Overview']))
  await expect(admin.getByText(/From the PDF: page/).first()).toBeVisible()

  // Ana imports the template's sections into a report of hers; a version is kept first.
  const plain = await apiCall(ana, 'POST', '/api/reports', { name: 'Working draft' })
  expect(plain.status).toBe(201)
  await ana.goto(`/client/report-generator/edit/${plain.body.id}`)
  await expect(ana.getByRole('textbox', { name: 'Introduction content' })).toBeVisible()
  const picker = ana.getByLabel('Import from template')
  await expect(picker.locator('option', { hasText: 'Imported disclosure' })).toHaveCount(1)
  await picker.selectOption(await picker.locator('option', { hasText: 'Imported disclosure' }).getAttribute('value'))
  await ana.getByRole('button', { name: 'Import Sections' }).click()
  await expect(ana.getByText(/^Imported \d+ sections$/)).toBeVisible()
  await expect(ana.getByRole('textbox', { name: 'Capital Position content' })).toBeVisible()
  await expect(ana.getByRole('textbox', { name: 'Capital Position content' })).toContainText("capital position at the reporting date")
  await ana.getByRole('button', { name: 'Version History' }).click()
  const versions = ana.getByRole('list', { name: 'Versions' })
  await expect(versions.getByText('Before importing “Imported disclosure”')).toBeVisible()
  await expect(versions.getByText('Automatic')).toBeVisible()
  await screenshot(ana, 'template-import-into-report')
})
