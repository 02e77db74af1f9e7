import { Save, Trash2, X } from 'lucide-react'
import { useId, useMemo, useState } from 'react'

import { ColumnMapper, MappingValidationPanel } from '@/components/column-mapper'
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
import { analysisType, applyTemplate, bestTemplate, cleanMapping, targetOf, validateMapping, type Mapping } from '@/lib/column-mapping'

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
  const type = analysisType(lever.name)

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
  const ids = { template: useId(), name: useId(), rw: useId(), maturity: useId() }
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

        <ColumnMapper columns={inspection.columns} standardColumns={standardColumns} mapping={mapping} onChange={setMapping} />

        <MappingValidationPanel type={type} missing={validation.missing} typeErrors={validation.typeErrors} ok={validation.ok} />

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

function formatLabel(format: RiskWeightFormat | null): string {
  if (format === null) return 'not detected'
  return format === 'decimal' ? 'decimal (0.2 = 20%)' : 'percent (20 = 20%)'
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
