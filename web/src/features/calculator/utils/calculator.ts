import type { Currency } from '@/api/types/Currency'
import type { Optimisation } from '@/api/types/Optimisation'
import type { ScenarioInputs } from '@/api/types/ScenarioInputs'
import { EMPTY_VALUE, formatBps, formatPercent } from '@/lib/format'
import { parseDecimalInput } from '@/lib/spanish-number'

/** How long the controls rest before the server is asked. */
export const CALCULATE_DEBOUNCE_MS = 200

/** The predefined scenarios, in basis points (spec 002). */
export const PREDEFINED_BPS = [10, 20, 30, 50, 75, 100] as const
/** By Value: a share of the total RWAs, 0 to 5 %, step 0.1. */
export const BY_VALUE = { min: 0, max: 5, step: 0.1 } as const
/** By BPS: 0 to 200 basis points, step 0.5. */
export const BY_BPS = { min: 0, max: 200, step: 0.5 } as const
/** Projection years: 3 to 40, step 1, 10 by default. */
export const YEARS = { min: 3, max: 40, step: 1, default: 10 } as const
/** The default net interest margin, percent, as the field shows it. */
export const DEFAULT_MARGIN_TEXT = '1,3'
/** The default optimisation: 1 % of the total RWAs. */
export const DEFAULT_PERCENT = 1

export const CURRENCIES: { value: Currency; label: string; code: string }[] = [
  { value: 'eur', label: 'Euro', code: 'EUR' },
  { value: 'usd', label: 'Dollar', code: 'USD' },
  { value: 'gbp', label: 'Pound', code: 'GBP' },
]

/** The Optimization Controls' state: which tab, and each control's own value. */
export type Controls = {
  tab: 'value' | 'bps'
  /** By Value: whether the slider (a share of the RWAs) or the manual RWAs input was used last. */
  valueMode: 'percent' | 'rwas'
  percent: number
  /** The manual RWAs input's digits. */
  rwasDigits: string
  bps: number
  marginText: string
  years: number
  currency: Currency
}

export const INITIAL_CONTROLS: Controls = {
  tab: 'value',
  valueMode: 'percent',
  percent: DEFAULT_PERCENT,
  rwasDigits: '',
  bps: 0,
  marginText: DEFAULT_MARGIN_TEXT,
  years: YEARS.default,
  currency: 'eur',
}

/** The optimisation the controls give. */
export function optimisationOf(c: Controls): Optimisation {
  if (c.tab === 'bps') return { by: 'bps', value: c.bps }
  if (c.valueMode === 'rwas') return { by: 'rwas', value: c.rwasDigits === '' ? 0 : Number(c.rwasDigits) }
  return { by: 'percent_of_rwas', value: c.percent }
}

/** The calculator's inputs from the controls (an empty margin counts as 0). */
export function inputsOf(c: Controls): ScenarioInputs {
  return {
    optimisation: optimisationOf(c),
    netInterestMarginPct: parseDecimalInput(c.marginText) ?? 0,
    projectionYears: c.years,
    currency: c.currency,
  }
}

const moneyFormatters = new Map<Currency, Intl.NumberFormat>()

/** An amount in the chosen currency, Spanish formatting, no decimals: `1.234.567 €`, `1.234.567 $`. */
export function formatMoney(value: number | null | undefined, currency: Currency = 'eur'): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return EMPTY_VALUE
  let f = moneyFormatters.get(currency)
  if (!f) {
    const code = CURRENCIES.find((c) => c.value === currency)?.code ?? 'EUR'
    f = new Intl.NumberFormat('es-ES', { style: 'currency', currency: code, currencyDisplay: 'narrowSymbol', maximumFractionDigits: 0 })
    moneyFormatters.set(currency, f)
  }
  return f.format(value)
}

const millions = new Intl.NumberFormat('es-ES', { minimumFractionDigits: 1, maximumFractionDigits: 1 })

/** The chart's y axis: millions with one decimal, `12,3M`. */
export function formatMillions(value: number): string {
  return `${millions.format(value / 1_000_000)}M`
}

const years = new Intl.NumberFormat('es-ES', { minimumFractionDigits: 1, maximumFractionDigits: 1 })

/** A break-even year as the results say it: `year 2,3`, or that it is not within the projection. */
export function breakEvenText(year: number | null, projectionYears: number): string {
  if (year === null) return `Not within ${projectionYears} years`
  if (year === 0) return 'Immediately'
  return `Year ${years.format(year)}`
}

/** An optimisation in words: `20,00 bps`, `2,50 % of RWAs`, or an amount of RWAs. */
export function optimisationText(o: Optimisation, currency: Currency = 'eur'): string {
  if (o.by === 'bps') return `${formatBps(o.value)} bps`
  if (o.by === 'percent_of_rwas') return `${formatPercent(o.value)} of RWAs`
  return `${formatMoney(o.value, currency)} of RWAs`
}
