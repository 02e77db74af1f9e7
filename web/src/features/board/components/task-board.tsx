import type { Board } from '@/api/types/Board'
import type { Category } from '@/api/types/Category'
import type { Column } from '@/api/types/Column'
import type { Task } from '@/api/types/Task'
import {
  DndContext,
  KeyboardSensor,
  MouseSensor,
  TouchSensor,
  useSensor,
  useSensors,
  type DragEndEvent,
} from '@dnd-kit/core'
import { horizontalListSortingStrategy, SortableContext, sortableKeyboardCoordinates } from '@dnd-kit/sortable'
import { useQueryClient } from '@tanstack/react-query'
import { ChevronLeft, ChevronRight, Columns3, Plus, Tags } from 'lucide-react'
import { useEffect, useRef, useState } from 'react'

import { ClientSwitcher } from '@/components/client-switcher'
import { Button } from '@/components/ui/button'
import { Spinner } from '@/components/ui/spinner'
import { useClientId } from '@/hooks/use-client-id'
import { ApiError } from '@/lib/api-client'
import { useAuthStore } from '@/lib/auth-store'
import { toast } from '@/lib/toast'

import * as boardApi from '../api'
import { boardKeys, useMoveColumn, useMoveTask } from '../api'
import { useBoard } from '../hooks/use-board'
import { useScrollHint } from '../hooks/use-scroll-hint'
import { boardCollision } from '../utils/board-collision'
import { columnDropIndex, columnTasks, mergeRows, sortedColumns, taskDrop } from '../utils/board-model'
import { AddColumnDialog } from './add-column-dialog'
import { BoardColumn } from './board-column'
import { CategoriesDialog } from './categories-dialog'
import { ConfirmDeleteTaskDialog } from './confirm-delete-task-dialog'
import { TaskDialog, type TaskForm } from './task-dialog'

/** Drag activation from the specification: 5 px of movement, or a 200 ms touch with 5 px tolerance. */
export const DRAG_DISTANCE_PX = 5
export const TOUCH_DELAY_MS = 200

type DragData = { type: 'task'; id: string; columnId: string } | { type: 'column'; id: string }

