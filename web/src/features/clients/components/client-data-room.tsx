import { ArrowLeft, FileText, FolderOpen, KanbanSquare, Pencil, RefreshCw, ShieldCheck, TriangleAlert, Users } from 'lucide-react'
import { useState, type ReactNode } from 'react'
import { Link } from 'react-router'
import { Area, AreaChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { Spinner } from '@/components/ui/spinner'
import { paths } from '@/config/paths'
import { errorMessage } from '@/lib/api-client'
import { cn } from '@/lib/cn'
import { formatBps, formatCount, formatDate, formatEur, formatMillionsEur, formatPercent, formatRatio } from '@/lib/format'

import { useClientOverview, useLiveAdminClients, type ClientOverview, type HistoryPoint } from '../api'
import { activityDetail, activityText, monthLabel } from '../utils/activity'
import { ClientFormDialog } from './client-form-dialog'

/**
 * The client data room (`/admin/client-data-room/{clientId}`, opened from a row's Open link):
 * the client's official figures, savings and their history, its latest files (File Management
 * filtered to it), its members with their client role, the board and report counts and its recent
 * activity from the audit trail; live as the client changes.
 */
export function ClientDataRoom({ clientId }: { clientId: string }) {
  const overview = useClientOverview(clientId)
  const [editing, setEditing] = useState(false)
  useLiveAdminClients()

  if (overview.isPending) {
    return (
      <div className="flex justify-center py-16">
        <Spinner label="Loading the client" />
      </div>
    )
  }
  if (overview.isError) {
    return (
      <div className="mx-auto max-w-7xl space-y-4">
        <BackLink />
        <Alert variant="destructive" className="items-center justify-between">
          <div>
            <p className="font-medium">Error loading the client</p>
            <p>{errorMessage(overview.error, 'There was a problem loading the client. Please try again.')}</p>
          </div>
          <Button variant="outline" size="sm" onClick={() => void overview.refetch()}>
            <RefreshCw /> Try Again
          </Button>
        </Alert>
      </div>
    )
  }
  const o = overview.data
  const c = o.client
  return (
    <div className="mx-auto max-w-7xl space-y-6">
      <BackLink />
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold tracking-tight text-slate-900">{c.name}</h1>
          <p className="mt-1 max-w-3xl text-sm text-slate-500">{c.description}</p>
          <p className="mt-1 text-xs text-slate-500">
            From {formatDate(c.fromDate)} · created {formatDate(c.createdAt)}
            {c.createdByName ? ` by ${c.createdByName}` : ''} · last updated {formatDate(c.lastUpdated)}
          </p>
        </div>
        <Button variant="outline" onClick={() => setEditing(true)}>
          <Pencil /> Edit Client
        </Button>
      </div>

      <section aria-label="Figures" className="grid gap-4 md:grid-cols-2 xl:grid-cols-4">
        <Figure label="CET Savings (RWAs)" value={formatEur(c.cet1SavingsRwas)} note={savingsSource(o)} />
        <Figure label="CET Savings (bps)" value={formatBps(c.cet1SavingsBps)} note={c.officialCet1Capital === null ? 'No official figures: no bps' : 'From the official figures'} />
        <Figure label="CET1 Capital" value={c.officialCet1Capital === null ? 'Not set' : formatEur(c.officialCet1Capital)} note={`Total RWAs: ${c.officialTotalRwas === null ? 'not set' : formatEur(c.officialTotalRwas)}`} />
        <Figure
          label="CET1 Capital Ratio"
          value={c.officialCet1Ratio === null ? 'Not set' : formatRatio(c.officialCet1Ratio)}
          note={c.computedCet1Ratio === null ? 'As reported' : `Capital / RWAs: ${formatRatio(c.computedCet1Ratio)}`}
        />
      </section>
      {c.ratioWarning ? (
        <Alert variant="info">
          <TriangleAlert />
          <p>{c.ratioWarning}</p>
        </Alert>
      ) : null}

      <section aria-label="Counts" className="grid gap-4 sm:grid-cols-2 xl:grid-cols-4">
        <Count icon={<FolderOpen />} label="Files" value={o.fileCount} note={`${formatCount(o.processedFileCount)} processed`} href={`${paths.admin.fileManagement.getHref()}?client=${encodeURIComponent(c.id)}`} linkText="Open in File Management" />
        <Count icon={<ShieldCheck />} label="Pending validations" value={o.pendingValidationCount} href={`${paths.client.files.getHref()}?tab=alerts&client=${encodeURIComponent(c.id)}`} linkText="Open the alerts" />
        <Count icon={<KanbanSquare />} label="Board tasks" value={o.taskCount} href={`${paths.client.board.getHref()}?client=${encodeURIComponent(c.id)}`} linkText="Open the task board" />
        <Count icon={<FileText />} label="Reports" value={o.reportCount} href={`${paths.client.reports.getHref()}?client=${encodeURIComponent(c.id)}`} linkText="Open the reports" />
      </section>

      <Card>
        <CardHeader>
          <CardTitle>Savings history</CardTitle>
          <CardDescription>RWA savings at the end of each month, from the savings sync.</CardDescription>
        </CardHeader>
        <CardContent>
          {o.history.length === 0 ? <p className="text-sm text-slate-500">No savings history yet.</p> : <HistoryChart points={o.history} />}
        </CardContent>
      </Card>

      <div className="grid gap-6 xl:grid-cols-2">
        <Card>
          <CardHeader>
            <CardTitle>Latest files</CardTitle>
            <CardDescription>
              <Link className="text-brand-700 underline" to={`${paths.admin.fileManagement.getHref()}?client=${encodeURIComponent(c.id)}`}>
                All {formatCount(o.fileCount)} files in File Management
              </Link>
            </CardDescription>
          </CardHeader>
          <CardContent>
            {o.files.length === 0 ? (
              <p className="text-sm text-slate-500">No files uploaded yet.</p>
            ) : (
              <table className="w-full text-left text-sm" aria-label="Latest files">
                <thead className="text-xs text-slate-500 uppercase">
                  <tr>
                    <th className="py-2">File</th>
                    <th className="py-2">Lever</th>
                    <th className="py-2">Uploaded</th>
                    <th className="py-2 text-right">Savings (RWAs)</th>
                  </tr>
                </thead>
                <tbody className="divide-y divide-slate-100">
                  {o.files.map((f) => (
                    <tr key={f.id}>
                      <td className="py-2 pr-2 break-all">
                        {f.name}
                        <span className={cn('ml-2 rounded-full px-2 py-0.5 text-xs', f.processed ? 'bg-emerald-100 text-emerald-800' : 'bg-amber-100 text-amber-800')}>
                          {f.processed ? 'Processed' : f.processingStatus.replaceAll('_', ' ')}
                        </span>
                      </td>
                      <td className="py-2 pr-2">{f.leverName ?? 'To be determined'}</td>
                      <td className="py-2 pr-2 whitespace-nowrap">{formatDate(f.uploadedAt)}</td>
                      <td className="py-2 text-right tabular-nums">{formatEur(f.savingsRwas)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </CardContent>
        </Card>

        <Card>
          <CardHeader>
            <CardTitle className="flex items-center gap-2">
              <Users className="size-4" /> Members ({o.members.length})
            </CardTitle>
            <CardDescription>
              Client roles are changed in <Link className="text-brand-700 underline" to={paths.admin.userManagement.getHref()}>User Management</Link>.
            </CardDescription>
          </CardHeader>
          <CardContent>
            {o.members.length === 0 ? (
              <p className="text-sm text-slate-500">No members.</p>
            ) : (
              <ul className="divide-y divide-slate-100" aria-label="Members">
                {o.members.map((m) => (
                  <li key={m.userId} className="flex items-center justify-between gap-3 py-2 text-sm">
                    <div className="min-w-0">
                      <p className="truncate font-medium text-slate-900">{`${m.name} ${m.lastName}`.trim() || m.email}</p>
                      <p className="truncate text-xs text-slate-500">{m.email}</p>
                    </div>
                    <div className="flex shrink-0 gap-1.5 text-xs">
                      <span className="rounded-full bg-slate-100 px-2 py-0.5 text-slate-700 capitalize">{m.role}</span>
                      <span className={cn('rounded-full px-2 py-0.5 capitalize', m.clientRole === 'member' ? 'bg-slate-50 text-slate-500' : 'bg-brand-100 text-brand-800')}>
                        Client {m.clientRole}
                      </span>
                    </div>
                  </li>
                ))}
              </ul>
            )}
          </CardContent>
        </Card>
      </div>

      <Card>
        <CardHeader>
          <CardTitle>Recent activity</CardTitle>
          <CardDescription>The latest changes of the client, its files, runs, reports and tasks, from the audit trail.</CardDescription>
        </CardHeader>
        <CardContent>
          {o.activity.length === 0 ? (
            <p className="text-sm text-slate-500">No activity recorded yet.</p>
          ) : (
            <ol className="space-y-2" aria-label="Recent activity">
              {o.activity.map((a, i) => {
                const detail = activityDetail(a)
                return (
                  <li key={`${a.at}-${i}`} className="flex flex-wrap items-baseline gap-x-2 text-sm">
                    <span className="w-28 shrink-0 text-xs text-slate-500">{formatDate(a.at)}</span>
                    <span className="font-medium text-slate-800">{activityText(a)}</span>
                    {detail ? <span className="text-slate-600">{detail}</span> : null}
                    <span className="text-xs text-slate-500">{a.actorName ? `by ${a.actorName}` : ''}</span>
                  </li>
                )
              })}
            </ol>
          )}
        </CardContent>
      </Card>

      <ClientFormDialog open={editing} onOpenChange={setEditing} client={c} />
    </div>
  )
}

function BackLink() {
  return (
    <Link to={paths.admin.clients.getHref()} className="inline-flex items-center gap-1 text-sm text-slate-600 hover:text-slate-900">
      <ArrowLeft className="size-4" /> Back to Clients
    </Link>
  )
}

function savingsSource(o: ClientOverview): string {
  if (o.client.fileSumRwas > 0) return `The sum of ${formatCount(o.processedFileCount)} processed file(s)`
  if (o.client.manualSavingsRwas !== null) return 'Entered by an administrator'
  return 'No processed file yet'
}

function Figure({ label, value, note }: { label: string; value: string; note?: string }) {
  return (
    <Card className="p-5">
      <p className="text-sm text-slate-500">{label}</p>
      <p className="mt-1 text-2xl font-semibold text-slate-900 tabular-nums">{value}</p>
      {note ? <p className="mt-1 text-xs text-slate-500">{note}</p> : null}
    </Card>
  )
}

function Count({ icon, label, value, note, href, linkText }: { icon: ReactNode; label: string; value: number; note?: string; href: string; linkText: string }) {
  return (
    <Card className="p-5">
      <div className="flex items-center gap-2 text-sm text-slate-500 [&_svg]:size-4">
        {icon} {label}
      </div>
      <p className="mt-1 text-2xl font-semibold text-slate-900 tabular-nums">{formatCount(value)}</p>
      {note ? <p className="text-xs text-slate-500">{note}</p> : null}
      <Link to={href} className="mt-2 inline-block text-xs text-brand-700 underline">
        {linkText}
      </Link>
    </Card>
  )
}

function HistoryChart({ points }: { points: HistoryPoint[] }) {
  const data = points.map((p) => ({ label: monthLabel(p), rwas: p.totalRwas, bps: p.totalBps, growth: p.monthlyGrowthRate }))
  return (
    <figure aria-label="Savings history" className="h-72 w-full">
      <ResponsiveContainer width="100%" height="100%" initialDimension={{ width: 800, height: 288 }}>
        <AreaChart data={data} margin={{ top: 12, right: 16, bottom: 4, left: 8 }}>
          <defs>
            <linearGradient id="room-history-fill" x1="0" y1="0" x2="0" y2="1">
              <stop offset="5%" stopColor="#1d4ed8" stopOpacity={0.35} />
              <stop offset="95%" stopColor="#1d4ed8" stopOpacity={0.05} />
            </linearGradient>
          </defs>
          <CartesianGrid strokeDasharray="3 3" stroke="#e2e8f0" />
          <XAxis dataKey="label" tickLine={false} fontSize={12} />
          <YAxis tickFormatter={(v: number) => `${(v / 1e6).toLocaleString('es-ES', { maximumFractionDigits: 1 })} M€`} width={72} tickLine={false} fontSize={12} />
          <Tooltip
            formatter={(value, _name, item) => [
              `${formatMillionsEur(Number(value))} · ${formatBps((item.payload as { bps: number }).bps)} bps · ${formatPercent((item.payload as { growth: number }).growth, { signed: true })}`,
              'Savings',
            ]}
          />
          <Area type="monotone" dataKey="rwas" stroke="#1d4ed8" strokeWidth={2} fill="url(#room-history-fill)" isAnimationActive={false} />
        </AreaChart>
      </ResponsiveContainer>
      <figcaption className="sr-only">
        Savings from {monthLabel(points[0]!)} to {monthLabel(points[points.length - 1]!)}: {formatMillionsEur(points[points.length - 1]!.totalRwas)}
      </figcaption>
    </figure>
  )
}
