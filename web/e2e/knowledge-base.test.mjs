// The AI knowledge base in the browser against the real server: an administrator is refused a
// Word 97-2003 document (here and by the server, with the same message), uploads a small TXT
// document that is read and indexed in the background until it shows 'completed', finds it by a
// word with its article and page, and deletes it after confirmation; a client user is kept out.
import { readFileSync } from 'node:fs'

import { expect, test } from '@playwright/test'

import { apiCall, csrfToken, login, newPage, screenshot } from './support/browser.mjs'
import { ACCOUNTS } from './support/server.mjs'
import { useServer } from './support/suite.mjs'

const env = useServer()

const DOC_REFUSED =
  'Unsupported file type: Word 97-2003 documents (.doc) cannot be read. Save the document as .docx (Word 2007 or later) or PDF and upload it again.'

const TXT = [
  'Exposures to multilateral development banks',
  '',
  'Article 114 Exposures to central governments or central banks. Exposures to the ECB shall be assigned a 0 % risk weight.',
  '',
  'Exposures to multilateral development banks listed in Article 117 shall be assigned a 0 % risk weight.',
  '',
].join('\n')

test('an administrator uploads, finds and deletes a knowledge base document', async ({ browser }) => {
  const admin = await newPage(browser, env.server.baseUrl)
  await login(admin, ACCOUNTS.admin)
  await expect(admin).toHaveURL(/\/admin\/dashboard/)

  await admin.getByRole('link', { name: 'AI Knowledge Base' }).click()
  await expect(admin).toHaveURL(/\/admin\/knowledge-base/)
  await expect(admin.getByRole('heading', { name: 'AI Knowledge Base Management' })).toBeVisible()
  const before = (await apiCall(admin, 'GET', '/api/admin/knowledge/stats')).body
  const uploads = admin.getByRole('group', { name: 'Total Uploads' }).getByTestId('kb-stat-value')
  await expect(uploads).toHaveText(String(before.totalUploads))
  await expect(admin.getByRole('group', { name: 'Categories' }).getByTestId('kb-stat-value')).toHaveText('4')
  await expect(admin.getByRole('tab')).toHaveText(['Overview', 'Single lever doc upload', 'Bulk lever doc upload', 'Rules', 'Settings'])

  // The server refuses a .doc with the message the screen gives before sending one.
  await admin.request.get('/api/health')
  const refused = await admin.request.post('/api/admin/knowledge/documents', {
    headers: { 'X-CSRF-Token': await csrfToken(admin.context()) },
    multipart: { category: 'Assets', files: { name: 'legacy.doc', mimeType: 'application/msword', buffer: Buffer.from('not really word') } },
  })
  expect(refused.status()).toBe(422)
  expect((await refused.json()).message).toBe(DOC_REFUSED)

  await admin.getByRole('tab', { name: 'Single lever doc upload' }).click()
  const input = admin.getByTestId('kb-single-input')
  await input.setInputFiles({ name: 'legacy.doc', mimeType: 'application/msword', buffer: Buffer.from('not really word') })
  await expect(admin.getByRole('alert').filter({ hasText: DOC_REFUSED })).toBeVisible()

  await input.setInputFiles({ name: 'CRR extract.txt', mimeType: 'text/plain', buffer: Buffer.from(TXT) })
  await expect(admin.getByRole('list', { name: 'Files to upload' })).toContainText('CRR extract.txt')
  await admin.getByLabel('Lever category').selectOption('Assets')
  await admin.getByRole('button', { name: 'Upload', exact: true }).click()
  const uploaded = admin.getByRole('region', { name: 'Uploaded documents' })
  const row = uploaded.getByRole('listitem', { name: 'CRR extract.txt' })
  await expect(row.getByTestId('kb-status')).toHaveText('completed', { timeout: 30_000 })
  await expect(row).toContainText(/1 page · \d+ chunks? indexed/)
  await expect(uploads).toHaveText(String(before.totalUploads + 1))
  await screenshot(admin, 'knowledge-base-upload')

  // Overview: the upload among the recent ones; search finds it with its article.
  await admin.getByRole('tab', { name: 'Overview' }).click()
  const recent = admin.getByRole('list', { name: 'Recent uploads' })
  await expect(recent.getByRole('listitem', { name: 'CRR extract.txt' }).getByTestId('kb-status')).toHaveText('completed')
  await admin.getByRole('textbox', { name: 'Search the knowledge base' }).fill('multilateral')
  await admin.getByRole('button', { name: 'Search' }).click()
  const hit = admin.getByTestId('kb-hit').filter({ hasText: 'CRR extract.txt' }).first()
  await expect(hit).toContainText('Article 114')
  await expect(hit).toContainText('Page 1')
  await expect(hit.locator('mark').first()).toHaveText(/multilateral/i)
  await screenshot(admin, 'knowledge-base-search')


  // Delete after confirmation.
  await recent.getByRole('button', { name: 'Delete CRR extract.txt' }).click()
  const confirm = admin.getByRole('dialog', { name: 'Delete document' })
  await expect(confirm).toContainText('CRR extract.txt')
  await confirm.getByRole('button', { name: 'Delete' }).click()
  await expect(admin.getByText('Document deleted')).toBeVisible()
  await expect(recent.getByRole('listitem', { name: 'CRR extract.txt' })).toHaveCount(0)
  const { body: docs } = await apiCall(admin, 'GET', '/api/admin/knowledge/documents')
  expect(docs.some((d) => d.name === 'CRR extract.txt')).toBe(false)
  const { body: hits } = await apiCall(admin, 'GET', '/api/admin/knowledge/search?q=multilateral')
  expect(hits.some((h) => h.documentName === 'CRR extract.txt')).toBe(false)
  expect(admin.errors).toEqual([])
})

