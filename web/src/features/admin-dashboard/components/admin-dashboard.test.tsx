import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { act, render, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import { resetRealtime, setRealtimeTransport } from '@/lib/realtime-store'
import { FakeEventSocket } from '@/testing/fake-event-socket'
import { json, mockApi } from '@/testing/mock-api'

import { AdminDashboard } from './admin-dashboard'

const metrics = {
  total_value: 335000000,
  previous_total: 301500000,
  change_percentage: 11.111,
  total_bps: 13.5912,
  total_levers: 6,
  total_clients: 2,
  total_projects: 1,
}

function renderDashboard() {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <AdminDashboard />
    </QueryClientProvider>,
  )
}

afterEach(() => {
  vi.unstubAllGlobals()
  resetRealtime()
})

describe('AdminDashboard', () => {
  it('moves without a reload when a client\'s savings change', async () => {
    FakeEventSocket.all = []
    setRealtimeTransport(() => new FakeEventSocket(), async () => true)
    let current = metrics
    const calls = mockApi({ 'GET /api/admin/dashboard/metrics': () => json(200, current) })
    renderDashboard()
    expect(await screen.findByText('335.000.000 €')).toBeInTheDocument()
    const socket = FakeEventSocket.latest()
    act(() => socket.open())
    await waitFor(() => expect(socket.sent.flatMap((m) => m.topics ?? [])).toContain('admin:dashboard'))
    act(() => socket.frame('admin:dashboard', 1, 'subscribed'))
    current = { ...metrics, total_value: 340000000 }
    act(() =>
      socket.frame('admin:dashboard', 2, 'savings.changed', {
        clientId: 'c-1',
        cet1SavingsRwas: 5000000,
        cet1SavingsBps: 1,
        lastUpdated: '2026-11-25T10:00:00Z',
      }),
    )
    expect(await screen.findByText('340.000.000 €')).toBeInTheDocument()
    expect(calls.filter((c) => c.key === 'GET /api/admin/dashboard/metrics').length).toBeGreaterThanOrEqual(2)
  })

  it('shows the four metric cards with Spanish formatting', async () => {
    mockApi({ 'GET /api/admin/dashboard/metrics': () => json(200, metrics) })
    renderDashboard()
    expect(screen.getByRole('heading', { name: 'Admin Dashboard' })).toBeInTheDocument()
    expect(await screen.findByText('335.000.000 €')).toBeInTheDocument()
    expect(screen.getByText('+11,11 % from previous period')).toBeInTheDocument()
    expect(screen.getByText('13,59 bps')).toBeInTheDocument()
    expect(screen.getByText('6')).toBeInTheDocument()
    expect(screen.getByText('Across 1 project')).toBeInTheDocument()
    expect(screen.getByText('2')).toBeInTheDocument()
    // The API has no churn figure, so the card shows none (no made-up '0% churn rate').
    expect(screen.queryByText(/churn/i)).not.toBeInTheDocument()
  })

  it("shows 'Error loading dashboard data' with a Retry that reloads", async () => {
    let attempts = 0
    mockApi({
      'GET /api/admin/dashboard/metrics': () =>
        ++attempts === 1 ? json(500, { code: 'internal', message: 'Internal server error' }) : json(200, metrics),
    })
    renderDashboard()
    expect(await screen.findByText('Error loading dashboard data')).toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }))
    expect(await screen.findByText('335.000.000 €')).toBeInTheDocument()
    expect(screen.queryByText('Error loading dashboard data')).not.toBeInTheDocument()
  })
})
