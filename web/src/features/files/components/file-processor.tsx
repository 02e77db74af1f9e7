import { useQueryClient } from '@tanstack/react-query'
import { ArrowLeft, Bot, Check, Cloud, Database, FileUp, RotateCcw, Sparkles, Upload, Wrench, XCircle } from 'lucide-react'
import { useEffect, useId, useRef, useState, type DragEvent } from 'react'
import { useSearchParams } from 'react-router'

import { ClientSwitcher } from '@/components/client-switcher'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { Label } from '@/components/ui/label'
import { Select } from '@/components/ui/select'
import { Spinner } from '@/components/ui/spinner'
import { useClientId } from '@/hooks/use-client-id'
import { errorMessage } from '@/lib/api-client'
import { useAuthStore } from '@/lib/auth-store'
import { cn } from '@/lib/cn'
import { toast } from '@/lib/toast'

import {
  cancelRun,
  fileKeys,
  inspectFile,
  listLeverColumns,
  listTemplates,
  uploadFile,
  useLevers,
  useLiveFiles,
  type ClientFile,
  type Inspection,
  type Lever,
  type MappingTemplate,
  type RunMode,
  type RunSnapshot,
  type StandardColumn,
  type UploadOptions,
} from '../api'
import { isFinal, useRun } from '../hooks/use-run'
import { formatConfidence } from '../utils/format'
import { ACCEPT_ATTRIBUTE, checkUpload, isProcessable } from '../utils/upload-checks'
import { FilesTable } from './files-table'
import { MappingDialog, type ConfirmedMapping } from './mapping-dialog'
import { AiProgressPanel, ProgressBar, ResultsPanel, RunProgress } from './run-panels'

/** The `?mode=` values that preselect a mode and open step 2. */
const MODES: readonly RunMode[] = ['manual', 'enhanced-ai']
/** The lever selector's value for 'To be determined': the file is stored for an administrator to assign. */
const TBD = 'tbd'

export const MODE_NAMES: Record<RunMode, string> = { manual: 'Manual Processing', 'enhanced-ai': 'Enhanced AI Processing' }

function modeFromParam(value: string | null): RunMode | null {
  return value && (MODES as readonly string[]).includes(value) ? (value as RunMode) : null
}

type Phase =
  | { kind: 'idle' }
  | { kind: 'preparing' }
  | { kind: 'mapping'; inspection: Inspection; lever: Lever; columns: StandardColumn[]; templates: MappingTemplate[] }
  | { kind: 'uploading'; loaded: number; total: number }
  | { kind: 'uploaded'; file: ClientFile; run: RunSnapshot | null }
  | { kind: 'error'; message: string }

/**
 * The client file processor (spec 2.4): step 1 chooses the processing mode, step 2 uploads a
 * file (manual: with a lever and the mapping dialog; enhanced AI: the run classifies and maps)
 * and follows its run live to the results.
 */
export function FileProcessor() {
  const clientId = useClientId()
  const canWrite = useAuthStore((s) => s.user?.role !== 'viewer')
  const [params, setParams] = useSearchParams()
  const urlMode = modeFromParam(params.get('mode'))
  const [mode, setMode] = useState<RunMode>(urlMode ?? 'enhanced-ai')
  const step = urlMode ? 2 : 1
  const activeMode = urlMode ?? mode

  const goToStep2 = (next: RunMode) => {
    setMode(next)
    const updated = new URLSearchParams(params)
    updated.set('mode', next)
    setParams(updated)
  }
  const backToModes = () => {
    setMode('enhanced-ai')
    const updated = new URLSearchParams(params)
    updated.delete('mode')
    setParams(updated)
  }

  if (!clientId) {
    return (
      <div className="space-y-4">
        <ClientSwitcher />
        <p className="text-slate-600">No Client: your account is not linked to a client, so there is nowhere to upload files.</p>
      </div>
    )
  }
  return (
    <div className="mx-auto max-w-7xl space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold tracking-tight text-slate-900">File Processor</h1>
          <p className="mt-1 text-sm text-slate-500">{step === 1 ? 'Step 1 of 2: Processing Mode' : `Step 2 of 2: ${MODE_NAMES[activeMode]}`}</p>
        </div>
        <ClientSwitcher />
      </div>
      {step === 1 ? (
        <ModeSelection mode={mode} onChoose={setMode} onContinue={() => goToStep2(mode)} />
      ) : (
        <ProcessorStep key={`${clientId}:${activeMode}`} clientId={clientId} mode={activeMode} canWrite={canWrite} onBack={backToModes} />
      )}
    </div>
  )
}

