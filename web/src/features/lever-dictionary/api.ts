import type { CategoryInput } from '@/api/types/CategoryInput'
import type { LeverEntry } from '@/api/types/LeverEntry'
import type { LeverFile } from '@/api/types/LeverFile'
import type { LeverInput } from '@/api/types/LeverInput'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import { api, apiRequest } from '@/lib/api-client'
import { sendForm } from '@/lib/form-upload'
import { optimistic } from '@/lib/optimistic'
import { useRealtimeTopic } from '@/lib/realtime'

export type { LeverEntry } from '@/api/types/LeverEntry'
export type { LeverFile } from '@/api/types/LeverFile'
export type { LeverInput } from '@/api/types/LeverInput'

/** Query keys of the lever dictionary (product configuration: no client). */
export const leverKeys = {
  all: ['admin', 'lever-dictionary'] as const,
  list: ['admin', 'lever-dictionary', 'list'] as const,
  files: (leverId: string) => ['admin', 'lever-dictionary', 'files', leverId] as const,
}

/** Where the server announces changes to the dictionary (administrators only). */
export const LEVERS_TOPIC = 'admin:levers'

const enc = encodeURIComponent

export const listDictionary = () => api.get<LeverEntry[]>('/api/admin/levers')
export const createLever = (input: LeverInput) => api.post<LeverEntry>('/api/admin/levers', input)
export const updateLever = (id: string, input: LeverInput) =>
  apiRequest<LeverEntry>(`/api/admin/levers/${enc(id)}`, { method: 'PUT', body: input })
export const setLeverCategory = (id: string, input: CategoryInput) =>
  apiRequest<LeverEntry>(`/api/admin/levers/${enc(id)}/category`, { method: 'PUT', body: input })
export const deleteLever = (id: string) => apiRequest<void>(`/api/admin/levers/${enc(id)}`, { method: 'DELETE' })
export const listLeverFiles = (id: string) => api.get<LeverFile[]>(`/api/admin/levers/${enc(id)}/files`)
export const deleteLeverFile = (fileId: string) => apiRequest<void>(`/api/admin/lever-files/${enc(fileId)}`, { method: 'DELETE' })
export const leverFileHref = (fileId: string) => `/api/admin/lever-files/${enc(fileId)}/download`

/** Uploads several analysis files of a lever in one request (all or none are stored). */
export const uploadLeverFiles = (id: string, files: File[]) =>
  sendForm<LeverFile[]>(`/api/admin/levers/${enc(id)}/files`, 'POST', () => {
    const form = new FormData()
    for (const f of files) form.append('files', f, f.name)
    return form
  })

/**
 * The dictionary, live: another administrator's change (a lever added, edited, renamed with its
 * files, deleted, files uploaded) refetches the list and that lever's files.
 */
export function useDictionary() {
  const queryClient = useQueryClient()
  useRealtimeTopic(LEVERS_TOPIC, {
    onEvent: (frame) => {
      if (frame.type !== 'levers.changed') return
      void queryClient.invalidateQueries({ queryKey: leverKeys.list })
      void queryClient.invalidateQueries({ queryKey: leverKeys.files(frame.data.leverId) })
    },
    onResync: () => void queryClient.invalidateQueries({ queryKey: leverKeys.all }),
  })
  return useQuery({ queryKey: leverKeys.list, queryFn: listDictionary })
}

export function useLeverFiles(leverId: string | null) {
  return useQuery({
    queryKey: leverKeys.files(leverId ?? ''),
    queryFn: () => listLeverFiles(leverId ?? ''),
    enabled: leverId !== null,
  })
}

function useRefetchAll() {
  const queryClient = useQueryClient()
  return () => queryClient.invalidateQueries({ queryKey: leverKeys.all })
}

export function useCreateLever() {
  const settled = useRefetchAll()
  return useMutation({ mutationFn: createLever, onSettled: settled })
}

export function useUpdateLever() {
  const settled = useRefetchAll()
  return useMutation({ mutationFn: ({ id, input }: { id: string; input: LeverInput }) => updateLever(id, input), onSettled: settled })
}

/** The inline category selector: the row changes at once and goes back if the server refuses. */
export function useSetCategory() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ id, category }: { id: string; category: string }) => setLeverCategory(id, { category }),
    ...optimistic<LeverEntry[], { id: string; category: string }>(queryClient, leverKeys.list, (rows, { id, category }) =>
      rows.map((r) => (r.id === id ? { ...r, category } : r)),
    ),
  })
}

export function useDeleteLever() {
  const settled = useRefetchAll()
  return useMutation({ mutationFn: deleteLever, onSettled: settled })
}

export function useDeleteLeverFile() {
  const settled = useRefetchAll()
  return useMutation({ mutationFn: deleteLeverFile, onSettled: settled })
}

export function useUploadLeverFiles() {
  const settled = useRefetchAll()
  return useMutation({ mutationFn: ({ id, files }: { id: string; files: File[] }) => uploadLeverFiles(id, files), onSettled: settled })
}
