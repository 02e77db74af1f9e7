import type { Category } from '@/api/types/Category'
import type { Task } from '@/api/types/Task'
import { useState, type FormEvent } from 'react'

import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'

export type TaskForm = {
  title: string
  description: string
  category_id: string | null
  priority: string | null
  due_date: string | null
}

type Props = {
  /** The task being edited; none to create one. */
  task: Task | null
  categories: Category[]
  onClose: () => void
  onSave: (form: TaskForm) => Promise<boolean>
}

const selectClass =
  'flex h-10 w-full rounded-md border border-slate-300 bg-white px-3 text-sm text-slate-900 focus-visible:border-brand-500 focus-visible:ring-2 focus-visible:ring-brand-200 focus-visible:outline-none'

/** The create-task and edit-task dialogs: title, description, category, priority and due date. */
export function TaskDialog({ task, categories, onClose, onSave }: Props) {
  const [form, setForm] = useState<TaskForm>({
    title: task?.title ?? '',
    description: task?.description ?? '',
    category_id: task?.category_id ?? null,
    priority: task ? task.priority : 'medium',
    due_date: task?.due_date ?? null,
  })
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)

  async function submit(e: FormEvent) {
    e.preventDefault()
    if (form.title.trim() === '') {
      setError('Title is required')
      return
    }
    setBusy(true)
    const ok = await onSave({ ...form, title: form.title.trim() })
    setBusy(false)
    if (ok) onClose()
  }

  return (
    <Dialog open onOpenChange={(open) => !open && onClose()}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>{task ? 'Edit Task' : 'Create New Task'}</DialogTitle>
          <DialogDescription>{task ? 'Change the details of this task.' : 'Add a task to this column.'}</DialogDescription>
        </DialogHeader>
        <form className="space-y-4" onSubmit={submit} noValidate>
          <div className="space-y-1.5">
            <Label htmlFor="task-title">Title</Label>
            <Input
              id="task-title"
              value={form.title}
              aria-invalid={error ? true : undefined}
              onChange={(e) => {
                setForm({ ...form, title: e.target.value })
                setError(null)
              }}
              autoFocus
            />
            {error ? (
              <p className="text-sm text-red-600" role="alert">
                {error}
              </p>
            ) : null}
          </div>
          <div className="space-y-1.5">
            <Label htmlFor="task-description">Description</Label>
            <textarea
              id="task-description"
              className={`${selectClass} h-24 py-2`}
              value={form.description}
              onChange={(e) => setForm({ ...form, description: e.target.value })}
            />
          </div>
          <div className="grid gap-4 sm:grid-cols-3">
            <div className="space-y-1.5">
              <Label htmlFor="task-category">Category</Label>
              <select
                id="task-category"
                className={selectClass}
                value={form.category_id ?? ''}
                onChange={(e) => setForm({ ...form, category_id: e.target.value || null })}
              >
                <option value="">No category</option>
                {categories.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name}
                  </option>
                ))}
              </select>
            </div>
            <div className="space-y-1.5">
              <Label htmlFor="task-priority">Priority</Label>
              <select
                id="task-priority"
                className={selectClass}
                value={form.priority ?? ''}
                onChange={(e) => setForm({ ...form, priority: e.target.value || null })}
              >
                {task ? <option value="">None</option> : null}
                <option value="low">Low</option>
                <option value="medium">Medium</option>
                <option value="high">High</option>
              </select>
            </div>
            <div className="space-y-1.5">
              <Label htmlFor="task-due">Due date</Label>
              <Input
                id="task-due"
                type="date"
                value={form.due_date ?? ''}
                onChange={(e) => setForm({ ...form, due_date: e.target.value || null })}
              />
            </div>
          </div>
          <DialogFooter>
            <Button variant="outline" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" disabled={busy}>
              {task ? 'Save Changes' : 'Create Task'}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  )
}
