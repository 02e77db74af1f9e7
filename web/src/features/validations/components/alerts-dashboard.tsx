import { AlertTriangle, Filter, RefreshCw, X } from 'lucide-react'
import { useEffect, useId, useState } from 'react'

import { ClientSwitcher } from '@/components/client-switcher'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { Select } from '@/components/ui/select'
import { Tabs, TabsList, TabsTrigger } from '@/components/ui/tabs'
import { TooltipProvider } from '@/components/ui/tooltip'
import { ApiError, errorMessage } from '@/lib/api-client'
import { formatBps, formatDate, formatEur } from '@/lib/format'
import { toast } from '@/lib/toast'

import {
  NO_VALIDATION_FILTERS,
  VALIDATIONS_PAGE_SIZE,
  useDecideValidation,
  useLiveValidations,
  useValidationSummary,
  useValidations,
  validationKeys,
  type DecisionInput,
  type Validation,
  type ValidationFilters,
  type ValidationTab,
} from '../api'
import { useDecisionGuard } from '../hooks/use-decision-guard'
import { numericFilterError, pendingSentence, statusLabel, statusTone } from '../utils/format'
import { DecisionButton } from './decision-button'
import { RejectionReasonDialog } from './rejection-reason-dialog'
import { ValidationDetailsDialog } from './validation-details-dialog'

/** Filters wait this long after the last key before asking the server. */
export const FILTER_DEBOUNCE_MS = 400
/** 'Validations refreshed' follows 'Refreshing validations' after this long. */
const REFRESH_TOAST_MS = 1_000

const ERROR_TITLES: Record<DecisionInput['kind'], string> = {
  approve: 'Error approving validation',
  reject: 'Error rejecting validation',
  status: 'Failed to change validation status',
}

/**
 * The Alerts tab of Our Files (spec 001 section 2.9): the client's pending validations and their
 * history, filtered and paged by the server, decided by approvers (optimistic, rolled back on
 * failure) and live: another approver's decision moves the item and the counts at once.
 */
