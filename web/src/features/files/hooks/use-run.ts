import { useQueryClient } from '@tanstack/react-query'
import { useCallback, useEffect, useState } from 'react'

import { useRealtimeStore, useRealtimeTopic } from '@/lib/realtime'
import { subscribeTopic } from '@/lib/realtime-store'

import { fileKeys, getRun, runSnapshotOf, runTopic, type ClientFile, type RunSnapshot } from '../api'

/** States after which a run changes no more. */
export const FINAL_STATES: readonly RunSnapshot['state'][] = ['completed', 'failed', 'pending_review', 'cancelled']

export function isFinal(run: RunSnapshot | null): boolean {
  return run !== null && FINAL_STATES.includes(run.state)
}

/** The newer of two snapshots of the same run (by the run's own sequence number). */
export function newer(current: RunSnapshot | null, next: RunSnapshot): RunSnapshot {
  if (current === null || current.id !== next.id) return next
  return next.seq > current.seq ? next : current
}

/** How often the snapshot is read while the event socket is not open. */
const POLL_WHILE_OFFLINE_MS = 3_000

/**
 * Follows a processing run live: subscribes to its topic first, then (once the subscription is
 * confirmed, and again after any reconnect or missed event) reads the run's snapshot, and applies
 * only events whose sequence number is greater than what it holds, so nothing emitted while
 * subscribing is lost and nothing old overwrites anything newer. While the socket is down the
 * snapshot is read every few seconds. A new `initial` (another run) replaces the run followed.
 */
export function useRun(clientId: string | null, initial: RunSnapshot | null) {
  const [held, setHeld] = useState<RunSnapshot | null>(null)
  const runId = initial?.id ?? null
  // What the events and reads brought, for this run only, never older than what the upload answered.
  const run = initial === null ? null : held !== null && held.id === initial.id ? newer(initial, held) : initial
  const apply = useCallback(
    (next: RunSnapshot) => setHeld((h) => (h !== null && h.id === next.id ? newer(h, next) : next)),
    [],
  )
  const final = isFinal(run)

  const refresh = useCallback(() => {
    if (!runId) return
    getRun(runId).then(apply, () => {})
  }, [runId, apply])

  useRealtimeTopic(clientId && runId && !final ? runTopic(clientId, runId) : null, {
    onEvent: (frame) => {
      const snapshot = runSnapshotOf(frame)
      if (snapshot && snapshot.id === runId) apply(snapshot)
    },
    onResync: refresh,
  })

  const status = useRealtimeStore((s) => s.status)
  useEffect(() => {
    if (!runId || final || status === 'open') return
    const timer = setInterval(refresh, POLL_WHILE_OFFLINE_MS)
    return () => clearInterval(timer)
  }, [runId, final, status, refresh])

  return run
}

/**
 * Keeps the runs under way in a file list live: each queued or running run's topic is followed and
 * its progress patched into the client's cached file lists (the files topic refetches the lists
 * when a run ends or anything else changes).
 */
export function useLiveRunsOfFiles(clientId: string | null, files: readonly ClientFile[] | undefined) {
  const queryClient = useQueryClient()
  const active = (files ?? [])
    .flatMap((f) => (f.latestRun && !isFinal(f.latestRun) ? [f.latestRun.id] : []))
    .sort()
    .join(',')
  useEffect(() => {
    if (!clientId || !active) return
    const stops = active.split(',').map((runId) =>
      subscribeTopic(runTopic(clientId, runId), {
        onEvent: (frame) => {
          const snapshot = runSnapshotOf(frame)
          if (!snapshot) return
          queryClient.setQueriesData<ClientFile[]>({ queryKey: [...fileKeys.client(clientId), 'list'] }, (list) =>
            list?.map((f) => (f.latestRun?.id === snapshot.id ? { ...f, latestRun: newer(f.latestRun, snapshot) } : f)),
          )
          if (isFinal(snapshot)) void queryClient.invalidateQueries({ queryKey: fileKeys.client(clientId) })
        },
        onResync: () => void queryClient.invalidateQueries({ queryKey: fileKeys.client(clientId) }),
      }),
    )
    return () => stops.forEach((stop) => stop())
  }, [clientId, active, queryClient])
}
