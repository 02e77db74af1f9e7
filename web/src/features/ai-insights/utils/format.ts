import { formatPercent } from '@/lib/format'

import type { InsightDecision } from '../api'

/** A risk weight in percent as the screens write it. */
export function formatWeight(pct: number | null | undefined): string {
  return formatPercent(pct)
}

/** The Classification select's text of a decision: exposure, counterparty, weights. */
export function decisionLabel(d: InsightDecision): string {
  const who = d.counterparty || d.identifier
  const id = d.exposureId || `Row ${d.row}`
  return `${id}${who ? ` — ${who}` : ''} — ${formatWeight(d.originalRw)} → ${formatWeight(d.proposedRw)}`
}

const STATUS_LABEL: Record<string, string> = { matched: 'Matched', not_matched: 'Not matched', error: 'Error' }

export function statusLabel(status: string): string {
  return STATUS_LABEL[status] ?? status
}

/** Importance colours of the Token Analysis (high red, medium yellow, low green). */
export const IMPORTANCE_TONE = {
  high: 'border-red-200 bg-red-100 text-red-800',
  medium: 'border-amber-200 bg-amber-100 text-amber-800',
  low: 'border-emerald-200 bg-emerald-100 text-emerald-800',
} as const

/** The tone of a score out of 100 (confidence bars). */
export function scoreTone(score: number): string {
  if (score >= 75) return 'bg-emerald-500'
  if (score >= 50) return 'bg-amber-500'
  return 'bg-red-500'
}

const OUTCOME_TONE: Record<string, string> = {
  Approved: 'bg-emerald-100 text-emerald-800',
  Rejected: 'bg-red-100 text-red-800',
  'Pending validation': 'bg-amber-100 text-amber-800',
}

export function outcomeTone(outcome: string): string {
  return OUTCOME_TONE[outcome] ?? 'bg-slate-100 text-slate-700'
}
