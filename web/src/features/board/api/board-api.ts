import type { Board } from '@/api/types/Board'
import type { Category } from '@/api/types/Category'
import type { Column } from '@/api/types/Column'
import type { CreateTaskRequest } from '@/api/types/CreateTaskRequest'
import type { MoveColumnRequest } from '@/api/types/MoveColumnRequest'
import type { MoveTaskRequest } from '@/api/types/MoveTaskRequest'
import type { Task } from '@/api/types/Task'
import type { UpdateTaskRequest } from '@/api/types/UpdateTaskRequest'

import { apiRequest } from '@/lib/api-client'

/** One request function per board endpoint; every call works on the signed-in user's client. */
export const boardApi = {
  get: () => apiRequest<Board>('/api/board'),
  createColumn: (name: string) => apiRequest<Column>('/api/board/columns', { method: 'POST', body: { name } }),
  renameColumn: (id: string, name: string) =>
    apiRequest<Column>(`/api/board/columns/${encodeURIComponent(id)}`, { method: 'PATCH', body: { name } }),
  moveColumn: (id: string, body: MoveColumnRequest) =>
    apiRequest<Column[]>(`/api/board/columns/${encodeURIComponent(id)}/move`, { method: 'POST', body }),
  createTask: (body: CreateTaskRequest) => apiRequest<Task>('/api/board/tasks', { method: 'POST', body }),
  updateTask: (id: string, body: UpdateTaskRequest) =>
    apiRequest<Task>(`/api/board/tasks/${encodeURIComponent(id)}`, { method: 'PUT', body }),
  deleteTask: (id: string) => apiRequest<void>(`/api/board/tasks/${encodeURIComponent(id)}`, { method: 'DELETE' }),
  moveTask: (id: string, body: MoveTaskRequest) =>
    apiRequest<Task[]>(`/api/board/tasks/${encodeURIComponent(id)}/move`, { method: 'POST', body }),
  createCategory: (name: string) => apiRequest<Category>('/api/board/categories', { method: 'POST', body: { name } }),
  deleteCategory: (id: string) =>
    apiRequest<void>(`/api/board/categories/${encodeURIComponent(id)}`, { method: 'DELETE' }),
}
