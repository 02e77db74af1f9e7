import { AlertTriangle, CheckCircle2, FileCheck2, Lightbulb, RotateCcw, Sparkles, XCircle } from 'lucide-react'
import { useEffect, useId, useMemo, useRef, useState } from 'react'

import { ColumnMapper, MappingValidationPanel } from '@/components/column-mapper'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { Label } from '@/components/ui/label'
import { Select } from '@/components/ui/select'
import { Spinner } from '@/components/ui/spinner'
import { Textarea } from '@/components/ui/textarea'
import { errorMessage } from '@/lib/api-client'
import { cn } from '@/lib/cn'
import { analysisType, applyTemplate, cleanMapping, validateMapping, type Mapping } from '@/lib/column-mapping'
import { formatBpsUnit, formatConfidence, formatCount, formatDate, formatMillionsEur } from '@/lib/format'
import { toast } from '@/lib/toast'

import {
  FINAL_STATES,
  useApproveReview,
  useFollowUpRun,
  useLeverColumns,
  useLevers,
  useRejectReview,
  useReview,
  useTemplates,
  type ClassificationAnalysis,
  type Inspection,
  type Lever,
  type LeverSuggestion,
  type RunSnapshot,
  type StandardColumn,
  type TrainingReview,
} from '../api'
import { STATUS_LABEL, confidenceBadge, isLearningOpportunity, suggestionTone } from '../utils/format'
import { ConfidenceBadge } from './confidence-badge'

/** What a review tab shows while its classification loads (specification). */
export const ANALYZING = 'Analyzing classification with enhanced AI...'
/** What an empty feedback is recorded as (specification). */
export const NO_FEEDBACK = 'No specific feedback provided by admin'

type ReviewPanelProps = { runId: string; fileName: string; onClose: () => void }

/**
 * One review tab: the classification's analysis from the engine's evidence, smart suggestions,
 * the feedback, the column mapping (the processor's drag-and-drop mapper), and the decision:
 * Approve processes the file with the chosen lever and mapping, Reject records the refusal and
 * closes the tab. After an approval the processing run is followed live to its 'Processing
 * Complete' card.
 */
export function ReviewPanel({ runId, fileName, onClose }: ReviewPanelProps) {
  const review = useReview(runId)
  if (review.isPending) {
    return (
      <div role="status" className="flex items-center gap-3 rounded-lg border border-slate-200 bg-white p-8 text-slate-700">
        <Spinner className="size-5" /> {ANALYZING}
      </div>
    )
  }
  if (review.isError) {
    return (
      <Alert variant="destructive" className="items-center justify-between">
        <div>
          <p className="font-medium">The classification of {fileName} could not be loaded</p>
          <p>{errorMessage(review.error, 'Failed to fetch classifications')}</p>
        </div>
        <div className="flex gap-2">
          <Button variant="outline" size="sm" onClick={() => void review.refetch()}>
            Retry
          </Button>
          <Button variant="outline" size="sm" onClick={onClose}>
            Close
          </Button>
        </div>
      </Alert>
    )
  }
  return <ReviewBody review={review.data} onClose={onClose} />
}

/** Standard columns when the lever's cannot be loaded: the ones the automatic mapping found. */
function defaultColumns(inspection: Inspection | null): StandardColumn[] {
  return Object.keys(inspection?.suggestedMapping ?? {}).map((name) => ({ name, description: '', category: 'core', isRequired: false, dataType: 'text' }))
}

