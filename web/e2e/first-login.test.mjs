// Invitation sign-up, the blocking terms dialog and the password-age dialog, against the real server.

import { expect, test } from '@playwright/test'

import { apiCall, login, newPage, screenshot } from './support/browser.mjs'
import { ACCOUNTS, DEMO_PASSWORD, lastMailTo } from './support/server.mjs'
import { useServer } from './support/suite.mjs'

const toast = (page, text) => page.locator('[data-sonner-toast]').getByText(text, { exact: true })
const at = (path) => (url) => url.pathname === path

test.describe('invitations and first-login dialogs', () => {
  const env = useServer()
  let admin

  test.beforeAll(async ({ browser }) => {
    admin = await newPage(browser, env.server.baseUrl)
    const signedIn = await apiCall(admin, 'POST', '/api/auth/login', { email: ACCOUNTS.admin, password: DEMO_PASSWORD })
    expect(signedIn.status).toBe(200)
  })

  // From the outbox table: admins see the links' tokens masked.
  const latestMailTo = (email) => lastMailTo(env.server, email)

  test('registers from an invitation, then declines and accepts the terms', async ({ browser }) => {
    const { body: me } = await apiCall(admin, 'GET', '/api/auth/me')
    expect(me.client, 'the admin belongs to the demo clients').toBeTruthy()
    const email = `invited-${Date.now()}@bank-a.example`
    const created = await apiCall(admin, 'POST', '/api/admin/invitations', {
      name: 'Irene',
      last_name: 'Invited',
      email,
      role: 'viewer',
      client_id: me.client.id,
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const link = (await latestMailTo(email)).body.match(/\/signup\/[A-Za-z0-9_\-.~%]+/)?.[0]
    expect(link, 'invitation link in the mail').toBeTruthy()

    const page = await newPage(browser, env.server.baseUrl)
    await page.goto(link)
    await expect(page.getByRole('heading', { name: 'Create your account' })).toBeVisible()
    const emailField = page.getByLabel('Email')
    await expect(emailField).toHaveValue(email)
    await expect(emailField).toHaveAttribute('readonly', '')
    await expect(page.getByLabel('Company')).toHaveValue(me.client.name)
    await expect(page.getByLabel('Role')).toHaveValue('Viewer')
    await expect(page.getByLabel('First name')).toHaveValue('Irene')
    await screenshot(page, 'signup')

    await page.getByLabel('First name').fill(' ')
    await page.getByLabel('Password', { exact: true }).fill('12345')
    await page.getByLabel('Confirm password').fill('12345')
    await page.getByRole('button', { name: 'Create Account' }).click()
    await expect(page.getByText('Please enter your first and last name').first()).toBeVisible()
    // The one password policy (as for a reset): 8+ characters, upper and lower case, a digit.
    await expect(page.getByText('Password must be at least 8 characters')).toBeVisible()

    await page.getByLabel('First name').fill('Irene')
    await page.getByLabel('Password', { exact: true }).fill('Invited-Pass-1')
    await page.getByLabel('Confirm password').fill('Invited-Pass-2')
    await page.getByRole('button', { name: 'Create Account' }).click()
    await expect(page.getByText('Passwords do not match')).toBeVisible()
    await page.getByLabel('Confirm password').fill('Invited-Pass-1')
    await page.getByRole('button', { name: 'Create Account' }).click()
    await expect(page).toHaveURL(at('/login'))
    await expect(toast(page, 'Account created successfully!')).toBeVisible()

    // The link is used up.
    const reuse = await newPage(browser, env.server.baseUrl)
    await reuse.goto(link)
    await expect(reuse.getByText('Invalid or expired invitation link')).toBeVisible()
    await reuse.context().close()

    // First sign-in: the blocking terms dialog. Escape does not close it; declining signs out.
    await login(page, email, 'Invited-Pass-1')
    const terms = page.getByRole('dialog', { name: 'Terms and Conditions' })
    await expect(terms).toBeVisible()
    await screenshot(page, 'terms-dialog')
    await page.keyboard.press('Escape')
    await expect(terms).toBeVisible()
    await terms.getByRole('button', { name: 'Decline' }).click()
    await expect(toast(page, 'Terms declined')).toBeVisible()
    await expect(page).toHaveURL(at('/login'))
    expect((await apiCall(page, 'GET', '/api/auth/me')).status).toBe(401)

    // Second sign-in: accept, and the user reaches the client home; the dialog does not come back.
    await login(page, email, 'Invited-Pass-1')
    await expect(terms).toBeVisible()
    await terms.getByRole('button', { name: 'Accept' }).click()
    await expect(terms).toHaveCount(0)
    await expect(page.getByRole('heading', { name: 'Welcome, Irene Invited' })).toBeVisible()
    await page.reload()
    await expect(page.getByRole('heading', { name: 'Welcome, Irene Invited' })).toBeVisible()
    await expect(page.getByRole('dialog')).toHaveCount(0)
    expect(page.errors).toEqual([])
    await page.context().close()
  })

  test('says an unknown invitation link is invalid or expired', async ({ browser }) => {
    const page = await newPage(browser, env.server.baseUrl)
    await page.goto('/signup/not-a-real-token')
    await expect(page.getByText('Invalid or expired invitation link')).toBeVisible()
    await page.context().close()
  })

  test('forces a password change when the password is over a year old', async ({ browser }) => {
    // Age the viewer's password in the database (the server has no API for that, by design).
    env.server.sql(
      `UPDATE users SET password_changed_at = '2020-01-01T00:00:00.000000Z' WHERE email = '${ACCOUNTS.viewer}'`,
    )

    const page = await newPage(browser, env.server.baseUrl)
    await login(page, ACCOUNTS.viewer)
    const dialog = page.getByRole('dialog', { name: 'Password change required' })
    await expect(dialog).toBeVisible()
    await screenshot(page, 'password-dialog')

    // Cancelling while required signs the user out.
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await expect(toast(page, 'Password change required')).toBeVisible()
    await expect(page).toHaveURL(at('/login'))

    await login(page, ACCOUNTS.viewer)
    await expect(dialog).toBeVisible()
    await dialog.getByRole('button', { name: 'Change Password' }).click()
    await expect(dialog.getByText('Current password is required')).toBeVisible()
    await expect(dialog.getByText('Password must be at least 8 characters')).toBeVisible()
    await expect(dialog.getByText('Please confirm your password')).toBeVisible()

    await dialog.getByLabel('Current password').fill('not-my-password')
    await dialog.getByLabel('New password', { exact: true }).fill('Brand-New-Pass-5')
    await dialog.getByLabel('Confirm new password').fill('Brand-New-Pass-4')
    await dialog.getByRole('button', { name: 'Change Password' }).click()
    await expect(dialog.getByText("Passwords don't match")).toBeVisible()

    await dialog.getByLabel('Confirm new password').fill('Brand-New-Pass-5')
    await dialog.getByRole('button', { name: 'Change Password' }).click()
    // The server checks the current password.
    await expect(dialog.locator('[role="alert"]').first()).toBeVisible()
    await expect(dialog).toBeVisible()

    await dialog.getByLabel('Current password').fill(DEMO_PASSWORD)
    await dialog.getByRole('button', { name: 'Change Password' }).click()
    await expect(dialog).toHaveCount(0)
    await expect(toast(page, 'Password changed')).toBeVisible()
    await expect(page.getByRole('heading', { name: /^Welcome, / })).toBeVisible()

    // The new password works and the dialog is gone for good.
    await page.getByRole('button', { name: 'Profile menu' }).click()
    await page.getByRole('menuitem', { name: 'Sign out' }).click()
    await expect(page).toHaveURL(at('/login'))
    await login(page, ACCOUNTS.viewer, 'Brand-New-Pass-5')
    await expect(page.getByRole('heading', { name: /^Welcome, / })).toBeVisible()
    await expect(page.getByRole('dialog')).toHaveCount(0)
    await page.context().close()
  })
})
