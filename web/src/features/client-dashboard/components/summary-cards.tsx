import { Gauge, Landmark, Layers, TrendingUp } from 'lucide-react'
import type { ComponentType, ReactNode } from 'react'

import { Card } from '@/components/ui/card'
import { cn } from '@/lib/cn'
import { formatBpsUnit, formatCount, formatEur, formatPercent } from '@/lib/format'

import type { ClientDashboard } from '../api'

/** The client's headline figures: RWA and bps totals, the change since last month, levers in use. */
export function SummaryCards({ data }: { data: ClientDashboard | undefined }) {
  const change = data?.changePct
  const inUse = data?.levers.filter((l) => l.value > 0).length
  return (
    <section aria-label="Savings summary" aria-busy={!data} className="grid gap-4 sm:grid-cols-2 xl:grid-cols-4">
      <SummaryCard icon={Landmark} title="Total RWA Savings" value={data && formatEur(data.totalRwas)} />
      <SummaryCard icon={Gauge} title="CET1 Savings" value={data && formatBpsUnit(data.totalBps)} />
      <SummaryCard
        icon={TrendingUp}
        title="Change from Previous Month"
        value={data && (change === undefined ? '—' : formatPercent(change, { signed: true }))}
        detail={data && `End of last month: ${formatEur(data.previousMonthRwas)}`}
        tone={change === undefined ? undefined : change >= 0 ? 'up' : 'down'}
      />
      <SummaryCard icon={Layers} title="Levers in Use" value={inUse === undefined ? undefined : formatCount(inUse)} />
    </section>
  )
}

type Props = {
  icon: ComponentType<{ className?: string }>
  title: string
  value: string | undefined
  detail?: ReactNode
  tone?: 'up' | 'down'
}

function SummaryCard({ icon: Icon, title, value, detail, tone }: Props) {
  return (
    <Card className="p-5" role="group" aria-label={title}>
      <div className="flex items-start justify-between gap-3">
        <p className="text-sm font-medium text-slate-500">{title}</p>
        <span className="flex size-9 items-center justify-center rounded-lg bg-brand-50 text-brand-700">
          <Icon className="size-4" />
        </span>
      </div>
      {value === undefined ? (
        <div className="mt-3 h-7 w-32 animate-pulse rounded bg-slate-100" aria-label={`Loading ${title}`} />
      ) : (
        <>
          <p
            className={cn('mt-3 text-2xl font-bold tracking-tight text-slate-900', tone === 'up' && 'text-emerald-700', tone === 'down' && 'text-red-700')}
            data-testid="summary-value"
          >
            {value}
          </p>
          {detail ? <p className="mt-1 text-xs text-slate-500">{detail}</p> : null}
        </>
      )}
    </Card>
  )
}
