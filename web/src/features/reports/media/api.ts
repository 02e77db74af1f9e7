import type { DataTable } from '@/api/types/DataTable'
import type { DatasetInfo } from '@/api/types/DatasetInfo'
import type { EventFrame } from '@/api/types/EventFrame'
import type { ReportMedia } from '@/api/types/ReportMedia'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import { api, apiRequest } from '@/lib/api-client'
import { sendForm } from '@/lib/form-upload'
import { useRealtimeTopic } from '@/lib/realtime'

import { reportsTopic } from '../api'
import type { DataSource } from './nodes-model'

/** Query keys of a report's data and media; each names the client and the report. */
export const mediaKeys = {
  report: (clientId: string, reportId: string) => ['reports', clientId, 'media', reportId] as const,
  list: (clientId: string, reportId: string) => ['reports', clientId, 'media', reportId, 'list'] as const,
  rows: (clientId: string, reportId: string, mediaId: string) => ['reports', clientId, 'media', reportId, 'rows', mediaId] as const,
  datasets: (clientId: string, reportId: string) => ['reports', clientId, 'media', reportId, 'datasets'] as const,
  dataset: (clientId: string, reportId: string, name: string) => ['reports', clientId, 'media', reportId, 'dataset', name] as const,
}

const base = (reportId: string) => `/api/reports/${encodeURIComponent(reportId)}`
const withClient = (clientId: string) => `?client_id=${encodeURIComponent(clientId)}`

/** Rows a chart or table reads from an uploaded file at most (the server's page bound). */
export const SOURCE_ROWS = 1000

export const listMedia = (clientId: string, reportId: string) => api.get<ReportMedia[]>(`${base(reportId)}/media${withClient(clientId)}`)
export const mediaRows = (clientId: string, reportId: string, mediaId: string) =>
  api.get<DataTable>(`${base(reportId)}/media/${encodeURIComponent(mediaId)}/rows${withClient(clientId)}&limit=${SOURCE_ROWS}`)
export const listDatasets = (clientId: string, reportId: string) => api.get<DatasetInfo[]>(`${base(reportId)}/datasets${withClient(clientId)}`)
export const readDataset = (clientId: string, reportId: string, name: string) =>
  api.get<DataTable>(`${base(reportId)}/datasets/${encodeURIComponent(name)}${withClient(clientId)}`)
export const uploadMedia = (reportId: string, file: File) =>
  sendForm<ReportMedia>(`${base(reportId)}/media`, 'POST', () => {
    const form = new FormData()
    form.append('file', file, file.name)
    return form
  })
export const deleteMedia = (reportId: string, mediaId: string) =>
  apiRequest<void>(`${base(reportId)}/media/${encodeURIComponent(mediaId)}`, { method: 'DELETE' })

export function useReportMedia(clientId: string, reportId: string) {
  return useQuery({ queryKey: mediaKeys.list(clientId, reportId), queryFn: () => listMedia(clientId, reportId) })
}

export function useDatasets(clientId: string, reportId: string, enabled = true) {
  return useQuery({ queryKey: mediaKeys.datasets(clientId, reportId), queryFn: () => listDatasets(clientId, reportId), enabled })
}

/** The rows of a data source (an uploaded table's first 1,000 rows, or a client dataset). */
export function useSourceRows(clientId: string, reportId: string, source: DataSource | null) {
  return useQuery({
    queryKey:
      source?.kind === 'media'
        ? mediaKeys.rows(clientId, reportId, source.mediaId)
        : mediaKeys.dataset(clientId, reportId, source?.kind === 'client' ? source.dataset : ''),
    queryFn: () => (source!.kind === 'media' ? mediaRows(clientId, reportId, source!.mediaId) : readDataset(clientId, reportId, source!.dataset)),
    enabled: source !== null,
    retry: false,
  })
}

export function useUploadMedia(clientId: string, reportId: string) {
  const client = useQueryClient()
  return useMutation({
    mutationFn: (file: File) => uploadMedia(reportId, file),
    onSettled: () => client.invalidateQueries({ queryKey: mediaKeys.list(clientId, reportId) }),
  })
}

export function useDeleteMedia(clientId: string, reportId: string) {
  const client = useQueryClient()
  return useMutation({
    mutationFn: (mediaId: string) => deleteMedia(reportId, mediaId),
    onSettled: () => client.invalidateQueries({ queryKey: mediaKeys.list(clientId, reportId) }),
  })
}

/** Whether a frame says this report's media changed. */
export function isMediaEventOf(frame: EventFrame, reportId: string): boolean {
  return (frame.type === 'report.media.created' || frame.type === 'report.media.deleted') && frame.data.reportId === reportId
}

/**
 * Keeps the report's media list live for every co-editor (the client's reports topic), and its
 * client datasets current: the savings and the files' runs move on their own topics.
 */
export function useLiveReportMedia(clientId: string, reportId: string) {
  const client = useQueryClient()
  const refetchMedia = () => void client.invalidateQueries({ queryKey: mediaKeys.list(clientId, reportId) })
  const refetchData = () => {
    void client.invalidateQueries({ queryKey: mediaKeys.datasets(clientId, reportId) })
    void client.invalidateQueries({ predicate: (q) => q.queryKey[4] === 'dataset' && q.queryKey[3] === reportId })
  }
  useRealtimeTopic(reportsTopic(clientId), {
    onEvent: (frame) => {
      if (isMediaEventOf(frame, reportId)) refetchMedia()
    },
    onResync: refetchMedia,
  })
  useRealtimeTopic(`client:${clientId}:savings`, { onEvent: refetchData, onResync: refetchData })
  useRealtimeTopic(`client:${clientId}:files`, { onEvent: refetchData, onResync: refetchData })
}
