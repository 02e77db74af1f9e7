import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import type { AdminFile } from '@/api/types/AdminFile'
import type { Lever } from '@/api/types/Lever'
import { useAuthStore } from '@/lib/auth-store'
import { queryClient } from '@/lib/query-client'
import { resetRealtime, setRealtimeTransport } from '@/lib/realtime-store'
import { FakeEventSocket } from '@/testing/fake-event-socket'
import { makeRun } from '@/testing/files-api'
import { json, makeUser, mockApi, type MockRequest } from '@/testing/mock-api'
import { renderRoutes } from '@/testing/render-route'

import { FileManagement } from './file-management'

const PSE: Lever = { id: 'lev-pse', code: 'pse', name: 'Public Sector Entities (PSE)', category: 'Assets' }
const MDB: Lever = { id: 'lev-mdb', code: 'mdb', name: 'Multilateral Development Banks (MDB)', category: 'Assets' }
const CORP: Lever = { id: 'lev-corp', code: 'corporates', name: 'Corporates with Eligible Collateral', category: 'CRMT' }

function makeAdminFile(overrides: Partial<AdminFile> = {}): AdminFile {
  return {
    id: 'f-1',
    clientId: 'c-1',
    clientName: 'Bank A',
    name: 'madrid_pse.csv',
    fileType: 'csv',
    sizeBytes: 2048,
    uploadedAt: '2025-01-05T10:00:00Z',
    uploadedBy: 'u-1',
    leverId: PSE.id,
    leverName: PSE.name,
    leverCategory: PSE.category,
    processed: true,
    status: 'processed',
    processingError: null,
    hasProcessed: true,
    savingsRwas: 1234567,
    savingsBps: 2.5,
    latestRun: null,
    ...overrides,
  }
}

const unassigned = makeAdminFile({
  id: 'f-2',
  clientId: 'c-2',
  clientName: 'Bank B',
  name: 'unassigned.xlsx',
  leverId: null,
  leverName: null,
  leverCategory: null,
  processed: false,
  status: 'uploaded',
  hasProcessed: false,
  savingsRwas: 0,
  savingsBps: 0,
})

type State = { files: AdminFile[]; deleteAnswer?: (ids: string[]) => unknown }

function handlers(state: State) {
  return {
    'GET /api/levers': () => json(200, [CORP, MDB, PSE]),
    'GET /api/clients': () => json(200, [{ id: 'c-1', name: 'Bank A' }, { id: 'c-2', name: 'Bank B' }]),
    'GET /api/admin/files': ({ query }: MockRequest) => {
      const size = Number(query.get('page_size') ?? 10)
      const page = Number(query.get('page') ?? 1)
      const q = query.get('q')?.toLowerCase()
      const items = state.files.filter((f) => !q || f.name.toLowerCase().includes(q))
      return json(200, { items: items.slice((page - 1) * size, page * size), total: items.length, page, pageSize: size })
    },
    'GET /api/admin/files/:id': ({ params }: MockRequest) => json(200, state.files.find((f) => f.id === params.id)),
    'GET /api/admin/files/:id/history': () => json(200, []),
    'POST /api/admin/files/delete': ({ body }: MockRequest) => {
      const ids = (body as { fileIds: string[] }).fileIds
      return json(200, state.deleteAnswer ? state.deleteAnswer(ids) : { succeeded: ids.length, failed: 0, results: [] })
    },
  }
}

function renderScreen(state: State, extra: Record<string, (req: MockRequest) => Response> = {}) {
  FakeEventSocket.all = []
  setRealtimeTransport(() => new FakeEventSocket(), async () => true)
  useAuthStore.setState({ status: 'authenticated', user: makeUser({ role: 'admin' }) })
  const calls = mockApi({ ...handlers(state), ...extra })
  renderRoutes([{ path: '/admin/file-management', element: <FileManagement /> }], '/admin/file-management')
  return calls
}

const table = () => screen.getByRole('table', { name: 'Files' })
const bodyRows = () => within(table()).getAllByRole('row').slice(1)
/** Waits for the page's rows (not the loading row). */
const rowsLoaded = (n: number) =>
  waitFor(() => {
    expect(screen.queryByText('Loading files…')).not.toBeInTheDocument()
    expect(bodyRows()).toHaveLength(n)
  })
const listUrls = (calls: { key: string; url: string }[]) => calls.filter((c) => c.key === 'GET /api/admin/files').map((c) => c.url)

beforeEach(() => queryClient.clear())
afterEach(() => resetRealtime())

