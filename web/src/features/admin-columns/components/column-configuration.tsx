import {
  closestCenter,
  DndContext,
  KeyboardSensor,
  MouseSensor,
  TouchSensor,
  useSensor,
  useSensors,
  type DragEndEvent,
} from '@dnd-kit/core'
import { SortableContext, sortableKeyboardCoordinates, useSortable, verticalListSortingStrategy } from '@dnd-kit/sortable'
import { CSS } from '@dnd-kit/utilities'
import { GripVertical, Pencil, Plus, Trash2 } from 'lucide-react'
import { useState } from 'react'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card } from '@/components/ui/card'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { Label } from '@/components/ui/label'
import { Select } from '@/components/ui/select'
import { errorMessage } from '@/lib/api-client'
import { cn } from '@/lib/cn'
import { toast } from '@/lib/toast'

import {
  useCreateDefinition,
  useDefinitions,
  useDeleteDefinition,
  useLevers,
  useReorderDefinitions,
  useUpdateDefinition,
  type ColumnDefinition,
  type ColumnDefinitionInput,
} from '../api'
import { reorderedIds } from '../utils/order'
import type { DefinitionValues } from '../utils/schemas'
import { DefinitionDialog } from './definition-dialog'

const NO_DEFINITIONS: ColumnDefinition[] = []

const CATEGORY_TONE: Record<string, string> = {
  core: 'bg-blue-100 text-blue-800',
  analysis: 'bg-violet-100 text-violet-800',
  optional: 'bg-slate-100 text-slate-700',
}

function inputOf(v: DefinitionValues): ColumnDefinitionInput {
  return {
    name: v.name.trim(),
    dataType: v.dataType,
    description: v.description.trim(),
    isRequired: v.isRequired,
    category: v.category,
    displayOrder: v.displayOrder,
  }
}

/**
 * Column Configuration (administrators): pick a lever, then list, add, edit, delete and reorder
 * (drag and drop, or the keyboard: Space picks a row up, arrows move it, Space drops it) its column
 * definitions. They drive the mapping dialog's standard columns and the columns a run requires.
 */
