import type { AdminRun } from '@/api/types/AdminRun'
import type { AdminRunPage } from '@/api/types/AdminRunPage'
import type { RunSnapshot } from '@/api/types/RunSnapshot'
import type { RunState } from '@/api/types/RunState'
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useRef } from 'react'

import { api, apiRequest } from '@/lib/api-client'
import { useRealtimeTopic } from '@/lib/realtime'

export type { AdminRun } from '@/api/types/AdminRun'
export type { AdminRunPage } from '@/api/types/AdminRunPage'
export type { RunSnapshot } from '@/api/types/RunSnapshot'
export type { RunStage } from '@/api/types/RunStage'
export type { RunState } from '@/api/types/RunState'

/** States after which a run changes no more. */
export const FINAL_STATES: readonly RunState[] = ['completed', 'failed', 'pending_review', 'cancelled']

/** Every client's runs, live: each frame is one run's `run.progress` with the run's own `seq`. */
export const ADMIN_RUNS_TOPIC = 'admin:runs'

/** The runs screen's filters and page (empty strings: any). */
export type RunFilters = {
  status: '' | RunState
  clientId: string
  page: number
  pageSize: number
}

export const NO_RUN_FILTERS: RunFilters = { status: '', clientId: '', page: 1, pageSize: 10 }

/** Query keys of the runs screen (admin-wide: no client). */
export const adminRunKeys = {
  all: ['admin', 'runs'] as const,
  lists: () => ['admin', 'runs', 'list'] as const,
  list: (filters: RunFilters) => ['admin', 'runs', 'list', filters] as const,
}

export function listAdminRuns(filters: RunFilters): Promise<AdminRunPage> {
  const q = new URLSearchParams({ page: String(filters.page), page_size: String(filters.pageSize) })
  if (filters.status) q.set('status', filters.status)
  if (filters.clientId) q.set('client_id', filters.clientId)
  return api.get<AdminRunPage>(`/api/admin/runs?${q}`)
}

export function retryRun(runId: string): Promise<RunSnapshot> {
  return api.post<RunSnapshot>(`/api/admin/runs/${encodeURIComponent(runId)}/retry`)
}

export function cancelRun(runId: string): Promise<RunSnapshot> {
  return apiRequest<RunSnapshot>(`/api/runs/${encodeURIComponent(runId)}/cancel`, { method: 'POST' })
}


/**
 * Puts the newer snapshots of `updates` (by each run's own `seq`) into a page; returns the page
 * unchanged (same object) when nothing in it moved, and the ids of runs the page does not hold.
 */
export function applySnapshots(
  page: AdminRunPage,
  updates: ReadonlyMap<string, RunSnapshot>,
): { page: AdminRunPage; unknown: string[]; ended: boolean } {
  let changed = false
  let ended = false
  const seen = new Set<string>()
  const items = page.items.map((item: AdminRun) => {
    const next = updates.get(item.run.id)
    if (!next) return item
    seen.add(item.run.id)
    if (next.seq <= item.run.seq) return item
    changed = true
    if (FINAL_STATES.includes(next.state) && !FINAL_STATES.includes(item.run.state)) ended = true
    return { ...item, run: next }
  })
  const unknown = [...updates.keys()].filter((id) => !seen.has(id))
  return { page: changed ? { ...page, items } : page, unknown, ended }
}

/** How often live progress is put on screen (each run sends at most 10 events a second). */
export const FLUSH_MS = 200

/**
 * The runs page, live: subscribes to `admin:runs` first, then reads the page (again after a
 * reconnect or a missed event, which the socket reports per run), and patches each run's newer
 * snapshots into it, batched every {@link FLUSH_MS}. A run the page does not show (a new run, or
 * one that left the filter) or a run's end makes the page load again, at most once per batch.
 */
export function useAdminRuns(filters: RunFilters) {
  const queryClient = useQueryClient()
  const pending = useRef(new Map<string, RunSnapshot>())
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null)
  const refetch = () => void queryClient.invalidateQueries({ queryKey: adminRunKeys.lists() })

  const flush = () => {
    timer.current = null
    const updates = pending.current
    pending.current = new Map()
    let reload = false
    for (const [key, page] of queryClient.getQueriesData<AdminRunPage>({ queryKey: adminRunKeys.lists() })) {
      if (!page) continue
      const result = applySnapshots(page, updates)
      if (result.page !== page) queryClient.setQueryData(key, result.page)
      // A run that is not on the page, one that ended (its lever may have been classified), or
      // one whose state may take it out of the filter.
      if (result.unknown.length > 0 || result.ended) reload = true
      const status = (key[3] as RunFilters | undefined)?.status
      if (status && result.page.items.some((i) => i.run.state !== status)) reload = true
    }
    if (reload) refetch()
  }

  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current)
    },
    [],
  )

  useRealtimeTopic(ADMIN_RUNS_TOPIC, {
    onEvent: (frame) => {
      if (frame.type !== 'run.progress') return
      const current = pending.current.get(frame.data.id)
      if (!current || frame.data.seq > current.seq) pending.current.set(frame.data.id, frame.data)
      timer.current ??= setTimeout(flush, FLUSH_MS)
    },
    onResync: refetch,
  })

  return useQuery({
    queryKey: adminRunKeys.list(filters),
    queryFn: () => listAdminRuns(filters),
    placeholderData: keepPreviousData,
  })
}

export function useRetryRun() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: retryRun,
    onSettled: () => queryClient.invalidateQueries({ queryKey: adminRunKeys.lists() }),
  })
}

export function useCancelRun() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: cancelRun,
    onSettled: () => queryClient.invalidateQueries({ queryKey: adminRunKeys.lists() }),
  })
}
