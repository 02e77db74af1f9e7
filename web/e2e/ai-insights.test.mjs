// AI Insights in the browser against the real server: a member of Bank A processes a PSE file
// worked out by hand (the server's own run), then opens /client/ai-dashboard and sees the
// engine's real decision trace of a known exposure drawn as a tree, with the path and articles
// the regulation gives (CRR Art. 116: an unrated PSE at Spain's CQS 2 takes 50 % from Table 2 of
// 116(1) once 116(4) and 116(3) answer no), the classifier's tokens, the confidence's four
// factors, the historical patterns, and exports the analysis as CSV. A viewer of Bank A reads the
// same; Bank B's user sees none of it.
import { readFileSync } from 'node:fs'

import { expect, test } from '@playwright/test'

import { apiCall, login, newPage, screenshot } from './support/browser.mjs'
import { ACCOUNTS } from './support/server.mjs'
import { processHandPseFile as processHandFile } from './support/runs.mjs'
import { useServer } from './support/suite.mjs'

const env = useServer()

test('the real decision tree of a hand-computed PSE exposure, its tokens, confidence and history, and the export', async ({ browser }) => {
  const member = await newPage(browser, env.server.baseUrl)
  await login(member, ACCOUNTS.userA)
  await expect(member).toHaveURL(/\/client\/home/)
  const runId = await processHandFile(member, 'hand-pse.csv')

  // From the sidebar.
  await member.getByRole('link', { name: 'AI Insights' }).click()
  await expect(member).toHaveURL(/\/client\/ai-dashboard/)
  await expect(member.getByRole('heading', { name: 'AI Explainability Dashboard' })).toBeVisible()
  await expect(member.getByLabel('Processing Run')).toHaveValue(runId)
  await expect(member.getByLabel('Processing Run').locator('option:checked')).toContainText('hand-pse.csv')
  await expect(member.getByText('Select a classification to view the decision tree.')).toBeVisible()
  await expect(member.getByTestId('run-summary')).toContainText('EU-CRR3')
  await expect(member.getByTestId('run-summary')).toContainText('3 rows, 2 matched, 2 with a lower weight')

  // The server searches the run's decisions; the ADIF exposure is chosen.
  await member.getByLabel('Search').fill('Q2801660H')
  await expect(member.getByTestId('decisions-count')).toHaveText('1 decision matches the search.')
  const classification = member.getByLabel('Classification')
  await expect(classification.locator('option', { hasText: 'EXP-ADIF-24M' })).toContainText('Administrador de Infraestructuras Ferroviarias — 100,00 % → 50,00 %')
  await classification.selectOption('1')
  await expect(member).toHaveURL(/row=1/)

  // The tree: the path and the articles of the regulation.
  const tree = member.getByRole('tree', { name: 'Decision tree' })
  await expect(tree).toBeVisible()
  const node = (test) => tree.getByTestId('decision-node').filter({ hasText: test })
  await expect(node('NIF in the PSE reference list?')).toContainText('yes: Administrador de Infraestructuras Ferroviarias (ADIF)')
  await expect(node('listed as treated like the central government?')).toContainText('CRR Art. 116(4)')
  await expect(node('listed as treated like the central government?')).toContainText('no')
  await expect(node('original maturity <= 3 months?')).toContainText('no')
  await expect(node('original maturity <= 3 months?')).toContainText('730.5')
  await expect(node('own rating?')).toContainText('none')
  await expect(node('weight of PSE_UNRATED')).toContainText('CRR Art. 116(1) Table 2')
  await expect(node('weight of PSE_UNRATED')).toContainText('50%')
  const result = tree.getByTestId('decision-result')
  await expect(result).toContainText('Proposed risk weight 50,00 %')
  await expect(result).toContainText('PSE_UNRATED')
  await expect(result).toContainText('CRR Art. 116(1) Table 2')
  await expect(result).toContainText('central government ES CQS 2')
  await expect(member.getByTestId('chosen-decision')).toContainText('100,00 % → 50,00 %')
  await screenshot(member, 'ai-insights-decision-tree')

  // Token Analysis: the classifier's evidence on the file, by importance.
  await member.getByRole('tab', { name: 'Token Analysis' }).click()
  const strongest = member.getByTestId('token-chip').first()
  await expect(strongest).toContainText('PSE list')
  await expect(strongest).toHaveAttribute('data-importance', 'high')
  await expect(member.getByText('2 of 3 NIFs found in the PSE list').first()).toBeVisible()
  await screenshot(member, 'ai-insights-tokens')

  // Confidence Breakdown: four computed factors.
  await member.getByRole('tab', { name: 'Confidence Breakdown' }).click()
  await expect(member.getByTestId('overall-confidence')).toHaveText('75,00 %')
  await expect(member.getByTestId('factor-rule_match')).toContainText('100,00 %')
  await expect(member.getByTestId('factor-data_completeness')).toContainText('4 of 4 required fields')
  await expect(member.getByTestId('factor-expert_validation')).toContainText("awaits an approver's decision")
  await screenshot(member, 'ai-insights-confidence')

  // Historical Patterns: no earlier run of the lever yet.
  await member.getByRole('tab', { name: 'Historical Patterns' }).click()
  await expect(member.getByText('No similar past decision.')).toBeVisible()
  await expect(member.getByTestId('similar-recent')).toHaveText('0')

  // Export Analysis as CSV.
  await member.getByRole('button', { name: 'Export Analysis' }).click()
  const [download] = await Promise.all([member.waitForEvent('download'), member.getByRole('menuitem', { name: 'CSV' }).click()])
  expect(download.suggestedFilename()).toBe('ai-analysis-hand-pse-row-1.csv')
  const csv = readFileSync(await download.path(), 'utf8')
  expect(csv).toContain('decision,proposed weight,50%,')
  expect(csv).toContain('CRR Art. 116(1) Table 2')

  // A viewer of Bank A reads the same decision.
  const viewer = await newPage(browser, env.server.baseUrl)
  await login(viewer, ACCOUNTS.viewer)
  await expect(viewer).toHaveURL(/\/client\/home/)
  await viewer.goto(`/client/ai-dashboard?run=${runId}&row=2`)
  await expect(viewer.getByRole('tree', { name: 'Decision tree' }).getByTestId('decision-result')).toContainText('CRR Art. 116(3)')

  // Bank B's user: nothing of Bank A, even with its run in the URL.
  const other = await newPage(browser, env.server.baseUrl)
  await login(other, ACCOUNTS.userB)
  await expect(other).toHaveURL(/\/client\/home/)
  await other.goto(`/client/ai-dashboard?run=${runId}&row=1`)
  await expect(other.getByText(/No processing runs with results yet/)).toBeVisible()
  await expect(other.getByText('hand-pse.csv')).toHaveCount(0)
  expect((await apiCall(other, 'GET', `/api/insights/runs/${runId}/decisions/1`)).status).toBe(404)
})
