import type { ClientRef } from '@/api/types/ClientRef'
import { useQuery } from '@tanstack/react-query'

import { api } from './api-client'

/** Query keys of the client list. */
export const clientKeys = {
  all: ['clients'] as const,
  list: () => ['clients', 'list'] as const,
}

/**
 * `GET /api/clients`: the clients the caller may open (every client for an administrator), read
 * as `{id, name}` whatever else the rows carry, in name order.
 */
export async function listClients(): Promise<ClientRef[]> {
  const rows = await api.get<unknown>('/api/clients')
  if (!Array.isArray(rows)) return []
  return rows
    .filter((r): r is { id: unknown; name: unknown } => r !== null && typeof r === 'object' && 'id' in r && 'name' in r)
    .map((r) => ({ id: String(r.id), name: String(r.name) }))
    .sort((a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }))
}

/** The client list for the administrators' client switcher (not asked for anyone else). */
export function useClientList(enabled: boolean) {
  return useQuery({ queryKey: clientKeys.list(), queryFn: listClients, enabled, staleTime: 60_000, retry: false })
}
