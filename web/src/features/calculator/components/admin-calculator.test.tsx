import { fireEvent, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import { useAuthStore } from '@/lib/auth-store'
import { queryClient } from '@/lib/query-client'
import { resetRealtime, setRealtimeTransport } from '@/lib/realtime-store'
import { FakeEventSocket } from '@/testing/fake-event-socket'
import { json, makeUser, mockApi } from '@/testing/mock-api'
import { renderRoutes } from '@/testing/render-route'

import { makeCalculation, makeCalculatorClient, makeScenario, makeScenarioList } from '../utils/fixtures'
import { AdminCalculator } from './admin-calculator'

// Input values keep Intl's no-break space between a number and its sign.
const nbsp = (s: string) => s.replace(/ /g, '\u00a0')

function renderAdmin(path = '/admin/calculator') {
  FakeEventSocket.all = []
  setRealtimeTransport(() => new FakeEventSocket(), async () => true)
  useAuthStore.setState({ status: 'authenticated', user: makeUser({ role: 'admin', email: 'admin@example.com' }) })
  const calls = mockApi({
    'GET /api/clients': () => json(200, [{ id: 'c-1', name: 'Bank A' }, { id: 'c-2', name: 'Bank B' }]),
    'GET /api/calculator': ({ query }) =>
      json(
        200,
        query.get('client_id') === 'c-2'
          ? makeCalculatorClient({ clientId: 'c-2', clientName: 'Bank B', cet1Capital: 3_045_000_000, totalRwas: 21_750_000_000 })
          : makeCalculatorClient(),
      ),
    'POST /api/admin/calculator': ({ body }) => {
      const b = body as { cet1Capital: number; totalRwas: number; currency: 'eur' | 'usd' | 'gbp' }
      return json(200, makeCalculation({ cet1Capital: b.cet1Capital, totalRwas: b.totalRwas, currency: b.currency, cet1RatioPct: (b.cet1Capital / b.totalRwas) * 100 }))
    },
    'GET /api/calculator/scenarios': () => json(200, makeScenarioList()),
  })
  renderRoutes([{ path: '/admin/calculator', element: <AdminCalculator /> }], path)
  return calls
}

const requests = (calls: { key: string; body: unknown }[]) => calls.filter((c) => c.key === 'POST /api/admin/calculator').map((c) => c.body as Record<string, unknown>)

beforeEach(() => queryClient.clear())
afterEach(() => resetRealtime())

describe('AdminCalculator', () => {
  it("starts from the chosen client's official figures in Spanish notation and computes on the server", async () => {
    const calls = renderAdmin()
    const capital = await screen.findByLabelText('CET1 Capital')
    await waitFor(() => expect(capital).toHaveValue('6.530.000.000'))
    expect(screen.getByLabelText('Total RWAs')).toHaveValue('48.200.000.000')
    await waitFor(() => expect(requests(calls).at(-1)).toEqual({ cet1Capital: 6_530_000_000, totalRwas: 48_200_000_000, optimisation: { by: 'percent_of_rwas', value: 1 }, netInterestMarginPct: 1.3, projectionYears: 10, currency: 'eur' }))
    // Read-only: the ratio and the conversion factor, from the server's answer.
    await waitFor(() => expect(screen.getByLabelText('CET1 Ratio')).toHaveValue(nbsp('13,55 %')))
    expect(screen.getByLabelText('CET1 Ratio')).toHaveAttribute('readonly')
    expect(screen.getByLabelText('Conversion Factor (RWAs = 1 bps)')).toHaveValue(nbsp('35.577.948 €'))
    expect(screen.getByLabelText('Conversion Factor (RWAs = 1 bps)')).toHaveAttribute('readonly')
  })

  it('edits the figures in Spanish notation, ignoring what is not a number, and picks the currency', async () => {
    const user = userEvent.setup()
    const calls = renderAdmin()
    const capital = await screen.findByLabelText('CET1 Capital')
    await waitFor(() => expect(capital).toHaveValue('6.530.000.000'))
    await user.clear(capital)
    await user.type(capital, '13.000abc.000.000,5')
    expect(capital).toHaveValue('13.000.000.000,5')
    const rwas = screen.getByLabelText('Total RWAs')
    await user.clear(rwas)
    await user.type(rwas, '100000000000')
    await user.tab()
    // Written back in Spanish notation when the field is left.
    expect(rwas).toHaveValue('100.000.000.000')
    await user.selectOptions(screen.getByLabelText('Currency'), 'Pound')
    await waitFor(() => expect(requests(calls).at(-1)).toMatchObject({ cet1Capital: 13_000_000_000.5, totalRwas: 100_000_000_000, currency: 'gbp' }))
    await waitFor(() => expect(screen.getByLabelText('Conversion Factor (RWAs = 1 bps)')).toHaveValue(nbsp('35.577.948 £')))
    expect(screen.getByRole('option', { name: 'Euro' })).toBeInTheDocument()
    expect(screen.getByRole('option', { name: 'Dollar' })).toBeInTheDocument()
  })

  it('asks nothing without both figures', async () => {
    const user = userEvent.setup()
    const calls = renderAdmin()
    const capital = await screen.findByLabelText('CET1 Capital')
    await waitFor(() => expect(requests(calls).length).toBeGreaterThan(0))
    const before = requests(calls).length
    await user.clear(capital)
    expect(await screen.findByText('Enter the CET1 capital and the total RWAs to calculate.')).toBeInTheDocument()
    await new Promise((r) => setTimeout(r, 400))
    expect(requests(calls).length).toBe(before)
  })

  it("loads another client's figures when the switcher changes and saves scenarios with the typed figures", async () => {
    const user = userEvent.setup()
    const calls = renderAdmin()
    await waitFor(() => expect(screen.getByLabelText('CET1 Capital')).toHaveValue('6.530.000.000'))
    await user.selectOptions(await screen.findByRole('combobox', { name: 'Client' }), 'Bank B')
    await waitFor(() => expect(screen.getByLabelText('CET1 Capital')).toHaveValue('3.045.000.000'))
    expect(screen.getByLabelText('Total RWAs')).toHaveValue('21.750.000.000')
    await waitFor(() => expect(requests(calls).at(-1)).toMatchObject({ cet1Capital: 3_045_000_000, totalRwas: 21_750_000_000 }))
    const saves = mockApi({ 'POST /api/calculator/scenarios': () => json(201, makeScenario({ clientId: 'c-2', name: 'Bank B plan' })) })
    fireEvent.click(screen.getByRole('button', { name: '50 bps' }))
    await waitFor(() => expect(requests(calls).at(-1)).toMatchObject({ optimisation: { by: 'bps', value: 50 } }))
    await user.type(screen.getByLabelText('Scenario name'), 'Bank B plan')
    await user.click(screen.getByRole('button', { name: 'Save Scenario' }))
    await waitFor(() => expect(saves).toHaveLength(1))
    expect(saves[0]!.body).toEqual({
      clientId: 'c-2',
      name: 'Bank B plan',
      cet1Capital: 3_045_000_000,
      totalRwas: 21_750_000_000,
      optimisation: { by: 'bps', value: 50 },
      netInterestMarginPct: 1.3,
      projectionYears: 10,
      currency: 'eur',
    })
  })
})
