// The calculators in the browser against the real server, with figures worked out by hand from
// Bank A's demo figures (total RWAs 48.2bn, CET1 capital 6.53bn, ratio 13.5477 %) and the domain
// brief's example K01 (RWAs 100bn, capital 13bn): Scenario A and Scenario B with its break-even
// year on the client and the admin calculator, then scenarios saved by a member and by an
// administrator, compared side by side with the real portfolio (savings 221.6m) and followed live
// by the other's screen; a viewer compares but cannot save.
import { expect, test } from '@playwright/test'

import { login, newPage, screenshot } from './support/browser.mjs'
import { ACCOUNTS } from './support/server.mjs'
import { useServer } from './support/suite.mjs'

const env = useServer()

// Intl writes a no-break space between a number and its sign.
const money = (s) => s.replace(/ /g, '\u00a0')

const scenarioA = (page) => page.getByRole('region', { name: 'Scenario A: CET1 Capital Constant' })
const scenarioB = (page) => page.getByRole('region', { name: 'Scenario B: Unlock CET1 Capital' })
const comparison = (page) => page.getByRole('table', { name: 'Scenario comparison' })

/** Moves a slider to its lowest value and then `steps` steps up, with the keyboard. */
async function setSlider(slider, steps) {
  await slider.focus()
  await slider.press('Home')
  for (let i = 0; i < steps; i++) await slider.press('ArrowRight')
}

test("Scenario A and B with the break-even year on the client's figures and on typed figures", async ({ browser }) => {
  const member = await newPage(browser, env.server.baseUrl)
  await login(member, ACCOUNTS.userA)
  await expect(member).toHaveURL(/\/client\/home/)
  await member.getByRole('link', { name: 'Calculator' }).click()
  await expect(member).toHaveURL(/\/client\/calculator/)
  await expect(member.getByRole('heading', { name: 'Capital Optimization Calculator' })).toBeVisible()
  const figures = member.getByRole('region', { name: 'Client figures' })
  await expect(figures).toContainText(money('6.530.000.000 €'))
  await expect(figures).toContainText(money('48.200.000.000 €'))
  await expect(figures).toContainText(money('13,55 %'))

  // The default optimisation, 1 % of 48.2bn = 482m: 6.53 / 47.718 = 13.68 %, +13.68 bps.
  await expect(scenarioA(member)).toContainText(money('13,68 %'))
  await expect(scenarioA(member)).toContainText('+13,68 bps')
  // Unlocked 482m × 13.5477 % × 97 % = 63,341,000; fee 3 % = 1,900,230; year 1 at 1.3 %:
  // 823,433 − 1,900,230 = −1,076,797; ten years compounded: 6,598,648; break-even year 2.33.
  await expect(scenarioB(member)).toContainText(money('63.341.000 €'))
  await expect(scenarioB(member)).toContainText(money('-1.076.797 €'))
  await expect(scenarioB(member)).toContainText(money('6.598.648 €'))
  await expect(member.getByTestId('break-even')).toHaveText('Break-even: Year 2,3')
  await expect(scenarioB(member).getByRole('figure', { name: 'Cumulative value' }).locator('.recharts-area')).toBeVisible()

  // Margin 2 %, five years: year 1 0.02U − 0.03U = −633,410; break-even 1 + 0.01 / 0.0198 = 1.5;
  // five years: 4,535,712.
  await scenarioB(member).getByLabel('Net Interest Margin (%)').fill('2')
  await setSlider(scenarioB(member).getByLabel('Projection Years'), 2)
  await expect(scenarioB(member)).toContainText(money('-633.410 €'))
  await expect(scenarioB(member)).toContainText(money('4.535.712 €'))
  await expect(scenarioB(member)).toContainText('5 years')
  await expect(member.getByTestId('break-even')).toHaveText('Break-even: Year 1,5')
  await screenshot(member, 'calculator-client')

  // The admin calculator on K01: 13bn over 100bn, 1bn of RWAs typed: 13 / 99 = 13.13 %;
  // freed 130m, unlocked 126.1m; three years at 1.3 %: 1,100,112; break-even year 2.3.
  const admin = await newPage(browser, env.server.baseUrl)
  await login(admin, ACCOUNTS.admin)
  await expect(admin).toHaveURL(/\/admin\/dashboard/)
  await admin.getByRole('link', { name: 'Calculator' }).click()
  await expect(admin).toHaveURL(/\/admin\/calculator/)
  await expect(admin.getByLabel('CET1 Capital', { exact: true })).not.toHaveValue('')
  await admin.getByLabel('CET1 Capital', { exact: true }).fill('13.000.000.000')
  await admin.getByLabel('Total RWAs', { exact: true }).fill('100.000.000.000')
  await admin.getByLabel('Optimized RWAs').fill('1000000000')
  await expect(admin.getByLabel('CET1 Ratio', { exact: true })).toHaveValue(money('13,00 %'))
  await expect(admin.getByLabel('Conversion Factor')).toHaveValue(money('76.923.077 €'))
  await expect(scenarioA(admin)).toContainText(money('13,13 %'))
  await expect(scenarioA(admin)).toContainText('+13,13 bps')
  await setSlider(scenarioB(admin).getByLabel('Projection Years'), 0)
  await expect(scenarioB(admin)).toContainText(money('126.100.000 €'))
  await expect(scenarioB(admin)).toContainText(money('-2.143.700 €'))
  await expect(scenarioB(admin)).toContainText(money('1.100.112 €'))
  await expect(admin.getByTestId('break-even')).toHaveText('Break-even: Year 2,3')
  // Pound: the same figures with the pound sign.
  await admin.getByLabel('Currency').selectOption({ label: 'Pound' })
  await expect(scenarioB(admin)).toContainText(money('126.100.000 £'))
  // 10 bps by the predefined scenario: ΔR = 763,358,779; 13 / 99.2366 = 13.10 %.
  await admin.getByRole('button', { name: '10 bps' }).click()
  await expect(scenarioA(admin)).toContainText(money('13,10 %'))
  await expect(admin.getByRole('region', { name: 'Optimization Summary' })).toContainText(money('763.358.779 £'))
  await screenshot(admin, 'calculator-admin')

  expect(member.errors).toEqual([])
  expect(admin.errors).toEqual([])
})

