import { ArrowLeft, CheckCircle2, Circle, FileUp, Loader2, RotateCcw, XCircle } from 'lucide-react'
import { useRef, useState, type FormEvent } from 'react'
import { Link } from 'react-router'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card } from '@/components/ui/card'
import { FormField } from '@/components/ui/form-field'
import { Input } from '@/components/ui/input'
import { Select } from '@/components/ui/select'
import { paths } from '@/config/paths'
import { errorMessage } from '@/lib/api-client'
import { toast } from '@/lib/toast'

import { importTemplatePdf, type ImportStep, type ImportSummary, type ReportTemplate, type StepState } from '../api'
import { checkPdfFile, IMPORT_STEPS, methodLabel, stepDetail, type StepView } from '../utils/pdf-import'
import { pageRange, TEMPLATE_TYPES } from '../utils/templates'

type Phase = { kind: 'idle' } | { kind: 'running' } | { kind: 'done'; template: ReportTemplate; summary: ImportSummary } | { kind: 'failed'; message: string }

const pendingSteps = (): Record<ImportStep, StepView> =>
  Object.fromEntries(IMPORT_STEPS.map((s) => [s.step, { state: 'pending', done: 0, total: 0 }])) as Record<ImportStep, StepView>

function StepIcon({ state }: { state: StepState | 'pending' }) {
  if (state === 'completed') return <CheckCircle2 className="size-5 text-emerald-600" aria-hidden />
  if (state === 'processing') return <Loader2 className="size-5 animate-spin text-brand-600" aria-hidden />
  if (state === 'error') return <XCircle className="size-5 text-red-600" aria-hidden />
  return <Circle className="size-5 text-slate-300" aria-hidden />
}

const STATE_LABELS: Record<StepState | 'pending', string> = {
  pending: 'Pending',
  processing: 'Processing',
  completed: 'Completed',
  error: 'Error',
}

/**
 * Create template from PDF (`/admin/report-generator-templates/create-from-pdf`): one PDF of at
 * most 50MB; the server runs the steps upload, parse, analyze, extract and generate and streams
 * each one's state and progress, shown here as they arrive (the bar is the share of completed
 * steps). The result lists the sections found with their pages; Start Over resets every step.
 */
