import { useState } from 'react'
import { Area, AreaChart, Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts'

import { Button } from '@/components/ui/button'
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card'
import { Select } from '@/components/ui/select'
import { Spinner } from '@/components/ui/spinner'
import { cn } from '@/lib/cn'
import { formatEur } from '@/lib/format'

import { useEvolution, type EvolutionView } from '../api'
import { millionsTick } from '../utils/chart'

const VIEWS: { value: EvolutionView; label: string }[] = [
  { value: 'yearly', label: 'Yearly' },
  { value: 'monthly', label: 'Monthly' },
  { value: 'weekly', label: 'Weekly' },
]

type Mode = 'cumulative' | 'comparative'

/** 'Capital Optimization Evolution': yearly, monthly or weekly; cumulative or comparative; by year. */
export function EvolutionChart() {
  const [view, setView] = useState<EvolutionView>('monthly')
  const [mode, setMode] = useState<Mode>('cumulative')
  const [year, setYear] = useState<number | null>(null)
  const evolution = useEvolution(view, year)
  const data = evolution.data
  const shownYear = data?.year ?? year ?? new Date().getFullYear()
  const points = (data?.points ?? []).map((p) => ({ label: p.label, value: mode === 'cumulative' ? p.cumulative : p.change }))

  return (
    <Card>
      <CardHeader className="flex-row flex-wrap items-center justify-between gap-3">
        <CardTitle>Capital Optimization Evolution</CardTitle>
        <div className="flex flex-wrap items-center gap-2">
          <Toggle label="View" options={VIEWS} value={view} onChange={setView} />
          <Toggle
            label="Mode"
            options={[
              { value: 'cumulative', label: 'Cumulative' },
              { value: 'comparative', label: 'Comparative' },
            ]}
            value={mode}
            onChange={setMode}
          />
          {view !== 'weekly' ? (
            <Select aria-label="Year" className="h-9 w-28" value={shownYear} onChange={(e) => setYear(Number(e.target.value))}>
              {(data?.years ?? [shownYear]).map((y) => (
                <option key={y} value={y}>
                  {y}
                </option>
              ))}
            </Select>
          ) : null}
        </div>
      </CardHeader>
      <CardContent>
        {evolution.isError ? (
          <p className="py-16 text-center text-sm text-red-700">Error loading chart data</p>
        ) : !data ? (
          <div className="flex h-72 items-center justify-center">
            <Spinner />
          </div>
        ) : !data.hasData ? (
          <p className="py-16 text-center text-sm text-slate-500">
            No {view} data available for {shownYear}
          </p>
        ) : (
          <figure aria-label="Capital Optimization Evolution chart" className="h-72 w-full">
            <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 800, height: 288 }}>
              {mode === 'cumulative' ? (
                <AreaChart data={points} margin={{ top: 8, right: 16, bottom: 4, left: 8 }}>
                  <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
                  <XAxis dataKey="label" tickLine={false} fontSize={12} />
                  <YAxis tickFormatter={millionsTick} width={72} tickLine={false} fontSize={12} />
                  <Tooltip formatter={(v) => [formatEur(Number(v)), 'Capital optimized']} />
                  <Area type="monotone" dataKey="value" stroke="#1d4ed8" strokeWidth={2} fill="#1d4ed8" fillOpacity={0.15} isAnimationActive={false} />
                </AreaChart>
              ) : (
                <BarChart data={points} margin={{ top: 8, right: 16, bottom: 4, left: 8 }}>
                  <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
                  <XAxis dataKey="label" tickLine={false} fontSize={12} />
                  <YAxis tickFormatter={millionsTick} width={72} tickLine={false} fontSize={12} />
                  <Tooltip formatter={(v) => [formatEur(Number(v)), 'Gained in the period']} />
                  <Bar dataKey="value" fill="#059669" isAnimationActive={false} />
                </BarChart>
              )}
            </ResponsiveContainer>
            <figcaption className="sr-only">
              {mode === 'cumulative' ? 'Savings at the end of each period' : 'Savings gained in each period'}:{' '}
              {points.map((p) => `${p.label} ${formatEur(p.value)}`).join(', ')}
            </figcaption>
          </figure>
        )}
      </CardContent>
    </Card>
  )
}

type ToggleProps<T extends string> = {
  label: string
  options: { value: T; label: string }[]
  value: T
  onChange: (value: T) => void
}

function Toggle<T extends string>({ label, options, value, onChange }: ToggleProps<T>) {
  return (
    <div role="group" aria-label={label} className="inline-flex rounded-md border border-slate-200 bg-slate-50 p-0.5">
      {options.map((o) => (
        <Button
          key={o.value}
          type="button"
          size="sm"
          variant="ghost"
          aria-pressed={o.value === value}
          className={cn('h-8 px-3', o.value === value && 'bg-white text-slate-900 shadow-sm')}
          onClick={() => onChange(o.value)}
        >
          {o.label}
        </Button>
      ))}
    </div>
  )
}
