import { cn } from '@/lib/cn'
import { formatConfidence } from '@/lib/format'

const TONE = {
  default: 'bg-brand-600 text-white',
  secondary: 'bg-slate-200 text-slate-800',
  destructive: 'bg-red-600 text-white',
} as const

/** A confidence as a badge, coloured by the list's thresholds (see `confidenceBadge`). */
export function ConfidenceBadge({ tone, value }: { tone: keyof typeof TONE; value: number | null }) {
  return (
    <span className={cn('inline-flex rounded-full px-2 py-0.5 text-xs font-semibold tabular-nums', TONE[tone])} data-tone={tone}>
      {value === null ? 'No lever' : formatConfidence(value)}
    </span>
  )
}
