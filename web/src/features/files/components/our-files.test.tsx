import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import { useAuthStore } from '@/lib/auth-store'
import { queryClient } from '@/lib/query-client'
import { resetRealtime, setRealtimeTransport } from '@/lib/realtime-store'
import { FakeEventSocket } from '@/testing/fake-event-socket'
import { filesHandlers, filesState, makeFile, makeRun, MDB_LEVER, type FilesState } from '@/testing/files-api'
import { json, makeUser, mockApi } from '@/testing/mock-api'
import { renderRoutes } from '@/testing/render-route'

import { OurFiles } from './our-files'

function renderFiles(state: FilesState, role: 'user' | 'viewer' = 'user') {
  FakeEventSocket.all = []
  setRealtimeTransport(() => new FakeEventSocket(), async () => true)
  useAuthStore.setState({ status: 'authenticated', user: makeUser({ role }) })
  const calls = mockApi(filesHandlers(state))
  renderRoutes([{ path: '/client/files', element: <OurFiles /> }], '/client/files')
  return calls
}

const table = () => screen.getByRole('table', { name: 'Files' })
const bodyRows = () => within(table()).getAllByRole('row').slice(1)
const listUrls = (calls: { key: string; url: string }[]) => calls.filter((c) => c.key === 'GET /api/files').map((c) => c.url)

const files = () => [
  makeFile({ id: 'f-1', name: 'madrid_pse.csv', uploadedAt: '2025-01-05T10:00:00Z' }),
  makeFile({
    id: 'f-2',
    name: 'unassigned.xlsx',
    fileType: 'xlsx',
    leverId: null,
    leverName: null,
    leverCategory: null,
    processed: false,
    status: 'uploaded',
    hasProcessed: false,
    savingsRwas: 0,
    savingsBps: 0,
    uploadedAt: '2025-02-10T10:00:00Z',
  }),
  makeFile({
    id: 'f-3',
    name: 'mdb.csv',
    leverId: MDB_LEVER.id,
    leverName: MDB_LEVER.name,
    processed: false,
    status: 'processing',
    hasProcessed: false,
    savingsRwas: 0,
    savingsBps: 0,
    latestRun: makeRun({ state: 'running', percent: 61.2 }),
  }),
]

beforeEach(() => queryClient.clear())
afterEach(() => resetRealtime())

