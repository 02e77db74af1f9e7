import type { DetectedColumn } from '@/api/types/DetectedColumn'
import type { MappingTemplate } from '@/api/types/MappingTemplate'
import type { StandardColumn } from '@/api/types/StandardColumn'

/**
 * Column mapping rules shared by the screens that map a file's columns onto a lever's standard
 * columns (the processor's mapping dialog, the classification review): links, validation,
 * templates.
 */

/** Standard column -> source column. */
export type Mapping = Record<string, string>

/** A saved template matches a file when its columns overlap at least this share of the larger list. */
export const TEMPLATE_MATCH_THRESHOLD = 0.6

/**
 * Links `standard` to `source`: the drop removes every earlier link of the same standard column
 * and of the same source column (a source column feeds one standard column, and the reverse).
 */
export function linkColumns(mapping: Mapping, standard: string, source: string): Mapping {
  const next: Mapping = {}
  for (const [target, from] of Object.entries(mapping)) {
    if (target !== standard && from !== source) next[target] = from
  }
  next[standard] = source
  return next
}

/** 'No mapping': removes the link of `standard`. */
export function unlinkColumn(mapping: Mapping, standard: string): Mapping {
  const next = { ...mapping }
  delete next[standard]
  return next
}

/** Keeps only links whose source column is in the file and whose standard column is known. */
export function cleanMapping(mapping: Mapping, sourceColumns: readonly string[], standardColumns?: readonly string[]): Mapping {
  const sources = new Set(sourceColumns)
  const targets = standardColumns ? new Set(standardColumns) : null
  const next: Mapping = {}
  const used = new Set<string>()
  for (const [target, from] of Object.entries(mapping)) {
    if (typeof from !== 'string' || from === '' || !sources.has(from) || used.has(from)) continue
    if (targets && !targets.has(target)) continue
    used.add(from)
    next[target] = from
  }
  return next
}

/** The standard column a source column feeds, if any. */
export function targetOf(mapping: Mapping, source: string): string | null {
  for (const [target, from] of Object.entries(mapping)) if (from === source) return target
  return null
}

/** The analysis a lever runs, as the validation panel names it. */
export function analysisType(leverName: string | null | undefined): string {
  const name = (leverName ?? '').toLowerCase()
  if (/\bpse\b|public sector entit/.test(name)) return 'PSE'
  if (/\bmdb\b|multilateral/.test(name)) return 'MDB'
  if (/\brgla\b|regional gov|local authorit/.test(name)) return 'RGLA'
  return 'standard'
}

export type MappingValidation = {
  /** Required standard columns without a link. */
  missing: string[]
  /** One message per value a numeric standard column could not read. */
  typeErrors: string[]
  mappedCount: number
  /** Confirm is allowed: nothing missing, no type error, at least one link. */
  ok: boolean
}

/** Rows of the preview whose values the data-type check reads (as the server's check does). */
export const TYPE_CHECK_ROWS = 5

/**
 * A numeric value as the engine reads amounts and weights: non-numeric characters are stripped, so
 * '1.250.000 €' or '20 %' read, but a value without any digit (say 'n/a') does not.
 */
export function readsAsNumber(value: string): boolean {
  const trimmed = value.trim()
  return trimmed === '' || /\d/.test(trimmed)
}

/**
 * The validation panel's checks, run on every mapping change: the required standard columns
 * that are not mapped, the values of the first rows that a numeric standard column cannot read,
 * and whether anything is mapped at all.
 */
export function validateMapping(
  mapping: Mapping,
  standard: readonly StandardColumn[],
  columns: readonly DetectedColumn[],
  preview: readonly string[][],
): MappingValidation {
  const missing = standard.filter((c) => c.isRequired && !mapping[c.name]).map((c) => c.name)
  const typeErrors: string[] = []
  const index = new Map(columns.map((c, i) => [c.name, i]))
  for (const column of standard) {
    const source = mapping[column.name]
    if (column.dataType !== 'numeric' || !source) continue
    const at = index.get(source)
    if (at === undefined) continue
    preview.slice(0, TYPE_CHECK_ROWS).forEach((row, i) => {
      const value = row[at] ?? ''
      if (!readsAsNumber(value)) {
        typeErrors.push(`Row ${i + 1}: Source column "${source}" contains non-numeric value "${value}" for expected numeric field "${column.name}"`)
      }
    })
  }
  const mappedCount = Object.keys(mapping).length
  return { missing, typeErrors, mappedCount, ok: missing.length === 0 && typeErrors.length === 0 && mappedCount > 0 }
}

/**
 * The share of overlapping column names (case-insensitive) of the larger of the two lists: a
 * template matches a file at {@link TEMPLATE_MATCH_THRESHOLD} or more.
 */
export function columnOverlap(fileColumns: readonly string[], templateColumns: readonly string[]): number {
  const a = new Set(fileColumns.map((c) => c.trim().toLowerCase()))
  const b = new Set(templateColumns.map((c) => c.trim().toLowerCase()))
  const larger = Math.max(a.size, b.size)
  if (larger === 0) return 0
  let shared = 0
  for (const c of a) if (b.has(c)) shared++
  return shared / larger
}

/** The template that best matches the file's columns, if one reaches the threshold. */
export function bestTemplate(templates: readonly MappingTemplate[], fileColumns: readonly string[]): MappingTemplate | null {
  let best: MappingTemplate | null = null
  let bestScore = 0
  for (const template of templates) {
    const score = columnOverlap(fileColumns, template.sourceColumns)
    if (score >= TEMPLATE_MATCH_THRESHOLD && score > bestScore) {
      best = template
      bestScore = score
    }
  }
  return best
}

/**
 * A template's mapping applied to this file: its links matched to the file's columns by name,
 * case-insensitively (so a template saved from 'nif' loads onto 'NIF'), links to columns the file
 * lacks dropped.
 */
export function applyTemplate(template: MappingTemplate, fileColumns: readonly string[], standard: readonly string[]): Mapping {
  const byLower = new Map(fileColumns.map((c) => [c.trim().toLowerCase(), c]))
  const translated: Mapping = {}
  for (const [target, from] of Object.entries(template.mapping)) {
    const actual = byLower.get(from.trim().toLowerCase())
    if (actual) translated[target] = actual
  }
  return cleanMapping(translated, fileColumns, standard)
}

/** Filters the standard columns by the search (name or description) and the 'mapped only' switch. */
export function filterStandardColumns(columns: readonly StandardColumn[], mapping: Mapping, search: string, mappedOnly: boolean): StandardColumn[] {
  const q = search.trim().toLowerCase()
  return columns.filter(
    (c) => (!mappedOnly || Boolean(mapping[c.name])) && (q === '' || c.name.toLowerCase().includes(q) || c.description.toLowerCase().includes(q)),
  )
}
