import { formatEur } from '@/lib/format'

import type { ClientFile, RunSnapshot, RunStage } from '../api'

// The results panels' figures are formatted as everywhere else in the product.
export { formatBpsUnit, formatConfidence, formatMillionsEur } from '@/lib/format'

/** RWAs in euros without decimals (the files table). */
export const formatRwas = (value: number | null | undefined) => formatEur(value)

/** The label of a run stage. */
export function stageLabel(stage: RunStage): string {
  return {
    queued: 'Queued',
    reading: 'Reading the file',
    classifying: 'Classifying the lever',
    mapping: 'Mapping columns',
    evaluating: 'Analysing exposures',
    writing: 'Writing the optimized file',
    recording: 'Updating the file record',
    done: 'Done',
  }[stage]
}

/** A run's progress line: stage, percent and the rows read and evaluated, from the run's own figures. */
export function runProgressText(run: RunSnapshot): string {
  const parts = [`${stageLabel(run.stage)} · ${Math.round(run.percent)}%`]
  if (run.rowsTotal !== null && run.rowsTotal > 0) parts.push(`${run.rowsDone.toLocaleString('es-ES')} of ${run.rowsTotal.toLocaleString('es-ES')} rows`)
  else if (run.rowsRead > 0) parts.push(`${run.rowsRead.toLocaleString('es-ES')} rows read`)
  return parts.join(' · ')
}

export type FileStatusView = { label: string; tone: 'green' | 'slate' | 'amber' | 'blue' | 'red'; detail?: string }

/**
 * What the Status column says: Processed, Uploaded (a lever, not processed) or Pending Lever (no
 * lever), and while a run is under way or ended badly, the run's state.
 */
export function fileStatusView(file: ClientFile): FileStatusView {
  const run = file.latestRun
  if (file.status === 'queued' || run?.state === 'queued') return { label: 'Queued', tone: 'blue' }
  if (file.status === 'processing' || run?.state === 'running') {
    return { label: run ? `Processing ${Math.round(run.percent)}%` : 'Processing', tone: 'blue' }
  }
  if (file.status === 'pending_review') return { label: 'Pending Validation', tone: 'amber', detail: 'Results pending admin validation.' }
  if (file.status === 'failed') return { label: 'Failed', tone: 'red', detail: file.processingError ?? run?.error ?? undefined }
  if (file.processed) return { label: 'Processed', tone: 'green' }
  if (!file.leverId) return { label: 'Pending Lever', tone: 'amber', detail: 'This file is pending lever assignment by an administrator' }
  return { label: 'Uploaded', tone: 'slate' }
}

/**
 * Files waiting on someone: no lever yet, or results pending validation (the client's pending
 * validations, `pendingValidations`, and the files whose classification waits for review).
 */
export function pendingCounts(files: readonly ClientFile[], pendingValidations = 0): { lever: number; validation: number; total: number } {
  const lever = files.filter((f) => !f.leverId && f.status !== 'pending_review').length
  const validation = files.filter((f) => f.status === 'pending_review').length + pendingValidations
  return { lever, validation, total: lever + validation }
}
