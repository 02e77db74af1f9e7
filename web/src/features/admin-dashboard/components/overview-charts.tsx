import { Bar, BarChart, CartesianGrid, Cell, Pie, PieChart, ResponsiveContainer, Tooltip, XAxis, YAxis, type YAxisTickContentProps } from 'recharts'

import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card'
import { Spinner } from '@/components/ui/spinner'
import { formatEur, formatPercent } from '@/lib/format'

import type { OverviewBreakdown } from '../api'
import { barLabel, millionsTick, paletteColor } from '../utils/chart'

type Props = { data: OverviewBreakdown | undefined; isError: boolean }

/** The donut 'Optimization by Category'. */
export function CategoryChart({ data, isError }: Props) {
  const slices = data?.categories ?? []
  return (
    <Card>
      <CardHeader>
        <CardTitle>Optimization by Category</CardTitle>
      </CardHeader>
      <CardContent>
        {isError ? (
          <p className="py-12 text-center text-sm text-red-700">Failed to load category data</p>
        ) : !data ? (
          <Loading />
        ) : slices.length === 0 ? (
          <p className="py-12 text-center text-sm text-slate-500">No category data available</p>
        ) : (
          <div className="grid items-center gap-4 2xl:grid-cols-2">
            <figure aria-label="Optimization by Category chart" className="h-56">
              <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 260, height: 224 }}>
                <PieChart>
                  <Pie data={slices} dataKey="totalValue" nameKey="name" innerRadius="55%" outerRadius="85%" isAnimationActive={false}>
                    {slices.map((s, i) => (
                      <Cell key={s.name} fill={paletteColor(i)} />
                    ))}
                  </Pie>
                  <Tooltip formatter={(v, name) => [formatEur(Number(v)), String(name)]} />
                </PieChart>
              </ResponsiveContainer>
            </figure>
            <ul aria-label="Categories" className="space-y-2 text-sm">
              {slices.map((s, i) => (
                <li key={s.name} className="flex items-center gap-2">
                  <span className="size-3 shrink-0 rounded-sm" style={{ backgroundColor: paletteColor(i) }} aria-hidden="true" />
                  <span className="flex-1 text-slate-700">{s.name}</span>
                  <span className="font-medium text-slate-900 tabular-nums">{formatEur(s.totalValue)}</span>
                  <span className="w-16 text-right text-slate-500 tabular-nums">{formatPercent(s.percentage)}</span>
                </li>
              ))}
            </ul>
          </div>
        )}
      </CardContent>
    </Card>
  )
}

/** The horizontal bars 'Optimization Levers by Value' (names over 15 characters cut to 12 and an ellipsis). */
export function LeverBars({ data, isError }: Props) {
  const levers = (data?.levers ?? []).map((l) => ({ ...l, label: barLabel(l.name) }))
  return (
    <Card>
      <CardHeader>
        <CardTitle>Optimization Levers by Value</CardTitle>
      </CardHeader>
      <CardContent>
        {isError ? (
          <p className="py-12 text-center text-sm text-red-700">Failed to load lever data</p>
        ) : !data ? (
          <Loading />
        ) : levers.length === 0 ? (
          <p className="py-12 text-center text-sm text-slate-500">No lever data available</p>
        ) : (
          <figure aria-label="Optimization Levers by Value chart" style={{ height: Math.max(160, levers.length * 40 + 40) }}>
            <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 400, height: 240 }}>
              <BarChart data={levers} layout="vertical" margin={{ top: 4, right: 16, bottom: 4, left: 8 }}>
                <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" horizontal={false} />
                <XAxis type="number" tickFormatter={millionsTick} fontSize={12} tickLine={false} />
                <YAxis type="category" dataKey="label" width={110} fontSize={12} tickLine={false} tick={LeverTick} />
                <Tooltip formatter={(v) => [formatEur(Number(v)), 'Value']} labelFormatter={(_, p) => String(p?.[0]?.payload?.name ?? '')} />
                <Bar dataKey="value" isAnimationActive={false}>
                  {levers.map((l, i) => (
                    <Cell key={l.id} fill={paletteColor(i)} />
                  ))}
                </Bar>
              </BarChart>
            </ResponsiveContainer>
            <figcaption className="sr-only">{levers.map((l) => `${l.name} ${formatEur(l.value)}`).join(', ')}</figcaption>
          </figure>
        )}
      </CardContent>
    </Card>
  )
}

// One line per label, as the 15/12-character rule shortened it: recharts' own tick would wrap the
// label at its space whenever its measured width came out wider than the axis.
function LeverTick({ x, y, payload }: YAxisTickContentProps) {
  return (
    <text x={x} y={y} dy={4} textAnchor="end" fontSize={12} fill="#64748b">
      {String(payload?.value ?? '')}
    </text>
  )
}

function Loading() {
  return (
    <div className="flex h-56 items-center justify-center">
      <Spinner />
    </div>
  )
}