describe('FileManagement', () => {
  it('shows every client’s files with the spec’s columns, levers and savings', async () => {
    renderScreen({ files: [makeAdminFile(), unassigned] })
    expect(screen.getByRole('heading', { name: 'File Management' })).toBeInTheDocument()
    await rowsLoaded(2)
    const [first, second] = bodyRows()
    expect(within(first!).getByText('madrid_pse.csv')).toBeInTheDocument()
    expect(within(first!).getByText('Bank A')).toBeInTheDocument()
    expect(within(first!).getByText('Jan 5, 2025')).toBeInTheDocument()
    expect(within(first!).getByText('Public Sector Entities (PSE)')).toBeInTheDocument()
    expect(within(first!).getByText('Assets')).toBeInTheDocument()
    expect(within(first!).getByText('1.234.567 €')).toBeInTheDocument()
    expect(within(first!).getByText('2,50 bps')).toBeInTheDocument()
    expect(within(first!).getByText('Processed')).toBeInTheDocument()
    expect(within(second!).getByText('To Be Determined')).toBeInTheDocument()
    expect(within(second!).getAllByText('-')).toHaveLength(2)
    expect(within(second!).getByText('Pending')).toBeInTheDocument()
  })

  it('filters on the server: the lever waits for a category, a new category resets it, Clear Filters resets all', async () => {
    const calls = renderScreen({ files: [makeAdminFile()] })
    await rowsLoaded(1)
    const lever = screen.getByLabelText('Lever')
    expect(lever).toBeDisabled()
    expect(screen.queryByRole('button', { name: /Clear Filters/ })).not.toBeInTheDocument()
    const user = userEvent.setup()
    await waitFor(() => expect(within(screen.getByLabelText('Lever Category')).getByRole('option', { name: 'CRMT' })).toBeInTheDocument())
    await user.selectOptions(screen.getByLabelText('Lever Category'), 'Assets')
    expect(lever).toBeEnabled()
    expect(within(lever).getAllByRole('option').map((o) => o.textContent)).toEqual(['All Levers', MDB.name, PSE.name])
    await user.selectOptions(lever, PSE.id)
    await waitFor(() => expect(listUrls(calls).at(-1)).toContain(`lever=${PSE.id}`))
    expect(listUrls(calls).at(-1)).toContain('category=Assets')
    await user.selectOptions(screen.getByLabelText('Lever Category'), 'CRMT')
    expect(lever).toHaveValue('')
    await waitFor(() => expect(listUrls(calls).at(-1)).not.toContain('lever='))
    await user.selectOptions(screen.getByLabelText('Status'), 'unprocessed')
    await user.type(screen.getByLabelText('Start Date'), '2025-01-05')
    await waitFor(() => expect(listUrls(calls).at(-1)).toContain('status=unprocessed'))
    expect(listUrls(calls).at(-1)).toContain('from=2025-01-05')
    await user.click(screen.getByRole('button', { name: /Clear Filters/ }))
    await waitFor(() => expect(listUrls(calls).at(-1)).toBe('/api/admin/files?sort=uploaded_at&dir=desc&page=1&page_size=10'))
  })

  it('pages with 10 rows by default and returns to the first page when a filter or the page size changes', async () => {
    const many = Array.from({ length: 23 }, (_, i) => makeAdminFile({ id: `f-${i}`, name: `file-${i}.csv` }))
    const calls = renderScreen({ files: many })
    await rowsLoaded(10)
    const user = userEvent.setup()
    await user.click(screen.getByRole('button', { name: 'Next page' }))
    await waitFor(() => expect(listUrls(calls).at(-1)).toContain('page=2'))
    await user.type(screen.getByPlaceholderText('Search files...'), 'file-1')
    await waitFor(() => expect(listUrls(calls).at(-1)).toContain('q=file-1'), { timeout: 3000 })
    expect(listUrls(calls).at(-1)).toContain('page=1')
    await user.clear(screen.getByPlaceholderText('Search files...'))
    await waitFor(() => expect(listUrls(calls).at(-1)).not.toContain('q='), { timeout: 3000 })
    await user.click(screen.getByRole('button', { name: 'Next page' }))
    await waitFor(() => expect(listUrls(calls).at(-1)).toContain('page=2'))
    await user.selectOptions(screen.getByLabelText('Rows per page'), '5')
    await waitFor(() => expect(listUrls(calls).at(-1)).toContain('page_size=5'))
    expect(listUrls(calls).at(-1)).toContain('page=1')
  })

  it('says so when nothing matches', async () => {
    renderScreen({ files: [] })
    expect(await screen.findByText('No files found matching your criteria')).toBeInTheDocument()
  })

  it('selects the page, shows the partial toast and clears only when something was deleted', async () => {
    const files = [makeAdminFile(), unassigned]
    let answer = (ids: string[]) => ({
      succeeded: 1,
      failed: 1,
      results: [
        { fileId: ids[0], success: true, error: null, runId: null },
        { fileId: ids[1], success: false, error: 'File not found', runId: null },
      ],
    })
    renderScreen({ files, deleteAnswer: (ids) => answer(ids) })
    await rowsLoaded(2)
    const user = userEvent.setup()
    expect(screen.getByRole('button', { name: /Delete Files/ })).toBeDisabled()
    expect(screen.getByRole('button', { name: /Assign Lever/ })).toBeDisabled()
    await user.click(screen.getByRole('checkbox', { name: 'Select row f-1' }))
    const all = screen.getByRole('checkbox', { name: 'Select all rows on this page' })
    expect(all).toHaveAttribute('aria-checked', 'mixed')
    expect(screen.getByRole('button', { name: 'Clear Selection (1)' })).toBeEnabled()
    await user.click(all)
    expect(screen.getByRole('button', { name: 'Clear Selection (2)' })).toBeInTheDocument()

    // None deleted: the toast names the first error; the dialog and the selection stay.
    answer = (ids) => ({ succeeded: 0, failed: 2, results: ids.map((id) => ({ fileId: id, success: false, error: 'File not found', runId: null })) })
    await user.click(screen.getByRole('button', { name: /Delete Files/ }))
    const dialog = await screen.findByRole('dialog')
    expect(dialog).toHaveTextContent('You are about to permanently delete 2 file(s). This action cannot be undone.')
    await user.click(within(dialog).getByRole('button', { name: 'Delete Files' }))
    expect(await screen.findByText('Deletion failed')).toBeInTheDocument()
    expect(screen.getByText('Failed to delete 2 files: File not found')).toBeInTheDocument()
    expect(screen.getByRole('dialog')).toBeInTheDocument()
    // (The page behind the open dialog is hidden from the accessibility tree.)
    expect(screen.getByRole('button', { name: 'Clear Selection (2)', hidden: true })).toBeInTheDocument()

    // One of two: the partial toast, the selection cleared and the dialog closed.
    answer = (ids) => ({
      succeeded: 1,
      failed: 1,
      results: [
        { fileId: ids[0], success: true, error: null, runId: null },
        { fileId: ids[1], success: false, error: 'File not found', runId: null },
      ],
    })
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete Files' }))
    expect(await screen.findByText('Partial deletion completed')).toBeInTheDocument()
    expect(screen.getByText('1 deleted successfully, 1 failed')).toBeInTheDocument()
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    expect(screen.getByRole('button', { name: 'Clear Selection (0)' })).toBeDisabled()
  })

  it('shows a run’s stage and percent as it moves, per run, without a reload', async () => {
    const running = makeAdminFile({
      processed: false,
      status: 'processing',
      latestRun: makeRun({ id: 'run-9', fileId: 'f-1', clientId: 'c-1', state: 'running', stage: 'reading', percent: 2, seq: 4294967297 }),
    })
    renderScreen({ files: [running, unassigned] })
    await rowsLoaded(2)
    expect(within(bodyRows()[0]!).getByTestId('run-state')).toHaveTextContent('Reading · 2%')
    const socket = FakeEventSocket.latest()
    act(() => socket.open())
    await waitFor(() => expect(socket.sent.flatMap((m) => m.topics ?? [])).toEqual(expect.arrayContaining(['admin:files', 'client:c-1:run:run-9'])))
    act(() => socket.frame('admin:files', 7, 'subscribed'))
    act(() => socket.frame('client:c-1:run:run-9', 4294967297, 'subscribed'))
    // Each subscription reads the list again; the events apply over what it read.
    await waitFor(() => expect(queryClient.isFetching()).toBe(0))
    act(() =>
      socket.frame(
        'client:c-1:run:run-9',
        4294967298,
        'run.progress',
        makeRun({ id: 'run-9', fileId: 'f-1', clientId: 'c-1', state: 'running', stage: 'evaluating', percent: 40.4, seq: 4294967298 }),
      ),
    )
    await waitFor(() => expect(within(bodyRows()[0]!).getByTestId('run-state')).toHaveTextContent('Analysing · 40%'))
  })

  it('opens the details on a row click with its three tabs, the savings saves and the download toasts', async () => {
    const file = makeAdminFile({ processed: false, status: 'uploaded', hasProcessed: false })
    let historyAnswer: () => Response = () => json(200, [])
    const calls = renderScreen(
      { files: [file] },
      {
        'GET /api/admin/files/:id/history': () => historyAnswer(),
        'PATCH /api/admin/files/:id': ({ body }) => json(200, { ...file, savingsRwas: (body as { savingsRwas: number }).savingsRwas }),
        'HEAD /api/files/:id/original': () => json(404, { code: 'not_found', message: 'Original file is not available' }),
      },
    )
    await rowsLoaded(1)
    const user = userEvent.setup()
    // The checkbox selects without opening.
    await user.click(screen.getByRole('checkbox', { name: 'Select row f-1' }))
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument()
    await user.click(within(bodyRows()[0]!).getByText('madrid_pse.csv'))
    const dialog = await screen.findByRole('dialog')
    expect(within(dialog).getByRole('heading', { name: 'madrid_pse.csv' })).toBeInTheDocument()
    expect(dialog).toHaveTextContent('Bank A · Uploaded Jan 5, 2025')
    expect(within(dialog).getByText('2.00 KB')).toBeInTheDocument()
    expect(within(dialog).getByText('Changes to savings will be immediately reflected in client dashboards and reports.')).toBeInTheDocument()
    // Unprocessed with a valid lever: it can be processed.
    expect(within(dialog).getByRole('button', { name: 'Process File with New Lever' })).toBeInTheDocument()
    const save = within(dialog).getByRole('button', { name: 'Save Savings (RWAs)' })
    expect(save).toBeDisabled()
    const input = within(dialog).getByLabelText('Savings (RWAs)')
    await user.clear(input)
    await user.type(input, '1500.25')
    expect(save).toBeEnabled()
    expect(within(dialog).getByRole('button', { name: 'Save Savings (BPS)' })).toBeDisabled()
    await user.click(save)
    await waitFor(() => expect(calls.find((c) => c.key === 'PATCH /api/admin/files/:id')?.body).toMatchObject({ savingsRwas: 1500.25 }))

    // History: skeleton rows while loading, then the empty message.
    let release: (r: Response) => void = () => {}
    historyAnswer = () => new Promise<Response>((resolve) => (release = resolve)) as unknown as Response
    await user.click(within(dialog).getByRole('tab', { name: 'Edit History' }))
    expect(await within(dialog).findAllByTestId('history-skeleton')).toHaveLength(3)
    act(() => release(json(200, [])))
    expect(await within(dialog).findByText('No edit history found for this file')).toBeInTheDocument()

    // Actions: the processed download only when processed; a missing original says so.
    await user.click(within(dialog).getByRole('tab', { name: 'Actions' }))
    expect(within(dialog).queryByRole('button', { name: /Download Processed File/ })).not.toBeInTheDocument()
    await user.click(within(dialog).getByRole('button', { name: /Download Original File/ }))
    expect(await screen.findByText('Download Error')).toBeInTheDocument()
    expect(screen.getByText('Original file is not available')).toBeInTheDocument()
  })

  it('shows the history rows with names, Not set and Unknown User', async () => {
    renderScreen(
      { files: [makeAdminFile()] },
      {
        'GET /api/admin/files/:id/history': () =>
          json(200, [
            { id: 'h-2', editedAt: '2025-01-05T15:04:00Z', editedBy: null, editorName: null, editorAvatar: null, field: 'savings_rwas', oldValue: '0', newValue: '1500.25' },
            { id: 'h-1', editedAt: '2025-01-05T15:00:00Z', editedBy: 'u-1', editorName: 'Ana García', editorAvatar: null, field: 'lever', oldValue: null, newValue: PSE.name },
          ]),
      },
    )
    await rowsLoaded(1)
    const user = userEvent.setup()
    await user.click(within(bodyRows()[0]!).getByText('madrid_pse.csv'))
    const dialog = await screen.findByRole('dialog')
    await user.click(within(dialog).getByRole('tab', { name: 'Edit History' }))
    const history = await within(dialog).findByRole('table', { name: 'Edit history' })
    await waitFor(() => expect(within(history).getAllByRole('row')).toHaveLength(3))
    const [, newest, oldest] = within(history).getAllByRole('row')
    expect(newest).toHaveTextContent('Unknown User')
    expect(newest).toHaveTextContent('Savings Rwas')
    expect(oldest).toHaveTextContent('Ana García')
    expect(oldest).toHaveTextContent('AG')
    expect(oldest).toHaveTextContent('Not set')
    expect(oldest).toHaveTextContent(PSE.name)
  })
})
