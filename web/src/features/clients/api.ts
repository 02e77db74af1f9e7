import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import { api, apiRequest } from '@/lib/api-client'
import { useRealtimeTopic } from '@/lib/realtime'

import type { AdminClient } from '@/api/types/AdminClient'
import type { Calculation } from '@/api/types/Calculation'
import type { ClientInput } from '@/api/types/ClientInput'
import type { ClientOverview } from '@/api/types/ClientOverview'
import type { CreatedClient } from '@/api/types/CreatedClient'
import type { SavingsEdit } from '@/api/types/SavingsEdit'

// The Clients page's wire types are generated from the server (`web/src/api/types`).
export type { AdminClient } from '@/api/types/AdminClient'
export type { ClientInput } from '@/api/types/ClientInput'
export type { ClientOverview } from '@/api/types/ClientOverview'
export type { CreatedClient } from '@/api/types/CreatedClient'
export type { HistoryPoint } from '@/api/types/HistoryPoint'
export type { RoomActivity } from '@/api/types/RoomActivity'
export type { RoomFile } from '@/api/types/RoomFile'
export type { RoomMember } from '@/api/types/RoomMember'
export type { SavingsEdit } from '@/api/types/SavingsEdit'

/** The Filter menu's choices, as the server names them. */
export type ClientFilter = 'all' | 'mine' | 'shared' | 'recent'

/** Query keys of the Clients page and the data room (admin-wide: no client in the list's key). */
export const adminClientKeys = {
  all: ['admin-clients'] as const,
  list: (filter: ClientFilter, q: string) => ['admin-clients', 'list', filter, q] as const,
  overview: (id: string) => ['admin-clients', 'overview', id] as const,
  bps: (capital: number, rwas: number, savings: number) => ['admin-clients', 'bps', capital, rwas, savings] as const,
}

/** The Clients page's topic: clients created or edited, members changed. */
export const ADMIN_CLIENTS_TOPIC = 'admin:clients'
/** Savings changed anywhere (processing runs, the inline edit) reach this topic too. */
export const ADMIN_DASHBOARD_TOPIC = 'admin:dashboard'

const enc = encodeURIComponent

export function listParams(filter: ClientFilter, q: string): string {
  const p = new URLSearchParams()
  if (filter !== 'all') p.set('filter', filter)
  if (q.trim()) p.set('q', q.trim())
  const s = p.toString()
  return s ? `?${s}` : ''
}

export const listAdminClients = (filter: ClientFilter, q: string) => api.get<AdminClient[]>(`/api/admin/clients${listParams(filter, q)}`)
export const createClient = (input: ClientInput) => api.post<CreatedClient>('/api/admin/clients', input)
export const getClientOverview = (id: string) => api.get<ClientOverview>(`/api/admin/clients/${enc(id)}`)
export const updateClient = (id: string, input: ClientInput) => apiRequest<AdminClient>(`/api/admin/clients/${enc(id)}`, { method: 'PUT', body: input })
export const editClientSavings = (id: string, cet1SavingsRwas: number) =>
  apiRequest<SavingsEdit>(`/api/admin/clients/${enc(id)}/savings`, { method: 'PUT', body: { cet1SavingsRwas } })
/** The basis points of an RWA saving with given figures, from the server's one bps function (the admin calculator). */
export const previewBps = (cet1Capital: number, totalRwas: number, rwas: number) =>
  api.post<Calculation>('/api/admin/calculator', { cet1Capital, totalRwas, optimisation: { by: 'rwas', value: rwas } })

// Hooks.

export function useAdminClients(filter: ClientFilter, q: string) {
  return useQuery({ queryKey: adminClientKeys.list(filter, q), queryFn: () => listAdminClients(filter, q), retry: false })
}

export function useClientOverview(id: string) {
  return useQuery({ queryKey: adminClientKeys.overview(id), queryFn: () => getClientOverview(id) })
}

/** The bps a typed saving would show with the typed figures (null: nothing to compute yet). */
export function useBpsPreview(capital: number | null, rwas: number | null, savings: number | null) {
  const ready = capital !== null && rwas !== null && savings !== null && capital > 0 && rwas > capital && savings > 0 && savings < rwas
  return useQuery({
    queryKey: adminClientKeys.bps(capital ?? 0, rwas ?? 0, savings ?? 0),
    queryFn: () => previewBps(capital!, rwas!, savings!),
    enabled: ready,
    staleTime: Infinity,
    retry: false,
  })
}

/**
 * Keeps the Clients page and the data room live: a client created or edited, members changed
 * (`admin:clients`) or savings moved anywhere (`admin:dashboard`) reads them again.
 */
export function useLiveAdminClients() {
  const queryClient = useQueryClient()
  const refetch = () => void queryClient.invalidateQueries({ queryKey: adminClientKeys.all })
  useRealtimeTopic(ADMIN_CLIENTS_TOPIC, { onEvent: refetch, onResync: refetch })
  useRealtimeTopic(ADMIN_DASHBOARD_TOPIC, { onEvent: refetch, onResync: refetch })
}

function useInvalidate() {
  const queryClient = useQueryClient()
  return () => queryClient.invalidateQueries({ queryKey: adminClientKeys.all })
}

export function useCreateClient() {
  const invalidate = useInvalidate()
  return useMutation({ mutationFn: createClient, onSettled: invalidate })
}

export function useUpdateClient(id: string) {
  const invalidate = useInvalidate()
  return useMutation({ mutationFn: (input: ClientInput) => updateClient(id, input), onSettled: invalidate })
}

export function useEditSavings() {
  const invalidate = useInvalidate()
  return useMutation({ mutationFn: ({ id, rwas }: { id: string; rwas: number }) => editClientSavings(id, rwas), onSettled: invalidate })
}
