import type { ReportTemplate } from '@/api/types/ReportTemplate'
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
import { optimistic } from '@/lib/optimistic'
import { useRealtimeTopic } from '@/lib/realtime'

/** Query keys of the report generator; every key names the client whose reports it holds. */
export const reportKeys = {
  all: ['reports'] as const,
  client: (clientId: string) => ['reports', clientId] as const,
  list: (clientId: string) => ['reports', clientId, 'list'] as const,
  folders: (clientId: string) => ['reports', clientId, 'folders'] as const,
  draftLimit: (clientId: string) => ['reports', clientId, 'draft-limit'] as const,
  detail: (clientId: string, id: string) => ['reports', clientId, 'detail', id] as const,
}

/** `/api/reports<path>?client_id=…`: every report call names the client it is about. */
const reportsPath = (clientId: string, path = '') => `/api/reports${path}?client_id=${encodeURIComponent(clientId)}`
const id = (value: string) => encodeURIComponent(value)

export const listReports = (clientId: string) => api.get<ReportSummary[]>(reportsPath(clientId))
export const listFolders = (clientId: string) => api.get<ReportFolder[]>(reportsPath(clientId, '/folders'))
export const getDraftLimit = (clientId: string) => api.get<DraftLimit>(reportsPath(clientId, '/draft-limit'))
export const getReport = (clientId: string, reportId: string) => api.get<ReportDetail>(reportsPath(clientId, `/${id(reportId)}`))
export const createReport = (clientId: string, body: Omit<CreateReportRequest, 'client_id'>) =>
  api.post<ReportSummary>(reportsPath(clientId), { ...body, client_id: clientId })
export const updateReport = (clientId: string, reportId: string, body: UpdateReportRequest) =>
  apiRequest<ReportSummary>(reportsPath(clientId, `/${id(reportId)}`), { method: 'PATCH', body })
export const deleteReport = (clientId: string, reportId: string) =>
  apiRequest<void>(reportsPath(clientId, `/${id(reportId)}`), { method: 'DELETE' })
/** The report as a PDF laid out by the server (an attachment). */
export const reportPdfPath = (clientId: string, reportId: string) => reportsPath(clientId, `/${id(reportId)}/export`)
export const createFolder = (clientId: string, body: Omit<CreateFolderRequest, 'client_id'>) =>
  api.post<ReportFolder>(reportsPath(clientId, '/folders'), { ...body, client_id: clientId })

// Queries are disabled while there is no client (the screen says so instead).
export function useReports(clientId: string | null) {
  return useQuery({ queryKey: reportKeys.list(clientId ?? ''), queryFn: () => listReports(clientId!), enabled: clientId !== null })
}

export function useFolders(clientId: string | null) {
  return useQuery({ queryKey: reportKeys.folders(clientId ?? ''), queryFn: () => listFolders(clientId!), enabled: clientId !== null })
}

export function useDraftLimit(clientId: string | null) {
  return useQuery({ queryKey: reportKeys.draftLimit(clientId ?? ''), queryFn: () => getDraftLimit(clientId!), enabled: clientId !== null })
}

export function useReport(clientId: string | null, reportId: string) {
  return useQuery({
    queryKey: reportKeys.detail(clientId ?? '', reportId),
    queryFn: () => getReport(clientId!, reportId),
    enabled: clientId !== null,
    retry: false,
  })
}

/** Mutations refresh everything the report generator shows for the client. */
function useInvalidate(clientId: string) {
  const client = useQueryClient()
  return () => client.invalidateQueries({ queryKey: reportKeys.client(clientId) })
}

/** The active report templates a new report can start from (fetched while the dialog is open). */
export const listReportTemplates = () => api.get<ReportTemplate[]>('/api/report-templates')
export function useReportTemplates(enabled: boolean) {
  return useQuery({ queryKey: ['report-templates', 'active'], queryFn: listReportTemplates, enabled })
}

export function useCreateReport(clientId: string) {
  const invalidate = useInvalidate(clientId)
  return useMutation({ mutationFn: (body: Omit<CreateReportRequest, 'client_id'>) => createReport(clientId, body), onSettled: invalidate })
}

export type ReportEdit = { id: string; body: UpdateReportRequest }

/**
 * Renames a report or changes its status, optimistically in the client's report list (the shared
 * pattern of `optimistic`: applied at once, rolled back on failure, and everything the report
 * generator shows for the client refetched when settled).
 */
export function useUpdateReport(clientId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ id: reportId, body }: ReportEdit) => updateReport(clientId, reportId, body),
    ...optimistic<ReportSummary[], ReportEdit>(
      queryClient,
      reportKeys.list(clientId),
      (list, { id: reportId, body }) =>
        list.map((r) =>
          r.id === reportId
            ? { ...r, name: body.name ?? r.name, status: body.status ?? r.status, folder_id: body.folder_id ?? r.folder_id }
            : r,
        ),
      { refetch: reportKeys.client(clientId) },
    ),
  })
}

export function useDeleteReport(clientId: string) {
  const invalidate = useInvalidate(clientId)
  return useMutation({ mutationFn: (reportId: string) => deleteReport(clientId, reportId), onSettled: invalidate })
}

export function useCreateFolder(clientId: string) {
  const invalidate = useInvalidate(clientId)
  return useMutation({ mutationFn: (body: Omit<CreateFolderRequest, 'client_id'>) => createFolder(clientId, body), onSettled: invalidate })
}

/** The realtime topic of a client's report list. */
export function reportsTopic(clientId: string): string {
  return `client:${clientId}:reports`
}

/** Keeps the report list live: any change made by anyone in the client refetches it. */
export function useLiveReportList(clientId: string | null) {
  const client = useQueryClient()
  const invalidate = () => void client.invalidateQueries({ queryKey: reportKeys.client(clientId ?? '') })
  useRealtimeTopic(clientId ? reportsTopic(clientId) : null, { onEvent: invalidate, onResync: invalidate })
}

/** Whether a report-list event is about the report `reportId` (its payload is `{ id }`). */
export function isEventAbout(frame: EventFrame, reportId: string): boolean {
  return 'data' in frame && 'id' in frame.data && frame.data.id === reportId
}

/**
 * Keeps an open report live on the same topic as the list: a change to this report by anyone
 * refetches it, and so does a reconnect or a missed event (a sequence gap).
 */
export function useLiveReport(clientId: string | null, reportId: string) {
  const client = useQueryClient()
  const refetch = () => void client.invalidateQueries({ queryKey: reportKeys.detail(clientId ?? '', reportId) })
  useRealtimeTopic(clientId ? reportsTopic(clientId) : null, {
    onEvent: (frame) => {
      if (isEventAbout(frame, reportId)) refetch()
    },
    onResync: refetch,
  })
}
