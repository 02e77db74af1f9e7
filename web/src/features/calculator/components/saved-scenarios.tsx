import { Save, Trash2 } from 'lucide-react'
import { useId, useState, type FormEvent } from 'react'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { errorMessage } from '@/lib/api-client'
import { formatBps, formatDate, formatPercent } from '@/lib/format'
import { toast } from '@/lib/toast'

import { useDeleteScenario, useSaveScenario, useScenarios, type Calculation, type SavedScenario, type ScenarioInputs } from '../api'
import { breakEvenText, formatMoney, optimisationText } from '../utils/calculator'

/** Scenarios shown side by side at most, besides the real portfolio. */
export const MAX_COMPARED = 4

type Props = {
  clientId: string
  /** The calculator's current inputs (null while they cannot be saved). */
  inputs: ScenarioInputs | null
  /** The admin calculator's figures; absent: the client's official figures. */
  figures?: { cet1Capital: number; totalRwas: number } | null
}

/**
 * Saved Scenarios: the current inputs saved under a name for the client, and the saved scenarios
 * compared side by side with the client's real portfolio (its processed files' savings).
 */
export function SavedScenarios({ clientId, inputs, figures }: Props) {
  const list = useScenarios(clientId)
  const save = useSaveScenario(clientId)
  const remove = useDeleteScenario(clientId)
  const [name, setName] = useState('')
  const [unselected, setUnselected] = useState<Set<string>>(new Set())
  const [toDelete, setToDelete] = useState<SavedScenario | null>(null)
  const nameId = useId()

  const canSave = list.data?.canSave ?? false
  const scenarios = list.data?.scenarios ?? []
  const compared = scenarios.filter((s) => !unselected.has(s.id)).slice(0, MAX_COMPARED)

  const onSave = (e: FormEvent) => {
    e.preventDefault()
    if (!inputs || name.trim() === '') return
    save.mutate(
      { clientId, name: name.trim(), ...inputs, ...(figures ?? {}) },
      {
        onSuccess: (s) => {
          toast.success('Scenario saved', `${s.name} was saved for ${list.data?.clientName ?? 'the client'}.`)
          setName('')
        },
        onError: (error) => toast.error('Scenario not saved', errorMessage(error, 'An unexpected error occurred')),
      },
    )
  }

  const onDelete = () => {
    if (!toDelete) return
    const target = toDelete
    remove.mutate(target.id, {
      onSuccess: () => toast.success('Scenario deleted', `${target.name} was deleted.`),
      onError: (error) => toast.error('Scenario not deleted', errorMessage(error, 'An unexpected error occurred')),
      onSettled: () => setToDelete(null),
    })
  }

  const toggle = (id: string) =>
    setUnselected((current) => {
      const next = new Set(current)
      if (next.has(id)) next.delete(id)
      else next.add(id)
      return next
    })

  return (
    <Card>
      <CardHeader>
        <CardTitle>Saved Scenarios</CardTitle>
        <CardDescription>
          Save the current inputs under a name and compare scenarios side by side with {list.data?.clientName ?? 'the client'}&apos;s real portfolio.
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-6">
        {list.isError ? (
          <Alert variant="destructive">
            <div>
              <p className="font-medium">Error loading scenarios</p>
              <p>{errorMessage(list.error, 'An unexpected error occurred')}</p>
            </div>
          </Alert>
        ) : null}
        {canSave ? (
          <form className="flex flex-wrap items-end gap-3" onSubmit={onSave}>
            <div className="min-w-60 flex-1 space-y-1.5">
              <Label htmlFor={nameId}>Scenario name</Label>
              <Input id={nameId} value={name} maxLength={100} placeholder="e.g. PSE remediation 2026" onChange={(e) => setName(e.target.value)} />
            </div>
            <Button type="submit" disabled={!inputs || name.trim() === '' || save.isPending}>
              <Save /> {save.isPending ? 'Saving...' : 'Save Scenario'}
            </Button>
          </form>
        ) : list.data ? (
          <p className="text-sm text-slate-500">Read-only access: you can compare the saved scenarios but not save or delete them.</p>
        ) : null}

        {list.data && scenarios.length === 0 ? <p className="text-sm text-slate-500">No saved scenarios yet.</p> : null}
        {scenarios.length > 0 ? (
          <ul className="divide-y divide-slate-100 rounded-lg border border-slate-200" aria-label="Saved scenarios">
            {scenarios.map((s) => (
              <li key={s.id} className="flex flex-wrap items-center gap-3 px-4 py-2.5">
                <input
                  type="checkbox"
                  className="size-4 accent-brand-700"
                  aria-label={`Compare ${s.name}`}
                  checked={compared.some((c) => c.id === s.id)}
                  disabled={!compared.some((c) => c.id === s.id) && compared.length >= MAX_COMPARED}
                  onChange={() => toggle(s.id)}
                />
                <div className="min-w-0 flex-1">
                  <p className="truncate font-medium text-slate-900">{s.name}</p>
                  <p className="text-xs text-slate-500">
                    {optimisationText(s.optimisation, s.currency)} · {s.createdByName ?? 'Unknown User'} · {formatDate(s.createdAt)}
                  </p>
                </div>
                {canSave ? (
                  <Button variant="ghost" size="icon" aria-label={`Delete ${s.name}`} title="Delete" onClick={() => setToDelete(s)}>
                    <Trash2 />
                  </Button>
                ) : null}
              </li>
            ))}
          </ul>
        ) : null}

        {list.data ? <Comparison portfolio={list.data.portfolio} scenarios={compared} /> : null}
      </CardContent>

      <Dialog open={toDelete !== null} onOpenChange={(open) => (open ? undefined : setToDelete(null))}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Delete scenario</DialogTitle>
            <DialogDescription>Are you sure you want to delete &quot;{toDelete?.name}&quot;? This action cannot be undone.</DialogDescription>
          </DialogHeader>
          <DialogFooter>
            <Button variant="outline" onClick={() => setToDelete(null)}>
              Cancel
            </Button>
            <Button variant="destructive" onClick={onDelete} disabled={remove.isPending}>
              {remove.isPending ? 'Deleting...' : 'Delete'}
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </Card>
  )
}

