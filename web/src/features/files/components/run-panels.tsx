import { AlertTriangle, Brain, CheckCircle2, CircleDashed, Download, FileCheck2, RotateCcw, ShieldCheck, XCircle } from 'lucide-react'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { cn } from '@/lib/cn'
import { formatCount } from '@/lib/format'

import { processedHref, type RunSnapshot, type RunStage } from '../api'
import { DownloadLink } from './download-link'
import { formatBpsUnit, formatConfidence, formatMillionsEur, runProgressText, stageLabel } from '../utils/format'

/** A progress bar over the run's real percentage. */
export function ProgressBar({ value, label }: { value: number; label: string }) {
  const pct = Math.max(0, Math.min(100, value))
  return (
    <div role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(pct)} className="h-2 w-full overflow-hidden rounded-full bg-slate-200">
      <div className="h-full rounded-full bg-brand-600 transition-[width] duration-300" style={{ width: `${pct}%` }} />
    </div>
  )
}

/** The run's progress as it is (manual and AI modes): stage, percent, rows. */
export function RunProgress({ run, onCancel }: { run: RunSnapshot; onCancel?: () => void }) {
  return (
    <div className="space-y-2" aria-live="polite">
      <div className="flex items-center justify-between text-sm">
        <span className="font-medium text-slate-800">{run.state === 'queued' ? 'Waiting for a worker' : stageLabel(run.stage)}</span>
        <span className="text-slate-600 tabular-nums">{Math.round(run.percent)}%</span>
      </div>
      <ProgressBar value={run.percent} label="Processing progress" />
      <p className="text-xs text-slate-500">{runProgressText(run)}</p>
      {onCancel && (
        <Button variant="outline" size="sm" onClick={onCancel}>
          <XCircle /> Cancel Processing
        </Button>
      )}
    </div>
  )
}

/** The agents of the 'Advanced AI Intelligence' panel: the run's real stages, in order. */
export const AI_AGENTS: { name: string; stages: RunStage[] }[] = [
  { name: 'Classification Agent', stages: ['reading', 'classifying'] },
  { name: 'Mapping Agent', stages: ['mapping'] },
  { name: 'Analysis Engine', stages: ['evaluating'] },
  { name: 'Output & Checks', stages: ['writing'] },
  { name: 'Record Update', stages: ['recording'] },
]

const STAGE_ORDER: RunStage[] = ['queued', 'reading', 'classifying', 'mapping', 'evaluating', 'writing', 'recording', 'done']

/** Where an agent stands for a run: done, working or waiting. */
export function agentStatus(run: RunSnapshot, stages: RunStage[]): 'done' | 'active' | 'waiting' | 'failed' {
  const at = STAGE_ORDER.indexOf(run.stage)
  const last = Math.max(...stages.map((s) => STAGE_ORDER.indexOf(s)))
  const first = Math.min(...stages.map((s) => STAGE_ORDER.indexOf(s)))
  if (run.state === 'completed' || run.stage === 'done') return 'done'
  if (at > last) return 'done'
  if (at >= first && at <= last) return run.state === 'failed' || run.state === 'cancelled' ? 'failed' : 'active'
  return 'waiting'
}

/** The current agent's name, or the run's state when no agent works. */
function currentAgent(run: RunSnapshot): string {
  const agent = AI_AGENTS.find((a) => a.stages.includes(run.stage))
  if (run.state === 'queued') return 'Waiting for a worker'
  if (run.state === 'completed' || run.state === 'pending_review') return 'All agents finished'
  return agent?.name ?? stageLabel(run.stage)
}

type Evidence = { description: string; weight: number }
/** What past reviewed classifications say, measured when the file was classified (server `Learning`). */
export type LearningView = {
  reviewed: number
  approved: number
  accuracy: number
  similar: number
  earlierAccuracy: number | null
  recentAccuracy: number | null
  /** Reviews of the file's own client and their accuracy (null without any). */
  clientReviewed: number
  clientAccuracy: number | null
}
type ClassificationView = {
  lever: string | null
  confidence: number | null
  evidence: Evidence[]
  competitors: { lever: string; score: number }[]
  learning: LearningView | null
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null)

