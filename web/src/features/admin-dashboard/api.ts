import type { AdminDashboardMetrics } from '@/api/types/AdminDashboardMetrics'
import { useQuery, useQueryClient } from '@tanstack/react-query'

import { api } from '@/lib/api-client'
import { useRealtimeTopic } from '@/lib/realtime'

/** The admin-wide dashboard topic: savings of any client. */
export const DASHBOARD_TOPIC = 'admin:dashboard'

/** Query keys of the admin dashboard (admin-wide figures: no client). */
export const dashboardKeys = {
  metrics: () => ['admin', 'dashboard', 'metrics'] as const,
}

/** The four headline figures, as plain numbers (64-bit counts arrive as JSON numbers). */
export type DashboardMetrics = { [K in keyof AdminDashboardMetrics]: number }

export async function getDashboardMetrics(): Promise<DashboardMetrics> {
  const raw = await api.get<AdminDashboardMetrics>('/api/admin/dashboard/metrics')
  return {
    total_value: Number(raw.total_value),
    previous_total: Number(raw.previous_total),
    change_percentage: Number(raw.change_percentage),
    total_bps: Number(raw.total_bps),
    total_levers: Number(raw.total_levers),
    total_clients: Number(raw.total_clients),
    total_projects: Number(raw.total_projects),
  }
}

/** The headline figures, refetched whenever a client's savings change anywhere (and after a resync). */
export function useDashboardMetrics() {
  const queryClient = useQueryClient()
  const refetch = () => queryClient.invalidateQueries({ queryKey: dashboardKeys.metrics() })
  useRealtimeTopic(DASHBOARD_TOPIC, {
    onEvent: (frame) => {
      if (frame.type === 'savings.changed') void refetch()
    },
    onResync: () => void refetch(),
  })
  return useQuery({ queryKey: dashboardKeys.metrics(), queryFn: getDashboardMetrics })
}
