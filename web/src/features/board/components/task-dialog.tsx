import type { Category } from '@/api/types/Category'
import type { Task } from '@/api/types/Task'
import { zodResolver } from '@hookform/resolvers/zod'
import { useForm } from 'react-hook-form'

import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { FormField } from '@/components/ui/form-field'
import { Input } from '@/components/ui/input'
import { Select } from '@/components/ui/select'
import { Textarea } from '@/components/ui/textarea'

import { taskSchema, type TaskValues } from '../utils/schemas'

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

const PRIORITIES = ['', 'low', 'medium', 'high'] as const
const priorityOf = (value: string | null): TaskValues['priority'] => PRIORITIES.find((p) => p === value) ?? ''

/** The create-task and edit-task dialogs: title, description, category, priority and due date. */
export function TaskDialog({ task, categories, onClose, onSave }: Props) {
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm<TaskValues>({
    resolver: zodResolver(taskSchema),
    defaultValues: {
      title: task?.title ?? '',
      description: task?.description ?? '',
      category_id: task?.category_id ?? '',
      priority: task ? priorityOf(task.priority) : 'medium',
      due_date: task?.due_date ?? '',
    },
  })

  const submit = handleSubmit(async (values) => {
    const ok = await onSave({
      title: values.title,
      description: values.description,
      category_id: values.category_id || null,
      priority: values.priority || null,
      due_date: values.due_date || null,
    })
    if (ok) onClose()
  })

  return (
    <Dialog open onOpenChange={(open) => !open && onClose()}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>{task ? 'Edit Task' : 'Create New Task'}</DialogTitle>
          <DialogDescription>{task ? 'Change the details of this task.' : 'Add a task to this column.'}</DialogDescription>
        </DialogHeader>
        <form className="space-y-4" onSubmit={submit} noValidate>
          <FormField label="Title" error={errors.title?.message}>
            {(ids) => <Input {...ids} autoFocus {...register('title')} />}
          </FormField>
          <FormField label="Description" error={errors.description?.message}>
            {(ids) => <Textarea {...ids} rows={4} {...register('description')} />}
          </FormField>
          <div className="grid gap-4 sm:grid-cols-3">
            <FormField label="Category" error={errors.category_id?.message}>
              {(ids) => (
                <Select {...ids} {...register('category_id')}>
                  <option value="">No category</option>
                  {categories.map((c) => (
                    <option key={c.id} value={c.id}>
                      {c.name}
                    </option>
                  ))}
                </Select>
              )}
            </FormField>
            <FormField label="Priority" error={errors.priority?.message}>
              {(ids) => (
                <Select {...ids} {...register('priority')}>
                  {task ? <option value="">None</option> : null}
                  <option value="low">Low</option>
                  <option value="medium">Medium</option>
                  <option value="high">High</option>
                </Select>
              )}
            </FormField>
            <FormField label="Due date" error={errors.due_date?.message}>
              {(ids) => <Input {...ids} type="date" {...register('due_date')} />}
            </FormField>
          </div>
          <DialogFooter>
            <Button type="button" variant="outline" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" disabled={isSubmitting}>
              {task ? 'Save Changes' : 'Create Task'}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  )
}
