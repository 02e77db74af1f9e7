import type { RunSnapshot, RunStage, RunState } from '../api'

/** The label of a run state. */
export const STATE_LABEL: Record<RunState, string> = {
  queued: 'Queued',
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
  pending_review: 'Pending Review',
  cancelled: 'Cancelled',
}

/** The label of a run stage. */
export const STAGE_LABEL: Record<RunStage, string> = {
  queued: 'Queued',
  reading: 'Reading the file',
  classifying: 'Classifying the lever',
  mapping: 'Mapping columns',
  evaluating: 'Analysing exposures',
  writing: 'Writing the optimized file',
  recording: 'Updating the file record',
  done: 'Done',
}

/** A duration in seconds as `45 s`, `3 min 05 s` or `1 h 02 min`. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000))
  if (s < 60) return `${s} s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, '0')} s`
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`
}

/** How long a run has taken: from its start to its end, or to `now` while it runs; null before it started. */
export function runDuration(run: Pick<RunSnapshot, 'startedAt' | 'finishedAt'>, now: number): number | null {
  if (!run.startedAt) return null
  const start = Date.parse(run.startedAt)
  const end = run.finishedAt ? Date.parse(run.finishedAt) : now
  return Number.isNaN(start) || Number.isNaN(end) ? null : Math.max(0, end - start)
}
