import { useId, useState } from 'react'

import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { ClientSwitcher } from '@/components/client-switcher'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { Select } from '@/components/ui/select'
import { useClientId } from '@/hooks/use-client-id'
import { errorMessage } from '@/lib/api-client'
import { EMPTY_VALUE, formatPercent } from '@/lib/format'
import { cleanSpanishAmount, formatSpanishAmount, parseSpanishAmount } from '@/lib/spanish-number'

import type { AdminCalculation } from '@/api/types/AdminCalculation'

import { useAdminCalculation, useCalculatorClient, useLiveCalculator, type CalculatorClient, type Currency } from '../api'
import { useDebouncedValue } from '../hooks/use-debounced-value'
import { CALCULATE_DEBOUNCE_MS, CURRENCIES, INITIAL_CONTROLS, formatMoney, inputsOf, type Controls } from '../utils/calculator'
import { CalculatorResults } from './calculator-results'
import { CalculatorHeader } from './calculator-layout'
import { OptimizationControls } from './optimization-controls'
import { SavedScenarios } from './saved-scenarios'

/** The figures typed in the admin calculator, and the client they were loaded from. */
type Figures = { clientId: string | null; capital: string; rwas: string }

function figuresOf(client: CalculatorClient): Figures {
  return { clientId: client.clientId, capital: formatSpanishAmount(client.cet1Capital), rwas: formatSpanishAmount(client.totalRwas) }
}

/**
 * The admin calculator (`/admin/calculator`): editable CET1 capital and total RWAs (loaded from the
 * client chosen with the switcher, in Spanish notation), the ratio and conversion factor the
 * server computes from them, the currency, the Optimization Controls and the results; the
 * figures and inputs can be saved as a scenario of the chosen client.
 */
export function AdminCalculator() {
  const clientId = useClientId()
  useLiveCalculator(clientId)
  const client = useCalculatorClient(clientId)
  const [typed, setTyped] = useState<Figures | null>(null)
  const [controls, setControls] = useState<Controls>(INITIAL_CONTROLS)
  const capitalId = useId()
  const rwasId = useId()
  const currencyId = useId()

  // The figures typed for this client, else the client's official ones.
  const figures: Figures =
    typed && typed.clientId === clientId ? typed : client.data && client.data.clientId === clientId ? figuresOf(client.data) : { clientId, capital: '', rwas: '' }
  const capital = parseSpanishAmount(figures.capital)
  const rwas = parseSpanishAmount(figures.rwas)
  const request: AdminCalculation | null =
    capital !== null && rwas !== null ? { cet1Capital: capital, totalRwas: rwas, ...inputsOf(controls) } : null
  const settled = useDebouncedValue(request, CALCULATE_DEBOUNCE_MS)
  const calc = useAdminCalculation(settled)
  const onChange = (patch: Partial<Controls>) => setControls((c) => ({ ...c, ...patch }))
  const edit = (patch: Partial<Figures>) => setTyped({ ...figures, ...patch, clientId })
  const result = request ? calc.data : undefined

  return (
    <div className="mx-auto max-w-7xl space-y-6">
      <CalculatorHeader
        title="Capital Optimization Calculator"
        description="Model how an RWA optimisation moves a bank's CET1 ratio and what the capital it unlocks can earn."
        aside={<ClientSwitcher currentName={client.data?.clientName} />}
      />
      <Card>
        <CardHeader>
          <CardTitle>Bank Figures</CardTitle>
          <CardDescription>
            {client.data?.figuresProblem
              ? client.data.figuresProblem
              : `Start from ${client.data?.clientName ?? 'the client'}'s official figures or type others; amounts in Spanish notation (1.234.567,89).`}
          </CardDescription>
        </CardHeader>
        <CardContent className="grid gap-4 sm:grid-cols-2 lg:grid-cols-5">
          <div className="space-y-1.5">
            <Label htmlFor={capitalId}>CET1 Capital</Label>
            <Input
              id={capitalId}
              inputMode="decimal"
              autoComplete="off"
              value={figures.capital}
              onChange={(e) => edit({ capital: cleanSpanishAmount(e.target.value) })}
              onBlur={() => edit({ capital: formatSpanishAmount(parseSpanishAmount(figures.capital)) })}
            />
          </div>
          <div className="space-y-1.5">
            <Label htmlFor={rwasId}>Total RWAs</Label>
            <Input
              id={rwasId}
              inputMode="decimal"
              autoComplete="off"
              value={figures.rwas}
              onChange={(e) => edit({ rwas: cleanSpanishAmount(e.target.value) })}
              onBlur={() => edit({ rwas: formatSpanishAmount(parseSpanishAmount(figures.rwas)) })}
            />
          </div>
          <ReadOnly label="CET1 Ratio" value={result ? formatPercent(result.cet1RatioPct) : EMPTY_VALUE} />
          <ReadOnly label="Conversion Factor (RWAs = 1 bps)" value={result ? formatMoney(result.rwasPerBp, result.currency) : EMPTY_VALUE} />
          <div className="space-y-1.5">
            <Label htmlFor={currencyId}>Currency</Label>
            <Select id={currencyId} value={controls.currency} onChange={(e) => onChange({ currency: e.target.value as Currency })}>
              {CURRENCIES.map((c) => (
                <option key={c.value} value={c.value}>
                  {c.label}
                </option>
              ))}
            </Select>
          </div>
        </CardContent>
      </Card>
      <div className="grid gap-6 lg:grid-cols-5">
        <div className="lg:col-span-2">
          <OptimizationControls controls={controls} onChange={onChange} calc={result} disabled={!request} />
        </div>
        <div className="lg:col-span-3">
          <CalculatorResults
            calc={result}
            error={request && calc.isError ? errorMessage(calc.error, 'An unexpected error occurred') : null}
            updating={calc.isFetching}
            controls={controls}
            onChange={onChange}
            empty={<p className="text-sm text-slate-500">Enter the CET1 capital and the total RWAs to calculate.</p>}
          />
        </div>
      </div>
      {clientId ? (
        <SavedScenarios
          clientId={clientId}
          inputs={
            settled && result && !calc.isError
              ? { optimisation: settled.optimisation, netInterestMarginPct: settled.netInterestMarginPct, projectionYears: settled.projectionYears, currency: settled.currency }
              : null
          }
          figures={settled ? { cet1Capital: settled.cet1Capital, totalRwas: settled.totalRwas } : null}
        />
      ) : null}
    </div>
  )
}

function ReadOnly({ label, value }: { label: string; value: string }) {
  const id = useId()
  return (
    <div className="space-y-1.5">
      <Label htmlFor={id}>{label}</Label>
      <Input id={id} readOnly value={value} />
    </div>
  )
}