type Column = { key: string; title: string; subtitle: string; calc: Calculation | null; error: string | null }

const ROWS: { label: string; value: (c: Calculation) => string }[] = [
  { label: 'CET1 Capital', value: (c) => formatMoney(c.cet1Capital, c.currency) },
  { label: 'Total RWAs', value: (c) => formatMoney(c.totalRwas, c.currency) },
  { label: 'Optimized RWAs', value: (c) => formatMoney(c.summary.optimisedRwas, c.currency) },
  { label: 'Optimization (%)', value: (c) => formatPercent(c.summary.optimisationPct) },
  { label: 'Optimization (bps)', value: (c) => `${formatBps(c.summary.optimisationBps)} bps` },
  { label: 'Current CET1 Ratio', value: (c) => formatPercent(c.scenarioA.currentRatioPct) },
  { label: 'Optimized CET1 Ratio', value: (c) => formatPercent(c.scenarioA.optimisedRatioPct) },
  { label: 'Unlocked Capital', value: (c) => formatMoney(c.scenarioB.unlockedCapital, c.currency) },
  { label: 'Net Interest Margin', value: (c) => formatPercent(c.scenarioB.netInterestMarginPct) },
  { label: 'Projection Years', value: (c) => String(c.scenarioB.projectionYears) },
  { label: 'First-Year Net Income', value: (c) => formatMoney(c.scenarioB.firstYearNetIncome, c.currency) },
  { label: 'Cumulative Projected Income', value: (c) => formatMoney(c.scenarioB.cumulativeIncome, c.currency) },
  { label: 'Break-even', value: (c) => breakEvenText(c.scenarioB.breakEvenYear, c.scenarioB.projectionYears) },
]

function Comparison({ portfolio, scenarios }: { portfolio: { result: Calculation | null; error: string | null }; scenarios: SavedScenario[] }) {
  const columns: Column[] = [
    { key: 'portfolio', title: 'Real portfolio', subtitle: 'Savings of the processed files', calc: portfolio.result, error: portfolio.error },
    ...scenarios.map((s) => ({ key: s.id, title: s.name, subtitle: optimisationText(s.optimisation, s.currency), calc: s.result, error: s.error })),
  ]
  return (
    <div className="overflow-x-auto">
      <table className="w-full min-w-max border-collapse text-sm" aria-label="Scenario comparison">
        <thead>
          <tr className="border-b border-slate-200 text-left">
            <th scope="col" className="py-2 pr-4 font-medium text-slate-500">
              Scenario comparison
            </th>
            {columns.map((c) => (
              <th key={c.key} scope="col" className="px-3 py-2 align-bottom">
                <span className="block font-semibold text-slate-900">{c.title}</span>
                <span className="block text-xs font-normal text-slate-500">{c.subtitle}</span>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {ROWS.map((row) => (
            <tr key={row.label} className="border-b border-slate-100">
              <th scope="row" className="py-2 pr-4 text-left font-medium text-slate-600">
                {row.label}
              </th>
              {columns.map((c) => (
                <td key={c.key} className="max-w-72 px-3 py-2 text-slate-900 tabular-nums">
                  {c.calc ? row.value(c.calc) : row === ROWS[0] ? <span className="text-xs whitespace-normal text-slate-500">{c.error}</span> : '—'}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
