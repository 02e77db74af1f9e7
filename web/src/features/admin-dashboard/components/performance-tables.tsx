import { Search } from 'lucide-react'
import { useEffect, useMemo, useState } from 'react'

import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { DataTable, dataTableColumns } from '@/components/ui/data-table'
import { Input } from '@/components/ui/input'
import { Spinner } from '@/components/ui/spinner'
import { cn } from '@/lib/cn'
import { formatBps, formatCount, formatEur, formatPercent, formatRatio } from '@/lib/format'

import { useClientLevers, useClientPerformance, useLeverPerformance, type ClientPerformance, type LeverSummary } from '../api'

const SEARCH_DEBOUNCE_MS = 300

/** Client Performance: a searchable table; a row opens that client's Optimization Levers Breakdown. */
export function ClientPerformanceTab() {
  const [text, setText] = useState('')
  const [search, setSearch] = useState('')
  const [selected, setSelected] = useState<ClientPerformance | null>(null)
  useEffect(() => {
    const t = setTimeout(() => setSearch(text.trim()), SEARCH_DEBOUNCE_MS)
    return () => clearTimeout(t)
  }, [text])
  const clients = useClientPerformance(search)
  const rows = useMemo(() => clients.data ?? [], [clients.data])
  const col = dataTableColumns<ClientPerformance>()
  const columns = [
    col.accessor('client', { header: 'Client' }),
    col.accessor((r) => r.cet1Capital ?? null, { id: 'cet1Capital', header: 'CET1 Capital', cell: (c) => formatEur(c.row.original.cet1Capital) }),
    col.accessor((r) => r.cet1Ratio ?? null, { id: 'cet1Ratio', header: 'CET1 Capital Ratio', cell: (c) => formatRatio(c.row.original.cet1Ratio) }),
    col.accessor('optimizedValue', {
      header: 'Capital Optimized (RWAs)',
      cell: (c) => <span className="tabular-nums">{formatEur(c.row.original.optimizedValue)}</span>,
    }),
    col.accessor('bpsValue', { header: 'Capital Optimized (bps)', cell: (c) => <span className="tabular-nums">{formatBps(c.row.original.bpsValue)}</span> }),
    col.accessor('levers', { header: 'Levers Used', cell: (c) => formatCount(c.row.original.levers) }),
  ]
  return (
    <div className="space-y-4">
      <Card>
        <CardHeader className="flex-row flex-wrap items-center justify-between gap-3">
          <div>
            <CardTitle>Client Performance</CardTitle>
            <CardDescription>Select a client to see its optimization levers.</CardDescription>
          </div>
          <div className="relative w-full max-w-xs">
            <Search className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-slate-400" aria-hidden="true" />
            <Input aria-label="Search clients" placeholder="Search clients..." className="pl-9" value={text} onChange={(e) => setText(e.target.value)} />
          </div>
        </CardHeader>
        <CardContent>
          {clients.isError ? (
            <p className="py-8 text-center text-sm text-red-700">Failed to load client performance data</p>
          ) : !clients.data ? (
            <div className="flex h-32 items-center justify-center">
              <Spinner />
            </div>
          ) : (
            <DataTable
              label="Client Performance"
              columns={columns}
              data={rows}
              getRowId={(r) => r.clientId}
              empty="No clients found"
              onRowClick={(r) => setSelected(r)}
            />
          )}
        </CardContent>
      </Card>
      {selected ? <ClientLevers client={selected} /> : null}
    </div>
  )
}

function ClientLevers({ client }: { client: ClientPerformance }) {
  const levers = useClientLevers(client.clientId)
  return (
    <Card role="region" aria-label="Optimization Levers Breakdown">
      <CardHeader>
        <CardTitle>Optimization Levers Breakdown</CardTitle>
        <CardDescription>{client.client}</CardDescription>
      </CardHeader>
      <CardContent>
        {levers.isError ? (
          <p className="text-sm text-red-700">Failed to load lever data</p>
        ) : !levers.data ? (
          <Spinner />
        ) : levers.data.length === 0 ? (
          <p className="py-4 text-center text-sm text-slate-500">No optimization levers found for this client</p>
        ) : (
          <table className="w-full text-sm">
            <thead>
              <tr className="border-b border-slate-200 text-left text-slate-500">
                <th className="py-2 font-medium">Name</th>
                <th className="py-2 font-medium">Category</th>
                <th className="py-2 text-right font-medium">Value</th>
              </tr>
            </thead>
            <tbody>
              {levers.data.map((l) => (
                <tr key={l.id} className="border-b border-slate-100 last:border-0">
                  <td className="py-2 text-slate-900">{l.name}</td>
                  <td className="py-2 text-slate-600">{l.category}</td>
                  <td className="py-2 text-right tabular-nums">{formatEur(l.value)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </CardContent>
    </Card>
  )
}

/** Lever Performance: every lever's savings over all clients, with the change against last month. */
export function LeverPerformanceTab() {
  const levers = useLeverPerformance()
  const rows = useMemo(() => levers.data ?? [], [levers.data])
  const col = dataTableColumns<LeverSummary>()
  const columns = [
    col.accessor('name', { header: 'Lever' }),
    col.accessor('category', { header: 'Category' }),
    col.accessor('value', { header: 'CET1 savings (RWAs)', cell: (c) => <span className="tabular-nums">{formatEur(c.row.original.value)}</span> }),
    col.accessor((r) => r.changePct ?? null, {
      id: 'change',
      header: 'Change from previous month',
      cell: (c) => {
        const v = c.row.original.changePct
        if (v === undefined) return <span className="text-slate-400">{c.row.original.value > 0 ? 'New' : '—'}</span>
        return <span className={cn('tabular-nums', v >= 0 ? 'text-emerald-700' : 'text-red-700')}>{formatPercent(v, { signed: true })}</span>
      },
    }),
  ]
  return (
    <Card>
      <CardHeader>
        <CardTitle>Lever Performance</CardTitle>
        <CardDescription>Savings over all clients by lever.</CardDescription>
      </CardHeader>
      <CardContent>
        {levers.isError ? (
          <p className="py-8 text-center text-sm text-red-700">Failed to load lever data</p>
        ) : !levers.data ? (
          <div className="flex h-32 items-center justify-center">
            <Spinner />
          </div>
        ) : (
          <DataTable label="Lever Performance" columns={columns} data={rows} getRowId={(r) => r.id} empty="No levers found" />
        )}
      </CardContent>
    </Card>
  )
}
