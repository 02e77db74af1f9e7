import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { act, render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import { resetRealtime, setRealtimeTransport } from '@/lib/realtime-store'
import { FakeEventSocket } from '@/testing/fake-event-socket'
import { json, mockApi } from '@/testing/mock-api'

import { AdminDashboard } from './admin-dashboard'

const metrics = (capital = 230_000_000) => ({
  period: 'all',
  since: '2026-10-31',
  capital: { value: capital, previous: 200_000_000, changePct: ((capital - 200_000_000) / 200_000_000) * 100 },
  bps: { value: 23.456, previous: 20, changePct: 17.28 },
  levers: { value: 4, previous: 4, changePct: 0 },
  clients: { value: 2, previous: 0 },
})

const evolution = {
  view: 'monthly',
  year: 2026,
  years: [2026, 2025, 2024],
  points: [
    { label: 'Oct', cumulative: 200_000_000, change: 100_000_000 },
    { label: 'Nov', cumulative: 230_000_000, change: 30_000_000 },
  ],
  hasData: true,
}

const overview = {
  window: 'last30Days',
  since: '2026-09-30',
  categories: [
    { name: 'Assets', totalValue: 90_000_000, percentage: 69.23 },
    { name: 'CRMT', totalValue: 40_000_000, percentage: 30.77 },
  ],
  levers: [
    { id: 'lever-pse', name: 'Public Sector Entities (PSE)', category: 'Assets', value: 90_000_000 },
    { id: 'lever-corporates', name: 'Corporates with Eligible Collateral', category: 'CRMT', value: 40_000_000 },
  ],
}

const clients = [
  { clientId: 'a', client: 'Bank A', cet1Capital: 6_530_000_000, cet1Ratio: 0.1355, optimizedValue: 180_000_000, bpsValue: 18, levers: 3, memberCount: 4 },
  { clientId: 'b', client: 'Bank B', cet1Capital: 3_045_000_000, cet1Ratio: 0.14, optimizedValue: 50_000_000, bpsValue: 5, levers: 1, memberCount: 2 },
]

function handlers(capital: () => number) {
  return {
    'GET /api/admin/dashboard/metrics': () => json(200, metrics(capital())),
    'GET /api/admin/dashboard/evolution': () => json(200, evolution),
    'GET /api/admin/dashboard/overview': () => json(200, overview),
    'GET /api/admin/dashboard/clients': ({ query }: { query: URLSearchParams }) =>
      json(200, clients.filter((c) => c.client.toLowerCase().includes((query.get('search') ?? '').toLowerCase()))),
    'GET /api/admin/dashboard/clients/:id/levers': ({ params }: { params: Record<string, unknown> }) =>
      json(200, params.id === 'a' ? [{ id: 'lever-pse', name: 'Public Sector Entities (PSE)', category: 'Assets', value: 100_000_000 }] : []),
  }
}

function renderDashboard() {
  FakeEventSocket.all = []
  setRealtimeTransport(() => new FakeEventSocket(), async () => true)
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
  it('shows the four metric cards with their previous period, Spanish formatting', async () => {
    mockApi(handlers(() => 230_000_000))
    renderDashboard()
    expect(screen.getByRole('heading', { name: 'Admin Dashboard' })).toBeInTheDocument()
    const capital = await screen.findByRole('group', { name: 'Total Capital Optimized' })
    expect(await within(capital).findByText('230.000.000 €')).toBeInTheDocument()
    expect(within(capital).getByText('+15,00 % from previous period')).toBeInTheDocument()
    expect(within(capital).getByText('Previous period: 200.000.000 €')).toBeInTheDocument()
    expect(screen.getByText('23,46 bps')).toBeInTheDocument()
    const clientsCard = screen.getByRole('group', { name: 'Total Clients' })
    // Nothing to compare with: no made-up change, no fixed '0% churn rate'.
    expect(within(clientsCard).getByText('No previous period to compare with')).toBeInTheDocument()
    expect(screen.queryByText(/churn/i)).not.toBeInTheDocument()
  })

  it('asks for the chosen period', async () => {
    const calls = mockApi(handlers(() => 230_000_000))
    renderDashboard()
    await screen.findByText('230.000.000 €')
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Period' }), 'This Quarter')
    await waitFor(() => expect(calls.some((c) => c.url.endsWith('/api/admin/dashboard/metrics?period=quarter'))).toBe(true))
  })

  it('moves without a reload when a client\'s savings change', async () => {
    let capital = 230_000_000
    mockApi(handlers(() => capital))
    renderDashboard()
    expect(await screen.findByText('230.000.000 €')).toBeInTheDocument()
    const socket = FakeEventSocket.latest()
    act(() => socket.open())
    await waitFor(() => expect(socket.sent.flatMap((m) => m.topics ?? [])).toContain('admin:dashboard'))
    act(() => socket.frame('admin:dashboard', 1, 'subscribed'))
    capital = 240_000_000
    act(() =>
      socket.frame('admin:dashboard', 2, 'savings.changed', {
        clientId: 'a',
        cet1SavingsRwas: 190_000_000,
        cet1SavingsBps: 19,
        lastUpdated: '2026-11-25T10:00:00Z',
      }),
    )
    expect(await screen.findByText('240.000.000 €')).toBeInTheDocument()
  })

  it("shows 'Error loading dashboard data' with a Retry that reloads", async () => {
    let attempts = 0
    mockApi({
      ...handlers(() => 230_000_000),
      'GET /api/admin/dashboard/metrics': () =>
        ++attempts === 1 ? json(500, { code: 'internal', message: 'Internal server error' }) : json(200, metrics()),
    })
    renderDashboard()
    expect(await screen.findByText('Error loading dashboard data')).toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }))
    expect(await screen.findByText('230.000.000 €')).toBeInTheDocument()
    expect(screen.queryByText('Error loading dashboard data')).not.toBeInTheDocument()
  })

  it('shows the overview charts and the empty text of a view without data', async () => {
    let hasData = true
    mockApi({
      ...handlers(() => 230_000_000),
      'GET /api/admin/dashboard/evolution': ({ query }: { query: URLSearchParams }) =>
        json(200, { ...evolution, view: query.get('view'), hasData, points: hasData ? evolution.points : [] }),
    })
    renderDashboard()
    expect(await screen.findByRole('heading', { name: 'Capital Optimization Overview' })).toBeInTheDocument()
    expect(await screen.findByText('Capital Optimization Evolution')).toBeInTheDocument()
    expect(await screen.findByText('Optimization by Category')).toBeInTheDocument()
    const categories = await screen.findByRole('list', { name: 'Categories' })
    expect(within(categories).getByText('Assets')).toBeInTheDocument()
    expect(within(categories).getByText('69,23 %')).toBeInTheDocument()
    expect(screen.getByText('Optimization Levers by Value')).toBeInTheDocument()
    hasData = false
    await userEvent.click(screen.getByRole('button', { name: 'Weekly' }))
    expect(await screen.findByText('No weekly data available for 2026')).toBeInTheDocument()
  })

  it('searches clients and opens one client\'s lever breakdown', async () => {
    mockApi(handlers(() => 230_000_000))
    renderDashboard()
    await userEvent.click(screen.getByRole('tab', { name: 'Client Performance' }))
    expect(await screen.findByText('Bank B')).toBeInTheDocument()
    await userEvent.type(screen.getByRole('textbox', { name: 'Search clients' }), 'bank a')
    await waitFor(() => expect(screen.queryByText('Bank B')).not.toBeInTheDocument())
    expect(screen.getByText('13,55 %')).toBeInTheDocument()
    await userEvent.click(screen.getByText('Bank A'))
    const breakdown = await screen.findByRole('region', { name: 'Optimization Levers Breakdown' })
    expect(await within(breakdown).findByText('100.000.000 €')).toBeInTheDocument()
    await userEvent.clear(screen.getByRole('textbox', { name: 'Search clients' }))
    await userEvent.click(await screen.findByText('Bank B'))
    expect(await screen.findByText('No optimization levers found for this client')).toBeInTheDocument()
  })
})
