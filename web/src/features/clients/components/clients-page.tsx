import { Check, ChevronDown, ExternalLink, Filter, Pencil, Plus, RefreshCw, Search, X } from 'lucide-react'
import { useEffect, useRef, useState } from 'react'
import { Link } from 'react-router'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { DropdownMenu, DropdownMenuContent, DropdownMenuItem, DropdownMenuTrigger } from '@/components/ui/dropdown-menu'
import { Input } from '@/components/ui/input'
import { Spinner } from '@/components/ui/spinner'
import { paths } from '@/config/paths'
import { ApiError } from '@/lib/api-client'
import { cn } from '@/lib/cn'
import { formatBps, formatCount, formatDate, formatEur } from '@/lib/format'
import { formatSpanishAmount, parseSpanishAmount } from '@/lib/spanish-number'
import { toast } from '@/lib/toast'

import { useAdminClients, useEditSavings, useLiveAdminClients, type AdminClient, type ClientFilter } from '../api'
import { AmountInput } from './amount-input'
import { ClientFormDialog } from './client-form-dialog'

/** The Filter menu (spec 000 section 2.6). */
export const FILTERS: { value: ClientFilter; label: string }[] = [
  { value: 'all', label: 'All Clients' },
  { value: 'mine', label: 'My Clients' },
  { value: 'shared', label: 'Shared with me' },
  { value: 'recent', label: 'Recently modified' },
]

/** The search waits this long after the last key before asking the server. */
export const SEARCH_DEBOUNCE_MS = 300

/**
 * Clients (spec 000 sections 2.6 and 4): the search, the Filter menu and New Client; the table
 * with the inline RWA savings edit (Save and Cancel; one save at a time per client) and the
 * read-only bps the server computes; live as clients and savings change anywhere.
 */
export function ClientsPage() {
  const [filter, setFilter] = useState<ClientFilter>('all')
  const [search, setSearch] = useState('')
  const [q, setQ] = useState('')
  const [adding, setAdding] = useState(false)
  const clients = useAdminClients(filter, q)
  useLiveAdminClients()

  useEffect(() => {
    const timer = setTimeout(() => setQ(search.trim()), SEARCH_DEBOUNCE_MS)
    return () => clearTimeout(timer)
  }, [search])

  // The spec's destructive toast, once per failure.
  const failed = clients.isError
  useEffect(() => {
    if (failed) toast.error('Error fetching clients', 'There was a problem loading clients. Please try again.')
  }, [failed])

  const rows = clients.data ?? []
  const filterLabel = FILTERS.find((f) => f.value === filter)?.label ?? 'All Clients'

  return (
    <div className="mx-auto max-w-7xl space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold tracking-tight text-slate-900">Clients</h1>
          <p className="mt-1 text-sm text-slate-500">Every client, its team and its capital savings.</p>
        </div>
        <Button onClick={() => setAdding(true)}>
          <Plus /> New Client
        </Button>
      </div>

      <div className="flex flex-wrap items-center gap-3">
        <div className="relative min-w-64 flex-1">
          <Search className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-slate-400" aria-hidden="true" />
          <Input className="pl-9" placeholder="Search clients..." aria-label="Search clients" value={search} onChange={(e) => setSearch(e.target.value)} />
        </div>
        <DropdownMenu>
          <DropdownMenuTrigger asChild>
            <Button variant="outline" aria-label={`Filter: ${filterLabel}`}>
              <Filter /> {filterLabel} <ChevronDown />
            </Button>
          </DropdownMenuTrigger>
          <DropdownMenuContent align="end">
            {FILTERS.map((f) => (
              <DropdownMenuItem key={f.value} onSelect={() => setFilter(f.value)}>
                <Check className={cn(f.value === filter ? 'opacity-100' : 'opacity-0')} /> {f.label}
              </DropdownMenuItem>
            ))}
          </DropdownMenuContent>
        </DropdownMenu>
      </div>

      {clients.isError ? (
        <Alert variant="destructive" className="items-center justify-between">
          <div>
            <p className="font-medium">Error fetching clients</p>
            <p>There was a problem loading clients. Please try again.</p>
          </div>
          <Button variant="outline" size="sm" onClick={() => void clients.refetch()} disabled={clients.isFetching}>
            <RefreshCw className={cn(clients.isFetching && 'animate-spin')} /> Try Again
          </Button>
        </Alert>
      ) : clients.isPending ? (
        <div className="flex justify-center py-16">
          <Spinner label="Loading clients" />
        </div>
      ) : rows.length === 0 ? (
        <div className="rounded-xl border border-dashed border-slate-300 bg-white px-6 py-16 text-center">
          <p className="text-slate-600">No clients found. Add your first client to get started!</p>
          <Button className="mt-4" onClick={() => setAdding(true)}>
            <Plus /> Add Client
          </Button>
        </div>
      ) : (
        <ClientsTable rows={rows} />
      )}

      <ClientFormDialog open={adding} onOpenChange={setAdding} />
    </div>
  )
}

