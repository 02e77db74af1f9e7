import { useQuery, useQueryClient } from '@tanstack/react-query'

import type { ClientDashboard } from '@/api/types/ClientDashboard'
import { api, apiDownload } from '@/lib/api-client'
import { useRealtimeTopic } from '@/lib/realtime'

export type { ClientDashboard }
export type LeverRow = ClientDashboard['levers'][number]

/** Query keys of the client dashboard; every key names the client. */
export const clientDashboardKeys = {
  dashboard: (clientId: string) => ['client-dashboard', clientId] as const,
}

const enc = encodeURIComponent

export const getClientDashboard = (clientId: string) => api.get<ClientDashboard>(`/api/dashboard?client_id=${enc(clientId)}`)

/** The realtime topic of a client's savings. */
export const savingsTopic = (clientId: string) => `client:${clientId}:savings`

export type ExportFormat = 'xlsx' | 'csv' | 'pdf'

/** The address of the dashboard's export (an attachment). */
export const exportHref = (clientId: string, format: ExportFormat) => `/api/dashboard/export?client_id=${enc(clientId)}&format=${format}`

/** Downloads the export (one request; a refusal is an `ApiError`), saved under the server's file name. */
export async function downloadExport(href: string): Promise<void> {
  await apiDownload(href, 'capital_optimization')
}

/** The client's dashboard figures, refetched when its savings change (and after a reconnect). */
export function useClientDashboard(clientId: string | null) {
  const queryClient = useQueryClient()
  const refetch = () => {
    if (clientId) void queryClient.invalidateQueries({ queryKey: clientDashboardKeys.dashboard(clientId) })
  }
  useRealtimeTopic(clientId ? savingsTopic(clientId) : null, {
    onEvent: (frame) => {
      if (frame.type === 'savings.changed') refetch()
    },
    onResync: refetch,
  })
  return useQuery({
    queryKey: clientDashboardKeys.dashboard(clientId ?? ''),
    queryFn: () => getClientDashboard(clientId!),
    enabled: clientId !== null,
  })
}
