/**
 * The brand colour rule (spec 002): a 6-digit hex with or without '#' is that colour, a 3-digit
 * hex is expanded (`#abc` → `#aabbcc`); the result is lower-case `#rrggbb`. Anything else is not a
 * colour (null): the field keeps what was typed and nothing is applied.
 */
export function normalizeHex(input: string): string | null {
  const raw = input.trim().replace(/^#/, '')
  if (/^[0-9a-fA-F]{6}$/.test(raw)) return `#${raw.toLowerCase()}`
  if (/^[0-9a-fA-F]{3}$/.test(raw)) return `#${[...raw.toLowerCase()].map((c) => c + c).join('')}`
  return null
}