type ModeCard = { mode: RunMode; title: string; badge: string; summary: string; time: string; features: string[]; icon: typeof Wrench }

const MODE_CARDS: ModeCard[] = [
  {
    mode: 'manual',
    title: 'Manual Processing',
    badge: 'Current',
    summary: 'Traditional upload with manual review',
    time: 'Typical time: 2-5 minutes',
    features: ['Manual classification', 'User-guided mapping', 'Manual optimisation'],
    icon: Wrench,
  },
  {
    mode: 'enhanced-ai',
    title: 'Enhanced AI Processing',
    badge: 'Recommended',
    summary: 'Automated multi-agent flow',
    time: 'Classification, mapping and analysis without manual steps',
    features: ['Multi-model reasoning', 'Regulatory knowledge base', 'Chain-of-thought analysis', 'Automated optimisation'],
    icon: Sparkles,
  },
]

function ModeSelection({ mode, onChoose, onContinue }: { mode: RunMode; onChoose: (m: RunMode) => void; onContinue: () => void }) {
  return (
    <section aria-label="Processing Mode" className="space-y-4">
      <h2 className="text-lg font-semibold text-slate-900">Processing Mode</h2>
      <div className="grid gap-4 md:grid-cols-2" role="radiogroup" aria-label="Processing Mode">
        {MODE_CARDS.map((card) => {
          const selected = card.mode === mode
          const Icon = card.icon
          return (
            <button
              key={card.mode}
              type="button"
              role="radio"
              aria-checked={selected}
              onClick={() => onChoose(card.mode)}
              className={cn(
                'rounded-xl border-2 bg-white p-5 text-left shadow-sm transition-colors focus-visible:ring-2 focus-visible:ring-brand-300 focus-visible:outline-none',
                selected ? 'border-brand-600' : 'border-slate-200 hover:border-slate-300',
              )}
            >
              <div className="flex items-center gap-2">
                <Icon className="size-5 text-brand-700" aria-hidden />
                <span className="text-base font-semibold text-slate-900">{card.title}</span>
                <span
                  className={cn(
                    'ml-auto rounded-full px-2 py-0.5 text-xs font-medium',
                    card.badge === 'Recommended' ? 'bg-brand-100 text-brand-800' : 'bg-slate-100 text-slate-700',
                  )}
                >
                  {card.badge}
                </span>
              </div>
              <p className="mt-2 text-sm text-slate-600">{card.summary}</p>
              <p className="mt-1 text-xs text-slate-500">{card.time}</p>
              <ul className="mt-3 space-y-1">
                {card.features.map((f) => (
                  <li key={f} className="flex items-center gap-1.5 text-sm text-slate-700">
                    <Check className="size-4 text-emerald-600" aria-hidden /> {f}
                  </li>
                ))}
              </ul>
            </button>
          )
        })}
      </div>
      {mode === 'enhanced-ai' && (
        <Alert variant="info">
          <Bot />
          <p>
            Enhanced AI classifies the file's lever from its columns and values, maps the columns automatically and runs the analysis. When the
            classification confidence is below 70% the file waits for an administrator's validation, with no savings recorded until then.
          </p>
        </Alert>
      )}
      <Button onClick={onContinue}>Continue to Processing</Button>
    </section>
  )
}

type StepProps = { clientId: string; mode: RunMode; canWrite: boolean; onBack: () => void }

