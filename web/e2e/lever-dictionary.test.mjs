// The lever dictionary in the browser against the real server: a lever added, analysis files
// dropped on the upload dialog, the lever renamed with its files moved to the new folder (checked
// in the Edit dialog and through the API), followed live by a second administrator; a lever in
// use refused on delete, an unused one deleted after confirmation.
import { expect, test } from '@playwright/test'

import { apiCall, login, newPage, screenshot } from './support/browser.mjs'
import { ACCOUNTS } from './support/server.mjs'
import { useServer } from './support/suite.mjs'

const env = useServer()

const CSV = 'Exposure_ID,NIF,Exposure_Amount\nE1,P2800000A,1000\n'

test('a lever is added, gets analysis files and is renamed with its files', async ({ browser }) => {
  const admin = await newPage(browser, env.server.baseUrl)
  await login(admin, ACCOUNTS.admin)
  await expect(admin).toHaveURL(/\/admin\/dashboard/)
  const other = await newPage(browser, env.server.baseUrl)
  await login(other, ACCOUNTS.admin)
  await expect(other).toHaveURL(/\/admin\/dashboard/)
  await other.goto('/admin/lever-dictionary')

  await admin.getByRole('link', { name: 'Lever dictionary' }).click()
  await expect(admin).toHaveURL(/\/admin\/lever-dictionary/)
  await expect(admin.getByRole('heading', { name: 'Capital Optimization Levers' })).toBeVisible()
  await expect(admin.getByText('Manage the dictionary of optimization levers')).toBeVisible()
  await expect(admin.getByRole('row', { name: /Public Sector Entities \(PSE\)/ })).toBeVisible()

  // Add Lever, with the validation first.
  await admin.getByRole('button', { name: 'Add Lever' }).click()
  const add = admin.getByRole('dialog', { name: 'Add New Optimization Lever' })
  await add.getByRole('button', { name: 'Add Lever' }).click()
  await expect(add.getByText('Lever name is required.')).toBeVisible()
  await add.getByLabel('Lever Name').fill('Covered Bonds')
  await add.getByLabel('Category').selectOption('Assets')
  await add.getByLabel('Description').fill(
    'Covered bonds eligible for the preferential treatment of CRR Article 129, weighted by the rating of the issuing institution and its cover pool.',
  )
  await add.getByRole('button', { name: 'Add Lever' }).click()
  await expect(add).toBeHidden()
  const row = admin.getByRole('row', { name: /Covered Bonds/ })
  await expect(row).toContainText('No files')
  // The other administrator's screen follows.
  await expect(other.getByRole('row', { name: /Covered Bonds/ })).toContainText('No files')

  // Upload two files by dropping them on the dialog.
  await row.getByRole('button', { name: 'Upload analysis files for Covered Bonds' }).click()
  const upload = admin.getByRole('dialog', { name: 'Upload Analysis Files for Covered Bonds' })
  const drop = await admin.evaluateHandle((csv) => {
    const dt = new globalThis.DataTransfer()
    dt.items.add(new globalThis.File([csv], 'Q1 exposures.csv', { type: 'text/csv' }))
    dt.items.add(new globalThis.File([csv + 'E2,P2800000A,2000\n'], 'Q2 exposures.csv', { type: 'text/csv' }))
    return dt
  }, CSV)
  await upload.getByTestId('lever-dropzone').dispatchEvent('drop', { dataTransfer: drop })
  await expect(upload.getByRole('list', { name: 'Files to upload' }).getByRole('listitem')).toHaveCount(2)
  await screenshot(admin, 'lever-dictionary-upload')
  await upload.getByRole('button', { name: 'Upload 2 files' }).click()
  await expect(admin.getByText('2 file(s) uploaded for Covered Bonds.')).toBeVisible()
  await expect(row).toContainText('2 files')
  await expect(other.getByRole('row', { name: /Covered Bonds/ })).toContainText('2 files')

  // Rename: the files move to the new folder.
  await row.getByRole('button', { name: 'Edit Covered Bonds' }).click()
  const edit = admin.getByRole('dialog', { name: 'Edit Optimization Lever' })
  await expect(edit.getByTestId('lever-files').getByText('Q1 exposures.csv')).toBeVisible()
  await expect(edit.getByTestId('lever-files').getByText('Q2 exposures.csv')).toBeVisible()
  await edit.getByLabel('Lever Name').fill('Sovereign Guaranteed Covered Bonds')
  await edit.getByRole('button', { name: 'Save Changes' }).click()
  await expect(admin.getByText('Lever updated successfully.')).toBeVisible()
  const renamed = admin.getByRole('row', { name: /Sovereign Guaranteed Covered Bonds/ })
  await expect(renamed).toContainText('2 files')
  await expect(other.getByRole('row', { name: /Sovereign Guaranteed Covered Bonds/ })).toBeVisible()
  const { body: levers } = await apiCall(admin, 'GET', '/api/admin/levers')
  const lever = levers.find((l) => l.name === 'Sovereign Guaranteed Covered Bonds')
  expect(lever.folder).toBe('sovereign-guaranteed-covered-bonds')
  const { body: files } = await apiCall(admin, 'GET', `/api/admin/levers/${lever.id}/files`)
  expect(files.map((f) => f.name).sort()).toEqual(['Q1 exposures.csv', 'Q2 exposures.csv'])
  for (const f of files) expect(f.key.startsWith('levers/sovereign-guaranteed-covered-bonds/')).toBe(true)
  // The Edit dialog still lists both, and a file downloads with its bytes.
  await renamed.getByRole('button', { name: 'Edit Sovereign Guaranteed Covered Bonds' }).click()
  const again = admin.getByRole('dialog', { name: 'Edit Optimization Lever' })
  await expect(again.getByTestId('lever-files').getByRole('listitem')).toHaveCount(2)
  await screenshot(admin, 'lever-dictionary-edit')
  const download = admin.waitForEvent('download')
  await again.getByRole('link', { name: 'Download Q1 exposures.csv' }).click()
  const saved = await download
  expect(saved.suggestedFilename()).toBe('Q1 exposures.csv')
  await again.getByRole('button', { name: 'Cancel' }).click()

  // The description's popover, then the category selector.
  await renamed.getByRole('button', { name: 'Description of Sovereign Guaranteed Covered Bonds' }).click()
  await admin.getByRole('button', { name: 'View full description' }).click()
  await expect(admin.getByRole('dialog', { name: 'Sovereign Guaranteed Covered Bonds' })).toContainText('cover pool.')
  await admin.keyboard.press('Escape')
  await renamed.getByLabel('Category of Sovereign Guaranteed Covered Bonds').selectOption('CRMT')
  await expect(admin.getByText('Category updated')).toBeVisible()
  await expect(other.getByLabel('Category of Sovereign Guaranteed Covered Bonds')).toHaveValue('CRMT')
  await screenshot(admin, 'lever-dictionary')
  expect(admin.errors).toEqual([])
  expect(other.errors).toEqual([])
})

