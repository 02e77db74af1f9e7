import type { Board } from '@/api/types/Board'
import type { Task } from '@/api/types/Task'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { createMemoryRouter, RouterProvider } from 'react-router'

import { Toaster } from '@/components/ui/toaster'
import { useAuthStore } from '@/lib/auth-store'
import { resetRealtime, setRealtimeTransport } from '@/lib/realtime-store'
import { FakeEventSocket } from '@/testing/fake-event-socket'
import { json, makeUser, mockApi, noContent } from '@/testing/mock-api'

import { TaskBoard } from './task-board'

function task(id: string, overrides: Partial<Task> = {}): Task {
  return {
    id, column_id: 'todo', position: `a${id}`, client_id: 'c-1', title: `Task ${id}`, description: '', category_id: null,
    category_name: null, priority: null, due_date: null, completed_at: null, created_by: null, created_at: '', updated_at: '',
    ...overrides,
  }
}

function board(clientId = 'c-1', name = 'Bank A'): Board {
  return {
    client_id: clientId, client_name: name, seq: 3,
    columns: [
      { id: 'todo', client_id: clientId, name: 'To Do', position: 'a0' },
      { id: 'doing', client_id: clientId, name: 'In Progress', position: 'a1' },
    ],
    tasks: [task('1', { client_id: clientId, due_date: '2026-12-01' }), task('2', { client_id: clientId })],
    categories: [
      { id: 'cat-d', client_id: null, name: 'Data quality', is_default: true, created_by: null },
      { id: 'cat-o', client_id: clientId, name: 'Our own', is_default: false, created_by: 'u-1' },
    ],
  }
}

function renderBoard(path = '/client/board') {
  FakeEventSocket.all = []
  setRealtimeTransport((url) => new FakeEventSocket(url), async () => true)
  const router = createMemoryRouter([{ path: '/client/board', element: <TaskBoard /> }], { initialEntries: [path] })
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <RouterProvider router={router} />
      <Toaster />
    </QueryClientProvider>,
  )
  return router
}

afterEach(() => {
  resetRealtime()
})

describe('TaskBoard', () => {
  beforeEach(() => useAuthStore.setState({ status: 'authenticated', user: makeUser() }))

  it('asks before deleting a task, and deletes nothing on Cancel', async () => {
    const calls = mockApi({
      'GET /api/board': () => json(200, board()),
      'DELETE /api/board/tasks/:id': () => noContent(),
    })
    renderBoard()
    await userEvent.click(await screen.findByRole('button', { name: 'Delete Task 1' }))
    const dialog = await screen.findByRole('dialog', { name: 'Delete task' })
    expect(within(dialog).getByText('Are you sure you want to delete "Task 1"? This action cannot be undone.')).toBeInTheDocument()
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    expect(calls.filter((c) => c.key.startsWith('DELETE'))).toHaveLength(0)
    expect(screen.getByLabelText('Task 1')).toBeInTheDocument()

    await userEvent.click(screen.getByRole('button', { name: 'Delete Task 1' }))
    await userEvent.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Delete' }))
    await waitFor(() => expect(screen.queryByLabelText('Task 1')).not.toBeInTheDocument())
    expect(calls.filter((c) => c.key.startsWith('DELETE')).map((c) => c.url)).toEqual(['/api/board/tasks/1?client_id=c-1'])
    expect(await screen.findByText('Task deleted')).toBeInTheDocument()
  })

  it('keeps an event that arrives while a refetch is in flight, even when the refetched board predates it', async () => {
    // The board loads at seq 3; seq 5 arrives before 4 (a gap: refetch); while that refetch is
    // on its way, seq 6 renames task 2; the refetch then answers with the board at seq 5.
    let release: () => void = () => {}
    let gets = 0
    mockApi({
      'GET /api/board': async () => {
        gets += 1
        if (gets === 1) return json(200, board())
        await new Promise<void>((r) => (release = r))
        return json(200, { ...board(), seq: 5, tasks: [task('1'), task('2', { title: 'Renamed at 5' })] })
      },
    })
    renderBoard()
    expect(await screen.findByText('Task 2')).toBeInTheDocument()
    const socket = FakeEventSocket.latest()
    act(() => socket.open())
    await waitFor(() => expect(socket.sent.flatMap((m) => m.topics ?? [])).toContain('client:c-1:board'))
    act(() => socket.frame('client:c-1:board', 3, 'subscribed'))
    await waitFor(() => expect(gets).toBe(2))
    act(() => release())
    await waitFor(() => expect(screen.getByText('Renamed at 5')).toBeInTheDocument())
    act(() => socket.frame('client:c-1:board', 5, 'task.updated', { tasks: [task('2', { title: 'Renamed at 5' })] }))
    await waitFor(() => expect(gets).toBe(3))
    act(() => socket.frame('client:c-1:board', 6, 'task.updated', { tasks: [task('2', { title: 'Renamed at 6' })] }))
    expect(await screen.findByText('Renamed at 6')).toBeInTheDocument()
    act(() => release())
    await waitFor(() => expect(gets).toBe(3))
    // The refetched board (seq 5) does not undo the rename at 6.
    await new Promise((r) => setTimeout(r, 50))
    expect(screen.getByText('Renamed at 6')).toBeInTheDocument()
    expect(screen.queryByText('Renamed at 5')).not.toBeInTheDocument()
  })

  it("shows due dates as 'MMM d, yyyy'", async () => {
    mockApi({ 'GET /api/board': () => json(200, board()) })
    renderBoard()
    const card = await screen.findByLabelText('Task 1')
    expect(within(card).getByText('Dec 1, 2026')).toBeInTheDocument()
    expect(within(card).queryByText('2026-12-01')).not.toBeInTheDocument()
  })

  it('offers no delete button for default categories', async () => {
    mockApi({ 'GET /api/board': () => json(200, board()) })
    renderBoard()
    await userEvent.click(await screen.findByRole('button', { name: 'Manage Categories' }))
    const dialog = await screen.findByRole('dialog', { name: 'Manage Categories' })
    expect(within(dialog).getByText('Data quality')).toBeInTheDocument()
    expect(within(dialog).queryByRole('button', { name: 'Delete category Data quality' })).not.toBeInTheDocument()
    expect(within(dialog).getByRole('button', { name: 'Delete category Our own' })).toBeInTheDocument()
  })

  it('shows a scroll hint on the side where columns are hidden', async () => {
    mockApi({ 'GET /api/board': () => json(200, board()) })
    renderBoard()
    const scroller = await screen.findByTestId('task-board')
    expect(screen.queryByRole('button', { name: 'Scroll to more columns' })).not.toBeInTheDocument()
    // jsdom does no layout: give the row the sizes of a board wider than the screen.
    Object.defineProperty(scroller, 'clientWidth', { configurable: true, value: 1000 })
    Object.defineProperty(scroller, 'scrollWidth', { configurable: true, value: 1400 })
    fireEvent.scroll(scroller)
    expect(await screen.findByRole('button', { name: 'Scroll to more columns' })).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Scroll to earlier columns' })).not.toBeInTheDocument()
    scroller.scrollLeft = 400
    fireEvent.scroll(scroller)
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Scroll to more columns' })).not.toBeInTheDocument())
    expect(screen.getByRole('button', { name: 'Scroll to earlier columns' })).toBeInTheDocument()
  })

  it('turns read-only at once when the session event says the user was made a viewer', async () => {
    const calls = mockApi({
      'GET /api/board': () => json(200, board()),
      'GET /api/auth/me': () => json(200, makeUser({ role: 'viewer' })),
    })
    renderBoard()
    expect(await screen.findByRole('button', { name: 'Add Column' })).toBeInTheDocument()
    const ws = FakeEventSocket.latest()
    act(() => ws.open())
    act(() => ws.frame('', 0, 'session.changed'))
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Add Column' })).not.toBeInTheDocument())
    expect(screen.queryByRole('button', { name: 'Delete Task 1' })).not.toBeInTheDocument()
    expect(screen.getByText(/read-only/)).toBeInTheDocument()
    expect(calls.some((c) => c.key === 'GET /api/auth/me')).toBe(true)
  })
})

