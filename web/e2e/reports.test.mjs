// The report generator in two browsers against the real server: the list, creating a report,
// live co-editing (text and carets) and the read-only view of a viewer.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'

import { apiCall, login, newPage, screenshot } from './support/browser.mjs'
import { ACCOUNTS } from './support/server.mjs'
import { useServerAndBrowser } from './support/suite.mjs'

describe('report generator', () => {
  const env = useServerAndBrowser()

  it('lists reports, creates one and edits it together in two browsers', async () => {
    const ana = await newPage(env.browser, env.server.baseUrl)
    await login(ana, ACCOUNTS.userA)
    await ana.waitForURL((url) => url.pathname === '/client/home')
    await ana.getByRole('link', { name: 'Report Generator' }).click()
    await ana.getByRole('heading', { name: 'Report Generator' }).waitFor()
    await ana.getByRole('button', { name: 'Create Your First Report' }).waitFor()
    await ana.getByText('0 of 100 drafts used this month').waitFor()

    // New Report opens the editor on the server-built sections.
    await ana.getByRole('button', { name: 'New Report' }).click()
    await ana.getByLabel('Report name').fill('Pillar 3 disclosure')
    await ana.getByRole('button', { name: 'Create Report' }).click()
    await ana.waitForURL((url) => url.pathname.startsWith('/client/report-generator/edit/'))
    const editorUrl = new URL(ana.url()).pathname
    const anaEditor = ana.getByRole('textbox', { name: 'Introduction content' })
    await anaEditor.waitFor()
    await ana.getByText('Custom report').waitFor()

    // A second browser (another member of Bank A) opens the same report.
    const pablo = await newPage(env.browser, env.server.baseUrl)
    await login(pablo, ACCOUNTS.approver)
    await pablo.waitForURL((url) => url.pathname === '/client/home')
    await pablo.goto(editorUrl)
    const pabloEditor = pablo.getByRole('textbox', { name: 'Introduction content' })
    await pabloEditor.waitFor()

    await anaEditor.click()
    await ana.keyboard.type('Typed by Ana.')
    await pabloEditor.getByText('Typed by Ana.').waitFor()

    await pabloEditor.click()
    await pablo.keyboard.press('End')
    await pablo.keyboard.type(' Pablo was here.')
    await anaEditor.getByText('Typed by Ana. Pablo was here.').waitFor()

    // Each sees the other's caret with the name.
    await ana.locator('.collaboration-carets__label', { hasText: 'Pablo Approver' }).waitFor()
    await anaEditor.click()
    await pablo.locator('.collaboration-carets__label', { hasText: 'Ana García' }).waitFor()

    // Sections are shared too.
    await ana.getByRole('button', { name: 'Add Custom Section' }).click()
    await pablo.getByRole('textbox', { name: 'New Section 2 content' }).getByText('Enter your content here...').waitFor()
    await pablo.getByRole('button', { name: 'Move New Section 2 up' }).click()
    await ana.waitForFunction(() => {
      const titles = [...globalThis.document.querySelectorAll('section[aria-label] h2')].map((h) => h.textContent)
      return titles[0] === 'New Section 2' && titles[1] === 'Introduction'
    })
    await screenshot(ana, 'report-editor-two-browsers')

    // Name and status: Unsaved changes, then Save Changes.
    await ana.getByLabel('Report name').fill('Pillar 3 disclosure 2026')
    await ana.getByText('Unsaved changes').waitFor()
    await ana.getByRole('button', { name: 'Save Changes' }).click()
    await ana.getByRole('button', { name: 'Saved' }).waitFor()

    // The list shows it (live for the other browser), with its sections.
    await pablo.goto('/client/report-generator')
    const card = pablo.getByRole('article', { name: 'Pillar 3 disclosure 2026' })
    await card.waitFor()
    await card.getByText('2 sections').waitFor()
    await card.getByText('Draft').waitFor()

    assert.deepEqual(ana.errors, [])
    assert.deepEqual(pablo.errors, [])
    await ana.context().close()
    await pablo.context().close()
  })

  it('shows viewers a read-only editor', async () => {
    const owner = await newPage(env.browser, env.server.baseUrl)
    await login(owner, ACCOUNTS.userA)
    await owner.waitForURL((url) => url.pathname === '/client/home')
    const { status, body } = await apiCall(owner, 'POST', '/api/reports', { name: 'Read me' })
    assert.equal(status, 201)
    await owner.goto(`/client/report-generator/edit/${body.id}`)
    const ownerEditor = owner.getByRole('textbox', { name: 'Introduction content' })
    await ownerEditor.click()
    await owner.keyboard.type('Final wording.')

    const victor = await newPage(env.browser, env.server.baseUrl)
    await login(victor, ACCOUNTS.viewer)
    await victor.waitForURL((url) => url.pathname === '/client/home')
    await victor.goto(`/client/report-generator/edit/${body.id}`)
    const viewerEditor = victor.getByRole('textbox', { name: 'Introduction content' })
    await viewerEditor.getByText('Final wording.').waitFor()
    await victor.getByText('Read-only').waitFor()
    assert.equal(await viewerEditor.getAttribute('contenteditable'), 'false')
    assert.equal(await victor.getByRole('button', { name: 'Add Custom Section' }).count(), 0)
    assert.equal(await victor.getByRole('button', { name: 'Save Changes' }).count(), 0)
    await viewerEditor.click()
    await victor.keyboard.type('VIEWER')
    await owner.waitForTimeout(500)
    assert.equal(await ownerEditor.getByText('VIEWER').count(), 0)
    assert.equal(await viewerEditor.getByText('VIEWER').count(), 0)

    // A user of another bank cannot open it.
    const bruno = await newPage(env.browser, env.server.baseUrl)
    await login(bruno, ACCOUNTS.userB)
    await bruno.waitForURL((url) => url.pathname === '/client/home')
    await bruno.goto(`/client/report-generator/edit/${body.id}`)
    await bruno.getByRole('heading', { name: 'Error loading report' }).waitFor()
    await bruno.getByRole('button', { name: 'Back to Documents' }).click()
    await bruno.waitForURL((url) => url.pathname === '/client/report-generator')

    for (const p of [owner, victor, bruno]) {
      assert.deepEqual(p.errors, [])
      await p.context().close()
    }
  })
})
