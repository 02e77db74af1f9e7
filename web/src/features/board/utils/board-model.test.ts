import type { Board } from '@/api/types/Board'
import type { Task } from '@/api/types/Task'
import { generateKeyBetween } from 'fractional-indexing'

import { applyPatch, columnTasks, compareByPosition, moveColumnLocally, moveTaskLocally, sortedColumns, taskDrop } from './board-model'

/** The same vectors the server's Rust port is tested against (`server/src/db/board.rs`). */
const VECTORS: [string | null, string | null, string][] = JSON.parse(
  '[[null,null,"a0"],["a0",null,"a1"],[null,"a0","Zz"],["a0","a1","a0V"],["a1","a2","a1V"],["a0V","a1","a0l"],["Zz","a0","ZzV"],[null,"Zz","Zy"],["a0","a0V","a0G"],["a09","a1","a0a"],["a1","a1V","a1G"],["az",null,"b00"],["Zy","Zz","ZyV"],["zzzzzzzzzzzzzzzzzzzzzzzzzzy",null,"zzzzzzzzzzzzzzzzzzzzzzzzzzz"],["a0","a01","a00V"],["b125","b13","b12Y"],["a0",null,"a1"],[null,null,"a0"],[null,"a0","Zz"],["Zz","a0","ZzV"],["a0",null,"a1"],["a0","a1","a0V"],["a0","a0V","a0G"],["a1",null,"a2"],["a2",null,"a3"],[null,"Zz","Zy"],["a3",null,"a4"],["Zz","ZzV","ZzG"],["Zz","ZzG","Zz8"],["a4",null,"a5"],[null,"Zy","Zx"],["ZzG","ZzV","ZzO"],[null,"Zx","Zw"],["Zw","Zx","ZwV"],["a0V","a1","a0l"],["a4","a5","a4V"],["a3","a4","a3V"],["a2","a3","a2V"],["Zw","ZwV","ZwG"],["a0l","a1","a0t"],["a0","a0G","a08"],["Zy","Zz","ZyV"],["a4","a4V","a4G"],["Zw","ZwG","Zw8"],["a3","a3V","a3G"],["ZwV","Zx","Zwl"],[null,"Zw","Zv"],["a2","a2V","a2G"],["a2G","a2V","a2O"],["a3V","a4","a3l"],["a3G","a3V","a3O"],["a3V","a3l","a3d"],["a3","a3G","a38"],["Zv","Zw","ZvV"],["Zz8","ZzG","ZzC"],["ZwG","ZwV","ZwO"],["a2G","a2O","a2K"],["ZzG","ZzO","ZzK"],["Zz","Zz8","Zz4"],["a38","a3G","a3C"],["Zz4","Zz8","Zz6"],["a3d","a3l","a3h"],["a0l","a0t","a0p"],["Zx","Zy","ZxV"],["a0","a08","a04"],["a0p","a0t","a0r"],["ZzO","ZzV","ZzS"],["Zz6","Zz8","Zz7"],["a3O","a3V","a3S"],["a0r","a0t","a0s"],["ZzG","ZzK","ZzI"],["a2O","a2V","a2S"],["a0r","a0s","a0rV"],["ZzO","ZzS","ZzQ"],["a0r","a0rV","a0rG"],["Zz4","Zz6","Zz5"],["ZwG","ZwO","ZwK"],["a0rG","a0rV","a0rO"],["a0V","a0l","a0d"],["a0","a04","a02"],["Zz7","Zz8","Zz7V"],["a0","a02","a01"],["ZwG","ZwK","ZwI"],["a2S","a2V","a2U"],["Zy","ZyV","ZyG"],["ZwO","ZwV","ZwS"],["a3G","a3O","a3K"],["a0r","a0rG","a0r8"],["a0rG","a0rO","a0rK"],["a3l","a4","a3t"],["Zz4","Zz5","Zz4V"],["a04","a08","a06"],["ZzO","ZzQ","ZzP"],["a0rK","a0rO","a0rM"],["a0t","a1","a0x"],["Zz4","Zz4V","Zz4G"],["ZyG","ZyV","ZyO"],["a0rK","a0rM","a0rL"],[null,"Zv","Zu"],["Zz5","Zz6","Zz5V"],["a2S","a2U","a2T"],["a2S","a2T","a2SV"],["ZzV","a0","Zzl"],["ZzI","ZzK","ZzJ"],["a06","a08","a07"],["Zz4V","Zz5","Zz4l"],["Zz6","Zz7","Zz6V"],["a38","a3C","a3A"],["Zz6","Zz6V","Zz6G"],["a0r","a0r8","a0r4"],["Zw8","ZwG","ZwC"],["a3K","a3O","a3M"],["a0s","a0t","a0sV"],["Zzl","a0","Zzt"],["ZyG","ZyO","ZyK"],["a3","a38","a34"],["Zz6","Zz6G","Zz68"],["Zz4","Zz4G","Zz48"],["Zzl","Zzt","Zzp"],["a2S","a2SV","a2SG"]]',
)

