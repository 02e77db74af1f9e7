import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import type { AdminRun, RunSnapshot } from '../api'
import { applySnapshots, FLUSH_MS } from '../api'
import { useAuthStore } from '@/lib/auth-store'
import { resetRealtime, setRealtimeTransport } from '@/lib/realtime-store'
import { FakeEventSocket } from '@/testing/fake-event-socket'
import { json, makeUser, mockApi } from '@/testing/mock-api'
import { renderRoutes } from '@/testing/render-route'

import { AdminRuns } from './admin-runs'

function snap(overrides: Partial<RunSnapshot> = {}): RunSnapshot {
  return {
    id: 'run-1',
    clientId: 'c-a',
    fileId: 'f-1',
    mode: 'manual',
    state: 'running',
    stage: 'reading',
    rowsRead: 0,
    rowsTotal: 1000,
    rowsDone: 0,
    rowsMatched: 0,
    percent: 2,
    seq: 4294967297,
    attempts: 1,
    error: null,
    createdAt: '2026-11-26T09:00:00Z',
    startedAt: '2026-11-26T09:00:01Z',
    finishedAt: null,
    result: null,
    ...overrides,
  }
}

function row(run: RunSnapshot, fileName: string, clientName = 'Bank A'): AdminRun {
  return { run, clientName, fileName, leverName: 'Public Sector Entities (PSE)' }
}

afterEach(() => resetRealtime())

describe('applySnapshots', () => {
  it('puts newer snapshots into the page, keeps the same page when nothing moved, and names unknown runs', () => {
    const page = { items: [row(snap(), 'a.csv')], total: 1, page: 1, pageSize: 10 }
    const same = applySnapshots(page, new Map([['run-1', snap({ seq: 4294967297 })]]))
    expect(same.page).toBe(page)
    const moved = applySnapshots(page, new Map([['run-1', snap({ seq: 4294967298, stage: 'evaluating', percent: 50 })]]))
    expect(moved.page.items[0]!.run.stage).toBe('evaluating')
    const other = applySnapshots(page, new Map([['run-2', snap({ id: 'run-2' })]]))
    expect(other.unknown).toEqual(['run-2'])
  })
})

