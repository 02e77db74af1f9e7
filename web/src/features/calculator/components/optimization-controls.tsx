import { useId } from 'react'

import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs'
import { formatBps, formatPercent } from '@/lib/format'
import { digitsOnly } from '@/lib/spanish-number'

import type { Calculation } from '../api'
import { BY_BPS, BY_VALUE, PREDEFINED_BPS, formatMoney, type Controls } from '../utils/calculator'
import { Slider } from './slider'

type Props = {
  controls: Controls
  onChange: (patch: Partial<Controls>) => void
  /** The latest answer, for the values the other controls imply. */
  calc: Calculation | undefined
  disabled?: boolean
}

/**
 * Optimization Controls: the six predefined scenarios and the By Value (share of the total RWAs,
 * or an amount of RWAs typed in digits) and By BPS tabs.
 */
export function OptimizationControls({ controls, onChange, calc, disabled }: Props) {
  const manualId = useId()
  const percent = controls.valueMode === 'percent' ? controls.percent : (calc?.summary.optimisationPct ?? 0)
  const manual = controls.valueMode === 'rwas' ? controls.rwasDigits : calc ? String(Math.round(calc.summary.optimisedRwas)) : ''
  const activeBps = controls.tab === 'bps' ? controls.bps : null
  return (
    <Card>
      <CardHeader>
        <CardTitle>Optimization Controls</CardTitle>
        <CardDescription>Choose a predefined scenario or set the optimisation by value or in basis points.</CardDescription>
      </CardHeader>
      <CardContent className="space-y-5">
        <div>
          <p className="mb-2 text-sm font-medium text-slate-800">Predefined scenarios</p>
          <div className="grid grid-cols-3 gap-2 sm:grid-cols-6" role="group" aria-label="Predefined scenarios">
            {PREDEFINED_BPS.map((bps) => (
              <Button
                key={bps}
                variant={activeBps === bps ? 'default' : 'outline'}
                size="sm"
                aria-pressed={activeBps === bps}
                disabled={disabled}
                onClick={() => onChange({ tab: 'bps', bps })}
              >
                {bps} bps
              </Button>
            ))}
          </div>
        </div>
        <Tabs value={controls.tab} onValueChange={(tab) => onChange({ tab: tab as Controls['tab'] })}>
          <TabsList className="grid w-full grid-cols-2">
            <TabsTrigger value="value" disabled={disabled}>
              By Value
            </TabsTrigger>
            <TabsTrigger value="bps" disabled={disabled}>
              By BPS
            </TabsTrigger>
          </TabsList>
          <TabsContent value="value" className="space-y-5">
            <Slider
              label="Optimization (% of Total RWAs)"
              value={percent}
              min={BY_VALUE.min}
              max={BY_VALUE.max}
              step={BY_VALUE.step}
              display={formatPercent(percent)}
              disabled={disabled}
              onChange={(v) => onChange({ valueMode: 'percent', percent: Math.round(v * 10) / 10 })}
            />
            <div className="space-y-1.5">
              <Label htmlFor={manualId}>Optimized RWAs</Label>
              <Input
                id={manualId}
                inputMode="numeric"
                autoComplete="off"
                value={manual}
                disabled={disabled}
                onChange={(e) => onChange({ valueMode: 'rwas', rwasDigits: digitsOnly(e.target.value) })}
              />
              <p className="text-xs text-slate-500">Digits only. {calc ? formatMoney(calc.summary.optimisedRwas, calc.currency) : ''}</p>
            </div>
          </TabsContent>
          <TabsContent value="bps">
            <Slider
              label="Optimization (bps)"
              value={controls.bps}
              min={BY_BPS.min}
              max={BY_BPS.max}
              step={BY_BPS.step}
              display={`${formatBps(controls.bps)} bps`}
              disabled={disabled}
              onChange={(v) => onChange({ bps: Math.round(v * 2) / 2 })}
            />
          </TabsContent>
        </Tabs>
      </CardContent>
    </Card>
  )
}
