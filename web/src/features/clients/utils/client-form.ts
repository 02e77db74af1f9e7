import { format } from 'date-fns'

import { parseDecimalInput, parseSpanishAmount } from '@/lib/spanish-number'

import type { AdminClient, ClientInput } from '../api'

/** The earliest selectable From Date (spec 000 section 9). */
export const EARLIEST_FROM_DATE = '2024-01-01'

/** Today as the date input writes it (the latest selectable From Date). */
export function todayIso(now: Date = new Date()): string {
  return format(now, 'yyyy-MM-dd')
}

/** The Add New Client / Edit Client dialog's fields, as typed. Amounts are Spanish notation. */
export type ClientFormValues = {
  name: string
  description: string
  fromDate: string
  savingsRwas: string
  cet1Capital: string
  totalRwas: string
  /** Percent, with a comma or a dot: `13,55`. */
  cet1Ratio: string
}

export const EMPTY_CLIENT_FORM: ClientFormValues = {
  name: '',
  description: '',
  fromDate: '',
  savingsRwas: '',
  cet1Capital: '',
  totalRwas: '',
  cet1Ratio: '',
}

export type ClientFormErrors = Partial<Record<keyof ClientFormValues, string>>

/** The dialog's own checks and messages (spec 000 section 5); the server checks the rest again. */
export function validateClientForm(v: ClientFormValues, today: string = todayIso()): ClientFormErrors {
  const errors: ClientFormErrors = {}
  if (!v.name.trim()) errors.name = 'Client name is required'
  if (!v.description.trim()) errors.description = 'Description is required'
  if (!v.fromDate) errors.fromDate = 'From date is required'
  else if (v.fromDate < EARLIEST_FROM_DATE || v.fromDate > today) errors.fromDate = 'From date must be between 1 January 2024 and today'
  const capital = parseSpanishAmount(v.cet1Capital)
  const rwas = parseSpanishAmount(v.totalRwas)
  if ((capital === null) !== (rwas === null)) {
    errors[capital === null ? 'cet1Capital' : 'totalRwas'] = 'Enter both the official CET1 capital and total RWAs, or neither'
  } else if (capital !== null && rwas !== null && capital >= rwas) {
    errors.cet1Capital = 'The CET1 capital must be smaller than the total RWAs'
  }
  const ratio = v.cet1Ratio.trim() ? parseDecimalInput(v.cet1Ratio.trim()) : null
  if (v.cet1Ratio.trim() && (ratio === null || ratio <= 0 || ratio >= 100)) errors.cet1Ratio = 'The CET1 ratio must be a percentage between 0 and 100'
  return errors
}

/** What the server is sent; `withSavings` for a new client (savings are edited inline later). */
export function toClientInput(v: ClientFormValues, withSavings: boolean): ClientInput {
  const ratio = v.cet1Ratio.trim() ? parseDecimalInput(v.cet1Ratio.trim()) : null
  const input: ClientInput = {
    name: v.name.trim(),
    description: v.description.trim(),
    fromDate: v.fromDate || null,
    officialCet1Capital: parseSpanishAmount(v.cet1Capital),
    officialTotalRwas: parseSpanishAmount(v.totalRwas),
    officialCet1Ratio: ratio === null ? null : ratio / 100,
  }
  const savings = parseSpanishAmount(v.savingsRwas)
  if (withSavings && savings !== null) input.cet1SavingsRwas = savings
  return input
}

const ratioText = new Intl.NumberFormat('es-ES', { minimumFractionDigits: 2, maximumFractionDigits: 4 })
const amountText = new Intl.NumberFormat('es-ES', { maximumFractionDigits: 2, useGrouping: 'always' })

/** An existing client's values for the Edit Client dialog. */
export function clientFormValues(c: AdminClient): ClientFormValues {
  return {
    name: c.name,
    description: c.description,
    fromDate: c.fromDate ?? '',
    savingsRwas: '',
    cet1Capital: c.officialCet1Capital === null ? '' : amountText.format(c.officialCet1Capital),
    totalRwas: c.officialTotalRwas === null ? '' : amountText.format(c.officialTotalRwas),
    cet1Ratio: c.officialCet1Ratio === null ? '' : ratioText.format(c.officialCet1Ratio * 100),
  }
}
