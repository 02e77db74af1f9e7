// The public landing page and both waitlist forms, against the real server.
import { expect, test } from '@playwright/test'

import { newPage, screenshot } from './support/browser.mjs'
import { useServer } from './support/suite.mjs'

test.describe('landing page', () => {
  const env = useServer()

  test('shows the header anchors, the sections and the footer links', async ({ browser }) => {
    const page = await newPage(browser, env.server.baseUrl)
    await page.goto('/')
    const nav = page.getByRole('navigation', { name: 'Sections' })
    for (const [label, href] of [
      ['About', '#about'],
      ['Features', '#features'],
      ['Our Approach', '#approach'],
      ['Contact', '#contact'],
    ]) {
      await expect(nav.getByRole('link', { name: label })).toHaveAttribute('href', href)
    }
    await expect(page.getByRole('link', { name: 'Login' })).toHaveAttribute('href', '/login')
    for (const id of ['about', 'features', 'approach', 'contact']) {
      await expect(page.locator(`section#${id}`), `section #${id}`).toHaveCount(1)
    }
    await expect(page.locator('#features article')).toHaveCount(6)
    await expect(page.locator('#contact blockquote')).toHaveCount(1)
    const legal = page.getByRole('navigation', { name: 'Legal' })
    await expect(legal.getByRole('link', { name: 'Terms of Service' })).toHaveAttribute('href', '/terms')
    await expect(legal.getByRole('link', { name: 'Privacy Policy' })).toHaveAttribute('href', '/privacy')
    await expect(legal.getByRole('link', { name: 'Cookie Policy' })).toHaveAttribute('href', '/cookies')
    await screenshot(page, 'landing')

    // The landing page never shows the session overlay and does not load the app's dialogs.
    await expect(page.getByText('Verifying authentication...')).toHaveCount(0)
    const scripts = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name))
    expect(scripts.filter((name) => /vendor-radix|vendor-zod|vendor-date|app-layout/.test(name))).toEqual([])

    await legal.getByRole('link', { name: 'Cookie Policy' }).click()
    await expect(page.getByRole('heading', { name: 'Cookie Policy' })).toBeVisible()
    await page.goto('/home')
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible()
    expect(page.errors).toEqual([])
    await page.context().close()
  })

  test('joins the waitlist from the hero form and reports a duplicate address', async ({ browser }) => {
    const page = await newPage(browser, env.server.baseUrl)
    await page.goto('/')
    const hero = page.getByRole('form', { name: 'Join the waitlist (hero)' })
    const field = hero.getByRole('textbox', { name: 'Email address' })

    await field.fill('not-an-email')
    await hero.getByRole('button', { name: 'Join Waitlist' }).click()
    await expect(hero.getByText('Please enter a valid email address')).toBeVisible()

    const email = `hero-${Date.now()}@bank.example`
    await field.fill(email)
    const answered = page.waitForResponse((r) => r.url().endsWith('/api/waitlist'))
    await hero.getByRole('button', { name: 'Join Waitlist' }).click()
    const first = await answered
    expect(first.status()).toBe(200)
    const firstBody = await first.json()
    expect(firstBody.code).toBe('OK')
    await expect(page.locator('[data-sonner-toast]').getByText(firstBody.message)).toBeVisible()
    await expect(field).toHaveValue('')

    await field.fill(email)
    const again = page.waitForResponse((r) => r.url().endsWith('/api/waitlist'))
    await hero.getByRole('button', { name: 'Join Waitlist' }).click()
    const duplicate = await (await again).json()
    expect(duplicate.code).toBe('ALREADY_REGISTERED')
    await expect(page.locator('[data-sonner-toast]').getByText(duplicate.message)).toBeVisible()
    // One toast at a time.
    await expect(page.locator('[data-sonner-toast][data-visible="true"]')).toHaveCount(1)
    await page.context().close()
  })

  test('joins the waitlist from the call-to-action form with source cta', async ({ browser }) => {
    const page = await newPage(browser, env.server.baseUrl)
    await page.goto('/#contact')
    const cta = page.getByRole('form', { name: 'Join the waitlist (cta)' })
    await cta.getByRole('textbox', { name: 'Email address' }).fill(`cta-${Date.now()}@bank.example`)
    const request = page.waitForRequest((r) => r.url().endsWith('/api/waitlist'))
    await cta.getByRole('button', { name: 'Join Waitlist' }).click()
    const sent = (await request).postDataJSON()
    expect(sent.source).toBe('cta')
    expect(sent.name).toBeNull()
    await expect(page.locator('[data-sonner-toast][data-type="success"]')).toBeVisible()
    await page.context().close()
  })
})
