import { format as formatDateFns, isValid, parseISO } from 'date-fns'

/** Shown wherever a value is missing or cannot be read. */
export const EMPTY_VALUE = '—'

const LOCALE = 'es-ES'

const eurFormatter = new Intl.NumberFormat(LOCALE, {
  style: 'currency',
  currency: 'EUR',
  minimumFractionDigits: 0,
  maximumFractionDigits: 0,
})

const bpsFormatter = new Intl.NumberFormat(LOCALE, {
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
})

// Percentages are written one way everywhere: two decimals, Spanish style (`12,34 %`); a change
// may carry its sign (`+12,34 %`).
const percentOptions: Intl.NumberFormatOptions = { style: 'percent', minimumFractionDigits: 2, maximumFractionDigits: 2 }
const percentFormatter = new Intl.NumberFormat(LOCALE, percentOptions)
const signedPercentFormatter = new Intl.NumberFormat(LOCALE, { ...percentOptions, signDisplay: 'exceptZero' })

const integerFormatter = new Intl.NumberFormat(LOCALE, { maximumFractionDigits: 0 })

function toNumber(value: number | bigint | string | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null
  const n = typeof value === 'number' ? value : Number(value)
  return Number.isFinite(n) ? n : null
}

/** An amount in euros, Spanish formatting, no decimals: `1.234.567 €`. */
export function formatEur(value: number | bigint | string | null | undefined): string {
  const n = toNumber(value)
  return n === null ? EMPTY_VALUE : eurFormatter.format(n)
}

/** Basis points with two decimals, Spanish formatting: `12,35`. */
export function formatBps(value: number | bigint | string | null | undefined): string {
  const n = toNumber(value)
  return n === null ? EMPTY_VALUE : bpsFormatter.format(n)
}

/**
 * The percent formatter: a value in percent (12.34) with two decimals, `12,34 %`. With `signed`
 * (a change against a previous period) gains carry a plus: `+12,34 %`, `-2,50 %`, `0,00 %`.
 */
export function formatPercent(value: number | bigint | string | null | undefined, options: { signed?: boolean } = {}): string {
  const n = toNumber(value)
  if (n === null) return EMPTY_VALUE
  return (options.signed ? signedPercentFormatter : percentFormatter).format(n / 100)
}

/** A ratio given as a fraction (0.1234), written as {@link formatPercent} writes it: `12,34 %`. */
export function formatRatio(value: number | bigint | string | null | undefined, options: { signed?: boolean } = {}): string {
  const n = toNumber(value)
  return n === null ? EMPTY_VALUE : formatPercent(n * 100, options)
}

/** A whole count with Spanish digit grouping: `12.345`. */
export function formatCount(value: number | bigint | string | null | undefined): string {
  const n = toNumber(value)
  return n === null ? EMPTY_VALUE : integerFormatter.format(n)
}

/** A date (ISO 8601 string or Date) as 'MMM d, yyyy': `Jan 5, 2026`. */
export function formatDate(value: string | Date | null | undefined): string {
  if (value === null || value === undefined || value === '') return EMPTY_VALUE
  const date = typeof value === 'string' ? parseISO(value) : value
  return isValid(date) ? formatDateFns(date, 'MMM d, yyyy') : EMPTY_VALUE
}

/** A moment (ISO 8601 string or Date) as 'MMM d, yyyy HH:mm' in local time: `Jan 5, 2026 10:00`. */
export function formatDateTime(value: string | Date | null | undefined): string {
  if (value === null || value === undefined || value === '') return EMPTY_VALUE
  const date = typeof value === 'string' ? parseISO(value) : value
  return isValid(date) ? formatDateFns(date, 'MMM d, yyyy HH:mm') : EMPTY_VALUE
}

const millionsFormatter = new Intl.NumberFormat(LOCALE, { minimumFractionDigits: 1, maximumFractionDigits: 1 })

/** Savings in millions of euros with one decimal, as the results panels show them: `12,3 M€`. */
export function formatMillionsEur(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return EMPTY_VALUE
  return `${millionsFormatter.format(value / 1e6)} M€`
}

/** Basis points with two decimals and the unit: `12,35 bps`. */
export function formatBpsUnit(value: number | null | undefined): string {
  const text = formatBps(value)
  return text === EMPTY_VALUE ? text : `${text} bps`
}

/** A confidence in [0, 1] as a percentage with one decimal: `87.5%` (the specification's UI form). */
export function formatConfidence(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return EMPTY_VALUE
  return `${(value * 100).toFixed(1)}%`
}
