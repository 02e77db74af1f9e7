// The report generator in two browsers against the real server: the list, creating a report,
// live co-editing (text and carets), the read-only view of a viewer, renaming from the card menu,
// the editor following a colleague's rename or status change, and the editor's toolbar and panel.
import { expect, test } from '@playwright/test'

import { apiCall, login, newPage, screenshot } from './support/browser.mjs'
import { ACCOUNTS } from './support/server.mjs'
import { useServer } from './support/suite.mjs'

const at = (path) => (url) => url.pathname === path

test.describe('report generator', () => {
  const env = useServer()

  test('lists reports, creates one and edits it together in two browsers', async ({ browser }) => {
    const ana = await newPage(browser, env.server.baseUrl)
    await login(ana, ACCOUNTS.userA)
    await expect(ana).toHaveURL(at('/client/home'))
    await ana.getByRole('link', { name: 'Report Generator' }).click()
    await expect(ana.getByRole('heading', { name: 'Report Generator' })).toBeVisible()
    await expect(ana.getByRole('heading', { name: 'Create Your First Report' })).toBeVisible()
    await expect(ana.getByText('0 of 100 drafts used this month')).toBeVisible()

    // New Report opens the editor on the server-built sections.
    await ana.getByRole('button', { name: 'New Report' }).click()
    await ana.getByLabel('Report name').fill('Pillar 3 disclosure')
    await ana.getByRole('button', { name: 'Create Report' }).click()
    await expect(ana).toHaveURL(/\/client\/report-generator\/edit\//)
    const editorUrl = new URL(ana.url()).pathname
    const anaEditor = ana.getByRole('textbox', { name: 'Introduction content' })
    await expect(anaEditor).toBeVisible()
    await expect(ana.getByText('Custom report')).toBeVisible()

    // A second browser (another member of Bank A) opens the same report.
    const pablo = await newPage(browser, env.server.baseUrl)
    await login(pablo, ACCOUNTS.approver)
    await expect(pablo).toHaveURL(at('/client/home'))
    await pablo.goto(editorUrl)
    const pabloEditor = pablo.getByRole('textbox', { name: 'Introduction content' })
    await expect(pabloEditor).toBeVisible()

    await anaEditor.click()
    await ana.keyboard.type('Typed by Ana.')
    await expect(pabloEditor.getByText('Typed by Ana.')).toBeVisible()

    await pabloEditor.click()
    await pablo.keyboard.press('End')
    await pablo.keyboard.type(' Pablo was here.')
    await expect(anaEditor.getByText('Typed by Ana. Pablo was here.')).toBeVisible()

    // Each sees the other's caret with the name.
    await expect(ana.locator('.collaboration-carets__label', { hasText: 'Pablo Approver' })).toBeVisible()
    await anaEditor.click()
    await expect(pablo.locator('.collaboration-carets__label', { hasText: 'Ana García' })).toBeVisible()

    // Sections are shared too.
    await ana.getByRole('button', { name: 'Add Custom Section' }).click()
    await expect(pablo.getByRole('textbox', { name: 'New Section 2 content' }).getByText('Enter your content here...')).toBeVisible()
    await pablo.getByRole('button', { name: 'Move New Section 2 up' }).click()
    await expect(ana.locator('section[aria-label] h2').nth(0)).toHaveText('New Section 2')
    await expect(ana.locator('section[aria-label] h2').nth(1)).toHaveText('Introduction')
    await screenshot(ana, 'report-editor-two-browsers')

    // Name and status: Unsaved changes, then Save Changes.
    await ana.getByLabel('Report name').fill('Pillar 3 disclosure 2026')
    await expect(ana.getByText('Unsaved changes')).toBeVisible()
    await ana.getByRole('button', { name: 'Save Changes' }).click()
    await expect(ana.getByRole('button', { name: 'Saved' })).toBeVisible()

    // The list shows it (live for the other browser), with its sections.
    await pablo.goto('/client/report-generator')
    const card = pablo.getByRole('article', { name: 'Pillar 3 disclosure 2026' })
    await expect(card).toBeVisible()
    await expect(card.getByText('2 sections')).toBeVisible()
    await expect(card.getByText('Draft')).toBeVisible()

    expect(ana.errors).toEqual([])
    expect(pablo.errors).toEqual([])
    await ana.context().close()
    await pablo.context().close()
  })

  test('shows viewers a read-only editor', async ({ browser }) => {
    const owner = await newPage(browser, env.server.baseUrl)
    await login(owner, ACCOUNTS.userA)
    await expect(owner).toHaveURL(at('/client/home'))
    const { status, body } = await apiCall(owner, 'POST', '/api/reports', { name: 'Read me' })
    expect(status).toBe(201)
    await owner.goto(`/client/report-generator/edit/${body.id}`)
    const ownerEditor = owner.getByRole('textbox', { name: 'Introduction content' })
    await ownerEditor.click()
    await owner.keyboard.type('Final wording.')

    const victor = await newPage(browser, env.server.baseUrl)
    await login(victor, ACCOUNTS.viewer)
    await expect(victor).toHaveURL(at('/client/home'))
    await victor.goto(`/client/report-generator/edit/${body.id}`)
    const viewerEditor = victor.getByRole('textbox', { name: 'Introduction content' })
    await expect(viewerEditor.getByText('Final wording.')).toBeVisible()
    await expect(victor.getByText('Read-only')).toBeVisible()
    await expect(viewerEditor).toHaveAttribute('contenteditable', 'false')
    await expect(victor.getByRole('button', { name: 'Add Custom Section' })).toHaveCount(0)
    await expect(victor.getByRole('button', { name: 'Save Changes' })).toHaveCount(0)
    await viewerEditor.click()
    await victor.keyboard.type('VIEWER')
    // The read-only editor took nothing; then, once a later edit of the owner has reached the
    // viewer through the server, nothing of the viewer's has reached the owner either.
    await expect(viewerEditor.getByText('VIEWER')).toHaveCount(0)
    await ownerEditor.click()
    await owner.keyboard.press('End')
    await owner.keyboard.type(' Signed off.')
    await expect(viewerEditor.getByText('Final wording. Signed off.')).toBeVisible()
    await expect(ownerEditor.getByText('VIEWER')).toHaveCount(0)

    // A user of another bank cannot open it.
    const bruno = await newPage(browser, env.server.baseUrl)
    await login(bruno, ACCOUNTS.userB)
    await expect(bruno).toHaveURL(at('/client/home'))
    await bruno.goto(`/client/report-generator/edit/${body.id}`)
    await expect(bruno.getByRole('heading', { name: 'Error loading report' })).toBeVisible()
    await bruno.getByRole('button', { name: 'Back to Documents' }).click()
    await expect(bruno).toHaveURL(at('/client/report-generator'))

    for (const p of [owner, victor, bruno]) {
      expect(p.errors).toEqual([])
      await p.context().close()
    }
  })

  test('renames a report from its card menu (Enter saves, Escape cancels) and opens cards from the keyboard', async ({ browser }) => {
    const ana = await newPage(browser, env.server.baseUrl)
    await login(ana, ACCOUNTS.userA)
    await expect(ana).toHaveURL(at('/client/home'))
    const { status, body } = await apiCall(ana, 'POST', '/api/reports', { name: 'Menu rename' })
    expect(status).toBe(201)
    await ana.goto('/client/report-generator')
    await expect(ana.getByRole('article', { name: 'Menu rename' })).toBeVisible()

    // Rename then Escape: the field takes the focus (and keeps it once the menu has closed),
    // Escape cancels and nothing changes.
    await ana.getByRole('button', { name: 'Actions for Menu rename' }).click()
    await ana.getByRole('menuitem', { name: 'Rename' }).click()
    const field = ana.getByRole('article', { name: 'Menu rename' }).getByRole('textbox', { name: 'Report name' })
    await expect(field).toBeVisible()
    await expect(ana.getByRole('menu')).toHaveCount(0)
    await expect(field).toBeFocused()
    await ana.keyboard.press('ControlOrMeta+a')
    await ana.keyboard.type('Discarded name')
    await ana.keyboard.press('Escape')
    await expect(field).toHaveCount(0)
    await expect(ana.getByRole('link', { name: 'Menu rename', exact: true })).toBeVisible()
    expect((await apiCall(ana, 'GET', `/api/reports/${body.id}`)).body.report.name).toBe('Menu rename')

    // Rename then Enter saves (typing goes to the field: the focus never left it).
    await ana.getByRole('button', { name: 'Actions for Menu rename' }).click()
    await ana.getByRole('menuitem', { name: 'Rename' }).click()
    await expect(field).toBeVisible()
    await expect(ana.getByRole('menu')).toHaveCount(0)
    await expect(field).toBeFocused()
    await ana.keyboard.press('ControlOrMeta+a')
    await ana.keyboard.type('Menu renamed')
    await ana.keyboard.press('Enter')
    await expect(ana.getByText('Report renamed successfully')).toBeVisible()
    await expect(ana.getByRole('article', { name: 'Menu renamed' })).toBeVisible()
    expect((await apiCall(ana, 'GET', `/api/reports/${body.id}`)).body.report.name).toBe('Menu renamed')

    // Keyboard: Tab reaches the newest card's link, Enter opens the editor.
    await ana.getByRole('button', { name: 'List view' }).focus()
    await ana.keyboard.press('Tab')
    await expect(ana.getByRole('link', { name: 'Menu renamed', exact: true })).toBeFocused()
    await ana.keyboard.press('Enter')
    await expect(ana).toHaveURL(at(`/client/report-generator/edit/${body.id}`))
    await expect(ana.getByRole('textbox', { name: 'Introduction content' })).toBeVisible()

    expect(ana.errors).toEqual([])
    await ana.context().close()
  })

  test('follows a colleague’s rename live and saves only what was changed here', async ({ browser }) => {
    const ana = await newPage(browser, env.server.baseUrl)
    await login(ana, ACCOUNTS.userA)
    await expect(ana).toHaveURL(at('/client/home'))
    const { body } = await apiCall(ana, 'POST', '/api/reports', { name: 'Live metadata' })
    const editorUrl = `/client/report-generator/edit/${body.id}`
    await ana.goto(editorUrl)
    const anaName = ana.getByRole('textbox', { name: 'Report name' })
    await expect(ana.getByRole('textbox', { name: 'Introduction content' })).toBeVisible()

    const pablo = await newPage(browser, env.server.baseUrl)
    await login(pablo, ACCOUNTS.approver)
    await expect(pablo).toHaveURL(at('/client/home'))
    await pablo.goto(editorUrl)
    await expect(pablo.getByRole('textbox', { name: 'Introduction content' })).toBeVisible()

    // Ana changes the status and has not saved yet; Pablo renames and saves.
    await ana.getByRole('combobox', { name: 'Status' }).selectOption('published')
    await expect(ana.getByText('Unsaved changes')).toBeVisible()
    await pablo.getByRole('textbox', { name: 'Report name' }).fill('Renamed by Pablo')
    await pablo.getByRole('button', { name: 'Save Changes' }).click()
    await expect(pablo.getByRole('button', { name: 'Saved' })).toBeVisible()

    // Ana's editor shows the new name at once, and her status change is still pending.
    await expect(anaName).toHaveValue('Renamed by Pablo')
    await expect(ana.getByRole('heading', { level: 1, name: 'Renamed by Pablo' })).toBeVisible()
    await expect(ana.getByText('Unsaved changes')).toBeVisible()
    await expect(anaName).toHaveValue('Renamed by Pablo')

    // Her save keeps Pablo's name; Pablo's editor follows her status.
    await ana.getByRole('button', { name: 'Save Changes' }).click()
    await expect(ana.getByRole('button', { name: 'Saved' })).toBeVisible()
    const saved = (await apiCall(ana, 'GET', `/api/reports/${body.id}`)).body.report
    expect(saved.name).toBe('Renamed by Pablo')
    expect(saved.status).toBe('published')
    await expect(pablo.getByRole('combobox', { name: 'Status' })).toHaveValue('published')
    await expect(pablo.getByRole('button', { name: 'Saved' })).toBeVisible()

    // A name Pablo is typing stays his (and unsaved) when Ana renames meanwhile.
    await pablo.getByRole('textbox', { name: 'Report name' }).fill('Pablo typing')
    await ana.getByRole('textbox', { name: 'Report name' }).fill('Ana final')
    await ana.getByRole('button', { name: 'Save Changes' }).click()
    await expect(ana.getByRole('button', { name: 'Saved' })).toBeVisible()
    await expect(pablo.getByRole('heading', { level: 1, name: 'Ana final' })).toBeVisible()
    await expect(pablo.getByRole('textbox', { name: 'Report name' })).toHaveValue('Pablo typing')
    await expect(pablo.getByText('Unsaved changes')).toBeVisible()

    for (const p of [ana, pablo]) {
      expect(p.errors).toEqual([])
      await p.context().close()
    }
  })

  test('sets any font size from 8 to 72, refuses others, renames sections by button and folds Structure', async ({ browser }) => {
    const ana = await newPage(browser, env.server.baseUrl)
    await login(ana, ACCOUNTS.userA)
    await expect(ana).toHaveURL(at('/client/home'))
    const { body } = await apiCall(ana, 'POST', '/api/reports', { name: 'Toolbar' })
    await ana.goto(`/client/report-generator/edit/${body.id}`)
    const intro = ana.getByRole('textbox', { name: 'Introduction content' })
    await intro.click()
    await ana.keyboard.type('Capital ratios.')
    await expect(intro).toContainText('Capital ratios.')
    await ana.keyboard.press('ControlOrMeta+a')

    const size = ana.getByRole('combobox', { name: 'Font size' })
    await size.fill('13')
    await size.press('Enter')
    await expect(intro.locator('span[style*="font-size: 13pt"]')).toBeVisible()

    await size.fill('90')
    await size.press('Enter')
    await expect(ana.getByRole('alert').filter({ hasText: 'Font size must be a whole number from 8 to 72.' })).toBeVisible()
    await expect(size).toHaveAttribute('aria-invalid', 'true')
    await expect(intro.locator('span[style*="font-size: 90pt"]')).toHaveCount(0)
    await size.fill('abc')
    await size.press('Enter')
    await expect(intro.locator('span[style*="font-size: 13pt"]')).toHaveCount(1)

    // Section rename by its button, from the keyboard; double-clicking the heading opens the AI
    // text assistant, not a rename.
    await ana.getByRole('heading', { name: 'Introduction', exact: true }).dblclick()
    await expect(ana.getByRole('dialog', { name: 'AI Text Assistant' })).toBeVisible()
    await expect(ana.getByRole('textbox', { name: 'Section title' })).toHaveCount(0)
    await ana.keyboard.press('Escape')
    await expect(ana.getByRole('dialog', { name: 'AI Text Assistant' })).toHaveCount(0)
    await ana.getByRole('button', { name: 'Rename Introduction' }).focus()
    await ana.keyboard.press('Enter')
    await expect(ana.getByRole('textbox', { name: 'Section title' })).toBeVisible()
    await ana.keyboard.press('ControlOrMeta+a')
    await ana.keyboard.type('Executive Summary')
    await ana.keyboard.press('Enter')
    await expect(ana.getByRole('region', { name: 'Executive Summary' })).toBeVisible()

    // Structure folds and unfolds.
    const structure = ana.getByRole('button', { name: 'Structure' })
    await expect(structure).toHaveAttribute('aria-expanded', 'true')
    await structure.click()
    await expect(ana.getByRole('button', { name: 'Add Custom Section' })).toBeHidden()
    await expect(structure).toHaveAttribute('aria-expanded', 'false')
    await structure.click()
    await expect(ana.getByRole('button', { name: 'Add Custom Section' })).toBeVisible()

    expect(ana.errors).toEqual([])
    await ana.context().close()
  })

  test('bolds with Ctrl+B without folding the sidebar, deletes sections with undo, saves confirmed renames and asks before leaving', async ({ browser }) => {
    const ana = await newPage(browser, env.server.baseUrl)
    await login(ana, ACCOUNTS.userA)
    await expect(ana).toHaveURL(at('/client/home'))
    const { body } = await apiCall(ana, 'POST', '/api/reports', { name: 'Shortcuts and undo' })
    const editorUrl = `/client/report-generator/edit/${body.id}`
    await ana.goto(editorUrl)
    await expect(ana).toHaveTitle('Report Editor · CapOpt')
    const intro = ana.getByRole('textbox', { name: 'Introduction content' })
    await expect(intro).toBeVisible()

    // Ctrl+B in the text makes it bold; the sidebar stays as it is.
    await intro.click()
    await ana.keyboard.press('ControlOrMeta+a')
    await ana.keyboard.type('Bold words')
    await ana.keyboard.press('ControlOrMeta+a')
    await ana.keyboard.press('ControlOrMeta+b')
    await expect(intro.locator('strong', { hasText: 'Bold words' })).toBeVisible()
    await expect(ana.locator('aside[data-state="expanded"]')).toBeAttached()

    // A colleague sees the deletion and the undo.
    const pablo = await newPage(browser, env.server.baseUrl)
    await login(pablo, ACCOUNTS.approver)
    await expect(pablo).toHaveURL(at('/client/home'))
    await pablo.goto(editorUrl)
    await expect(pablo.getByRole('textbox', { name: 'Introduction content' }).locator('strong', { hasText: 'Bold words' })).toBeVisible()
    await ana.getByRole('button', { name: 'Delete Introduction' }).click()
    await ana.getByRole('dialog', { name: 'Delete section' }).getByRole('button', { name: 'Delete' }).click()
    await expect(pablo.getByRole('textbox', { name: 'Introduction content' })).toHaveCount(0)
    await ana.locator('[data-sonner-toast]').getByRole('button', { name: 'Undo' }).click()
    await expect(pablo.getByRole('textbox', { name: 'Introduction content' }).getByText('Bold words')).toBeVisible()
    await expect(intro.getByText('Bold words')).toBeVisible()

    // A rename confirmed with Enter is saved, and survives leaving by the sidebar.
    await ana.getByRole('textbox', { name: 'Report name' }).fill('Renamed with Enter')
    await ana.getByRole('textbox', { name: 'Report name' }).press('Enter')
    await expect(ana.getByRole('button', { name: 'Saved' })).toBeVisible()
    // An unsaved status asks before leaving.
    await ana.getByRole('combobox', { name: 'Status' }).selectOption('published')
    await ana.getByRole('complementary', { name: 'Client navigation' }).getByRole('link', { name: 'Report Generator' }).click()
    const ask = ana.getByRole('dialog', { name: 'Unsaved changes' })
    await expect(ask).toBeVisible()
    await ask.getByRole('button', { name: 'Leave without saving' }).click()
    await expect(ana).toHaveURL(at('/client/report-generator'))
    await expect(ana.getByRole('article', { name: 'Renamed with Enter' })).toBeVisible()
    await expect(ana.getByRole('article', { name: 'Renamed with Enter' }).getByText('Draft')).toBeVisible()

    // The editor fits a 390 px phone screen.
    await ana.setViewportSize({ width: 390, height: 844 })
    await ana.goto(editorUrl)
    await expect(ana.getByRole('textbox', { name: 'Introduction content' })).toBeVisible()
    // Nothing sticks out of the page or its padding (scrolling rows aside).
    const sticking = await ana.locator('main').evaluate((main) => {
      const win = main.ownerDocument.defaultView
      const out = [...main.querySelectorAll('*')].filter((el) => {
        const r = el.getBoundingClientRect()
        if (r.width === 0) return false
        for (let p = el.parentElement; p; p = p.parentElement) {
          if (['auto', 'scroll', 'hidden'].includes(win.getComputedStyle(p).overflowX)) return false
        }
        return r.right > win.innerWidth - 15
      })
      return { pageWidth: main.ownerDocument.documentElement.scrollWidth, out: out.map((el) => el.outerHTML.slice(0, 80)) }
    })
    expect(sticking).toEqual({ pageWidth: 390, out: [] })

    for (const p of [ana, pablo]) {
      expect(p.errors).toEqual([])
      await p.context().close()
    }
  })
})
