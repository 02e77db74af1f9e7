import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import type { UniversalSuggestion, UniversalSuggestions } from '../api'
import { statsOf } from '../api'
import { useAuthStore } from '@/lib/auth-store'
import { resetRealtime, setRealtimeTransport } from '@/lib/realtime-store'
import { FakeEventSocket } from '@/testing/fake-event-socket'
import { json, makeUser, mockApi } from '@/testing/mock-api'
import { renderRoutes } from '@/testing/render-route'

import { UniversalMappings } from './universal-mappings'

function suggestion(source: string, target: string, overrides: Partial<UniversalSuggestion> = {}): UniversalSuggestion {
  return {
    id: `s-${source}`,
    sourceColumnName: source,
    targetColumnName: target,
    confidenceScore: 0.8,
    usageCount: 1,
    enabled: true,
    createdAt: '2026-11-26T09:00:00Z',
    ...overrides,
  }
}

afterEach(() => resetRealtime())

function setup() {
  FakeEventSocket.all = []
  setRealtimeTransport(() => new FakeEventSocket(), async () => true)
  useAuthStore.setState({ status: 'authenticated', user: makeUser({ role: 'admin' }) })
  const state: UniversalSuggestions = {
    globalLearning: true,
    items: [suggestion('tax id', 'NIF', { confidenceScore: 0.95, usageCount: 7 }), suggestion('importe', 'Exposure_Amount', { usageCount: 3, enabled: false })],
    stats: { total: 0, enabled: 0, highConfidence: 0, totalUsage: 0 },
  }
  const current = () => ({ ...state, stats: statsOf(state.items) })
  const calls = mockApi({
    'GET /api/admin/universal-suggestions': () => json(200, current()),
    'POST /api/admin/universal-suggestions': ({ body }) => {
      const b = body as { sourceColumnName: string; targetColumnName: string }
      const s = suggestion(b.sourceColumnName.trim().toLowerCase(), b.targetColumnName)
      state.items = [...state.items, s]
      return json(201, s)
    },
    'PATCH /api/admin/universal-suggestions/:id': ({ params, body }) => {
      state.items = state.items.map((s) => (s.id === params.id ? { ...s, enabled: (body as { enabled: boolean }).enabled } : s))
      return json(200, state.items.find((s) => s.id === params.id))
    },
    'DELETE /api/admin/universal-suggestions/:id': ({ params }) => {
      state.items = state.items.filter((s) => s.id !== params.id)
      return new Response(null, { status: 204 })
    },
    'PUT /api/admin/universal-suggestions/learning': ({ body }) => {
      state.globalLearning = (body as { enabled: boolean }).enabled
      return json(200, { enabled: state.globalLearning })
    },
  })
  renderRoutes([{ path: '/admin/universal-mappings', element: <UniversalMappings /> }], '/admin/universal-mappings')
  return { calls, state }
}

const stat = (title: string) => screen.getByLabelText(title)

describe('UniversalMappings', () => {
  it("follows another administrator's changes live", async () => {
    const { calls, state } = setup()
    await waitFor(() => expect(stat('Total Suggestions')).toHaveTextContent('2'))
    const socket = FakeEventSocket.latest()
    act(() => socket.open())
    await waitFor(() => expect(socket.sent.flatMap((m) => m.topics ?? [])).toContain('admin:mappings'))
    act(() => socket.frame('admin:mappings', 0, 'subscribed'))
    const reads = () => calls.filter((c) => c.key === 'GET /api/admin/universal-suggestions').length
    await waitFor(() => expect(reads()).toBeGreaterThanOrEqual(1))
    state.items = [...state.items, suggestion('cif', 'NIF')]
    act(() => socket.frame('admin:mappings', 1, 'suggestions.changed'))
    await waitFor(() => expect(stat('Total Suggestions')).toHaveTextContent('3'))
    expect(within(screen.getByRole('table', { name: 'Universal column suggestions' })).getAllByTestId('suggestion-row')).toHaveLength(3)
  })

  it('shows the figures and the suggestions, and switches them and global learning', async () => {
    const { calls, state } = setup()
    await waitFor(() => expect(stat('Total Suggestions')).toHaveTextContent('2'))
    expect(stat('Enabled')).toHaveTextContent('1')
    expect(stat('High Confidence')).toHaveTextContent('1')
    expect(stat('Total Usage')).toHaveTextContent('10')
    const table = screen.getByRole('table', { name: 'Universal column suggestions' })
    expect(within(table).getAllByTestId('suggestion-row')).toHaveLength(2)

    await userEvent.click(screen.getByRole('switch', { name: 'Enable importe → Exposure_Amount' }))
    expect(await screen.findByText('Suggestion enabled')).toBeInTheDocument()
    await waitFor(() => expect(stat('Enabled')).toHaveTextContent('2'))

    const learning = screen.getByRole('switch', { name: 'Global Learning' })
    expect(learning).toHaveAttribute('aria-checked', 'true')
    await userEvent.click(learning)
    expect(await screen.findByText('Global learning disabled')).toBeInTheDocument()
    expect(state.globalLearning).toBe(false)
    expect(calls.find((c) => c.key === 'PUT /api/admin/universal-suggestions/learning')!.body).toEqual({ enabled: false })
    await waitFor(() => expect(screen.getByRole('switch', { name: 'Global Learning' })).toHaveAttribute('aria-checked', 'false'))

    await userEvent.click(screen.getByRole('button', { name: 'Delete tax id → NIF' }))
    expect(await screen.findByText('Suggestion deleted')).toBeInTheDocument()
    await waitFor(() => expect(stat('Total Suggestions')).toHaveTextContent('1'))
  })

  it('adds a suggestion only with both names', async () => {
    const { calls } = setup()
    await waitFor(() => expect(stat('Total Suggestions')).toHaveTextContent('2'))
    await userEvent.type(screen.getByLabelText('Source Column Name'), 'Fecha vencimiento')
    await userEvent.click(screen.getByRole('button', { name: 'Add Suggestion' }))
    expect(await screen.findByText('Please enter both source and target column names')).toBeInTheDocument()
    expect(calls.some((c) => c.key === 'POST /api/admin/universal-suggestions')).toBe(false)
    await userEvent.type(screen.getByLabelText('Target Column Name'), 'Maturity')
    await userEvent.click(screen.getByRole('button', { name: 'Add Suggestion' }))
    expect(await screen.findByText('Suggestion added')).toBeInTheDocument()
    expect(calls.find((c) => c.key === 'POST /api/admin/universal-suggestions')!.body).toEqual({
      sourceColumnName: 'Fecha vencimiento',
      targetColumnName: 'Maturity',
    })
    await waitFor(() => expect(stat('Total Suggestions')).toHaveTextContent('3'))
    expect(screen.getByLabelText('Source Column Name')).toHaveValue('')
  })
})
