import type { ApproveReview } from '@/api/types/ApproveReview'
import type { Lever } from '@/api/types/Lever'
import type { MappingTemplate } from '@/api/types/MappingTemplate'
import type { RejectReview } from '@/api/types/RejectReview'
import type { ReviewOutcome } from '@/api/types/ReviewOutcome'
import type { RunSnapshot } from '@/api/types/RunSnapshot'
import type { StandardColumn } from '@/api/types/StandardColumn'
import type { TrainingPage } from '@/api/types/TrainingPage'
import type { TrainingReview } from '@/api/types/TrainingReview'
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useCallback, useState } from 'react'

import { api } from '@/lib/api-client'
import { useRealtimeTopic } from '@/lib/realtime'

// The wire types of the training screen are generated from the server (`web/src/api/types`).
export type { AnalysedColumn } from '@/api/types/AnalysedColumn'
export type { ApproveReview } from '@/api/types/ApproveReview'
export type { ClassificationAnalysis } from '@/api/types/ClassificationAnalysis'
export type { Inspection } from '@/api/types/Inspection'
export type { Learning } from '@/api/types/Learning'
export type { Lever } from '@/api/types/Lever'
export type { LeverSuggestion } from '@/api/types/LeverSuggestion'
export type { MappingTemplate } from '@/api/types/MappingTemplate'
export type { ReviewOutcome } from '@/api/types/ReviewOutcome'
export type { ReviewStatus } from '@/api/types/ReviewStatus'
export type { RunSnapshot } from '@/api/types/RunSnapshot'
export type { StandardColumn } from '@/api/types/StandardColumn'
export type { TrainingItem } from '@/api/types/TrainingItem'
export type { TrainingPage } from '@/api/types/TrainingPage'
export type { TrainingReview } from '@/api/types/TrainingReview'

/** The lists of the screen. */
export type TrainingTab = 'pending' | 'reviewed' | 'all'

/** Items per page (specification: 10). */
export const PAGE_SIZE = 10

/** Review decisions (and their processing runs) of every client, live. */
export const TRAINING_TOPIC = 'admin:classification'
/** Every client's runs, live: an enhanced-AI run that ends adds or moves an item. */
export const ADMIN_RUNS_TOPIC = 'admin:runs'

const enc = encodeURIComponent

/** Query keys of the screen (admin-wide: no client). */
export const trainingKeys = {
  all: ['admin', 'classification'] as const,
  lists: () => ['admin', 'classification', 'list'] as const,
  list: (tab: TrainingTab, page: number) => ['admin', 'classification', 'list', tab, page] as const,
  reviews: () => ['admin', 'classification', 'review'] as const,
  review: (runId: string) => ['admin', 'classification', 'review', runId] as const,
  levers: ['levers'] as const,
  columns: (leverId: string) => ['levers', leverId, 'columns'] as const,
  templates: (clientId: string, leverId: string) => ['files', clientId, 'templates', leverId] as const,
  run: (runId: string) => ['runs', runId] as const,
}

export function listTraining(tab: TrainingTab, page: number): Promise<TrainingPage> {
  const q = new URLSearchParams({ tab, page: String(page), page_size: String(PAGE_SIZE) })
  return api.get<TrainingPage>(`/api/admin/classification-reviews?${q}`)
}

export const getReview = (runId: string) => api.get<TrainingReview>(`/api/admin/classification-reviews/${enc(runId)}`)
export const approveReview = (runId: string, body: ApproveReview) =>
  api.post<ReviewOutcome>(`/api/admin/classification-reviews/${enc(runId)}/approve`, body)
export const rejectReview = (runId: string, body: RejectReview) =>
  api.post<ReviewOutcome>(`/api/admin/classification-reviews/${enc(runId)}/reject`, body)
export const listLevers = () => api.get<Lever[]>('/api/levers')
export const listLeverColumns = (leverId: string) => api.get<StandardColumn[]>(`/api/levers/${enc(leverId)}/columns`)
export const listTemplates = (clientId: string, leverId: string) =>
  api.get<MappingTemplate[]>(`/api/mapping-templates?client_id=${enc(clientId)}&lever=${enc(leverId)}`)
export const getRun = (runId: string) => api.get<RunSnapshot>(`/api/runs/${enc(runId)}`)