function ReviewBody({ review, onClose }: { review: TrainingReview; onClose: () => void }) {
  const item = review.item
  const inspection = review.inspection
  const decided = item.status !== 'requires_review'
  const levers = useLevers()
  const leverOptions = useMemo(() => (levers.data ?? []).filter((l) => l.code !== null), [levers.data])
  const leverName = (code: string | null) => (code === null ? 'To be determined' : (leverOptions.find((l) => l.code === code)?.name ?? code))
  const initialLever = item.reviewedLeverId ?? item.predictedLeverId ?? ''
  const [leverId, setLeverId] = useState(initialLever)
  const lever: Lever | null = leverOptions.find((l) => l.id === leverId) ?? null
  const [feedback, setFeedback] = useState(decided ? (item.feedback ?? '') : '')
  const sources = useMemo(() => inspection?.columns.map((c) => c.name) ?? [], [inspection])
  const [initialMapping] = useState<Mapping>(() => cleanMapping(review.mapping ?? inspection?.suggestedMapping ?? {}, sources))
  const [mapping, setMapping] = useState<Mapping>(initialMapping)
  const [templateId, setTemplateId] = useState('')

  const columnsQuery = useLeverColumns(leverId || null)
  const standard = useMemo(
    () => columnsQuery.data ?? (columnsQuery.isError ? defaultColumns(inspection) : []),
    [columnsQuery.data, columnsQuery.isError, inspection],
  )
  useEffect(() => {
    if (columnsQuery.isError) toast.error('Column loading error', 'Failed to load standard columns. Using defaults.')
  }, [columnsQuery.isError])
  const templates = useTemplates(item.clientId, leverId || null)

  const approve = useApproveReview()
  const reject = useRejectReview()
  const [queued, setQueued] = useState<RunSnapshot | null>(review.followUp)
  const run = useFollowUpRun(item.clientId, queued ?? review.followUp)
  const runEnded = run !== null && FINAL_STATES.includes(run.state)
  const processing = run !== null && !runEnded
  const completed = run?.state === 'completed' && run.result !== null

  // The processing run's end, as it happens while the tab is open.
  const seenState = useRef(run?.state ?? null)
  useEffect(() => {
    const before = seenState.current
    seenState.current = run?.state ?? null
    if (!run || before === run.state || before === null || FINAL_STATES.includes(before)) return
    if (run.state === 'completed') toast.success('File Processed', `File "${item.fileName}" has been processed with ${run.result?.leverName ?? lever?.name ?? 'the chosen'} lever`)
    else if (FINAL_STATES.includes(run.state)) toast.error('Processing Warning', 'File approved but processing failed. You may need to reprocess manually.')
  }, [run, item.fileName, lever?.name])

  const standardNames = standard.map((c) => c.name)
  const validation = validateMapping(mapping, standard, inspection?.columns ?? [], inspection?.preview ?? [])
  const busy = approve.isPending || reject.isPending

  const onLoadTemplate = (id: string) => {
    setTemplateId(id)
    if (!id) return
    const template = templates.data?.find((t) => t.id === id)
    const next = template ? applyTemplate(template, sources, standardNames) : {}
    if (!template || Object.keys(next).length === 0) {
      // A template that does not fit falls back to the automatic mapping.
      setMapping(initialMapping)
      toast.error('Template loading failed', 'Failed to apply template mappings.')
      return
    }
    setMapping(next)
    toast.success('Template Applied', `${template.name}: ${Object.keys(next).length} columns mapped.`)
  }
  const onReset = () => {
    setMapping(initialMapping)
    setTemplateId('')
  }
  const onApprove = () => {
    if (!leverId) {
      toast.error('Error', 'Please select a valid lever before processing')
      return
    }
    const cleaned = cleanMapping(mapping, sources, standardNames.length > 0 ? standardNames : undefined)
    approve.mutate(
      {
        runId: item.id,
        body: {
          leverId,
          feedback,
          mapping: Object.keys(cleaned).length > 0 ? cleaned : undefined,
          templateId: templateId || undefined,
        },
      },
      {
        onSuccess: (outcome) => {
          toast.success('Review Complete', 'Classification approved successfully')
          setQueued(outcome.run)
        },
        onError: (e) => toast.error('Error', errorMessage(e, 'The classification could not be approved.')),
      },
    )
  }
  const onReject = () => {
    reject.mutate(
      { runId: item.id, body: { feedback, leverId: leverId || undefined } },
      {
        onSuccess: () => {
          toast.success('Review Complete', 'Classification rejected successfully')
          onClose()
        },
        onError: (e) => toast.error('Error', errorMessage(e, 'The classification could not be rejected.')),
      },
    )
  }

  const ids = { feedback: useId(), lever: useId(), template: useId() }
  const analysis = review.analysis
  return (
    <div className="space-y-6" aria-label={`Review of ${item.fileName}`} role="region">
      <Card>
        <CardHeader className="flex flex-row flex-wrap items-start justify-between gap-4">
          <div className="space-y-1">
            <CardTitle>{item.fileName}</CardTitle>
            <CardDescription>
              {item.clientName} · AI predicted <span className="font-medium text-slate-800">{item.predictedLeverName ?? 'To be determined'}</span>{' '}
              <ConfidenceBadge tone={confidenceBadge(item.confidence)} value={item.confidence} /> · run {item.id.slice(0, 8)}
            </CardDescription>
            {decided ? (
              <p className="text-sm text-slate-700" data-testid="review-decision">
                {STATUS_LABEL[item.status]}
                {item.reviewedAt ? ` on ${formatDate(item.reviewedAt)}` : ''}
                {item.reviewedBy ? ` by ${item.reviewedBy}` : ''}
                {item.reviewedLeverName ? ` · lever ${item.reviewedLeverName}` : ''}
                {item.corrected ? ' (corrected)' : ''}
                {item.runState === 'failed' && item.error ? ` · the run failed: ${item.error}` : ''}
              </p>
            ) : null}
          </div>
          <div className="flex gap-2">
            {decided || runEnded ? (
              <Button variant="outline" onClick={onClose}>
                Close
              </Button>
            ) : (
              <>
                <Button variant="outline" className="border-red-300 text-red-700 hover:bg-red-50" disabled={busy || processing} onClick={onReject}>
                  {reject.isPending ? <Spinner /> : <XCircle />} Reject
                </Button>
                <Button disabled={busy || processing || !leverId} onClick={onApprove}>
                  {approve.isPending ? <Spinner /> : <CheckCircle2 />} Approve
                </Button>
              </>
            )}
          </div>
        </CardHeader>
        {processing && run ? (
          <CardContent>
            <div className="space-y-2" aria-live="polite">
              <div className="flex items-center justify-between text-sm">
                <span className="font-medium text-slate-800">
                  {run.state === 'queued' ? 'Waiting for a worker' : `Processing ${item.fileName} with ${lever?.name ?? 'the chosen lever'}`}
                </span>
                <span className="tabular-nums text-slate-600">{Math.round(run.percent)}%</span>
              </div>
              <div role="progressbar" aria-label="Processing progress" aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(run.percent)} className="h-2 overflow-hidden rounded-full bg-slate-200">
                <div className="h-full rounded-full bg-brand-600 transition-[width] duration-300" style={{ width: `${run.percent}%` }} />
              </div>
            </div>
          </CardContent>
        ) : null}
        {run && runEnded && !completed ? (
          <CardContent>
            <Alert variant="destructive">
              <AlertTriangle />
              <p>Processing after the approval did not complete{run.error ? `: ${run.error}` : '.'} You may need to reprocess the file manually.</p>
            </Alert>
          </CardContent>
        ) : null}
      </Card>

      {completed && run?.result ? <ProcessingComplete run={run} fileName={item.fileName} confidence={item.confidence} onClose={onClose} /> : null}

      <div className="grid gap-6 lg:grid-cols-2">
        <SmartSuggestions
          suggestions={review.suggestions}
          confidence={analysis?.confidence ?? item.confidence}
          selected={leverId}
          disabled={decided || processing}
          onChoose={(s) => s.leverId && setLeverId(s.leverId)}
        />
        <Card>
          <CardHeader>
            <CardTitle className="text-base">Feedback</CardTitle>
            <CardDescription>What the AI got right or wrong; it is kept with the review and teaches the classifier.</CardDescription>
          </CardHeader>
          <CardContent className="space-y-2">
            <Label htmlFor={ids.feedback}>Feedback (required for learning)</Label>
            <Textarea
              id={ids.feedback}
              value={decided ? (item.feedback ?? NO_FEEDBACK) : feedback}
              readOnly={decided}
              maxLength={5000}
              placeholder="Why is this lever right or wrong? Which columns or identifiers show it?"
              onChange={(e) => setFeedback(e.target.value)}
            />
            {!decided ? <p className="text-xs text-slate-500">Left empty, the review records “{NO_FEEDBACK}”.</p> : null}
          </CardContent>
        </Card>
      </div>

      {analysis ? <AnalysisCard analysis={analysis} leverName={leverName} /> : null}

      <Card role="region" aria-label="Column Mapping">
        <CardHeader className="flex flex-row flex-wrap items-end justify-between gap-4">
          <div>
            <CardTitle className="text-base">Column Mapping</CardTitle>
            <CardDescription>The file is processed with this lever and mapping when the classification is approved.</CardDescription>
          </div>
          <div className="flex flex-wrap items-end gap-3">
            <div className="w-64 space-y-1.5">
              <Label htmlFor={ids.lever}>Lever</Label>
              <Select
                id={ids.lever}
                value={leverId}
                disabled={decided || processing}
                onChange={(e) => {
                  setLeverId(e.target.value)
                  setTemplateId('')
                }}
              >
                <option value="">Select a lever</option>
                {leverOptions.map((l) => (
                  <option key={l.id} value={l.id}>
                    {l.name}
                  </option>
                ))}
              </Select>
            </div>
            <div className="w-56 space-y-1.5">
              <Label htmlFor={ids.template}>Template</Label>
              <Select id={ids.template} value={templateId} disabled={decided || processing || !leverId} onChange={(e) => onLoadTemplate(e.target.value)}>
                <option value="">{(templates.data ?? []).length === 0 ? 'No saved templates' : 'Automatic mapping'}</option>
                {(templates.data ?? []).map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.name}
                  </option>
                ))}
              </Select>
            </div>
            <Button variant="outline" onClick={onReset} disabled={decided || processing}>
              <RotateCcw /> Reset
            </Button>
          </div>
        </CardHeader>
        <CardContent className="space-y-4">
          {inspection ? (
            decided || processing ? (
              <MappingSummaryTable mapping={mapping} />
            ) : (
              <ColumnMapper columns={inspection.columns} standardColumns={standard} mapping={mapping} onChange={setMapping} />
            )
          ) : (
            <Alert variant="info">
              <AlertTriangle />
              <p>The file's columns cannot be shown: {review.inspectionError ?? 'the file could not be read again.'}</p>
            </Alert>
          )}
          <p className="text-sm text-slate-600" aria-live="polite" data-testid="mapping-summary">
            {validation.mappedCount} of {standard.length} standard columns mapped{templateId ? ' · from a template' : ''}
          </p>
          {inspection && !decided && standard.length > 0 ? (
            <MappingValidationPanel type={analysisType(lever?.name)} missing={validation.missing} typeErrors={validation.typeErrors} ok={validation.ok} />
          ) : null}
        </CardContent>
      </Card>
    </div>
  )
}

