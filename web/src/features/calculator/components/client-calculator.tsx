import { useEffect, useState } from 'react'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { ClientSwitcher } from '@/components/client-switcher'
import { useClientId } from '@/hooks/use-client-id'
import { errorMessage } from '@/lib/api-client'
import { formatPercent } from '@/lib/format'
import { toast } from '@/lib/toast'

import { useCalculatorClient, useClientCalculation, useLiveCalculator } from '../api'
import { useDebouncedValue } from '../hooks/use-debounced-value'
import { CALCULATE_DEBOUNCE_MS, INITIAL_CONTROLS, formatMoney, inputsOf, type Controls } from '../utils/calculator'
import { CalculatorResults } from './calculator-results'
import { CalculatorHeader, FigureCard } from './calculator-layout'
import { OptimizationControls } from './optimization-controls'
import { SavedScenarios } from './saved-scenarios'

const TITLE = 'Capital Optimization Calculator'
const SUBTITLE = 'Create scenarios that show how capital optimization affects your CET1 ratio.'

/**
 * The client calculator (`/client/calculator`): the client's own official CET1 capital and total
 * RWAs, the Optimization Controls, the results from the server, and the client's saved scenarios
 * beside its real portfolio. Administrators choose the client with the switcher.
 */
export function ClientCalculator() {
  const clientId = useClientId()
  useLiveCalculator(clientId)
  const client = useCalculatorClient(clientId)
  const [controls, setControls] = useState<Controls>(INITIAL_CONTROLS)
  const inputs = useDebouncedValue(inputsOf(controls), CALCULATE_DEBOUNCE_MS)
  const usable = client.data !== undefined && client.data.figuresProblem === null
  const calc = useClientCalculation(usable ? clientId : null, usable ? inputs : null)
  const onChange = (patch: Partial<Controls>) => setControls((c) => ({ ...c, ...patch }))

  useEffect(() => {
    if (client.isError) toast.error('Error fetching client data', errorMessage(client.error, 'An unexpected error occurred'))
  }, [client.isError, client.error])

  if (!clientId) {
    return (
      <div className="mx-auto max-w-7xl space-y-4">
        <CalculatorHeader title={TITLE} description={SUBTITLE} aside={<ClientSwitcher />} />
        <p className="text-slate-600">No Client: your account is not linked to a client, so there are no figures to work with.</p>
      </div>
    )
  }

  const header = <CalculatorHeader title={TITLE} description={SUBTITLE} aside={<ClientSwitcher currentName={client.data?.clientName} />} />
  const problem = client.isError ? errorMessage(client.error, 'An unexpected error occurred') : (client.data?.figuresProblem ?? null)
  if (problem !== null) {
    return (
      <div className="mx-auto max-w-7xl space-y-6">
        {header}
        <Alert variant="destructive" className="items-center justify-between">
          <div>
            <p className="font-medium">Error loading client data</p>
            <p>{problem}</p>
          </div>
          {client.isError ? (
            <Button variant="outline" size="sm" onClick={() => void client.refetch()} disabled={client.isFetching}>
              Retry
            </Button>
          ) : null}
        </Alert>
      </div>
    )
  }

  const figures = client.data
  return (
    <div className="mx-auto max-w-7xl space-y-6">
      {header}
      <section aria-label="Client figures" aria-busy={!figures} className="grid gap-4 sm:grid-cols-3">
        <FigureCard label="CET1 Capital">{figures ? formatMoney(figures.cet1Capital) : '…'}</FigureCard>
        <FigureCard label="Total RWAs">{figures ? formatMoney(figures.totalRwas) : '…'}</FigureCard>
        <FigureCard label="CET1 Ratio" hint={figures?.rwasPerBp ? `${formatMoney(figures.rwasPerBp)} of RWAs = 1 bps` : undefined}>
          {figures ? formatPercent(figures.cet1RatioPct) : '…'}
        </FigureCard>
      </section>
      <div className="grid gap-6 lg:grid-cols-5">
        <div className="lg:col-span-2">
          <OptimizationControls controls={controls} onChange={onChange} calc={calc.data} disabled={!figures} />
        </div>
        <div className="lg:col-span-3">
          <CalculatorResults
            calc={calc.data}
            error={calc.isError ? errorMessage(calc.error, 'An unexpected error occurred') : null}
            updating={calc.isFetching}
            controls={controls}
            onChange={onChange}
          />
        </div>
      </div>
      <SavedScenarios clientId={clientId} inputs={calc.data && !calc.isError ? inputs : null} />
    </div>
  )
}
