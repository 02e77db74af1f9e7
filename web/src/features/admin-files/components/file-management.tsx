import type { PaginationState, RowSelectionState, SortingState } from '@tanstack/react-table'
import { Tags, Trash2, X } from 'lucide-react'
import { useEffect, useMemo, useState } from 'react'
import { useSearchParams } from 'react-router'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { DataTable, dataTableColumns } from '@/components/ui/data-table'
import { errorMessage } from '@/lib/api-client'
import { useClientList } from '@/lib/clients-api'
import { cn } from '@/lib/cn'
import { formatDate } from '@/lib/format'

import { NO_FILTERS, useAdminFiles, useLevers, type AdminFile, type AdminFileFilters, type ListRequest, type SortKey } from '../api'
import { useLiveAdminFiles } from '../hooks/use-live-admin-files'
import { formatSavingsBps, formatSavingsRwas, leverLabel, runStateText, statusBadge } from '../utils/format'
import { AssignLeverDialog, BulkDeleteDialog } from './bulk-dialogs'
import { FileDetailsDialog } from './file-details-dialog'
import { FilterBar } from './filter-bar'

/** The free-text search waits this long after the last key before asking the server. */
export const SEARCH_DEBOUNCE_MS = 500

const NO_ROWS: AdminFile[] = []

/** The table's column ids and the server's sort keys. */
const SORT_KEYS: Record<string, SortKey> = {
  name: 'name',
  clientName: 'client',
  uploadedAt: 'uploaded_at',
  savingsRwas: 'savings_rwas',
  savingsBps: 'savings_bps',
  status: 'status',
}

const col = dataTableColumns<AdminFile>()
const columns = [
  col.accessor('name', {
    header: 'File',
    cell: (ctx) => <span className="font-medium break-all text-slate-900">{ctx.row.original.name}</span>,
  }),
  col.accessor('clientName', { header: 'Client' }),
  col.accessor('uploadedAt', { header: 'Date Uploaded', cell: (ctx) => <span className="whitespace-nowrap">{formatDate(ctx.row.original.uploadedAt)}</span> }),
  col.accessor((f) => f.leverName ?? '', {
    id: 'lever',
    header: 'Lever',
    // Filtered by category and lever instead (every sort has its own index on the server).
    enableSorting: false,
    cell: (ctx) => {
      const { name, category } = leverLabel(ctx.row.original)
      return (
        <span className="flex flex-col">
          <span className={category ? undefined : 'text-slate-500 italic'}>{name}</span>
          {category && <span className="text-xs text-slate-500">{category}</span>}
        </span>
      )
    },
  }),
  col.accessor('savingsRwas', {
    header: 'Savings (RWAs)',
    cell: (ctx) => <span className="tabular-nums whitespace-nowrap">{formatSavingsRwas(ctx.row.original.savingsRwas)}</span>,
  }),
  col.accessor('savingsBps', {
    header: 'Savings (BPS)',
    cell: (ctx) => <span className="tabular-nums whitespace-nowrap">{formatSavingsBps(ctx.row.original.savingsBps)}</span>,
  }),
  col.accessor((f) => (f.processed ? 1 : 0), {
    id: 'status',
    header: 'Status',
    cell: (ctx) => {
      const badge = statusBadge(ctx.row.original)
      const live = runStateText(ctx.row.original.latestRun)
      return (
        <span className="flex flex-col items-start gap-1">
          <span
            className={cn(
              'rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap',
              badge.tone === 'green' ? 'bg-emerald-100 text-emerald-800' : 'bg-amber-100 text-amber-800',
            )}
          >
            {badge.label}
          </span>
          {live && (
            <span data-testid="run-state" className={cn('text-xs', live.tone === 'red' ? 'text-red-700' : 'text-brand-700')}>
              {live.text}
            </span>
          )}
        </span>
      )
    },
  }),
]

/**
 * File Management (spec 2.1 to 2.3; the all-files page and File Management are one screen):
 * every client's files filtered, sorted and paged by the server, live as runs move, with bulk
 * lever assignment and deletion and the file details dialog.
 */
