import { RefreshCw, RotateCcw, XCircle } from 'lucide-react'
import { useEffect, useMemo, useState } from 'react'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { DataTable, dataTableColumns, type DataTableColumn } from '@/components/ui/data-table'
import { Label } from '@/components/ui/label'
import { Select } from '@/components/ui/select'
import { errorMessage } from '@/lib/api-client'
import { useClientList } from '@/lib/clients-api'
import { cn } from '@/lib/cn'
import { formatBpsUnit, formatEur } from '@/lib/format'
import { toast } from '@/lib/toast'

import {
  FINAL_STATES,
  NO_RUN_FILTERS,
  useAdminRuns,
  useCancelRun,
  useRetryRun,
  type AdminRun,
  type RunFilters,
  type RunState,
} from '../api'
import { STAGE_LABEL, STATE_LABEL, formatDuration, runDuration } from '../utils/format'

const NO_ROWS: AdminRun[] = []

const STATE_TONE: Record<RunState, string> = {
  queued: 'bg-slate-100 text-slate-700',
  running: 'bg-blue-100 text-blue-800',
  completed: 'bg-emerald-100 text-emerald-800',
  failed: 'bg-red-100 text-red-800',
  pending_review: 'bg-amber-100 text-amber-800',
  cancelled: 'bg-slate-100 text-slate-500',
}

/** The current time, ticking every second while `active`. */
function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    if (!active) return
    const t = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(t)
  }, [active])
  return now
}

/**
 * Processing Runs (administrators): every client's runs, newest first, live from `admin:runs`;
 * filters by status and client (applied by the server), retry of a failed run and cancel of a
 * queued or running one.
 */
export function AdminRuns() {
  const [filters, setFilters] = useState<RunFilters>(NO_RUN_FILTERS)
  const runs = useAdminRuns(filters)
  const clients = useClientList(true)
  const retry = useRetryRun()
  const cancel = useCancelRun()
  const items = runs.data?.items ?? NO_ROWS
  const now = useNow(items.some((r) => r.run.state === 'running'))

  const onRetry = (r: AdminRun) =>
    retry.mutate(r.run.id, {
      onSuccess: () => toast.success('Run queued', `${r.fileName} will be processed again.`),
      onError: (e) => toast.error('Retry failed', errorMessage(e, 'The run could not be retried.')),
    })
  const onCancel = (r: AdminRun) =>
    cancel.mutate(r.run.id, {
      onSuccess: () => toast.success('Cancellation requested', `${r.fileName}: the run stops before writing anything.`),
      onError: (e) => toast.error('Cancel failed', errorMessage(e, 'The run could not be cancelled.')),
    })

  const columns = useMemo(() => runColumns(now, onRetry, onCancel), [now]) // eslint-disable-line react-hooks/exhaustive-deps

  const set = (patch: Partial<RunFilters>) => setFilters((f) => ({ ...f, ...patch, page: 1 }))
  const filtered = filters.status !== '' || filters.clientId !== ''

  return (
    <div className="mx-auto max-w-7xl space-y-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight text-slate-900">Processing Runs</h1>
        <p className="mt-1 text-sm text-slate-500">Every client&apos;s processing runs as they happen, newest first.</p>
      </div>
      <div className="flex flex-wrap items-end gap-4">
        <div className="w-56 space-y-1.5">
          <Label htmlFor="runs-status">Status</Label>
          <Select id="runs-status" value={filters.status} onChange={(e) => set({ status: e.target.value as RunFilters['status'] })}>
            <option value="">All statuses</option>
            {(Object.keys(STATE_LABEL) as RunState[]).map((s) => (
              <option key={s} value={s}>
                {STATE_LABEL[s]}
              </option>
            ))}
          </Select>
        </div>
        <div className="w-64 space-y-1.5">
          <Label htmlFor="runs-client">Client</Label>
          <Select id="runs-client" value={filters.clientId} onChange={(e) => set({ clientId: e.target.value })}>
            <option value="">All clients</option>
            {(clients.data ?? []).map((c) => (
              <option key={c.id} value={c.id}>
                {c.name}
              </option>
            ))}
          </Select>
        </div>
        {filtered ? (
          <Button variant="outline" onClick={() => setFilters(NO_RUN_FILTERS)}>
            Clear Filters
          </Button>
        ) : null}
      </div>
      {runs.isError ? (
        <Alert variant="destructive" className="items-center justify-between">
          <div>
            <p className="font-medium">Error loading processing runs</p>
            <p className="text-red-700/80">{runs.error.message}</p>
          </div>
          <Button variant="outline" size="sm" onClick={() => runs.refetch()} disabled={runs.isFetching}>
            <RefreshCw className={cn(runs.isFetching && 'animate-spin')} /> Retry
          </Button>
        </Alert>
      ) : (
        <DataTable
          label="Processing runs"
          columns={columns}
          data={items}
          getRowId={(r) => r.run.id}
          loading={runs.isPlaceholderData}
          empty={runs.isPending ? 'Loading processing runs...' : 'No processing runs found'}
          server={{
            rowCount: runs.data?.total ?? 0,
            sorting: [],
            onSortingChange: () => {},
            pagination: { pageIndex: filters.page - 1, pageSize: filters.pageSize },
            onPaginationChange: (p) =>
              setFilters((f) => ({ ...f, pageSize: p.pageSize, page: p.pageSize !== f.pageSize ? 1 : p.pageIndex + 1 })),
          }}
        />
      )}
    </div>
  )
}

