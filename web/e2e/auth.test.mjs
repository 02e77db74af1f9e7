// Sign-in for every role, route guarding, session restore, sign-out, password reset and 404,
// against the real server.
import { expect, test } from '@playwright/test'

import { apiCall, login, newPage, screenshot } from './support/browser.mjs'
import { ACCOUNTS, DEMO_PASSWORD, lastMailTo } from './support/server.mjs'
import { useServer } from './support/suite.mjs'

const at = (path) => (url) => url.pathname === path

test.describe('authentication and guarding', () => {
  const env = useServer()

  test('lands each role where it belongs', async ({ browser }) => {
    const expectations = [
      [ACCOUNTS.admin, '/admin/dashboard'],
      [ACCOUNTS.approver, '/client/home'],
      [ACCOUNTS.userA, '/client/home'],
      [ACCOUNTS.userB, '/client/home'],
      [ACCOUNTS.viewer, '/client/home'],
    ]
    for (const [email, landing] of expectations) {
      const page = await newPage(browser, env.server.baseUrl)
      await login(page, email)
      await expect(page).toHaveURL(at(landing))
      if (landing === '/admin/dashboard') {
        await expect(page.getByRole('heading', { name: 'Admin Dashboard' })).toBeVisible()
      } else {
        await expect(page.getByRole('heading', { name: /^Welcome, / })).toBeVisible()
      }
      expect(page.errors, `page errors for ${email}`).toEqual([])
      await page.context().close()
    }
  })

  test('shows the admin dashboard figures from the API', async ({ browser }) => {
    const page = await newPage(browser, env.server.baseUrl)
    await login(page, ACCOUNTS.admin)
    await expect(page.getByRole('heading', { name: 'Admin Dashboard' })).toBeVisible()
    const { status, body: metrics } = await apiCall(page, 'GET', '/api/admin/dashboard/metrics?period=all')
    expect(status).toBe(200)
    expect(metrics.capital.value, 'the demo clients have savings').toBeGreaterThan(0)
    const cards = page.getByRole('region', { name: 'Key metrics' })
    const eur = new Intl.NumberFormat('es-ES', { style: 'currency', currency: 'EUR', maximumFractionDigits: 0 })
    await expect(cards.getByText(eur.format(metrics.capital.value), { exact: true })).toBeVisible()
    const bps = new Intl.NumberFormat('es-ES', { minimumFractionDigits: 2, maximumFractionDigits: 2 })
    await expect(cards.getByText(`${bps.format(metrics.bps.value)} bps`, { exact: true })).toBeVisible()
    // The API has no churn figure, so none is shown.
    await expect(cards.getByText(/churn/i)).toHaveCount(0)
    for (const title of ['Total Capital Optimized', 'Total bps Optimized', 'Levers Used', 'Total Clients']) {
      await expect(cards.getByText(title)).toBeVisible()
    }
    // The admin sidebar lists the dashboard under Main.
    const sidebar = page.getByRole('complementary', { name: 'Admin navigation' })
    await expect(sidebar.getByText('Main')).toBeVisible()
    await expect(sidebar.getByRole('link', { name: 'Dashboard' })).toHaveAttribute('href', '/admin/dashboard')
    await screenshot(page, 'admin-dashboard')

    // Ctrl+B collapses the sidebar to icons and the state survives a reload (cookie).
    await page.keyboard.press('Control+b')
    await expect(page.locator('aside[data-state="collapsed"]')).toBeAttached()
    const cookie = (await page.context().cookies()).find((c) => c.name === 'sidebar_state')
    expect(cookie?.value).toBe('false')
    await page.reload()
    await expect(page.locator('aside[data-state="collapsed"]')).toBeAttached()
    await screenshot(page, 'admin-dashboard-collapsed')
    await page.context().close()
  })

  test('sends anonymous visitors to login and back to where they were going', async ({ browser }) => {
    const page = await newPage(browser, env.server.baseUrl)
    await page.goto('/admin/dashboard')
    await expect(page).toHaveURL(at('/login'))
    expect(new URL(page.url()).searchParams.get('redirect')).toBe('/admin/dashboard')
    await expect(page.getByRole('heading', { name: 'Welcome Back' })).toBeVisible()
    await screenshot(page, 'login')

    await page.getByLabel('Email').fill('bad-address')
    await page.getByRole('button', { name: 'Sign In' }).click()
    await expect(page.getByText('Invalid email address')).toBeVisible()

    await page.getByLabel('Email').fill(ACCOUNTS.admin)
    await page.getByLabel('Password', { exact: true }).fill('wrong-password')
    await page.getByRole('button', { name: 'Sign In' }).click()
    await expect(page.locator('[data-sonner-toast]').getByText('Login failed')).toBeVisible()
    await expect(page.locator('[data-sonner-toast]').getByText('Invalid credentials')).toBeVisible()

    await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD)
    await page.getByRole('button', { name: 'Sign In' }).click()
    await expect(page).toHaveURL(at('/admin/dashboard'))

    // Signed in: /login goes to the dashboard, /admin too, and the session survives a reload.
    await page.goto('/login')
    await expect(page).toHaveURL(at('/admin/dashboard'))
    await page.goto('/admin')
    await expect(page).toHaveURL(at('/admin/dashboard'))
    await page.reload()
    await expect(page.getByRole('heading', { name: 'Admin Dashboard' })).toBeVisible()
    await page.context().close()
  })

  test('keeps non-admins out of /admin and shows their client', async ({ browser }) => {
    const page = await newPage(browser, env.server.baseUrl)
    await page.goto('/client')
    await expect(page).toHaveURL(at('/login'))
    expect(new URL(page.url()).searchParams.get('redirect')).toBe('/client')
    await page.getByLabel('Email').fill(ACCOUNTS.userB)
    await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD)
    await page.getByRole('button', { name: 'Sign In' }).click()
    await expect(page).toHaveURL(at('/client/home'))

    const { body: me } = await apiCall(page, 'GET', '/api/auth/me')
    expect(me.client, 'the demo user belongs to a client').toBeTruthy()
    await expect(page.getByRole('main').getByText(me.client.name, { exact: true }).first()).toBeVisible()
    await expect(page.getByText('Capital Optimization Portal')).toBeVisible()
    await expect(page.getByRole('heading', { name: `Welcome, ${me.name} ${me.last_name}`.trim() })).toBeVisible()
    const sidebar = page.getByRole('complementary', { name: 'Client navigation' })
    await expect(sidebar.getByRole('link', { name: 'Home', exact: true })).toHaveAttribute('href', '/client/home')
    await expect(sidebar.getByRole('link', { name: 'Dashboard' })).toHaveAttribute('href', '/client/dashboard')
    await screenshot(page, 'client-home')

    await page.goto('/admin/dashboard')
    await expect(page).toHaveURL(at('/client/home'))
    const forbidden = await apiCall(page, 'GET', '/api/admin/dashboard/metrics')
    expect(forbidden.status).toBe(403)
    // Clients and User Management say why the user was sent home.
    await page.goto('/admin/clients')
    await expect(page).toHaveURL(at('/client/home'))
    await expect(page.getByText('Access denied', { exact: true })).toBeVisible()

    // Sign out from the profile menu: back to login, and the app is closed again.
    await page.getByRole('button', { name: 'Profile menu' }).click()
    await expect(page.getByRole('menuitem')).toHaveText(['Settings', /Sign out/])
    await page.getByRole('menuitem', { name: 'Sign out' }).click()
    await expect(page).toHaveURL(at('/login'))
    await page.goto('/client/home')
    await expect(page).toHaveURL(at('/login'))
    expect((await apiCall(page, 'GET', '/api/auth/me')).status).toBe(401)
    await page.context().close()
  })

  test('collapses the sidebar into a drawer on narrow screens', async ({ browser }) => {
    const page = await newPage(browser, env.server.baseUrl, { viewport: { width: 600, height: 900 } })
    await login(page, ACCOUNTS.approver)
    await expect(page).toHaveURL(at('/client/home'))
    await expect(page.getByRole('complementary', { name: 'Client navigation' })).toHaveCount(0)
    await page.getByRole('button', { name: 'Toggle sidebar' }).click()
    const drawer = page.getByRole('dialog', { name: 'Client navigation' })
    await expect(drawer.getByRole('link', { name: 'Home', exact: true })).toBeVisible()
    await screenshot(page, 'client-home-mobile-drawer')
    await drawer.getByRole('link', { name: 'Home', exact: true }).click()
    await expect(drawer).toHaveCount(0)
    await page.context().close()
  })

  test('resets a forgotten password with the link from the mail', async ({ browser }) => {
    const page = await newPage(browser, env.server.baseUrl)
    await page.goto('/login')
    await page.getByRole('link', { name: 'Forgot password?' }).click()
    await expect(page).toHaveURL(at('/forgot-password'))
    await page.getByLabel('Email').fill('nobody')
    await page.getByRole('button', { name: 'Send Reset Link' }).click()
    await expect(page.getByText('Please enter a valid email address')).toBeVisible()
    await page.getByLabel('Email').fill(ACCOUNTS.userA)
    const answered = page.waitForResponse((r) => r.url().endsWith('/api/auth/forgot-password'))
    await page.getByRole('button', { name: 'Send Reset Link' }).click()
    const response = await answered
    expect(response.status()).toBe(202)
    await expect(page.getByText((await response.json()).message)).toBeVisible()

    // Read the mail from the outbox table (admins see its token masked).
    const mail = await lastMailTo(env.server, ACCOUNTS.userA)
    const link = mail.body.match(/\/reset-password\?token=[^\s"'<>]+/)?.[0]
    expect(link, `no reset link in: ${mail.body}`).toBeTruthy()

    await page.goto(link)
    await expect(page.getByRole('heading', { name: 'Set a new password' })).toBeVisible()
    await page.getByLabel('New password').fill('short')
    await page.getByLabel('Confirm password').fill('short')
    await page.getByRole('button', { name: 'Update Password' }).click()
    await expect(page.getByText('Password must be at least 8 characters')).toBeVisible()
    await page.getByLabel('New password').fill('Fresh-Password-9')
    await page.getByLabel('Confirm password').fill('Fresh-Password-8')
    await page.getByRole('button', { name: 'Update Password' }).click()
    await expect(page.getByText('Passwords must match')).toBeVisible()
    await page.getByLabel('Confirm password').fill('Fresh-Password-9')
    await page.getByRole('button', { name: 'Update Password' }).click()
    await expect(page).toHaveURL(at('/login'))
    await expect(page.getByText('Your password has been updated. You can now sign in.', { exact: true }).first()).toBeVisible()

    await login(page, ACCOUNTS.userA, 'Fresh-Password-9')
    await expect(page).toHaveURL(at('/client/home'))

    // The link works once.
    await page.goto(link)
    await page.getByLabel('New password').fill('Another-Password-7')
    await page.getByLabel('Confirm password').fill('Another-Password-7')
    await page.getByRole('button', { name: 'Update Password' }).click()
    await expect(page.getByText('Invalid or expired reset link')).toBeVisible()
    await page.context().close()
  })

  test('switches the reset page to the invitation wording', async ({ browser }) => {
    const page = await newPage(browser, env.server.baseUrl)
    await page.goto('/reset-password?token=abc&type=invite&new_user=true')
    await expect(page.getByRole('heading', { name: 'Welcome! Set your password' })).toBeVisible()
    await page.context().close()
  })

  test('shows the 404 page with a link home', async ({ browser }) => {
    const page = await newPage(browser, env.server.baseUrl)
    await page.goto('/this/page/does-not-exist')
    await expect(page.getByRole('heading', { name: 'Oops! Page not found' })).toBeVisible()
    await page.getByRole('link', { name: 'Return to Home' }).click()
    await expect(page).toHaveURL(at('/'))
    await page.context().close()
  })

  test('guards every path under /admin and /client, including ones that do not exist', async ({ browser }) => {
    const page = await newPage(browser, env.server.baseUrl)
    const consoleErrors = []
    page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()))

    // Anonymous: to /login with the origin path, never a 404.
    for (const path of ['/client/anything', '/client/no/such/page?tab=2', '/admin/anything']) {
      await page.goto(path)
      await expect(page).toHaveURL(at('/login'))
      expect(new URL(page.url()).searchParams.get('redirect')).toBe(path)
      await expect(page.getByRole('heading', { name: 'Welcome Back' })).toBeVisible()
      await expect(page).toHaveTitle('Sign in · CapOpt')
    }
    // Anonymous page loads log no 401s, the first one included (the session probe answers 200).
    expect(consoleErrors).toEqual([])
    await page.goto('/')
    await expect(page.getByRole('link', { name: 'Login' }).first()).toBeVisible()
    await page.goto('/client/home')
    await expect(page).toHaveURL(at('/login'))
    expect(consoleErrors).toEqual([])

    // A failed sign-in's toast is gone once the next sign-in succeeds (user B: user A's password
    // was reset above).
    await page.getByLabel('Email').fill(ACCOUNTS.userB)
    await page.getByLabel('Password', { exact: true }).fill('wrong-password')
    await page.getByRole('button', { name: 'Sign In' }).click()
    await expect(page.locator('[data-sonner-toast]').getByText('Login failed')).toBeVisible()
    await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD)
    await page.getByRole('button', { name: 'Sign In' }).click()
    await expect(page).toHaveURL(at('/client/home'))
    await expect(page.locator('[data-sonner-toast]').getByText('Login failed')).toHaveCount(0)

    // A non-admin on /admin/anything goes home; an unknown /client path is a 404 inside the shell.
    await page.goto('/admin/anything')
    await expect(page).toHaveURL(at('/client/home'))
    await page.goto('/client/anything')
    await expect(page.getByRole('heading', { name: 'Oops! Page not found' })).toBeVisible()
    await expect(page.getByRole('complementary', { name: 'Client navigation' })).toBeVisible()
    await expect(page).toHaveTitle('Page not found · CapOpt')
    // Nothing live here: no connection pill.
    await expect(page.locator('[data-slot="connection-status"] [role="status"]')).toHaveCount(0)
    await page.getByRole('link', { name: 'Return to Home' }).click()
    await expect(page).toHaveURL(at('/client/home'))
    await expect(page).toHaveTitle('Home · CapOpt')
    expect(page.errors).toEqual([])
    await page.context().close()

    // An admin sees the 404 inside the shell, and Return to Home is the dashboard.
    const admin = await newPage(browser, env.server.baseUrl)
    await login(admin, ACCOUNTS.admin)
    await expect(admin).toHaveURL(at('/admin/dashboard'))
    await admin.goto('/admin/anything')
    await expect(admin.getByRole('heading', { name: 'Oops! Page not found' })).toBeVisible()
    await expect(admin.getByRole('complementary', { name: 'Admin navigation' })).toBeVisible()
    await admin.getByRole('link', { name: 'Return to Home' }).click()
    await expect(admin).toHaveURL(at('/admin/dashboard'))
    // The stand-alone 404 also leads a signed-in user home, not to the marketing page.
    await admin.goto('/this/page/does-not-exist')
    await admin.getByRole('link', { name: 'Return to Home' }).click()
    await expect(admin).toHaveURL(at('/admin/dashboard'))
    expect(admin.errors).toEqual([])
    await admin.context().close()
  })
})
