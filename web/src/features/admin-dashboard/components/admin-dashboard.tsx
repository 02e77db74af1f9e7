import { useQueryClient } from '@tanstack/react-query'
import { Download, RefreshCw } from 'lucide-react'
import { useState } from 'react'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { DropdownMenu, DropdownMenuContent, DropdownMenuItem, DropdownMenuTrigger } from '@/components/ui/dropdown-menu'
import { Select } from '@/components/ui/select'
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs'
import { errorMessage } from '@/lib/api-client'
import { cn } from '@/lib/cn'
import { toast } from '@/lib/toast'

import { dashboardKeys, downloadExport, exportHref, useDashboardMetrics, useLiveAdminDashboard, useOverview, type OverviewWindow, type Period } from '../api'
import { EvolutionChart } from './evolution-chart'
import { MetricCards, PERIODS } from './metric-cards'
import { CategoryChart, LeverBars } from './overview-charts'
import { ClientPerformanceTab, LeverPerformanceTab } from './performance-tables'

const WINDOWS: { value: OverviewWindow; label: string }[] = [
  { value: 'last30Days', label: 'Last 30 Days' },
  { value: 'last90Days', label: 'Last 90 Days' },
  { value: 'last12Months', label: 'Last 12 Months' },
  { value: 'allTime', label: 'All Time' },
]

/** The admin dashboard (`/admin/dashboard`): live figures of every client's savings. */
export function AdminDashboard() {
  useLiveAdminDashboard()
  const [period, setPeriod] = useState<Period>('all')
  const metrics = useDashboardMetrics(period)
  return (
    <div className="mx-auto max-w-7xl space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold tracking-tight text-slate-900">Admin Dashboard</h1>
          <p className="mt-1 text-sm text-slate-500">Capital optimised across all clients and levers.</p>
        </div>
        <div className="flex items-center gap-2">
          <Select aria-label="Period" className="w-40" value={period} onChange={(e) => setPeriod(e.target.value as Period)}>
            {PERIODS.map((p) => (
              <option key={p.value} value={p.value}>
                {p.label}
              </option>
            ))}
          </Select>
          <ExportMenu period={period} />
        </div>
      </div>
      {metrics.isError ? (
        <Alert variant="destructive" className="items-center justify-between">
          <div>
            <p className="font-medium">Error loading dashboard data</p>
            <p className="text-red-700/80">{metrics.error.message}</p>
          </div>
          <Button variant="outline" size="sm" onClick={() => metrics.refetch()} disabled={metrics.isFetching}>
            <RefreshCw className={cn(metrics.isFetching && 'animate-spin')} /> Retry
          </Button>
        </Alert>
      ) : (
        <MetricCards data={metrics.data} />
      )}
      <Tabs defaultValue="overview">
        <TabsList>
          <TabsTrigger value="overview">Overview</TabsTrigger>
          <TabsTrigger value="clients">Client Performance</TabsTrigger>
          <TabsTrigger value="levers">Lever Performance</TabsTrigger>
        </TabsList>
        <TabsContent value="overview">
          <Overview />
        </TabsContent>
        <TabsContent value="clients">
          <ClientPerformanceTab />
        </TabsContent>
        <TabsContent value="levers">
          <LeverPerformanceTab />
        </TabsContent>
      </Tabs>
    </div>
  )
}

function Overview() {
  const queryClient = useQueryClient()
  const [window, setWindow] = useState<OverviewWindow>('last30Days')
  const overview = useOverview(window)
  const [refreshing, setRefreshing] = useState(false)
  const refresh = async () => {
    setRefreshing(true)
    try {
      await queryClient.refetchQueries({ queryKey: dashboardKeys.all, type: 'active' })
    } finally {
      setRefreshing(false)
    }
  }
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 className="text-lg font-semibold text-slate-900">Capital Optimization Overview</h2>
        <div className="flex items-center gap-2">
          <Select aria-label="Overview period" className="h-9 w-40" value={window} onChange={(e) => setWindow(e.target.value as OverviewWindow)}>
            {WINDOWS.map((w) => (
              <option key={w.value} value={w.value}>
                {w.label}
              </option>
            ))}
          </Select>
          <Button variant="outline" size="sm" className="h-9" onClick={() => void refresh()} disabled={refreshing}>
            <RefreshCw className={cn(refreshing && 'animate-spin')} /> Refresh
          </Button>
        </div>
      </div>
      <EvolutionChart />
      {overview.data?.since ? (
        <p className="text-xs text-slate-500">
          Category and lever charts: savings gained since the end of {overview.data.since.slice(0, 7)} (the savings history is kept by month).
        </p>
      ) : null}
      <div className="grid gap-4 lg:grid-cols-2">
        <CategoryChart data={overview.data} isError={overview.isError} />
        <LeverBars data={overview.data} isError={overview.isError} />
      </div>
    </div>
  )
}

function ExportMenu({ period }: { period: Period }) {
  const run = (format: 'xlsx' | 'csv' | 'pdf') =>
    downloadExport(exportHref(period, format))
      .then(() => toast.success('Export Complete'))
      .catch((e: unknown) =>
        toast.error('Export Failed', errorMessage(e, format === 'pdf' ? 'Failed to generate PDF report' : 'Unable to export the dashboard. Please try again.')),
      )
  return (
    <DropdownMenu>
      <DropdownMenuTrigger asChild>
        <Button variant="outline">
          <Download /> Export
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent align="end">
        <DropdownMenuItem onSelect={() => void run('xlsx')}>Excel (XLSX)</DropdownMenuItem>
        <DropdownMenuItem onSelect={() => void run('csv')}>CSV</DropdownMenuItem>
        <DropdownMenuItem onSelect={() => void run('pdf')}>PDF</DropdownMenuItem>
      </DropdownMenuContent>
    </DropdownMenu>
  )
}
