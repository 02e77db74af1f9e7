import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import { useAuthStore } from '@/lib/auth-store'
import { queryClient } from '@/lib/query-client'
import { resetRealtime, setRealtimeTransport } from '@/lib/realtime-store'
import { FakeEventSocket } from '@/testing/fake-event-socket'
import { json, makeUser, mockApi } from '@/testing/mock-api'
import { renderRoutes } from '@/testing/render-route'

import type { ClientDashboard as Dashboard } from '../api'
import { ClientDashboard } from './client-dashboard'

const dashboard = (total = 180_000_000): Dashboard => ({
  clientId: 'c-1',
  clientName: 'Bank A',
  totalRwas: total,
  totalBps: 18.456,
  lastUpdated: '2026-11-25T10:00:00.000000Z',
  previousMonthRwas: 150_000_000,
  changePct: ((total - 150_000_000) / 150_000_000) * 100,
  history: [
    { year: 2026, month: 10, label: 'Oct 2026', totalRwas: 150_000_000, totalBps: 15, growthPct: 50 },
    { year: 2026, month: 11, label: 'Nov 2026', totalRwas: total, totalBps: 18.456, growthPct: 20 },
  ],
  levers: [
    { id: 'pse', name: 'Public Sector Entities (PSE)', category: 'Assets', description: '', value: 100_000_000, previousValue: 90_000_000, changePct: 11.111, impact: 'high' },
    { id: 'corp', name: 'Corporates with Eligible Collateral', category: 'CRMT', description: '', value: 20_000_000, previousValue: 0, impact: 'medium' },
    { id: 'mdb', name: 'Multilateral Development Banks (MDB)', category: 'Assets', description: '', value: 0, previousValue: 0, impact: 'low' },
  ],
})

beforeEach(() => queryClient.clear())
afterEach(() => resetRealtime())

function renderDashboard(user = makeUser()) {
  FakeEventSocket.all = []
  setRealtimeTransport(() => new FakeEventSocket(), async () => true)
  useAuthStore.setState({ status: 'authenticated', user })
  renderRoutes([{ path: '/client/dashboard', element: <ClientDashboard /> }], '/client/dashboard')
}

describe('ClientDashboard', () => {
  it('shows the totals, the change since last month and the levers with their impact', async () => {
    mockApi({ 'GET /api/dashboard': () => json(200, dashboard()) })
    renderDashboard()
    expect(screen.getByRole('heading', { name: 'Capital Optimization Dashboard' })).toBeInTheDocument()
    expect(screen.getByText('Welcome Ana García')).toBeInTheDocument()
    const total = await screen.findByRole('group', { name: 'Total RWA Savings' })
    expect(await within(total).findByText('180.000.000 €')).toBeInTheDocument()
    expect(within(screen.getByRole('group', { name: 'CET1 Savings' })).getByText('18,46 bps')).toBeInTheDocument()
    expect(within(screen.getByRole('group', { name: 'Change from Previous Month' })).getByText('+20,00 %')).toBeInTheDocument()
    expect(within(screen.getByRole('group', { name: 'Levers in Use' })).getByText('2')).toBeInTheDocument()
    await userEvent.click(screen.getByRole('tab', { name: 'Details' }))
    const table = screen.getByRole('table', { name: 'Optimization levers' })
    expect(within(table).getByText('+11,11 %')).toBeInTheDocument()
    expect(within(table).getByText('New')).toBeInTheDocument()
    expect(within(table).getByText('High impact')).toBeInTheDocument()
    expect(within(table).getByText('Medium impact')).toBeInTheDocument()
    expect(within(table).getByText('Low impact')).toBeInTheDocument()
  })

  it('moves live when the savings change', async () => {
    let total = 180_000_000
    mockApi({ 'GET /api/dashboard': () => json(200, dashboard(total)) })
    renderDashboard()
    expect(await screen.findByText('180.000.000 €')).toBeInTheDocument()
    const socket = FakeEventSocket.latest()
    act(() => socket.open())
    await waitFor(() => expect(socket.sent.flatMap((m) => m.topics ?? [])).toContain('client:c-1:savings'))
    act(() => socket.frame('client:c-1:savings', 1, 'subscribed'))
    total = 190_000_000
    act(() =>
      socket.frame('client:c-1:savings', 2, 'savings.changed', {
        clientId: 'c-1',
        cet1SavingsRwas: total,
        cet1SavingsBps: 19,
        lastUpdated: '2026-11-25T11:00:00Z',
      }),
    )
    expect(await screen.findByText('190.000.000 €')).toBeInTheDocument()
  })

  it("says 'No Client' when the user has no client", () => {
    mockApi({})
    renderDashboard(makeUser({ client: null }))
    expect(screen.getByTestId('client-name')).toHaveTextContent('No Client')
    expect(screen.getByText('Your account is not linked to a client, so there are no savings to show.')).toBeInTheDocument()
  })

  it('opens the Export dialog with the XLSX and CSV formats', async () => {
    mockApi({ 'GET /api/dashboard': () => json(200, dashboard()) })
    renderDashboard()
    await screen.findByText('180.000.000 €')
    await userEvent.click(screen.getByRole('button', { name: 'Export' }))
    const dialog = await screen.findByRole('dialog', { name: 'Export Dashboard' })
    expect(within(dialog).getByRole('radio', { name: 'Excel (XLSX)' })).toBeChecked()
    expect(within(dialog).getByRole('radio', { name: 'CSV' })).not.toBeChecked()
  })
})
