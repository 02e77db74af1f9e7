import type { ReportStatus } from '@/api/types/ReportStatus'
import type { ReportSummary } from '@/api/types/ReportSummary'
import type { UpdateReportRequest } from '@/api/types/UpdateReportRequest'

/**
 * The editable metadata of an open report (name and status), kept as the last saved values the
 * editor knows of (the baseline, from the server) and the values shown (local edits). A field is
 * edited locally when its shown value differs from the baseline; only edited fields are saved, so
 * a save never puts back a value someone else changed meanwhile.
 */
export type ReportMeta = { name: string; status: ReportStatus }

export type MetaState = {
  /** What the server last said. */
  saved: ReportMeta
  /** `updated_at` of that server snapshot: older snapshots (a slow refetch) are ignored. */
  savedAt: string
  /** What the editor shows. */
  local: ReportMeta
}

export function initialMeta(report: ReportSummary): MetaState {
  const meta = { name: report.name, status: report.status }
  return { saved: meta, savedAt: report.updated_at, local: meta }
}

export function nameEdited(state: MetaState): boolean {
  return state.local.name.trim() !== state.saved.name
}

export function statusEdited(state: MetaState): boolean {
  return state.local.status !== state.saved.status
}

export function hasUnsaved(state: MetaState): boolean {
  return nameEdited(state) || statusEdited(state)
}

/** The PATCH body: only the fields edited locally (the name trimmed). Empty when nothing is. */
export function changedFields(state: MetaState): UpdateReportRequest {
  const body: UpdateReportRequest = {}
  if (nameEdited(state)) body.name = state.local.name.trim()
  if (statusEdited(state)) body.status = state.local.status
  return body
}

/**
 * Takes in a server snapshot of the report (a live change by someone else, a refetch, or the
 * answer to our own save): it becomes the baseline, and every field not edited locally shows the
 * server's value. A field edited locally keeps its value (and stays unsaved if it differs).
 *
 * `sent` is the body of our own save this snapshot answers: a sent field counts as edited only if
 * it changed again after it was sent.
 */
export function applyServer(state: MetaState, report: ReportSummary, sent?: UpdateReportRequest): MetaState {
  if (report.updated_at < state.savedAt) return state
  const keepName = sent?.name !== undefined ? state.local.name.trim() !== sent.name : nameEdited(state)
  const keepStatus = sent?.status !== undefined ? state.local.status !== sent.status : statusEdited(state)
  const local: ReportMeta = {
    name: keepName ? state.local.name : report.name,
    status: keepStatus ? state.local.status : report.status,
  }
  const unchanged =
    state.saved.name === report.name &&
    state.saved.status === report.status &&
    state.savedAt === report.updated_at &&
    state.local.name === local.name &&
    state.local.status === local.status
  if (unchanged) return state
  return { saved: { name: report.name, status: report.status }, savedAt: report.updated_at, local }
}
