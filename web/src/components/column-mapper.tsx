import {
  closestCenter,
  DndContext,
  pointerWithin,
  KeyboardSensor,
  MouseSensor,
  TouchSensor,
  useDraggable,
  useDroppable,
  useSensor,
  useSensors,
  type CollisionDetection,
  type DragEndEvent,
  type KeyboardCoordinateGetter,
} from '@dnd-kit/core'
import { CSS } from '@dnd-kit/utilities'
import { AlertTriangle, CheckCircle2, GripVertical, Search } from 'lucide-react'
import { useId, useState } from 'react'

import type { DetectedColumn } from '@/api/types/DetectedColumn'
import type { StandardColumn } from '@/api/types/StandardColumn'
import { Alert } from '@/components/ui/alert'
import { Input } from '@/components/ui/input'
import { Select } from '@/components/ui/select'
import { cn } from '@/lib/cn'
import { filterStandardColumns, linkColumns, targetOf, unlinkColumn, type Mapping } from '@/lib/column-mapping'

const SOURCE_PREFIX = 'source:'
const TARGET_PREFIX = 'target:'

export type ColumnMapperProps = {
  /** The file's columns (name, detected type, sample values). */
  columns: readonly DetectedColumn[]
  /** The lever's standard columns. */
  standardColumns: readonly StandardColumn[]
  mapping: Mapping
  onChange: (next: Mapping) => void
}

/**
 * The drag-and-drop column mapper, shared by the file processor's mapping dialog and the
 * classification review: the file's columns dragged onto the lever's standard columns (or
 * chosen in each row's list; 'No mapping' clears a link), with a search by name or description
 * and a 'mapped only' switch. A drop removes earlier links of the same standard column and of the
 * same source column. Keyboard: Space picks a file column up, the arrows move it from row to
 * row, Space drops it.
 */
