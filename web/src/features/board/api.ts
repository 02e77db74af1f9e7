import type { Board } from '@/api/types/Board'
import type { Category } from '@/api/types/Category'
import type { Column } from '@/api/types/Column'
import type { CreateTaskRequest } from '@/api/types/CreateTaskRequest'
import type { MoveColumnRequest } from '@/api/types/MoveColumnRequest'
import type { MoveTaskRequest } from '@/api/types/MoveTaskRequest'
import type { Task } from '@/api/types/Task'
import type { UpdateTaskRequest } from '@/api/types/UpdateTaskRequest'
import { useMutation, useQueryClient } from '@tanstack/react-query'

import { apiRequest } from '@/lib/api-client'
import { optimistic } from '@/lib/optimistic'

import { mergeRows, moveColumnLocally, moveTaskLocally } from './utils/board-model'

/** Query keys of the task board; every key names the client whose board it is. */
export const boardKeys = {
  all: ['board'] as const,
  board: (clientId: string) => ['board', clientId] as const,
}

/** `/api/board<path>?client_id=…`: every board call names the client it works on. */
const boardPath = (clientId: string, path = '') => `/api/board${path}?client_id=${encodeURIComponent(clientId)}`
const id = (value: string) => encodeURIComponent(value)

export const getBoard = (clientId: string) => apiRequest<Board>(boardPath(clientId))
export const createColumn = (clientId: string, name: string) =>
  apiRequest<Column>(boardPath(clientId, '/columns'), { method: 'POST', body: { name } })
export const renameColumn = (clientId: string, columnId: string, name: string) =>
  apiRequest<Column>(boardPath(clientId, `/columns/${id(columnId)}`), { method: 'PATCH', body: { name } })
export const moveColumn = (clientId: string, columnId: string, body: MoveColumnRequest) =>
  apiRequest<Column[]>(boardPath(clientId, `/columns/${id(columnId)}/move`), { method: 'POST', body })
export const createTask = (clientId: string, body: CreateTaskRequest) =>
  apiRequest<Task>(boardPath(clientId, '/tasks'), { method: 'POST', body })
export const updateTask = (clientId: string, taskId: string, body: UpdateTaskRequest) =>
  apiRequest<Task>(boardPath(clientId, `/tasks/${id(taskId)}`), { method: 'PUT', body })
export const deleteTask = (clientId: string, taskId: string) =>
  apiRequest<void>(boardPath(clientId, `/tasks/${id(taskId)}`), { method: 'DELETE' })
export const moveTask = (clientId: string, taskId: string, body: MoveTaskRequest) =>
  apiRequest<Task[]>(boardPath(clientId, `/tasks/${id(taskId)}/move`), { method: 'POST', body })
export const createCategory = (clientId: string, name: string) =>
  apiRequest<Category>(boardPath(clientId, '/categories'), { method: 'POST', body: { name } })
export const deleteCategory = (clientId: string, categoryId: string) =>
  apiRequest<void>(boardPath(clientId, `/categories/${id(categoryId)}`), { method: 'DELETE' })

/** A task dropped at `index` of column `columnId`. */
export type TaskMove = { taskId: string; columnId: string; index: number }
/** A column dropped at `index`. */
export type ColumnMove = { columnId: string; index: number }

/**
 * Moves a task, optimistically: the card moves at once, the server's answer (the moved row and any
 * rows it re-keyed) is merged in, a failure puts the board back, and the board is refetched after.
 */
export function useMoveTask(clientId: string) {
  const queryClient = useQueryClient()
  const key = boardKeys.board(clientId)
  return useMutation({
    mutationFn: ({ taskId, columnId, index }: TaskMove) => {
      // The neighbours at the drop spot; the moved task itself is left out, so they are the same
      // before and after the optimistic change (which runs first).
      const board = queryClient.getQueryData<Board>(key)
      const neighbours = board ? moveTaskLocally(board, taskId, columnId, index).neighbours : {}
      return moveTask(clientId, taskId, { column_id: columnId, ...neighbours })
    },
    ...optimistic<Board, TaskMove>(queryClient, key, (board, m) => moveTaskLocally(board, m.taskId, m.columnId, m.index).board),
    onSuccess: (changed: Task[]) => queryClient.setQueryData<Board>(key, (b) => (b ? mergeRows(b, { tasks: changed }) : b)),
  })
}

/** Moves a column, with the same optimistic pattern as {@link useMoveTask}. */
export function useMoveColumn(clientId: string) {
  const queryClient = useQueryClient()
  const key = boardKeys.board(clientId)
  return useMutation({
    mutationFn: ({ columnId, index }: ColumnMove) => {
      const board = queryClient.getQueryData<Board>(key)
      const neighbours = board ? moveColumnLocally(board, columnId, index).neighbours : {}
      return moveColumn(clientId, columnId, neighbours)
    },
    ...optimistic<Board, ColumnMove>(queryClient, key, (board, m) => moveColumnLocally(board, m.columnId, m.index).board),
    onSuccess: (changed: Column[]) => queryClient.setQueryData<Board>(key, (b) => (b ? mergeRows(b, { columns: changed }) : b)),
  })
}