/** The client's task board, live for everyone who has it open. */
export function TaskBoard() {
  const user = useAuthStore((s) => s.user)
  // The signed-in user's client, or the one an administrator chose (`?client=`).
  const clientId = useClientId()
  // Follows the caller as the server reports it: a demotion to viewer (the session event reloads
  // the caller) turns the board read-only at once.
  const canEdit = user !== null && user.role !== 'viewer'
  const queryClient = useQueryClient()
  const { data: board, isPending, isError, error, refetch } = useBoard(clientId)
  const moveTask = useMoveTask(clientId ?? '')
  const moveColumn = useMoveColumn(clientId ?? '')
  const [addColumnOpen, setAddColumnOpen] = useState(false)
  const [categoriesOpen, setCategoriesOpen] = useState(false)
  const [taskDialog, setTaskDialog] = useState<{ task: Task | null; columnId: string } | null>(null)
  const [taskToDelete, setTaskToDelete] = useState<Task | null>(null)
  const [deleting, setDeleting] = useState(false)
  const scroller = useRef<HTMLDivElement>(null)
  const hint = useScrollHint(scroller, board)

  const sensors = useSensors(
    useSensor(MouseSensor, { activationConstraint: { distance: DRAG_DISTANCE_PX } }),
    useSensor(TouchSensor, { activationConstraint: { delay: TOUCH_DELAY_MS, tolerance: DRAG_DISTANCE_PX } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  )

  useEffect(() => {
    if (isError) toast.error('Failed to load board columns', error instanceof Error ? error.message : undefined)
  }, [isError, error])

  if (!clientId) {
    return (
      <div className="space-y-4">
        <ClientSwitcher />
        <p className="text-slate-600">No Client: your account is not linked to a client, so there is no task board to show.</p>
      </div>
    )
  }
  if (isPending) {
    return (
      <div className="flex min-h-[500px] items-center justify-center gap-2 text-slate-600">
        <Spinner /> Loading Kanban Board...
      </div>
    )
  }
  if (isError || !board) {
    return (
      <div className="flex min-h-[500px] flex-col items-center justify-center gap-3 text-slate-600">
        <p>Failed to load board columns</p>
        <Button variant="outline" onClick={() => void refetch()}>
          Try again
        </Button>
      </div>
    )
  }

  // The client this board is about (narrowed for the handlers below).
  const cid: string = clientId
  const key = boardKeys.board(cid)
  const current = () => queryClient.getQueryData<Board>(key)
  const setBoard = (update: (b: Board) => Board) => queryClient.setQueryData<Board>(key, (b) => (b ? update(b) : b))

  // Moves are optimistic (useMoveTask/useMoveColumn): a failure puts the board back and the
  // board is reloaded from the server either way.
  const onMoveTask = (taskId: string, columnId: string, index: number) =>
    moveTask.mutate({ taskId, columnId, index }, { onError: () => toast.error('Failed to move task') })
  const onMoveColumn = (columnId: string, index: number) =>
    moveColumn.mutate({ columnId, index }, { onError: () => toast.error('Failed to update column order') })

  function onDragEnd({ active, over }: DragEndEvent) {
    const a = active.data.current as DragData | undefined
    const o = over?.data.current as DragData | undefined
    const b = current()
    if (!a || !o || !b) return
    if (a.type === 'column') {
      const target = o.type === 'column' ? o.id : o.columnId
      const index = columnDropIndex(b, a.id, target)
      if (index !== null) onMoveColumn(a.id, index)
      return
    }
    const drop = taskDrop(b, a.id, o.type === 'column' ? { type: 'column', id: o.id } : { type: 'task', id: o.id })
    if (drop.kind === 'none') return
    const list = columnTasks(b, drop.columnId)
    const unchanged = a.columnId === drop.columnId && list.findIndex((t) => t.id === a.id) === drop.index
    if (!unchanged) onMoveTask(a.id, drop.columnId, drop.index)
  }

  async function saveTask(form: TaskForm): Promise<boolean> {
    if (!taskDialog) return false
    const body = {
      title: form.title,
      description: form.description,
      category_id: form.category_id ?? undefined,
      priority: form.priority ?? undefined,
      due_date: form.due_date ?? undefined,
    }
    try {
      const saved = taskDialog.task
        ? await boardApi.updateTask(cid, taskDialog.task.id, body)
        : await boardApi.createTask(cid, { ...body, column_id: taskDialog.columnId })
      setBoard((b) => mergeRows(b, { tasks: [saved] }))
      return true
    } catch (e) {
      toast.error(taskDialog.task ? 'Failed to update task' : 'Failed to create new task', e instanceof ApiError ? e.message : undefined)
      return false
    }
  }

  async function deleteTask(task: Task) {
    setDeleting(true)
    try {
      await boardApi.deleteTask(cid, task.id)
      setBoard((b) => mergeRows(b, { deleted_task_ids: [task.id] }))
      toast.success('Task deleted')
    } catch (e) {
      toast.error('Failed to delete task', e instanceof ApiError ? e.message : undefined)
    } finally {
      setDeleting(false)
      setTaskToDelete(null)
    }
  }

  const scrollColumns = (direction: -1 | 1) => {
    const el = scroller.current
    // One column (300 px and the gap) at a time.
    el?.scrollBy({ left: direction * 316, behavior: 'smooth' })
  }

  async function addColumn(name: string): Promise<boolean> {
    try {
      const col = await boardApi.createColumn(cid, name)
      setBoard((b) => mergeRows(b, { columns: [col] }))
      return true
    } catch (e) {
      toast.error('Failed to create new column', e instanceof ApiError ? e.message : undefined)
      return false
    }
  }

  async function renameColumn(column: Column, name: string): Promise<boolean> {
    try {
      const col = await boardApi.renameColumn(cid, column.id, name)
      setBoard((b) => mergeRows(b, { columns: [col] }))
      return true
    } catch (e) {
      toast.error('Failed to update column', e instanceof ApiError ? e.message : undefined)
      return false
    }
  }

  async function createCategory(name: string): Promise<boolean> {
    try {
      const cat = await boardApi.createCategory(cid, name)
      setBoard((b) => mergeRows(b, { categories: [cat] }))
      toast.success('Category created')
      return true
    } catch (e) {
      toast.error('Failed to create new category', e instanceof ApiError ? e.message : undefined)
      return false
    }
  }

  async function deleteCategory(category: Category) {
    if (category.is_default) {
      toast.error('Cannot Delete', 'Default categories cannot be deleted')
      return
    }
    try {
      await boardApi.deleteCategory(cid, category.id)
      setBoard((b) =>
        mergeRows(
          b,
          {
            deleted_category_ids: [category.id],
            tasks: b.tasks.filter((t) => t.category_id === category.id).map((t) => ({ ...t, category_id: null, category_name: null })),
          },
        ),
      )
      toast.success('Category deleted')
    } catch (e) {
      if (e instanceof ApiError && e.code === 'cannot_delete') toast.error('Cannot Delete', 'Default categories cannot be deleted')
      else toast.error('Failed to delete category', e instanceof ApiError ? e.message : undefined)
    }
  }

  const columns = sortedColumns(board)
  return (
    <div className="flex h-full flex-col gap-4">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <div>
          <h1 className="text-2xl font-bold tracking-tight text-slate-900">Task Board</h1>
          <p className="text-sm text-slate-500">
            {board.client_name}
            {canEdit ? '' : ' · read-only'}
          </p>
        </div>
        <ClientSwitcher currentName={board.client_name} />
        {canEdit ? (
          <div className="flex gap-2">
            <Button variant="outline" onClick={() => setCategoriesOpen(true)}>
              <Tags /> Manage Categories
            </Button>
            <Button onClick={() => setAddColumnOpen(true)}>
              <Plus /> Add Column
            </Button>
          </div>
        ) : null}
      </div>
      <DndContext sensors={sensors} collisionDetection={boardCollision} onDragEnd={canEdit ? onDragEnd : undefined}>
        <SortableContext items={columns.map((c) => `col:${c.id}`)} strategy={horizontalListSortingStrategy}>
          <div className="relative min-w-0 flex-1">
          <div ref={scroller} className="flex min-h-[500px] gap-4 overflow-x-auto pb-4" data-testid="task-board">
            {columns.map((c) => (
              <BoardColumn
                key={c.id}
                column={c}
                tasks={columnTasks(board, c.id)}
                canEdit={canEdit}
                onAddTask={(columnId) => setTaskDialog({ task: null, columnId })}
                onEditTask={(task) => setTaskDialog({ task, columnId: task.column_id })}
                onDeleteTask={setTaskToDelete}
                onRename={renameColumn}
              />
            ))}
            {columns.length === 0 ? (
              <p className="flex items-center gap-2 text-slate-500">
                <Columns3 className="size-4" /> No columns yet.
              </p>
            ) : null}
          </div>
          {/* More columns than fit: a fade and a button on the side that hides some. */}
          {hint.left ? (
            <div className="pointer-events-none absolute inset-y-0 left-0 flex w-16 items-center justify-start bg-gradient-to-r from-slate-50 to-transparent">
              <Button
                variant="outline"
                size="icon"
                className="pointer-events-auto rounded-full shadow-sm"
                aria-label="Scroll to earlier columns"
                onClick={() => scrollColumns(-1)}
              >
                <ChevronLeft />
              </Button>
            </div>
          ) : null}
          {hint.right ? (
            <div
              className="pointer-events-none absolute inset-y-0 right-0 flex w-16 items-center justify-end bg-gradient-to-l from-slate-50 to-transparent"
              data-testid="board-scroll-hint"
            >
              <Button
                variant="outline"
                size="icon"
                className="pointer-events-auto rounded-full shadow-sm"
                aria-label="Scroll to more columns"
                onClick={() => scrollColumns(1)}
              >
                <ChevronRight />
              </Button>
            </div>
          ) : null}
          </div>
        </SortableContext>
      </DndContext>
      <AddColumnDialog open={addColumnOpen} onOpenChange={setAddColumnOpen} onAdd={addColumn} />
      <CategoriesDialog
        open={categoriesOpen}
        onOpenChange={setCategoriesOpen}
        categories={board.categories}
        onCreate={createCategory}
        onDelete={(c) => void deleteCategory(c)}
      />
      <ConfirmDeleteTaskDialog
        task={taskToDelete}
        pending={deleting}
        onCancel={() => setTaskToDelete(null)}
        onConfirm={() => taskToDelete && void deleteTask(taskToDelete)}
      />
      {taskDialog ? (
        <TaskDialog
          key={taskDialog.task?.id ?? `new-${taskDialog.columnId}`}
          task={taskDialog.task}
          categories={board.categories}
          onClose={() => setTaskDialog(null)}
          onSave={saveTask}
        />
      ) : null}
    </div>
  )
}
