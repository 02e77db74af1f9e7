// Lever Justifications in the browser against the real server: an administrator opens the screen
// from the sidebar, finds no templates, is refused a misspelt placeholder in the create dialog,
// creates a template from the default audit memo and edits it, while a second administrator's
// screen follows live; previews it, generates the memo of a real completed run of Bank A (the
// hand-computed PSE file processed by the server) and downloads it and the template as .txt;
// deletes it after the browser's confirmation (dismissed once first).
import { readFileSync } from 'node:fs'

import { expect, test } from '@playwright/test'

import { apiCall, login, newPage, screenshot } from './support/browser.mjs'
import { processHandPseFile } from './support/runs.mjs'
import { ACCOUNTS } from './support/server.mjs'
import { useServer } from './support/suite.mjs'

const env = useServer()

const FILE = 'hand-justification.csv'

test('a justification template is created from the default memo, edited live, previewed as the memo of a real run, downloaded and deleted', async ({ browser }) => {
  // A completed run of Bank A, processed by the server from a member's upload.
  const member = await newPage(browser, env.server.baseUrl)
  await login(member, ACCOUNTS.userA)
  await expect(member).toHaveURL(/\/client\/home/)
  const runId = await processHandPseFile(member, FILE)

  const admin = await newPage(browser, env.server.baseUrl)
  await login(admin, ACCOUNTS.admin)
  await expect(admin).toHaveURL(/\/admin\/dashboard/)
  const other = await newPage(browser, env.server.baseUrl)
  await login(other, ACCOUNTS.admin)
  await expect(other).toHaveURL(/\/admin\/dashboard/)
  await other.goto('/admin/lever-justifications')
  await expect(other.getByText('No Templates Found')).toBeVisible()

  // From the sidebar's AI Features.
  await admin.getByRole('complementary', { name: 'Admin navigation' }).getByRole('link', { name: 'Lever Justifications' }).click()
  await expect(admin).toHaveURL(/\/admin\/lever-justifications$/)
  await expect(admin).toHaveTitle('Lever Justifications · CapOpt')
  await expect(admin.getByRole('heading', { name: 'Lever Justifications' })).toBeVisible()
  await expect(admin.getByText('No Templates Found')).toBeVisible()
  await screenshot(admin, 'lever-justifications-empty')

  // Create: a misspelt placeholder is refused in the dialog, which stays open.
  await admin.getByRole('button', { name: 'Create Template' }).click()
  const create = admin.getByRole('dialog', { name: 'Create Template' })
  const placeholders = create.getByRole('region', { name: 'Placeholders' })
  await expect(placeholders.getByText('clientName', { exact: true })).toBeVisible()
  await expect(placeholders.getByText("The run's client")).toBeVisible()
  await create.getByLabel('Name').fill('Misspelt memo')
  await create.getByLabel('Template content').fill('AUDIT MEMO\nDate: {{ date }}\nClient: {{ clientNmae }}\n')
  await create.getByRole('button', { name: 'Create Template' }).click()
  await expect(create.getByTestId('template-server-error')).toContainText('Unknown placeholder on line 3.')
  await expect(admin.getByText(/^Failed to create template: Unknown placeholder on line 3\./)).toBeVisible()
  await expect(create).toBeVisible()
  await screenshot(admin, 'lever-justifications-validation')

  // Use Default Template fills the form from the server's audit memo.
  await create.getByRole('button', { name: 'Use Default Template' }).click()
  await expect(create.getByLabel('Name')).toHaveValue('Lever justification audit memo')
  await expect(create.getByLabel('Category')).toHaveValue('regulatory')
  await expect(create.getByLabel('Template content')).toHaveValue(/^AUDIT MEMO: LEVER JUSTIFICATION\n/)
  await create.getByRole('button', { name: 'Create Template' }).click()
  await expect(admin.getByText('Template created successfully')).toBeVisible()
  await expect(create).toBeHidden()
  const created = admin.getByRole('article', { name: 'Lever justification audit memo' })
  await expect(created.getByTestId('template-category')).toHaveText('Regulatory')
  await expect(created.getByTestId('template-preview')).toContainText('AUDIT MEMO: LEVER JUSTIFICATION')
  await expect(created).toContainText('Created by Alicia Admin')
  await expect(created.getByText('Default', { exact: true })).toHaveCount(0)
  // The other administrator's screen follows.
  await expect(other.getByRole('article', { name: 'Lever justification audit memo' })).toBeVisible()

  // Edit: renamed, internal, the default.
  await created.getByRole('button', { name: 'Edit Lever justification audit memo' }).click()
  const edit = admin.getByRole('dialog', { name: 'Edit Template' })
  await expect(edit.getByRole('button', { name: 'Use Default Template' })).toHaveCount(0)
  await edit.getByLabel('Name').fill('PSE audit memo')
  await edit.getByLabel('Category').selectOption('internal')
  await edit.getByLabel('Default template').check()
  await screenshot(admin, 'lever-justifications-edit')
  await edit.getByRole('button', { name: 'Save Changes' }).click()
  await expect(admin.getByText('Template updated successfully')).toBeVisible()
  await expect(edit).toBeHidden()
  const card = admin.getByRole('article', { name: 'PSE audit memo' })
  await expect(card.getByTestId('template-category')).toHaveText('Internal')
  await expect(card.getByText('Default', { exact: true })).toBeVisible()
  const live = other.getByRole('article', { name: 'PSE audit memo' })
  await expect(live.getByTestId('template-category')).toHaveText('Internal')
  await expect(live.getByText('Default', { exact: true })).toBeVisible()
  await expect(other.getByRole('article', { name: 'Lever justification audit memo' })).toHaveCount(0)
  await screenshot(admin, 'lever-justifications')
  await screenshot(other, 'lever-justifications-live')

  // Download from the card: the template's content.
  const { body: templates } = await apiCall(admin, 'GET', '/api/admin/justification-templates')
  expect(templates).toHaveLength(1)
  const [cardDownload] = await Promise.all([admin.waitForEvent('download'), card.getByRole('button', { name: 'Download PSE audit memo as .txt' }).click()])
  expect(cardDownload.suggestedFilename()).toBe('PSE audit memo.txt')
  expect(readFileSync(await cardDownload.path(), 'utf8')).toBe(templates[0].templateContent)

  // Preview, then the memo of the completed run.
  await card.getByRole('button', { name: 'Preview PSE audit memo' }).click()
  const preview = admin.getByRole('dialog', { name: 'PSE audit memo' })
  const text = preview.getByTestId('preview-text')
  await expect(text).toContainText('AUDIT MEMO: LEVER JUSTIFICATION')
  await expect(text).toContainText('Client: {{ clientName }}')
  const runs = preview.getByLabel('Processing run')
  await expect(runs.locator(`option[value="${runId}"]`)).toHaveText(new RegExp(`^Bank A · ${FILE.replace('.', '\\.')} · \\w{3} \\d{1,2}, \\d{4}$`))
  await runs.selectOption(runId)
  await preview.getByRole('button', { name: 'Generate Memo' }).click()
  await expect(text).toContainText('Client: Bank A')
  await expect(text).toContainText(`Processing run ${runId}`)
  await expect(text).toContainText('EXP-ADIF-24M')
  await expect(text).toContainText('100% -> 50%')
  await expect(text).not.toContainText('{{')
  await expect(preview.getByTestId('memo-listed')).toHaveText('2 of 2 reclassified exposures listed')
  await screenshot(admin, 'lever-justifications-memo')
  const memoText = await text.textContent()
  const [memoDownload] = await Promise.all([admin.waitForEvent('download'), preview.getByRole('button', { name: 'Download as .txt' }).click()])
  expect(memoDownload.suggestedFilename()).toBe(`PSE audit memo - ${runId}.txt`)
  const saved = readFileSync(await memoDownload.path(), 'utf8')
  expect(saved).toBe(memoText)
  expect(saved).toContain('Client: Bank A')
  await preview.getByRole('button', { name: 'Close' }).click()
  await expect(preview).toBeHidden()

  // Delete: dismissed first, then confirmed.
  const messages = []
  admin.once('dialog', (d) => {
    messages.push(d.message())
    void d.dismiss()
  })
  await card.getByRole('button', { name: 'Delete PSE audit memo' }).click()
  await expect.poll(() => messages.length).toBe(1)
  expect(messages[0]).toBe('Are you sure you want to delete "PSE audit memo"? This action cannot be undone.')
  await expect(card).toBeVisible()
  admin.once('dialog', (d) => void d.accept())
  await card.getByRole('button', { name: 'Delete PSE audit memo' }).click()
  await expect(admin.getByText('Template deleted successfully')).toBeVisible()
  await expect(admin.getByText('No Templates Found')).toBeVisible()
  await expect(other.getByText('No Templates Found')).toBeVisible()
  expect((await apiCall(admin, 'GET', '/api/admin/justification-templates')).body).toEqual([])

  // Not for anyone else: the member is sent home, and the API refuses.
  await member.goto('/admin/lever-justifications')
  await expect(member).toHaveURL(/\/client\/home/)
  expect((await apiCall(member, 'GET', '/api/admin/justification-templates')).status).toBe(403)

  expect(admin.errors).toEqual([])
  expect(other.errors).toEqual([])
  expect(member.errors).toEqual([])
})
