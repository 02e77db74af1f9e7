// A report's version history in two browsers against the real server: a named version taken by
// one editor, a read-only view of it, its restore received live by the co-editor, the automatic
// version kept before the restore, a viewer who sees versions but cannot take or restore one,
// and a version deleted.
import { expect, test } from '@playwright/test'

import { apiCall, login, newPage, screenshot } from './support/browser.mjs'
import { ACCOUNTS } from './support/server.mjs'
import { useServer } from './support/suite.mjs'

test.describe('report version history', () => {
  const env = useServer()

  test('a version is taken, viewed, restored live for a co-editor, and the restore kept undoable', async ({ browser }) => {
    const ana = await newPage(browser, env.server.baseUrl)
    await login(ana, ACCOUNTS.userA)
    await expect(ana).toHaveURL((url) => url.pathname === '/client/home')
    const created = await apiCall(ana, 'POST', '/api/reports', { name: 'Versioned disclosure' })
    expect(created.status).toBe(201)
    const editorUrl = `/client/report-generator/edit/${created.body.id}`
    await ana.goto(editorUrl)
    const anaEditor = ana.getByRole('textbox', { name: 'Introduction content' })
    await expect(anaEditor).toBeVisible()
    await anaEditor.click()
    await ana.keyboard.type('Savings of 12.5 bps agreed with the approver.')

    const pablo = await newPage(browser, env.server.baseUrl)
    await login(pablo, ACCOUNTS.approver)
    await expect(pablo).toHaveURL((url) => url.pathname === '/client/home')
    await pablo.goto(editorUrl)
    const pabloEditor = pablo.getByRole('textbox', { name: 'Introduction content' })
    await expect(pabloEditor.getByText('Savings of 12.5 bps agreed with the approver.')).toBeVisible()

    // Ana names the current state.
    await ana.getByRole('button', { name: 'Version History' }).click()
    await ana.getByRole('button', { name: 'Save Version' }).click()
    await expect(ana.getByRole('alert').filter({ hasText: 'Version name is required' })).toBeVisible()
    await ana.getByLabel('Version name').fill('Agreed figures')
    await ana.getByRole('button', { name: 'Save Version' }).click()
    await expect(ana.getByText('Version saved')).toBeVisible()
    const anaVersions = ana.getByRole('list', { name: 'Versions' })
    await expect(anaVersions.getByText('Agreed figures')).toBeVisible()
    // Pablo's list follows live.
    await pablo.getByRole('button', { name: 'Version History' }).click()
    const pabloVersions = pablo.getByRole('list', { name: 'Versions' })
    await expect(pabloVersions.getByText('Agreed figures')).toBeVisible()
    await expect(pabloVersions.getByText(/Ana García · /)).toBeVisible()

    // Pablo rewrites the text.
    await pabloEditor.click()
    await pablo.keyboard.press('Control+A')
    await pablo.keyboard.type('Draft withdrawn.')
    await expect(anaEditor.getByText('Draft withdrawn.')).toBeVisible()

    // The version, read-only.
    await ana.getByRole('button', { name: 'View Agreed figures' }).click()
    const view = ana.getByRole('dialog', { name: 'Agreed figures' })
    const old = view.getByLabel('Introduction content (read-only)')
    await expect(old.getByText('Savings of 12.5 bps agreed with the approver.')).toBeVisible()
    await expect(old).toHaveAttribute('contenteditable', 'false')
    await screenshot(ana, 'report-version-view')

    // Restore: Pablo's editor receives it live.
    await view.getByRole('button', { name: 'Restore this version' }).click()
    const confirm = ana.getByRole('dialog', { name: 'Restore version' })
    await expect(confirm).toContainText('The current state is kept as a version first.')
    await confirm.getByRole('button', { name: 'Restore' }).click()
    await expect(ana.getByText('Version restored')).toBeVisible()
    await expect(pabloEditor.getByText('Savings of 12.5 bps agreed with the approver.')).toBeVisible()
    await expect(pabloEditor.getByText('Draft withdrawn.')).toHaveCount(0)
    await expect(anaEditor.getByText('Savings of 12.5 bps agreed with the approver.')).toBeVisible()
    await expect(pabloVersions.getByText('Before restoring “Agreed figures”')).toBeVisible()
    await expect(pabloVersions.getByText('Automatic')).toBeVisible()
    await screenshot(pablo, 'report-version-restored')

    // Pablo undoes the restore from the automatic version.
    await pablo.getByRole('button', { name: 'Restore Before restoring “Agreed figures”' }).click()
    await pablo.getByRole('dialog', { name: 'Restore version' }).getByRole('button', { name: 'Restore' }).click()
    await expect(anaEditor.getByText('Draft withdrawn.')).toBeVisible()

    // A viewer sees the versions and opens one, with no way to take or restore one.
    const victor = await newPage(browser, env.server.baseUrl)
    await login(victor, ACCOUNTS.viewer)
    await expect(victor).toHaveURL((url) => url.pathname === '/client/home')
    await victor.goto(editorUrl)
    await expect(victor.getByRole('textbox', { name: 'Introduction content' })).toBeVisible()
    await victor.getByRole('button', { name: 'Version History' }).click()
    await expect(victor.getByRole('list', { name: 'Versions' }).getByText('Agreed figures', { exact: true })).toBeVisible()
    await expect(victor.getByLabel('Version name')).toHaveCount(0)
    await expect(victor.getByRole('button', { name: /^Restore/ })).toHaveCount(0)
    await expect(victor.getByRole('button', { name: /^Delete/ })).toHaveCount(0)
    const denied = await apiCall(victor, 'POST', `/api/reports/${created.body.id}/versions`, { name: 'Mine' })
    expect(denied.status).toBe(403)

    // Ana deletes the named version; the viewer's list follows live and the text stays.
    await ana.getByRole('button', { name: 'Delete Agreed figures' }).click()
    await ana.getByRole('dialog', { name: 'Delete version' }).getByRole('button', { name: 'Delete' }).click()
    await expect(ana.getByText('Version deleted')).toBeVisible()
    await expect(victor.getByRole('list', { name: 'Versions' }).getByText('Agreed figures', { exact: true })).toHaveCount(0)
    await expect(anaEditor.getByText('Draft withdrawn.')).toBeVisible()

    for (const page of [ana, pablo, victor]) {
      expect(page.errors).toEqual([])
      await page.context().close()
    }
  })
})
