import type { Board } from '@/api/types/Board'
import type { Task } from '@/api/types/Task'
import { QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query'
import { act, renderHook, waitFor } from '@testing-library/react'
import type { ReactNode } from 'react'

import { json, mockApi } from '@/testing/mock-api'

import { boardKeys, getBoard, useMoveColumn, useMoveTask } from './api'
import { columnTasks, sortedColumns } from './utils/board-model'

function task(id: string, column_id: string, position: string): Task {
  return {
    id, column_id, position, client_id: 'c-2', title: id, description: '', category_id: null, category_name: null,
    priority: null, due_date: null, completed_at: null, created_by: null, created_at: '', updated_at: '',
  }
}

function board(): Board {
  return {
    client_id: 'c-2', client_name: 'Bank B', seq: 10,
    columns: [
      { id: 'todo', client_id: 'c-2', name: 'To Do', position: 'a0' },
      { id: 'doing', client_id: 'c-2', name: 'In Progress', position: 'a1' },
    ],
    tasks: [task('A', 'todo', 'a0'), task('B', 'todo', 'a1'), task('D', 'doing', 'a0')],
    categories: [],
  }
}

function setup() {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: Infinity }, mutations: { retry: false } } })
  queryClient.setQueryData(boardKeys.board('c-2'), board())
  const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>
  const cached = () => queryClient.getQueryData<Board>(boardKeys.board('c-2'))!
  const titles = (columnId: string) => columnTasks(cached(), columnId).map((t) => t.id)
  return { queryClient, wrapper, cached, titles }
}

/** The board on screen (as `useBoard` keeps it observed), so settling refetches it. */
function useShownBoard() {
  useQuery({ queryKey: boardKeys.board('c-2'), queryFn: () => getBoard('c-2'), staleTime: Infinity })
}

/** A promise the test resolves by hand, to look at the cache while the server has not answered. */
function gate() {
  let open!: () => void
  const promise = new Promise<void>((resolve) => (open = resolve))
  return { promise, open }
}

describe('useMoveTask (optimistic)', () => {
  it('moves the card at once, sends the neighbours for the client, merges the answer and refetches', async () => {
    const { wrapper, titles, cached } = setup()
    const answer = gate()
    const fresh = { ...board(), seq: 12, tasks: [task('A', 'doing', 'Zz'), task('B', 'todo', 'a1'), task('D', 'doing', 'a0')] }
    const calls = mockApi({
      'POST /api/board/tasks/:id/move': async () => {
        await answer.promise
        return json(200, [task('A', 'doing', 'Zz')])
      },
      'GET /api/board': () => json(200, fresh),
    })
    const { result } = renderHook(
      () => {
        useShownBoard()
        return useMoveTask('c-2')
      },
      { wrapper },
    )

    act(() => result.current.mutate({ taskId: 'A', columnId: 'doing', index: 0 }))
    // Optimistic: A is first in In Progress before the server answered.
    await waitFor(() => expect(titles('doing')).toEqual(['A', 'D']))
    expect(titles('todo')).toEqual(['B'])
    expect(calls.map((c) => c.url)).toEqual(['/api/board/tasks/A/move?client_id=c-2'])
    expect(calls[0]!.body).toEqual({ column_id: 'doing', before_id: 'D' })

    answer.open()
    await waitFor(() => expect(result.current.isSuccess).toBe(true))
    // Settled: the board was reloaded from the server (for this client).
    await waitFor(() => expect(cached().seq).toBe(12))
    expect(calls.map((c) => c.url)).toEqual(['/api/board/tasks/A/move?client_id=c-2', '/api/board?client_id=c-2'])
    expect(titles('doing')).toEqual(['A', 'D'])
  })

  it('puts the board back when the server refuses the move, then reloads it', async () => {
    const { wrapper, titles, cached } = setup()
    const answer = gate()
    const reload = gate()
    const calls = mockApi({
      'POST /api/board/tasks/:id/move': async () => {
        await answer.promise
        return json(403, { code: 'forbidden', message: 'Access denied' })
      },
      'GET /api/board': async () => {
        await reload.promise
        return json(200, { ...board(), seq: 11 })
      },
    })
    const onError = vi.fn()
    const { result } = renderHook(
      () => {
        useShownBoard()
        return useMoveTask('c-2')
      },
      { wrapper },
    )

    act(() => result.current.mutate({ taskId: 'B', columnId: 'doing', index: 1 }, { onError }))
    await waitFor(() => expect(titles('doing')).toEqual(['D', 'B']))
    answer.open()
    // The rollback comes first (the reload has not answered yet)...
    await waitFor(() => expect(titles('doing')).toEqual(['D']))
    expect(titles('todo')).toEqual(['A', 'B'])
    await waitFor(() => expect(calls.map((c) => c.key)).toContain('GET /api/board'))
    expect(cached().seq).toBe(10)
    // ...then the reload, and the caller hears of the failure.
    reload.open()
    await waitFor(() => expect(result.current.isError).toBe(true))
    expect(cached().seq).toBe(11)
    expect(onError).toHaveBeenCalledTimes(1)
  })
})

describe('useMoveColumn (optimistic)', () => {
  it('reorders the columns at once and back on failure', async () => {
    const { wrapper, cached } = setup()
    const answer = gate()
    const reload = gate()
    mockApi({
      'POST /api/board/columns/:id/move': async () => {
        await answer.promise
        return json(500, { code: 'internal', message: 'Internal error' })
      },
      'GET /api/board': async () => {
        await reload.promise
        return json(200, board())
      },
    })
    const { result } = renderHook(
      () => {
        useShownBoard()
        return useMoveColumn('c-2')
      },
      { wrapper },
    )
    act(() => result.current.mutate({ columnId: 'doing', index: 0 }))
    await waitFor(() => expect(sortedColumns(cached()).map((c) => c.id)).toEqual(['doing', 'todo']))
    answer.open()
    await waitFor(() => expect(sortedColumns(cached()).map((c) => c.id)).toEqual(['todo', 'doing']))
    reload.open()
    await waitFor(() => expect(result.current.isError).toBe(true))
  })
})
