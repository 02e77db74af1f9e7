/**
 * Numbers typed in Spanish notation (spec 002, section 5): dots group thousands and are dropped,
 * the comma is the decimal separator, anything else is dropped, so a non-numeric key press
 * changes nothing. `1.234.567,89` reads 1234567.89.
 */

const grouped = new Intl.NumberFormat('es-ES', { maximumFractionDigits: 2, useGrouping: 'always' })

/** What may stay in a Spanish amount field as it is typed: digits, dots and one comma. */
export function cleanSpanishAmount(text: string): string {
  let out = ''
  let comma = false
  for (const ch of text) {
    if (ch >= '0' && ch <= '9') out += ch
    else if (ch === '.') out += ch
    else if (ch === ',' && !comma) {
      out += ch
      comma = true
    }
  }
  return out
}

/** The amount a Spanish-notation text holds, or null when it holds no digit. */
export function parseSpanishAmount(text: string): number | null {
  const cleaned = cleanSpanishAmount(text).replace(/\./g, '')
  if (!/\d/.test(cleaned)) return null
  const n = Number(cleaned.replace(',', '.'))
  return Number.isFinite(n) ? n : null
}

/** An amount written for a Spanish amount field: `1.234.567,89` (at most two decimals). */
export function formatSpanishAmount(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '' : grouped.format(value)
}

/** A digits-only field (the calculator's manual RWAs input): everything but digits is dropped. */
export function digitsOnly(text: string): string {
  return text.replace(/\D/g, '')
}

/**
 * A percentage typed with up to `decimals` decimals and a comma or a dot as the separator (the
 * net interest margin): the text as it may stay in the field, or null when the key press must be
 * ignored (a letter, a second separator, a third decimal).
 */
export function cleanDecimalInput(text: string, decimals = 2): string | null {
  const pattern = new RegExp(`^\\d*([.,]\\d{0,${decimals}})?$`)
  return pattern.test(text) ? text : null
}

/** The number of a {@link cleanDecimalInput} text (`1,35` → 1.35), or null when there is none. */
export function parseDecimalInput(text: string): number | null {
  if (!/\d/.test(text)) return null
  const n = Number(text.replace(',', '.'))
  return Number.isFinite(n) ? n : null
}
