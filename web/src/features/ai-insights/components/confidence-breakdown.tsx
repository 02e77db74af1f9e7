import { cn } from '@/lib/cn'
import { formatPercent } from '@/lib/format'

import type { InsightConfidence } from '../api'
import { scoreTone } from '../utils/format'

/** The four factors of a decision's confidence, each with its score and how it was computed, and their mean. */
export function ConfidenceBreakdown({ confidence }: { confidence: InsightConfidence }) {
  return (
    <div className="space-y-4">
      <div className="flex items-baseline gap-3">
        <span className="text-3xl font-bold text-slate-900" data-testid="overall-confidence">
          {formatPercent(confidence.overall)}
        </span>
        <span className="text-sm text-slate-600">overall confidence: the mean of the four factors</span>
      </div>
      <ul className="space-y-4">
        {confidence.factors.map((f) => (
          <li key={f.key} data-testid={`factor-${f.key}`} className="rounded-lg border border-slate-200 p-4">
            <div className="flex items-center justify-between gap-3">
              <span className="font-medium text-slate-900">{f.label}</span>
              <span className="font-semibold tabular-nums text-slate-900">{formatPercent(f.score)}</span>
            </div>
            <div
              className="mt-2 h-2 overflow-hidden rounded-full bg-slate-100"
              role="progressbar"
              aria-label={f.label}
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={f.score}
            >
              <div className={cn('h-full rounded-full', scoreTone(f.score))} style={{ width: `${Math.max(0, Math.min(100, f.score))}%` }} />
            </div>
            <p className="mt-2 text-sm text-slate-600">{f.how}</p>
            {f.details.length > 0 ? (
              <ul className="mt-1 list-disc pl-5 text-sm text-slate-600">
                {f.details.map((d) => (
                  <li key={d}>{d}</li>
                ))}
              </ul>
            ) : null}
          </li>
        ))}
      </ul>
    </div>
  )
}