const TONE_CLASS = {
  green: 'border-emerald-300 bg-emerald-50 text-emerald-900',
  blue: 'border-blue-300 bg-blue-50 text-blue-900',
  yellow: 'border-amber-300 bg-amber-50 text-amber-900',
} as const

type SuggestionsProps = {
  suggestions: LeverSuggestion[]
  confidence: number | null
  selected: string
  disabled: boolean
  onChoose: (s: LeverSuggestion) => void
}

/** The levers the evidence supports, coloured by confidence, with the learning-opportunity note below 0.5. */
function SmartSuggestions({ suggestions, confidence, selected, disabled, onChoose }: SuggestionsProps) {
  return (
    <Card role="region" aria-label="Smart Suggestions">
      <CardHeader>
        <CardTitle className="flex items-center gap-2 text-base">
          <Sparkles className="size-4 text-brand-700" aria-hidden /> Smart Suggestions
        </CardTitle>
        <CardDescription>Levers the file's evidence supports, most likely first. Choose one to process the file with it.</CardDescription>
      </CardHeader>
      <CardContent className="space-y-3">
        {suggestions.length === 0 ? <p className="text-sm text-slate-600">The AI found no evidence for any lever in this file.</p> : null}
        <ul className="space-y-2">
          {suggestions.map((s) => {
            const tone = suggestionTone(s.confidence)
            return (
              <li key={s.lever} className={cn('rounded-md border p-3', TONE_CLASS[tone])} data-tone={tone}>
                <div className="flex items-center justify-between gap-2">
                  <span className="font-medium">{s.leverName ?? s.lever}</span>
                  <span className="tabular-nums text-sm font-semibold">{formatConfidence(s.confidence)}</span>
                </div>
                {s.reasons.length > 0 ? (
                  <ul className="mt-1 list-disc pl-4 text-xs">
                    {s.reasons.map((r) => (
                      <li key={r}>{r}</li>
                    ))}
                  </ul>
                ) : null}
                {s.leverId ? (
                  <Button
                    variant="outline"
                    size="sm"
                    className="mt-2 bg-white"
                    disabled={disabled || selected === s.leverId}
                    onClick={() => onChoose(s)}
                    aria-label={`Use ${s.leverName ?? s.lever}`}
                  >
                    {selected === s.leverId ? 'Selected' : 'Use this lever'}
                  </Button>
                ) : null}
              </li>
            )
          })}
        </ul>
        {isLearningOpportunity(confidence) ? (
          <Alert variant="info" data-testid="learning-opportunity">
            <Lightbulb />
            <p>
              <span className="font-medium">Learning opportunity:</span> the AI is unsure of this file ({confidence === null ? 'no lever found' : `${formatConfidence(confidence)} confidence`}). Your
              decision teaches it how to classify files with these columns.
            </p>
          </Alert>
        ) : null}
      </CardContent>
    </Card>
  )
}