function ClientsTable({ rows }: { rows: AdminClient[] }) {
  return (
    <div className="overflow-x-auto rounded-xl border border-slate-200 bg-white">
      <table className="w-full text-left text-sm" aria-label="Clients">
        <thead className="border-b border-slate-200 bg-slate-50 text-xs font-semibold tracking-wide text-slate-500 uppercase">
          <tr>
            <th className="px-4 py-3">Client</th>
            <th className="px-4 py-3">From Date</th>
            <th className="px-4 py-3 text-right">Team Members</th>
            <th className="px-4 py-3 text-right">CET Savings (RWAs)</th>
            <th className="px-4 py-3 text-right">CET Savings (bps)</th>
            <th className="px-4 py-3">Last Updated</th>
            <th className="px-4 py-3 text-right">Actions</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {rows.map((c) => (
            <ClientRow key={c.id} client={c} />
          ))}
        </tbody>
      </table>
    </div>
  )
}

/** One client: view mode, or edit mode with the RWAs field, Save and Cancel. */
function ClientRow({ client }: { client: AdminClient }) {
  const [editing, setEditing] = useState(false)
  const [text, setText] = useState('')
  const edit = useEditSavings()
  // One save at a time per client: a second click while one runs is ignored (the server refuses
  // a concurrent one too).
  const running = useRef(false)

  const start = () => {
    setText(formatSpanishAmount(client.cet1SavingsRwas))
    setEditing(true)
  }
  const save = () => {
    if (running.current) return
    const value = parseSpanishAmount(text)
    if (value === null || value < 0) {
      toast.error('Update failed', 'Enter the savings as an amount, for example 1.234.567,89.')
      return
    }
    running.current = true
    edit.mutate(
      { id: client.id, rwas: value },
      {
        onSuccess: (outcome) => {
          if (outcome.syncedFromFiles) toast.success('Values updated', 'Client data has been automatically updated.')
          else toast.success('Savings updated', 'CET1 savings values have been updated successfully.')
          setEditing(false)
        },
        onError: (error) => {
          // Another save of this client is running: this one is ignored.
          if (error instanceof ApiError && error.code === 'update_in_progress') return
          toast.error('Update failed', error instanceof ApiError && error.status === 422 ? error.message : 'Failed to update savings values. Please try again.')
        },
        onSettled: () => {
          running.current = false
        },
      },
    )
  }

  return (
    <tr className="align-middle" data-testid={`client-row-${client.id}`}>
      <td className="px-4 py-3">
        <p className="font-medium text-slate-900">{client.name}</p>
        <p className="max-w-xs truncate text-xs text-slate-500" title={client.description}>
          {client.description}
        </p>
      </td>
      <td className="px-4 py-3 whitespace-nowrap">{formatDate(client.fromDate)}</td>
      <td className="px-4 py-3 text-right tabular-nums">{formatCount(client.memberCount)}</td>
      <td className="px-4 py-3 text-right tabular-nums whitespace-nowrap">
        {editing ? (
          <AmountInput
            aria-label={`CET Savings (RWAs) of ${client.name}`}
            className="ml-auto w-44 text-right"
            value={text}
            onValueChange={setText}
            autoFocus
            onKeyDown={(e) => {
              if (e.key === 'Enter') save()
              if (e.key === 'Escape') setEditing(false)
            }}
          />
        ) : (
          <span title={client.fileSumRwas > 0 ? 'The sum of the client’s processed files' : undefined}>{formatEur(client.cet1SavingsRwas)}</span>
        )}
      </td>
      <td className="px-4 py-3 text-right tabular-nums">{formatBps(client.cet1SavingsBps)}</td>
      <td className="px-4 py-3 whitespace-nowrap">{formatDate(client.lastUpdated)}</td>
      <td className="px-4 py-3">
        <div className="flex items-center justify-end gap-1">
          {editing ? (
            <>
              <Button size="sm" onClick={save} disabled={edit.isPending}>
                {edit.isPending ? <Spinner /> : <Check />} Save
              </Button>
              <Button size="sm" variant="outline" onClick={() => setEditing(false)} disabled={edit.isPending}>
                <X /> Cancel
              </Button>
            </>
          ) : (
            <>
              <Button size="sm" variant="ghost" onClick={start} aria-label={`Edit the savings of ${client.name}`}>
                <Pencil /> Edit
              </Button>
              <Button size="sm" variant="ghost" asChild>
                <Link to={paths.admin.clientDataRoom.getHref(client.id)} aria-label={`Open ${client.name}`}>
                  <ExternalLink /> Open
                </Link>
              </Button>
            </>
          )}
        </div>
      </td>
    </tr>
  )
}