const col = dataTableColumns<AdminRun>()

function runColumns(now: number, onRetry: (r: AdminRun) => void, onCancel: (r: AdminRun) => void): DataTableColumn<AdminRun>[] {
  return [
    col.display({ id: 'client', header: 'Client', cell: ({ row }) => row.original.clientName }),
    col.display({
      id: 'file',
      header: 'File',
      cell: ({ row }) => <span className="font-medium text-slate-900">{row.original.fileName}</span>,
    }),
    col.display({
      id: 'mode',
      header: 'Mode',
      cell: ({ row }) => (row.original.run.mode === 'manual' ? 'Manual' : 'Enhanced AI'),
    }),
    col.display({ id: 'lever', header: 'Lever', cell: ({ row }) => row.original.leverName ?? 'To Be Determined' }),
    col.display({
      id: 'stage',
      header: 'Stage',
      cell: ({ row }) => {
        const r = row.original.run
        return (
          <div className="space-y-1">
            <span className={cn('inline-flex rounded px-1.5 py-0.5 text-xs font-medium', STATE_TONE[r.state])} data-testid="run-state">
              {STATE_LABEL[r.state]}
            </span>
            {r.state === 'running' ? <p className="text-xs text-slate-600" data-testid="run-stage">{STAGE_LABEL[r.stage]}</p> : null}
          </div>
        )
      },
    }),
    col.display({
      id: 'progress',
      header: 'Progress',
      cell: ({ row }) => {
        const r = row.original.run
        const pct = Math.round(r.percent)
        return (
          <div className="w-32 space-y-1">
            <div
              role="progressbar"
              aria-label={`Progress of ${row.original.fileName}`}
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={pct}
              className="h-1.5 overflow-hidden rounded bg-slate-200"
            >
              <div className={cn('h-full', r.state === 'failed' ? 'bg-red-500' : 'bg-brand-600')} style={{ width: `${pct}%` }} />
            </div>
            <p className="text-xs text-slate-600">
              {pct}%{r.rowsTotal ? ` · ${r.rowsDone.toLocaleString('es-ES')} of ${r.rowsTotal.toLocaleString('es-ES')} rows` : ''}
            </p>
          </div>
        )
      },
    }),
    col.display({
      id: 'duration',
      header: 'Duration',
      cell: ({ row }) => {
        const d = runDuration(row.original.run, now)
        return d === null ? '-' : formatDuration(d)
      },
    }),
    col.display({
      id: 'result',
      header: 'Result',
      cell: ({ row }) => {
        const r = row.original.run
        if (r.state === 'failed' || r.state === 'cancelled')
          return <span className="text-xs text-red-700">{r.error ?? STATE_LABEL[r.state]}</span>
        if (r.result)
          return (
            <span className="text-xs text-slate-700">
              {formatEur(r.result.savingsRwas)}
              {/* No basis points without the client's figures (or when the savings exceed its
                  RWAs): shown as absent, as in File Management, not as 0,00. */}
              {r.result.savingsBps > 0 ? ` · ${formatBpsUnit(r.result.savingsBps)}` : ''}
            </span>
          )
        return '-'
      },
    }),
    col.display({
      id: 'actions',
      header: 'Actions',
      cell: ({ row }) => {
        const r = row.original.run
        if (r.state === 'failed')
          return (
            <Button variant="outline" size="sm" onClick={() => onRetry(row.original)} aria-label={`Retry ${row.original.fileName}`}>
              <RotateCcw /> Retry
            </Button>
          )
        if (!FINAL_STATES.includes(r.state))
          return (
            <Button variant="outline" size="sm" onClick={() => onCancel(row.original)} aria-label={`Cancel ${row.original.fileName}`}>
              <XCircle /> Cancel
            </Button>
          )
        return null
      },
    }),
  ]
}