test('a client user is kept out of the knowledge base', async ({ browser }) => {
  const page = await newPage(browser, env.server.baseUrl)
  await login(page, ACCOUNTS.userA)
  await expect(page).toHaveURL(/\/client\/home/)
  await page.goto('/admin/knowledge-base')
  await expect(page).toHaveURL(/\/client\/home/)
  await expect(page.getByRole('heading', { name: 'AI Knowledge Base Management' })).toHaveCount(0)
  expect((await apiCall(page, 'GET', '/api/admin/knowledge/stats')).status).toBe(403)
  expect((await apiCall(page, 'GET', '/api/admin/knowledge/documents')).status).toBe(403)
  expect((await apiCall(page, 'GET', '/api/admin/knowledge/search?q=article')).status).toBe(403)
  expect((await apiCall(page, 'GET', '/api/admin/knowledge/settings')).status).toBe(403)
  expect((await apiCall(page, 'POST', '/api/admin/knowledge/reindex')).status).toBe(403)
  expect((await apiCall(page, 'GET', '/api/admin/knowledge/rules')).status).toBe(403)
  expect((await apiCall(page, 'POST', '/api/admin/knowledge/levers', { levers: [] })).status).toBe(403)
  expect(page.errors).toEqual([])
})

test('a bulk upload answers each document: one completed, one failed with its reason', async ({ browser }) => {
  const admin = await newPage(browser, env.server.baseUrl)
  await login(admin, ACCOUNTS.admin)
  await expect(admin).toHaveURL(/\/admin\/dashboard/)
  await admin.goto('/admin/knowledge-base')
  await admin.getByRole('tab', { name: 'Bulk lever doc upload' }).click()
  // Dropped on the zone: a good TXT, a .doc (refused here, never sent) and a TXT that is not UTF-8
  // (accepted, then failed by the reader).
  const drop = await admin.evaluateHandle((text) => {
    const dt = new globalThis.DataTransfer()
    dt.items.add(new globalThis.File([text], 'Guidelines.txt', { type: 'text/plain' }))
    dt.items.add(new globalThis.File(['x'], 'Old memo.doc', { type: 'application/msword' }))
    dt.items.add(new globalThis.File([new Uint8Array([0x6f, 0x6b, 0x20, 0xff, 0xfe, 0x20, 0x62, 0x61, 0x64])], 'Latin1.txt', { type: 'text/plain' }))
    return dt
  }, TXT)
  await admin.getByTestId('kb-bulk-dropzone').dispatchEvent('drop', { dataTransfer: drop })
  const queue = admin.getByRole('list', { name: 'Files to upload' })
  await expect(queue.getByRole('listitem')).toHaveCount(3)
  await expect(queue.getByRole('listitem').filter({ hasText: 'Old memo.doc' })).toContainText(DOC_REFUSED)
  await admin.getByLabel('Lever category').selectOption('CRMT')
  await admin.getByRole('button', { name: 'Upload 2 files' }).click()
  const uploaded = admin.getByRole('region', { name: 'Uploaded documents' })
  await expect(uploaded.getByRole('listitem', { name: 'Guidelines.txt' }).getByTestId('kb-status')).toHaveText('completed', { timeout: 30_000 })
  const bad = uploaded.getByRole('listitem', { name: 'Latin1.txt' })
  await expect(bad.getByTestId('kb-status')).toHaveText('failed', { timeout: 30_000 })
  await expect(bad).toContainText('Text file extraction failed')
  await screenshot(admin, 'knowledge-base-bulk')
  const { body: docs } = await apiCall(admin, 'GET', '/api/admin/knowledge/documents')
  expect(docs.map((d) => d.name).sort()).toEqual(expect.arrayContaining(['Guidelines.txt', 'Latin1.txt']))
  expect(docs.some((d) => d.name === 'Old memo.doc')).toBe(false)
  expect(admin.errors).toEqual([])
})