test('scenarios saved by a member and an administrator are compared with the real portfolio, live; a viewer only compares', async ({ browser }) => {
  const member = await newPage(browser, env.server.baseUrl)
  await login(member, ACCOUNTS.userA)
  await expect(member).toHaveURL(/\/client\/home/)
  await member.goto('/client/calculator')
  const admin = await newPage(browser, env.server.baseUrl)
  await login(admin, ACCOUNTS.admin)
  await expect(admin).toHaveURL(/\/admin\/dashboard/)
  await admin.goto('/admin/calculator')
  await admin.getByRole('combobox', { name: 'Client' }).selectOption({ label: 'Bank A' })
  await expect(admin.getByLabel('CET1 Capital', { exact: true })).toHaveValue('6.530.000.000')

  // The real portfolio: Bank A's processed savings, 221.6m: 10,000 × 6.53 × 0.2216 /
  // (48.2 × 47.9784) = 6.26 bps.
  for (const page of [member, admin]) {
    await expect(comparison(page)).toContainText('Real portfolio')
    await expect(comparison(page)).toContainText(money('221.600.000 €'))
    await expect(comparison(page)).toContainText('6,26 bps')
    await expect(page.getByText('No saved scenarios yet.')).toBeVisible()
  }

  // The member saves 20 bps: ΔR = 20 × 48.2e9² / (1e4 × 6.53e9 + 20 × 48.2e9) = 701,207,292;
  // 6.53 / 47.4988 = 13.75 %. The administrator's open screen follows.
  await member.getByRole('button', { name: '20 bps' }).click()
  await expect(scenarioA(member)).toContainText(money('13,75 %'))
  await member.getByLabel('Scenario name').fill('Plan 20 bps')
  await member.getByRole('button', { name: 'Save Scenario' }).click()
  await expect(member.getByText('Scenario saved')).toBeVisible()
  for (const page of [member, admin]) {
    await expect(comparison(page)).toContainText('Plan 20 bps')
    await expect(comparison(page)).toContainText(money('701.207.292 €'))
    await expect(comparison(page)).toContainText(money('13,75 %'))
  }

  // The administrator saves K01's figures for Bank A; the member's comparison follows.
  await admin.getByLabel('CET1 Capital', { exact: true }).fill('13.000.000.000')
  await admin.getByLabel('Total RWAs', { exact: true }).fill('100.000.000.000')
  await admin.getByLabel('Optimized RWAs').fill('1000000000')
  await expect(scenarioA(admin)).toContainText('+13,13 bps')
  await admin.getByLabel('Scenario name').fill('K01 figures')
  await admin.getByRole('button', { name: 'Save Scenario' }).click()
  await expect(admin.getByText('Scenario saved')).toBeVisible()
  await expect(comparison(member)).toContainText('K01 figures')
  await expect(comparison(member)).toContainText(money('13.000.000.000 €'))
  await expect(comparison(member)).toContainText('13,13 bps')
  // Newest first: K01 figures, then Plan 20 bps, after the real portfolio.
  await expect(comparison(member).locator('thead th')).toHaveText([/Scenario comparison/, /Real portfolio/, /K01 figures/, /Plan 20 bps/])
  await screenshot(member, 'calculator-scenarios')

  // A name already used is refused with the server's message.
  await member.getByLabel('Scenario name').fill('Plan 20 bps')
  await member.getByRole('button', { name: 'Save Scenario' }).click()
  await expect(member.getByText('A scenario named "Plan 20 bps" already exists for this client')).toBeVisible()

  // A viewer of Bank A compares but cannot save or delete.
  const viewer = await newPage(browser, env.server.baseUrl)
  await login(viewer, ACCOUNTS.viewer)
  await expect(viewer).toHaveURL(/\/client\/home/)
  await viewer.goto('/client/calculator')
  await expect(comparison(viewer)).toContainText('K01 figures')
  await expect(viewer.getByText(/Read-only access/)).toBeVisible()
  await expect(viewer.getByRole('button', { name: 'Save Scenario' })).toHaveCount(0)
  await expect(viewer.getByRole('button', { name: 'Delete K01 figures' })).toHaveCount(0)

  // Unticked, a scenario leaves the comparison; the member deletes one and every screen follows.
  await member.getByRole('checkbox', { name: 'Compare Plan 20 bps' }).uncheck()
  await expect(comparison(member)).not.toContainText('Plan 20 bps')
  await member.getByRole('button', { name: 'Delete K01 figures' }).click()
  await member.getByRole('dialog').getByRole('button', { name: 'Delete' }).click()
  await expect(member.getByText('Scenario deleted')).toBeVisible()
  for (const page of [member, admin, viewer]) await expect(comparison(page)).not.toContainText('K01 figures')

  for (const page of [member, admin, viewer]) expect(page.errors).toEqual([])
})
