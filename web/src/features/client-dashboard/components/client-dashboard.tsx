import { Building2, Download } from 'lucide-react'
import { useState } from 'react'
import { Area, AreaChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts'

import { ClientSwitcher } from '@/components/client-switcher'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { Dialog, DialogClose, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { Spinner } from '@/components/ui/spinner'
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs'
import { useClientId } from '@/hooks/use-client-id'
import { errorMessage } from '@/lib/api-client'
import { useAuthStore } from '@/lib/auth-store'
import { cn } from '@/lib/cn'
import { formatBps, formatDate, formatEur, formatPercent } from '@/lib/format'
import { toast } from '@/lib/toast'

import { downloadExport, exportHref, useClientDashboard, type ClientDashboard as Dashboard, type ExportFormat } from '../api'
import { IMPACT_LABEL } from '../utils/levers'
import { SummaryCards } from './summary-cards'

const millions = new Intl.NumberFormat('es-ES', { maximumFractionDigits: 1 })
const millionsTick = (v: number) => `${millions.format(v / 1e6)} M€`

/** 'Capital Optimization Dashboard' (`/client/dashboard`): the client's savings, live. */
export function ClientDashboard() {
  const user = useAuthStore((s) => s.user)
  const clientId = useClientId()
  const dashboard = useClientDashboard(clientId)
  const [exporting, setExporting] = useState(false)
  const fullName = user ? `${user.name} ${user.last_name}`.trim() || user.email : ''
  const clientName = clientId ? (dashboard.data?.clientName ?? user?.client?.name ?? '') : 'No Client'

  return (
    <div className="mx-auto max-w-7xl space-y-6">
      <div className="rounded-2xl bg-gradient-to-r from-brand-800 to-brand-600 p-6 text-white shadow-sm">
        <p className="text-2xl font-bold tracking-tight">Welcome {fullName}</p>
        <p className="mt-2 flex items-center gap-2 text-brand-100">
          <Building2 className="size-5" aria-hidden="true" />
          <span className="font-semibold text-white" data-testid="client-name">
            {clientName}
          </span>
          {clientId ? <span>· Capital Optimization Portal</span> : null}
        </p>
      </div>
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold tracking-tight text-slate-900">Capital Optimization Dashboard</h1>
          <p className="mt-1 text-sm text-slate-500">
            {dashboard.data ? `Savings last updated ${formatDate(dashboard.data.lastUpdated)}` : 'Your capital savings, live.'}
          </p>
        </div>
        <div className="flex items-center gap-2">
          {user?.role === 'admin' ? <ClientSwitcher currentName={dashboard.data?.clientName} /> : null}
          <Button variant="outline" onClick={() => setExporting(true)} disabled={!dashboard.data}>
            <Download /> Export
          </Button>
        </div>
      </div>
      {!clientId ? (
        <Alert>Your account is not linked to a client, so there are no savings to show.</Alert>
      ) : dashboard.isError ? (
        <Alert variant="destructive" className="items-center justify-between">
          <div>
            <p className="font-medium">Error loading dashboard data</p>
            <p>{errorMessage(dashboard.error, 'An unexpected error occurred')}</p>
          </div>
          <Button variant="outline" size="sm" onClick={() => dashboard.refetch()}>
            Retry
          </Button>
        </Alert>
      ) : (
        <>
          <SummaryCards data={dashboard.data} />
          <Tabs defaultValue="overview">
            <TabsList>
              <TabsTrigger value="overview">Overview</TabsTrigger>
              <TabsTrigger value="details">Details</TabsTrigger>
            </TabsList>
            <TabsContent value="overview">
              <MonthlyEvolution data={dashboard.data} />
            </TabsContent>
            <TabsContent value="details">
              <LeverDetails data={dashboard.data} />
            </TabsContent>
          </Tabs>
        </>
      )}
      {clientId && dashboard.data ? (
        <ExportDialog open={exporting} onOpenChange={setExporting} clientId={clientId} clientName={dashboard.data.clientName} />
      ) : null}
    </div>
  )
}

function MonthlyEvolution({ data }: { data: Dashboard | undefined }) {
  return (
    <Card>
      <CardHeader>
        <CardTitle>Monthly Evolution</CardTitle>
        <CardDescription>RWA savings at the end of each month.</CardDescription>
      </CardHeader>
      <CardContent>
        {!data ? (
          <div className="flex h-64 items-center justify-center">
            <Spinner />
          </div>
        ) : data.history.length === 0 ? (
          <p className="py-12 text-center text-sm text-slate-500">No savings history yet</p>
        ) : (
          <figure aria-label="Monthly evolution chart" className="h-72 w-full">
            <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 800, height: 288 }}>
              <AreaChart data={data.history} margin={{ top: 8, right: 16, bottom: 4, left: 8 }}>
                <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
                <XAxis dataKey="label" tickLine={false} fontSize={12} />
                <YAxis tickFormatter={millionsTick} width={72} tickLine={false} fontSize={12} />
                <Tooltip
                  formatter={(v, name) => (name === 'totalRwas' ? [formatEur(Number(v)), 'RWA savings'] : [formatBps(Number(v)), 'bps'])}
                />
                <Area type="monotone" dataKey="totalRwas" stroke="#1d4ed8" strokeWidth={2} fill="#1d4ed8" fillOpacity={0.15} isAnimationActive={false} />
              </AreaChart>
            </ResponsiveContainer>
            <figcaption className="sr-only">{data.history.map((h) => `${h.label} ${formatEur(h.totalRwas)}`).join(', ')}</figcaption>
          </figure>
        )}
      </CardContent>
    </Card>
  )
}

