// Clients and the client data room in the browser against the real server: a client added with
// every administrator (a second administrator invited first), the dialog's messages and its bps
// computed by the server (K01: 1bn of 100bn RWAs with 13bn capital, +13,13 bps), an inline RWAs
// edit of Bank A (250m: 10,000 x 6.53 x 0.25 / (48.2 x 47.95) = 7,06 bps) followed live by
// another administrator's list, and the data room with File Management filtered to the client.
import { expect, test } from '@playwright/test'

import { apiCall, login, newPage, screenshot } from './support/browser.mjs'
import { ACCOUNTS, DEMO_PASSWORD, lastMailTo } from './support/server.mjs'
import { useServer } from './support/suite.mjs'

const env = useServer()
const money = (s) => s.replace(/ /g, '\u00a0')
const toast = (page, text) => page.locator('[data-sonner-toast]').getByText(text, { exact: true })
const row = (page, name) => page.getByRole('table', { name: 'Clients' }).getByRole('row').filter({ hasText: name })

test('a client added with every administrator, an inline RWAs edit seen live, and its data room', async ({ browser }) => {
  // A second administrator, invited and signed up from the outbox link.
  const admin = await newPage(browser, env.server.baseUrl)
  expect((await apiCall(admin, 'POST', '/api/auth/login', { email: ACCOUNTS.admin, password: DEMO_PASSWORD })).status).toBe(200)
  const invited = await apiCall(admin, 'POST', '/api/admin/users', { name: 'Sara', lastName: 'Second', email: 'sara@capopt.example', role: 'admin', clientId: null })
  expect(invited.status, JSON.stringify(invited.body)).toBe(201)
  const link = (await lastMailTo(env.server, 'sara@capopt.example')).body.match(/\/signup\/([A-Za-z0-9_-]+)/)
  expect(link).toBeTruthy()
  const accepted = await apiCall(admin, 'POST', `/api/invitations/${link[1]}/accept`, { name: 'Sara', last_name: 'Second', password: 'Second-Admin-1' })
  expect(accepted.status).toBe(201)
  await admin.context().close()

  const page = await newPage(browser, env.server.baseUrl)
  await login(page, ACCOUNTS.admin)
  await expect(page).toHaveURL(/\/admin\/dashboard/)
  await page.getByRole('link', { name: 'Clients', exact: true }).click()
  await expect(page).toHaveURL(/\/admin\/clients$/)
  await expect(page.getByRole('heading', { name: 'Clients', exact: true })).toBeVisible()
  await expect(row(page, 'Bank A')).toBeVisible()
  await expect(row(page, 'Bank B')).toBeVisible()

  // The other administrator watches the same list.
  const other = await newPage(browser, env.server.baseUrl)
  await login(other, 'sara@capopt.example', 'Second-Admin-1')
  await other.getByRole('button', { name: 'Accept' }).click()
  await other.goto('/admin/clients')
  await expect(row(other, 'Bank A')).toBeVisible()

  // Add New Client: the dialog's messages, then a client with its bps from the server.
  await page.getByRole('button', { name: 'New Client' }).click()
  const dialog = page.getByRole('dialog', { name: 'Add New Client' })
  await dialog.getByRole('button', { name: 'Add Client' }).click()
  await expect(dialog.getByText('Client name is required')).toBeVisible()
  await expect(dialog.getByText('Description is required')).toBeVisible()
  await expect(dialog.getByText('From date is required')).toBeVisible()
  await dialog.getByLabel('Client Name').fill('Bank C')
  await dialog.getByLabel('Description').fill('Savings bank (browser test)')
  await expect(dialog.getByLabel('From Date')).toHaveAttribute('min', '2024-01-01')
  await dialog.getByLabel('From Date').fill('2024-05-01')
  await dialog.getByLabel('CET1 Savings (RWAs)').fill('1.000.000.000,00')
  await dialog.getByLabel('CET1 Capital').fill('13000000000')
  await dialog.getByLabel('Total RWAs').fill('100.000.000.000')
  await dialog.getByLabel('Total RWAs').blur()
  await expect(dialog.getByLabel('CET1 Capital')).toHaveValue('13.000.000.000')
  await expect(dialog.getByLabel('CET1 Savings (BPS)')).toHaveValue('13,13')
  await screenshot(page, 'clients-add-dialog')
  await dialog.getByRole('button', { name: 'Add Client' }).click()
  await expect(toast(page, 'Client added')).toBeVisible()
  await expect(page.getByText('Client "Bank C" has been added successfully with all admin users.')).toBeVisible()
  // Both administrators are its members; the other list shows it without a reload.
  await expect(row(page, 'Bank C').getByRole('cell').nth(2)).toHaveText('2')
  await expect(row(page, 'Bank C')).toContainText(money('1.000.000.000 €'))
  await expect(row(page, 'Bank C')).toContainText('13,13')
  await expect(row(other, 'Bank C')).toBeVisible()

  // The filter menu: the second administrator did not create Bank C but belongs to it.
  await other.getByRole('button', { name: /^Filter:/ }).click()
  await other.getByRole('menuitem', { name: 'Shared with me' }).click()
  await expect(row(other, 'Bank C')).toBeVisible()
  await expect(row(other, 'Bank A')).toBeVisible()

  // Inline RWAs edit of Bank A: Cancel changes nothing; Save stores it; bps are computed.
  await row(page, 'Bank A').getByRole('button', { name: 'Edit the savings of Bank A' }).click()
  const field = page.getByLabel('CET Savings (RWAs) of Bank A')
  await field.fill('1')
  await row(page, 'Bank A').getByRole('button', { name: 'Cancel' }).click()
  await expect(field).toHaveCount(0)
  await row(page, 'Bank A').getByRole('button', { name: 'Edit the savings of Bank A' }).click()
  await field.fill('250.000.000')
  await screenshot(page, 'clients-inline-edit')
  await row(page, 'Bank A').getByRole('button', { name: 'Save' }).click()
  await expect(toast(page, 'Savings updated')).toBeVisible()
  await expect(row(page, 'Bank A')).toContainText(money('250.000.000 €'))
  await expect(row(page, 'Bank A')).toContainText('7,06')
  // Live on the other administrator's screen.
  await other.getByRole('button', { name: /^Filter:/ }).click()
  await other.getByRole('menuitem', { name: 'All Clients' }).click()
  await expect(row(other, 'Bank A')).toContainText(money('250.000.000 €'))
  await expect(row(other, 'Bank A')).toContainText('7,06')

  // Search.
  await page.getByLabel('Search clients').fill('savings bank')
  await expect(row(page, 'Bank C')).toBeVisible()
  await expect(row(page, 'Bank A')).toHaveCount(0)
  await page.getByLabel('Search clients').fill('nothing like this')
  await expect(page.getByText('No clients found. Add your first client to get started!')).toBeVisible()
  await page.getByLabel('Search clients').fill('')
  await expect(row(page, 'Bank A')).toBeVisible()
  await screenshot(page, 'clients')

  // The data room of Bank A.
  await row(page, 'Bank A').getByRole('link', { name: 'Open Bank A' }).click()
  await expect(page).toHaveURL(/\/admin\/client-data-room\//)
  await expect(page.getByRole('heading', { name: 'Bank A', exact: true })).toBeVisible()
  const figures = page.getByRole('region', { name: 'Figures' })
  await expect(figures).toContainText(money('250.000.000 €'))
  await expect(figures).toContainText('7,06')
  await expect(figures).toContainText(money('6.530.000.000 €'))
  await expect(figures).toContainText(money('13,55 %'))
  const members = page.getByRole('list', { name: 'Members' })
  await expect(members).toContainText('user@bank-a.example')
  await expect(members.getByRole('listitem').filter({ hasText: 'approver2@example.com' })).toContainText('Client approver')
  await expect(members).toContainText('sara@capopt.example')
  await expect(page.getByRole('list', { name: 'Recent activity' })).toContainText('Savings edited')
  await expect(page.getByRole('figure', { name: 'Savings history' }).locator('.recharts-area')).toBeVisible()
  await screenshot(page, 'client-data-room')
  // Its files: File Management filtered to the client.
  await page.getByRole('link', { name: 'Open in File Management' }).click()
  await expect(page).toHaveURL(/\/admin\/file-management\?client=/)
  await expect(page.getByRole('heading', { name: 'File Management' })).toBeVisible()
  await expect(page.getByLabel('Client', { exact: true })).toHaveValue(/.+/)
  expect(page.errors).toEqual([])
  expect(other.errors).toEqual([])
  await other.context().close()
  await page.context().close()
})

test('a non-admin never reaches the Clients page', async ({ browser }) => {
  const page = await newPage(browser, env.server.baseUrl)
  await login(page, ACCOUNTS.userA)
  await expect(page).toHaveURL(/\/client\/home/)
  await page.goto('/admin/clients')
  await expect(page).toHaveURL(/\/client\/home/)
  const refused = await apiCall(page, 'GET', '/api/admin/clients')
  expect(refused.status).toBe(403)
  await page.context().close()
})
