import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import { useAuthStore } from '@/lib/auth-store'
import { queryClient } from '@/lib/query-client'
import { resetRealtime, setRealtimeTransport } from '@/lib/realtime-store'
import { FakeEventSocket } from '@/testing/fake-event-socket'
import { json, makeUser, mockApi } from '@/testing/mock-api'
import { renderRoutes } from '@/testing/render-route'

import type { InsightDecision, InsightDecisionDetail, InsightHistory, InsightRun, InsightRunOverview } from '../api'
import { buildDecisionTree, pathOf } from '../utils/tree'
import { AiDashboard, SEARCH_DEBOUNCE_MS } from './ai-dashboard'

const RUN: InsightRun = {
  id: 'run-1',
  fileId: 'f-1',
  fileName: 'hand-pse.csv',
  mode: 'manual',
  leverName: 'Public Sector Entities (PSE)',
  rows: 3,
  createdAt: '2026-11-25T10:00:00Z',
  finishedAt: '2026-11-25T10:00:02Z',
  validationStatus: 'pending',
}

const OVERVIEW: InsightRunOverview = {
  run: RUN,
  lever: 'pse',
  ruleSet: 'EU-CRR3',
  reportingDate: '2026-11-25',
  reportingDateStored: true,
  totals: { rows: 3, matched: 2, notMatched: 1, errors: 0, changed: 2, rwaSaving: 900000 },
  consistency: null,
  requiredFields: ['NIF', 'Exposure_Amount', 'Current_Risk_Weight', 'Maturity'],
  tokens: {
    source: 'recomputed',
    lever: 'pse',
    confidence: 0.91,
    tokens: [
      { token: 'PSE list', weight: 2.667, importance: 'high', lever: 'pse', kind: 'reference', detail: '2 of 3 NIFs found in the PSE list' },
      { token: 'NIF key Q', weight: 1.333, importance: 'medium', lever: 'pse', kind: 'identifier', detail: '2 of 3 NIFs have key Q (public body)' },
      { token: 'collateral', weight: 0.5, importance: 'low', lever: 'corporates', kind: 'header', detail: "column 'Collateral' read as collateral" },
    ],
    high: 1,
    medium: 1,
    low: 1,
    note: "This run's lever was chosen by a person.",
  },
}

const ADIF: InsightDecision = {
  row: 1,
  exposureId: 'EXP-ADIF-24M',
  counterparty: 'Administrador de Infraestructuras Ferroviarias',
  identifier: 'Q2801660H',
  originalRw: 100,
  proposedRw: 50,
  confidence: 75,
  regulatoryBasis: 'CRR Art. 116(1) Table 2',
  appliedRule: 'PSE_UNRATED',
  reasoning: 'PSE ADIF (NIF Q2801660H): unrated; central government ES CQS 2; regulatory RW 50%',
  status: 'matched',
  capitalSaving: 500000,
  flags: [],
}

const AEAT: InsightDecision = { ...ADIF, row: 2, exposureId: 'EXP-AEAT-2M', counterparty: 'AEAT', identifier: 'Q2826000H', proposedRw: 20, regulatoryBasis: 'CRR Art. 116(3)', appliedRule: 'PSE_SHORT' }

const DETAIL: InsightDecisionDetail = {
  decision: ADIF,
  trace: {
    lever: 'pse',
    ruleSet: 'EU-CRR3',
    reportingDate: '2026-11-25',
    steps: [
      { article: '', test: 'NIF in the PSE reference list?', inputs: [{ name: 'NIF', value: 'Q2801660H' }], outcome: 'yes: ADIF (NIF Q2801660H)' },
      { article: 'CRR Art. 116(4)', test: 'listed as treated like the central government?', inputs: [{ name: 'treated_as_central_government', value: 'no' }], outcome: 'no' },
      { article: '', test: 'original maturity <= 3 months?', inputs: [{ name: 'residual maturity (days)', value: '730.5' }], outcome: 'no' },
      { article: '', test: 'own rating?', inputs: [], outcome: 'none' },
      { article: 'CRR Art. 116(1) Table 2', test: 'weight of PSE_UNRATED', inputs: [{ name: 'basis', value: 'unrated; central government ES CQS 2' }], outcome: '50%' },
    ],
    referenceEntries: [{ list: 'PSE', key: 'Q2801660H', name: 'ADIF', source: 'built-in', asOf: '2025-06-30' }],
    status: 'matched',
    currentRw: 100,
    regulatoryRw: 50,
    suggestedRw: 50,
    appliedRule: 'PSE_UNRATED',
    regulatoryReference: 'CRR Art. 116(1) Table 2',
    details: ADIF.reasoning,
    flags: [],
  },
  fields: [],
  confidence: {
    overall: 75,
    factors: [
      { key: 'rule_match', label: 'Regulatory rule match', score: 100, how: 'Matched by the rule PSE_UNRATED (CRR Art. 116(1) Table 2) with nothing that weakens the match: 100 %.', details: [] },
      { key: 'historical_consistency', label: 'Historical consistency', score: 50, how: 'No earlier result of the PSE lever has been approved or rejected for this client yet: neutral 50 %.', details: [] },
      { key: 'data_completeness', label: 'Data completeness', score: 100, how: '4 of 4 required fields are present and readable in the row.', details: ['Maturity (column Maturity (months)): present'] },
      { key: 'expert_validation', label: 'Expert validation', score: 50, how: "This result awaits an approver's decision: 50 % until it is decided.", details: [] },
    ],
  },
}

