import type { ReviewStatus, TrainingItem } from '../api'

/** A run id as the lists show it: its first 8 characters. */
export function shortId(id: string): string {
  return id.slice(0, 8)
}

/** The list's confidence badge (specification): 0.7 or more default, 0.4 or more secondary, else destructive. */
export function confidenceBadge(confidence: number | null): 'default' | 'secondary' | 'destructive' {
  if (confidence === null) return 'destructive'
  if (confidence >= 0.7) return 'default'
  if (confidence >= 0.4) return 'secondary'
  return 'destructive'
}

/** A smart suggestion's colour (specification): 0.8 or more green, 0.6 or more blue, else yellow. */
export function suggestionTone(confidence: number): 'green' | 'blue' | 'yellow' {
  if (confidence >= 0.8) return 'green'
  if (confidence >= 0.6) return 'blue'
  return 'yellow'
}

/** Below this confidence the review is a learning opportunity (specification: 0.5). */
export const LEARNING_OPPORTUNITY_BELOW = 0.5

export function isLearningOpportunity(confidence: number | null): boolean {
  return confidence === null || confidence < LEARNING_OPPORTUNITY_BELOW
}

export const STATUS_LABEL: Record<ReviewStatus, string> = {
  requires_review: 'Requires review',
  approved: 'Approved',
  rejected: 'Rejected',
}

/** The lever the AI predicted, as the lists name it. */
export function predictedLabel(item: TrainingItem): string {
  return item.predictedLeverName ?? item.predictedLever ?? 'To be determined'
}

/** What the lists and the review say is pending: a review that no administrator decided. */
export function isPending(item: TrainingItem): boolean {
  return item.status === 'requires_review'
}
