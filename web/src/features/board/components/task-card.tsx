import type { Task } from '@/api/types/Task'
import { useSortable } from '@dnd-kit/sortable'
import { CSS } from '@dnd-kit/utilities'
import { CalendarDays, Pencil, Trash2 } from 'lucide-react'

import { Button } from '@/components/ui/button'
import { cn } from '@/lib/cn'
import { formatDate } from '@/lib/format'

/** Priority colours of the specification: low blue, medium yellow, high red. */
export const PRIORITY_STYLE: Record<string, string> = {
  low: 'bg-blue-100 text-blue-800',
  medium: 'bg-yellow-100 text-yellow-800',
  high: 'bg-red-100 text-red-800',
}

type Props = {
  task: Task
  canEdit: boolean
  onEdit: (task: Task) => void
  onDelete: (task: Task) => void
}

/** A task card; draggable within its column (and onto other columns) unless read-only. */
export function TaskCard({ task, canEdit, onEdit, onDelete }: Props) {
  const { attributes, listeners, setNodeRef, transform, transition, isDragging } = useSortable({
    id: `task:${task.id}`,
    data: { type: 'task', id: task.id, columnId: task.column_id },
    disabled: !canEdit,
  })
  return (
    <article
      ref={setNodeRef}
      style={{ transform: CSS.Transform.toString(transform), transition }}
      className={cn(
        'group rounded-lg border border-slate-200 bg-white p-3 shadow-xs',
        canEdit && 'cursor-grab active:cursor-grabbing',
        isDragging && 'opacity-50',
      )}
      data-testid="task-card"
      data-task-id={task.id}
      aria-label={task.title}
      {...(canEdit ? attributes : {})}
      {...(canEdit ? listeners : {})}
    >
      <div className="flex items-start justify-between gap-2">
        <h3 className="text-sm font-medium break-words text-slate-900">{task.title}</h3>
        {canEdit ? (
          <div className="flex shrink-0 gap-0.5 opacity-70 group-hover:opacity-100">
            <Button
              variant="ghost"
              size="icon"
              className="size-7"
              aria-label={`Edit ${task.title}`}
              onPointerDown={(e) => e.stopPropagation()}
              onClick={() => onEdit(task)}
            >
              <Pencil />
            </Button>
            <Button
              variant="ghost"
              size="icon"
              className="size-7 text-red-600"
              aria-label={`Delete ${task.title}`}
              onPointerDown={(e) => e.stopPropagation()}
              onClick={() => onDelete(task)}
            >
              <Trash2 />
            </Button>
          </div>
        ) : null}
      </div>
      {task.description ? <p className="mt-1 line-clamp-3 text-xs text-slate-600">{task.description}</p> : null}
      <div className="mt-2 flex flex-wrap items-center gap-1.5 text-xs">
        {task.priority ? (
          <span className={cn('rounded-full px-2 py-0.5 font-medium capitalize', PRIORITY_STYLE[task.priority])}>{task.priority}</span>
        ) : null}
        {task.category_name ? <span className="rounded-full bg-slate-100 px-2 py-0.5 text-slate-700">{task.category_name}</span> : null}
        {task.due_date ? (
          <span className="inline-flex items-center gap-1 text-slate-500">
            <CalendarDays className="size-3" aria-hidden="true" />
            <time dateTime={task.due_date}>{formatDate(task.due_date)}</time>
          </span>
        ) : null}
      </div>
    </article>
  )
}