function LeverDetails({ data }: { data: Dashboard | undefined }) {
  return (
    <Card>
      <CardHeader>
        <CardTitle>Optimization Levers</CardTitle>
        <CardDescription>Each lever's savings now, against the end of last month.</CardDescription>
      </CardHeader>
      <CardContent>
        {!data ? (
          <Spinner />
        ) : (
          <table className="w-full text-sm" aria-label="Optimization levers">
            <thead>
              <tr className="border-b border-slate-200 text-left text-slate-500">
                <th className="py-2 font-medium">Lever</th>
                <th className="py-2 font-medium">Category</th>
                <th className="py-2 text-right font-medium">Value</th>
                <th className="py-2 text-right font-medium">Previous Month</th>
                <th className="py-2 text-right font-medium">Change</th>
                <th className="py-2 pl-4 font-medium">Impact</th>
              </tr>
            </thead>
            <tbody>
              {data.levers.map((l) => (
                <tr key={l.id} className="border-b border-slate-100 last:border-0">
                  <td className="py-2 text-slate-900">
                    <span title={l.description}>{l.name}</span>
                  </td>
                  <td className="py-2 text-slate-600">{l.category}</td>
                  <td className="py-2 text-right tabular-nums">{formatEur(l.value)}</td>
                  <td className="py-2 text-right text-slate-600 tabular-nums">{formatEur(l.previousValue)}</td>
                  <td className="py-2 text-right tabular-nums">
                    {l.changePct === undefined ? (
                      <span className="text-slate-400">{l.value > 0 ? 'New' : '—'}</span>
                    ) : (
                      <span className={cn(l.changePct >= 0 ? 'text-emerald-700' : 'text-red-700')}>{formatPercent(l.changePct, { signed: true })}</span>
                    )}
                  </td>
                  <td className="py-2 pl-4">
                    <span
                      className={cn(
                        'rounded-full px-2 py-0.5 text-xs font-medium',
                        l.impact === 'high' && 'bg-red-50 text-red-700',
                        l.impact === 'medium' && 'bg-amber-50 text-amber-700',
                        l.impact === 'low' && 'bg-emerald-50 text-emerald-700',
                      )}
                    >
                      {IMPACT_LABEL[l.impact]}
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </CardContent>
    </Card>
  )
}

type ExportProps = { open: boolean; onOpenChange: (open: boolean) => void; clientId: string; clientName: string }

function ExportDialog({ open, onOpenChange, clientId, clientName }: ExportProps) {
  const [format, setFormat] = useState<ExportFormat>('xlsx')
  const [busy, setBusy] = useState(false)
  const run = async () => {
    setBusy(true)
    try {
      await downloadExport(exportHref(clientId, format))
      toast.success('Export Complete')
      onOpenChange(false)
    } catch (e) {
      toast.error('Export Failed', errorMessage(e, format === 'pdf' ? 'Failed to generate PDF report' : 'Unable to export the dashboard. Please try again.'))
    } finally {
      setBusy(false)
    }
  }
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Export Dashboard</DialogTitle>
          <DialogDescription>The figures of {clientName}: totals, monthly evolution and levers.</DialogDescription>
        </DialogHeader>
        <fieldset className="space-y-2">
          <legend className="mb-1 text-sm font-medium text-slate-700">Format</legend>
          {(
            [
              ['xlsx', 'Excel (XLSX)'],
              ['csv', 'CSV'],
              ['pdf', 'PDF (A4 portrait)'],
            ] as const
          ).map(([value, label]) => (
            <label key={value} className="flex items-center gap-2 text-sm">
              <input type="radio" name="export-format" value={value} checked={format === value} onChange={() => setFormat(value)} />
              {label}
            </label>
          ))}
        </fieldset>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="outline">Cancel</Button>
          </DialogClose>
          <Button onClick={() => void run()} disabled={busy}>
            {busy ? <Spinner /> : <Download />} Export
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  )
}
