import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import { useAuthStore } from '@/lib/auth-store'
import { resetRealtime, setRealtimeTransport } from '@/lib/realtime-store'
import { FakeEventSocket } from '@/testing/fake-event-socket'
import { makeInspection, makeRun, PSE_COLUMNS, PSE_LEVER } from '@/testing/files-api'
import { json, makeUser, mockApi } from '@/testing/mock-api'
import { renderRoutes } from '@/testing/render-route'

import type { TrainingItem, TrainingPage, TrainingReview } from '../api'
import { ClassificationTraining } from './classification-training'

const CORPORATES = { id: 'lev-corp', code: 'corporates', name: 'Corporates with Eligible Collateral', category: 'CRMT' }

function item(overrides: Partial<TrainingItem> = {}): TrainingItem {
  return {
    id: '0f5c2a9e-1234-4bcd-9def-000000000001',
    fileId: 'f-1',
    fileName: 'madrid.csv',
    clientId: 'c-1',
    clientName: 'Bank A',
    predictedLever: 'pse',
    predictedLeverId: PSE_LEVER.id,
    predictedLeverName: PSE_LEVER.name,
    confidence: 0.45,
    classificationReason: 'pse (45% confidence): 3 of 3 NIFs found in the PSE list',
    runState: 'pending_review',
    error: null,
    status: 'requires_review',
    reviewedAt: null,
    reviewedBy: null,
    reviewedLeverId: null,
    reviewedLeverName: null,
    corrected: false,
    feedback: null,
    confidenceDelta: null,
    followUpRunId: null,
    createdAt: '2026-11-25T09:00:00.000000Z',
    ...overrides,
  }
}

function page(items: TrainingItem[], overrides: Partial<TrainingPage> = {}): TrainingPage {
  return { items, total: items.length, page: 1, pageSize: 10, counts: { pending: items.length, reviewed: 0, all: items.length }, learning: null, ...overrides }
}

function review(overrides: Partial<TrainingReview> = {}): TrainingReview {
  return {
    item: item(),
    analysis: {
      lever: 'pse',
      leverName: PSE_LEVER.name,
      confidence: 0.45,
      reason: 'pse (45% confidence): 3 of 3 NIFs found in the PSE list',
      columns: [
        { name: 'nif', dataType: 'text', role: 'nif', recognisedBy: 'header', standardColumn: 'NIF', confidence: 1 },
        { name: 'importe', dataType: 'numeric', role: null, recognisedBy: null, standardColumn: 'Exposure_Amount', confidence: 0.8 },
      ],
      evidence: [{ kind: 'reference', lever: 'pse', weight: 2.5, description: '3 of 3 NIFs found in the PSE list' }],
      identifierHits: [{ list: 'PSE', lever: 'pse', found: 3, of: 3 }],
      competitors: [{ lever: 'rgla', score: 0.3 }],
      learning: null,
    },
    suggestions: [
      { lever: 'pse', leverId: PSE_LEVER.id, leverName: PSE_LEVER.name, confidence: 0.45, reasons: ['3 of 3 NIFs found in the PSE list'] },
      { lever: 'corporates', leverId: CORPORATES.id, leverName: CORPORATES.name, confidence: 0.85, reasons: ['company NIFs'] },
    ],
    inspection: makeInspection(),
    inspectionError: null,
    mapping: null,
    followUp: null,
    ...overrides,
  }
}

afterEach(() => resetRealtime())

function renderScreen() {
  return renderRoutes(
    [
      {
        path: '/admin/classification-training',
        element: <ClassificationTraining />,
      },
    ],
    '/admin/classification-training',
  )
}

