import type { Board } from '@/api/types/Board'
import type { BoardPatch } from '@/api/types/BoardPatch'
import type { Column } from '@/api/types/Column'
import type { Task } from '@/api/types/Task'
import { generateKeyBetween } from 'fractional-indexing'

/**
 * The board's ordering rules, shared with the server: columns, and the tasks of a column, sort by
 * `(position, id)` compared by character code (never by locale). Positions are fractional index
 * keys (the `fractional-indexing` algorithm), so a move rewrites one row.
 */
export function compareByPosition(a: { position: string; id: string }, b: { position: string; id: string }): number {
  if (a.position !== b.position) return a.position < b.position ? -1 : 1
  if (a.id !== b.id) return a.id < b.id ? -1 : 1
  return 0
}

export function sortedColumns(board: Board): Column[] {
  return [...board.columns].sort(compareByPosition)
}

/** The tasks of one column, in order. */
export function columnTasks(board: Board, columnId: string): Task[] {
  return board.tasks.filter((t) => t.column_id === columnId).sort(compareByPosition)
}

/**
 * Applies a board event. Events at or below the board's sequence are already in it; rows are
 * replaced whole, so applying an event twice changes nothing.
 */
export function applyPatch(board: Board, patch: BoardPatch, seq: number): Board {
  if (seq <= board.seq) return board
  return { ...mergeRows(board, patch), seq }
}

/** Replaces or adds the patch's rows and removes its deleted ones (no sequence check). */
export function mergeRows(board: Board, patch: Partial<BoardPatch>): Board {
  const upsert = <T extends { id: string }>(rows: T[], changed: T[]) => {
    if (changed.length === 0) return rows
    const byId = new Map(changed.map((r) => [r.id, r]))
    const kept = rows.map((r) => byId.get(r.id) ?? r)
    const known = new Set(rows.map((r) => r.id))
    return [...kept, ...changed.filter((r) => !known.has(r.id))]
  }
  const deletedTasks = new Set(patch.deleted_task_ids ?? [])
  const deletedCategories = new Set(patch.deleted_category_ids ?? [])
  return {
    ...board,
    columns: upsert(board.columns, patch.columns ?? []),
    tasks: upsert(board.tasks, patch.tasks ?? []).filter((t) => !deletedTasks.has(t.id)),
    categories: upsert(board.categories, patch.categories ?? [])
      .filter((c) => !deletedCategories.has(c.id))
      .sort((a, b) => a.name.localeCompare(b.name)),
  }
}

/** Neighbours sent to the server for a move: the item before and the item after the new spot. */
export type Neighbours = { after_id?: string; before_id?: string }

/** Where an item lands when placed at `index` of `list` (which no longer holds the item). */
export function placeAt<T extends { id: string; position: string }>(list: T[], index: number): { position: string; neighbours: Neighbours } {
  const before = index > 0 ? list[index - 1] : undefined
  const after = index < list.length ? list[index] : undefined
  let position: string
  try {
    position = generateKeyBetween(before?.position ?? null, after?.position ?? null)
  } catch {
    // Equal neighbour keys (only after a concurrent write): the server decides; keep the
    // neighbour's key locally until its answer arrives.
    position = before?.position ?? after?.position ?? 'a0'
  }
  return { position, neighbours: { after_id: before?.id, before_id: after?.id } }
}

/** What dropping a dragged task on a target does, by the kanban rules of the specification. */
export type TaskDrop =
  | { kind: 'none' }
  | { kind: 'move'; columnId: string; index: number }

/**
 * - over a task of the same column: reorder to that task's place;
 * - over a task of another column: nothing;
 * - over a column: to the end of that column.
 */
export function taskDrop(board: Board, taskId: string, over: { type: 'task'; id: string } | { type: 'column'; id: string }): TaskDrop {
  const task = board.tasks.find((t) => t.id === taskId)
  if (!task) return { kind: 'none' }
  if (over.type === 'column') {
    const rest = columnTasks(board, over.id).filter((t) => t.id !== taskId)
    return { kind: 'move', columnId: over.id, index: rest.length }
  }
  if (over.id === taskId) return { kind: 'none' }
  const target = board.tasks.find((t) => t.id === over.id)
  if (!target || target.column_id !== task.column_id) return { kind: 'none' }
  const list = columnTasks(board, task.column_id)
  const from = list.findIndex((t) => t.id === taskId)
  const to = list.findIndex((t) => t.id === over.id)
  // arrayMove semantics: the dragged task takes the target's index.
  const rest = list.filter((t) => t.id !== taskId)
  const index = to > from ? rest.findIndex((t) => t.id === over.id) + 1 : rest.findIndex((t) => t.id === over.id)
  return { kind: 'move', columnId: task.column_id, index }
}

/** The board with a task moved (optimistically) and the neighbours to send to the server. */
export function moveTaskLocally(board: Board, taskId: string, columnId: string, index: number): { board: Board; neighbours: Neighbours } {
  const rest = columnTasks(board, columnId).filter((t) => t.id !== taskId)
  const { position, neighbours } = placeAt(rest, Math.max(0, Math.min(index, rest.length)))
  const tasks = board.tasks.map((t) => (t.id === taskId ? { ...t, column_id: columnId, position } : t))
  return { board: { ...board, tasks }, neighbours }
}

/** The board with a column moved from its place to `index` (arrayMove semantics). */
export function moveColumnLocally(board: Board, columnId: string, index: number): { board: Board; neighbours: Neighbours } {
  const rest = sortedColumns(board).filter((c) => c.id !== columnId)
  const { position, neighbours } = placeAt(rest, Math.max(0, Math.min(index, rest.length)))
  const columns = board.columns.map((c) => (c.id === columnId ? { ...c, position } : c))
  return { board: { ...board, columns }, neighbours }
}

/**
 * The index a dragged column takes when dropped on `targetColumnId` (arrayMove semantics), or
 * null when nothing changes.
 */
export function columnDropIndex(board: Board, columnId: string, targetColumnId: string): number | null {
  const cols = sortedColumns(board)
  const from = cols.findIndex((c) => c.id === columnId)
  const to = cols.findIndex((c) => c.id === targetColumnId)
  if (from < 0 || to < 0 || from === to) return null
  const rest = cols.filter((c) => c.id !== columnId)
  const at = rest.findIndex((c) => c.id === targetColumnId)
  return to > from ? at + 1 : at
}