export function CreateFromPdf() {
  const [file, setFile] = useState<File | null>(null)
  const [name, setName] = useState('')
  const [type, setType] = useState('custom')
  const [steps, setSteps] = useState(pendingSteps)
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' })
  const input = useRef<HTMLInputElement>(null)
  const abort = useRef<AbortController | null>(null)

  const pick = (f: File | null) => {
    if (!f) return setFile(null)
    const problem = checkPdfFile(f)
    if (problem) {
      toast.error(problem.title, problem.message)
      if (input.current) input.current.value = ''
      return setFile(null)
    }
    setFile(f)
  }

  const startOver = () => {
    abort.current?.abort()
    abort.current = null
    setSteps(pendingSteps())
    setPhase({ kind: 'idle' })
    setFile(null)
    setName('')
    if (input.current) input.current.value = ''
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    if (!file || phase.kind === 'running') return
    const controller = new AbortController()
    abort.current = controller
    setSteps({ ...pendingSteps(), upload: { state: 'processing', done: 0, total: 1 } })
    setPhase({ kind: 'running' })
    let finished = false
    try {
      await importTemplatePdf(
        file,
        { name: name.trim(), templateType: type },
        (e) => {
          if (e.type === 'step') {
            setSteps((prev) => ({ ...prev, [e.step]: { state: e.state, done: e.done, total: e.total } }))
          } else if (e.type === 'done') {
            finished = true
            setPhase({ kind: 'done', template: e.template, summary: e.summary })
            toast.success('Template created successfully')
          } else {
            finished = true
            setSteps((prev) => ({ ...prev, [e.step]: { ...prev[e.step], state: 'error' } }))
            setPhase({ kind: 'failed', message: e.message })
            toast.error('PDF processing failed', e.message)
          }
        },
        controller.signal,
      )
      if (!finished && !controller.signal.aborted) {
        setPhase({ kind: 'failed', message: 'The connection closed before the template was created. Please try again.' })
      }
    } catch (error) {
      if (controller.signal.aborted) return
      const message = errorMessage(error, 'Please try again.')
      // A refusal before any step ran is the upload's.
      setSteps((prev) => ({ ...prev, upload: { ...prev.upload, state: 'error' } }))
      setPhase({ kind: 'failed', message })
      toast.error('PDF processing failed', message)
    }
  }

  const completed = IMPORT_STEPS.filter((s) => steps[s.step].state === 'completed').length
  const share = Math.round((completed / IMPORT_STEPS.length) * 100)

  return (
    <div className="mx-auto max-w-3xl space-y-6">
      <Link to={paths.admin.templates.getHref()} className="inline-flex items-center gap-1 text-sm text-slate-600 hover:text-slate-900">
        <ArrowLeft className="size-4" /> Back to templates
      </Link>
      <div>
        <h1 className="text-2xl font-bold tracking-tight text-slate-900">Create Template from PDF</h1>
        <p className="mt-1 text-sm text-slate-500">
          Sections come from the PDF&apos;s outline, else its table of contents, else its headings; tables and figures become table and chart
          blocks, and the first page&apos;s colours the branding.
        </p>
      </div>
      <Card className="p-6">
        <form className="space-y-4" onSubmit={(e) => void submit(e)} noValidate>
          <FormField label="PDF file" hint="One PDF, at most 50MB.">
            {(ids) => (
              <Input
                {...ids}
                ref={input}
                type="file"
                accept="application/pdf,.pdf"
                disabled={phase.kind !== 'idle'}
                onChange={(e) => pick(e.target.files?.[0] ?? null)}
              />
            )}
          </FormField>
          <div className="grid gap-4 sm:grid-cols-2">
            <FormField label="Template Name" hint="Left empty, the PDF's title or file name is used.">
              {(ids) => <Input {...ids} value={name} onChange={(e) => setName(e.target.value)} maxLength={120} disabled={phase.kind !== 'idle'} />}
            </FormField>
            <FormField label="Template Type">
              {(ids) => (
                <Select {...ids} value={type} onChange={(e) => setType(e.target.value)} disabled={phase.kind !== 'idle'}>
                  {TEMPLATE_TYPES.map((t) => (
                    <option key={t.value} value={t.value}>
                      {t.label}
                    </option>
                  ))}
                </Select>
              )}
            </FormField>
          </div>
          <div className="flex justify-end gap-2">
            {phase.kind !== 'idle' && (
              <Button type="button" variant="outline" onClick={startOver}>
                <RotateCcw /> Start Over
              </Button>
            )}
            {phase.kind === 'idle' && (
              <Button type="submit" disabled={!file}>
                <FileUp /> Process PDF
              </Button>
            )}
          </div>
        </form>
      </Card>

      <Card className="space-y-4 p-6">
        <div className="space-y-1">
          <div className="flex justify-between text-sm text-slate-600">
            <span>Progress</span>
            <span>{share}%</span>
          </div>
          <div className="h-2 overflow-hidden rounded-full bg-slate-100" role="progressbar" aria-label="Import progress" aria-valuenow={share} aria-valuemin={0} aria-valuemax={100}>
            <div className="h-full bg-brand-600 transition-all" style={{ width: `${share}%` }} />
          </div>
        </div>
        <ol className="space-y-3" aria-label="Import steps">
          {IMPORT_STEPS.map((s) => {
            const v = steps[s.step]
            const detail = stepDetail(s.step, v)
            return (
              <li key={s.step} className="flex items-start gap-3" aria-label={`${s.label}: ${STATE_LABELS[v.state]}`}>
                <StepIcon state={v.state} />
                <div className="min-w-0 flex-1">
                  <p className="text-sm font-medium text-slate-900">{s.label}</p>
                  <p className="text-xs text-slate-500">{detail ?? s.description}</p>
                </div>
                <span className="text-xs text-slate-500">{STATE_LABELS[v.state]}</span>
              </li>
            )
          })}
        </ol>
      </Card>

      {phase.kind === 'failed' && (
        <Alert variant="destructive">
          <div>
            <p className="font-medium">PDF processing failed</p>
            <p>{phase.message}</p>
          </div>
        </Alert>
      )}

      {phase.kind === 'done' && (
        <Card className="space-y-4 p-6" aria-label="Import result">
          <div className="flex flex-wrap items-start justify-between gap-3">
            <div>
              <h2 className="text-lg font-semibold text-slate-900">{phase.template.name}</h2>
              <p className="text-sm text-slate-500">
                {phase.summary.sections} sections from {methodLabel(phase.summary.method)} · {phase.summary.pages} pages · {phase.summary.tables} tables ·{' '}
                {phase.summary.charts} charts
              </p>
            </div>
            <div className="flex gap-2">
              <Button variant="outline" asChild>
                <Link to={paths.admin.templatePreview.getHref(phase.template.id)}>Preview</Link>
              </Button>
              <Button asChild>
                <Link to={paths.admin.templateEdit.getHref(phase.template.id)}>Edit Template</Link>
              </Button>
            </div>
          </div>
          {phase.summary.palette.length > 0 && (
            <div className="flex items-center gap-2 text-sm text-slate-600">
              <span>Brand colours</span>
              {phase.summary.palette.map((c) => (
                <span key={c} className="inline-flex items-center gap-1 font-mono text-xs">
                  <span className="size-4 rounded border border-slate-200" style={{ backgroundColor: c }} aria-hidden />
                  {c}
                </span>
              ))}
            </div>
          )}
          <ol className="divide-y divide-slate-100 text-sm" aria-label="Sections found">
            {phase.template.sections.map((s) => (
              <li key={s.id} className="flex justify-between gap-3 py-1.5" style={{ paddingLeft: `${((s.level ?? 1) - 1) * 16}px` }}>
                <span className="truncate text-slate-900">{s.title}</span>
                <span className="shrink-0 text-xs text-slate-500">
                  {s.pageStart != null && pageRange(s.pageStart, s.pageEnd)}
                  {(s.blocks?.length ?? 0) > 0 && ` · ${s.blocks?.length} ${s.blocks?.length === 1 ? 'block' : 'blocks'}`}
                </span>
              </li>
            ))}
          </ol>
        </Card>
      )}
    </div>
  )
}
