import type { HistoryPoint, RoomActivity } from '../api'

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

/** A month of the history as the chart labels it: `Mar 2026`. */
export function monthLabel(p: Pick<HistoryPoint, 'year' | 'month'>): string {
  return `${MONTHS[(p.month - 1 + 12) % 12]} ${p.year}`
}

const WHAT: Record<string, string> = {
  client_created: 'Client created',
  client_updated: 'Client details or official figures changed',
  client_savings_edited: 'Savings edited',
  client_member_set: 'Member added or client role changed',
  client_member_removed: 'Member removed',
  users_assigned_to_client: 'Users assigned to the client',
  file_uploaded: 'File uploaded',
  file_deleted: 'File deleted',
  file_edited: 'File edited',
  file_lever_assigned: 'Lever assigned to a file',
  run_started: 'Processing started',
  run_completed: 'Processing completed',
  run_failed: 'Processing failed',
  run_cancelled: 'Processing cancelled',
  run_pending_review: 'Classification pending review',
  run_retried: 'Processing retried',
  classification_approved: 'Classification approved',
  classification_rejected: 'Classification rejected',
  report_created: 'Report created',
  report_updated: 'Report updated',
  report_deleted: 'Report deleted',
  task_created: 'Task created',
  task_updated: 'Task updated',
  task_moved: 'Task moved',
  task_deleted: 'Task deleted',
}

/** What an audit record says, in words (its event type when it has no wording here). */
export function activityText(a: Pick<RoomActivity, 'eventType'>): string {
  return WHAT[a.eventType] ?? a.eventType.replaceAll('_', ' ').replace(/^./, (c) => c.toUpperCase())
}

/** A short detail of an audit record: the file or report name, or the figures edited. */
export function activityDetail(a: Pick<RoomActivity, 'details'>): string | null {
  const d = a.details ?? {}
  for (const key of ['name', 'file_name', 'fileName', 'title']) {
    const v = d[key]
    if (typeof v === 'string' && v.trim()) return v
  }
  return null
}
