import type { EventFrame } from '@/api/types/EventFrame'
import type { ReportVersion } from '@/api/types/ReportVersion'
import type { ReportVersionDetail } from '@/api/types/ReportVersionDetail'
import type { TemplateImported } from '@/api/types/TemplateImported'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import { api, apiRequest } from '@/lib/api-client'
import { useRealtimeTopic } from '@/lib/realtime'

import { reportsTopic } from '../api'

/** Query keys of a report's versions; each names the client and the report. */
export const versionKeys = {
  list: (clientId: string, reportId: string) => ['reports', clientId, 'versions', reportId, 'list'] as const,
  detail: (clientId: string, reportId: string, versionId: string) => ['reports', clientId, 'versions', reportId, 'detail', versionId] as const,
}

const base = (clientId: string, reportId: string, path = '') =>
  `/api/reports/${encodeURIComponent(reportId)}/versions${path}?client_id=${encodeURIComponent(clientId)}`

export const listVersions = (clientId: string, reportId: string) => api.get<ReportVersion[]>(base(clientId, reportId))
export const getVersion = (clientId: string, reportId: string, versionId: string) =>
  api.get<ReportVersionDetail>(base(clientId, reportId, `/${encodeURIComponent(versionId)}`))
export const createVersion = (clientId: string, reportId: string, name: string) => api.post<ReportVersion>(base(clientId, reportId), { name })
export const restoreVersion = (clientId: string, reportId: string, versionId: string) =>
  api.post<ReportVersion>(base(clientId, reportId, `/${encodeURIComponent(versionId)}/restore`), {})
export const deleteVersion = (clientId: string, reportId: string, versionId: string) =>
  apiRequest<void>(base(clientId, reportId, `/${encodeURIComponent(versionId)}`), { method: 'DELETE' })

/** Imports an active template's sections after the report's last (an automatic version first). */
export const importTemplateSections = (clientId: string, reportId: string, templateId: string) =>
  api.post<TemplateImported>(
    `/api/reports/${encodeURIComponent(reportId)}/import-template?client_id=${encodeURIComponent(clientId)}`,
    { templateId },
  )

export function useImportTemplateSections(clientId: string, reportId: string) {
  const client = useQueryClient()
  return useMutation({
    mutationFn: (templateId: string) => importTemplateSections(clientId, reportId, templateId),
    onSettled: () => client.invalidateQueries({ queryKey: versionKeys.list(clientId, reportId) }),
  })
}

export function useVersions(clientId: string, reportId: string) {
  return useQuery({ queryKey: versionKeys.list(clientId, reportId), queryFn: () => listVersions(clientId, reportId) })
}

export function useVersion(clientId: string, reportId: string, versionId: string | null) {
  return useQuery({
    queryKey: versionKeys.detail(clientId, reportId, versionId ?? ''),
    queryFn: () => getVersion(clientId, reportId, versionId!),
    enabled: versionId !== null,
    // A version never changes once taken.
    staleTime: Infinity,
  })
}

export function useCreateVersion(clientId: string, reportId: string) {
  const client = useQueryClient()
  return useMutation({
    mutationFn: (name: string) => createVersion(clientId, reportId, name),
    onSettled: () => client.invalidateQueries({ queryKey: versionKeys.list(clientId, reportId) }),
  })
}

export function useRestoreVersion(clientId: string, reportId: string) {
  const client = useQueryClient()
  return useMutation({
    mutationFn: (versionId: string) => restoreVersion(clientId, reportId, versionId),
    onSettled: () => client.invalidateQueries({ queryKey: versionKeys.list(clientId, reportId) }),
  })
}

export function useDeleteVersion(clientId: string, reportId: string) {
  const client = useQueryClient()
  return useMutation({
    mutationFn: (versionId: string) => deleteVersion(clientId, reportId, versionId),
    onSettled: () => client.invalidateQueries({ queryKey: versionKeys.list(clientId, reportId) }),
  })
}

/** Whether a frame says this report's versions changed. */
export function isVersionEventOf(frame: EventFrame, reportId: string): boolean {
  return frame.type === 'report.versions.changed' && frame.data.reportId === reportId
}

/** Keeps the report's version list live for every co-editor (the client's reports topic). */
export function useLiveVersions(clientId: string, reportId: string) {
  const client = useQueryClient()
  const refetch = () => void client.invalidateQueries({ queryKey: versionKeys.list(clientId, reportId) })
  useRealtimeTopic(reportsTopic(clientId), {
    onEvent: (frame) => {
      if (isVersionEventOf(frame, reportId)) refetch()
    },
    onResync: refetch,
  })
}

/** A version's state (base64 of one Yjs v1 update) as bytes. */
export function decodeState(base64: string): Uint8Array {
  const binary = atob(base64)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i)
  return bytes
}
