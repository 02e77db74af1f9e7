import type { ValidationStatus } from '../api'

/** The label of a validation status. */
export function statusLabel(status: ValidationStatus): string {
  return { pending: 'Pending', approved: 'Approved', rejected: 'Rejected', superseded: 'Superseded' }[status]
}

/** The badge colours of a validation status. */
export function statusTone(status: ValidationStatus): string {
  return {
    pending: 'bg-amber-100 text-amber-800',
    approved: 'bg-emerald-100 text-emerald-800',
    rejected: 'bg-red-100 text-red-800',
    superseded: 'bg-slate-100 text-slate-700',
  }[status]
}

/** The banner's sentence: '{n} files pending validation.' */
export function pendingSentence(n: number): string {
  return `${n} files pending validation.`
}

/** Checks the numeric filters: a message for the first one that is not a number, or a minimum above its maximum. */
export function numericFilterError(f: { minRwas: string; maxRwas: string; minBps: string; maxBps: string }): string | null {
  const num = (s: string) => (s.trim() === '' ? null : Number(s))
  const fields: [string, string][] = [
    ['Min RWAs', f.minRwas],
    ['Max RWAs', f.maxRwas],
    ['Min BPS', f.minBps],
    ['Max BPS', f.maxBps],
  ]
  for (const [label, value] of fields) {
    const n = num(value)
    if (n !== null && !Number.isFinite(n)) return `${label} must be a number`
  }
  const [a, b, c, d] = fields.map(([, v]) => num(v))
  if (a !== null && b !== null && a > b) return 'Min RWAs must not be above Max RWAs'
  if (c !== null && d !== null && c > d) return 'Min BPS must not be above Max BPS'
  return null
}
