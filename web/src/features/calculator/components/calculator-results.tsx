import { useId, type ReactNode } from 'react'

import { Alert } from '@/components/ui/alert'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { Spinner } from '@/components/ui/spinner'
import { cn } from '@/lib/cn'
import { formatBps, formatPercent } from '@/lib/format'
import { cleanDecimalInput } from '@/lib/spanish-number'

import type { Calculation } from '../api'
import { YEARS, breakEvenText, formatMoney, type Controls } from '../utils/calculator'
import { CumulativeChart } from './cumulative-chart'
import { Slider } from './slider'

type Props = {
  calc: Calculation | undefined
  /** The server's refusal of the inputs, if any. */
  error: string | null
  /** A newer answer is on its way. */
  updating: boolean
  controls: Controls
  onChange: (patch: Partial<Controls>) => void
  /** Shown instead of the results while there is nothing to compute. */
  empty?: ReactNode
}

/** The results card: Optimization Summary, Scenario A and Scenario B, every figure from the server. */
export function CalculatorResults({ calc, error, updating, controls, onChange, empty }: Props) {
  const marginId = useId()
  return (
    <Card aria-busy={updating}>
      <CardHeader className="flex-row items-start justify-between gap-3">
        <div className="space-y-1.5">
          <CardTitle>Results</CardTitle>
          <CardDescription>What the optimisation does to the CET1 ratio, and what the capital it unlocks can earn.</CardDescription>
        </div>
        {updating ? <Spinner label="Updating results" className="text-slate-400" /> : null}
      </CardHeader>
      <CardContent className="space-y-6">
        {error ? (
          <Alert variant="destructive">
            <div>
              <p className="font-medium">The calculator cannot use these inputs</p>
              <p>{error}</p>
            </div>
          </Alert>
        ) : null}
        {!calc ? (
          error ? null : (empty ?? <p className="text-sm text-slate-500">Calculating...</p>)
        ) : (
          <>
            <section aria-labelledby={`${marginId}-summary`}>
              <h4 id={`${marginId}-summary`} className="mb-3 text-sm font-semibold tracking-wide text-slate-500 uppercase">
                Optimization Summary
              </h4>
              <dl className="grid gap-3 sm:grid-cols-2">
                <Figure label="New Total RWAs" value={formatMoney(calc.summary.newTotalRwas, calc.currency)} />
                <Figure label="Optimization (RWAs)" value={formatMoney(calc.summary.optimisedRwas, calc.currency)} />
                <Figure label="Optimization (%)" value={formatPercent(calc.summary.optimisationPct)} />
                <Figure label="Optimization (bps)" value={`${formatBps(calc.summary.optimisationBps)} bps`} />
              </dl>
            </section>

            <section aria-labelledby={`${marginId}-a`} className="rounded-lg border border-slate-200 p-4">
              <h4 id={`${marginId}-a`} className="font-semibold text-slate-900">
                Scenario A: CET1 Capital Constant
              </h4>
              <p className="mb-3 text-sm text-slate-500">The same capital over fewer RWAs raises the CET1 ratio.</p>
              <dl className="grid gap-3 sm:grid-cols-3">
                <Figure label="Current CET1 Ratio" value={formatPercent(calc.scenarioA.currentRatioPct)} />
                <Figure label="Optimized CET1 Ratio" value={formatPercent(calc.scenarioA.optimisedRatioPct)} tone="good" />
                <Figure label="Improvement" value={`+${formatBps(calc.scenarioA.improvementBps)} bps`} tone="good" />
              </dl>
            </section>

            <section aria-labelledby={`${marginId}-b`} className="space-y-4 rounded-lg border border-slate-200 p-4">
              <div>
                <h4 id={`${marginId}-b`} className="font-semibold text-slate-900">
                  Scenario B: Unlock CET1 Capital
                </h4>
                <p className="text-sm text-slate-500">
                  At the current ratio the optimisation frees capital; 97 % of it is put to work at the net interest margin, less a variable fee of{' '}
                  {formatPercent(calc.scenarioB.variableFeePct)} in year 1.
                </p>
              </div>
              <dl className="grid gap-3 sm:grid-cols-2">
                <Figure label="Unlocked Capital" value={formatMoney(calc.scenarioB.unlockedCapital, calc.currency)} />
                <div className="rounded-lg bg-slate-50 p-3">
                  <dt>
                    <Label htmlFor={marginId} className="text-xs font-medium text-slate-500">
                      Net Interest Margin (%)
                    </Label>
                  </dt>
                  <dd className="mt-1">
                    <Input
                      id={marginId}
                      inputMode="decimal"
                      autoComplete="off"
                      className="h-8"
                      value={controls.marginText}
                      onChange={(e) => {
                        const next = cleanDecimalInput(e.target.value)
                        if (next !== null) onChange({ marginText: next })
                      }}
                    />
                  </dd>
                </div>
                <Figure label="First-Year Net Income Impact" value={formatMoney(calc.scenarioB.firstYearNetIncome, calc.currency)} tone={calc.scenarioB.firstYearNetIncome < 0 ? 'bad' : 'good'} />
                <Figure
                  label={`Cumulative Projected Income (${calc.scenarioB.projectionYears} years, after fee)`}
                  value={formatMoney(calc.scenarioB.cumulativeIncome, calc.currency)}
                  tone={calc.scenarioB.cumulativeIncome < 0 ? 'bad' : 'good'}
                />
              </dl>
              <div className="flex flex-wrap items-baseline justify-between gap-2">
                <p className="text-sm font-medium text-slate-800">Cumulative value</p>
                <p className="text-sm text-slate-600" data-testid="break-even">
                  Break-even: <span className="font-semibold text-emerald-700">{breakEvenText(calc.scenarioB.breakEvenYear, calc.scenarioB.projectionYears)}</span>
                </p>
              </div>
              <CumulativeChart calc={calc} currency={calc.currency} />
              <Slider
                label="Projection Years"
                value={controls.years}
                min={YEARS.min}
                max={YEARS.max}
                step={YEARS.step}
                display={`${controls.years} years`}
                onChange={(years) => onChange({ years })}
              />
            </section>
          </>
        )}
      </CardContent>
    </Card>
  )
}

function Figure({ label, value, tone }: { label: string; value: string; tone?: 'good' | 'bad' }) {
  return (
    <div className="rounded-lg bg-slate-50 p-3">
      <dt className="text-xs font-medium text-slate-500">{label}</dt>
      <dd className={cn('mt-1 text-lg font-semibold break-words tabular-nums', tone === 'good' ? 'text-emerald-700' : tone === 'bad' ? 'text-red-700' : 'text-slate-900')}>
        {value}
      </dd>
    </div>
  )
}
