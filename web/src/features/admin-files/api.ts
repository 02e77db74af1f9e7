import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import { api, apiRequest } from '@/lib/api-client'

import type { AdminFile } from '@/api/types/AdminFile'
import type { AdminFilePage } from '@/api/types/AdminFilePage'
import type { BulkOutcome } from '@/api/types/BulkOutcome'
import type { FileEdit } from '@/api/types/FileEdit'
import type { FileEditInput } from '@/api/types/FileEditInput'
import type { Lever } from '@/api/types/Lever'

// File Management's wire types are generated from the server (`web/src/api/types`).
export type { AdminFile } from '@/api/types/AdminFile'
export type { AdminFilePage } from '@/api/types/AdminFilePage'
export type { BulkOutcome } from '@/api/types/BulkOutcome'
export type { FileEdit } from '@/api/types/FileEdit'
export type { FileEditInput } from '@/api/types/FileEditInput'
export type { FileOutcome } from '@/api/types/FileOutcome'
export type { Lever } from '@/api/types/Lever'
export type { RunSnapshot } from '@/api/types/RunSnapshot'

/** The list's filters as the screen holds them (empty strings: no filter). */
export type AdminFileFilters = {
  q: string
  clientId: string
  category: string
  /** A lever id (only with a category). */
  lever: string
  /** `yyyy-mm-dd`, inclusive. */
  from: string
  /** `yyyy-mm-dd`, inclusive to the end of the day. */
  to: string
  status: 'all' | 'processed' | 'unprocessed'
}

export const NO_FILTERS: AdminFileFilters = { q: '', clientId: '', category: '', lever: '', from: '', to: '', status: 'all' }

/** The sort keys the server accepts. */
export type SortKey = 'uploaded_at' | 'name' | 'client' | 'savings_rwas' | 'savings_bps' | 'status'

/** What a page of the list is: filters, sort and page. */
export type ListRequest = {
  filters: AdminFileFilters
  sort: SortKey
  desc: boolean
  /** From 0. */
  pageIndex: number
  pageSize: number
}

/** Query keys of File Management (admin-wide: no client in them). */
export const adminFileKeys = {
  all: ['admin-files'] as const,
  lists: () => ['admin-files', 'list'] as const,
  list: (req: ListRequest) => ['admin-files', 'list', req] as const,
  file: (id: string) => ['admin-files', 'file', id] as const,
  history: (id: string) => ['admin-files', 'history', id] as const,
  levers: ['levers'] as const,
}

const enc = encodeURIComponent

/** The list request as query parameters (empty filters left out). */
export function listParams(req: ListRequest): URLSearchParams {
  const p = new URLSearchParams()
  const f = req.filters
  if (f.q.trim()) p.set('q', f.q.trim())
  if (f.clientId) p.set('client_id', f.clientId)
  if (f.category) p.set('category', f.category)
  if (f.category && f.lever) p.set('lever', f.lever)
  if (f.from) p.set('from', f.from)
  if (f.to) p.set('to', f.to)
  if (f.status !== 'all') p.set('status', f.status)
  p.set('sort', req.sort)
  p.set('dir', req.desc ? 'desc' : 'asc')
  p.set('page', String(req.pageIndex + 1))
  p.set('page_size', String(req.pageSize))
  return p
}

export const listAdminFiles = (req: ListRequest) => api.get<AdminFilePage>(`/api/admin/files?${listParams(req).toString()}`)
export const getAdminFile = (id: string) => api.get<AdminFile>(`/api/admin/files/${enc(id)}`)
export const getFileHistory = (id: string) => api.get<FileEdit[]>(`/api/admin/files/${enc(id)}/history`)
export const editFile = (id: string, body: FileEditInput) => apiRequest<AdminFile>(`/api/admin/files/${enc(id)}`, { method: 'PATCH', body })
export const processWithLever = (id: string, leverId: string) => api.post<AdminFile>(`/api/admin/files/${enc(id)}/lever`, { leverId })
export const assignLever = (fileIds: string[], leverId: string) => api.post<BulkOutcome>('/api/admin/files/assign-lever', { fileIds, leverId })
export const deleteFiles = (fileIds: string[]) => api.post<BulkOutcome>('/api/admin/files/delete', { fileIds })
export const listLevers = () => api.get<Lever[]>('/api/levers')
export const originalHref = (id: string) => `/api/files/${enc(id)}/original`
export const processedHref = (id: string) => `/api/files/${enc(id)}/processed`

/** Checks a stored file is there (HEAD, the session refreshed if need be) before the browser downloads it. */
export const checkDownload = (href: string) => apiRequest<void>(href, { method: 'HEAD' })

// Hooks.

export function useAdminFiles(req: ListRequest) {
  return useQuery({ queryKey: adminFileKeys.list(req), queryFn: () => listAdminFiles(req), placeholderData: keepPreviousData })
}

export function useAdminFile(id: string | null) {
  return useQuery({ queryKey: adminFileKeys.file(id ?? ''), queryFn: () => getAdminFile(id!), enabled: id !== null })
}

export function useFileHistory(id: string | null, enabled: boolean) {
  return useQuery({ queryKey: adminFileKeys.history(id ?? ''), queryFn: () => getFileHistory(id!), enabled: id !== null && enabled })
}

export function useLevers() {
  return useQuery({ queryKey: adminFileKeys.levers, queryFn: listLevers, staleTime: 5 * 60_000 })
}

/** After any change: the lists, the open file and its history are read again. */
function useInvalidate() {
  const client = useQueryClient()
  return () => client.invalidateQueries({ queryKey: adminFileKeys.all })
}

export function useAssignLever() {
  const invalidate = useInvalidate()
  return useMutation({ mutationFn: ({ fileIds, leverId }: { fileIds: string[]; leverId: string }) => assignLever(fileIds, leverId), onSettled: invalidate })
}

export function useDeleteFiles() {
  const invalidate = useInvalidate()
  return useMutation({ mutationFn: deleteFiles, onSettled: invalidate })
}

export function useEditFile(id: string) {
  const invalidate = useInvalidate()
  return useMutation({ mutationFn: (body: FileEditInput) => editFile(id, body), onSettled: invalidate })
}

export function useProcessWithLever(id: string) {
  const invalidate = useInvalidate()
  return useMutation({ mutationFn: (leverId: string) => processWithLever(id, leverId), onSettled: invalidate })
}
