// Report templates in the browser against the real server: an administrator creates a template
// (the spec's validation first), edits its sections and branding in the editor's tabs, previews
// it; a second administrator's list follows. A member of Bank A starts a report from it and the
// editor opens on the template's sections with their starting text; once the template is made
// inactive it is no longer offered, and a deleted template leaves the report as it was.
import { expect, test } from '@playwright/test'

import { apiCall, login, newPage, screenshot } from './support/browser.mjs'
import { ACCOUNTS } from './support/server.mjs'
import { useServer } from './support/suite.mjs'

const env = useServer()

test('a template is created, edited, previewed and a report starts from it', async ({ browser }) => {
  const admin = await newPage(browser, env.server.baseUrl)
  await login(admin, ACCOUNTS.admin)
  await expect(admin).toHaveURL(/\/admin\/dashboard/)
  const other = await newPage(browser, env.server.baseUrl)
  await login(other, ACCOUNTS.admin)
  await expect(other).toHaveURL(/\/admin\/dashboard/)
  await other.goto('/admin/report-generator-templates')
  await expect(other.getByText('No Templates Found')).toBeVisible()

  await admin.getByRole('link', { name: 'Report templates' }).click()
  await expect(admin.getByRole('heading', { name: 'Report Templates' })).toBeVisible()
  await admin.getByRole('link', { name: 'Create Your First Template' }).click()
  await expect(admin).toHaveURL(/\/admin\/report-generator-templates\/create$/)
  await admin.getByRole('button', { name: 'Create Template' }).click()
  await expect(admin.getByRole('alert').filter({ hasText: 'Template name is required' })).toBeVisible()
  await expect(admin.getByRole('alert').filter({ hasText: 'Template type is required' })).toBeVisible()
  await admin.getByLabel('Template Name').fill('Basel III Pillar 3')
  await admin.getByLabel('Template Type').selectOption('basel_iii')
  await admin.getByLabel('Description').fill('Annual Pillar 3 disclosure')
  await admin.getByRole('button', { name: 'Create Template' }).click()

  // The editor: the type's default sections, edited in the tabs.
  await expect(admin.getByRole('heading', { name: 'Edit Template' })).toBeVisible()
  await expect(admin.getByLabel('Template Type')).toHaveValue('Basel III Standard')
  await admin.getByRole('tab', { name: 'Sections (3)' }).click()
  await expect(admin.getByLabel('Section 2 title')).toHaveValue('Basel III Overview')
  await admin.getByLabel('Section 1 starting text').fill('This report sets out the capital position of the bank.\n\nIt covers the financial year.')
  await admin.getByRole('button', { name: 'Remove section 2' }).click()
  await admin.getByRole('button', { name: 'Add Section' }).click()
  await admin.getByLabel('Section 3 title').fill('Credit Risk')
  await expect(admin.getByRole('tab', { name: 'Sections (3)' })).toBeVisible()
  await admin.getByRole('tab', { name: 'Branding' }).click()
  await admin.getByLabel('Report Subtitle').fill('Pillar 3 disclosures')
  await admin.getByLabel('PDF Orientation').selectOption('landscape')
  await admin.getByLabel('Body Font').selectOption('Georgia')
  await admin.getByRole('button', { name: 'Save Template' }).click()
  await expect(admin.getByText('Template saved')).toBeVisible()

  // The other administrator's list follows.
  const card = other.getByRole('article', { name: 'Basel III Pillar 3' })
  await expect(card).toContainText('Basel III Standard')
  await expect(card).toContainText('3 sections')
  await expect(card).toContainText('Georgia · Landscape')
  await expect(card.getByRole('list', { name: 'Sections of Basel III Pillar 3' })).toContainText('Credit Risk')

  // The preview.
  await admin.getByRole('link', { name: 'Preview' }).click()
  const preview = admin.getByRole('article', { name: 'Preview of Basel III Pillar 3' })
  await expect(preview).toHaveAttribute('data-orientation', 'landscape')
  await expect(preview).toContainText('Pillar 3 disclosures')
  await expect(preview.getByRole('region', { name: 'Executive Summary' })).toContainText('It covers the financial year.')
  await expect(admin.getByRole('button', { name: 'Export Preview' })).toBeVisible()
  await screenshot(admin, 'report-template-preview')

  // A member of Bank A starts a report from it.
  const member = await newPage(browser, env.server.baseUrl)
  await login(member, ACCOUNTS.userA)
  await expect(member).toHaveURL(/\/client\/home/)
  await member.getByRole('link', { name: 'Report Generator' }).click()
  await member.getByRole('button', { name: 'New Report' }).click()
  const dialog = member.getByRole('dialog', { name: 'New Report' })
  await dialog.getByLabel('Report name').fill('FY 2026 disclosure')
  await dialog.getByLabel('Template').selectOption({ label: 'Basel III Pillar 3 (3 sections)' })
  await dialog.getByRole('button', { name: 'Create Report' }).click()
  await expect(member).toHaveURL(/\/client\/report-generator\/edit\//)
  await expect(member.getByText('Template-based report')).toBeVisible()
  const summary = member.getByRole('textbox', { name: 'Executive Summary content' })
  await expect(summary).toContainText('This report sets out the capital position of the bank.')
  await expect(summary.locator('p')).toHaveCount(2)
  await expect(member.getByRole('textbox', { name: 'Credit Risk content' })).toBeVisible()
  // The template's branding is the report's, and a colleague's change reaches it live.
  const document = member.getByRole('document', { name: 'Report document' })
  await expect(document).toHaveAttribute('data-orientation', 'landscape')
  await expect(member.getByTestId('report-header')).toContainText('Pillar 3 disclosures')
  const colleague = await newPage(browser, env.server.baseUrl)
  await login(colleague, ACCOUNTS.approver)
  await expect(colleague).toHaveURL(/\/client\/home/)
  await colleague.goto(new URL(member.url()).pathname)
  await colleague.getByRole('button', { name: 'Branding' }).click()
  await colleague.getByLabel('Primary colour', { exact: true }).fill('#abc')
  await colleague.getByLabel('Report subtitle').fill('FY 2026 Pillar 3')
  await colleague.getByRole('button', { name: 'Settings' }).click()
  await colleague.getByLabel('Portrait PDF').check()
  await expect(member.getByTestId('report-header')).toHaveCSS('background-color', 'rgb(170, 187, 204)')
  await expect(member.getByTestId('report-header')).toContainText('FY 2026 Pillar 3')
  await expect(document).toHaveAttribute('data-orientation', 'portrait')
  // A section's layout and background, shared the same way.
  await colleague.getByRole('button', { name: 'Style of Executive Summary' }).click()
  await colleague.getByLabel('Section layout').selectOption('two-column')
  await colleague.getByLabel('Section background').fill('#f1f5f9')
  await colleague.keyboard.press('Escape')
  const memberSummary = member.getByRole('region', { name: 'Executive Summary' })
  await expect(memberSummary).toHaveAttribute('data-layout', 'two-column')
  await expect(memberSummary).toHaveCSS('background-color', 'rgb(241, 245, 249)')
  await colleague.getByLabel('Primary colour', { exact: true }).fill('not a colour')
  await expect(colleague.getByText('Enter a colour like #1e3a8a.')).toBeVisible()
  await expect(member.getByTestId('report-header')).toHaveCSS('background-color', 'rgb(170, 187, 204)')
  await screenshot(member, 'report-from-template')

  // Made inactive: no longer offered; the card says so.
  await admin.getByRole('link', { name: 'Edit Template' }).click()
  await admin.getByLabel('Active (client teams can start reports from it)').uncheck()
  await admin.getByRole('button', { name: 'Save Template' }).click()
  await expect(admin.getByText('Template saved')).toBeVisible()
  await expect(card).toContainText('Inactive')
  const { body: offered } = await apiCall(member, 'GET', '/api/report-templates')
  expect(offered).toEqual([])

  // Deleted after confirmation; the report keeps its content.
  await other.getByRole('button', { name: 'Delete Basel III Pillar 3' }).click()
  const confirm = other.getByRole('dialog', { name: 'Delete template' })
  await expect(confirm).toContainText('Are you sure you want to delete "Basel III Pillar 3"? This action cannot be undone.')
  await confirm.getByRole('button', { name: 'Delete' }).click()
  await expect(other.getByText('No Templates Found')).toBeVisible()
  await member.reload()
  await expect(member.getByRole('textbox', { name: 'Executive Summary content' })).toContainText('It covers the financial year.')

  // Not for anyone else: the API refuses a member.
  expect((await apiCall(member, 'GET', '/api/admin/report-templates')).status).toBe(403)
  for (const page of [admin, other, member, colleague]) expect(page.errors).toEqual([])
})