/** Reads the classification's `learning` figures; null unless every required figure is there and some reviews exist. */
export function readLearning(value: unknown): LearningView | null {
  if (!value || typeof value !== 'object') return null
  const v = value as Record<string, unknown>
  const reviewed = num(v.reviewed)
  const approved = num(v.approved)
  const accuracy = num(v.accuracy)
  const similar = num(v.similar)
  if (reviewed === null || approved === null || accuracy === null || similar === null || reviewed <= 0) return null
  return {
    reviewed,
    approved,
    accuracy,
    similar,
    earlierAccuracy: num(v.earlierAccuracy),
    recentAccuracy: num(v.recentAccuracy),
    clientReviewed: num(v.clientReviewed) ?? 0,
    clientAccuracy: num(v.clientAccuracy),
  }
}

/** A change of accuracy in percentage points, signed, one decimal. */
export function formatPoints(delta: number): string {
  const points = Math.round(delta * 1000) / 10
  return `${points > 0 ? '+' : points < 0 ? '−' : '±'}${Math.abs(points).toFixed(1)} points`
}

/** Reads the engine's classification evidence (JSON) defensively: whatever is not there is not shown. */
export function readClassification(value: unknown): ClassificationView | null {
  if (!value || typeof value !== 'object') return null
  const v = value as Record<string, unknown>
  const evidence = Array.isArray(v.evidence)
    ? v.evidence.flatMap((e) => {
        const item = e as Record<string, unknown>
        return typeof item?.description === 'string' ? [{ description: item.description, weight: typeof item.weight === 'number' ? item.weight : 0 }] : []
      })
    : []
  const competitors = Array.isArray(v.scores)
    ? v.scores.flatMap((s) => (Array.isArray(s) && typeof s[0] === 'string' && typeof s[1] === 'number' ? [{ lever: s[0], score: s[1] }] : []))
    : Array.isArray(v.competitors)
      ? v.competitors.flatMap((c) => {
          const item = c as Record<string, unknown>
          return typeof item?.lever === 'string' && typeof item.score === 'number' ? [{ lever: item.lever, score: item.score }] : []
        })
      : []
  competitors.sort((a, b) => b.score - a.score)
  return {
    lever: typeof v.lever === 'string' ? v.lever : null,
    confidence: typeof v.confidence === 'number' ? v.confidence : null,
    evidence,
    competitors,
    learning: readLearning(v.learning),
  }
}

/** The icon of a run's state: green completed, red failed, pulsing blue otherwise. */
function StateIcon({ run }: { run: RunSnapshot }) {
  if (run.state === 'completed' || run.state === 'pending_review') return <CheckCircle2 className="size-5 text-emerald-600" aria-label="Completed" />
  if (run.state === 'failed' || run.state === 'cancelled') return <XCircle className="size-5 text-red-600" aria-label="Failed" />
  return <span className="inline-block size-3 animate-pulse rounded-full bg-brand-500" aria-label="Working" />
}

/**
 * 'Advanced AI Intelligence' (enhanced AI mode): the run's real stages as its agents, the real
 * progress, and cards only for what the run really measured: the classification's evidence and
 * competing levers, and the run's own checks.
 */
