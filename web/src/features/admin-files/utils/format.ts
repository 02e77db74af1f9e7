import { format as formatDateFns, isValid, parseISO } from 'date-fns'

import { EMPTY_VALUE, formatBps, formatEur } from '@/lib/format'

import type { AdminFile, FileEdit, Lever, RunSnapshot } from '../api'

/** Shown for a file without a lever. */
export const TO_BE_DETERMINED = 'To Be Determined'

/** States after which a run changes no more. */
const FINAL_STATES: readonly RunSnapshot['state'][] = ['completed', 'failed', 'pending_review', 'cancelled']

export function isFinal(run: RunSnapshot | null): boolean {
  return run !== null && FINAL_STATES.includes(run.state)
}

/** Savings (RWAs) as euros without decimals, '-' when there are none. */
export function formatSavingsRwas(value: number): string {
  return value > 0 ? formatEur(value) : '-'
}

/** Savings (BPS) with two decimals and the unit, '-' when there are none. */
export function formatSavingsBps(value: number): string {
  return value > 0 ? `${formatBps(value)} bps` : '-'
}

/** A lever as the Lever column shows it. */
export function leverLabel(file: Pick<AdminFile, 'leverName' | 'leverCategory'>): { name: string; category: string | null } {
  return file.leverName ? { name: file.leverName, category: file.leverCategory } : { name: TO_BE_DETERMINED, category: null }
}

/** A lever in the dropdowns: name (category). */
export function leverOption(lever: Lever): string {
  return `${lever.name} (${lever.category})`
}

/** The lever categories, in name order, from the lever table. */
export function leverCategories(levers: readonly Lever[]): string[] {
  return [...new Set(levers.map((l) => l.category))].sort((a, b) => a.localeCompare(b))
}

/** The stage of a run under way, in words. */
export function stageLabel(stage: RunSnapshot['stage']): string {
  return {
    queued: 'Queued',
    reading: 'Reading',
    classifying: 'Classifying',
    mapping: 'Mapping',
    evaluating: 'Analysing',
    writing: 'Writing',
    recording: 'Recording',
    done: 'Done',
  }[stage]
}

/** The latest run's live state: queued, stage and percent, or failed with its message; null once it ended well. */
export function runStateText(run: RunSnapshot | null): { text: string; tone: 'blue' | 'red' } | null {
  if (!run) return null
  if (run.state === 'queued') return { text: 'Queued', tone: 'blue' }
  if (run.state === 'running') return { text: `${stageLabel(run.stage)} · ${Math.round(run.percent)}%`, tone: 'blue' }
  if (run.state === 'failed') return { text: `Failed: ${run.error ?? 'unknown error'}`, tone: 'red' }
  return null
}

/** The Status badge: Processed or Pending. */
export function statusBadge(file: Pick<AdminFile, 'processed'>): { label: 'Processed' | 'Pending'; tone: 'green' | 'amber' } {
  return file.processed ? { label: 'Processed', tone: 'green' } : { label: 'Pending', tone: 'amber' }
}

/** A date and time as the history shows it: `Jan 5, 2025 3:04 PM`. */
export function formatDateTime(value: string): string {
  const date = parseISO(value)
  return isValid(date) ? formatDateFns(date, 'MMM d, yyyy h:mm a') : EMPTY_VALUE
}

/** A history field name: underscores as spaces, each word capitalised (`savings_rwas` → `Savings Rwas`). */
export function fieldLabel(field: string): string {
  return field
    .split('_')
    .filter((w) => w !== '')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join(' ')
}

const savingsFormatter = new Intl.NumberFormat('es-ES', { minimumFractionDigits: 0, maximumFractionDigits: 2, useGrouping: 'always' })

/**
 * A history value: 'Not set' when empty (lever values arrive as lever names); the savings
 * fields' numbers (stored with six decimals) in Spanish formatting to the cent, `12.345,67`.
 */
export function historyValue(value: FileEdit['oldValue'], field?: string): string {
  if (value === null || value.trim() === '') return 'Not set'
  if (field?.startsWith('savings_')) {
    const n = Number(value)
    if (Number.isFinite(n)) return savingsFormatter.format(n)
  }
  return value
}

/** The editor's name, 'Unknown User' when not known. */
export function editorName(edit: Pick<FileEdit, 'editorName'>): string {
  return edit.editorName?.trim() || 'Unknown User'
}

/** Up to two initials of a name. */
export function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean)
  const letters = parts.length > 1 ? [parts[0]![0], parts[parts.length - 1]![0]] : [parts[0]?.[0]]
  return letters.filter(Boolean).join('').toUpperCase() || '?'
}

/** A size in bytes as KB with two decimals. */
export function formatKb(bytes: number): string {
  return `${(bytes / 1024).toFixed(2)} KB`
}
