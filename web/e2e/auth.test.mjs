// Sign-in for every role, route guarding, session restore, sign-out, password reset and 404,
// against the real server.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'

import { apiCall, login, newPage, screenshot } from './support/browser.mjs'
import { ACCOUNTS, DEMO_PASSWORD } from './support/server.mjs'
import { useServerAndBrowser } from './support/suite.mjs'

const pathOf = (page) => new URL(page.url()).pathname

describe('authentication and guarding', () => {
  const env = useServerAndBrowser()

  it('lands each role where it belongs', async () => {
    const expectations = [
      [ACCOUNTS.admin, '/admin/dashboard'],
      [ACCOUNTS.approver, '/client/home'],
      [ACCOUNTS.userA, '/client/home'],
      [ACCOUNTS.userB, '/client/home'],
      [ACCOUNTS.viewer, '/client/home'],
    ]
    for (const [email, landing] of expectations) {
      const page = await newPage(env.browser, env.server.baseUrl)
      await login(page, email)
      await page.waitForURL((url) => url.pathname === landing)
      if (landing === '/admin/dashboard') {
        await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor()
      } else {
        await page.getByRole('heading', { name: /^Welcome, / }).waitFor()
      }
      assert.deepEqual(page.errors, [], `page errors for ${email}`)
      await page.context().close()
    }
  })

  it('shows the admin dashboard figures from the API', async () => {
    const page = await newPage(env.browser, env.server.baseUrl)
    await login(page, ACCOUNTS.admin)
    await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor()
    const { status, body: metrics } = await apiCall(page, 'GET', '/api/admin/dashboard/metrics')
    assert.equal(status, 200)
    const cards = page.getByRole('region', { name: 'Key metrics' })
    const eur = new Intl.NumberFormat('es-ES', { style: 'currency', currency: 'EUR', maximumFractionDigits: 0 })
    await cards.getByText(eur.format(metrics.total_value), { exact: true }).waitFor()
    const bps = new Intl.NumberFormat('es-ES', { minimumFractionDigits: 2, maximumFractionDigits: 2 })
    await cards.getByText(`${bps.format(metrics.total_bps)} bps`, { exact: true }).waitFor()
    await cards.getByText('0% churn rate').waitFor()
    for (const title of ['Total Capital Optimized', 'Total bps Optimized', 'Levers Used', 'Total Clients']) {
      await cards.getByText(title).waitFor()
    }
    // The admin sidebar lists the dashboard under Main.
    const sidebar = page.getByRole('complementary', { name: 'Admin navigation' })
    await sidebar.getByText('Main').waitFor()
    assert.equal(await sidebar.getByRole('link', { name: 'Dashboard' }).getAttribute('href'), '/admin/dashboard')
    await screenshot(page, 'admin-dashboard')

    // Ctrl+B collapses the sidebar to icons and the state survives a reload (cookie).
    await page.keyboard.press('Control+b')
    await page.waitForSelector('aside[data-state="collapsed"]')
    const cookie = (await page.context().cookies()).find((c) => c.name === 'sidebar_state')
    assert.equal(cookie?.value, 'false')
    await page.reload()
    await page.waitForSelector('aside[data-state="collapsed"]')
    await screenshot(page, 'admin-dashboard-collapsed')
    await page.context().close()
  })

  it('sends anonymous visitors to login and back to where they were going', async () => {
    const page = await newPage(env.browser, env.server.baseUrl)
    await page.goto('/admin/dashboard')
    await page.waitForURL((url) => url.pathname === '/login')
    assert.equal(new URL(page.url()).searchParams.get('redirect'), '/admin/dashboard')
    await page.getByRole('heading', { name: 'Welcome Back' }).waitFor()
    await screenshot(page, 'login')

    await page.getByLabel('Email').fill('bad-address')
    await page.getByRole('button', { name: 'Sign In' }).click()
    await page.getByText('Invalid email address').waitFor()

    await page.getByLabel('Email').fill(ACCOUNTS.admin)
    await page.getByLabel('Password', { exact: true }).fill('wrong-password')
    await page.getByRole('button', { name: 'Sign In' }).click()
    await page.locator('[data-sonner-toast]').getByText('Login failed').waitFor()
    await page.locator('[data-sonner-toast]').getByText('Invalid credentials').waitFor()

    await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD)
    await page.getByRole('button', { name: 'Sign In' }).click()
    await page.waitForURL((url) => url.pathname === '/admin/dashboard')

    // Signed in: /login goes to the dashboard, /admin too, and the session survives a reload.
    await page.goto('/login')
    await page.waitForURL((url) => url.pathname === '/admin/dashboard')
    await page.goto('/admin')
    await page.waitForURL((url) => url.pathname === '/admin/dashboard')
    await page.reload()
    await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor()
    await page.context().close()
  })

  it('keeps non-admins out of /admin and shows their client', async () => {
    const page = await newPage(env.browser, env.server.baseUrl)
    await page.goto('/client')
    await page.waitForURL((url) => url.pathname === '/login')
    assert.equal(new URL(page.url()).searchParams.get('redirect'), '/client')
    await page.getByLabel('Email').fill(ACCOUNTS.userB)
    await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD)
    await page.getByRole('button', { name: 'Sign In' }).click()
    await page.waitForURL((url) => url.pathname === '/client/home')

    const { body: me } = await apiCall(page, 'GET', '/api/auth/me')
    assert.ok(me.client, 'the demo user belongs to a client')
    await page.getByRole('main').getByText(me.client.name, { exact: true }).first().waitFor()
    await page.getByText('Capital Optimization Portal').waitFor()
    await page.getByRole('heading', { name: `Welcome, ${me.name} ${me.last_name}`.trim() }).waitFor()
    const sidebar = page.getByRole('complementary', { name: 'Client navigation' })
    assert.equal(await sidebar.getByRole('link', { name: 'Home', exact: true }).getAttribute('href'), '/client/home')
    assert.equal(await sidebar.getByRole('link', { name: 'Dashboard' }).count(), 0)
    await screenshot(page, 'client-home')

    await page.goto('/admin/dashboard')
    await page.waitForURL((url) => url.pathname === '/client/home')
    const forbidden = await apiCall(page, 'GET', '/api/admin/dashboard/metrics')
    assert.equal(forbidden.status, 403)

    // Sign out from the profile menu: back to login, and the app is closed again.
    await page.getByRole('button', { name: 'Profile menu' }).click()
    const items = await page.getByRole('menuitem').allTextContents()
    assert.deepEqual(items.map((t) => t.trim()), ['Sign out'])
    await page.getByRole('menuitem', { name: 'Sign out' }).click()
    await page.waitForURL((url) => url.pathname === '/login')
    await page.goto('/client/home')
    await page.waitForURL((url) => url.pathname === '/login')
    assert.equal((await apiCall(page, 'GET', '/api/auth/me')).status, 401)
    await page.context().close()
  })

  it('collapses the sidebar into a drawer on narrow screens', async () => {
    const page = await newPage(env.browser, env.server.baseUrl, { viewport: { width: 600, height: 900 } })
    await login(page, ACCOUNTS.approver)
    await page.waitForURL((url) => url.pathname === '/client/home')
    assert.equal(await page.getByRole('complementary', { name: 'Client navigation' }).count(), 0)
    await page.getByRole('button', { name: 'Toggle sidebar' }).click()
    const drawer = page.getByRole('dialog', { name: 'Client navigation' })
    await drawer.getByRole('link', { name: 'Home', exact: true }).waitFor()
    await screenshot(page, 'client-home-mobile-drawer')
    await drawer.getByRole('link', { name: 'Home', exact: true }).click()
    await drawer.waitFor({ state: 'detached' })
    await page.context().close()
  })

  it('resets a forgotten password with the link from the mail', async () => {
    const page = await newPage(env.browser, env.server.baseUrl)
    await page.goto('/login')
    await page.getByRole('link', { name: 'Forgot password?' }).click()
    await page.waitForURL((url) => url.pathname === '/forgot-password')
    await page.getByLabel('Email').fill('nobody')
    await page.getByRole('button', { name: 'Send Reset Link' }).click()
    await page.getByText('Please enter a valid email address').waitFor()
    await page.getByLabel('Email').fill(ACCOUNTS.userA)
    const answered = page.waitForResponse((r) => r.url().endsWith('/api/auth/forgot-password'))
    await page.getByRole('button', { name: 'Send Reset Link' }).click()
    const response = await answered
    assert.equal(response.status(), 202)
    await page.getByText((await response.json()).message).waitFor()

    // Read the mail from the outbox as an admin.
    const admin = await newPage(env.browser, env.server.baseUrl)
    const signedIn = await apiCall(admin, 'POST', '/api/auth/login', { email: ACCOUNTS.admin, password: DEMO_PASSWORD })
    assert.equal(signedIn.status, 200)
    const outbox = await apiCall(admin, 'GET', '/api/admin/outbox')
    assert.equal(outbox.status, 200)
    const mail = outbox.body.find((m) => m.to === ACCOUNTS.userA)
    assert.ok(mail, `no reset mail for ${ACCOUNTS.userA} in ${JSON.stringify(outbox.body)}`)
    const link = mail.body.match(/\/reset-password\?token=[^\s"'<>]+/)?.[0]
    assert.ok(link, `no reset link in: ${mail.body}`)
    await admin.context().close()

    await page.goto(link)
    await page.getByRole('heading', { name: 'Set a new password' }).waitFor()
    await page.getByLabel('New password').fill('short')
    await page.getByLabel('Confirm password').fill('short')
    await page.getByRole('button', { name: 'Update Password' }).click()
    await page.getByText('Password must be at least 8 characters').waitFor()
    await page.getByLabel('New password').fill('Fresh-Password-9')
    await page.getByLabel('Confirm password').fill('Fresh-Password-8')
    await page.getByRole('button', { name: 'Update Password' }).click()
    await page.getByText('Passwords must match').waitFor()
    await page.getByLabel('Confirm password').fill('Fresh-Password-9')
    await page.getByRole('button', { name: 'Update Password' }).click()
    await page.waitForURL((url) => url.pathname === '/login')
    await page.getByText('Your password has been updated. You can now sign in.', { exact: true }).first().waitFor()

    await login(page, ACCOUNTS.userA, 'Fresh-Password-9')
    await page.waitForURL((url) => url.pathname === '/client/home')

    // The link works once.
    await page.goto(link)
    await page.getByLabel('New password').fill('Another-Password-7')
    await page.getByLabel('Confirm password').fill('Another-Password-7')
    await page.getByRole('button', { name: 'Update Password' }).click()
    await page.getByText('Invalid or expired reset link').waitFor()
    await page.context().close()
  })

  it('switches the reset page to the invitation wording', async () => {
    const page = await newPage(env.browser, env.server.baseUrl)
    await page.goto('/reset-password?token=abc&type=invite&new_user=true')
    await page.getByRole('heading', { name: 'Welcome! Set your password' }).waitFor()
    await page.context().close()
  })

  it('shows the 404 page with a link home', async () => {
    const page = await newPage(env.browser, env.server.baseUrl)
    await page.goto('/this/page/does-not-exist')
    await page.getByRole('heading', { name: 'Oops! Page not found' }).waitFor()
    await page.getByRole('link', { name: 'Return to Home' }).click()
    await page.waitForURL((url) => url.pathname === '/')
    assert.equal(pathOf(page), '/')
    await page.context().close()
  })
})