export function FileManagement() {
  // `?client=<id>` (the client data room's link) opens the list filtered to that client.
  const [params] = useSearchParams()
  const [filters, setFilters] = useState<AdminFileFilters>(() => ({ ...NO_FILTERS, clientId: params.get('client') ?? '' }))
  const [search, setSearch] = useState('')
  const [sorting, setSorting] = useState<SortingState>([])
  const [pagination, setPagination] = useState<PaginationState>({ pageIndex: 0, pageSize: 10 })
  const [selection, setSelection] = useState<RowSelectionState>({})
  const [opened, setOpened] = useState<AdminFile | null>(null)
  const [dialog, setDialog] = useState<'delete' | 'assign' | null>(null)

  const clients = useClientList(true)
  const levers = useLevers()

  // A page past the end (files deleted meanwhile) shows the last one.
  const [knownTotal, setKnownTotal] = useState<number | null>(null)
  const lastPage = knownTotal === null ? Infinity : Math.max(0, Math.ceil(knownTotal / pagination.pageSize) - 1)
  const page = pagination.pageIndex > lastPage ? { ...pagination, pageIndex: lastPage } : pagination
  const request: ListRequest = useMemo(() => {
    const s = sorting[0]
    const sort = (s && SORT_KEYS[s.id]) || 'uploaded_at'
    return { filters, sort, desc: s ? s.desc : true, pageIndex: page.pageIndex, pageSize: page.pageSize }
  }, [filters, sorting, page.pageIndex, page.pageSize])
  const files = useAdminFiles(request)
  const total = files.data?.total ?? 0
  if (files.data && !files.isPlaceholderData && knownTotal !== files.data.total) setKnownTotal(files.data.total)
  const rows = files.data?.items ?? NO_ROWS
  useLiveAdminFiles(opened ? [...rows, opened] : rows)

  // Filters apply from the first page, with nothing selected.
  const applyFilters = (next: (f: AdminFileFilters) => AdminFileFilters) => {
    setFilters((f) => {
      const n = next(f)
      if (JSON.stringify(n) !== JSON.stringify(f)) {
        setPagination((p) => ({ ...p, pageIndex: 0 }))
        setSelection({})
      }
      return n
    })
  }
  useEffect(() => {
    const timer = setTimeout(() => applyFilters((f) => (f.q === search ? f : { ...f, q: search })), SEARCH_DEBOUNCE_MS)
    return () => clearTimeout(timer)
  }, [search])
  const clearFilters = () => {
    setSearch('')
    applyFilters(() => NO_FILTERS)
  }

  const selectedIds = Object.keys(selection).filter((id) => selection[id])
  const count = selectedIds.length
  const clearSelection = () => setSelection({})
  const onPagination = (p: PaginationState) => setPagination(p)

  return (
    <div className="mx-auto max-w-7xl space-y-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight text-slate-900">File Management</h1>
        <p className="mt-1 text-sm text-slate-500">Manage client files, their processing status and lever assignments.</p>
      </div>

      <FilterBar
        filters={filters}
        search={search}
        clients={clients.data ?? []}
        levers={levers.data ?? []}
        onSearch={setSearch}
        onChange={(patch) => applyFilters((f) => ({ ...f, ...patch }))}
        onClear={clearFilters}
      />

      <div role="toolbar" aria-label="Selected files" className="flex flex-wrap items-center gap-2 rounded-lg border border-slate-200 bg-slate-50 px-4 py-2">
        <span className="mr-auto text-sm text-slate-600">{count} selected</span>
        <Button variant="ghost" size="sm" onClick={clearSelection} disabled={count === 0}>
          <X /> Clear Selection ({count})
        </Button>
        <Button variant="outline" size="sm" onClick={() => setDialog('assign')} disabled={count === 0}>
          <Tags /> Assign Lever
        </Button>
        <Button variant="destructive" size="sm" onClick={() => setDialog('delete')} disabled={count === 0}>
          <Trash2 /> Delete Files
        </Button>
      </div>

      {files.isError && (
        <Alert variant="destructive" className="items-center justify-between">
          <div>
            <p className="font-medium">Error loading files</p>
            <p>{errorMessage(files.error, 'The files could not be loaded.')}</p>
          </div>
          <Button variant="outline" size="sm" onClick={() => void files.refetch()}>
            Retry
          </Button>
        </Alert>
      )}

      <DataTable
        label="Files"
        columns={columns}
        data={rows}
        getRowId={(f) => f.id}
        selectable
        rowSelection={selection}
        onRowSelectionChange={setSelection}
        onRowClick={setOpened}
        loading={files.isPlaceholderData || files.isPending}
        empty={files.isPending ? 'Loading files…' : 'No files found matching your criteria'}
        server={{ rowCount: total, sorting, onSortingChange: setSorting, pagination: page, onPaginationChange: onPagination }}
      />

      <BulkDeleteDialog
        open={dialog === 'delete'}
        fileIds={selectedIds}
        onOpenChange={(o) => setDialog(o ? 'delete' : null)}
        onDone={() => {
          clearSelection()
          setDialog(null)
        }}
      />
      <AssignLeverDialog
        open={dialog === 'assign'}
        fileIds={selectedIds}
        levers={levers.data ?? []}
        onOpenChange={(o) => setDialog(o ? 'assign' : null)}
        onDone={() => {
          clearSelection()
          setDialog(null)
        }}
      />
      <FileDetailsDialog file={opened} levers={levers.data ?? []} onClose={() => setOpened(null)} />
    </div>
  )
}
