import { Spinner } from '@/components/ui/spinner'
import { errorMessage } from '@/lib/api-client'
import { cn } from '@/lib/cn'
import { formatDate, formatPercent } from '@/lib/format'

import type { InsightHistory } from '../api'
import { formatWeight, outcomeTone } from '../utils/format'

/**
 * Similar earlier decisions of the client: the pattern-match percentage (the share of similar
 * decisions that proposed the same weight), how many came in the last 6 months, and the most
 * similar cases with their similarity, outcome and date.
 */
export function HistoricalPatterns({ history, isPending, error }: { history: InsightHistory | undefined; isPending: boolean; error: unknown }) {
  if (isPending) {
    return (
      <p className="flex items-center gap-2 text-sm text-slate-500">
        <Spinner /> Comparing with earlier runs...
      </p>
    )
  }
  if (error || !history) return <p className="text-sm text-red-700">{errorMessage(error, 'The historical patterns could not be loaded.')}</p>
  return (
    <div className="space-y-4">
      <div className="grid gap-3 sm:grid-cols-2">
        <div className="rounded-lg border border-slate-200 p-4">
          <p className="text-2xl font-bold text-slate-900" data-testid="pattern-match">
            {history.patternMatch === null ? '—' : formatPercent(history.patternMatch)}
          </p>
          <p className="text-sm text-slate-600">Pattern match: similar decisions that proposed the same weight</p>
        </div>
        <div className="rounded-lg border border-slate-200 p-4">
          <p className="text-2xl font-bold text-slate-900" data-testid="similar-recent">
            {history.similarLast6Months}
          </p>
          <p className="text-sm text-slate-600">Similar decisions in the last 6 months</p>
        </div>
      </div>
      <p className="text-xs text-slate-500">
        Compared with {history.decisionsCompared} decisions of {history.runsCompared} earlier {history.runsCompared === 1 ? 'run' : 'runs'} of the same lever; similar from 50 %
        (same identifier 50, or name 40; same rule 30; same current weight 10; same status 10).{history.note ? ` ${history.note}` : ''}
      </p>
      {history.cases.length === 0 ? (
        <p className="text-sm text-slate-500">No similar past decision.</p>
      ) : (
        <ul className="space-y-2" aria-label="Most similar past cases">
          {history.cases.map((c) => (
            <li key={`${c.runId}-${c.row}`} data-testid="similar-case" className="flex flex-wrap items-center justify-between gap-3 rounded-lg border border-slate-200 p-3">
              <div className="min-w-0">
                <p className="text-sm font-medium text-slate-900">
                  {c.exposureId || `Row ${c.row}`} — {c.counterparty}
                </p>
                <p className="text-xs text-slate-600">
                  {c.fileName}, row {c.row} · {formatWeight(c.originalRw)} → {formatWeight(c.proposedRw)} · {c.appliedRule || 'no rule'} · matched on {c.matchedOn.join(', ')}
                </p>
              </div>
              <div className="flex items-center gap-3 text-sm">
                <span className="font-semibold tabular-nums">{formatPercent(c.similarity)} similar</span>
                <span className={cn('rounded-full px-2 py-0.5 text-xs font-medium', outcomeTone(c.outcome))}>{c.outcome}</span>
                <span className="text-slate-500">{formatDate(c.date)}</span>
              </div>
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
