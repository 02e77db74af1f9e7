import type { AdminRunPage } from '@/api/types/AdminRunPage'
import type { JustificationDefaults } from '@/api/types/JustificationDefaults'
import type { JustificationMemo } from '@/api/types/JustificationMemo'
import type { JustificationTemplate } from '@/api/types/JustificationTemplate'
import type { JustificationTemplateInput } from '@/api/types/JustificationTemplateInput'
import type { MemoRequest } from '@/api/types/MemoRequest'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import { api, apiRequest } from '@/lib/api-client'
import { useRealtimeTopic } from '@/lib/realtime'

export type { AdminRun } from '@/api/types/AdminRun'
export type { JustificationDefaults } from '@/api/types/JustificationDefaults'
export type { JustificationMemo } from '@/api/types/JustificationMemo'
export type { JustificationPlaceholder } from '@/api/types/JustificationPlaceholder'
export type { JustificationTemplate } from '@/api/types/JustificationTemplate'
export type { JustificationTemplateInput } from '@/api/types/JustificationTemplateInput'

/** Query keys of the lever justification templates (product configuration: no client). */
export const justificationKeys = {
  all: ['admin', 'justifications'] as const,
  list: ['admin', 'justifications', 'list'] as const,
  defaults: ['admin', 'justifications', 'defaults'] as const,
  completedRuns: ['admin', 'justifications', 'completed-runs'] as const,
}

/** Where the server announces changes to the templates (administrators only). */
export const JUSTIFICATIONS_TOPIC = 'admin:justifications'

const enc = encodeURIComponent

export const listJustificationTemplates = () => api.get<JustificationTemplate[]>('/api/admin/justification-templates')
export const getJustificationDefaults = () => api.get<JustificationDefaults>('/api/admin/justification-templates/defaults')
export const createJustificationTemplate = (input: JustificationTemplateInput) =>
  api.post<JustificationTemplate>('/api/admin/justification-templates', input)
export const updateJustificationTemplate = (id: string, input: JustificationTemplateInput) =>
  apiRequest<JustificationTemplate>(`/api/admin/justification-templates/${enc(id)}`, { method: 'PUT', body: input })
export const deleteJustificationTemplate = (id: string) =>
  apiRequest<void>(`/api/admin/justification-templates/${enc(id)}`, { method: 'DELETE' })
/** The memo of a completed run, written from the template named (else the default one). */
export const generateJustificationMemo = (runId: string, request: MemoRequest) =>
  api.post<JustificationMemo>(`/api/admin/runs/${enc(runId)}/justification-memo`, request)
/** The newest completed runs of every client, the runs a memo can be generated from. */
export const listCompletedRuns = () => api.get<AdminRunPage>('/api/admin/runs?status=completed&page=1&page_size=50')

/**
 * The templates, live: another administrator's change (a template created, edited, made the
 * default, deleted) refetches the list.
 */
export function useJustificationTemplates() {
  const queryClient = useQueryClient()
  useRealtimeTopic(JUSTIFICATIONS_TOPIC, {
    onEvent: (frame) => {
      if (frame.type === 'justifications.changed') void queryClient.invalidateQueries({ queryKey: justificationKeys.list })
    },
    onResync: () => void queryClient.invalidateQueries({ queryKey: justificationKeys.list }),
  })
  return useQuery({ queryKey: justificationKeys.list, queryFn: listJustificationTemplates })
}

/** The default audit memo and the placeholders (fixed by the server: read once). */
export function useJustificationDefaults(enabled: boolean) {
  return useQuery({ queryKey: justificationKeys.defaults, queryFn: getJustificationDefaults, enabled, staleTime: Infinity })
}

/** The completed runs offered in the preview (read while it is open). */
export function useCompletedRuns(enabled: boolean) {
  return useQuery({ queryKey: justificationKeys.completedRuns, queryFn: listCompletedRuns, enabled })
}

function useRefetchList() {
  const queryClient = useQueryClient()
  return () => queryClient.invalidateQueries({ queryKey: justificationKeys.list })
}

export function useCreateJustificationTemplate() {
  const settled = useRefetchList()
  return useMutation({ mutationFn: createJustificationTemplate, onSettled: settled })
}

export function useUpdateJustificationTemplate() {
  const settled = useRefetchList()
  return useMutation({
    mutationFn: ({ id, input }: { id: string; input: JustificationTemplateInput }) => updateJustificationTemplate(id, input),
    onSettled: settled,
  })
}

export function useDeleteJustificationTemplate() {
  const settled = useRefetchList()
  return useMutation({ mutationFn: deleteJustificationTemplate, onSettled: settled })
}

export function useGenerateMemo() {
  return useMutation({
    mutationFn: ({ runId, templateId }: { runId: string; templateId: string }) => generateJustificationMemo(runId, { templateId }),
  })
}