export function AlertsDashboard({ clientId }: { clientId: string }) {
  const [tab, setTab] = useState<ValidationTab>('pending')
  const [draft, setDraft] = useState<ValidationFilters>(NO_VALIDATION_FILTERS)
  const [filters, setFilters] = useState<ValidationFilters>(NO_VALIDATION_FILTERS)
  const [showFilters, setShowFilters] = useState(false)
  const [page, setPage] = useState(1)
  const [openId, setOpenId] = useState<string | null>(null)
  const [askReason, setAskReason] = useState<((reason: string) => void) | null>(null)

  useLiveValidations(clientId)
  const summary = useValidationSummary(clientId)
  const list = useValidations(clientId, tab, filters, page)
  const listKey = validationKeys.list(clientId, tab, filters, page)
  const decide = useDecideValidation(clientId, tab, listKey)
  const guard = useDecisionGuard()

  const filterError = numericFilterError(draft)
  useEffect(() => {
    if (filterError) return
    const timer = setTimeout(() => {
      setFilters(draft)
      setPage(1)
    }, FILTER_DEBOUNCE_MS)
    return () => clearTimeout(timer)
  }, [draft, filterError])

  const canApprove = summary.data?.canApprove ?? list.data?.canApprove ?? false
  const pending = summary.data?.pendingValidations ?? list.data?.pendingValidations ?? 0
  const items = list.data?.items ?? []
  const total = list.data?.total ?? 0
  const pages = Math.max(1, Math.ceil(total / VALIDATIONS_PAGE_SIZE))

  const run = (d: DecisionInput) =>
    guard.run(async () => {
      if (!canApprove) {
        toast.error('Permission denied', `You don't have permission to ${d.kind === 'reject' ? 'reject' : 'approve'} validations`)
        throw new Error('not an approver')
      }
      try {
        const v = await decide.mutateAsync(d)
        if (v.status === 'approved') toast.success('Validation approved', `${v.fileName} was approved.`)
        else if (v.status === 'rejected') toast.success('Validation rejected', v.rejectionReason ?? undefined)
        else toast.success('Validation status changed', `${v.fileName} is ${statusLabel(v.status).toLowerCase()} again.`)
      } catch (error) {
        const denied = error instanceof ApiError && error.status === 403
        toast.error(denied ? 'Permission denied' : ERROR_TITLES[d.kind], errorMessage(error, 'The validation could not be changed. Please try again.'))
        throw error
      }
    })

  const onRefresh = async () => {
    toast.info('Refreshing validations')
    const started = Date.now()
    const [result] = await Promise.all([list.refetch(), summary.refetch()])
    setTimeout(
      () => {
        if (result.isError) toast.error('Refresh error', errorMessage(result.error, 'The validations could not be loaded.'))
        else toast.success('Validations refreshed')
      },
      Math.max(0, REFRESH_TOAST_MS - (Date.now() - started)),
    )
  }

  const set = (patch: Partial<ValidationFilters>) => setDraft((f) => ({ ...f, ...patch }))
  const active = Object.values(draft).some((v) => v.trim() !== '')

  return (
    <TooltipProvider delayDuration={200}>
      <div className="space-y-6">
        <div className="flex flex-wrap items-end justify-between gap-4">
          <div>
            <h2 className="text-xl font-semibold text-slate-900">Alerts</h2>
            <p className="mt-1 text-sm text-slate-500">Processed files waiting for validation, and the decisions taken.</p>
          </div>
          <ClientSwitcher />
          <div className="flex gap-2">
            <Button variant="outline" onClick={() => void onRefresh()} disabled={list.isFetching}>
              <RefreshCw className={list.isFetching ? 'animate-spin' : undefined} /> Refresh
            </Button>
            <Button variant="outline" aria-expanded={showFilters} onClick={() => setShowFilters((s) => !s)}>
              <Filter /> Filters
            </Button>
          </div>
        </div>

        {pending > 0 && (
          <Alert role="status" className="border-amber-300 bg-amber-50 text-amber-900">
            <div className="flex items-start gap-3">
              <AlertTriangle className="mt-0.5 size-5 shrink-0" aria-hidden />
              <div>
                <p className="font-medium">Attention Required</p>
                <p>{pendingSentence(pending)}</p>
                {!canApprove && <p className="text-sm">Approval permissions required</p>}
              </div>
            </div>
          </Alert>
        )}

        {showFilters && (
          <FiltersPanel draft={draft} error={filterError} active={active} onChange={set} onClear={() => setDraft(NO_VALIDATION_FILTERS)} />
        )}

        <Tabs
          value={tab}
          onValueChange={(t) => {
            setTab(t as ValidationTab)
            setPage(1)
          }}
        >
          <TabsList>
            <TabsTrigger value="pending">Pending Validations ({pending})</TabsTrigger>
            <TabsTrigger value="history">Validation History</TabsTrigger>
          </TabsList>
        </Tabs>

        {list.isError ? (
          <Alert variant="destructive" className="items-center justify-between">
            <div>
              <p className="font-medium">Error loading validations</p>
              <p>{errorMessage(list.error, 'The validations could not be loaded.')}</p>
            </div>
            <Button variant="outline" size="sm" onClick={() => void list.refetch()}>
              Retry
            </Button>
          </Alert>
        ) : (
          <Card>
            <CardHeader>
              <CardTitle>{tab === 'pending' ? 'Pending Validations' : 'Validation History'}</CardTitle>
            </CardHeader>
            <CardContent>
              {list.isPending ? (
                <p className="text-sm text-slate-600">Loading validations…</p>
              ) : items.length === 0 ? (
                tab === 'pending' ? (
                  <div className="py-8 text-center">
                    <p className="font-medium text-slate-900">No validations found</p>
                    <p className="text-sm text-slate-500">There are no files waiting for validation at this time.</p>
                  </div>
                ) : (
                  <p className="py-8 text-center font-medium text-slate-900">No validation history found</p>
                )
              ) : (
                <ValidationTable
                  items={items}
                  canApprove={canApprove}
                  busy={guard.busy}
                  onOpen={setOpenId}
                  onApprove={(v) => void run({ kind: 'approve', id: v.id })}
                  onReject={(v) => setAskReason(() => (reason: string) => void run({ kind: 'reject', id: v.id, reason }))}
                />
              )}
              {total > VALIDATIONS_PAGE_SIZE && (
                <div className="mt-4 flex items-center justify-between text-sm text-slate-600">
                  <span>
                    Showing {(page - 1) * VALIDATIONS_PAGE_SIZE + 1} to {Math.min(page * VALIDATIONS_PAGE_SIZE, total)} of {total} items
                  </span>
                  <div className="flex gap-2">
                    <Button variant="outline" size="sm" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>
                      Previous
                    </Button>
                    <Button variant="outline" size="sm" disabled={page >= pages} onClick={() => setPage((p) => p + 1)}>
                      Next
                    </Button>
                  </div>
                </div>
              )}
            </CardContent>
          </Card>
        )}

        <ValidationDetailsDialog
          clientId={clientId}
          validationId={openId}
          canApprove={canApprove}
          busy={guard.busy}
          onClose={() => setOpenId(null)}
          onDecide={run}
          onAskReason={(then) => setAskReason(() => then)}
        />
        <RejectionReasonDialog
          open={askReason !== null}
          busy={guard.busy}
          onCancel={() => setAskReason(null)}
          onConfirm={(reason) => {
            const then = askReason
            setAskReason(null)
            then?.(reason)
          }}
        />
      </div>
    </TooltipProvider>
  )
}