export function AiProgressPanel({ run }: { run: RunSnapshot }) {
  const classification = readClassification(run.result?.classification)
  const checks = run.result?.checks ?? null
  return (
    <Card role="region" aria-label="Advanced AI Intelligence">
      <CardHeader>
        <div className="flex items-center gap-2">
          <Brain className="size-5 text-brand-700" aria-hidden />
          <CardTitle>Advanced AI Intelligence</CardTitle>
          <span className="ml-auto">
            <StateIcon run={run} />
          </span>
        </div>
        <CardDescription>
          Current agent: <span className="font-medium text-slate-700">{currentAgent(run)}</span>
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        <RunProgress run={run} />
        <ol className="space-y-1.5" aria-label="Agents">
          {AI_AGENTS.map((agent) => {
            const status = agentStatus(run, agent.stages)
            return (
              <li key={agent.name} className="flex items-center gap-2 text-sm">
                {status === 'done' ? (
                  <CheckCircle2 className="size-4 text-emerald-600" aria-hidden />
                ) : status === 'active' ? (
                  <span className="inline-block size-3 animate-pulse rounded-full bg-brand-500" aria-hidden />
                ) : status === 'failed' ? (
                  <XCircle className="size-4 text-red-600" aria-hidden />
                ) : (
                  <CircleDashed className="size-4 text-slate-400" aria-hidden />
                )}
                <span className={cn(status === 'waiting' ? 'text-slate-500' : 'text-slate-900')}>{agent.name}</span>
                <span className="ml-auto text-xs text-slate-500">{{ done: 'Done', active: 'Working', waiting: 'Waiting', failed: 'Stopped' }[status]}</span>
              </li>
            )
          })}
        </ol>
        {classification && (classification.evidence.length > 0 || classification.competitors.length > 0) && (
          <section aria-label="Multi-Agent Collaboration" className="rounded-lg border border-slate-200 p-3">
            <h4 className="text-sm font-semibold text-slate-900">Multi-Agent Collaboration</h4>
            {classification.confidence !== null && (
              <p className="text-sm text-slate-600">Classification confidence: {formatConfidence(classification.confidence)}</p>
            )}
            {classification.evidence.length > 0 && (
              <ul className="mt-1 list-disc pl-4 text-xs text-slate-600">
                {classification.evidence.slice(0, 3).map((e, i) => (
                  <li key={i}>{e.description}</li>
                ))}
              </ul>
            )}
            {classification.competitors.length > 1 && (
              <p className="mt-1 text-xs text-slate-500">
                Competing levers:{' '}
                {classification.competitors
                  .slice(1, 4)
                  .map((c) => `${c.lever} ${formatConfidence(c.score)}`)
                  .join(', ')}
              </p>
            )}
          </section>
        )}
        {classification?.learning && <ContinuousLearning learning={classification.learning} />}
        {checks && (
          <section aria-label="Self-Monitoring" className="rounded-lg border border-slate-200 p-3">
            <h4 className="text-sm font-semibold text-slate-900">Self-Monitoring</h4>
            <dl className="mt-1 grid grid-cols-2 gap-x-4 gap-y-1 text-xs text-slate-600">
              <dt>Error rows</dt>
              <dd className="text-right tabular-nums">{formatCount(checks.errorRows)}</dd>
              <dt>Unreadable values</dt>
              <dd className="text-right tabular-nums">{formatCount(checks.unreadableValues)}</dd>
              <dt>Flagged rows</dt>
              <dd className="text-right tabular-nums">{formatCount(checks.flaggedRows)}</dd>
              <dt>Totals reconciled</dt>
              <dd className="text-right">{checks.totalsReconciled ? 'Yes' : 'No'}</dd>
            </dl>
          </section>
        )}
      </CardContent>
    </Card>
  )
}

/**
 * 'Continuous Learning': the measured accuracy of past reviewed classifications (how often a
 * reviewer kept the proposed lever), over every client and over the file's own client, the
 * reviews of files with similar columns that counted in this classification, and, from ten
 * reviews, the newer half's accuracy against the older half's.
 */
function ContinuousLearning({ learning }: { learning: LearningView }) {
  const trend = learning.earlierAccuracy !== null && learning.recentAccuracy !== null ? learning.recentAccuracy - learning.earlierAccuracy : null
  return (
    <section aria-label="Continuous Learning" className="rounded-lg border border-slate-200 p-3">
      <h4 className="text-sm font-semibold text-slate-900">Continuous Learning</h4>
      <dl className="mt-1 grid grid-cols-2 gap-x-4 gap-y-1 text-xs text-slate-600">
        <dt>Pattern accuracy</dt>
        <dd className="text-right tabular-nums">
          {formatConfidence(learning.accuracy)} of {formatCount(learning.reviewed)} reviewed
        </dd>
        {learning.clientReviewed > 0 && learning.clientAccuracy !== null && (
          <>
            <dt>This client's classifications</dt>
            <dd className="text-right tabular-nums">
              {formatConfidence(learning.clientAccuracy)} of {formatCount(learning.clientReviewed)} reviewed
            </dd>
          </>
        )}
        <dt>Similar files reviewed</dt>
        <dd className="text-right tabular-nums">{formatCount(learning.similar)}</dd>
        {trend !== null && (
          <>
            <dt>Performance improvement</dt>
            <dd className="text-right tabular-nums">{formatPoints(trend)}</dd>
          </>
        )}
      </dl>
    </section>
  )
}

type ResultsProps = {
  run: RunSnapshot | null
  fileName: string | null
  onBack: () => void
  onProcessAnother: () => void
}