describe('AdminRuns', () => {
  it('lists every client\'s runs and follows them live on the admin runs topic', async () => {
    FakeEventSocket.all = []
    setRealtimeTransport(() => new FakeEventSocket(), async () => true)
    useAuthStore.setState({ status: 'authenticated', user: makeUser({ role: 'admin' }) })
    let items = [row(snap(), 'madrid.csv'), row(snap({ id: 'run-2', state: 'failed', stage: 'done', percent: 100, error: 'Broken file', seq: 5 }), 'broken.csv', 'Bank B')]
    const calls = mockApi({
      'GET /api/admin/runs': () => json(200, { items, total: items.length, page: 1, pageSize: 10 }),
      'GET /api/clients': () => json(200, [{ id: 'c-a', name: 'Bank A' }, { id: 'c-b', name: 'Bank B' }]),
      'POST /api/admin/runs/:id/retry': () => json(201, snap({ id: 'run-3', state: 'queued', stage: 'queued', seq: 1 })),
      'POST /api/runs/:id/cancel': () => json(200, snap({ state: 'running' })),
    })
    renderRoutes([{ path: '/admin/processing-runs', element: <AdminRuns /> }], '/admin/processing-runs')
    const table = await screen.findByRole('table', { name: 'Processing runs' })
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(3))
    expect(within(table).getByText('madrid.csv')).toBeInTheDocument()
    expect(within(table).getByText('Broken file')).toBeInTheDocument()
    expect(within(table).getByText('Reading the file')).toBeInTheDocument()

    const socket = FakeEventSocket.latest()
    act(() => socket.open())
    await waitFor(() => expect(socket.sent.flatMap((m) => m.topics ?? [])).toContain('admin:runs'))
    act(() => socket.frame('admin:runs', 0, 'subscribed'))
    await waitFor(() => expect(calls.filter((c) => c.key === 'GET /api/admin/runs').length).toBeGreaterThanOrEqual(2))
    const reads = calls.filter((c) => c.key === 'GET /api/admin/runs').length
    // Interleaved runs' own sequences: applied, no refetch.
    act(() => socket.frame('admin:runs', 4294967298, 'run.progress', snap({ seq: 4294967298, stage: 'evaluating', percent: 50, rowsDone: 500 })))
    act(() => socket.frame('admin:runs', 6, 'run.progress', snap({ id: 'run-2', state: 'failed', stage: 'done', percent: 100, error: 'Broken file', seq: 6 })))
    await waitFor(() => expect(within(table).getByText('Analysing exposures')).toBeInTheDocument(), { timeout: FLUSH_MS * 10 })
    expect(within(table).getByText('50% · 500 of 1000 rows')).toBeInTheDocument()
    expect(calls.filter((c) => c.key === 'GET /api/admin/runs').length).toBe(reads)
    // A run the page does not hold: the page loads again.
    items = [row(snap({ id: 'run-9', seq: 1, state: 'queued', stage: 'queued', startedAt: null }), 'new.csv'), ...items]
    act(() => socket.frame('admin:runs', 1, 'run.progress', items[0]!.run))
    expect(await within(table).findByText('new.csv')).toBeInTheDocument()

    await userEvent.click(within(table).getByRole('button', { name: 'Retry broken.csv' }))
    expect(await screen.findByText('Run queued')).toBeInTheDocument()
    expect(calls.some((c) => c.key === 'POST /api/admin/runs/:id/retry' && c.url.includes('/run-2/'))).toBe(true)
    await userEvent.click(within(table).getByRole('button', { name: 'Cancel madrid.csv' }))
    expect(await screen.findByText('Cancellation requested')).toBeInTheDocument()
  })

  it('shows a completed run\'s savings, with basis points only when they could be computed', async () => {
    useAuthStore.setState({ status: 'authenticated', user: makeUser({ role: 'admin' }) })
    const result = (savingsRwas: number, savingsBps: number) => ({
      leverId: 'l-1', leverName: 'Public Sector Entities (PSE)', savingsRwas, savingsBps, confidence: null,
      rows: 10, matched: 10, notMatched: 0, errors: 0, mappedColumns: 5, classification: null,
      checks: { errorRows: 0, unreadableValues: 0, flaggedRows: 0, totalsReconciled: true },
    })
    const done = { state: 'completed' as const, stage: 'done' as const, percent: 100 }
    const items = [
      row(snap({ ...done, result: result(1234567, 2.5) }), 'computed.csv'),
      row(snap({ ...done, id: 'run-2', result: result(285945103544, 0) }), 'too-large.csv'),
    ]
    mockApi({
      'GET /api/admin/runs': () => json(200, { items, total: items.length, page: 1, pageSize: 10 }),
      'GET /api/clients': () => json(200, [{ id: 'c-a', name: 'Bank A' }]),
    })
    renderRoutes([{ path: '/admin/processing-runs', element: <AdminRuns /> }], '/admin/processing-runs')
    const table = await screen.findByRole('table', { name: 'Processing runs' })
    const withBps = await within(table).findByRole('row', { name: /computed\.csv/ })
    expect(withBps).toHaveTextContent('2,50 bps')
    const withoutBps = within(table).getByRole('row', { name: /too-large\.csv/ })
    expect(withoutBps).toHaveTextContent('285.945.103.544')
    expect(withoutBps).not.toHaveTextContent('bps')
  })

  it('filters by status and client on the server, back to the first page', async () => {
    useAuthStore.setState({ status: 'authenticated', user: makeUser({ role: 'admin' }) })
    const calls = mockApi({
      'GET /api/admin/runs': () => json(200, { items: [], total: 0, page: 1, pageSize: 10 }),
      'GET /api/clients': () => json(200, [{ id: 'c-b', name: 'Bank B' }]),
    })
    renderRoutes([{ path: '/admin/processing-runs', element: <AdminRuns /> }], '/admin/processing-runs')
    expect(await screen.findByText('No processing runs found')).toBeInTheDocument()
    await userEvent.selectOptions(screen.getByLabelText('Status'), 'failed')
    await screen.findByRole('option', { name: 'Bank B' })
    await userEvent.selectOptions(screen.getByLabelText('Client'), 'c-b')
    await waitFor(() =>
      expect(calls.map((c) => c.url)).toContain('/api/admin/runs?page=1&page_size=10&status=failed&client_id=c-b'),
    )
    await userEvent.click(screen.getByRole('button', { name: 'Clear Filters' }))
    expect(screen.getByLabelText('Status')).toHaveValue('')
  })
})
