import type { EventFrame } from '@/api/types/EventFrame'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import { ApiError, api, apiRequest } from '@/lib/api-client'
import { CSRF_COOKIE, CSRF_HEADER } from '@/lib/api-client'
import { readCookie } from '@/lib/cookies'
import { useRealtimeTopic } from '@/lib/realtime'

import type { ClientFile } from '@/api/types/ClientFile'
import type { Inspection } from '@/api/types/Inspection'
import type { Lever } from '@/api/types/Lever'
import type { MappingTemplate } from '@/api/types/MappingTemplate'
import type { NewMappingTemplate } from '@/api/types/NewMappingTemplate'
import type { RunSnapshot } from '@/api/types/RunSnapshot'
import type { StandardColumn } from '@/api/types/StandardColumn'
import type { UploadOptions } from '@/api/types/UploadOptions'
import type { UploadResult } from '@/api/types/UploadResult'

// The wire types of files, levers, mapping templates and runs are generated from the server
// (`web/src/api/types`); the area's code imports them from here.
export type { ClientFile } from '@/api/types/ClientFile'
export type { DataType } from '@/api/types/DataType'
export type { DetectedColumn } from '@/api/types/DetectedColumn'
export type { FileStatus } from '@/api/types/FileStatus'
export type { Inspection } from '@/api/types/Inspection'
export type { Lever } from '@/api/types/Lever'
export type { MappingTemplate } from '@/api/types/MappingTemplate'
export type { NewMappingTemplate as NewTemplate } from '@/api/types/NewMappingTemplate'
export type { RunChecks } from '@/api/types/RunChecks'
export type { RunMode } from '@/api/types/RunMode'
export type { RunResult } from '@/api/types/RunResult'
export type { RunSnapshot } from '@/api/types/RunSnapshot'
export type { RunStage } from '@/api/types/RunStage'
export type { RunState } from '@/api/types/RunState'
export type { StandardColumn } from '@/api/types/StandardColumn'
export type { UploadOptions } from '@/api/types/UploadOptions'
export type { UploadResult } from '@/api/types/UploadResult'

/** The risk-weight notations a run reads (`Inspection.riskWeightFormat`, `UploadOptions.riskWeightFormat`). */
export type RiskWeightFormat = 'decimal' | 'percent'
/** The maturity units a run reads (`Inspection.maturityUnit`, `UploadOptions.maturityUnit`). */
export type MaturityUnit = 'days' | 'months' | 'years'

export function asRiskWeightFormat(value: string | null | undefined): RiskWeightFormat | null {
  return value === 'decimal' || value === 'percent' ? value : null
}

export function asMaturityUnit(value: string | null | undefined): MaturityUnit | null {
  return value === 'days' || value === 'months' || value === 'years' ? value : null
}

/** The Our Files filters, as the list endpoint takes them (empty strings: no filter). */
export type FileFilters = {
  q: string
  /** A lever id, `none` (no lever) or empty. */
  lever: string
  /** An extension (`csv`, `xlsx` ...) or empty. */
  type: string
  /** `true`, `false` or empty. */
  processed: string
  /** `yyyy-mm-dd`, inclusive. */
  from: string
  to: string
}

export const NO_FILTERS: FileFilters = { q: '', lever: '', type: '', processed: '', from: '', to: '' }

/** Query keys of the files area; every client-scoped key names the client. */
export const fileKeys = {
  all: ['files'] as const,
  client: (clientId: string) => ['files', clientId] as const,
  list: (clientId: string, filters: FileFilters) => ['files', clientId, 'list', filters] as const,
  templates: (clientId: string, leverId: string | null) => ['files', clientId, 'templates', leverId ?? ''] as const,
  run: (runId: string) => ['runs', runId] as const,
  levers: ['levers'] as const,
  columns: (leverId: string) => ['levers', leverId, 'columns'] as const,
}

/** The query parameter that names the client of a client-scoped request. */
const CLIENT_QUERY = 'client_id'
const enc = encodeURIComponent

/** `path?client_id=…&…`: every client-scoped call names its client. */
export function clientPath(path: string, clientId: string, params: Record<string, string> = {}): string {
  const query = new URLSearchParams({ [CLIENT_QUERY]: clientId })
  for (const [key, value] of Object.entries(params)) if (value !== '') query.set(key, value)
  return `${path}?${query.toString()}`
}