function ProcessorStep({ clientId, mode, canWrite, onBack }: StepProps) {
  const [tab, setTab] = useState<'upload' | 'files'>('upload')
  const [file, setFile] = useState<File | null>(null)
  const [leverId, setLeverId] = useState('')
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' })
  const [inputKey, setInputKey] = useState(0)
  const queryClient = useQueryClient()
  const levers = useLevers(mode === 'manual')
  useLiveFiles(clientId)

  const uploaded = phase.kind === 'uploaded' ? phase : null
  const run = useRun(clientId, uploaded?.run ?? null)
  const busy = phase.kind === 'preparing' || phase.kind === 'uploading' || (run !== null && !isFinal(run))

  // The outcome of a run is told once, when it ends.
  const told = useRef<string | null>(null)
  useEffect(() => {
    if (!run || !isFinal(run) || told.current === run.id) return
    told.current = run.id
    if (run.state === 'completed') toast.success('Processing Complete', 'The savings and the optimized file are ready.')
    else if (run.state === 'pending_review')
      toast.info(
        'Processing Complete - Pending Validation',
        run.result?.confidence != null
          ? `File processed with ${formatConfidence(run.result.confidence)} confidence. Results pending admin validation.`
          : 'Results pending admin validation.',
      )
    else if (run.state === 'failed') toast.error('Processing Failed', run.error ?? 'File processing failed')
  }, [run])

  const reset = () => {
    setFile(null)
    setLeverId('')
    setPhase({ kind: 'idle' })
    setInputKey((k) => k + 1)
  }

  const chooseFile = (next: File | null) => {
    if (!next) return
    const problem = checkUpload(next)
    if (problem) {
      setFile(null)
      setPhase({ kind: 'error', message: problem })
      return
    }
    setFile(next)
    setPhase({ kind: 'idle' })
  }

  const startUpload = async (options: UploadOptions) => {
    if (!file) return
    setPhase({ kind: 'uploading', loaded: 0, total: file.size })
    try {
      const result = await uploadFile(clientId, file, options, ({ loaded, total }) => setPhase({ kind: 'uploading', loaded, total }))
      setPhase({ kind: 'uploaded', file: result.file, run: result.run })
      void queryClient.invalidateQueries({ queryKey: fileKeys.client(clientId) })
      if (!result.run) toast.success('File uploaded successfully', uploadedNote(result.file, options))
    } catch (error) {
      const message = errorMessage(error, 'Failed to upload file to storage.')
      setPhase({ kind: 'error', message })
      toast.error('File upload failed', message)
    }
  }

  const lever = levers.data?.find((l) => l.id === leverId) ?? null

  const onMain = async () => {
    if (!file) {
      setPhase({ kind: 'error', message: 'Please select files and ensure client information is available.' })
      return
    }
    if (mode === 'enhanced-ai') {
      await startUpload({ mode, leverId: null, process: isProcessable(file.name), mapping: null, riskWeightFormat: null, maturityUnit: null })
      return
    }
    if (!leverId) {
      setPhase({ kind: 'error', message: 'Please select a lever before uploading.' })
      return
    }
    // 'To be determined' or a PDF: stored for later, nothing to map or process now.
    if (leverId === TBD || !lever || !isProcessable(file.name)) {
      await startUpload({ mode, leverId: leverId === TBD ? null : leverId, process: false, mapping: null, riskWeightFormat: null, maturityUnit: null })
      return
    }
    setPhase({ kind: 'preparing' })
    try {
      const [inspection, columns, templates] = await Promise.all([
        inspectFile(clientId, file),
        queryClient.fetchQuery({ queryKey: fileKeys.columns(lever.id), queryFn: () => listLeverColumns(lever.id) }),
        queryClient.fetchQuery({ queryKey: fileKeys.templates(clientId, lever.id), queryFn: () => listTemplates(clientId, lever.id) }),
      ])
      setPhase({ kind: 'mapping', inspection, lever, columns, templates })
    } catch (error) {
      const message = errorMessage(error, 'Failed to detect column structure. Please try again.')
      setPhase({ kind: 'error', message })
      toast.error('Detection Error', message)
    }
  }

  const onMappingConfirmed = (confirmed: ConfirmedMapping) => {
    void startUpload({
      mode,
      leverId,
      process: true,
      mapping: confirmed.mapping,
      riskWeightFormat: confirmed.riskWeightFormat,
      maturityUnit: confirmed.maturityUnit,
    })
  }

  const onCancelRun = async () => {
    if (!run) return
    try {
      await cancelRun(run.id)
    } catch (error) {
      toast.error('Could not cancel processing', errorMessage(error, 'Please try again.'))
    }
  }

  const mappingOpen = phase.kind === 'mapping'
  const mainLabel = mode === 'manual' ? 'Upload & Process' : 'Start Enhanced AI Processing'
  const mainDisabled = !canWrite || !file || busy || mappingOpen || phase.kind === 'uploaded'

  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <Button variant="ghost" onClick={onBack} disabled={busy}>
          <ArrowLeft /> Back to Mode Selection
        </Button>
      </div>
      <div role="tablist" aria-label="File processor" className="inline-flex rounded-lg bg-slate-100 p-1">
        {(
          [
            ['upload', 'Upload File'],
            ['files', 'Your Files'],
          ] as const
        ).map(([value, label]) => (
          <button
            key={value}
            type="button"
            role="tab"
            aria-selected={tab === value}
            onClick={() => setTab(value)}
            className={cn('rounded-md px-4 py-1.5 text-sm font-medium', tab === value ? 'bg-white text-slate-900 shadow-sm' : 'text-slate-600 hover:text-slate-900')}
          >
            {label}
          </button>
        ))}
      </div>

      {tab === 'files' ? (
        <YourFiles clientId={clientId} canWrite={canWrite} />
      ) : (
        <div className="grid gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
          <div className="space-y-6">
            <DataSourceCard />
            <Card>
              <CardHeader>
                <CardTitle>Upload File</CardTitle>
                <CardDescription>{MODE_NAMES[mode]}: CSV, Excel (XLSX, XLS, ODS) or PDF, at most 20 MB.</CardDescription>
              </CardHeader>
              <CardContent className="space-y-4">
                {!canWrite && (
                  <Alert variant="info">
                    <p>Your role is read-only: you can see the client's files but not upload new ones.</p>
                  </Alert>
                )}
                <DropArea key={inputKey} file={file} disabled={!canWrite || busy || phase.kind === 'uploaded'} onFile={chooseFile} />
                {mode === 'manual' && (
                  <LeverSelect levers={levers.data ?? []} loading={levers.isPending} error={levers.isError ? errorMessage(levers.error, 'Failed to load levers') : null} value={leverId} onChange={setLeverId} disabled={!canWrite || busy || phase.kind === 'uploaded'} />
                )}
                {phase.kind === 'error' && (
                  <Alert variant="destructive">
                    <div>
                      <p className="font-medium">Error</p>
                      <p>{phase.message}</p>
                    </div>
                  </Alert>
                )}
                {phase.kind === 'uploading' && (
                  <div className="space-y-1.5" aria-live="polite">
                    <div className="flex justify-between text-sm">
                      <span className="font-medium text-slate-800">Uploading · {MODE_NAMES[mode]}</span>
                      <span className="tabular-nums text-slate-600">{percentOf(phase.loaded, phase.total)}%</span>
                    </div>
                    <ProgressBar value={percentOf(phase.loaded, phase.total)} label="Upload progress" />
                    <p className="text-xs text-slate-500">
                      {formatBytes(phase.loaded)} of {formatBytes(phase.total)} sent
                    </p>
                  </div>
                )}
                {phase.kind === 'preparing' && (
                  <p className="flex items-center gap-2 text-sm text-slate-600">
                    <Spinner /> Detecting the file's columns…
                  </p>
                )}
                {uploaded && run && !isFinal(run) && mode === 'manual' && <RunProgress run={run} onCancel={canWrite ? onCancelRun : undefined} />}
                {uploaded && run && !isFinal(run) && mode === 'enhanced-ai' && canWrite && (
                  <Button variant="outline" size="sm" onClick={() => void onCancelRun()}>
                    <XCircle /> Cancel Processing
                  </Button>
                )}
                {uploaded && !run && (
                  <Alert variant="success">
                    <p>{uploadedNote(uploaded.file, null)}</p>
                  </Alert>
                )}
                <div className="flex flex-wrap gap-2">
                  {phase.kind === 'uploaded' ? (
                    // The run goes on without this screen: Our Files follows it.
                    <Button onClick={reset}>
                      <Upload /> Upload Another File
                    </Button>
                  ) : (
                    <Button onClick={() => void onMain()} disabled={mainDisabled}>
                      {phase.kind === 'preparing' || phase.kind === 'uploading' ? <Spinner /> : mode === 'manual' ? <FileUp /> : <Sparkles />}
                      {mainLabel}
                    </Button>
                  )}
                  <Button variant="outline" onClick={reset} disabled={busy}>
                    <RotateCcw /> Reset
                  </Button>
                </div>
              </CardContent>
            </Card>
          </div>
          <div className="space-y-6">
            {mode === 'enhanced-ai' && run && <AiProgressPanel run={run} />}
            <ResultsPanel run={run} fileName={uploaded?.file.name ?? file?.name ?? null} onBack={onBack} onProcessAnother={reset} />
          </div>
        </div>
      )}

      {phase.kind === 'mapping' && file && (
        <MappingDialog
          clientId={clientId}
          fileName={file.name}
          lever={phase.lever}
          inspection={phase.inspection}
          standardColumns={phase.columns}
          initialTemplates={phase.templates}
          canWrite={canWrite}
          onCancel={() => setPhase({ kind: 'idle' })}
          onConfirm={onMappingConfirmed}
        />
      )}
    </div>
  )
}