export function ColumnMapper({ columns, standardColumns, mapping, onChange }: ColumnMapperProps) {
  const [search, setSearch] = useState('')
  const [mappedOnly, setMappedOnly] = useState(false)
  const ids = { search: useId(), mappedOnly: useId() }
  const sources = columns.map((c) => c.name)
  const visibleStandard = filterStandardColumns(standardColumns, mapping, search, mappedOnly)
  const sensors = useSensors(
    useSensor(MouseSensor, { activationConstraint: { distance: 4 } }),
    useSensor(TouchSensor, { activationConstraint: { delay: 200, tolerance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: targetRowCoordinates }),
  )
  const link = (standard: string, source: string) => onChange(linkColumns(mapping, standard, source))
  const unlink = (standard: string) => onChange(unlinkColumn(mapping, standard))
  const onDragEnd = (event: DragEndEvent) => {
    const source = String(event.active.id)
    const target = event.over ? String(event.over.id) : ''
    if (!source.startsWith(SOURCE_PREFIX) || !target.startsWith(TARGET_PREFIX)) return
    link(target.slice(TARGET_PREFIX.length), source.slice(SOURCE_PREFIX.length))
  }
  return (
    <DndContext sensors={sensors} collisionDetection={dropTarget} onDragEnd={onDragEnd} accessibility={{ announcements: announcements(standardColumns) }}>
      <div className="grid gap-4 lg:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
        <section aria-label="File columns" className="space-y-2">
          <h3 className="text-sm font-semibold text-slate-900">File columns ({sources.length})</h3>
          <ul className="max-h-96 space-y-1.5 overflow-y-auto pr-1">
            {columns.map((column) => (
              <SourceChip key={column.name} name={column.name} dataType={column.dataType} samples={column.samples} target={targetOf(mapping, column.name)} />
            ))}
          </ul>
        </section>
        <section aria-label="Standard columns" className="space-y-2">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <h3 className="text-sm font-semibold text-slate-900">Standard columns</h3>
            <div className="flex items-center gap-3">
              <div className="relative">
                <Search className="pointer-events-none absolute top-1/2 left-2.5 size-4 -translate-y-1/2 text-slate-400" aria-hidden />
                <Input
                  id={ids.search}
                  aria-label="Search standard columns"
                  placeholder="Search by name or description"
                  className="h-8 w-60 pl-8"
                  value={search}
                  onChange={(e) => setSearch(e.target.value)}
                />
              </div>
              <label htmlFor={ids.mappedOnly} className="flex items-center gap-1.5 text-sm text-slate-700">
                <input id={ids.mappedOnly} type="checkbox" checked={mappedOnly} onChange={(e) => setMappedOnly(e.target.checked)} />
                Mapped only
              </label>
            </div>
          </div>
          <ul className="max-h-96 space-y-1.5 overflow-y-auto pr-1">
            {visibleStandard.map((column) => (
              <TargetRow key={column.name} column={column} source={mapping[column.name] ?? ''} sources={sources} onLink={link} onUnlink={unlink} />
            ))}
            {visibleStandard.length === 0 && <li className="p-3 text-sm text-slate-500">No standard columns match.</li>}
          </ul>
        </section>
      </div>
    </DndContext>
  )
}

/**
 * Where a drop lands: with a pointer, the standard column under it (a drop anywhere else maps
 * nothing); with the keyboard, which moves the column from row to row, the row it sits on.
 */
export const dropTarget: CollisionDetection = (args) => (args.pointerCoordinates ? pointerWithin(args) : closestCenter(args))

/**
 * The keyboard's moves while a file column is picked up: Right (or Down) onto the next standard
 * column, Up or Left onto the previous one, in the order the rows are shown; Space or Enter drops
 * it there, Escape puts it back. (dnd-kit's default moves 25 px per key press, which a scrolled
 * list of rows clips.)
 */
export const targetRowCoordinates: KeyboardCoordinateGetter = (event, { context }) => {
  const forward = event.code === 'ArrowDown' || event.code === 'ArrowRight'
  const backward = event.code === 'ArrowUp' || event.code === 'ArrowLeft'
  if (!forward && !backward) return undefined
  event.preventDefault()
  const rows = context.droppableContainers
    .getEnabled()
    .filter((c) => String(c.id).startsWith(TARGET_PREFIX))
    .flatMap((c) => {
      const rect = context.droppableRects.get(c.id)
      return rect ? [{ id: c.id, rect }] : []
    })
    .sort((a, b) => a.rect.top - b.rect.top)
  if (rows.length === 0) return undefined
  const at = rows.findIndex((r) => r.id === context.over?.id)
  const next = at < 0 ? (forward ? 0 : rows.length - 1) : Math.max(0, Math.min(rows.length - 1, at + (forward ? 1 : -1)))
  const rect = rows[next]!.rect
  return { x: rect.left + 8, y: rect.top + 4 }
}

/** Screen-reader announcements of the drag and drop, in the mapper's words. */
function announcements(standard: readonly StandardColumn[]) {
  const name = (id: string | number) => String(id).replace(SOURCE_PREFIX, '').replace(TARGET_PREFIX, '')
  const known = new Set(standard.map((c) => c.name))
  return {
    onDragStart: ({ active }: { active: { id: string | number } }) => `Picked up file column ${name(active.id)}.`,
    onDragOver: ({ active, over }: { active: { id: string | number }; over: { id: string | number } | null }) =>
      over && known.has(name(over.id)) ? `File column ${name(active.id)} is over standard column ${name(over.id)}.` : `File column ${name(active.id)} is not over a standard column.`,
    onDragEnd: ({ active, over }: { active: { id: string | number }; over: { id: string | number } | null }) =>
      over ? `File column ${name(active.id)} was mapped to ${name(over.id)}.` : `File column ${name(active.id)} was dropped without a mapping.`,
    onDragCancel: ({ active }: { active: { id: string | number } }) => `Dragging file column ${name(active.id)} was cancelled.`,
  }
}

function SourceChip({ name, dataType, samples, target }: { name: string; dataType: string; samples: string[]; target: string | null }) {
  const { attributes, listeners, setNodeRef, transform, isDragging } = useDraggable({ id: SOURCE_PREFIX + name })
  return (
    <li
      ref={setNodeRef}
      style={{ transform: CSS.Translate.toString(transform) }}
      className={cn(
        'flex cursor-grab items-start gap-2 rounded-md border bg-white p-2 text-sm shadow-xs focus-visible:ring-2 focus-visible:ring-brand-300 focus-visible:outline-none',
        target ? 'border-emerald-300' : 'border-slate-200',
        isDragging && 'relative z-10 opacity-80 shadow-lg',
      )}
      data-testid={`source-${name}`}
      {...attributes}
      {...listeners}
      aria-label={`File column ${name}${target ? `, mapped to ${target}` : ''}`}
      aria-roledescription="draggable file column"
    >
      <GripVertical className="mt-0.5 size-4 shrink-0 text-slate-400" aria-hidden />
      <div className="min-w-0 flex-1">
        <div className="flex items-center justify-between gap-2">
          <span className="truncate font-medium text-slate-900">{name}</span>
          <span className="shrink-0 rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-600">{dataType}</span>
        </div>
        <p className="truncate text-xs text-slate-500">{samples.length > 0 ? samples.join(' · ') : 'No sample values'}</p>
        {target && <p className="text-xs text-emerald-700">→ {target}</p>}
      </div>
    </li>
  )
}

type TargetRowProps = {
  column: StandardColumn
  source: string
  sources: string[]
  onLink: (standard: string, source: string) => void
  onUnlink: (standard: string) => void
}

function TargetRow({ column, source, sources, onLink, onUnlink }: TargetRowProps) {
  const { setNodeRef, isOver } = useDroppable({ id: TARGET_PREFIX + column.name })
  const selectId = useId()
  return (
    <li
      ref={setNodeRef}
      data-testid={`target-${column.name}`}
      className={cn(
        'grid gap-2 rounded-md border p-2 text-sm sm:grid-cols-[minmax(0,1fr)_12rem]',
        isOver ? 'border-brand-500 bg-brand-50' : source ? 'border-emerald-300 bg-emerald-50/40' : 'border-dashed border-slate-300 bg-white',
      )}
    >
      <div className="min-w-0">
        <div className="flex flex-wrap items-center gap-1.5">
          <label htmlFor={selectId} className="font-medium text-slate-900">
            {column.name}
          </label>
          {column.isRequired && <span className="rounded bg-red-100 px-1.5 py-0.5 text-xs font-medium text-red-700">Required</span>}
          <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-600">{column.category}</span>
          <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-600">{column.dataType}</span>
        </div>
        <p className="text-xs text-slate-500">{column.description}</p>
      </div>
      <Select
        id={selectId}
        className="h-9 py-1.5"
        value={source}
        onChange={(e) => (e.target.value ? onLink(column.name, e.target.value) : onUnlink(column.name))}
      >
        <option value="">No mapping</option>
        {sources.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </Select>
    </li>
  )
}

export function MappingValidationPanel({ type, missing, typeErrors, ok }: { type: string; missing: string[]; typeErrors: string[]; ok: boolean }) {
  return (
    <section aria-label="Validation" aria-live="polite" className="space-y-2">
      {missing.length > 0 && (
        <Alert variant="destructive">
          <AlertTriangle />
          <div className="space-y-1.5">
            <p className="font-medium">Missing required columns for {type} analysis</p>
            <div className="flex flex-wrap gap-1">
              {missing.map((m) => (
                <span key={m} className="rounded bg-red-100 px-1.5 py-0.5 text-xs font-medium">
                  {m}
                </span>
              ))}
            </div>
            <p>Please map these columns before proceeding. The analysis cannot run without them.</p>
          </div>
        </Alert>
      )}
      {typeErrors.length > 0 && (
        <Alert variant="destructive">
          <AlertTriangle />
          <div className="space-y-1">
            <p className="font-medium">Data type validation errors:</p>
            <ul className="list-disc pl-4">
              {typeErrors.map((e) => (
                <li key={e}>{e}</li>
              ))}
            </ul>
            <p>Please review your column mappings or check the source data format.</p>
          </div>
        </Alert>
      )}
      {ok && (
        <Alert variant="success">
          <CheckCircle2 />
          <p className="font-medium">All validations passed for {type} analysis!</p>
        </Alert>
      )}
      {!ok && missing.length === 0 && typeErrors.length === 0 && (
        <Alert variant="info">
          <AlertTriangle />
          <p>Map at least one column to continue.</p>
        </Alert>
      )}
    </section>
  )
}
