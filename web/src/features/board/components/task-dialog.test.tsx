import type { Category } from '@/api/types/Category'
import type { Task } from '@/api/types/Task'
import { render, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import { AddColumnDialog } from './add-column-dialog'
import { TaskDialog } from './task-dialog'

const categories: Category[] = [{ id: 'cat-1', client_id: null, name: 'Data quality', is_default: true, created_by: null }]

const task = {
  id: 't-1', client_id: 'c-1', column_id: 'todo', title: 'Reconcile', description: 'PSE list', category_id: 'cat-1',
  category_name: 'Data quality', priority: 'high', due_date: '2026-12-01', completed_at: null, position: 'a0',
  created_by: null, created_at: '', updated_at: '',
} satisfies Task

describe('TaskDialog', () => {
  it('requires a title and sends nothing without one', async () => {
    const onSave = vi.fn(async () => true)
    render(<TaskDialog task={null} categories={categories} onClose={() => {}} onSave={onSave} />)
    await userEvent.type(screen.getByLabelText('Title'), '   ')
    await userEvent.click(screen.getByRole('button', { name: 'Create Task' }))
    expect(await screen.findByText('Title is required')).toBeInTheDocument()
    expect(screen.getByLabelText('Title')).toHaveAttribute('aria-invalid', 'true')
    expect(onSave).not.toHaveBeenCalled()
  })

  it('creates with the trimmed title, medium priority by default and empty fields as null', async () => {
    const onSave = vi.fn(async () => true)
    const onClose = vi.fn()
    render(<TaskDialog task={null} categories={categories} onClose={onClose} onSave={onSave} />)
    await userEvent.type(screen.getByLabelText('Title'), '  Check MDB codes ')
    await userEvent.click(screen.getByRole('button', { name: 'Create Task' }))
    await waitFor(() => expect(onClose).toHaveBeenCalled())
    expect(onSave).toHaveBeenCalledWith({ title: 'Check MDB codes', description: '', category_id: null, priority: 'medium', due_date: null })
  })

  it('edits a task: the fields start from it, and a failed save keeps the dialog open', async () => {
    const onSave = vi.fn(async () => false)
    const onClose = vi.fn()
    render(<TaskDialog task={task} categories={categories} onClose={onClose} onSave={onSave} />)
    expect(screen.getByLabelText('Title')).toHaveValue('Reconcile')
    expect(screen.getByLabelText('Description')).toHaveValue('PSE list')
    expect(screen.getByLabelText('Category')).toHaveValue('cat-1')
    expect(screen.getByLabelText('Due date')).toHaveValue('2026-12-01')
    await userEvent.selectOptions(screen.getByLabelText('Priority'), '')
    await userEvent.selectOptions(screen.getByLabelText('Category'), '')
    await userEvent.click(screen.getByRole('button', { name: 'Save Changes' }))
    await waitFor(() => expect(onSave).toHaveBeenCalledTimes(1))
    expect(onSave).toHaveBeenCalledWith({ title: 'Reconcile', description: 'PSE list', category_id: null, priority: null, due_date: '2026-12-01' })
    expect(onClose).not.toHaveBeenCalled()
  })
})

describe('AddColumnDialog', () => {
  it('adds a trimmed name only when it is not blank, then clears and closes', async () => {
    const onAdd = vi.fn(async () => true)
    const onOpenChange = vi.fn()
    render(<AddColumnDialog open onOpenChange={onOpenChange} onAdd={onAdd} />)
    const add = screen.getByRole('button', { name: 'Add Column' })
    expect(add).toBeDisabled()
    await userEvent.type(screen.getByLabelText('Name'), '  ')
    expect(add).toBeDisabled()
    await userEvent.type(screen.getByLabelText('Name'), 'Blocked ')
    await userEvent.click(add)
    await waitFor(() => expect(onOpenChange).toHaveBeenCalledWith(false))
    expect(onAdd).toHaveBeenCalledWith('Blocked')
    expect(screen.getByLabelText('Name')).toHaveValue('')
  })
})