/** The list filters as query parameters (empty ones left out). */
export function filterParams(filters: FileFilters): Record<string, string> {
  return { q: filters.q.trim(), lever: filters.lever, type: filters.type, processed: filters.processed, from: filters.from, to: filters.to }
}

export const listFiles = (clientId: string, filters: FileFilters) => api.get<ClientFile[]>(clientPath('/api/files', clientId, filterParams(filters)))
export const getFile = (fileId: string) => api.get<ClientFile>(`/api/files/${enc(fileId)}`)
export const deleteFile = (fileId: string) => apiRequest<void>(`/api/files/${enc(fileId)}`, { method: 'DELETE' })
export const originalHref = (fileId: string) => `/api/files/${enc(fileId)}/original`
export const processedHref = (fileId: string) => `/api/files/${enc(fileId)}/processed`
export const listLevers = () => api.get<Lever[]>('/api/levers')
export const listLeverColumns = (leverId: string) => api.get<StandardColumn[]>(`/api/levers/${enc(leverId)}/columns`)
export const listTemplates = (clientId: string, leverId: string | null) =>
  api.get<MappingTemplate[]>(clientPath('/api/mapping-templates', clientId, { lever: leverId ?? '' }))
export const createTemplate = (clientId: string, body: NewMappingTemplate) => api.post<MappingTemplate>(clientPath('/api/mapping-templates', clientId), body)
export const deleteTemplate = (templateId: string) => apiRequest<void>(`/api/mapping-templates/${enc(templateId)}`, { method: 'DELETE' })
export const getRun = (runId: string) => api.get<RunSnapshot>(`/api/runs/${enc(runId)}`)
export const cancelRun = (runId: string) => api.post<RunSnapshot>(`/api/runs/${enc(runId)}/cancel`)

/** Bytes sent of the request body so far. */
export type UploadProgress = { loaded: number; total: number }

/**
 * Sends a multipart form with XMLHttpRequest, so that the bytes actually sent are reported
 * (`fetch` cannot report upload progress). Carries the CSRF header like every other change; a 401
 * refreshes the session once (through the API client) and sends again. Errors are {@link ApiError}s
 * with the server's message.
 */
export async function sendMultipart<T>(
  path: string,
  makeForm: () => FormData,
  onProgress?: (progress: UploadProgress) => void,
  signal?: AbortSignal,
): Promise<T> {
  const once = () => xhrSend<T>(path, makeForm(), onProgress, signal)
  try {
    return await once()
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 401) throw error
    // Refreshes the access cookie when the refresh cookie is still valid (else it throws 401).
    await apiRequest('/api/auth/me')
    return once()
  }
}

function xhrSend<T>(path: string, form: FormData, onProgress?: (progress: UploadProgress) => void, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open('POST', path)
    xhr.withCredentials = true
    xhr.setRequestHeader('Accept', 'application/json')
    const csrf = readCookie(CSRF_COOKIE)
    if (csrf) xhr.setRequestHeader(CSRF_HEADER, csrf)
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress?.({ loaded: event.loaded, total: event.total })
    }
    xhr.onload = () => {
      let body: unknown = undefined
      if (xhr.responseText !== '') {
        try {
          body = JSON.parse(xhr.responseText)
        } catch {
          body = xhr.responseText
        }
      }
      if (xhr.status >= 200 && xhr.status < 300) {
        resolve(body as T)
        return
      }
      const { code, message } = (body && typeof body === 'object' ? body : {}) as { code?: unknown; message?: unknown }
      reject(
        new ApiError(
          xhr.status,
          typeof code === 'string' ? code : `http_${xhr.status}`,
          typeof message === 'string' && message !== '' ? message : uploadStatusMessage(xhr.status),
          body,
        ),
      )
    }
    xhr.onerror = () => reject(new ApiError(0, 'network_error', 'Unable to reach the server. Check your connection and try again.'))
    xhr.onabort = () => reject(new ApiError(0, 'aborted', 'The upload was cancelled.'))
    signal?.addEventListener('abort', () => xhr.abort(), { once: true })
    xhr.send(form)
  })
}

function uploadStatusMessage(status: number): string {
  if (status === 413) return 'File too large'
  if (status === 403) return 'Access denied: You do not have permission to save files for this client.'
  if (status >= 500) return 'Failed to upload file to storage.'
  return `Upload failed (HTTP ${status})`
}