const HISTORY: InsightHistory = {
  patternMatch: 100,
  similarLast6Months: 1,
  similarTotal: 1,
  runsCompared: 1,
  decisionsCompared: 3,
  cases: [
    {
      runId: 'run-0',
      fileName: 'earlier.csv',
      row: 1,
      exposureId: 'EXP-ADIF-24M',
      counterparty: 'ADIF',
      originalRw: 100,
      proposedRw: 50,
      appliedRule: 'PSE_UNRATED',
      similarity: 100,
      outcome: 'Approved',
      date: '2026-11-20T10:00:00Z',
      matchedOn: ['identifier', 'rule', 'current weight', 'status'],
    },
  ],
  note: null,
}

function page(items: InsightDecision[], total = items.length) {
  return { items, total, rows: 3, page: 1, pageSize: 50 }
}

afterEach(() => {
  resetRealtime()
  queryClient.clear()
})

describe('buildDecisionTree', () => {
  it('chains the tests, marks the branch a yes/no test did not take, and ends with the decision', () => {
    const root = buildDecisionTree(DETAIL.trace)
    const path = pathOf(root)
    expect(path.map((n) => n.rule)).toEqual(DETAIL.trace.steps.map((s) => s.test))
    expect(path[0]!.notTaken).toEqual(['no'])
    expect(path[1]!.notTaken).toEqual(['yes'])
    expect(path[3]!.notTaken).toEqual([])
    expect(path.at(-1)!.result?.suggestedRw).toBe(50)
    expect(path.slice(0, -1).every((n) => n.result === null)).toBe(true)
  })
})

