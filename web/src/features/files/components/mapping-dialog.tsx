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
import { AlertTriangle, CheckCircle2, GripVertical, Save, Search, Trash2, X } from 'lucide-react'
import { useId, useMemo, useState } from 'react'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { Select } from '@/components/ui/select'
import { Spinner } from '@/components/ui/spinner'
import { cn } from '@/lib/cn'
import { toast } from '@/lib/toast'

import {
  asMaturityUnit,
  asRiskWeightFormat,
  useCreateTemplate,
  useDeleteTemplate,
  useTemplates,
  type Inspection,
  type Lever,
  type MappingTemplate,
  type MaturityUnit,
  type RiskWeightFormat,
  type StandardColumn,
} from '../api'
import {
  analysisType,
  applyTemplate,
  bestTemplate,
  cleanMapping,
  filterStandardColumns,
  linkColumns,
  targetOf,
  unlinkColumn,
  validateMapping,
  type Mapping,
} from '../utils/mapping'

/** What the dialog hands back when the user confirms. */
export type ConfirmedMapping = { mapping: Mapping; riskWeightFormat: RiskWeightFormat | null; maturityUnit: MaturityUnit | null }

export type MappingDialogProps = {
  clientId: string
  fileName: string
  lever: Lever
  inspection: Inspection
  standardColumns: StandardColumn[]
  /** The client's templates for the lever when the dialog opened (a matching one is applied at once). */
  initialTemplates: MappingTemplate[]
  canWrite: boolean
  onCancel: () => void
  onConfirm: (result: ConfirmedMapping) => void
}

/** Rows of the file shown under the mapping. */
const PREVIEW_ROWS = 3
const SOURCE_PREFIX = 'source:'
const TARGET_PREFIX = 'target:'

type Initial = { mapping: Mapping; template: MappingTemplate | null }

/** The mapping the dialog opens with: a template matching the file's columns, else the server's suggestion. */
function initialMapping(inspection: Inspection, standard: readonly StandardColumn[], templates: readonly MappingTemplate[]): Initial {
  const sources = inspection.columns.map((c) => c.name)
  const names = standard.map((c) => c.name)
  const template = bestTemplate(templates, sources)
  if (template) {
    const mapping = applyTemplate(template, sources, names)
    if (Object.keys(mapping).length > 0) return { mapping, template }
  }
  return { mapping: cleanMapping(inspection.suggestedMapping, sources, names), template: null }
}

/**
 * The manual mode's column mapping (spec 2.5): the file's columns dragged onto the lever's
 * standard columns (or chosen in each row's list), templates shared with the client's team, the
 * validation panel, a preview of the first rows with the mapped target over each column, and the
 * detected risk-weight format and maturity unit, which the user may change.
 */
