import type { Column } from '@/api/types/Column'
import type { Task } from '@/api/types/Task'
import { SortableContext, useSortable, verticalListSortingStrategy } from '@dnd-kit/sortable'
import { CSS } from '@dnd-kit/utilities'
import { Check, GripVertical, Pencil, Plus, X } from 'lucide-react'
import { zodResolver } from '@hookform/resolvers/zod'
import { useState } from 'react'
import { useForm, useWatch } from 'react-hook-form'

import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { cn } from '@/lib/cn'

import { nameSchema, type NameValues } from '../utils/schemas'
import { TaskCard } from './task-card'

type Props = {
  column: Column
  tasks: Task[]
  canEdit: boolean
  onAddTask: (columnId: string) => void
  onEditTask: (task: Task) => void
  onDeleteTask: (task: Task) => void
  onRename: (column: Column, name: string) => Promise<boolean>
}

/** A column: sortable by its header, a drop target for tasks, and the list of its task cards. */
export function BoardColumn({ column, tasks, canEdit, onAddTask, onEditTask, onDeleteTask, onRename }: Props) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging, isOver } = useSortable({
    id: `col:${column.id}`,
    data: { type: 'column', id: column.id },
    disabled: !canEdit,
  })
  const [editing, setEditing] = useState(false)

  return (
    <section
      ref={setNodeRef}
      style={{ transform: CSS.Transform.toString(transform), transition }}
      className={cn(
        'flex max-h-full w-[300px] max-w-[350px] min-w-[250px] shrink-0 flex-col rounded-xl border border-slate-200 bg-slate-50',
        isDragging && 'opacity-50',
        isOver && 'ring-2 ring-brand-300',
      )}
      aria-label={column.name}
      data-testid="board-column"
      data-column-id={column.id}
    >
      <header className="flex items-center gap-1 border-b border-slate-200 px-2 py-2">
        {canEdit ? (
          <button
            ref={setActivatorNodeRef}
            type="button"
            className="cursor-grab rounded p-1 text-slate-400 hover:bg-slate-200 active:cursor-grabbing"
            aria-label={`Move column ${column.name}`}
            {...attributes}
            {...listeners}
          >
            <GripVertical className="size-4" />
          </button>
        ) : null}
        {editing ? (
          <ColumnNameForm initial={column.name} onSave={(name) => onRename(column, name)} onDone={() => setEditing(false)} />
        ) : (
          <>
            <h2 className="flex-1 truncate px-1 text-sm font-semibold text-slate-800">{column.name}</h2>
            <span className="rounded-full bg-slate-200 px-2 text-xs text-slate-600">{tasks.length}</span>
            {canEdit ? (
              <Button
                variant="ghost"
                size="icon"
                className="size-7"
                aria-label={`Rename column ${column.name}`}
                onClick={() => setEditing(true)}
              >
                <Pencil />
              </Button>
            ) : null}
          </>
        )}
      </header>
      <SortableContext items={tasks.map((t) => `task:${t.id}`)} strategy={verticalListSortingStrategy}>
        <div className="flex min-h-24 flex-1 flex-col gap-2 overflow-y-auto p-2">
          {tasks.map((t) => (
            <TaskCard key={t.id} task={t} canEdit={canEdit} onEdit={onEditTask} onDelete={onDeleteTask} />
          ))}
        </div>
      </SortableContext>
      {canEdit ? (
        <div className="border-t border-slate-200 p-2">
          <Button variant="ghost" size="sm" className="w-full justify-start" onClick={() => onAddTask(column.id)}>
            <Plus /> Add Task
          </Button>
        </div>
      ) : null}
    </section>
  )
}

/** Renames a column in place: Save (or Enter) sends a non-blank name, Cancel leaves it. */
function ColumnNameForm({ initial, onSave, onDone }: { initial: string; onSave: (name: string) => Promise<boolean>; onDone: () => void }) {
  const { register, handleSubmit, control } = useForm<NameValues>({ resolver: zodResolver(nameSchema), defaultValues: { name: initial } })
  const blank = useWatch({ control, name: 'name' }).trim() === ''
  const submit = handleSubmit(async ({ name }) => {
    if (await onSave(name)) onDone()
  })
  return (
    <form className="flex flex-1 items-center gap-1" onSubmit={submit} noValidate>
      <Input aria-label="Column name" className="h-8" autoFocus {...register('name')} />
      <Button type="submit" variant="ghost" size="icon" className="size-7" aria-label="Save column name" disabled={blank}>
        <Check />
      </Button>
      <Button variant="ghost" size="icon" className="size-7" aria-label="Cancel renaming" onClick={onDone}>
        <X />
      </Button>
    </form>
  )
}