function uploadedNote(file: ClientFile, options: UploadOptions | null): string {
  if (!isProcessable(file.name)) return `${file.name} is stored. Processing needs a CSV or Excel file.`
  if (!file.leverId && !options?.process) return `${file.name} is stored and waits for an administrator to assign its lever.`
  return `${file.name} is stored.`
}

function percentOf(loaded: number, total: number): number {
  return total > 0 ? Math.min(100, Math.round((loaded / total) * 100)) : 0
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}

function DataSourceCard() {
  return (
    <Card>
      <CardHeader>
        <CardTitle>Data Source</CardTitle>
      </CardHeader>
      <CardContent className="grid gap-3 sm:grid-cols-2">
        <div className="flex items-center gap-3 rounded-lg border-2 border-brand-600 p-3">
          <Cloud className="size-5 text-brand-700" aria-hidden />
          <div>
            <p className="text-sm font-medium text-slate-900">Manual Upload</p>
            <p className="text-xs text-slate-500">Available</p>
          </div>
        </div>
        <div aria-disabled="true" className="flex items-center gap-3 rounded-lg border border-slate-200 p-3 opacity-60">
          <Database className="size-5 text-slate-500" aria-hidden />
          <div>
            <p className="text-sm font-medium text-slate-900">Core Banking API</p>
            <p className="text-xs text-slate-500">Coming Soon</p>
          </div>
        </div>
      </CardContent>
    </Card>
  )
}