test('a lever in use cannot be deleted; an unused one is, after confirmation', async ({ browser }) => {
  const admin = await newPage(browser, env.server.baseUrl)
  await login(admin, ACCOUNTS.admin)
  await expect(admin).toHaveURL(/\/admin\/dashboard/)
  await admin.goto('/admin/lever-dictionary')
  const pse = admin.getByRole('row', { name: /Public Sector Entities \(PSE\)/ })
  await pse.getByRole('button', { name: 'Delete Public Sector Entities (PSE)' }).click()
  await admin.getByRole('dialog', { name: 'Delete lever' }).getByRole('button', { name: 'Delete' }).click()
  await expect(admin.getByText("'Public Sector Entities (PSE)' is one of the analysis engine's levers and cannot be deleted.")).toBeVisible()
  await expect(pse).toBeVisible()

  const { status } = await apiCall(admin, 'POST', '/api/admin/levers', { name: 'Temporary lever', category: 'CRMT', description: 'To delete' })
  expect(status).toBe(201)
  const temp = admin.getByRole('row', { name: /Temporary lever/ })
  await expect(temp).toBeVisible()
  await temp.getByRole('button', { name: 'Delete Temporary lever' }).click()
  const confirm = admin.getByRole('dialog', { name: 'Delete lever' })
  await expect(confirm).toContainText('Temporary lever')
  await confirm.getByRole('button', { name: 'Delete' }).click()
  await expect(admin.getByText('Lever deleted')).toBeVisible()
  await expect(temp).toBeHidden()

  // Not for anyone else: a user is sent to the client home, and the API refuses.
  const user = await newPage(browser, env.server.baseUrl)
  await login(user, ACCOUNTS.userA)
  await expect(user).toHaveURL(/\/client\/home/)
  await user.goto('/admin/lever-dictionary')
  await expect(user).toHaveURL(/\/client\/home/)
  expect((await apiCall(user, 'GET', '/api/admin/levers')).status).toBe(403)
  expect(admin.errors).toEqual([])
})