describe('ClassificationTraining', () => {
  beforeEach(() => {
    useAuthStore.setState({ status: 'authenticated', user: makeUser({ role: 'admin' }) })
    FakeEventSocket.all = []
    setRealtimeTransport(() => new FakeEventSocket(), async () => true)
  })

  it('lists the pending classifications with their counts, 8-character ids and confidence badges; the empty states', async () => {
    const low = item({ id: 'aaaaaaaa-1', confidence: 0.3, fileName: 'low.csv' })
    const mid = item({ id: 'bbbbbbbb-2', confidence: 0.55, fileName: 'mid.csv' })
    const high = item({ id: 'cccccccc-3', confidence: 0.92, fileName: 'high.csv', runState: 'completed' })
    const calls = mockApi({
      'GET /api/admin/classification-reviews': ({ query }) =>
        json(
          200,
          query.get('tab') === 'reviewed'
            ? page([], { counts: { pending: 3, reviewed: 0, all: 3 } })
            : page([high, mid, low], { counts: { pending: 3, reviewed: 0, all: 3 } }),
        ),
    })
    renderScreen()
    const table = await screen.findByRole('table', { name: 'Pending Review (3)' })
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(4))
    expect(screen.getByRole('tab', { name: 'Recently Reviewed (0)' })).toBeInTheDocument()
    expect(screen.getByRole('tab', { name: 'All (3)' })).toBeInTheDocument()
    expect(within(table).getByText('aaaaaaaa')).toBeInTheDocument()
    const badge = (file: string) => within(within(table).getByText(file).closest('tr')!).getByText(/%$/)
    expect(badge('high.csv')).toHaveAttribute('data-tone', 'default')
    expect(badge('mid.csv')).toHaveAttribute('data-tone', 'secondary')
    expect(badge('low.csv')).toHaveAttribute('data-tone', 'destructive')
    expect(badge('high.csv')).toHaveTextContent('92.0%')
    expect(screen.getByText('Showing 1 to 3 of 3 items')).toBeInTheDocument()
    expect(calls[0]!.url).toBe('/api/admin/classification-reviews?tab=pending&page=1&page_size=10')

    await userEvent.click(screen.getByRole('tab', { name: 'Recently Reviewed (0)' }))
    expect(await screen.findByText('No completed reviews yet')).toBeInTheDocument()
  })

  it('reviews a classification: the evidence, suggestions and learning note; approving with a correction follows the processing to its result', async () => {
    const pending = item()
    let decided: TrainingItem | null = null
    const queued = makeRun({ id: 'run-follow', clientId: 'c-1', fileId: 'f-1', mode: 'manual', state: 'queued', seq: 1 })
    const calls = mockApi({
      'GET /api/admin/classification-reviews': () => json(200, decided ? page([], { counts: { pending: 0, reviewed: 1, all: 1 } }) : page([pending])),
      'GET /api/admin/classification-reviews/:id': () => json(200, review(decided ? { item: decided } : {})),
      'GET /api/levers': () => json(200, [PSE_LEVER, CORPORATES]),
      'GET /api/levers/:id/columns': () => json(200, PSE_COLUMNS),
      'GET /api/mapping-templates': () => json(200, []),
      'POST /api/admin/classification-reviews/:id/approve': ({ body }) => {
        decided = item({ status: 'approved', corrected: true, reviewedLeverId: CORPORATES.id, reviewedLeverName: CORPORATES.name, feedback: (body as { feedback: string }).feedback || 'No specific feedback provided by admin', followUpRunId: 'run-follow' })
        return json(200, { item: decided, run: queued, template: null })
      },
      'GET /api/runs/:id': () => json(200, queued),
    })
    renderScreen()
    const table = await screen.findByRole('table', { name: 'Pending Review (1)' })
    await userEvent.click(await within(table).findByRole('button', { name: 'Review madrid.csv' }))
    expect(screen.getByRole('tab', { name: 'madrid.csv' })).toHaveAttribute('data-state', 'active')
    expect(screen.getByTestId('active-reviews')).toHaveTextContent('1 active review')

    const analysis = await screen.findByRole('region', { name: 'Classification Analysis' })
    expect(within(analysis).getByTestId('classification-reason')).toHaveTextContent('3 of 3 NIFs found in the PSE list')
    expect(within(analysis).getByText('PSE list: 3 of 3 found (Public Sector Entities)')).toBeInTheDocument()
    const detected = within(analysis).getByRole('table', { name: 'Detected columns' })
    expect(within(detected).getByRole('row', { name: /importe numeric — Exposure_Amount 80.0%/ })).toBeInTheDocument()

    const suggestions = screen.getByRole('region', { name: 'Smart Suggestions' })
    expect(within(suggestions).getByText(CORPORATES.name).closest('li')).toHaveAttribute('data-tone', 'green')
    expect(within(suggestions).getByText(PSE_LEVER.name).closest('li')).toHaveAttribute('data-tone', 'yellow')
    expect(within(suggestions).getByTestId('learning-opportunity')).toHaveTextContent('Learning opportunity')

    // The shared mapper over the stored file's columns, opened with the automatic mapping.
    const mapping = screen.getByRole('region', { name: 'Column Mapping' })
    await waitFor(() => expect(within(mapping).getByTestId('target-NIF')).toBeInTheDocument())
    expect(within(within(mapping).getByTestId('target-NIF')).getByRole('combobox')).toHaveValue('nif')
    await userEvent.selectOptions(within(within(mapping).getByTestId('target-Maturity')).getByRole('combobox'), 'plazo')
    expect(within(mapping).getByTestId('mapping-summary')).toHaveTextContent('3 of 5 standard columns mapped')

    // Correct the lever from a suggestion and approve without feedback.
    await userEvent.click(within(suggestions).getByRole('button', { name: `Use ${CORPORATES.name}` }))
    expect(within(mapping).getByLabelText('Lever')).toHaveValue(CORPORATES.id)
    await userEvent.click(screen.getByRole('button', { name: 'Approve' }))
    expect(await screen.findByText('Review Complete')).toBeInTheDocument()
    expect(screen.getByText('Classification approved successfully')).toBeInTheDocument()
    const approve = calls.find((c) => c.key === 'POST /api/admin/classification-reviews/:id/approve')!
    expect(approve.body).toEqual({ leverId: CORPORATES.id, feedback: '', mapping: { NIF: 'nif', Exposure_Amount: 'importe', Maturity: 'plazo' } })

    // The processing run, live on its topic, to the 'Processing Complete' card.
    const socket = FakeEventSocket.latest()
    act(() => socket.open())
    await waitFor(() => expect(socket.sent.flatMap((m) => m.topics ?? [])).toContain('client:c-1:run:run-follow'))
    act(() => socket.frame('client:c-1:run:run-follow', 0, 'subscribed'))
    act(() =>
      socket.frame(
        'client:c-1:run:run-follow',
        1,
        'run.progress',
        makeRun({
          id: 'run-follow',
          clientId: 'c-1',
          mode: 'manual',
          state: 'completed',
          stage: 'done',
          percent: 100,
          seq: 2,
          result: {
            leverId: CORPORATES.id,
            leverName: CORPORATES.name,
            savingsRwas: 12_345_678,
            savingsBps: 3.21,
            confidence: null,
            rows: 3,
            matched: 3,
            notMatched: 0,
            errors: 0,
            mappedColumns: 3,
            classification: null,
            checks: { errorRows: 0, unreadableValues: 0, flaggedRows: 0, totalsReconciled: true },
          },
        }),
      ),
    )
    const done = await screen.findByRole('region', { name: 'Processing Complete' })
    expect(within(done).getByTestId('review-savings-millions')).toHaveTextContent('12,3 M€ RWAs')
    expect(within(done).getByTestId('review-savings-bps')).toHaveTextContent('3,21 bps')
    expect(within(done).getByText(CORPORATES.name)).toBeInTheDocument()
    expect(await screen.findByText('File Processed')).toBeInTheDocument()
    expect(screen.getByText(`File "madrid.csv" has been processed with ${CORPORATES.name} lever`)).toBeInTheDocument()

    await userEvent.click(within(done).getByRole('button', { name: 'Close' }))
    expect(screen.queryByRole('tab', { name: 'madrid.csv' })).not.toBeInTheDocument()
  })

  it('rejects with the feedback and closes the tab', async () => {
    const calls = mockApi({
      'GET /api/admin/classification-reviews': () => json(200, page([item()])),
      'GET /api/admin/classification-reviews/:id': () => new Promise((resolve) => setTimeout(() => resolve(json(200, review({ analysis: null, suggestions: [] }))), 300)),
      'GET /api/levers': () => json(200, [PSE_LEVER, CORPORATES]),
      'GET /api/levers/:id/columns': () => json(200, PSE_COLUMNS),
      'GET /api/mapping-templates': () => json(200, []),
      'POST /api/admin/classification-reviews/:id/reject': () => json(200, { item: item({ status: 'rejected' }), run: null, template: null }),
    })
    renderScreen()
    await userEvent.click(await screen.findByRole('button', { name: 'Review madrid.csv' }))
    expect(await screen.findByText('Analyzing classification with enhanced AI...')).toBeInTheDocument()
    await userEvent.type(await screen.findByLabelText('Feedback (required for learning)'), 'Not a PSE file')
    await userEvent.click(screen.getByRole('button', { name: 'Reject' }))
    expect(await screen.findByText('Classification rejected successfully')).toBeInTheDocument()
    expect(calls.find((c) => c.key === 'POST /api/admin/classification-reviews/:id/reject')!.body).toEqual({ feedback: 'Not a PSE file', leverId: PSE_LEVER.id })
    await waitFor(() => expect(screen.queryByRole('tab', { name: 'madrid.csv' })).not.toBeInTheDocument())
  })

  it("says 'Failed to fetch classifications' when the list cannot load", async () => {
    mockApi({ 'GET /api/admin/classification-reviews': () => json(500, { code: 'internal', message: 'An unexpected error occurred. Please try again.' }) })
    renderScreen()
    expect(await screen.findByText('Error')).toBeInTheDocument()
    expect(screen.getAllByText('Failed to fetch classifications').length).toBeGreaterThan(0)
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument()
  })
})