describe('OurFiles', () => {
  it('lists the files as File 1, File 2 ... with levers, dates, savings, status and actions', async () => {
    renderFiles(filesState({ files: files() }))
    expect(screen.getByRole('heading', { name: 'Our Files', level: 1 })).toBeInTheDocument()
    await waitFor(() => expect(bodyRows()).toHaveLength(3))
    const [first, second, third] = bodyRows().map((r) => within(r).getAllByRole('cell').map((c) => c.textContent?.replace(/\u00a0/g, ' ')))
    expect(first!.slice(0, 6)).toEqual(['File 1', 'Public Sector Entities', 'Jan 5, 2025', '1.234.567 €', '2,57 bps', 'Processed'])
    expect(second!.slice(0, 6)).toEqual(['File 2', 'To be determined', 'Feb 10, 2025', '0 €', '0,00 bps', 'Pending Lever'])
    expect(third![5]).toBe('Processing 61%')

    // The real name is in File 1's tooltip; 'To be determined' explains itself.
    await userEvent.hover(within(bodyRows()[0]!).getByText('File 1'))
    expect((await screen.findAllByText('madrid_pse.csv')).length).toBeGreaterThan(0)
    await userEvent.hover(within(bodyRows()[1]!).getByText('To be determined'))
    expect((await screen.findAllByText('This file is pending lever assignment by an administrator')).length).toBeGreaterThan(0)

    // Downloads: the original always, the optimized file only when there is one.
    expect(within(bodyRows()[0]!).getByRole('link', { name: 'Download original of File 1' })).toHaveAttribute('href', '/api/files/f-1/original')
    expect(within(bodyRows()[0]!).getByRole('link', { name: 'Download optimized File 1' })).toHaveAttribute('href', '/api/files/f-1/processed')
    expect(within(bodyRows()[1]!).queryByRole('link', { name: /Download optimized/ })).not.toBeInTheDocument()

    // One file waits for a lever.
    expect(screen.getByText('1 file(s) pending')).toBeInTheDocument()
  })

  it('passes the filters to the server as query parameters, the name search debounced, and Clear All resets them', async () => {
    const calls = renderFiles(filesState({ files: files() }))
    await waitFor(() => expect(bodyRows()).toHaveLength(3))
    const panel = screen.getByRole('region', { name: 'Advanced Search & Filters' })
    await userEvent.selectOptions(within(panel).getByLabelText('Lever'), 'none')
    await waitFor(() => expect(bodyRows()).toHaveLength(1))
    await userEvent.selectOptions(within(panel).getByLabelText('File Type'), 'xlsx')
    await userEvent.selectOptions(within(panel).getByLabelText('Processing Status'), 'false')
    await userEvent.type(within(panel).getByLabelText('Date From'), '2025-02-01')
    await userEvent.type(within(panel).getByLabelText('Date To'), '2025-02-28')
    await userEvent.type(within(panel).getByLabelText('Search by file name'), 'unass')
    await waitFor(() =>
      expect(listUrls(calls).at(-1)).toBe('/api/files?client_id=c-1&q=unass&lever=none&type=xlsx&processed=false&from=2025-02-01&to=2025-02-28'),
    )
    // The search was sent once, after typing stopped.
    expect(listUrls(calls).filter((u) => u.includes('q='))).toHaveLength(1)
    expect(within(table()).getByText('File 1')).toBeInTheDocument()

    await userEvent.clear(within(panel).getByLabelText('Search by file name'))
    await userEvent.type(within(panel).getByLabelText('Search by file name'), 'nothing-like-this')
    await waitFor(() => expect(within(table()).getByText('No files found')).toBeInTheDocument())

    await userEvent.click(within(panel).getByRole('button', { name: 'Clear All' }))
    await waitFor(() => expect(bodyRows()).toHaveLength(3))
    expect(listUrls(calls).at(-1)).toBe('/api/files?client_id=c-1')
  })

  it('deletes a file after confirmation', async () => {
    const state = filesState({ files: files() })
    const calls = renderFiles(state)
    await waitFor(() => expect(bodyRows()).toHaveLength(3))
    await userEvent.click(within(bodyRows()[1]!).getByRole('button', { name: 'Delete File 2' }))
    const dialog = screen.getByRole('dialog', { name: 'Delete file?' })
    expect(dialog).toHaveTextContent('unassigned.xlsx will be deleted')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete' }))
    expect(await screen.findByText('File Deleted')).toBeInTheDocument()
    expect(calls.find((c) => c.key === 'DELETE /api/files/:id')!.url).toBe('/api/files/f-2')
    await waitFor(() => expect(bodyRows()).toHaveLength(2))
  })

  it('a viewer sees no delete', async () => {
    renderFiles(filesState({ files: files() }), 'viewer')
    await waitFor(() => expect(bodyRows()).toHaveLength(3))
    expect(screen.queryByRole('button', { name: /^Delete/ })).not.toBeInTheDocument()
    expect(within(bodyRows()[0]!).getByRole('link', { name: 'Download original of File 1' })).toBeInTheDocument()
  })

  it("refreshes with the spec's toasts and follows the files topic live", async () => {
    const state = filesState({ files: files() })
    const calls = renderFiles(state)
    await waitFor(() => expect(bodyRows()).toHaveLength(3))
    await userEvent.click(screen.getByRole('button', { name: 'Refresh' }))
    expect(await screen.findByText('Refreshing files')).toBeInTheDocument()
    expect(await screen.findByText('Files refreshed', {}, { timeout: 3000 })).toBeInTheDocument()

    // A file created elsewhere: the files topic's event refetches the list.
    const socket = FakeEventSocket.latest()
    act(() => socket.open())
    await waitFor(() => expect(socket.sent.flatMap((m) => m.topics ?? [])).toContain('client:c-1:files'))
    act(() => socket.frame('client:c-1:files', 4, 'subscribed'))
    const before = listUrls(calls).length
    state.files = [makeFile({ id: 'f-9', name: 'new.csv' }), ...state.files]
    act(() => socket.frame('client:c-1:files', 5, 'file.created', { clientId: 'c-1', fileId: 'f-9' }))
    await waitFor(() => expect(bodyRows()).toHaveLength(4))
    expect(listUrls(calls).length).toBeGreaterThan(before)
  })

  it('shows the live progress of the runs under way in the list', async () => {
    const calls = renderFiles(filesState({ files: files() }))
    await waitFor(() => expect(bodyRows()).toHaveLength(3))
    expect(within(bodyRows()[2]!).getByText('Processing 61%')).toBeInTheDocument()
    const socket = FakeEventSocket.latest()
    act(() => socket.open())
    const topic = 'client:c-1:run:run-1'
    await waitFor(() => expect(socket.sent.flatMap((m) => m.topics ?? [])).toContain(topic))
    const reads = listUrls(calls).length
    act(() => socket.frame(topic, 1, 'subscribed'))
    // The subscription refetches the list first (whatever was read before it may be stale).
    await waitFor(() => expect(listUrls(calls).length).toBe(reads + 1))
    await waitFor(() => expect(within(bodyRows()[2]!).getByText('Processing 61%')).toBeInTheDocument())
    act(() => socket.frame(topic, 2, 'run.progress', makeRun({ state: 'running', stage: 'writing', percent: 93.4, seq: 20 })))
    await waitFor(() => expect(within(bodyRows()[2]!).getByText('Processing 93%')).toBeInTheDocument())
    // An older event changes nothing.
    act(() => socket.frame(topic, 3, 'run.progress', makeRun({ state: 'running', percent: 70, seq: 19 })))
    await new Promise((r) => setTimeout(r, 50))
    expect(within(bodyRows()[2]!).getByText('Processing 93%')).toBeInTheDocument()
  })

  it("'analyse with AI' opens the Q&A Agent focused on a processed file; the focus clears", async () => {
    FakeEventSocket.all = []
    setRealtimeTransport(() => new FakeEventSocket(), async () => true)
    useAuthStore.setState({ status: 'authenticated', user: makeUser({ role: 'viewer' }) })
    const calls = mockApi({
      ...filesHandlers(filesState({ files: files() })),
      'GET /api/qa/conversation': () => json(200, { messages: [], provider: 'builtin' }),
      'POST /api/qa/ask': () => json(500),
    })
    const { router } = renderRoutes([{ path: '/client/files', element: <OurFiles /> }], '/client/files')
    await waitFor(() => expect(bodyRows()).toHaveLength(3))
    // Only processed files can be analysed (a viewer too).
    expect(within(bodyRows()[1]!).queryByRole('button', { name: /with AI/ })).not.toBeInTheDocument()
    await userEvent.click(within(bodyRows()[0]!).getByRole('button', { name: 'Analyse File 1 with AI' }))
    expect(await screen.findByRole('region', { name: 'Q&A Agent' })).toBeInTheDocument()
    expect(screen.getByRole('tab', { name: 'Q&A Agent' })).toHaveAttribute('aria-selected', 'true')
    expect(router.state.location.search).toBe('?tab=qa&file=f-1')
    expect(screen.getByText('File 1 (madrid_pse.csv)')).toBeInTheDocument()

    await userEvent.click(screen.getByRole('button', { name: 'Total exposures in this file' }))
    await waitFor(() => expect(calls.filter((c) => c.key === 'POST /api/qa/ask').map((c) => c.body)).toEqual([
      { question: 'Total exposures in this file', fileId: 'f-1' },
    ]))

    await userEvent.click(screen.getByRole('button', { name: 'Clear file focus and analyze all files' }))
    expect(router.state.location.search).toBe('?tab=qa')
    expect(screen.getByText('Asking about all your files.')).toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: 'Close chat' }))
    expect(router.state.location.search).toBe('')
    expect(table()).toBeInTheDocument()
  })
})
