import type { GenerateSectionRequest } from '@/api/types/GenerateSectionRequest'
import type { GeneratedSection } from '@/api/types/GeneratedSection'
import { useMutation } from '@tanstack/react-query'

import { api } from '@/lib/api-client'

/** Asks the AI text assistant for a section's new text, written from the client's own figures. */
export const generateSection = (clientId: string, reportId: string, body: GenerateSectionRequest) =>
  api.post<GeneratedSection>(
    `/api/reports/${encodeURIComponent(reportId)}/sections/generate?client_id=${encodeURIComponent(clientId)}`,
    body,
  )

export function useGenerateSection(clientId: string, reportId: string) {
  return useMutation({ mutationFn: (body: GenerateSectionRequest) => generateSection(clientId, reportId, body) })
}
