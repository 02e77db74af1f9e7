// The public landing page and both waitlist forms, against the real server.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'

import { newPage, screenshot } from './support/browser.mjs'
import { useServerAndBrowser } from './support/suite.mjs'

describe('landing page', () => {
  const env = useServerAndBrowser()

  it('shows the header anchors, the sections and the footer links', async () => {
    const page = await newPage(env.browser, env.server.baseUrl)
    await page.goto('/')
    const nav = page.getByRole('navigation', { name: 'Sections' })
    for (const [label, href] of [
      ['About', '#about'],
      ['Features', '#features'],
      ['Our Approach', '#approach'],
      ['Contact', '#contact'],
    ]) {
      assert.equal(await nav.getByRole('link', { name: label }).getAttribute('href'), href)
    }
    assert.equal(await page.getByRole('link', { name: 'Login' }).getAttribute('href'), '/login')
    for (const id of ['about', 'features', 'approach', 'contact']) {
      assert.equal(await page.locator(`section#${id}`).count(), 1, `section #${id}`)
    }
    assert.equal(await page.locator('#features article').count(), 6)
    assert.equal(await page.locator('#contact blockquote').count(), 1)
    const legal = page.getByRole('navigation', { name: 'Legal' })
    assert.equal(await legal.getByRole('link', { name: 'Terms of Service' }).getAttribute('href'), '/terms')
    assert.equal(await legal.getByRole('link', { name: 'Privacy Policy' }).getAttribute('href'), '/privacy')
    assert.equal(await legal.getByRole('link', { name: 'Cookie Policy' }).getAttribute('href'), '/cookies')
    await screenshot(page, 'landing')

    // The landing page never shows the session overlay and does not load the app's dialogs.
    assert.equal(await page.getByText('Verifying authentication...').count(), 0)
    const scripts = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name))
    assert.ok(!scripts.some((name) => /vendor-radix|vendor-zod|vendor-date|app-layout/.test(name)), scripts.join('\n'))

    await legal.getByRole('link', { name: 'Cookie Policy' }).click()
    await page.getByRole('heading', { name: 'Cookie Policy' }).waitFor()
    await page.goto('/home')
    await page.getByRole('heading', { level: 1 }).waitFor()
    assert.deepEqual(page.errors, [])
    await page.context().close()
  })

  it('joins the waitlist from the hero form and reports a duplicate address', async () => {
    const page = await newPage(env.browser, env.server.baseUrl)
    await page.goto('/')
    const hero = page.getByRole('form', { name: 'Join the waitlist (hero)' })

    await hero.getByRole('textbox', { name: 'Email address' }).fill('not-an-email')
    await hero.getByRole('button', { name: 'Join Waitlist' }).click()
    await hero.getByText('Please enter a valid email address').waitFor()

    const email = `hero-${Date.now()}@bank.example`
    await hero.getByRole('textbox', { name: 'Email address' }).fill(email)
    const answered = page.waitForResponse((r) => r.url().endsWith('/api/waitlist'))
    await hero.getByRole('button', { name: 'Join Waitlist' }).click()
    const first = await answered
    assert.equal(first.status(), 200)
    const firstBody = await first.json()
    assert.equal(firstBody.code, 'OK')
    await page.locator('[data-sonner-toast]').getByText(firstBody.message).waitFor()
    assert.equal(await hero.getByRole('textbox', { name: 'Email address' }).inputValue(), '')

    await hero.getByRole('textbox', { name: 'Email address' }).fill(email)
    const again = page.waitForResponse((r) => r.url().endsWith('/api/waitlist'))
    await hero.getByRole('button', { name: 'Join Waitlist' }).click()
    const duplicate = await (await again).json()
    assert.equal(duplicate.code, 'ALREADY_REGISTERED')
    await page.locator('[data-sonner-toast]').getByText(duplicate.message).waitFor()
    // One toast at a time.
    assert.equal(await page.locator('[data-sonner-toast][data-visible="true"]').count(), 1)
    await page.context().close()
  })

  it('joins the waitlist from the call-to-action form with source cta', async () => {
    const page = await newPage(env.browser, env.server.baseUrl)
    await page.goto('/#contact')
    const cta = page.getByRole('form', { name: 'Join the waitlist (cta)' })
    await cta.getByRole('textbox', { name: 'Email address' }).fill(`cta-${Date.now()}@bank.example`)
    const request = page.waitForRequest((r) => r.url().endsWith('/api/waitlist'))
    await cta.getByRole('button', { name: 'Join Waitlist' }).click()
    const sent = (await request).postDataJSON()
    assert.equal(sent.source, 'cta')
    assert.equal(sent.name, null)
    await page.locator('[data-sonner-toast][data-type="success"]').waitFor()
    await page.context().close()
  })
})
