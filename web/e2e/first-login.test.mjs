// Invitation sign-up, the blocking terms dialog and the password-age dialog, against the real server.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { before, describe, it } from 'node:test'

import { apiCall, login, newPage, screenshot } from './support/browser.mjs'
import { ACCOUNTS, DEMO_PASSWORD } from './support/server.mjs'
import { useServerAndBrowser } from './support/suite.mjs'

const toast = (page, text) => page.locator('[data-sonner-toast]').getByText(text, { exact: true })

describe('invitations and first-login dialogs', () => {
  const env = useServerAndBrowser()
  let admin

  before(async () => {
    admin = await newPage(env.browser, env.server.baseUrl)
    const signedIn = await apiCall(admin, 'POST', '/api/auth/login', { email: ACCOUNTS.admin, password: DEMO_PASSWORD })
    assert.equal(signedIn.status, 200)
  })

  async function latestMailTo(email) {
    const outbox = await apiCall(admin, 'GET', '/api/admin/outbox')
    assert.equal(outbox.status, 200)
    const mail = outbox.body.find((m) => m.to === email)
    assert.ok(mail, `no mail to ${email} in the outbox`)
    return mail
  }

  it('registers from an invitation, then declines and accepts the terms', async () => {
    const { body: me } = await apiCall(admin, 'GET', '/api/auth/me')
    assert.ok(me.client, 'the admin belongs to the demo clients')
    const email = `invited-${Date.now()}@bank-a.example`
    const created = await apiCall(admin, 'POST', '/api/admin/invitations', {
      name: 'Irene',
      last_name: 'Invited',
      email,
      role: 'viewer',
      client_id: me.client.id,
    })
    assert.equal(created.status, 201, JSON.stringify(created.body))
    const link = (await latestMailTo(email)).body.match(/\/signup\/[A-Za-z0-9_\-.~%]+/)?.[0]
    assert.ok(link, 'invitation link in the mail')

    const page = await newPage(env.browser, env.server.baseUrl)
    await page.goto(link)
    await page.getByRole('heading', { name: 'Create your account' }).waitFor()
    const emailField = page.getByLabel('Email')
    assert.equal(await emailField.inputValue(), email)
    assert.equal(await emailField.getAttribute('readonly'), '')
    assert.equal(await page.getByLabel('Company').inputValue(), me.client.name)
    assert.equal(await page.getByLabel('Role').inputValue(), 'Viewer')
    assert.equal(await page.getByLabel('First name').inputValue(), 'Irene')
    await screenshot(page, 'signup')

    await page.getByLabel('First name').fill(' ')
    await page.getByLabel('Password', { exact: true }).fill('12345')
    await page.getByLabel('Confirm password').fill('12345')
    await page.getByRole('button', { name: 'Create Account' }).click()
    await page.getByText('Please enter your first and last name').first().waitFor()
    await page.getByText('Password must be at least 6 characters long').waitFor()

    await page.getByLabel('First name').fill('Irene')
    await page.getByLabel('Password', { exact: true }).fill('Invited-Pass-1')
    await page.getByLabel('Confirm password').fill('Invited-Pass-2')
    await page.getByRole('button', { name: 'Create Account' }).click()
    await page.getByText('Passwords do not match').waitFor()
    await page.getByLabel('Confirm password').fill('Invited-Pass-1')
    await page.getByRole('button', { name: 'Create Account' }).click()
    await page.waitForURL((url) => url.pathname === '/login')
    await toast(page, 'Account created successfully!').waitFor()

    // The link is used up.
    const reuse = await newPage(env.browser, env.server.baseUrl)
    await reuse.goto(link)
    await reuse.getByText('Invalid or expired invitation link').waitFor()
    await reuse.context().close()

    // First sign-in: the blocking terms dialog. Escape does not close it; declining signs out.
    await login(page, email, 'Invited-Pass-1')
    const terms = page.getByRole('dialog', { name: 'Terms and Conditions' })
    await terms.waitFor()
    await screenshot(page, 'terms-dialog')
    await page.keyboard.press('Escape')
    assert.equal(await terms.isVisible(), true)
    await terms.getByRole('button', { name: 'Decline' }).click()
    await toast(page, 'Terms declined').waitFor()
    await page.waitForURL((url) => url.pathname === '/login')
    assert.equal((await apiCall(page, 'GET', '/api/auth/me')).status, 401)

    // Second sign-in: accept, and the user reaches the client home; the dialog does not come back.
    await login(page, email, 'Invited-Pass-1')
    await terms.waitFor()
    await terms.getByRole('button', { name: 'Accept' }).click()
    await terms.waitFor({ state: 'detached' })
    await page.getByRole('heading', { name: 'Welcome, Irene Invited' }).waitFor()
    await page.reload()
    await page.getByRole('heading', { name: 'Welcome, Irene Invited' }).waitFor()
    assert.equal(await page.getByRole('dialog').count(), 0)
    assert.deepEqual(page.errors, [])
    await page.context().close()
  })

  it('says an unknown invitation link is invalid or expired', async () => {
    const page = await newPage(env.browser, env.server.baseUrl)
    await page.goto('/signup/not-a-real-token')
    await page.getByText('Invalid or expired invitation link').waitFor()
    await page.context().close()
  })

  it('forces a password change when the password is over a year old', async () => {
    // Age the viewer's password in the database (the server has no API for that, by design).
    execFileSync('sqlite3', [
      env.server.databasePath,
      `UPDATE users SET password_changed_at = '2020-01-01T00:00:00.000000Z' WHERE email = '${ACCOUNTS.viewer}'`,
    ])

    const page = await newPage(env.browser, env.server.baseUrl)
    await login(page, ACCOUNTS.viewer)
    const dialog = page.getByRole('dialog', { name: 'Password change required' })
    await dialog.waitFor()
    await screenshot(page, 'password-dialog')

    // Cancelling while required signs the user out.
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await toast(page, 'Password change required').waitFor()
    await page.waitForURL((url) => url.pathname === '/login')

    await login(page, ACCOUNTS.viewer)
    await dialog.waitFor()
    await dialog.getByRole('button', { name: 'Change Password' }).click()
    await dialog.getByText('Current password is required').waitFor()
    await dialog.getByText('Password must be at least 6 characters').waitFor()
    await dialog.getByText('Please confirm your password').waitFor()

    await dialog.getByLabel('Current password').fill('not-my-password')
    await dialog.getByLabel('New password', { exact: true }).fill('Brand-New-Pass-5')
    await dialog.getByLabel('Confirm new password').fill('Brand-New-Pass-4')
    await dialog.getByRole('button', { name: 'Change Password' }).click()
    await dialog.getByText("Passwords don't match").waitFor()

    await dialog.getByLabel('Confirm new password').fill('Brand-New-Pass-5')
    await dialog.getByRole('button', { name: 'Change Password' }).click()
    // The server checks the current password.
    await dialog.locator('[role="alert"]').first().waitFor()
    assert.equal(await dialog.isVisible(), true)

    await dialog.getByLabel('Current password').fill(DEMO_PASSWORD)
    await dialog.getByRole('button', { name: 'Change Password' }).click()
    await dialog.waitFor({ state: 'detached' })
    await toast(page, 'Password changed').waitFor()
    await page.getByRole('heading', { name: /^Welcome, / }).waitFor()

    // The new password works and the dialog is gone for good.
    await page.getByRole('button', { name: 'Profile menu' }).click()
    await page.getByRole('menuitem', { name: 'Sign out' }).click()
    await page.waitForURL((url) => url.pathname === '/login')
    await login(page, ACCOUNTS.viewer, 'Brand-New-Pass-5')
    await page.getByRole('heading', { name: /^Welcome, / }).waitFor()
    assert.equal(await page.getByRole('dialog').count(), 0)
    await page.context().close()
  })
})