/** The results panel (spec 2.6): the run's real outcome, or 'No results to display yet'. */
export function ResultsPanel({ run, fileName, onBack, onProcessAnother }: ResultsProps) {
  const result = run?.result ?? null
  if (run && run.state === 'failed') {
    return (
      <Card role="region" aria-label="Results">
        <CardHeader>
          <CardTitle>Processing Failed</CardTitle>
        </CardHeader>
        <CardContent className="space-y-3">
          <Alert variant="destructive">
            <AlertTriangle />
            <p>{run.error ?? 'File processing failed'}</p>
          </Alert>
          <Button variant="outline" onClick={onProcessAnother}>
            <RotateCcw /> Process Another File
          </Button>
        </CardContent>
      </Card>
    )
  }
  if (run && run.state === 'cancelled') {
    return (
      <Card role="region" aria-label="Results">
        <CardHeader>
          <CardTitle>Processing Cancelled</CardTitle>
          <CardDescription>The run was cancelled; nothing was recorded.</CardDescription>
        </CardHeader>
        <CardContent>
          <Button variant="outline" onClick={onProcessAnother}>
            <RotateCcw /> Process Another File
          </Button>
        </CardContent>
      </Card>
    )
  }
  if (run && run.state === 'pending_review') {
    const confidence = result?.confidence ?? null
    return (
      <Card role="region" aria-label="Results">
        <CardHeader>
          <CardTitle>Processing Complete - Pending Validation</CardTitle>
          <CardDescription>
            {confidence !== null
              ? `File processed with ${formatConfidence(confidence)} confidence. Results pending admin validation.`
              : 'Results pending admin validation.'}
          </CardDescription>
        </CardHeader>
        <CardContent className="space-y-3 text-sm text-slate-700">
          <p>File: {fileName ?? '—'}</p>
          {result?.leverName && <p>Proposed lever: {result.leverName}</p>}
          <Button variant="outline" onClick={onProcessAnother}>
            <RotateCcw /> Process Another File
          </Button>
        </CardContent>
      </Card>
    )
  }
  if (!run || run.state !== 'completed' || !result) {
    return (
      <Card role="region" aria-label="Results">
        <CardHeader>
          <CardTitle>No results to display yet</CardTitle>
          <CardDescription>Upload a file and its savings appear here when processing completes.</CardDescription>
        </CardHeader>
        <CardContent>
          <Button variant="outline" onClick={onBack}>
            Go Back
          </Button>
        </CardContent>
      </Card>
    )
  }
  const ai = run.mode === 'enhanced-ai'
  return (
    <Card role="region" aria-label="Results">
      <CardHeader>
        <div className="flex items-center gap-2">
          <FileCheck2 className="size-5 text-emerald-600" aria-hidden />
          <CardTitle>{ai ? 'Capital Optimization Results' : 'Processing Complete'}</CardTitle>
        </div>
      </CardHeader>
      <CardContent className="space-y-4">
        <div className="rounded-lg bg-emerald-50 p-4">
          <p className="text-xs font-medium tracking-wide text-emerald-800 uppercase">Estimated Savings</p>
          <p className="text-3xl font-bold text-emerald-900" data-testid="savings-millions">
            {formatMillionsEur(result.savingsRwas)}
          </p>
          <p className="text-sm text-emerald-800" data-testid="savings-bps">
            {formatBpsUnit(result.savingsBps)} of CET1 ratio
          </p>
        </div>
        <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
          <dt className="text-slate-500">File</dt>
          <dd className="truncate text-slate-900">{fileName ?? '—'}</dd>
          <dt className="text-slate-500">Lever</dt>
          <dd className="text-slate-900">{result.leverName ?? 'To be determined'}</dd>
          {ai && result.confidence !== null && (
            <>
              <dt className="text-slate-500">Confidence</dt>
              <dd className="text-slate-900">{formatConfidence(result.confidence)}</dd>
            </>
          )}
          <dt className="text-slate-500">Rows</dt>
          <dd className="text-slate-900">
            {formatCount(result.rows)} ({formatCount(result.matched)} matched, {formatCount(result.notMatched)} not matched, {formatCount(result.errors)} errors)
          </dd>
        </dl>
        {ai && (
          <section aria-label="Processing Summary" className="rounded-lg border border-slate-200 p-3 text-sm">
            <h4 className="mb-1 flex items-center gap-1.5 font-semibold text-slate-900">
              <ShieldCheck className="size-4" aria-hidden /> Processing Summary
            </h4>
            <p>File: {fileName ?? '—'}</p>
            <p>Mode: Enhanced AI Processing</p>
            <p>Status: Complete</p>
            <p>Mapped columns: {result.mappedColumns}</p>
          </section>
        )}
        <div className="flex flex-wrap gap-2">
          {!ai && (
            <Button variant="outline" onClick={onBack}>
              Back
            </Button>
          )}
          <Button variant="outline" onClick={onProcessAnother}>
            <RotateCcw /> Process Another File
          </Button>
          <Button asChild>
            <DownloadLink href={processedHref(run.fileId)}>
              <Download /> {ai ? 'Download Optimized File' : 'Download File'}
            </DownloadLink>
          </Button>
        </div>
      </CardContent>
    </Card>
  )
}
