import { Area, AreaChart, CartesianGrid, ReferenceDot, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts'

import type { Calculation, Currency } from '../api'
import { breakEvenText, formatMillions, formatMoney } from '../utils/calculator'

type Point = { year: number; value: number }

/** The cumulative value year by year: year 0 is the fee paid before any income. */
export function chartPoints(calc: Calculation): Point[] {
  return [{ year: 0, value: -calc.scenarioB.variableFee }, ...calc.scenarioB.years.map((y) => ({ year: y.year, value: y.cumulativeValue }))]
}

/** Scenario B's cumulative-value area chart with its break-even marker (y axis in millions). */
export function CumulativeChart({ calc, currency }: { calc: Calculation; currency: Currency }) {
  const points = chartPoints(calc)
  const breakEven = calc.scenarioB.breakEvenYear
  return (
    <figure aria-label="Cumulative value" className="h-64 w-full">
      <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 600, height: 256 }}>
        <AreaChart data={points} margin={{ top: 16, right: 16, bottom: 4, left: 8 }}>
          <defs>
            <linearGradient id="cumulative-fill" x1="0" y1="0" x2="0" y2="1">
              <stop offset="5%" stopColor="#1d4ed8" stopOpacity={0.35} />
              <stop offset="95%" stopColor="#1d4ed8" stopOpacity={0.05} />
            </linearGradient>
          </defs>
          <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
          <XAxis dataKey="year" type="number" domain={[0, calc.scenarioB.projectionYears]} allowDecimals={false} tickLine={false} fontSize={12} />
          <YAxis tickFormatter={formatMillions} width={64} tickLine={false} fontSize={12} />
          <Tooltip
            formatter={(value) => [formatMoney(Number(value), currency), 'Cumulative value']}
            labelFormatter={(label) => `Year ${label}`}
          />
          <ReferenceLine y={0} stroke="#64748b" />
          <Area type="monotone" dataKey="value" stroke="#1d4ed8" strokeWidth={2} fill="url(#cumulative-fill)" isAnimationActive={false} />
          {breakEven !== null && breakEven > 0 ? (
            <>
              <ReferenceLine x={breakEven} stroke="#059669" strokeDasharray="4 4" label={{ value: 'Break-even', position: 'top', fill: '#047857', fontSize: 12 }} />
              <ReferenceDot x={breakEven} y={0} r={5} fill="#059669" stroke="white" />
            </>
          ) : null}
        </AreaChart>
      </ResponsiveContainer>
      <figcaption className="sr-only">
        Cumulative value over {calc.scenarioB.projectionYears} years; break-even: {breakEvenText(breakEven, calc.scenarioB.projectionYears)}
      </figcaption>
    </figure>
  )
}
