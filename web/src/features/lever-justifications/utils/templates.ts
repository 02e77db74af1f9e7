import type { AdminRun } from '@/api/types/AdminRun'

import { saveBlob } from '@/lib/api-client'
import { formatDate } from '@/lib/format'

/** The categories of a template (the server turns anything else into `custom`). */
export const CATEGORIES = ['regulatory', 'internal', 'custom'] as const
export type Category = (typeof CATEGORIES)[number]

const CATEGORY_LABELS: Record<Category, string> = { regulatory: 'Regulatory', internal: 'Internal', custom: 'Custom' }

/** 'Regulatory', 'Internal', 'Custom' (an unknown value reads as the server stores it: custom). */
export function categoryLabel(category: string): string {
  return CATEGORY_LABELS[(CATEGORIES as readonly string[]).includes(category) ? (category as Category) : 'custom']
}

/** Characters of a template's content a card shows (spec 002: template preview 200 characters). */
export const PREVIEW_CHARS = 200

/** The first {@link PREVIEW_CHARS} characters of a template, with an ellipsis when it was cut. */
export function contentPreview(content: string): string {
  const chars = Array.from(content)
  return chars.length <= PREVIEW_CHARS ? content : `${chars.slice(0, PREVIEW_CHARS).join('').trimEnd()}…`
}

/** `{template name}.txt`, or `{template name} - {runId}.txt` for the memo of a run. */
export function textFileName(templateName: string, runId?: string | null): string {
  const base = templateName.trim() || 'template'
  return runId ? `${base} - ${runId}.txt` : `${base}.txt`
}

/** Saves `text` as a plain-text file named `fileName` (a Blob behind an object URL). */
export function downloadText(fileName: string, text: string): void {
  saveBlob(new Blob([text], { type: 'text/plain;charset=utf-8' }), fileName)
}

/** A completed run in the preview's selector: client, file and the day it completed. */
export function runLabel(r: AdminRun): string {
  return `${r.clientName} · ${r.fileName} · ${formatDate(r.run.finishedAt ?? r.run.createdAt)}`
}