/** States after which a run changes no more. */
export const FINAL_STATES: readonly RunSnapshot['state'][] = ['completed', 'failed', 'pending_review', 'cancelled']

/**
 * A list page, live: a review decided anywhere (`admin:classification`) or an enhanced-AI run
 * that ends (`admin:runs`: a new classification to review) reloads the lists.
 */
export function useTrainingPage(tab: TrainingTab, page: number) {
  const queryClient = useQueryClient()
  const reload = () => void queryClient.invalidateQueries({ queryKey: trainingKeys.lists() })
  useRealtimeTopic(TRAINING_TOPIC, {
    onEvent: () => {
      reload()
      void queryClient.invalidateQueries({ queryKey: trainingKeys.reviews() })
    },
    onResync: reload,
  })
  useRealtimeTopic(ADMIN_RUNS_TOPIC, {
    onEvent: (frame) => {
      if (frame.type === 'run.progress' && frame.data.mode === 'enhanced-ai' && FINAL_STATES.includes(frame.data.state)) reload()
    },
    onResync: reload,
  })
  return useQuery({ queryKey: trainingKeys.list(tab, page), queryFn: () => listTraining(tab, page), placeholderData: keepPreviousData })
}

export function useReview(runId: string) {
  return useQuery({ queryKey: trainingKeys.review(runId), queryFn: () => getReview(runId) })
}

export function useLevers() {
  return useQuery({ queryKey: trainingKeys.levers, queryFn: listLevers, staleTime: 5 * 60_000 })
}

export function useLeverColumns(leverId: string | null) {
  return useQuery({
    queryKey: trainingKeys.columns(leverId ?? ''),
    queryFn: () => listLeverColumns(leverId!),
    enabled: leverId !== null && leverId !== '',
    staleTime: 5 * 60_000,
    retry: false,
  })
}

export function useTemplates(clientId: string, leverId: string | null) {
  return useQuery({
    queryKey: trainingKeys.templates(clientId, leverId ?? ''),
    queryFn: () => listTemplates(clientId, leverId!),
    enabled: leverId !== null && leverId !== '',
  })
}

function useDecision<B>(send: (runId: string, body: B) => Promise<ReviewOutcome>) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ runId, body }: { runId: string; body: B }) => send(runId, body),
    onSuccess: (outcome) => queryClient.setQueryData<TrainingReview>(trainingKeys.review(outcome.item.id), (r) => (r ? { ...r, item: outcome.item } : r)),
    onSettled: (_outcome, _error, { runId }) => {
      void queryClient.invalidateQueries({ queryKey: trainingKeys.lists() })
      void queryClient.invalidateQueries({ queryKey: trainingKeys.review(runId) })
      // A saved template is one of the client's templates.
      void queryClient.invalidateQueries({ queryKey: ['files'] })
    },
  })
}

export const useApproveReview = () => useDecision(approveReview)
export const useRejectReview = () => useDecision(rejectReview)

/** The newer of two snapshots of the same run (by the run's own sequence number). */
export function newerRun(current: RunSnapshot | null, next: RunSnapshot): RunSnapshot {
  if (current === null || current.id !== next.id) return next
  return next.seq > current.seq ? next : current
}

/**
 * The processing run an approval queued, live: its topic is followed until it ends (the
 * snapshot is read again once subscribed and after any missed event), starting from `initial`.
 */
export function useFollowUpRun(clientId: string, initial: RunSnapshot | null): RunSnapshot | null {
  const [held, setHeld] = useState<RunSnapshot | null>(null)
  const runId = initial?.id ?? null
  const apply = useCallback((next: RunSnapshot) => setHeld((h) => (h !== null && h.id === next.id ? newerRun(h, next) : next)), [])
  const run = initial === null ? null : held !== null && held.id === initial.id ? newerRun(initial, held) : initial
  const final = run !== null && FINAL_STATES.includes(run.state)
  const refresh = () => {
    if (runId) getRun(runId).then(apply, () => {})
  }
  useRealtimeTopic(runId && !final ? `client:${clientId}:run:${runId}` : null, {
    onEvent: (frame) => {
      if (frame.type === 'run.progress' && frame.data.id === runId) apply(frame.data)
    },
    onResync: refresh,
  })
  return run
}