function DropArea({ file, disabled, onFile }: { file: File | null; disabled: boolean; onFile: (f: File | null) => void }) {
  const [over, setOver] = useState(false)
  const inputId = useId()
  const onDrop = (event: DragEvent) => {
    event.preventDefault()
    setOver(false)
    if (disabled) return
    onFile(event.dataTransfer.files[0] ?? null)
  }
  return (
    <div
      onDragOver={(e) => {
        e.preventDefault()
        if (!disabled) setOver(true)
      }}
      onDragLeave={() => setOver(false)}
      onDrop={onDrop}
      className={cn(
        'flex flex-col items-center justify-center gap-2 rounded-lg border-2 border-dashed p-8 text-center',
        over ? 'border-brand-500 bg-brand-50' : 'border-slate-300 bg-slate-50',
        disabled && 'opacity-60',
      )}
      data-testid="drop-area"
    >
      <Upload className="size-8 text-slate-400" aria-hidden />
      {file ? (
        <p className="text-sm font-medium text-slate-900">
          {file.name} <span className="font-normal text-slate-500">({formatBytes(file.size)})</span>
        </p>
      ) : (
        <p className="text-sm text-slate-600">Drag and drop a file here, or choose one</p>
      )}
      <label htmlFor={inputId} className={cn('cursor-pointer text-sm font-medium text-brand-700 underline-offset-4 hover:underline', disabled && 'pointer-events-none')}>
        {file ? 'Choose another file' : 'Choose a file'}
      </label>
      <input
        id={inputId}
        type="file"
        aria-label="File to upload"
        accept={ACCEPT_ATTRIBUTE}
        disabled={disabled}
        className="sr-only"
        onChange={(e) => onFile(e.target.files?.[0] ?? null)}
      />
    </div>
  )
}

type LeverSelectProps = { levers: Lever[]; loading: boolean; error: string | null; value: string; onChange: (id: string) => void; disabled: boolean }

function LeverSelect({ levers, loading, error, value, onChange, disabled }: LeverSelectProps) {
  const id = useId()
  return (
    <div className="space-y-1.5">
      <Label htmlFor={id}>Lever</Label>
      <Select id={id} value={value} disabled={disabled || loading || error !== null} onChange={(e) => onChange(e.target.value)}>
        <option value="">{error ? 'Error loading levers' : loading ? 'Loading levers…' : 'Select a lever'}</option>
        <option value={TBD}>To be determined</option>
        {levers.map((l) => (
          <option key={l.id} value={l.id}>
            {l.name} ({l.category})
          </option>
        ))}
      </Select>
      {error && <p className="text-sm text-red-600">{error}</p>}
    </div>
  )
}

function YourFiles({ clientId, canWrite }: { clientId: string; canWrite: boolean }) {
  return <FilesTable clientId={clientId} canWrite={canWrite} />
}