test('the chunk size is changed in Settings and a re-index applies it to the documents', async ({ browser }) => {
  const admin = await newPage(browser, env.server.baseUrl)
  await login(admin, ACCOUNTS.admin)
  await expect(admin).toHaveURL(/\/admin\/dashboard/)
  await admin.request.get('/api/health')
  const words = Array.from({ length: 240 }, (_, i) => `passage${i}`).join(' ')
  const sent = await admin.request.post('/api/admin/knowledge/documents', {
    headers: { 'X-CSRF-Token': await csrfToken(admin.context()) },
    multipart: { category: 'Assets', files: { name: 'Chunked.txt', mimeType: 'text/plain', buffer: Buffer.from(`${TXT}\n${words}\n`) } },
  })
  expect(sent.status()).toBe(201)
  const [{ id }] = await sent.json()
  const doc = async () => (await apiCall(admin, 'GET', `/api/admin/knowledge/documents/${id}`)).body
  await expect.poll(async () => (await doc()).status, { timeout: 30_000 }).toBe('completed')
  const before = await doc()
  expect(before.chunkWords).toBe(200)

  await admin.goto('/admin/knowledge-base')
  await admin.getByRole('tab', { name: 'Settings' }).click()
  const field = admin.getByLabel('Words per chunk')
  await expect(field).toHaveValue('200')
  await expect(admin.getByText(/English \(stemming and stop words/)).toBeVisible()
  await field.fill('20')
  await admin.getByRole('button', { name: 'Save Settings' }).click()
  await expect(admin.getByRole('alert').filter({ hasText: 'Chunk size must be a whole number of words from 50 to 1000.' })).toBeVisible()
  expect((await apiCall(admin, 'GET', '/api/admin/knowledge/settings')).body.chunkWords).toBe(200)

  await field.fill('50')
  await admin.getByRole('button', { name: 'Save Settings' }).click()
  await expect(admin.getByText('Settings saved')).toBeVisible()
  await expect(admin.getByTestId('kb-stale')).toContainText(/indexed with another chunk size/)
  await expect(admin.getByText(/by Alicia Admin/)).toBeVisible()
  await screenshot(admin, 'knowledge-base-settings')

  await admin.getByRole('button', { name: 'Re-index all documents' }).click()
  const confirm = admin.getByRole('dialog', { name: 'Re-index the knowledge base' })
  await expect(confirm).toContainText('50-word chunks')
  await confirm.getByRole('button', { name: 'Re-index' }).click()
  await expect(admin.getByText('Re-index started')).toBeVisible()
  await expect(admin.getByTestId('kb-stale')).toHaveText('Every completed document is indexed with the current chunk size.', { timeout: 30_000 })
  await expect.poll(async () => (await doc()).status, { timeout: 30_000 }).toBe('completed')
  const after = await doc()
  expect(after.chunkWords).toBe(50)
  expect(after.chunkCount).toBeGreaterThan(before.chunkCount)
  const { body: hits } = await apiCall(admin, 'GET', '/api/admin/knowledge/search?q=passage7')
  expect(hits.filter((h) => h.documentId === id)).toHaveLength(1)
  await screenshot(admin, 'knowledge-base-reindexed')

  // Put the default back for the other tests of the suite.
  expect((await apiCall(admin, 'PUT', '/api/admin/knowledge/settings', { chunkWords: 200 })).status).toBe(200)
  expect(admin.errors).toEqual([])
})

// The CRR's standardised-approach articles 114 to 122 (as amended by CRR2), the text the server's
// own tests extract the engine's rule tables from.
const CRR = readFileSync(new URL('../../server/tests/fixtures/crr_standardised_articles.txt', import.meta.url))

test('levers and rules are extracted from the CRR articles, reviewed, validated and saved', async ({ browser }) => {
  const admin = await newPage(browser, env.server.baseUrl)
  await login(admin, ACCOUNTS.admin)
  await expect(admin).toHaveURL(/\/admin\/dashboard/)
  await admin.goto('/admin/knowledge-base')
  const totalRules = admin.getByRole('group', { name: 'Total Rules' }).getByTestId('kb-stat-value')
  const before = (await apiCall(admin, 'GET', '/api/admin/knowledge/stats')).body.totalRules
  await expect(totalRules).toHaveText(String(before))

  await admin.getByRole('tab', { name: 'Single lever doc upload' }).click()
  await admin.getByTestId('kb-single-input').setInputFiles({ name: 'CRR Articles 114-122.txt', mimeType: 'text/plain', buffer: CRR })
  await admin.getByLabel('Lever category').selectOption('Assets')
  await admin.getByRole('button', { name: 'Upload', exact: true }).click()
  const row = admin.getByRole('region', { name: 'Uploaded documents' }).getByRole('listitem', { name: 'CRR Articles 114-122.txt' })
  await expect(row.getByTestId('kb-status')).toHaveText('completed', { timeout: 30_000 })
  await row.getByRole('button', { name: 'Extract levers from CRR Articles 114-122.txt' }).click()

  // The review, on the Rules tab: one lever per exposure class, named as the product's levers.
  await expect(admin.getByRole('tab', { name: 'Rules' })).toHaveAttribute('aria-selected', 'true')
  const review = admin.getByRole('region', { name: 'Extracted levers' })
  const levers = review.getByTestId('kb-extracted-lever')
  await expect(levers).toHaveCount(6)
  const pse = levers.filter({ has: admin.getByRole('heading', { name: 'Public Sector Entities (PSE)' }) })
  await expect(pse).toContainText('A lever with a similar name already exists. Selecting it. (Public Sector Entities (PSE))')
  const shortTerm = pse.getByTestId('kb-extracted-rule').filter({ hasText: 'Article 116(3)' })
  await expect(shortTerm.getByLabel('Actions')).toHaveValue(/"riskWeight": 20/)
  const table2 = pse.getByTestId('kb-extracted-rule').filter({ hasText: 'Table 2' })
  await expect(table2.getByLabel('Actions')).toHaveValue(/"sovereign_unrated": 100/)
  await screenshot(admin, 'knowledge-base-extraction')

  // Validation with the specification's messages: save is refused until fixed.
  const description = pse.getByLabel('Description', { exact: true }).first()
  const text = await description.inputValue()
  await description.fill('')
  const conditions = shortTerm.getByLabel('Conditions')
  const kept = await conditions.inputValue()
  await conditions.fill('{}')
  await review.getByRole('button', { name: 'Save to Knowledge Base' }).click()
  await expect(admin.getByText('Validation Failed')).toBeVisible()
  await expect(pse.getByRole('alert').filter({ hasText: 'Description is required' })).toBeVisible()
  await expect(shortTerm.getByRole('alert').filter({ hasText: /^Rule \d+: Conditions are required$/ })).toBeVisible()
  // Invalid JSON is ignored: the last valid value stays.
  await conditions.fill('{"maturity": ')
  await expect(shortTerm).toContainText('Not a JSON object: the last valid value is kept.')
  await conditions.fill(kept)
  await description.fill(text)
  await review.getByRole('button', { name: 'Validate' }).click()
  await expect(review.getByText('All levers and rules are valid.')).toBeVisible()

  await review.getByRole('button', { name: 'Save to Knowledge Base' }).click()
  await expect(review.getByRole('button', { name: 'Saved' })).toBeDisabled()
  await expect(admin.getByText('6 levers saved, 0 items failed')).toBeVisible()

  // The Rules tab lists them, highest priority first; Total Rules counts them.
  const { body: rules } = await apiCall(admin, 'GET', '/api/admin/knowledge/rules')
  expect(rules.length).toBeGreaterThan(before)
  await expect(totalRules).toHaveText(String(rules.length))
  const table = admin.getByRole('table', { name: 'Regulatory rules' })
  await expect(table.getByRole('row').filter({ hasText: 'Article 116(3)' })).toContainText('Public Sector Entities (PSE)')
  const saved = rules.find((r) => r.articleReference === 'Article 116(3)')
  expect(saved.actions).toEqual({ riskWeight: 20 })
  expect(saved.version).toBe(1)
  expect(saved.sourceDocumentName).toBe('CRR Articles 114-122.txt')
  await review.getByRole('button', { name: 'Close the extraction' }).click()
  await screenshot(admin, 'knowledge-base-rules')
  expect(admin.errors).toEqual([])
})
