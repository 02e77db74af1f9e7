import { Gauge, Landmark, Layers, RefreshCw, TrendingUp, Users } from 'lucide-react'
import type { ComponentType, ReactNode } from 'react'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card } from '@/components/ui/card'
import { cn } from '@/lib/cn'
import { formatBps, formatCount, formatEur, formatPercent } from '@/lib/format'

import { useDashboardMetrics, type DashboardMetrics } from '../api'

export function AdminDashboard() {
  const metrics = useDashboardMetrics()
  return (
    <div className="mx-auto max-w-7xl space-y-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight text-slate-900">Admin Dashboard</h1>
        <p className="mt-1 text-sm text-slate-500">Capital optimised across all clients and levers.</p>
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
    </div>
  )
}

function MetricCards({ data }: { data: DashboardMetrics | undefined }) {
  const change = data?.change_percentage ?? 0
  return (
    <section aria-label="Key metrics" aria-busy={!data} className="grid gap-4 sm:grid-cols-2 xl:grid-cols-4">
      <MetricCard
        icon={Landmark}
        title="Total Capital Optimized"
        value={data && formatEur(data.total_value)}
        detail={
          data && (
            <span className={cn('inline-flex items-center gap-1', change >= 0 ? 'text-emerald-700' : 'text-red-700')}>
              <TrendingUp className={cn('size-3.5', change < 0 && 'rotate-180')} aria-hidden="true" />
              {formatPercent(change, { signed: true })} from previous period
            </span>
          )
        }
      />
      <MetricCard
        icon={Gauge}
        title="Total bps Optimized"
        value={data && `${formatBps(data.total_bps)} bps`}
        detail={data && 'Basis points of CET1 capital'}
      />
      <MetricCard
        icon={Layers}
        title="Levers Used"
        value={data && formatCount(data.total_levers)}
        detail={data && `Across ${formatCount(data.total_projects)} ${data.total_projects === 1 ? 'project' : 'projects'}`}
      />
      <MetricCard
        icon={Users}
        title="Total Clients"
        value={data && formatCount(data.total_clients)}
      />
    </section>
  )
}

type MetricCardProps = {
  icon: ComponentType<{ className?: string }>
  title: string
  /** Undefined while loading. */
  value: string | undefined
  /** A line under the figure; none when the API has no figure for it. */
  detail?: ReactNode
}

function MetricCard({ icon: Icon, title, value, detail }: MetricCardProps) {
  return (
    <Card className="p-5">
      <div className="flex items-start justify-between gap-3">
        <p className="text-sm font-medium text-slate-500">{title}</p>
        <span className="flex size-9 items-center justify-center rounded-lg bg-brand-50 text-brand-700">
          <Icon className="size-4" />
        </span>
      </div>
      {value === undefined ? (
        <div className="mt-3 space-y-2" aria-label={`Loading ${title}`}>
          <div className="h-7 w-32 animate-pulse rounded bg-slate-100" />
          <div className="h-4 w-40 animate-pulse rounded bg-slate-100" />
        </div>
      ) : (
        <>
          <p className="mt-3 text-2xl font-bold tracking-tight text-slate-900">{value}</p>
          {detail ? <p className="mt-1 text-xs text-slate-500">{detail}</p> : null}
        </>
      )}
    </Card>
  )
}
