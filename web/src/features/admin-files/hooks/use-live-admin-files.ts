import { useQueryClient } from '@tanstack/react-query'
import { useEffect } from 'react'

import type { EventFrame } from '@/api/types/EventFrame'
import { useRealtimeTopic } from '@/lib/realtime'
import { subscribeTopic } from '@/lib/realtime-store'

import { adminFileKeys, type AdminFile, type AdminFilePage, type RunSnapshot } from '../api'
import { isFinal } from '../utils/format'

/** The admin-wide topic of file changes (created, updated, deleted in any client). */
export const ADMIN_FILES_TOPIC = 'admin:files'

/** The topic of one processing run. */
export function runTopic(clientId: string, runId: string): string {
  return `client:${clientId}:run:${runId}`
}

/** The newer of two snapshots of one run, by the run's own sequence number. */
export function newer(current: RunSnapshot | null, next: RunSnapshot): RunSnapshot {
  if (current === null || current.id !== next.id) return next
  return next.seq > current.seq ? next : current
}

function snapshotOf(frame: EventFrame): RunSnapshot | null {
  return frame.type === 'run.progress' ? frame.data : null
}

function patchFile(file: AdminFile, snapshot: RunSnapshot): AdminFile {
  return file.latestRun?.id === snapshot.id ? { ...file, latestRun: newer(file.latestRun, snapshot) } : file
}

/**
 * Keeps File Management live without a reload: any file created, changed or deleted in any client
 * (`admin:files`) reads the lists and the open file again; the runs under way among the files shown
 * are each followed on their own topic (a run's events carry the run's own sequence, so each run is
 * checked for gaps on its own) and their stage and percent patched into the cached pages and the
 * open file; a run's end reads everything again (status, savings, history).
 */
export function useLiveAdminFiles(files: readonly AdminFile[]) {
  const queryClient = useQueryClient()
  const refetch = () => void queryClient.invalidateQueries({ queryKey: adminFileKeys.all })
  useRealtimeTopic(ADMIN_FILES_TOPIC, { onEvent: refetch, onResync: refetch })

  const active = [
    ...new Set(files.flatMap((f) => (f.latestRun && !isFinal(f.latestRun) ? [`${f.clientId}:${f.latestRun.id}`] : []))),
  ]
    .sort()
    .join(',')
  useEffect(() => {
    if (!active) return
    const stops = active.split(',').map((entry) => {
      const [clientId, runId] = entry.split(':') as [string, string]
      return subscribeTopic(runTopic(clientId, runId), {
        onEvent: (frame) => {
          const snapshot = snapshotOf(frame)
          if (!snapshot || snapshot.id !== runId) return
          queryClient.setQueriesData<AdminFilePage>({ queryKey: adminFileKeys.lists() }, (page) =>
            page ? { ...page, items: page.items.map((f) => patchFile(f, snapshot)) } : page,
          )
          queryClient.setQueryData<AdminFile>(adminFileKeys.file(snapshot.fileId), (file) => (file ? patchFile(file, snapshot) : file))
          if (isFinal(snapshot)) void queryClient.invalidateQueries({ queryKey: adminFileKeys.all })
        },
        onResync: () => void queryClient.invalidateQueries({ queryKey: adminFileKeys.all }),
      })
    })
    return () => stops.forEach((stop) => stop())
  }, [active, queryClient])
}
