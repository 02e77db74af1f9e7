import type { KnowledgeDocument } from '@/api/types/KnowledgeDocument'
import type { KnowledgeHit } from '@/api/types/KnowledgeHit'
import type { KnowledgeSettings } from '@/api/types/KnowledgeSettings'
import type { KnowledgeSettingsInput } from '@/api/types/KnowledgeSettingsInput'
import type { KnowledgeStats } from '@/api/types/KnowledgeStats'
import type { LeverExtraction } from '@/api/types/LeverExtraction'
import type { RegulatoryRule } from '@/api/types/RegulatoryRule'
import type { ReindexResult } from '@/api/types/ReindexResult'
import type { SaveLeversInput } from '@/api/types/SaveLeversInput'
import type { SaveLeversResult } from '@/api/types/SaveLeversResult'
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import { api, apiRequest } from '@/lib/api-client'
import { sendForm } from '@/lib/form-upload'
import { useRealtimeTopic } from '@/lib/realtime'

export type { KnowledgeDocument } from '@/api/types/KnowledgeDocument'
export type { KnowledgeHit } from '@/api/types/KnowledgeHit'
export type { KnowledgeSettings } from '@/api/types/KnowledgeSettings'
export type { KnowledgeStats } from '@/api/types/KnowledgeStats'
export type { ExtractedLever } from '@/api/types/ExtractedLever'
export type { ExtractedRule } from '@/api/types/ExtractedRule'
export type { LeverExtraction } from '@/api/types/LeverExtraction'
export type { RegulatoryRule } from '@/api/types/RegulatoryRule'
export type { SaveLeversResult } from '@/api/types/SaveLeversResult'

/** Query keys of the knowledge base (product configuration: no client). */
export const knowledgeKeys = {
  all: ['admin', 'knowledge'] as const,
  documents: ['admin', 'knowledge', 'documents'] as const,
  stats: ['admin', 'knowledge', 'stats'] as const,
  settings: ['admin', 'knowledge', 'settings'] as const,
  search: (q: string) => ['admin', 'knowledge', 'search', q] as const,
  rules: ['admin', 'knowledge', 'rules'] as const,
}

/** Where the server announces uploads, completions, failures and deletions (administrators only). */
export const KNOWLEDGE_TOPIC = 'admin:knowledge'
/** How often the list is read while a document is processing (progress is stored, not announced). */
export const PROCESSING_POLL_MS = 1000
/** Hits asked for per search. */
export const SEARCH_LIMIT = 10

const enc = encodeURIComponent

export const listDocuments = () => api.get<KnowledgeDocument[]>('/api/admin/knowledge/documents')
export const getStats = () => api.get<KnowledgeStats>('/api/admin/knowledge/stats')
export const deleteDocument = (id: string) => apiRequest<void>(`/api/admin/knowledge/documents/${enc(id)}`, { method: 'DELETE' })
export const getSettings = () => api.get<KnowledgeSettings>('/api/admin/knowledge/settings')
export const saveSettings = (input: KnowledgeSettingsInput) =>
  apiRequest<KnowledgeSettings>('/api/admin/knowledge/settings', { method: 'PUT', body: input })
export const reindex = () => api.post<ReindexResult>('/api/admin/knowledge/reindex')
export const searchKnowledge = (q: string, limit = SEARCH_LIMIT) =>
  api.get<KnowledgeHit[]>(`/api/admin/knowledge/search?q=${enc(q)}&limit=${limit}`)

export const extractLevers = (documentId: string) => api.post<LeverExtraction>(`/api/admin/knowledge/documents/${enc(documentId)}/extract`)
export const saveLevers = (input: SaveLeversInput) => api.post<SaveLeversResult>('/api/admin/knowledge/levers', input)
export const listRules = () => api.get<RegulatoryRule[]>('/api/admin/knowledge/rules')

/** Uploads documents of one lever category in one request (all or none are stored). */
export const uploadDocuments = (files: File[], category: string) =>
  sendForm<KnowledgeDocument[]>('/api/admin/knowledge/documents', 'POST', () => {
    const form = new FormData()
    form.append('category', category)
    for (const f of files) form.append('files', f, f.name)
    return form
  })

/** Refetches everything the screen shows on a change announced on `admin:knowledge`. */
export function useKnowledgeLive() {
  const queryClient = useQueryClient()
  const refetch = () => void queryClient.invalidateQueries({ queryKey: knowledgeKeys.all })
  useRealtimeTopic(KNOWLEDGE_TOPIC, {
    onEvent: (frame) => {
      if (frame.type === 'knowledge.changed' || frame.type === 'knowledge.settings_changed' || frame.type === 'knowledge.rules_changed') refetch()
    },
    onResync: refetch,
  })
}

/**
 * The documents, newest first. While any is processing the list is read every second (the
 * server stores progress but announces only uploads, completions, failures and deletions).
 */
export function useDocuments() {
  return useQuery({
    queryKey: knowledgeKeys.documents,
    queryFn: listDocuments,
    refetchInterval: (query) => (query.state.data?.some((d) => d.status === 'processing') ? PROCESSING_POLL_MS : false),
  })
}

export function useKnowledgeStats() {
  return useQuery({ queryKey: knowledgeKeys.stats, queryFn: getStats })
}

export function useSearch(q: string) {
  return useQuery({
    queryKey: knowledgeKeys.search(q),
    queryFn: () => searchKnowledge(q),
    enabled: q.trim() !== '',
    placeholderData: keepPreviousData,
  })
}

function useRefetchAll() {
  const queryClient = useQueryClient()
  return () => queryClient.invalidateQueries({ queryKey: knowledgeKeys.all })
}

export function useUploadDocuments() {
  const settled = useRefetchAll()
  return useMutation({ mutationFn: ({ files, category }: { files: File[]; category: string }) => uploadDocuments(files, category), onSettled: settled })
}

export function useDeleteDocument() {
  const settled = useRefetchAll()
  return useMutation({ mutationFn: deleteDocument, onSettled: settled })
}

export function useKnowledgeSettings() {
  return useQuery({ queryKey: knowledgeKeys.settings, queryFn: getSettings })
}

export function useSaveSettings() {
  const settled = useRefetchAll()
  return useMutation({ mutationFn: saveSettings, onSettled: settled })
}

export function useReindex() {
  const settled = useRefetchAll()
  return useMutation({ mutationFn: reindex, onSettled: settled })
}

export function useRules() {
  return useQuery({ queryKey: knowledgeKeys.rules, queryFn: listRules })
}

export function useExtractLevers() {
  return useMutation({ mutationFn: extractLevers })
}

export function useSaveLevers() {
  const settled = useRefetchAll()
  return useMutation({ mutationFn: saveLevers, onSettled: settled })
}
