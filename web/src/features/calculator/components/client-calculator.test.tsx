import { act, fireEvent, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import { useAuthStore } from '@/lib/auth-store'
import { queryClient } from '@/lib/query-client'
import { resetRealtime, setRealtimeTransport } from '@/lib/realtime-store'
import { FakeEventSocket } from '@/testing/fake-event-socket'
import { json, makeUser, mockApi } from '@/testing/mock-api'
import { renderRoutes } from '@/testing/render-route'

import type { ScenarioList } from '../api'
import { makeCalculation, makeCalculatorClient, makeScenario, makeScenarioList } from '../utils/fixtures'
import { ClientCalculator } from './client-calculator'

// Testing Library reads Intl's no-break spaces (between a number and its sign) as spaces.
function renderCalculator(opts: { role?: 'user' | 'viewer'; list?: () => ScenarioList; client?: () => Response } = {}) {
  FakeEventSocket.all = []
  setRealtimeTransport(() => new FakeEventSocket(), async () => true)
  useAuthStore.setState({ status: 'authenticated', user: makeUser({ role: opts.role ?? 'user' }) })
  const calls = mockApi({
    'GET /api/calculator': opts.client ?? (() => json(200, makeCalculatorClient({ canSave: opts.role !== 'viewer' }))),
    'POST /api/calculator': () => json(200, makeCalculation()),
    'GET /api/calculator/scenarios': () => json(200, opts.list ? opts.list() : makeScenarioList({ canSave: opts.role !== 'viewer' })),
  })
  renderRoutes([{ path: '/client/calculator', element: <ClientCalculator /> }], '/client/calculator')
  return calls
}

const calculations = (calls: { key: string; body: unknown; url: string }[]) => calls.filter((c) => c.key === 'POST /api/calculator')

beforeEach(() => queryClient.clear())
afterEach(() => resetRealtime())

describe('ClientCalculator', () => {
  it("shows the client's official figures and the server's results for the default 1 % optimisation", async () => {
    const calls = renderCalculator()
    expect(await screen.findByRole('heading', { name: 'Capital Optimization Calculator' })).toBeInTheDocument()
    const figures = await screen.findByRole('region', { name: 'Client figures' })
    await waitFor(() => expect(within(figures).getByText('6.530.000.000 €')).toBeInTheDocument())
    expect(within(figures).getByText('48.200.000.000 €')).toBeInTheDocument()
    expect(within(figures).getByText('13,55 %')).toBeInTheDocument()
    expect(within(figures).getByText('35.577.948 € of RWAs = 1 bps')).toBeInTheDocument()

    expect(await screen.findByText('47.718.000.000 €')).toBeInTheDocument()
    expect(screen.getByText('Optimization Summary')).toBeInTheDocument()
    const scenarioA = screen.getByRole('region', { name: 'Scenario A: CET1 Capital Constant' })
    expect(within(scenarioA).getByText('13,55 %')).toBeInTheDocument()
    expect(within(scenarioA).getByText('13,68 %')).toBeInTheDocument()
    expect(within(scenarioA).getByText('+13,68 bps')).toBeInTheDocument()
    const scenarioB = screen.getByRole('region', { name: 'Scenario B: Unlock CET1 Capital' })
    expect(within(scenarioB).getByText('63.341.000 €')).toBeInTheDocument()
    expect(within(scenarioB).getByText('-1.076.797 €')).toBeInTheDocument()
    expect(within(scenarioB).getByLabelText('Net Interest Margin (%)')).toHaveValue('1,3')
    expect(within(scenarioB).getByRole('figure', { name: 'Cumulative value' })).toBeInTheDocument()
    expect(screen.getByTestId('break-even')).toHaveTextContent('Break-even: Year 2,3')
    const [first] = calculations(calls)
    expect(first!.url).toBe('/api/calculator?client_id=c-1')
    expect(first!.body).toEqual({ optimisation: { by: 'percent_of_rwas', value: 1 }, netInterestMarginPct: 1.3, projectionYears: 10, currency: 'eur' })
  })

  it('sends the predefined scenarios, the By BPS slider, the margin and the years as the server takes them', async () => {
    const user = userEvent.setup()
    const calls = renderCalculator()
    await screen.findByText('47.718.000.000 €')
    await user.click(screen.getByRole('button', { name: '20 bps' }))
    await waitFor(() => expect(calculations(calls).at(-1)!.body).toMatchObject({ optimisation: { by: 'bps', value: 20 } }))
    expect(screen.getByRole('tab', { name: 'By BPS' })).toHaveAttribute('data-state', 'active')

    fireEvent.change(screen.getByLabelText('Optimization (bps)'), { target: { value: '37.5' } })
    await waitFor(() => expect(calculations(calls).at(-1)!.body).toMatchObject({ optimisation: { by: 'bps', value: 37.5 } }))

    const margin = screen.getByLabelText('Net Interest Margin (%)')
    await user.clear(margin)
    await user.type(margin, '2,555x')
    // Two decimals at most and digits only: the third decimal and the letter are ignored.
    expect(margin).toHaveValue('2,55')
    await waitFor(() => expect(calculations(calls).at(-1)!.body).toMatchObject({ netInterestMarginPct: 2.55 }))

    fireEvent.change(screen.getByLabelText('Projection Years'), { target: { value: '25' } })
    await waitFor(() => expect(calculations(calls).at(-1)!.body).toMatchObject({ projectionYears: 25 }))
  })

  it('takes a typed amount of RWAs in digits only', async () => {
    const user = userEvent.setup()
    const calls = renderCalculator()
    await screen.findByText('47.718.000.000 €')
    const manual = screen.getByLabelText('Optimized RWAs')
    expect(manual).toHaveValue('482000000')
    await user.clear(manual)
    await user.type(manual, '1.205.000.000')
    expect(manual).toHaveValue('1205000000')
    await waitFor(() => expect(calculations(calls).at(-1)!.body).toMatchObject({ optimisation: { by: 'rwas', value: 1_205_000_000 } }))
  })

  it("says plainly when the client's official figures are not set", async () => {
    const calls = renderCalculator({
      client: () =>
        json(
          200,
          makeCalculatorClient({
            cet1Capital: null,
            totalRwas: null,
            cet1RatioPct: null,
            rwasPerBp: null,
            figuresProblem: "The official CET1 capital and total RWAs of Bank A are not set. An administrator enters them on the client's record.",
          }),
        ),
    })
    expect(await screen.findByText('Error loading client data')).toBeInTheDocument()
    expect(screen.getByText(/official CET1 capital and total RWAs of Bank A are not set/)).toBeInTheDocument()
    expect(calculations(calls)).toHaveLength(0)
  })

  it('shows Error loading client data when the figures cannot be read', async () => {
    renderCalculator({ client: () => json(500, { code: 'internal', message: 'An unexpected error occurred. Please try again.' }) })
    expect(await screen.findByText('Error loading client data')).toBeInTheDocument()
    expect(await screen.findByText('Error fetching client data')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument()
  })

  it('saves the current inputs as a named scenario and compares it with the real portfolio', async () => {
    const user = userEvent.setup()
    let list = makeScenarioList()
    const calls = renderCalculator({ list: () => list })
    const saves = mockApi({
      'POST /api/calculator/scenarios': ({ body }) => {
        const saved = makeScenario({ name: (body as { name: string }).name })
        list = { ...list, scenarios: [saved] }
        return json(201, saved)
      },
    })
    const comparison = await screen.findByRole('table', { name: 'Scenario comparison' })
    expect(within(comparison).getByText('Real portfolio')).toBeInTheDocument()
    expect(within(comparison).getByText('221.600.000 €')).toBeInTheDocument()
    expect(screen.getByText('No saved scenarios yet.')).toBeInTheDocument()

    await screen.findByText('47.718.000.000 €')
    await user.click(screen.getByRole('button', { name: '20 bps' }))
    await waitFor(() => expect(calculations(calls).at(-1)!.body).toMatchObject({ optimisation: { by: 'bps', value: 20 } }))
    await user.type(screen.getByLabelText('Scenario name'), 'Plan 20 bps')
    await user.click(screen.getByRole('button', { name: 'Save Scenario' }))
    expect(await screen.findByText('Scenario saved')).toBeInTheDocument()
    const saved = saves.find((c) => c.key === 'POST /api/calculator/scenarios')
    expect(saved?.body).toEqual({ clientId: 'c-1', name: 'Plan 20 bps', optimisation: { by: 'bps', value: 20 }, netInterestMarginPct: 1.3, projectionYears: 10, currency: 'eur' })
    await waitFor(() => expect(within(screen.getByRole('table', { name: 'Scenario comparison' })).getByText('Plan 20 bps')).toBeInTheDocument())
    expect(within(screen.getByRole('table', { name: 'Scenario comparison' })).getByText('701.207.292 €')).toBeInTheDocument()
    expect(screen.getByLabelText('Scenario name')).toHaveValue('')
  })

  it('lets viewers compare but not save or delete, and follows scenarios saved elsewhere', async () => {
    let list = makeScenarioList({ canSave: false })
    const calls = renderCalculator({ role: 'viewer', list: () => list })
    expect(await screen.findByText(/Read-only access/)).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Save Scenario' })).not.toBeInTheDocument()
    const socket = FakeEventSocket.latest()
    act(() => socket.open())
    await waitFor(() => expect(socket.sent.flatMap((m) => m.topics ?? [])).toContain('client:c-1:scenarios'))
    expect(socket.sent.flatMap((m) => m.topics ?? [])).toContain('client:c-1:savings')
    act(() => socket.frame('client:c-1:scenarios', 1, 'subscribed'))
    list = { ...list, scenarios: [makeScenario({ name: 'Saved by a colleague' })] }
    act(() => socket.frame('client:c-1:scenarios', 2, 'scenario.saved', { clientId: 'c-1', id: 's-1' }))
    expect(await screen.findByRole('checkbox', { name: 'Compare Saved by a colleague' })).toBeChecked()
    expect(screen.queryByRole('button', { name: 'Delete Saved by a colleague' })).not.toBeInTheDocument()
    expect(calls.filter((c) => c.key === 'GET /api/calculator/scenarios').length).toBeGreaterThanOrEqual(2)
  })
})
