import type { ColumnDefinition } from '@/api/types/ColumnDefinition'
import type { ColumnDefinitionInput } from '@/api/types/ColumnDefinitionInput'
import type { Lever } from '@/api/types/Lever'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import { api, apiRequest } from '@/lib/api-client'
import { optimistic } from '@/lib/optimistic'
import { useRealtimeTopic } from '@/lib/realtime'

export type { ColumnCategory } from '@/api/types/ColumnCategory'
export type { ColumnDefinition } from '@/api/types/ColumnDefinition'
export type { ColumnDefinitionInput } from '@/api/types/ColumnDefinitionInput'
export type { DataType } from '@/api/types/DataType'
export type { Lever } from '@/api/types/Lever'

/** Query keys of the Column Configuration screen (product configuration: no client). */
export const columnKeys = {
  levers: ['admin', 'columns', 'levers'] as const,
  definitions: (leverId: string) => ['admin', 'columns', leverId] as const,
}

/** Every cached list of a lever's standard columns (the mapping dialog's), to refetch after a change. */
const LEVER_COLUMNS_PREFIX = ['levers'] as const

export const listLevers = () => api.get<Lever[]>('/api/levers')

export const listDefinitions = (leverId: string) =>
  api.get<ColumnDefinition[]>(`/api/levers/${encodeURIComponent(leverId)}/column-definitions`)

export const createDefinition = (leverId: string, input: ColumnDefinitionInput) =>
  api.post<ColumnDefinition>(`/api/levers/${encodeURIComponent(leverId)}/column-definitions`, input)

export const updateDefinition = (id: string, input: ColumnDefinitionInput) =>
  apiRequest<ColumnDefinition>(`/api/lever-column-definitions/${encodeURIComponent(id)}`, { method: 'PUT', body: input })

export const deleteDefinition = (id: string) =>
  apiRequest<void>(`/api/lever-column-definitions/${encodeURIComponent(id)}`, { method: 'DELETE' })

export const reorderDefinitions = (leverId: string, ids: string[]) =>
  apiRequest<ColumnDefinition[]>(`/api/levers/${encodeURIComponent(leverId)}/column-definitions/order`, {
    method: 'PUT',
    body: { ids },
  })

export function useLevers() {
  return useQuery({ queryKey: columnKeys.levers, queryFn: listLevers, staleTime: 60_000 })
}

/** Where the server announces changes to column definitions (administrators only). */
export const COLUMNS_TOPIC = 'admin:columns'

/**
 * A lever's column definitions, live: another administrator's change to any lever's definitions
 * refetches that lever's list and the mapping dialog's standard columns.
 */
export function useDefinitions(leverId: string | null) {
  const queryClient = useQueryClient()
  useRealtimeTopic(COLUMNS_TOPIC, {
    onEvent: (frame) => {
      if (frame.type !== 'definitions.changed') return
      void queryClient.invalidateQueries({ queryKey: columnKeys.definitions(frame.data.leverId) })
      void queryClient.invalidateQueries({ queryKey: LEVER_COLUMNS_PREFIX })
    },
    onResync: () => void queryClient.invalidateQueries({ queryKey: ['admin', 'columns'] }),
  })
  return useQuery({
    queryKey: columnKeys.definitions(leverId ?? ''),
    queryFn: () => listDefinitions(leverId ?? ''),
    enabled: leverId !== null,
  })
}

function useSettled(leverId: string) {
  const queryClient = useQueryClient()
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: columnKeys.definitions(leverId) }),
      queryClient.invalidateQueries({ queryKey: LEVER_COLUMNS_PREFIX }),
    ])
}

export function useCreateDefinition(leverId: string) {
  const settled = useSettled(leverId)
  return useMutation({ mutationFn: (input: ColumnDefinitionInput) => createDefinition(leverId, input), onSettled: settled })
}

export function useUpdateDefinition(leverId: string) {
  const settled = useSettled(leverId)
  return useMutation({
    mutationFn: ({ id, input }: { id: string; input: ColumnDefinitionInput }) => updateDefinition(id, input),
    onSettled: settled,
  })
}

export function useDeleteDefinition(leverId: string) {
  const settled = useSettled(leverId)
  return useMutation({ mutationFn: (id: string) => deleteDefinition(id), onSettled: settled })
}

/** Moves the rows at once (optimistic), writes the whole order in one call, rolls back on refusal. */
export function useReorderDefinitions(leverId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (ids: string[]) => reorderDefinitions(leverId, ids),
    ...optimistic<ColumnDefinition[], string[]>(queryClient, columnKeys.definitions(leverId), (rows, ids) =>
      ids.flatMap((id, i) => {
        const row = rows.find((r) => r.id === id)
        return row ? [{ ...row, displayOrder: i + 1 }] : []
      }),
    ),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: LEVER_COLUMNS_PREFIX }),
  })
}
