import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import type { Validation } from '@/api/types/Validation'
import type { ValidationDetail } from '@/api/types/ValidationDetail'
import { useAuthStore } from '@/lib/auth-store'
import { queryClient } from '@/lib/query-client'
import { resetRealtime, setRealtimeTransport } from '@/lib/realtime-store'
import { FakeEventSocket } from '@/testing/fake-event-socket'
import { json, makeUser, mockApi, type MockRequest } from '@/testing/mock-api'
import { renderRoutes } from '@/testing/render-route'

import { AlertsDashboard } from './alerts-dashboard'

function makeValidation(overrides: Partial<Validation> = {}): Validation {
  return {
    id: 'v-1',
    clientId: 'c-1',
    fileId: 'f-1',
    runId: 'r-1',
    status: 'pending',
    fileName: 'madrid_pse.csv',
    fileType: 'csv',
    uploadedAt: '2025-01-05T10:00:00Z',
    leverId: 'lev-pse',
    leverName: 'Public Sector Entities',
    leverCategory: 'Assets',
    savingsRwas: 1_234_567,
    savingsBps: 2.57,
    createdAt: '2025-01-05T10:05:00Z',
    updatedAt: '2025-01-05T10:05:00Z',
    validatedAt: null,
    validatedBy: null,
    validatedByName: null,
    rejectionReason: null,
    supersededBy: null,
    ...overrides,
  }
}

type State = { items: Validation[]; canApprove: boolean; failNext: { status: number; code: string; message: string } | null; listError: boolean }

function handlers(state: State) {
  const pendingCount = () => state.items.filter((v) => v.status === 'pending').length
  const decide = (status: Validation['status']) => ({ params, body }: MockRequest) => {
    if (state.failNext) {
      const f = state.failNext
      state.failNext = null
      return json(f.status, { code: f.code, message: f.message })
    }
    const v = state.items.find((i) => i.id === params.id)!
    Object.assign(v, { status, validatedAt: '2025-01-06T09:00:00Z', validatedByName: 'Pablo Approver', rejectionReason: (body as { reason?: string } | undefined)?.reason ?? null })
    return json(200, v)
  }
  return {
    'GET /api/validations': ({ query }: MockRequest) => {
      if (state.listError) return json(500, { code: 'internal', message: 'The server could not answer.' })
      const tab = query.get('tab')
      const items = state.items.filter((v) => (tab === 'history' ? v.status !== 'pending' : v.status === 'pending'))
      return json(200, { items, total: items.length, page: 1, pageSize: 10, pendingValidations: pendingCount(), canApprove: state.canApprove })
    },
    'GET /api/validations/summary': () => json(200, { clientId: 'c-1', pendingValidations: pendingCount(), canApprove: state.canApprove }),
    'GET /api/validations/:id': ({ params }: MockRequest) => {
      const v = state.items.find((i) => i.id === params.id)!
      const detail: ValidationDetail = {
        validation: v,
        processing: { mode: 'manual', confidence: null, rows: 4, matched: 3, notMatched: 1, errors: 0, finishedAt: v.createdAt },
        analysis: '4 rows were analysed under Public Sector Entities: 3 matched the reference data (75.0 %).',
        canApprove: state.canApprove,
      }
      return json(200, detail)
    },
    'POST /api/validations/:id/approve': decide('approved'),
    'POST /api/validations/:id/reject': decide('rejected'),
    'POST /api/validations/:id/status': (req: MockRequest) => decide((req.body as { status: Validation['status'] }).status)(req),
  }
}

function render(state: State, role: 'user' | 'approver' = 'approver') {
  FakeEventSocket.all = []
  setRealtimeTransport(() => new FakeEventSocket(), async () => true)
  useAuthStore.setState({ status: 'authenticated', user: makeUser({ role }) })
  const calls = mockApi(handlers(state))
  renderRoutes([{ path: '/client/files', element: <AlertsDashboard clientId="c-1" /> }], '/client/files')
  return calls
}

