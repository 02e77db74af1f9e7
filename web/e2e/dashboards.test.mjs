// The admin and client dashboards in the browser against the real server, with figures worked
// out by hand from the demo savings (twelve months ending this month; levers start every other
// month). This month: Bank A PSE 12 x 9.5m = 114m, RGLA 10 x 6.2m = 62m, MDB 8 x 2.1m = 16.8m,
// Corporates 6 x 4.8m = 28.8m, 221.6m in all; Bank B PSE 46.8m, Institutions 53m, Sovereigns
// 13.6m, 113.4m; both 335m. Last month: Bank A 199m, Bank B 102.5m, both 301.5m (+11.11 %).
// Then a savings change made through the API while both dashboards are open moves them live.
import { expect, test } from '@playwright/test'

import { apiCall, login, newPage, screenshot } from './support/browser.mjs'
import { ACCOUNTS } from './support/server.mjs'
import { useServer } from './support/suite.mjs'

const env = useServer()

// Intl writes a no-break space between a number and its sign.
const money = (s) => s.replace(/ /g, '\u00a0')

test('the admin dashboard, its tabs and the client dashboard move live on a savings change', async ({ browser }) => {
  const admin = await newPage(browser, env.server.baseUrl)
  await login(admin, ACCOUNTS.admin)
  await expect(admin).toHaveURL(/\/admin\/dashboard/)
  await expect(admin.getByRole('heading', { name: 'Admin Dashboard' })).toBeVisible()
  const capital = admin.getByRole('group', { name: 'Total Capital Optimized' })
  await expect(capital).toContainText(money('335.000.000 €'))
  await expect(capital).toContainText(money('+11,11 %'))
  await expect(capital).toContainText(money('301.500.000 €'))
  // Levers with savings: PSE, RGLA, MDB, Corporates, Institutions, Sovereigns.
  await expect(admin.getByRole('group', { name: 'Levers Used' })).toContainText('6')
  await expect(admin.getByRole('group', { name: 'Total Clients' })).toContainText('2')
  await expect(admin.getByText(/churn/i)).toHaveCount(0)

  // This Month: 33.5m gained (335 − 301.5) against last month's 33.5m too (301.5 − 268): the
  // demo savings grow by the same amount every month once all levers run.
  await admin.getByRole('combobox', { name: 'Period', exact: true }).selectOption({ label: 'This Month' })
  await expect(capital).toContainText(money('33.500.000 €'))
  await admin.getByRole('combobox', { name: 'Period', exact: true }).selectOption({ label: 'All Time' })

  // Overview: the evolution chart, the category donut and the lever bars (the 15/12 rule).
  await expect(admin.getByRole('heading', { name: 'Capital Optimization Overview' })).toBeVisible()
  await expect(admin.getByRole('figure', { name: 'Capital Optimization Evolution chart' }).locator('.recharts-area')).toBeVisible()
  await admin.getByRole('combobox', { name: 'Overview period' }).selectOption({ label: 'All Time' })
  const categories = admin.getByRole('list', { name: 'Categories' })
  // Assets: everything but Corporates (CRMT 28.8m): 306.2m, 91,40 %.
  await expect(categories).toContainText(money('306.200.000 €'))
  await expect(categories).toContainText(money('91,40 %'))
  await expect(categories).toContainText('CRMT')
  const bars = admin.getByRole('figure', { name: 'Optimization Levers by Value chart' })
  await expect(bars).toContainText('Public Secto...')
  await expect(bars).toContainText('Institutions')
  await admin.getByRole('button', { name: 'Weekly' }).click()
  await expect(admin.getByText(`No weekly data available for ${new Date().getFullYear()}`)).toBeVisible()
  await admin.getByRole('button', { name: 'Monthly' }).click()
  await screenshot(admin, 'admin-dashboard-overview')

  // Client Performance: search, then Bank A's levers.
  await admin.getByRole('tab', { name: 'Client Performance' }).click()
  const table = admin.getByRole('table', { name: 'Client Performance' })
  await expect(table).toContainText('Bank B')
  await admin.getByRole('textbox', { name: 'Search clients' }).fill('bank a')
  await expect(table).not.toContainText('Bank B')
  await expect(table).toContainText(money('221.600.000 €'))
  await expect(table).toContainText(money('13,55 %'))
  await table.getByText('Bank A').click()
  const breakdown = admin.getByRole('region', { name: 'Optimization Levers Breakdown' })
  await expect(breakdown).toContainText(money('114.000.000 €'))
  await expect(breakdown).toContainText('Regional Governments and Local Authorities (RGLA)')
  await screenshot(admin, 'admin-dashboard-clients')

  // Lever Performance: PSE over both banks 160.8m, against 147.4m last month (+9,09 %).
  await admin.getByRole('tab', { name: 'Lever Performance' }).click()
  const levers = admin.getByRole('table', { name: 'Lever Performance' })
  await expect(levers).toContainText(money('160.800.000 €'))
  await expect(levers).toContainText(money('+9,09 %'))
  await screenshot(admin, 'admin-dashboard-levers')
  await admin.getByRole('tab', { name: 'Overview' }).click()

  // The client dashboard of Bank A's user.
  const user = await newPage(browser, env.server.baseUrl)
  await login(user, ACCOUNTS.userA)
  await expect(user).toHaveURL(/\/client\/home/)
  // The home's summary cards are the dashboard's.
  await expect(user.getByRole('group', { name: 'Total RWA Savings' })).toContainText(money('221.600.000 €'))
  await user.getByRole('link', { name: 'Dashboard', exact: true }).click()
  await expect(user).toHaveURL(/\/client\/dashboard/)
  await expect(user.getByRole('heading', { name: 'Capital Optimization Dashboard' })).toBeVisible()
  await expect(user.getByTestId('client-name')).toHaveText('Bank A')
  const total = user.getByRole('group', { name: 'Total RWA Savings' })
  await expect(total).toContainText(money('221.600.000 €'))
  // 221.6 / 199 − 1 = +11,36 %.
  await expect(user.getByRole('group', { name: 'Change from Previous Month' })).toContainText(money('+11,36 %'))
  await expect(user.getByRole('figure', { name: 'Monthly evolution chart' }).locator('.recharts-area')).toBeVisible()
  await user.getByRole('tab', { name: 'Details' }).click()
  const leverTable = user.getByRole('table', { name: 'Optimization levers' })
  // PSE 114m against 104.5m (+9,09 %), high impact; MDB 16.8m, medium.
  await expect(leverTable.getByRole('row', { name: /Public Sector Entities/ })).toContainText(money('+9,09 %'))
  await expect(leverTable.getByRole('row', { name: /Public Sector Entities/ })).toContainText('High impact')
  await expect(leverTable.getByRole('row', { name: /Multilateral/ })).toContainText('Medium impact')
  await user.getByRole('button', { name: 'Export' }).click()
  const dialog = user.getByRole('dialog', { name: 'Export Dashboard' })
  await expect(dialog.getByRole('radio', { name: 'Excel (XLSX)' })).toBeChecked()
  await dialog.getByRole('radio', { name: 'CSV' }).check()
  const download = user.waitForEvent('download')
  await dialog.getByRole('button', { name: 'Export' }).click()
  expect((await download).suggestedFilename()).toMatch(/^capital_optimization_Bank_A_\d{4}-\d{2}-\d{2}\.csv$/)
  await user.getByRole('tab', { name: 'Overview' }).click()
  await screenshot(user, 'client-dashboard')

  // A processed file of Bank A, and its savings changed through the API while both are open:
  // Bank A's savings become that file's 500m; both banks 613.4m.
  const bankA = env.server.sql("SELECT id FROM clients WHERE name = 'Bank A'").trim()
  const fileId = `e2e-dashboard-file-${Date.now()}`
  env.server.sql(
    `INSERT INTO client_files (id, client_id, name, original_name, file_path, file_type, content_type, size_bytes, uploaded_at, lever_id, processed, processing_status, object_key)
     VALUES ('${fileId}', '${bankA}', 'pse.csv', 'pse.csv', 'clients/${bankA}/input/x.csv', 'csv', 'text/csv', 10, '2026-01-01T00:00:00.000000Z', 'lever-pse', 1, 'processed', 'clients/${bankA}/input/x.csv')`,
  )
  const changed = await apiCall(admin, 'PATCH', `/api/admin/files/${fileId}`, { savingsRwas: 500_000_000 })
  expect(changed.status).toBe(200)
  await expect(capital).toContainText(money('613.400.000 €'))
  await expect(total).toContainText(money('500.000.000 €'))
  await screenshot(admin, 'admin-dashboard-live')
})

test("a client user without a client sees 'No Client'", async ({ browser }) => {
  const viewer = await newPage(browser, env.server.baseUrl)
  // The viewer loses its memberships: no client link.
  const viewerId = env.server.sql(`SELECT id FROM users WHERE email = '${ACCOUNTS.viewer}'`).trim()
  env.server.sql(`DELETE FROM client_users WHERE user_id = '${viewerId}'`)
  await login(viewer, ACCOUNTS.viewer)
  await expect(viewer).toHaveURL(/\/client\/home/)
  await viewer.getByRole('link', { name: 'Dashboard', exact: true }).click()
  await expect(viewer.getByTestId('client-name')).toHaveText('No Client')
  await expect(viewer.getByText('Your account is not linked to a client, so there are no savings to show.')).toBeVisible()
})
