import type { ImportEvent } from '@/api/types/ImportEvent'
import type { NewTemplate } from '@/api/types/NewTemplate'
import type { ReportTemplate } from '@/api/types/ReportTemplate'
import type { TemplateEdit } from '@/api/types/TemplateEdit'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import { api, apiRequest } from '@/lib/api-client'
import { postEventStream } from '@/lib/event-stream'
import { useRealtimeTopic } from '@/lib/realtime'

export type { ReportTemplate } from '@/api/types/ReportTemplate'
export type { TemplateBranding } from '@/api/types/TemplateBranding'
export type { TemplateEdit } from '@/api/types/TemplateEdit'
export type { TemplateSection } from '@/api/types/TemplateSection'
export type { ImportEvent } from '@/api/types/ImportEvent'
export type { ImportStep } from '@/api/types/ImportStep'
export type { ImportSummary } from '@/api/types/ImportSummary'
export type { StepState } from '@/api/types/StepState'

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
/**
 * 'Create template from PDF' (POST /api/admin/report-templates/import): uploads the PDF and calls
 * `onEvent` for each step's state as the server streams it, then `done` or `failed`.
 */
export function importTemplatePdf(
  file: File,
  fields: { name: string; templateType: string },
  onEvent: (e: ImportEvent) => void,
  signal?: AbortSignal,
): Promise<void> {
  return postEventStream<ImportEvent>(
    '/api/admin/report-templates/import',
    () => {
      const form = new FormData()
      form.append('name', fields.name)
      form.append('templateType', fields.templateType)
      form.append('file', file)
      return { body: form }
    },
    onEvent,
    signal,
  )
}
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