const rows = () => screen.queryAllByTestId('validation-row')

beforeEach(() => queryClient.clear())
afterEach(() => resetRealtime())

describe('AlertsDashboard', () => {
  it('shows the banner, the pending count and the list; an approval moves the item at once', async () => {
    const state: State = { items: [makeValidation(), makeValidation({ id: 'v-2', fileId: 'f-2', fileName: 'mdb.csv' })], canApprove: true, failNext: null, listError: false }
    render(state)
    await waitFor(() => expect(rows()).toHaveLength(2))
    expect(screen.getByText('Attention Required')).toBeInTheDocument()
    expect(screen.getByText('2 files pending validation.')).toBeInTheDocument()
    expect(screen.queryByText('Approval permissions required')).not.toBeInTheDocument()
    expect(screen.getByRole('tab', { name: 'Pending Validations (2)' })).toBeInTheDocument()
    expect(screen.getByRole('tab', { name: 'Validation History' })).toBeInTheDocument()

    await userEvent.click(within(rows()[0]!).getByRole('button', { name: 'Approve madrid_pse.csv' }))
    await waitFor(() => expect(rows()).toHaveLength(1))
    expect(await screen.findByText('Validation approved')).toBeInTheDocument()
    await waitFor(() => expect(screen.getByRole('tab', { name: 'Pending Validations (1)' })).toBeInTheDocument())

    // The history tab shows the decision.
    await userEvent.click(screen.getByRole('tab', { name: 'Validation History' }))
    await waitFor(() => expect(rows()).toHaveLength(1))
    expect(within(rows()[0]!).getByText('Approved')).toBeInTheDocument()
  })

  it('rolls back and says why when another approver decided first', async () => {
    const state: State = { items: [makeValidation()], canApprove: true, failNext: null, listError: false }
    render(state)
    await waitFor(() => expect(rows()).toHaveLength(1))
    state.failNext = { status: 409, code: 'validation_not_pending', message: 'Cannot approve/reject validation that is not pending (current status: approved)' }
    await userEvent.click(screen.getByRole('button', { name: 'Approve madrid_pse.csv' }))
    expect(await screen.findByText('Error approving validation')).toBeInTheDocument()
    expect(screen.getByText('Cannot approve/reject validation that is not pending (current status: approved)')).toBeInTheDocument()
    // Back as it was (the list is read again to show the true state).
    await waitFor(() => expect(rows()).toHaveLength(1))
  })

  it('needs a reason to reject, and the error clears on typing', async () => {
    const state: State = { items: [makeValidation()], canApprove: true, failNext: null, listError: false }
    const calls = render(state)
    await waitFor(() => expect(rows()).toHaveLength(1))
    await userEvent.click(screen.getByRole('button', { name: 'Reject madrid_pse.csv' }))
    const dialog = await screen.findByRole('dialog', { name: 'Rejection Reason' })
    await userEvent.click(within(dialog).getByRole('button', { name: 'Reject' }))
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Please provide a reason for rejection')
    await userEvent.type(within(dialog).getByLabelText('Reason'), '  Wrong lever ')
    expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument()
    await userEvent.click(within(dialog).getByRole('button', { name: 'Reject' }))
    await waitFor(() => expect(rows()).toHaveLength(0))
    expect(await screen.findByText('Validation rejected')).toBeInTheDocument()
    const reject = calls.find((c) => c.key === 'POST /api/validations/:id/reject')!
    expect(reject.body).toEqual({ reason: 'Wrong lever' })
    expect(screen.getByText('No validations found')).toBeInTheDocument()
    expect(screen.getByText('There are no files waiting for validation at this time.')).toBeInTheDocument()
  })

  it('shows a non-approver the items with disabled buttons and the permissions hint', async () => {
    const state: State = { items: [makeValidation()], canApprove: false, failNext: null, listError: false }
    const calls = render(state, 'user')
    await waitFor(() => expect(rows()).toHaveLength(1))
    expect(screen.getByText('Approval permissions required')).toBeInTheDocument()
    expect(within(rows()[0]!).getByRole('button', { name: 'Approve madrid_pse.csv' })).toBeDisabled()
    expect(within(rows()[0]!).getByRole('button', { name: 'Reject madrid_pse.csv' })).toBeDisabled()
    await userEvent.hover(within(rows()[0]!).getAllByLabelText('You need approver permissions')[0]!)
    expect((await screen.findAllByText('You need approver permissions')).length).toBeGreaterThan(0)

    // The details dialog: the analysis from the run, and the same disabled decisions.
    await userEvent.click(screen.getByRole('button', { name: 'View details of madrid_pse.csv' }))
    const dialog = await screen.findByRole('dialog', { name: 'Validation Details' })
    expect(await within(dialog).findByText(/4 rows were analysed under Public Sector Entities/)).toBeInTheDocument()
    expect(within(dialog).getByRole('button', { name: 'Approve' })).toBeDisabled()
    expect(within(dialog).queryByText('Change Validation Status')).not.toBeInTheDocument()
    expect(calls.some((c) => c.key.startsWith('POST'))).toBe(false)
  })

  it('changes a decided validation back to pending from its details, naming the status seen', async () => {
    const state: State = { items: [makeValidation({ status: 'approved', validatedAt: '2025-01-06T09:00:00Z', validatedByName: 'Pablo Approver' })], canApprove: true, failNext: null, listError: false }
    const calls = render(state)
    await userEvent.click(await screen.findByRole('tab', { name: 'Validation History' }))
    await waitFor(() => expect(rows()).toHaveLength(1))
    await userEvent.click(screen.getByRole('button', { name: 'View details of madrid_pse.csv' }))
    const dialog = await screen.findByRole('dialog', { name: 'Validation Details' })
    expect(await within(dialog).findByText(/by Pablo Approver/)).toBeInTheDocument()
    expect(within(dialog).getByRole('button', { name: 'Approve' })).toBeDisabled()
    await userEvent.selectOptions(within(dialog).getByLabelText('New Status'), 'pending')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Apply Change' }))
    expect(await screen.findByText('Validation status changed')).toBeInTheDocument()
    const change = calls.find((c) => c.key === 'POST /api/validations/:id/status')!
    expect(change.body).toEqual({ status: 'pending', expectedStatus: 'approved' })
    // The dialog closes a second after the change; the pending count is back to 1.
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Validation Details' })).not.toBeInTheDocument(), { timeout: 3000 })
    await waitFor(() => expect(screen.getByRole('tab', { name: 'Pending Validations (1)' })).toBeInTheDocument())
  })

  it('follows decisions made elsewhere live, and offers Retry when the list fails', async () => {
    const state: State = { items: [makeValidation()], canApprove: true, failNext: null, listError: false }
    render(state)
    await waitFor(() => expect(rows()).toHaveLength(1))
    const socket = FakeEventSocket.latest()
    act(() => socket.open())
    await waitFor(() => expect(socket.sent.flatMap((m) => m.topics ?? [])).toContain('client:c-1:validations'))
    act(() => socket.frame('client:c-1:validations', 3, 'subscribed'))
    // Another approver approved it.
    state.items[0]!.status = 'approved'
    act(() => socket.frame('client:c-1:validations', 4, 'validation.updated', { clientId: 'c-1', validationId: 'v-1', fileId: 'f-1', status: 'approved', pendingValidations: 0 }))
    await waitFor(() => expect(rows()).toHaveLength(0))
    expect(screen.queryByText('Attention Required')).not.toBeInTheDocument()
    expect(screen.getByRole('tab', { name: 'Pending Validations (0)' })).toBeInTheDocument()

    state.listError = true
    await userEvent.click(screen.getByRole('tab', { name: 'Validation History' }))
    expect(await screen.findByText('Error loading validations')).toBeInTheDocument()
    state.listError = false
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }))
    await waitFor(() => expect(rows()).toHaveLength(1))
  })
})
