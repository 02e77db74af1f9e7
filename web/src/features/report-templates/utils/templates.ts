import type { TemplateBlock } from '@/api/types/TemplateBlock'

import type { ReportTemplate, TemplateBranding, TemplateEdit } from '../api'

/** Template types and their labels (the cards' badge). */
export const TEMPLATE_TYPES = [
  { value: 'basel_iii', label: 'Basel III Standard' },
  { value: 'eba', label: 'EBA Template Report' },
  { value: 'custom', label: 'Custom Template' },
] as const

export function typeLabel(type: string): string {
  return TEMPLATE_TYPES.find((t) => t.value === type)?.label ?? 'Custom Template'
}

export { TEMPLATE_FONTS } from '@/config/fonts'

export { SECTION_KINDS } from '@/config/section-kinds'

/** The most sections a template holds (the server's limit). */
export const MAX_SECTIONS = 100

/** What the editor edits of a template: everything but the type. */
export function editOf(t: ReportTemplate): TemplateEdit {
  return {
    name: t.name,
    description: t.description,
    sections: t.sections.map((s) => ({ ...s })),
    branding: { ...t.branding },
    isActive: t.isActive,
  }
}

/** `1.0` → `100%`. */
export function scaleLabel(b: TemplateBranding): string {
  return `${Math.round(b.fontScale * 100)}%`
}

/** Blank lines separate a section's paragraphs (as the server writes them into a report). */
export function paragraphsOf(content: string): string[] {
  return content
    .replace(/\r\n/g, '\n')
    .split('\n\n')
    .map((p) => p.trim())
    .filter((p) => p !== '')
}

/** `3`, `3` → `page 3`; `3`, `5` → `pages 3–5`. */
export function pageRange(start: number, end: number | undefined): string {
  return end == null || end === start ? `page ${start}` : `pages ${start}–${end}`
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`

/** A table's or chart's line in the editor: its caption or title and its size. */
export function blockLabel(b: TemplateBlock): string {
  if (b.kind === 'table') {
    const name = b.caption || 'Table'
    return `${name} (${plural(b.columns.length, 'column')}, ${plural(b.rows.length, 'row')})`
  }
  return `${b.title || 'Chart'} (${plural(b.values.length, 'value')})`
}
