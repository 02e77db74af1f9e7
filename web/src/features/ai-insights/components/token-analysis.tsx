import { cn } from '@/lib/cn'

import type { InsightTokens } from '../api'
import { IMPORTANCE_TONE } from '../utils/format'

const weightFormatter = new Intl.NumberFormat('es-ES', { maximumFractionDigits: 3 })

/**
 * The classifier's weighted evidence of the run as word chips coloured by importance (high red,
 * medium yellow, low green) with the counts of each, and what each token stands for.
 */
export function TokenAnalysis({ tokens }: { tokens: InsightTokens }) {
  return (
    <div className="space-y-4">
      <div className="grid gap-3 sm:grid-cols-3">
        {(
          [
            ['high', 'High impact tokens', tokens.high],
            ['medium', 'Medium impact tokens', tokens.medium],
            ['low', 'Low impact tokens', tokens.low],
          ] as const
        ).map(([key, label, n]) => (
          <div key={key} className={cn('rounded-lg border p-3', IMPORTANCE_TONE[key])}>
            <p className="text-2xl font-bold" aria-label={label}>
              {n}
            </p>
            <p className="text-sm">{label}</p>
          </div>
        ))}
      </div>
      <p className="text-sm text-slate-600">
        {tokens.note}
        {tokens.lever ? ` The classifier proposed ${tokens.lever.toUpperCase()}${tokens.confidence !== null ? ` with ${Math.round(tokens.confidence * 100)} % confidence` : ''}.` : ''} Importance is relative to the strongest token: high from two thirds of its weight, medium from one third.
      </p>
      {tokens.tokens.length === 0 ? (
        <p className="text-sm text-slate-500">The classifier found no evidence in this file.</p>
      ) : (
        <>
          <ul className="flex flex-wrap gap-2" aria-label="Weighted tokens">
            {tokens.tokens.map((t, i) => (
              <li
                key={`${t.token}-${i}`}
                data-testid="token-chip"
                data-importance={t.importance}
                title={t.detail}
                className={cn('rounded-full border px-3 py-1 text-sm font-medium', IMPORTANCE_TONE[t.importance])}
              >
                {t.token} <span className="text-xs opacity-75">{weightFormatter.format(t.weight)}</span>
              </li>
            ))}
          </ul>
          <table className="w-full text-left text-sm">
            <thead className="border-b border-slate-200 text-xs text-slate-500 uppercase">
              <tr>
                <th className="py-2 pr-3 font-medium">Token</th>
                <th className="py-2 pr-3 font-medium">Weight</th>
                <th className="py-2 pr-3 font-medium">Lever</th>
                <th className="py-2 font-medium">What was seen</th>
              </tr>
            </thead>
            <tbody>
              {tokens.tokens.map((t, i) => (
                <tr key={`${t.token}-${i}`} className="border-b border-slate-100 last:border-0">
                  <td className="py-2 pr-3 font-medium text-slate-900">{t.token}</td>
                  <td className="py-2 pr-3 tabular-nums">{weightFormatter.format(t.weight)}</td>
                  <td className="py-2 pr-3 uppercase">{t.lever}</td>
                  <td className="py-2 text-slate-600">{t.detail}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </div>
  )
}
