// The report generator in two browsers against the real server: the list, creating a report,
// live co-editing (text and carets), the read-only view of a viewer, renaming from the card menu,
// the editor following a colleague's rename or status change, and the editor's toolbar and panel.
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
    await ana.getByRole('heading', { name: 'Create Your First Report' }).waitFor()
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

  it('renames a report from its card menu (Enter saves, Escape cancels) and opens cards from the keyboard', async () => {
    const ana = await newPage(env.browser, env.server.baseUrl)
    await login(ana, ACCOUNTS.userA)
    await ana.waitForURL((url) => url.pathname === '/client/home')
    const { status, body } = await apiCall(ana, 'POST', '/api/reports', { name: 'Menu rename' })
    assert.equal(status, 201)
    await ana.goto('/client/report-generator')
    await ana.getByRole('article', { name: 'Menu rename' }).waitFor()
    const focusedLabel = () => ana.evaluate(() => globalThis.document.activeElement?.getAttribute('aria-label') ?? globalThis.document.activeElement?.textContent)

    // Rename then Escape: the field takes the focus (and keeps it once the menu has closed),
    // Escape cancels and nothing changes.
    await ana.getByRole('button', { name: 'Actions for Menu rename' }).click()
    await ana.getByRole('menuitem', { name: 'Rename' }).click()
    const field = ana.getByRole('article', { name: 'Menu rename' }).getByRole('textbox', { name: 'Report name' })
    await field.waitFor()
    await ana.waitForTimeout(300)
    assert.equal(await focusedLabel(), 'Report name')
    await ana.keyboard.press('ControlOrMeta+a')
    await ana.keyboard.type('Discarded name')
    await ana.keyboard.press('Escape')
    await field.waitFor({ state: 'detached' })
    await ana.getByRole('link', { name: 'Menu rename', exact: true }).waitFor()
    assert.equal((await apiCall(ana, 'GET', `/api/reports/${body.id}`)).body.report.name, 'Menu rename')

    // Rename then Enter saves (typing goes to the field: the focus never left it).
    await ana.getByRole('button', { name: 'Actions for Menu rename' }).click()
    await ana.getByRole('menuitem', { name: 'Rename' }).click()
    await field.waitFor()
    await ana.waitForTimeout(300)
    assert.equal(await focusedLabel(), 'Report name')
    await ana.keyboard.press('ControlOrMeta+a')
    await ana.keyboard.type('Menu renamed')
    await ana.keyboard.press('Enter')
    await ana.getByText('Report renamed successfully').waitFor()
    await ana.getByRole('article', { name: 'Menu renamed' }).waitFor()
    assert.equal((await apiCall(ana, 'GET', `/api/reports/${body.id}`)).body.report.name, 'Menu renamed')

    // Keyboard: Tab reaches the newest card's link, Enter opens the editor.
    await ana.getByRole('button', { name: 'List view' }).focus()
    await ana.keyboard.press('Tab')
    assert.equal(await focusedLabel(), 'Menu renamed')
    await ana.keyboard.press('Enter')
    await ana.waitForURL((url) => url.pathname === `/client/report-generator/edit/${body.id}`)
    await ana.getByRole('textbox', { name: 'Introduction content' }).waitFor()

    assert.deepEqual(ana.errors, [])
    await ana.context().close()
  })

  it('follows a colleague’s rename live and saves only what was changed here', async () => {
    const ana = await newPage(env.browser, env.server.baseUrl)
    await login(ana, ACCOUNTS.userA)
    await ana.waitForURL((url) => url.pathname === '/client/home')
    const { body } = await apiCall(ana, 'POST', '/api/reports', { name: 'Live metadata' })
    const editorUrl = `/client/report-generator/edit/${body.id}`
    await ana.goto(editorUrl)
    const anaName = ana.getByRole('textbox', { name: 'Report name' })
    await ana.getByRole('textbox', { name: 'Introduction content' }).waitFor()

    const pablo = await newPage(env.browser, env.server.baseUrl)
    await login(pablo, ACCOUNTS.approver)
    await pablo.waitForURL((url) => url.pathname === '/client/home')
    await pablo.goto(editorUrl)
    await pablo.getByRole('textbox', { name: 'Introduction content' }).waitFor()

    // Ana changes the status and has not saved yet; Pablo renames and saves.
    await ana.getByRole('combobox', { name: 'Status' }).selectOption('published')
    await ana.getByText('Unsaved changes').waitFor()
    await pablo.getByRole('textbox', { name: 'Report name' }).fill('Renamed by Pablo')
    await pablo.getByRole('button', { name: 'Save Changes' }).click()
    await pablo.getByRole('button', { name: 'Saved' }).waitFor()

    // Ana's editor shows the new name at once, and her status change is still pending.
    await ana.waitForFunction(() => globalThis.document.querySelector('input[aria-label="Report name"]')?.value === 'Renamed by Pablo')
    await ana.getByRole('heading', { level: 1, name: 'Renamed by Pablo' }).waitFor()
    await ana.getByText('Unsaved changes').waitFor()
    assert.equal(await anaName.inputValue(), 'Renamed by Pablo')

    // Her save keeps Pablo's name; Pablo's editor follows her status.
    await ana.getByRole('button', { name: 'Save Changes' }).click()
    await ana.getByRole('button', { name: 'Saved' }).waitFor()
    const saved = (await apiCall(ana, 'GET', `/api/reports/${body.id}`)).body.report
    assert.equal(saved.name, 'Renamed by Pablo')
    assert.equal(saved.status, 'published')
    await pablo.waitForFunction(() => globalThis.document.querySelector('select[aria-label="Status"]')?.value === 'published')
    await pablo.getByRole('button', { name: 'Saved' }).waitFor()

    // A name Pablo is typing stays his (and unsaved) when Ana renames meanwhile.
    await pablo.getByRole('textbox', { name: 'Report name' }).fill('Pablo typing')
    await ana.getByRole('textbox', { name: 'Report name' }).fill('Ana final')
    await ana.getByRole('button', { name: 'Save Changes' }).click()
    await ana.getByRole('button', { name: 'Saved' }).waitFor()
    await pablo.getByRole('heading', { level: 1, name: 'Ana final' }).waitFor()
    assert.equal(await pablo.getByRole('textbox', { name: 'Report name' }).inputValue(), 'Pablo typing')
    await pablo.getByText('Unsaved changes').waitFor()

    for (const p of [ana, pablo]) {
      assert.deepEqual(p.errors, [])
      await p.context().close()
    }
  })

  it('sets any font size from 8 to 72, refuses others, renames sections by button and folds Structure', async () => {
    const ana = await newPage(env.browser, env.server.baseUrl)
    await login(ana, ACCOUNTS.userA)
    await ana.waitForURL((url) => url.pathname === '/client/home')
    const { body } = await apiCall(ana, 'POST', '/api/reports', { name: 'Toolbar' })
    await ana.goto(`/client/report-generator/edit/${body.id}`)
    const intro = ana.getByRole('textbox', { name: 'Introduction content' })
    await intro.click()
    await ana.keyboard.type('Capital ratios.')
    await ana.keyboard.press('ControlOrMeta+a')

    const size = ana.getByRole('combobox', { name: 'Font size' })
    await size.fill('13')
    await size.press('Enter')
    await intro.locator('span[style*="font-size: 13pt"]').waitFor()

    await size.fill('90')
    await size.press('Enter')
    await ana.getByRole('alert').filter({ hasText: 'Font size must be a whole number from 8 to 72.' }).waitFor()
    assert.equal(await size.getAttribute('aria-invalid'), 'true')
    assert.equal(await intro.locator('span[style*="font-size: 90pt"]').count(), 0)
    await size.fill('abc')
    await size.press('Enter')
    assert.equal(await intro.locator('span[style*="font-size: 13pt"]').count(), 1)

    // Section rename by its button, from the keyboard; double-clicking the heading does not rename.
    await ana.getByRole('heading', { name: 'Introduction', exact: true }).dblclick()
    assert.equal(await ana.getByRole('textbox', { name: 'Section title' }).count(), 0)
    await ana.getByRole('button', { name: 'Rename Introduction' }).focus()
    await ana.keyboard.press('Enter')
    await ana.getByRole('textbox', { name: 'Section title' }).waitFor()
    await ana.keyboard.press('ControlOrMeta+a')
    await ana.keyboard.type('Executive Summary')
    await ana.keyboard.press('Enter')
    await ana.getByRole('region', { name: 'Executive Summary' }).waitFor()

    // Structure folds and unfolds.
    const structure = ana.getByRole('button', { name: 'Structure' })
    assert.equal(await structure.getAttribute('aria-expanded'), 'true')
    await structure.click()
    await ana.getByRole('button', { name: 'Add Custom Section' }).waitFor({ state: 'hidden' })
    assert.equal(await structure.getAttribute('aria-expanded'), 'false')
    await structure.click()
    await ana.getByRole('button', { name: 'Add Custom Section' }).waitFor()

    assert.deepEqual(ana.errors, [])
    await ana.context().close()
  })
})