/** Uploads a file (and starts its run when `options.process`), reporting the bytes sent. */
export function uploadFile(clientId: string, file: File, options: UploadOptions, onProgress?: (p: UploadProgress) => void) {
  return sendMultipart<UploadResult>(
    clientPath('/api/files', clientId),
    () => {
      const form = new FormData()
      form.append('file', file, file.name)
      form.append('options', JSON.stringify(options))
      return form
    },
    onProgress,
  )
}

/** Reads a file's columns, first rows and suggested mapping; nothing is stored. */
export function inspectFile(clientId: string, file: File) {
  return sendMultipart<Inspection>(clientPath('/api/files/inspect', clientId), () => {
    const form = new FormData()
    form.append('file', file, file.name)
    return form
  })
}

// Hooks. Queries are disabled while there is no client (the screen says so instead).

export function useFiles(clientId: string | null, filters: FileFilters) {
  return useQuery({ queryKey: fileKeys.list(clientId ?? '', filters), queryFn: () => listFiles(clientId!, filters), enabled: clientId !== null })
}

export function useLevers(enabled = true) {
  return useQuery({ queryKey: fileKeys.levers, queryFn: listLevers, staleTime: 5 * 60_000, enabled })
}

export function useLeverColumns(leverId: string | null) {
  return useQuery({
    queryKey: fileKeys.columns(leverId ?? ''),
    queryFn: () => listLeverColumns(leverId!),
    enabled: leverId !== null,
    staleTime: 5 * 60_000,
  })
}

export function useTemplates(clientId: string | null, leverId: string | null) {
  return useQuery({
    queryKey: fileKeys.templates(clientId ?? '', leverId),
    queryFn: () => listTemplates(clientId!, leverId),
    enabled: clientId !== null,
  })
}

export function useCreateTemplate(clientId: string) {
  const client = useQueryClient()
  return useMutation({
    mutationFn: (body: NewMappingTemplate) => createTemplate(clientId, body),
    onSettled: () => client.invalidateQueries({ queryKey: [...fileKeys.client(clientId), 'templates'] }),
  })
}

export function useDeleteTemplate(clientId: string) {
  const client = useQueryClient()
  return useMutation({
    mutationFn: deleteTemplate,
    onSettled: () => client.invalidateQueries({ queryKey: [...fileKeys.client(clientId), 'templates'] }),
  })
}

export function useDeleteFile(clientId: string) {
  const client = useQueryClient()
  return useMutation({ mutationFn: deleteFile, onSettled: () => client.invalidateQueries({ queryKey: fileKeys.client(clientId) }) })
}

/** The realtime topic of a client's file list. */
export function filesTopic(clientId: string): string {
  return `client:${clientId}:files`
}

/** The client's pending validations (the pending badge's count; the Alerts tab decides them). */
export const getPendingValidations = (clientId: string) =>
  api.get<{ pendingValidations: number }>(clientPath('/api/validations/summary', clientId)).then((s) => s.pendingValidations)

/** The client's pending validations, live: a landing, decision or deletion on its validations topic refetches the count. */
export function usePendingValidations(clientId: string | null) {
  const client = useQueryClient()
  const key = [...fileKeys.client(clientId ?? ''), 'pending-validations'] as const
  const invalidate = () => void client.invalidateQueries({ queryKey: key })
  useRealtimeTopic(clientId ? `client:${clientId}:validations` : null, { onEvent: invalidate, onResync: invalidate })
  return useQuery({ queryKey: key, queryFn: () => getPendingValidations(clientId!), enabled: clientId !== null })
}

/** The realtime topic of one processing run. */
export function runTopic(clientId: string, runId: string): string {
  return `client:${clientId}:run:${runId}`
}

/** Keeps the client's file lists live: a file created, changed or deleted by anyone refetches them. */
export function useLiveFiles(clientId: string | null) {
  const client = useQueryClient()
  const invalidate = () => void client.invalidateQueries({ queryKey: fileKeys.client(clientId ?? '') })
  useRealtimeTopic(clientId ? filesTopic(clientId) : null, { onEvent: invalidate, onResync: invalidate })
}

/** A run's progress event carries its snapshot. */
export function runSnapshotOf(frame: EventFrame): RunSnapshot | null {
  return frame.type === 'run.progress' ? frame.data : null
}
