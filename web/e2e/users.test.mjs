// User Management in the browser against the real server: the list searched, filtered and paged
// by the server, a user invited with Create User who signs up from the outbox link and appears in
// the open list without a reload, the inline role change, Edit User Details ('No changes
// detected', Confirm Critical Changes), a client role in User-Client Management, and a user
// removed whose open session ends at once.
import { expect, test } from '@playwright/test'

import { apiCall, login, newPage, screenshot } from './support/browser.mjs'
import { ACCOUNTS, lastMailTo } from './support/server.mjs'
import { useServer } from './support/suite.mjs'

const env = useServer()
const toast = (page, text) => page.locator('[data-sonner-toast]').getByText(text, { exact: true })
const userRow = (page, email) => page.getByTestId(`user-row-${email}`)

test('search, filters and pages; a user invited who signs up from the outbox link; roles; removal', async ({ browser }) => {
  const page = await newPage(browser, env.server.baseUrl)
  await login(page, ACCOUNTS.admin)
  await expect(page).toHaveURL(/\/admin\/dashboard/)
  await page.getByRole('link', { name: 'User Management' }).click()
  await expect(page).toHaveURL(/\/admin\/settings$/)
  await expect(page.getByRole('heading', { name: 'User Management' })).toBeVisible()
  await expect(page.getByText('Role Information')).toBeVisible()
  await expect(page.getByLabel('Total users')).toHaveText('6')
  await expect(page.getByText('Showing 1 - 6 of 6 users')).toBeVisible()
  await expect(userRow(page, ACCOUNTS.admin)).toContainText('All')
  await expect(userRow(page, ACCOUNTS.approver2)).toContainText('Approver')
  await expect(userRow(page, ACCOUNTS.userA)).toContainText('Bank A')

  // The server pages: 5 a page, then page 2; a search starts again from page 1.
  await page.getByLabel('Users per page').selectOption('5')
  await expect(page.getByText('Showing 1 - 5 of 6 users')).toBeVisible()
  await page.getByRole('navigation', { name: 'Pages' }).getByRole('button', { name: '2' }).click()
  await expect(page.getByText('Showing 6 - 6 of 6 users')).toBeVisible()
  await expect(userRow(page, ACCOUNTS.viewer)).toBeVisible()
  await page.getByLabel('Search users').fill('bank a')
  await expect(page.getByText('Showing 1 - 4 of 4 users')).toBeVisible()
  await page.getByLabel('Role filter').selectOption('viewer')
  await expect(page.getByText('Showing 1 - 1 of 1 users')).toBeVisible()
  await expect(userRow(page, ACCOUNTS.viewer)).toBeVisible()
  await page.getByLabel('Role filter').selectOption('all')
  await page.getByLabel('Search users').fill('')
  await page.getByLabel('Users per page').selectOption('10')
  await expect(page.getByText('Showing 1 - 6 of 6 users')).toBeVisible()

  // Create User: its messages, then the invitation mailed to the outbox.
  await page.getByRole('button', { name: 'Create User' }).click()
  const create = page.getByRole('dialog', { name: 'Create New User' })
  await create.getByRole('button', { name: 'Create User' }).click()
  await expect(create.getByText('Name is required', { exact: true })).toBeVisible()
  await expect(create.getByText('Last name is required')).toBeVisible()
  await expect(create.getByText('Invalid email address')).toBeVisible()
  await expect(create.getByText('Client is required')).toBeVisible()
  await create.getByLabel('Name', { exact: true }).fill('Nora')
  await create.getByLabel('Last Name').fill('Nueva')
  await create.getByLabel('Email').fill('nora@bank-b.example')
  await create.getByLabel('Client').selectOption({ label: 'Bank B' })
  await screenshot(page, 'users-create-dialog')
  await create.getByRole('button', { name: 'Create User' }).click()
  await expect(toast(page, 'User invitation sent')).toBeVisible()

  // Nora signs up from the link in the outbox; the open list shows her without a reload.
  const link = (await lastMailTo(env.server, 'nora@bank-b.example')).body.match(/\/signup\/[A-Za-z0-9_-]+/)?.[0]
  expect(link, 'invitation link in the mail').toBeTruthy()
  const nora = await newPage(browser, env.server.baseUrl)
  await nora.goto(link)
  await expect(nora.getByRole('heading', { name: 'Create your account' })).toBeVisible()
  await expect(nora.getByLabel('Company')).toHaveValue('Bank B')
  await nora.getByLabel('Password', { exact: true }).fill('Nora-Password-1')
  await nora.getByLabel('Confirm password').fill('Nora-Password-1')
  await nora.getByRole('button', { name: 'Create Account' }).click()
  await expect(nora).toHaveURL(/\/login/)
  await expect(userRow(page, 'nora@bank-b.example')).toBeVisible()
  await expect(userRow(page, 'nora@bank-b.example')).toContainText('Bank B')
  await expect(page.getByLabel('Total users')).toHaveText('7')
  await login(nora, 'nora@bank-b.example', 'Nora-Password-1')
  await nora.getByRole('button', { name: 'Accept' }).click()
  await expect(nora).toHaveURL(/\/client\/home/)

  // The inline role selector, applied at once.
  await page.getByLabel('Role of nora@bank-b.example').selectOption('viewer')
  await expect(toast(page, 'Role updated')).toBeVisible()

  // Edit User Details: nothing changed, then a client change that needs confirming.
  await userRow(page, 'nora@bank-b.example').getByRole('button', { name: 'Details of nora@bank-b.example' }).click()
  const edit = page.getByRole('dialog', { name: 'Edit User Details' })
  await edit.getByRole('button', { name: 'Save Changes' }).click()
  await expect(toast(page, 'No changes detected')).toBeVisible()
  await expect(edit).toHaveCount(0)
  await userRow(page, 'nora@bank-b.example').getByRole('button', { name: 'Details of nora@bank-b.example' }).click()
  await edit.getByLabel('First Name').fill('')
  await edit.getByRole('button', { name: 'Save Changes' }).click()
  await expect(edit.getByText('First name is required')).toBeVisible()
  await expect(toast(page, 'Validation Error')).toBeVisible()
  await edit.getByLabel('First Name').fill('Nora')
  await edit.getByLabel('Bank A').check()
  await edit.getByRole('button', { name: 'Save Changes' }).click()
  const confirm = page.getByRole('dialog', { name: 'Confirm Critical Changes' })
  await expect(confirm).toContainText('Clients')
  await screenshot(page, 'users-confirm-critical')
  await confirm.getByRole('button', { name: 'Confirm Changes' }).click()
  await expect(toast(page, 'User updated')).toBeVisible()
  await expect(userRow(page, 'nora@bank-b.example')).toContainText('Bank A, Bank B')

  // User-Client Management: Nora approves for Bank B.
  await page.getByLabel('User', { exact: true }).selectOption({ label: 'Nora Nueva (nora@bank-b.example)' })
  await page.getByLabel('Client role in Bank B').selectOption('approver')
  await expect(toast(page, 'Associations Created')).toBeVisible()
  await expect(userRow(page, 'nora@bank-b.example')).toContainText('Approver')
  await screenshot(page, 'user-management')

  // Removal: Nora's open session ends at once.
  await userRow(page, 'nora@bank-b.example').getByRole('button', { name: 'Remove nora@bank-b.example' }).click()
  const remove = page.getByRole('dialog', { name: 'Remove User' })
  await remove.getByRole('button', { name: 'Remove User' }).click()
  await expect(toast(page, 'User removed')).toBeVisible()
  await expect(userRow(page, 'nora@bank-b.example')).toHaveCount(0)
  await expect(nora).toHaveURL(/\/login/)
  expect((await apiCall(nora, 'GET', '/api/auth/me')).status).toBe(401)
  expect(page.errors).toEqual([])
  await nora.context().close()
  await page.context().close()
})