const ROLE_LABEL: Record<string, string> = {
  nif: 'NIF',
  lei: 'LEI',
  name: 'Counterparty name',
  asset_class: 'Asset class',
  country: 'Country',
  collateral: 'Collateral',
  scra: 'SCRA grade',
}

/** The classification analysis card: the engine's reason, columns, identifier hits, competing levers and evidence. */
function AnalysisCard({ analysis, leverName }: { analysis: ClassificationAnalysis; leverName: (code: string | null) => string }) {
  const learning = analysis.learning
  return (
    <Card role="region" aria-label="Classification Analysis">
      <CardHeader>
        <CardTitle className="text-base">Classification Analysis</CardTitle>
        <CardDescription data-testid="classification-reason">{analysis.reason}</CardDescription>
      </CardHeader>
      <CardContent className="space-y-5">
        <div className="overflow-x-auto rounded-md border border-slate-200">
          <table className="w-full text-left text-sm" aria-label="Detected columns">
            <thead className="bg-slate-50 text-slate-600">
              <tr>
                <th className="px-3 py-2 font-medium">Column</th>
                <th className="px-3 py-2 font-medium">Type</th>
                <th className="px-3 py-2 font-medium">Read as</th>
                <th className="px-3 py-2 font-medium">Maps to</th>
                <th className="px-3 py-2 font-medium">Confidence</th>
              </tr>
            </thead>
            <tbody>
              {analysis.columns.map((c) => (
                <tr key={c.name} className="border-t border-slate-100">
                  <td className="px-3 py-1.5 font-medium text-slate-900">{c.name}</td>
                  <td className="px-3 py-1.5 text-slate-700">{c.dataType ?? '—'}</td>
                  <td className="px-3 py-1.5 text-slate-700">{c.role ? `${ROLE_LABEL[c.role] ?? c.role}${c.recognisedBy === 'values' ? ' (from its values)' : ''}` : '—'}</td>
                  <td className="px-3 py-1.5 text-slate-700">{c.standardColumn ?? '—'}</td>
                  <td className="px-3 py-1.5 tabular-nums text-slate-700">{c.confidence === null ? '—' : formatConfidence(c.confidence)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <div className="grid gap-4 md:grid-cols-2">
          <section aria-label="Identifier hits">
            <h4 className="text-sm font-semibold text-slate-900">Identifier hits</h4>
            {analysis.identifierHits.length === 0 ? (
              <p className="text-sm text-slate-600">No identifier or name of the file was found in the reference lists.</p>
            ) : (
              <ul className="mt-1 space-y-1 text-sm text-slate-700">
                {analysis.identifierHits.map((h) => (
                  <li key={`${h.list}-${h.lever}`}>
                    {h.list} list: {formatCount(h.found)} of {formatCount(h.of)} found ({leverName(h.lever)})
                  </li>
                ))}
              </ul>
            )}
          </section>
          <section aria-label="Competing levers">
            <h4 className="text-sm font-semibold text-slate-900">Competing levers</h4>
            <ul className="mt-1 space-y-1 text-sm text-slate-700">
              {analysis.competitors.slice(0, 5).map((c) => (
                <li key={c.lever} className="flex justify-between gap-2">
                  <span>{leverName(c.lever)}</span>
                  <span className="tabular-nums">{formatConfidence(c.score)}</span>
                </li>
              ))}
            </ul>
          </section>
        </div>
        {analysis.evidence.length > 0 ? (
          <section aria-label="Evidence">
            <h4 className="text-sm font-semibold text-slate-900">Evidence</h4>
            <ul className="mt-1 space-y-0.5 text-sm text-slate-700">
              {analysis.evidence.slice(0, 10).map((e, i) => (
                <li key={i} className="flex justify-between gap-3">
                  <span>{e.description}</span>
                  <span className={cn('shrink-0 tabular-nums', e.weight < 0 ? 'text-red-700' : 'text-emerald-700')}>
                    {e.weight > 0 ? '+' : ''}
                    {e.weight.toFixed(2)} {leverName(e.lever)}
                  </span>
                </li>
              ))}
            </ul>
          </section>
        ) : null}
        {learning ? (
          <section aria-label="Continuous Learning" className="rounded-md border border-slate-200 p-3 text-sm text-slate-700">
            <h4 className="font-semibold text-slate-900">Continuous Learning (when classified)</h4>
            <p>
              Pattern accuracy {formatConfidence(learning.accuracy)} of {formatCount(learning.reviewed)} reviewed
              {learning.clientAccuracy !== null ? ` · this client's ${formatConfidence(learning.clientAccuracy)} of ${formatCount(learning.clientReviewed)}` : ''} ·{' '}
              {formatCount(learning.similar)} similar files reviewed
            </p>
          </section>
        ) : null}
      </CardContent>
    </Card>
  )
}

function MappingSummaryTable({ mapping }: { mapping: Mapping }) {
  const entries = Object.entries(mapping)
  if (entries.length === 0) return <p className="text-sm text-slate-600">No column mapping: the columns are mapped automatically.</p>
  return (
    <ul className="grid gap-1 text-sm text-slate-700 sm:grid-cols-2" aria-label="Mapping summary">
      {entries.map(([target, source]) => (
        <li key={target}>
          <span className="font-medium text-slate-900">{source}</span> → {target}
        </li>
      ))}
    </ul>
  )
}

type CompleteProps = { run: RunSnapshot; fileName: string; confidence: number | null; onClose: () => void }

/** After an approval: the processing run's real result. */
function ProcessingComplete({ run, fileName, confidence, onClose }: CompleteProps) {
  const result = run.result!
  return (
    <Card role="region" aria-label="Processing Complete" className="border-emerald-200">
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <FileCheck2 className="size-5 text-emerald-600" aria-hidden /> Processing Complete
        </CardTitle>
      </CardHeader>
      <CardContent className="space-y-4">
        <div className="rounded-lg bg-emerald-50 p-4">
          <p className="text-xs font-medium tracking-wide text-emerald-800 uppercase">Estimated Savings</p>
          <p className="text-3xl font-bold text-emerald-900" data-testid="review-savings-millions">
            {formatMillionsEur(result.savingsRwas)} RWAs
          </p>
          <p className="text-sm text-emerald-800" data-testid="review-savings-bps">
            {formatBpsUnit(result.savingsBps)}
          </p>
        </div>
        <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
          <dt className="text-slate-500">Confidence score</dt>
          <dd className="text-slate-900">{formatConfidence(confidence)}</dd>
          <dt className="text-slate-500">Lever</dt>
          <dd className="text-slate-900">{result.leverName ?? 'To be determined'}</dd>
          <dt className="text-slate-500">File</dt>
          <dd className="text-slate-900">{fileName}</dd>
          <dt className="text-slate-500">Rows</dt>
          <dd className="text-slate-900">
            {formatCount(result.rows)} ({formatCount(result.matched)} matched)
          </dd>
        </dl>
        <Button variant="outline" onClick={onClose}>
          Close
        </Button>
      </CardContent>
    </Card>
  )
}