describe('AiDashboard', () => {
  it('explains the client\'s run: the tree of a chosen classification, tokens, confidence, history, search and export', async () => {
    FakeEventSocket.all = []
    setRealtimeTransport(() => new FakeEventSocket(), async () => true)
    useAuthStore.setState({ status: 'authenticated', user: makeUser() })
    const calls = mockApi({
      'GET /api/insights/runs': () => json(200, [RUN]),
      'GET /api/insights/runs/:id': () => json(200, OVERVIEW),
      'GET /api/insights/runs/:id/decisions': ({ query }) => json(200, query.get('q') === '116(3)' ? page([AEAT]) : page([ADIF, AEAT], 3)),
      'GET /api/insights/runs/:id/decisions/:row': () => json(200, DETAIL),
      'GET /api/insights/runs/:id/decisions/:row/history': () => json(200, HISTORY),
      'HEAD /api/insights/runs/:id/export': () => new Response(null, { status: 200 }),
    })
    const assign = vi.fn()
    vi.stubGlobal('location', { ...window.location, assign })
    const user = userEvent.setup()
    renderRoutes([{ path: '/client/ai-dashboard', element: <AiDashboard /> }], '/client/ai-dashboard')

    // The newest run is chosen; no classification yet.
    const runSelect = await screen.findByLabelText('Processing Run')
    await waitFor(() => expect(runSelect).toHaveValue('run-1'))
    expect(screen.getByText('Select a classification to view the decision tree.')).toBeInTheDocument()
    await screen.findByText('Showing 2 of 3 decisions: search to narrow them.')
    expect(calls.find((c) => c.key === 'GET /api/insights/runs')!.url).toContain('client_id=c-1')

    // Choosing a classification draws its tree.
    await user.selectOptions(screen.getByLabelText('Classification'), '1')
    const tree = await screen.findByRole('tree', { name: 'Decision tree' })
    expect(within(tree).getAllByTestId('decision-node')).toHaveLength(5)
    expect(within(tree).getByText('CRR Art. 116(4)')).toBeInTheDocument()
    expect(within(tree).getByText('weight of PSE_UNRATED')).toBeInTheDocument()
    expect(within(tree).getByTestId('decision-result')).toHaveTextContent('Proposed risk weight 50,00 %')
    expect(within(tree).getByTestId('decision-result')).toHaveTextContent('CRR Art. 116(1) Table 2')
    expect(within(tree).getAllByText('yes: not taken').length).toBeGreaterThan(0)
    expect(screen.getByTestId('chosen-decision')).toHaveTextContent('100,00 % → 50,00 %')

    // Token Analysis: chips by importance and the counts.
    await user.click(screen.getByRole('tab', { name: 'Token Analysis' }))
    const chips = await screen.findAllByTestId('token-chip')
    expect(chips.map((c) => c.getAttribute('data-importance'))).toEqual(['high', 'medium', 'low'])
    expect(chips[0]).toHaveClass('bg-red-100')
    expect(screen.getByLabelText('High impact tokens')).toHaveTextContent('1')

    // Confidence Breakdown: the four factors and how.
    await user.click(screen.getByRole('tab', { name: 'Confidence Breakdown' }))
    expect(await screen.findByTestId('overall-confidence')).toHaveTextContent('75,00 %')
    expect(screen.getByTestId('factor-historical_consistency')).toHaveTextContent('neutral 50 %')
    expect(screen.getByRole('progressbar', { name: 'Regulatory rule match' })).toHaveAttribute('aria-valuenow', '100')

    // Historical Patterns, asked for only when opened.
    expect(calls.some((c) => c.key === 'GET /api/insights/runs/:id/decisions/:row/history')).toBe(false)
    await user.click(screen.getByRole('tab', { name: 'Historical Patterns' }))
    expect(await screen.findByTestId('pattern-match')).toHaveTextContent('100,00 %')
    expect(screen.getByTestId('similar-recent')).toHaveTextContent('1')
    expect(screen.getByTestId('similar-case')).toHaveTextContent('Approved')

    // The Search is the server's.
    await user.type(screen.getByLabelText('Search'), '116(3)')
    await waitFor(() => expect(calls.some((c) => c.key === 'GET /api/insights/runs/:id/decisions' && c.url.includes('q=116%283%29'))).toBe(true), {
      timeout: SEARCH_DEBOUNCE_MS + 2000,
    })
    await screen.findByText('1 decision matches the search.')

    // Export Analysis as CSV: the attachment of the chosen decision.
    await user.click(screen.getByRole('button', { name: 'Export Analysis' }))
    await user.click(await screen.findByRole('menuitem', { name: 'CSV' }))
    await waitFor(() => expect(assign).toHaveBeenCalled())
    expect(assign.mock.calls[0]![0]).toBe('/api/insights/runs/run-1/export?client_id=c-1&format=csv&row=1')
    vi.unstubAllGlobals()

    // A validation decided elsewhere refreshes what the screen shows.
    const socket = FakeEventSocket.latest()
    act(() => socket.open())
    await waitFor(() => expect(socket.sent.flatMap((m) => m.topics ?? [])).toContain('client:c-1:validations'))
    act(() => socket.frame('client:c-1:validations', 0, 'subscribed'))
    await waitFor(() => expect(screen.getByTestId('chosen-decision')).toBeInTheDocument())
    const before = calls.filter((c) => c.key === 'GET /api/insights/runs/:id/decisions/:row').length
    act(() => socket.frame('client:c-1:validations', 1, 'validation.updated', { validationId: 'v-1', clientId: 'c-1', fileId: 'f-1', status: 'approved', pendingValidations: 0 }))
    await waitFor(() => expect(calls.filter((c) => c.key === 'GET /api/insights/runs/:id/decisions/:row').length).toBeGreaterThan(before))
  })

  it('says so when the client has no processed run', async () => {
    useAuthStore.setState({ status: 'authenticated', user: makeUser() })
    mockApi({ 'GET /api/insights/runs': () => json(200, []) })
    renderRoutes([{ path: '/client/ai-dashboard', element: <AiDashboard /> }], '/client/ai-dashboard')
    expect(await screen.findByText(/No processing runs with results yet/)).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Process a file' })).toHaveAttribute('href', '/client/file-processor?client=c-1')
    expect(screen.getByText('Select a classification to view the decision tree.')).toBeInTheDocument()
  })
})