export function MappingDialog(props: MappingDialogProps) {
  const { clientId, fileName, lever, inspection, standardColumns, initialTemplates, canWrite, onCancel, onConfirm } = props
  const [initial] = useState(() => initialMapping(inspection, standardColumns, initialTemplates))
  const [mapping, setMapping] = useState<Mapping>(initial.mapping)
  const [templateId, setTemplateId] = useState<string>(initial.template?.id ?? '')
  const [templateName, setTemplateName] = useState('')
  const [search, setSearch] = useState('')
  const [mappedOnly, setMappedOnly] = useState(false)
  const [riskWeightFormat, setRiskWeightFormat] = useState<RiskWeightFormat | null>(asRiskWeightFormat(inspection.riskWeightFormat))
  const [maturityUnit, setMaturityUnit] = useState<MaturityUnit | null>(asMaturityUnit(inspection.maturityUnit))
  const [autoAppliedName] = useState(initial.template?.name ?? null)

  const templates = useTemplates(clientId, lever.id)
  const templateList = templates.data ?? initialTemplates
  const createTemplate = useCreateTemplate(clientId)
  const deleteTemplate = useDeleteTemplate(clientId)

  const sources = useMemo(() => inspection.columns.map((c) => c.name), [inspection.columns])
  const standardNames = useMemo(() => standardColumns.map((c) => c.name), [standardColumns])
  const validation = useMemo(
    () => validateMapping(mapping, standardColumns, inspection.columns, inspection.preview),
    [mapping, standardColumns, inspection.columns, inspection.preview],
  )
  const visibleStandard = filterStandardColumns(standardColumns, mapping, search, mappedOnly)
  const type = analysisType(lever.name)

  const sensors = useSensors(
    useSensor(MouseSensor, { activationConstraint: { distance: 4 } }),
    useSensor(TouchSensor, { activationConstraint: { delay: 200, tolerance: 4 } }),
    useSensor(KeyboardSensor, { coordinateGetter: targetRowCoordinates }),
  )

  const link = (standard: string, source: string) => setMapping((m) => linkColumns(m, standard, source))
  const unlink = (standard: string) => setMapping((m) => unlinkColumn(m, standard))

  const onDragEnd = (event: DragEndEvent) => {
    const source = String(event.active.id)
    const target = event.over ? String(event.over.id) : ''
    if (!source.startsWith(SOURCE_PREFIX) || !target.startsWith(TARGET_PREFIX)) return
    link(target.slice(TARGET_PREFIX.length), source.slice(SOURCE_PREFIX.length))
  }

  const onLoadTemplate = (id: string) => {
    setTemplateId(id)
    if (!id) return
    const template = templateList.find((t) => t.id === id)
    const next = template ? applyTemplate(template, sources, standardNames) : {}
    if (!template || Object.keys(next).length === 0) {
      toast.error('Template loading failed', 'Failed to apply template mappings.')
      return
    }
    setMapping(next)
    toast.success('Template applied', `${template.name}: ${Object.keys(next).length} columns mapped.`)
  }

  const onSaveTemplate = () => {
    const name = templateName.trim()
    if (!name) {
      toast.error('Template name required', 'Please enter a name for the template.')
      return
    }
    createTemplate.mutate(
      { name, leverId: lever.id, sourceColumns: sources, mapping },
      {
        onSuccess: (saved) => {
          setTemplateName('')
          setTemplateId(saved.id)
          toast.success('Template saved', `"${saved.name}" is shared with your team.`)
        },
        onError: () => toast.error('Save failed', 'Failed to save template. Please try again.'),
      },
    )
  }

  const onDeleteTemplate = () => {
    const id = templateId
    if (!id) return
    deleteTemplate.mutate(id, {
      onSuccess: () => {
        // Deleting the selected template also clears the mapping.
        setTemplateId('')
        setMapping({})
        toast.success('Template deleted')
      },
      onError: () => toast.error('Delete failed', 'Failed to delete template. Please try again.'),
    })
  }

  const onClear = () => {
    setMapping({})
    setTemplateId('')
    toast.success('Mapping cleared')
  }

  const onProcess = () => {
    const cleaned = cleanMapping(mapping, sources, standardNames)
    if (Object.keys(cleaned).length === 0) {
      toast.error('Invalid Mapping', 'No valid column mappings found. Please check your selections.')
      return
    }
    if (validation.missing.length > 0) {
      toast.error('Missing required columns', `The following required columns are not mapped: ${validation.missing.join(', ')}`)
      return
    }
    if (validation.typeErrors.length > 0) {
      toast.error('Data validation errors', 'Please fix the data type errors before proceeding.')
      return
    }
    onConfirm({ mapping: cleaned, riskWeightFormat, maturityUnit })
  }

  const hasMappings = validation.mappedCount > 0
  const ids = { template: useId(), name: useId(), rw: useId(), maturity: useId(), search: useId(), mappedOnly: useId() }
  return (
    <Dialog open onOpenChange={(open) => !open && onCancel()}>
      <DialogContent blocking className="max-w-6xl gap-5 overflow-y-auto">
        <DialogHeader>
          <DialogTitle>Column Mapping</DialogTitle>
          <DialogDescription>
            Map the columns of <span className="font-medium text-slate-700">{fileName}</span> to the standard columns of{' '}
            <span className="font-medium text-slate-700">{lever.name}</span>. Drag a file column onto a standard column, or choose it in
            the row.
          </DialogDescription>
        </DialogHeader>

        <section aria-label="Templates" className="grid gap-3 rounded-lg border border-slate-200 bg-slate-50 p-4 md:grid-cols-2">
          <div className="space-y-1.5">
            <Label htmlFor={ids.template}>Load a template</Label>
            <div className="flex gap-2">
              <Select id={ids.template} value={templateId} onChange={(e) => onLoadTemplate(e.target.value)}>
                <option value="">{templateList.length === 0 ? 'No saved templates' : 'Choose a template'}</option>
                {templateList.map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.name}
                  </option>
                ))}
              </Select>
              {canWrite && (
                <Button variant="outline" size="icon" aria-label="Delete template" disabled={!templateId || deleteTemplate.isPending} onClick={onDeleteTemplate}>
                  <Trash2 />
                </Button>
              )}
              <Button variant="outline" onClick={onClear}>
                <X /> Clear
              </Button>
            </div>
            {autoAppliedName && templateId === initial.template?.id && (
              <p className="text-xs text-slate-500">Template “{autoAppliedName}” matched this file's columns and was applied.</p>
            )}
          </div>
          {canWrite && (
            <div className="space-y-1.5">
              <Label htmlFor={ids.name}>Save as template</Label>
              <div className="flex gap-2">
                <Input
                  id={ids.name}
                  placeholder="Template name"
                  value={templateName}
                  disabled={!hasMappings}
                  onChange={(e) => setTemplateName(e.target.value)}
                />
                <Button variant="outline" disabled={!hasMappings || createTemplate.isPending} onClick={onSaveTemplate}>
                  {createTemplate.isPending ? <Spinner /> : <Save />} Save Template
                </Button>
              </div>
            </div>
          )}
        </section>

        <section aria-label="Detected formats" className="grid gap-3 md:grid-cols-2">
          <div className="space-y-1.5">
            <Label htmlFor={ids.rw}>Risk weight format</Label>
            <Select
              id={ids.rw}
              value={riskWeightFormat ?? ''}
              onChange={(e) => setRiskWeightFormat((e.target.value || null) as RiskWeightFormat | null)}
            >
              <option value="">Detect while processing</option>
              <option value="decimal">Decimal (0.2 = 20%)</option>
              <option value="percent">Percent (20 = 20%)</option>
            </Select>
            <p className="text-xs text-slate-500">
              Detected in the file: {formatLabel(asRiskWeightFormat(inspection.riskWeightFormat))}
            </p>
          </div>
          <div className="space-y-1.5">
            <Label htmlFor={ids.maturity}>Maturity unit</Label>
            <Select id={ids.maturity} value={maturityUnit ?? ''} onChange={(e) => setMaturityUnit((e.target.value || null) as MaturityUnit | null)}>
              <option value="">Detect while processing</option>
              <option value="days">Days</option>
              <option value="months">Months</option>
              <option value="years">Years</option>
            </Select>
            <p className="text-xs text-slate-500">Detected in the file: {inspection.maturityUnit ?? 'not detected'}</p>
          </div>
        </section>

        <DndContext sensors={sensors} collisionDetection={dropTarget} onDragEnd={onDragEnd} accessibility={{ announcements: announcements(standardColumns) }}>
          <div className="grid gap-4 lg:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
            <section aria-label="File columns" className="space-y-2">
              <h3 className="text-sm font-semibold text-slate-900">File columns ({sources.length})</h3>
              <ul className="max-h-96 space-y-1.5 overflow-y-auto pr-1">
                {inspection.columns.map((column) => (
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

        <ValidationPanel type={type} missing={validation.missing} typeErrors={validation.typeErrors} ok={validation.ok} />

        <MappingPreview inspection={inspection} mapping={mapping} />

        <DialogFooter className="items-center sm:justify-between">
          <p className="text-sm text-slate-600" aria-live="polite">
            {validation.mappedCount} of {standardColumns.length} columns mapped
          </p>
          <div className="flex gap-2">
            <Button variant="outline" onClick={onCancel}>
              Cancel
            </Button>
            <Button onClick={onProcess}>Process File with Mapping</Button>
          </div>
        </DialogFooter>
      </DialogContent>
    </Dialog>
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

function formatLabel(format: RiskWeightFormat | null): string {
  if (format === null) return 'not detected'
  return format === 'decimal' ? 'decimal (0.2 = 20%)' : 'percent (20 = 20%)'
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

function ValidationPanel({ type, missing, typeErrors, ok }: { type: string; missing: string[]; typeErrors: string[]; ok: boolean }) {
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

function MappingPreview({ inspection, mapping }: { inspection: Inspection; mapping: Mapping }) {
  const rows = inspection.preview.slice(0, PREVIEW_ROWS)
  return (
    <section aria-label="Data preview" className="space-y-2">
      <h3 className="text-sm font-semibold text-slate-900">Data preview (first {PREVIEW_ROWS} rows)</h3>
      <div className="overflow-x-auto rounded-md border border-slate-200">
        <table className="w-full text-left text-xs">
          <thead className="bg-slate-50">
            <tr>
              {inspection.columns.map((c) => {
                const target = targetOf(mapping, c.name)
                return (
                  <th key={c.name} scope="col" className="px-2 py-1.5 align-bottom font-medium whitespace-nowrap text-slate-700">
                    <span className={cn('block text-[11px]', target ? 'text-emerald-700' : 'text-slate-400')}>{target ? `→ ${target}` : 'Not mapped'}</span>
                    {c.name}
                  </th>
                )
              })}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, i) => (
              <tr key={i} className="border-t border-slate-100">
                {inspection.columns.map((c, j) => (
                  <td key={c.name} className="px-2 py-1 whitespace-nowrap text-slate-700">
                    {row[j] ?? ''}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  )
}
