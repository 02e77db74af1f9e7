import type { CreateFolderRequest } from '@/api/types/CreateFolderRequest'
import type { CreateReportRequest } from '@/api/types/CreateReportRequest'
import type { DraftLimit } from '@/api/types/DraftLimit'
import type { EventFrame } from '@/api/types/EventFrame'
import type { ReportDetail } from '@/api/types/ReportDetail'
import type { ReportFolder } from '@/api/types/ReportFolder'
import type { ReportSummary } from '@/api/types/ReportSummary'
import type { UpdateReportRequest } from '@/api/types/UpdateReportRequest'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import { api, apiRequest } from '@/lib/api-client'
import { useRealtimeTopic } from '@/lib/realtime'

/** Query keys of the report generator. */
export const reportKeys = {
  all: ['reports'] as const,
  list: () => ['reports', 'list'] as const,
  folders: () => ['reports', 'folders'] as const,
  draftLimit: () => ['reports', 'draft-limit'] as const,
  detail: (id: string) => ['reports', 'detail', id] as const,
}

export const listReports = () => api.get<ReportSummary[]>('/api/reports')
export const listFolders = () => api.get<ReportFolder[]>('/api/reports/folders')
export const getDraftLimit = () => api.get<DraftLimit>('/api/reports/draft-limit')
export const getReport = (id: string) => api.get<ReportDetail>(`/api/reports/${encodeURIComponent(id)}`)
export const createReport = (body: CreateReportRequest) => api.post<ReportSummary>('/api/reports', body)
export const updateReport = (id: string, body: UpdateReportRequest) =>
  apiRequest<ReportSummary>(`/api/reports/${encodeURIComponent(id)}`, { method: 'PATCH', body })
export const deleteReport = (id: string) => apiRequest<void>(`/api/reports/${encodeURIComponent(id)}`, { method: 'DELETE' })
export const createFolder = (body: CreateFolderRequest) => api.post<ReportFolder>('/api/reports/folders', body)

export function useReports() {
  return useQuery({ queryKey: reportKeys.list(), queryFn: listReports })
}

export function useFolders() {
  return useQuery({ queryKey: reportKeys.folders(), queryFn: listFolders })
}

export function useDraftLimit() {
  return useQuery({ queryKey: reportKeys.draftLimit(), queryFn: getDraftLimit })
}

export function useReport(id: string) {
  return useQuery({ queryKey: reportKeys.detail(id), queryFn: () => getReport(id), retry: false })
}

/** Mutations refresh everything the report generator shows. */
function useInvalidate() {
  const client = useQueryClient()
  return () => client.invalidateQueries({ queryKey: reportKeys.all })
}

export function useCreateReport() {
  const invalidate = useInvalidate()
  return useMutation({ mutationFn: createReport, onSettled: invalidate })
}

export function useUpdateReport() {
  const invalidate = useInvalidate()
  return useMutation({ mutationFn: ({ id, body }: { id: string; body: UpdateReportRequest }) => updateReport(id, body), onSettled: invalidate })
}

export function useDeleteReport() {
  const invalidate = useInvalidate()
  return useMutation({ mutationFn: deleteReport, onSettled: invalidate })
}

export function useCreateFolder() {
  const invalidate = useInvalidate()
  return useMutation({ mutationFn: createFolder, onSettled: invalidate })
}

/** The realtime topic of a client's report list. */
export function reportsTopic(clientId: string): string {
  return `client:${clientId}:reports`
}

/** Keeps the report list live: any change made by anyone in the client refetches it. */
export function useLiveReportList(clientId: string | null) {
  const invalidate = useInvalidate()
  useRealtimeTopic(clientId ? reportsTopic(clientId) : null, { onEvent: () => void invalidate(), onResync: () => void invalidate() })
}

/** Whether a report-list event is about the report `reportId` (its payload is `{ id }`). */
export function isEventAbout(frame: EventFrame, reportId: string): boolean {
  const data = frame.data
  return typeof data === 'object' && data !== null && !Array.isArray(data) && data.id === reportId
}

/**
 * Keeps an open report live on the same topic as the list: a change to this report by anyone
 * refetches it, and so does a reconnect or a missed event (a sequence gap).
 */
export function useLiveReport(clientId: string | null, reportId: string) {
  const client = useQueryClient()
  const refetch = () => void client.invalidateQueries({ queryKey: reportKeys.detail(reportId) })
  useRealtimeTopic(clientId ? reportsTopic(clientId) : null, {
    onEvent: (frame) => {
      if (isEventAbout(frame, reportId)) refetch()
    },
    onResync: refetch,
  })
}