function task(id: string, column_id: string, position: string): Task {
  return {
    id, column_id, position, client_id: 'c', title: id, description: '', category_id: null, category_name: null,
    priority: null, due_date: null, completed_at: null, created_by: null, created_at: '', updated_at: '',
  }
}

function board(): Board {
  return {
    client_id: 'c', client_name: 'Bank A', seq: 10,
    columns: [
      { id: 'todo', client_id: 'c', name: 'To Do', position: 'a0' },
      { id: 'done', client_id: 'c', name: 'Done', position: 'a2' },
      { id: 'doing', client_id: 'c', name: 'In Progress', position: 'a1' },
    ],
    tasks: [task('A', 'todo', 'a0'), task('C', 'todo', 'a2'), task('B', 'todo', 'a1'), task('D', 'doing', 'a0')],
    categories: [],
  }
}

const titles = (b: Board, col: string) => columnTasks(b, col).map((t) => t.id)

describe('ordering keys', () => {
  it('are the keys the server computes', () => {
    for (const [a, b, want] of VECTORS) expect(generateKeyBetween(a, b)).toBe(want)
  })

  it('sort by character code, never by locale, with ties broken by id', () => {
    const rows = [{ id: '2', position: 'a0' }, { id: '1', position: 'Zz' }, { id: '0', position: 'a0' }, { id: '3', position: 'a0V' }]
    expect([...rows].sort(compareByPosition).map((r) => r.id)).toEqual(['1', '0', '2', '3'])
  })
})

describe('kanban drops', () => {
  it('reorders within a column like arrayMove', () => {
    const b = board()
    expect(taskDrop(b, 'A', { type: 'task', id: 'C' })).toEqual({ kind: 'move', columnId: 'todo', index: 2 })
    const { board: after, neighbours } = moveTaskLocally(b, 'A', 'todo', 2)
    expect(titles(after, 'todo')).toEqual(['B', 'C', 'A'])
    expect(neighbours).toEqual({ after_id: 'C', before_id: undefined })
    const d = taskDrop(b, 'C', { type: 'task', id: 'A' })
    expect(d).toEqual({ kind: 'move', columnId: 'todo', index: 0 })
    expect(titles(moveTaskLocally(b, 'C', 'todo', 0).board, 'todo')).toEqual(['C', 'A', 'B'])
  })

  it('does nothing when a task is dropped on another column\'s task', () => {
    expect(taskDrop(board(), 'A', { type: 'task', id: 'D' })).toEqual({ kind: 'none' })
  })

  it('moves a task dropped on a column to its end', () => {
    const b = board()
    const d = taskDrop(b, 'A', { type: 'column', id: 'doing' })
    expect(d).toEqual({ kind: 'move', columnId: 'doing', index: 1 })
    const { board: after, neighbours } = moveTaskLocally(b, 'A', 'doing', 1)
    expect(titles(after, 'doing')).toEqual(['D', 'A'])
    expect(titles(after, 'todo')).toEqual(['B', 'C'])
    expect(neighbours).toEqual({ after_id: 'D', before_id: undefined })
  })

  it('reorders columns', () => {
    const { board: after, neighbours } = moveColumnLocally(board(), 'done', 0)
    expect(sortedColumns(after).map((c) => c.id)).toEqual(['done', 'todo', 'doing'])
    expect(neighbours).toEqual({ after_id: undefined, before_id: 'todo' })
  })
})

describe('board events', () => {
  it('replace rows, remove deleted ones, and skip what the board already has', () => {
    const b = board()
    const moved = { ...task('A', 'doing', 'a1') }
    const next = applyPatch(b, { columns: [], tasks: [moved, task('E', 'todo', 'a3')], categories: [], deleted_task_ids: ['B'], deleted_category_ids: [] }, 11)
    expect(next.seq).toBe(11)
    expect(titles(next, 'todo')).toEqual(['C', 'E'])
    expect(titles(next, 'doing')).toEqual(['D', 'A'])
    expect(applyPatch(next, { columns: [], tasks: [task('Z', 'todo', 'a9')], categories: [], deleted_task_ids: [], deleted_category_ids: [] }, 11)).toBe(next)
  })
})