describe('TaskBoard for an administrator', () => {
  beforeEach(() =>
    useAuthStore.setState({ status: 'authenticated', user: makeUser({ role: 'admin', client: { id: 'c-1', name: 'Bank A' } }) }),
  )

  it('works on the client named in the URL and switches client with the switcher', async () => {
    const calls = mockApi({
      'GET /api/board': ({ query }) =>
        json(200, query.get('client_id') === 'c-2' ? board('c-2', 'Bank B') : board('c-1', 'Bank A')),
      'GET /api/clients': () => json(200, [{ id: 'c-2', name: 'Bank B' }, { id: 'c-1', name: 'Bank A' }]),
    })
    const router = renderBoard('/client/board?client=c-2')
    expect(await screen.findByText('Bank B', { selector: 'p' })).toBeInTheDocument()
    const select = screen.getByLabelText('Client')
    await waitFor(() => expect(within(select).getAllByRole('option').map((o) => o.textContent)).toEqual(['Bank A', 'Bank B']))
    expect(select).toHaveValue('c-2')

    await userEvent.selectOptions(select, 'c-1')
    await waitFor(() => expect(router.state.location.search).toBe('?client=c-1'))
    expect(await screen.findByText('Bank A', { selector: 'p' })).toBeInTheDocument()
    expect(calls.filter((c) => c.key === 'GET /api/board').map((c) => c.url)).toEqual([
      '/api/board?client_id=c-2',
      '/api/board?client_id=c-1',
    ])
  })

  it('falls back to the administrator’s first client without a choice', async () => {
    const calls = mockApi({
      'GET /api/board': () => json(200, board()),
      'GET /api/clients': () => json(200, [{ id: 'c-1', name: 'Bank A' }]),
    })
    renderBoard()
    await screen.findByLabelText('Task 1')
    expect(calls.find((c) => c.key === 'GET /api/board')?.url).toBe('/api/board?client_id=c-1')
  })

  it('names the chosen client even when the client list cannot be loaded', async () => {
    mockApi({
      'GET /api/board': () => json(200, board('c-2', 'Bank B')),
      'GET /api/clients': () => json(404, { code: 'not_found', message: 'Not found' }),
    })
    renderBoard('/client/board?client=c-2')
    const select = await screen.findByLabelText('Client')
    await waitFor(() => expect(select).toHaveAttribute('title', 'The client list could not be loaded'))
    expect(within(select).getByRole('option', { name: 'Bank B' })).toBeInTheDocument()
    expect(select).toHaveValue('c-2')
  })
})
