import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query'

import type { ClientPerformance } from '@/api/types/ClientPerformance'
import type { DashboardMetrics } from '@/api/types/DashboardMetrics'
import type { Evolution } from '@/api/types/Evolution'
import type { EvolutionView } from '@/api/types/EvolutionView'
import type { LeverSummary } from '@/api/types/LeverSummary'
import type { LeverValue } from '@/api/types/LeverValue'
import type { OverviewBreakdown } from '@/api/types/OverviewBreakdown'
import type { OverviewWindow } from '@/api/types/OverviewWindow'
import type { Period } from '@/api/types/Period'
import { api, apiDownload } from '@/lib/api-client'
import { useRealtimeTopic } from '@/lib/realtime'

export type { ClientPerformance, DashboardMetrics, Evolution, EvolutionView, LeverSummary, LeverValue, OverviewBreakdown, OverviewWindow, Period }

/** The admin-wide dashboard topic: `savings.changed` of any client. */
export const DASHBOARD_TOPIC = 'admin:dashboard'

/** Query keys of the admin dashboard (admin-wide figures: no client). */
export const dashboardKeys = {
  all: ['admin', 'dashboard'] as const,
  metrics: (period: Period) => ['admin', 'dashboard', 'metrics', period] as const,
  evolution: (view: EvolutionView, year: number | null) => ['admin', 'dashboard', 'evolution', view, year] as const,
  overview: (window: OverviewWindow) => ['admin', 'dashboard', 'overview', window] as const,
  levers: () => ['admin', 'dashboard', 'levers'] as const,
  clients: (search: string) => ['admin', 'dashboard', 'clients', search] as const,
  clientLevers: (clientId: string) => ['admin', 'dashboard', 'client-levers', clientId] as const,
}

const enc = encodeURIComponent

export const getMetrics = (period: Period) => api.get<DashboardMetrics>(`/api/admin/dashboard/metrics?period=${period}`)
export const getEvolution = (view: EvolutionView, year: number | null) =>
  api.get<Evolution>(`/api/admin/dashboard/evolution?view=${view}${year === null ? '' : `&year=${year}`}`)
export const getOverview = (window: OverviewWindow) => api.get<OverviewBreakdown>(`/api/admin/dashboard/overview?window=${window}`)
export const getLeverPerformance = () => api.get<LeverSummary[]>('/api/admin/dashboard/levers')
export const getClientPerformance = (search: string) =>
  api.get<ClientPerformance[]>(`/api/admin/dashboard/clients${search ? `?search=${enc(search)}` : ''}`)
export const getClientLevers = (clientId: string) => api.get<LeverValue[]>(`/api/admin/dashboard/clients/${enc(clientId)}/levers`)

/** The address of the dashboard's export (an attachment). */
export const exportHref = (period: Period, format: 'xlsx' | 'csv' | 'pdf') => `/api/admin/dashboard/export?period=${period}&format=${format}`

/** Downloads the export (one request; a refusal is an `ApiError`), saved under the server's file name. */
export async function downloadExport(href: string): Promise<void> {
  await apiDownload(href, 'admin_dashboard')
}

/**
 * Keeps every figure of the dashboard live: a savings change of any client (or a reconnect)
 * refetches what the screen shows.
 */
export function useLiveAdminDashboard() {
  const queryClient = useQueryClient()
  const refetch = () => void queryClient.invalidateQueries({ queryKey: dashboardKeys.all })
  useRealtimeTopic(DASHBOARD_TOPIC, {
    onEvent: (frame) => {
      if (frame.type === 'savings.changed') refetch()
    },
    onResync: refetch,
  })
}

export function useDashboardMetrics(period: Period) {
  return useQuery({ queryKey: dashboardKeys.metrics(period), queryFn: () => getMetrics(period), placeholderData: keepPreviousData })
}

export function useEvolution(view: EvolutionView, year: number | null) {
  return useQuery({ queryKey: dashboardKeys.evolution(view, year), queryFn: () => getEvolution(view, year), placeholderData: keepPreviousData })
}

export function useOverview(window: OverviewWindow) {
  return useQuery({ queryKey: dashboardKeys.overview(window), queryFn: () => getOverview(window), placeholderData: keepPreviousData })
}

export function useLeverPerformance() {
  return useQuery({ queryKey: dashboardKeys.levers(), queryFn: getLeverPerformance })
}

export function useClientPerformance(search: string) {
  return useQuery({ queryKey: dashboardKeys.clients(search), queryFn: () => getClientPerformance(search), placeholderData: keepPreviousData })
}

export function useClientLevers(clientId: string | null) {
  return useQuery({
    queryKey: dashboardKeys.clientLevers(clientId ?? ''),
    queryFn: () => getClientLevers(clientId!),
    enabled: clientId !== null,
  })
}
