// Completed processing runs for the browser tests: the hand-computed PSE file of the server's API
// tests (server/tests/api/insights.rs), uploaded for manual PSE processing from a member's session
// and processed by the server's own run. Of its three rows two are in the PSE reference list and
// get a lower weight (EXP-ADIF-24M 100 % -> 50 %, EXP-AEAT-2M 100 % -> 20 %); one is not matched.
import { expect } from '@playwright/test'

import { apiCall, csrfToken } from './browser.mjs'

/** The hand-computed PSE file. */
export const HAND_PSE = [
  'Exposure_ID,Counterparty,NIF,Exposure_Amount,Current_Risk_Weight,Maturity (months),Currency',
  'EXP-ADIF-24M,Administrador de Infraestructuras Ferroviarias,Q2801660H,1000000,100,24,EUR',
  'EXP-AEAT-2M,Agencia Estatal de Administracion Tributaria,Q2826000H,500000,100,2,EUR',
  'EXP-BAD-NIF,Entidad Desconocida,Q9999999J,250000,100,24,EUR',
  '',
].join('\n')

/** The manual mode's mapping of the hand file (standard column to the file's column). */
export const HAND_PSE_MAPPING = {
  Exposure_ID: 'Exposure_ID',
  Legal_Name: 'Counterparty',
  NIF: 'NIF',
  Exposure_Amount: 'Exposure_Amount',
  Current_Risk_Weight: 'Current_Risk_Weight',
  Maturity: 'Maturity (months)',
  Currency: 'Currency',
}

/**
 * Uploads the hand file as `name` for manual PSE processing from the page's session (a member of
 * a client) and waits for its run to complete; returns the run's id.
 */
export async function processHandPseFile(page, name) {
  const context = page.context()
  if (!(await csrfToken(context))) await context.request.get('/api/health')
  const response = await context.request.post('/api/files', {
    headers: { 'X-CSRF-Token': await csrfToken(context) },
    multipart: {
      file: { name, mimeType: 'text/csv', buffer: Buffer.from(HAND_PSE) },
      options: JSON.stringify({
        mode: 'manual',
        leverId: 'lever-pse',
        process: true,
        mapping: HAND_PSE_MAPPING,
        riskWeightFormat: 'percent',
        maturityUnit: 'months',
      }),
    },
  })
  expect(response.status()).toBe(201)
  const { run } = await response.json()
  await expect
    .poll(async () => (await apiCall(page, 'GET', `/api/runs/${run.id}`)).body.state, { timeout: 60_000 })
    .toBe('completed')
  return run.id
}
