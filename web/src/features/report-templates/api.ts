import type { NewTemplate } from '@/api/types/NewTemplate'
import type { ReportTemplate } from '@/api/types/ReportTemplate'
import type { TemplateEdit } from '@/api/types/TemplateEdit'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import { api, apiRequest } from '@/lib/api-client'
import { useRealtimeTopic } from '@/lib/realtime'

export type { ReportTemplate } from '@/api/types/ReportTemplate'
export type { TemplateBranding } from '@/api/types/TemplateBranding'
export type { TemplateEdit } from '@/api/types/TemplateEdit'
export type { TemplateSection } from '@/api/types/TemplateSection'

/** Query keys of the report templates (product configuration: no client). */
export const templateKeys = {
  all: ['report-templates'] as const,
  list: ['report-templates', 'admin'] as const,
  one: (id: string) => ['report-templates', 'admin', id] as const,
}

/** Where the server announces template changes (administrators only). */
export const TEMPLATES_TOPIC = 'admin:templates'

const enc = encodeURIComponent

export const listTemplates = () => api.get<ReportTemplate[]>('/api/admin/report-templates')
export const getTemplate = (id: string) => api.get<ReportTemplate>(`/api/admin/report-templates/${enc(id)}`)
/** 'Export Preview': the template's preview as a PDF laid out by the server (an attachment). */
export const templatePdfPath = (id: string) => `/api/admin/report-templates/${enc(id)}/export`
export const createTemplate = (input: NewTemplate) => api.post<ReportTemplate>('/api/admin/report-templates', input)
export const updateTemplate = (id: string, input: TemplateEdit) =>
  apiRequest<ReportTemplate>(`/api/admin/report-templates/${enc(id)}`, { method: 'PUT', body: input })
export const deleteTemplate = (id: string) => apiRequest<void>(`/api/admin/report-templates/${enc(id)}`, { method: 'DELETE' })

/** Another administrator's change refetches the templates shown. */
function useLiveTemplates() {
  const queryClient = useQueryClient()
  useRealtimeTopic(TEMPLATES_TOPIC, {
    onEvent: (frame) => {
      if (frame.type === 'templates.changed') void queryClient.invalidateQueries({ queryKey: templateKeys.all })
    },
    onResync: () => void queryClient.invalidateQueries({ queryKey: templateKeys.all }),
  })
}

/** Every template (administrators), live. */
export function useTemplates() {
  useLiveTemplates()
  return useQuery({ queryKey: templateKeys.list, queryFn: listTemplates })
}

/** One template (administrators), live. */
export function useTemplate(id: string) {
  useLiveTemplates()
  return useQuery({ queryKey: templateKeys.one(id), queryFn: () => getTemplate(id), retry: false })
}

function useRefetchAll() {
  const queryClient = useQueryClient()
  return () => queryClient.invalidateQueries({ queryKey: templateKeys.all })
}

export function useCreateTemplate() {
  const settled = useRefetchAll()
  return useMutation({ mutationFn: createTemplate, onSettled: settled })
}

export function useUpdateTemplate() {
  const settled = useRefetchAll()
  return useMutation({ mutationFn: ({ id, input }: { id: string; input: TemplateEdit }) => updateTemplate(id, input), onSettled: settled })
}

export function useDeleteTemplate() {
  const settled = useRefetchAll()
  return useMutation({ mutationFn: deleteTemplate, onSettled: settled })
}