type TableProps = {
  items: Validation[]
  canApprove: boolean
  busy: boolean
  onOpen: (id: string) => void
  onApprove: (v: Validation) => void
  onReject: (v: Validation) => void
}

function ValidationTable({ items, canApprove, busy, onOpen, onApprove, onReject }: TableProps) {
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-left text-sm">
        <thead className="border-b border-slate-200 text-xs text-slate-500 uppercase">
          <tr>
            <th className="py-2 pr-4">File</th>
            <th className="py-2 pr-4">Lever</th>
            <th className="py-2 pr-4">Savings (RWAs)</th>
            <th className="py-2 pr-4">Savings (BPS)</th>
            <th className="py-2 pr-4">Processed</th>
            <th className="py-2 pr-4">Status</th>
            <th className="py-2">Actions</th>
          </tr>
        </thead>
        <tbody>
          {items.map((v) => (
            <tr key={v.id} data-testid="validation-row" className="border-b border-slate-100 last:border-0">
              <td className="py-2 pr-4 font-medium text-slate-900">{v.fileName}</td>
              <td className="py-2 pr-4">{v.leverName ?? 'To be determined'}</td>
              <td className="py-2 pr-4 tabular-nums">{formatEur(v.savingsRwas)}</td>
              <td className="py-2 pr-4 tabular-nums">{`${formatBps(v.savingsBps)} bps`}</td>
              <td className="py-2 pr-4">{formatDate(v.createdAt)}</td>
              <td className="py-2 pr-4">
                <span className={`rounded-full px-2 py-0.5 text-xs font-medium ${statusTone(v.status)}`}>{statusLabel(v.status)}</span>
              </td>
              <td className="py-2">
                <div className="flex flex-wrap gap-2">
                  <Button variant="outline" size="sm" onClick={() => onOpen(v.id)} aria-label={`View details of ${v.fileName}`}>
                    View Details
                  </Button>
                  {v.status === 'pending' && (
                    <>
                      <DecisionButton canApprove={canApprove} size="sm" variant="destructive" disabled={busy} onClick={() => onReject(v)} aria-label={`Reject ${v.fileName}`}>
                        Reject
                      </DecisionButton>
                      <DecisionButton canApprove={canApprove} size="sm" disabled={busy} onClick={() => onApprove(v)} aria-label={`Approve ${v.fileName}`}>
                        Approve
                      </DecisionButton>
                    </>
                  )}
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

type PanelProps = {
  draft: ValidationFilters
  error: string | null
  active: boolean
  onChange: (patch: Partial<ValidationFilters>) => void
  onClear: () => void
}

function FiltersPanel({ draft, error, active, onChange, onClear }: PanelProps) {
  const ids = { status: useId(), from: useId(), to: useId(), minRwas: useId(), maxRwas: useId(), minBps: useId(), maxBps: useId() }
  const num = (key: 'minRwas' | 'maxRwas' | 'minBps' | 'maxBps', label: string) => (
    <div className="space-y-1.5">
      <Label htmlFor={ids[key]}>{label}</Label>
      <Input id={ids[key]} type="number" inputMode="decimal" value={draft[key]} onChange={(e) => onChange({ [key]: e.target.value })} />
    </div>
  )
  return (
    <Card role="region" aria-label="Validation filters">
      <CardHeader className="flex-row items-center justify-between pb-3">
        <CardTitle className="text-base">Filters</CardTitle>
        <Button variant="ghost" size="sm" onClick={onClear} disabled={!active}>
          <X /> Clear Filters
        </Button>
      </CardHeader>
      <CardContent className="grid gap-4 md:grid-cols-4">
        <div className="space-y-1.5">
          <Label htmlFor={ids.status}>Status</Label>
          <Select id={ids.status} value={draft.status} onChange={(e) => onChange({ status: e.target.value })}>
            <option value="">All</option>
            <option value="pending">Pending</option>
            <option value="approved">Approved</option>
            <option value="rejected">Rejected</option>
          </Select>
        </div>
        <div className="space-y-1.5">
          <Label htmlFor={ids.from}>Start Date</Label>
          <Input id={ids.from} type="date" value={draft.from} max={draft.to || undefined} onChange={(e) => onChange({ from: e.target.value })} />
        </div>
        <div className="space-y-1.5">
          <Label htmlFor={ids.to}>End Date</Label>
          <Input id={ids.to} type="date" value={draft.to} min={draft.from || undefined} onChange={(e) => onChange({ to: e.target.value })} />
        </div>
        <div />
        {num('minRwas', 'Min RWAs')}
        {num('maxRwas', 'Max RWAs')}
        {num('minBps', 'Min BPS')}
        {num('maxBps', 'Max BPS')}
        {error && (
          <p role="alert" className="text-sm text-red-600 md:col-span-4">
            {error}
          </p>
        )}
      </CardContent>
    </Card>
  )
}
