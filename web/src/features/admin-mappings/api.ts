import type { GlobalLearning } from '@/api/types/GlobalLearning'
import type { NewSuggestion } from '@/api/types/NewSuggestion'
import type { UniversalSuggestion } from '@/api/types/UniversalSuggestion'
import type { UniversalSuggestions } from '@/api/types/UniversalSuggestions'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import { api, apiRequest } from '@/lib/api-client'
import { optimistic } from '@/lib/optimistic'
import { useRealtimeTopic } from '@/lib/realtime'

export type { NewSuggestion } from '@/api/types/NewSuggestion'
export type { SuggestionStats } from '@/api/types/SuggestionStats'
export type { UniversalSuggestion } from '@/api/types/UniversalSuggestion'
export type { UniversalSuggestions } from '@/api/types/UniversalSuggestions'

/** Above this confidence a suggestion is high confidence (the server counts the same). */
export const HIGH_CONFIDENCE = 0.8

const BASE = '/api/admin/universal-suggestions'

/** Query keys of the Universal Column Mappings screen (global: no client). */
export const mappingKeys = {
  suggestions: ['admin', 'universal-suggestions'] as const,
}

export const getSuggestions = () => api.get<UniversalSuggestions>(BASE)
export const addSuggestion = (input: NewSuggestion) => api.post<UniversalSuggestion>(BASE, input)
export const setSuggestionEnabled = (id: string, enabled: boolean) =>
  apiRequest<UniversalSuggestion>(`${BASE}/${encodeURIComponent(id)}`, { method: 'PATCH', body: { enabled } })
export const deleteSuggestion = (id: string) => apiRequest<void>(`${BASE}/${encodeURIComponent(id)}`, { method: 'DELETE' })
export const setGlobalLearning = (enabled: boolean) =>
  apiRequest<GlobalLearning>(`${BASE}/learning`, { method: 'PUT', body: { enabled } })

/** Where the server announces changes to the suggestions and the switch (administrators only). */
export const MAPPINGS_TOPIC = 'admin:mappings'

/** The suggestions with their figures and the switch, live across administrators. */
export function useSuggestions() {
  const queryClient = useQueryClient()
  const refetch = () => void queryClient.invalidateQueries({ queryKey: mappingKeys.suggestions })
  useRealtimeTopic(MAPPINGS_TOPIC, {
    onEvent: (frame) => {
      if (frame.type === 'suggestions.changed') refetch()
    },
    onResync: refetch,
  })
  return useQuery({ queryKey: mappingKeys.suggestions, queryFn: getSuggestions })
}

/** The figures of a list (what the server computes, for the optimistic state). */
export function statsOf(items: readonly UniversalSuggestion[]): UniversalSuggestions['stats'] {
  return {
    total: items.length,
    enabled: items.filter((s) => s.enabled).length,
    highConfidence: items.filter((s) => s.confidenceScore > HIGH_CONFIDENCE).length,
    totalUsage: items.reduce((n, s) => n + s.usageCount, 0),
  }
}

function withItems(data: UniversalSuggestions, items: UniversalSuggestion[]): UniversalSuggestions {
  return { ...data, items, stats: statsOf(items) }
}

export function useSetSuggestionEnabled() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ id, enabled }: { id: string; enabled: boolean }) => setSuggestionEnabled(id, enabled),
    ...optimistic<UniversalSuggestions, { id: string; enabled: boolean }>(queryClient, mappingKeys.suggestions, (data, v) =>
      withItems(
        data,
        data.items.map((s) => (s.id === v.id ? { ...s, enabled: v.enabled } : s)),
      ),
    ),
  })
}

export function useDeleteSuggestion() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: deleteSuggestion,
    ...optimistic<UniversalSuggestions, string>(queryClient, mappingKeys.suggestions, (data, id) =>
      withItems(
        data,
        data.items.filter((s) => s.id !== id),
      ),
    ),
  })
}

export function useAddSuggestion() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: addSuggestion,
    onSettled: () => queryClient.invalidateQueries({ queryKey: mappingKeys.suggestions }),
  })
}

export function useSetGlobalLearning() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: setGlobalLearning,
    ...optimistic<UniversalSuggestions, boolean>(queryClient, mappingKeys.suggestions, (data, enabled) => ({
      ...data,
      globalLearning: enabled,
    })),
  })
}
