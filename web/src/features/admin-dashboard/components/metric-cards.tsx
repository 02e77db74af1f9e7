import { Gauge, Landmark, Layers, TrendingUp, Users } from 'lucide-react'
import type { ComponentType } from 'react'

import { Card } from '@/components/ui/card'
import { cn } from '@/lib/cn'
import { formatBps, formatCount, formatDate, formatEur, formatPercent } from '@/lib/format'

import type { DashboardMetrics, Period } from '../api'

export const PERIODS: { value: Period; label: string }[] = [
  { value: 'all', label: 'All Time' },
  { value: 'year', label: 'This Year' },
  { value: 'quarter', label: 'This Quarter' },
  { value: 'month', label: 'This Month' },
]

type Metric = DashboardMetrics['capital']

/** What the figures of a period are: the savings now, or gained in the period. */
function caption(data: DashboardMetrics): string {
  const since = formatDate(data.since)
  return data.period === 'all' ? `Now, against ${since}` : `Gained since ${since}`
}

/** The four metric cards: figure, previous period's figure and the change between them. */
export function MetricCards({ data }: { data: DashboardMetrics | undefined }) {
  return (
    <section aria-label="Key metrics" aria-busy={!data} className="grid gap-4 sm:grid-cols-2 xl:grid-cols-4">
      <MetricCard icon={Landmark} title="Total Capital Optimized" metric={data?.capital} format={formatEur} caption={data && caption(data)} />
      <MetricCard
        icon={Gauge}
        title="Total bps Optimized"
        metric={data?.bps}
        format={(v) => `${formatBps(v)} bps`}
        caption={data && caption(data)}
      />
      <MetricCard icon={Layers} title="Levers Used" metric={data?.levers} format={formatCount} caption="Levers with savings" />
      <MetricCard icon={Users} title="Total Clients" metric={data?.clients} format={formatCount} caption="Clients on the platform" />
    </section>
  )
}

type MetricCardProps = {
  icon: ComponentType<{ className?: string }>
  title: string
  /** Undefined while loading. */
  metric: Metric | undefined
  format: (value: number) => string
  caption: string | undefined
}

function MetricCard({ icon: Icon, title, metric, format, caption }: MetricCardProps) {
  const change = metric?.changePct
  return (
    <Card className="p-5" role="group" aria-label={title}>
      <div className="flex items-start justify-between gap-3">
        <div>
          <p className="text-sm font-medium text-slate-500">{title}</p>
          {caption ? <p className="text-xs text-slate-400">{caption}</p> : null}
        </div>
        <span className="flex size-9 items-center justify-center rounded-lg bg-brand-50 text-brand-700">
          <Icon className="size-4" />
        </span>
      </div>
      {metric === undefined ? (
        <div className="mt-3 space-y-2" aria-label={`Loading ${title}`}>
          <div className="h-7 w-32 animate-pulse rounded bg-slate-100" />
          <div className="h-4 w-40 animate-pulse rounded bg-slate-100" />
        </div>
      ) : (
        <>
          <p className="mt-3 text-2xl font-bold tracking-tight text-slate-900" data-testid="metric-value">
            {format(metric.value)}
          </p>
          <p className="mt-1 text-xs text-slate-500">
            {change === undefined ? (
              <span>No previous period to compare with</span>
            ) : (
              <span className={cn('inline-flex items-center gap-1', change >= 0 ? 'text-emerald-700' : 'text-red-700')}>
                <TrendingUp className={cn('size-3.5', change < 0 && 'rotate-180')} aria-hidden="true" />
                {formatPercent(change, { signed: true })} from previous period
              </span>
            )}
          </p>
          <p className="mt-0.5 text-xs text-slate-400">Previous period: {format(metric.previous)}</p>
        </>
      )}
    </Card>
  )
}
