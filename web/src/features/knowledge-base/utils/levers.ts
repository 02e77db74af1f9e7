import type { ExtractedLever } from '@/api/types/ExtractedLever'

/** Extracted levers' categories (spec 002). */
export const LEVER_CATEGORIES = ['Assets', 'CRMT', 'CET1 Deductions'] as const
/** Rule types (spec 002). */
export const RULE_TYPES = ['condition', 'calculation', 'classification'] as const
/** 'A lever with a similar name already exists. Selecting it.' (spec 002). */
export const SIMILAR_NAME = 'A lever with a similar name already exists. Selecting it.'

/** One problem of a lever (`rule` is the 1-based rule number for a rule's field). */
export type LeverProblem = { lever: number; rule: number | null; field: string; message: string }

/** The name levers are compared by: lowercased, non-alphanumerics stripped (spec 002). */
export function nameKey(name: string): string {
  return name.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '')
}

const nonEmptyObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length > 0

/** The server's checks with the specification's messages, so the reviewer sees them before saving. */
export function checkLevers(levers: readonly ExtractedLever[]): LeverProblem[] {
  const out: LeverProblem[] = []
  levers.forEach((l, i) => {
    const lever = (field: string, message: string) => out.push({ lever: i, rule: null, field, message })
    if (l.leverName.trim() === '') lever('leverName', 'Lever name is required')
    if (l.leverCategory.trim() === '') lever('leverCategory', 'Lever category is required')
    else if (!(LEVER_CATEGORIES as readonly string[]).includes(l.leverCategory)) lever('leverCategory', `Lever category must be one of ${LEVER_CATEGORIES.join(', ')}`)
    if (l.description.trim() === '') lever('description', 'Description is required')
    if (!(l.confidenceScore >= 0 && l.confidenceScore <= 1)) lever('confidenceScore', 'Confidence score must be between 0 and 1')
    l.rules.forEach((r, j) => {
      const n = j + 1
      const rule = (field: string, message: string) => out.push({ lever: i, rule: n, field, message: `Rule ${n}: ${message}` })
      if (r.ruleName.trim() === '') rule('ruleName', 'Name is required')
      if (r.ruleType.trim() === '') rule('ruleType', 'Type is required')
      if (!nonEmptyObject(r.conditions)) rule('conditions', 'Conditions are required')
      if (!nonEmptyObject(r.actions)) rule('actions', 'Actions are required')
      if (!(Number.isInteger(r.priority) && r.priority >= 1)) rule('priority', 'Priority must be at least 1')
    })
  })
  return out
}

/** Typed JSON for conditions or actions: an object replaces the value; anything else is ignored (spec 002). */
export function parseObject(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text)
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null
  } catch {
    return null
  }
}

/** The existing lever an extracted lever's name selects, by the similar-name rule. */
export function similarLever<T extends { name: string }>(name: string, existing: readonly T[]): T | undefined {
  const key = nameKey(name)
  return key === '' ? undefined : existing.find((e) => nameKey(e.name) === key)
}