export function ColumnConfiguration() {
  const levers = useLevers()
  const [leverId, setLeverId] = useState<string | null>(null)
  const definitions = useDefinitions(leverId)
  const rows = definitions.data ?? NO_DEFINITIONS
  const [dialog, setDialog] = useState<{ editing: ColumnDefinition | null } | null>(null)
  const [deleting, setDeleting] = useState<ColumnDefinition | null>(null)
  const create = useCreateDefinition(leverId ?? '')
  const update = useUpdateDefinition(leverId ?? '')
  const remove = useDeleteDefinition(leverId ?? '')
  const reorder = useReorderDefinitions(leverId ?? '')
  const sensors = useSensors(
    useSensor(MouseSensor, { activationConstraint: { distance: 5 } }),
    useSensor(TouchSensor, { activationConstraint: { delay: 200, tolerance: 5 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  )
  const lever = levers.data?.find((l) => l.id === leverId) ?? null
  const nextOrder = rows.reduce((m, r) => Math.max(m, r.displayOrder), 0) + 1

  const onAdd = () => {
    if (!leverId) {
      toast.error('No lever selected', 'Select a lever before adding a column.')
      return
    }
    setDialog({ editing: null })
  }

  const onSave = async (values: DefinitionValues): Promise<boolean> => {
    const editing = dialog?.editing ?? null
    try {
      if (editing) {
        await update.mutateAsync({ id: editing.id, input: inputOf(values) })
        toast.success('Column updated', `${values.name.trim()} was saved.`)
      } else {
        await create.mutateAsync(inputOf(values))
        toast.success('Column created', `${values.name.trim()} was added to ${lever?.name ?? 'the lever'}.`)
      }
      return true
    } catch (e) {
      toast.error(editing ? 'Error updating column' : 'Error creating column', errorMessage(e, 'The column could not be saved.'))
      return false
    }
  }

  const onDelete = async () => {
    if (!deleting) return
    try {
      await remove.mutateAsync(deleting.id)
      toast.success('Column deleted', `${deleting.name} was removed.`)
      setDeleting(null)
    } catch (e) {
      toast.error('Error deleting column', errorMessage(e, 'The column could not be deleted.'))
    }
  }

  const onDragEnd = ({ active, over }: DragEndEvent) => {
    const ids = reorderedIds(
      rows.map((r) => r.id),
      String(active.id),
      over ? String(over.id) : null,
    )
    if (!ids) return
    reorder.mutate(ids, {
      onError: (e) => toast.error('Error updating column', errorMessage(e, 'The new order could not be saved.')),
    })
  }

  return (
    <div className="mx-auto max-w-5xl space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold tracking-tight text-slate-900">Column Configuration</h1>
          <p className="mt-1 text-sm text-slate-500">The standard columns of each lever: what files are mapped to and what a run requires.</p>
        </div>
        <Button onClick={onAdd}>
          <Plus /> Add Column
        </Button>
      </div>
      <div className="w-96 max-w-full space-y-1.5">
        <Label htmlFor="column-lever">Lever</Label>
        <Select id="column-lever" value={leverId ?? ''} onChange={(e) => setLeverId(e.target.value || null)} disabled={!levers.data}>
          <option value="">Select a lever</option>
          {(levers.data ?? []).map((l) => (
            <option key={l.id} value={l.id}>
              {l.name} ({l.category})
            </option>
          ))}
        </Select>
      </div>
      {levers.isError ? (
        <Alert variant="destructive">{levers.error.message}</Alert>
      ) : !leverId ? (
        <Card className="p-10 text-center">
          <p className="font-medium text-slate-900">No lever selected</p>
          <p className="mt-1 text-sm text-slate-500">Select a lever to see and manage its column definitions.</p>
        </Card>
      ) : definitions.isError ? (
        <Alert variant="destructive">{definitions.error.message}</Alert>
      ) : definitions.isPending ? (
        <p className="text-sm text-slate-500">Loading column definitions...</p>
      ) : rows.length === 0 ? (
        <Card className="p-10 text-center">
          <p className="font-medium text-slate-900">No column definitions</p>
          <p className="mt-1 text-sm text-slate-500">Files of this lever are mapped to the engine&apos;s standard columns until you add some.</p>
        </Card>
      ) : (
        <DndContext sensors={sensors} collisionDetection={closestCenter} onDragEnd={onDragEnd}>
          <SortableContext items={rows.map((r) => r.id)} strategy={verticalListSortingStrategy}>
            <ul aria-label={`Column definitions of ${lever?.name ?? 'the lever'}`} className="space-y-2">
              {rows.map((d) => (
                <DefinitionRow key={d.id} d={d} onEdit={() => setDialog({ editing: d })} onDelete={() => setDeleting(d)} />
              ))}
            </ul>
          </SortableContext>
        </DndContext>
      )}
      <DefinitionDialog
        open={dialog !== null}
        onOpenChange={(open) => !open && setDialog(null)}
        editing={dialog?.editing ?? null}
        nextOrder={nextOrder}
        onSave={onSave}
      />
      <Dialog open={deleting !== null} onOpenChange={(open) => !open && setDeleting(null)}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Delete Column Definition</DialogTitle>
            <DialogDescription>
              Are you sure you want to delete the column &quot;{deleting?.name}&quot;? Files of this lever will no longer be mapped to it. This action
              cannot be undone.
            </DialogDescription>
          </DialogHeader>
          <DialogFooter>
            <Button variant="outline" onClick={() => setDeleting(null)}>
              Cancel
            </Button>
            <Button variant="destructive" onClick={onDelete} disabled={remove.isPending}>
              Delete
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </div>
  )
}

function DefinitionRow({ d, onEdit, onDelete }: { d: ColumnDefinition; onEdit: () => void; onDelete: () => void }) {
  const { attributes, listeners, setNodeRef, setActivatorNodeRef, transform, transition, isDragging } = useSortable({ id: d.id })
  return (
    <li
      ref={setNodeRef}
      style={{ transform: CSS.Transform.toString(transform), transition }}
      className={cn('flex items-start gap-3 rounded-lg border border-slate-200 bg-white p-3 shadow-xs', isDragging && 'opacity-60')}
      data-testid="column-definition"
    >
      <button
        ref={setActivatorNodeRef}
        type="button"
        className="mt-0.5 cursor-grab rounded p-1 text-slate-400 hover:text-slate-700 focus-visible:ring-2 focus-visible:ring-brand-200 focus-visible:outline-none active:cursor-grabbing"
        aria-label={`Move ${d.name}`}
        {...attributes}
        {...listeners}
      >
        <GripVertical className="size-4" />
      </button>
      <div className="min-w-0 flex-1">
        <div className="flex flex-wrap items-center gap-2">
          <span className="font-medium text-slate-900">{d.name}</span>
          <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-700">{d.dataType}</span>
          <span className={cn('rounded px-1.5 py-0.5 text-xs', CATEGORY_TONE[d.category])}>{d.category}</span>
          {d.isRequired ? <span className="rounded bg-red-100 px-1.5 py-0.5 text-xs font-medium text-red-700">Required</span> : null}
          <span className="text-xs text-slate-400">#{d.displayOrder}</span>
        </div>
        {d.description ? <p className="mt-1 text-sm text-slate-600">{d.description}</p> : null}
      </div>
      <Button variant="ghost" size="sm" onClick={onEdit} aria-label={`Edit ${d.name}`}>
        <Pencil />
      </Button>
      <Button variant="ghost" size="sm" onClick={onDelete} aria-label={`Delete ${d.name}`}>
        <Trash2 />
      </Button>
    </li>
  )
}
