import { Filter, RefreshCw, Search, X } from 'lucide-react'
import { useCallback, useEffect, useId, useState } from 'react'
import { useSearchParams } from 'react-router'

import { ClientSwitcher } from '@/components/client-switcher'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { Select } from '@/components/ui/select'
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs'
import { Tooltip, TooltipContent, TooltipProvider, TooltipTrigger } from '@/components/ui/tooltip'
import { useClientId } from '@/hooks/use-client-id'
import { errorMessage } from '@/lib/api-client'
import { useAuthStore } from '@/lib/auth-store'
import { toast } from '@/lib/toast'

import { NO_FILTERS, useFiles, useLevers, useLiveFiles, usePendingValidations, type FileFilters, type Lever } from '../api'
import { pendingCounts } from '../utils/format'
import { QaAgent } from '../qa/qa-agent'
import { FilesTable } from './files-table'

/** The name search waits this long after the last key before asking the server. */
export const SEARCH_DEBOUNCE_MS = 500
/** 'Files refreshed' follows 'Refreshing files' after this long. */
const REFRESH_TOAST_MS = 1_000

/** The query parameter of the page's tab; `qa` opens the Q&A Agent. */
export const TAB_PARAM = 'tab'
/** The query parameter of the file the Q&A Agent focuses on ('analyse with AI'). */
export const FOCUS_PARAM = 'file'

/** Whether any filter is set. */
export function hasFilters(filters: FileFilters): boolean {
  return Object.values(filters).some((v) => v.trim() !== '')
}

/**
 * Our Files (spec 2.7): the client's files with the advanced search and filters (passed to the
 * server), live as runs and uploads change them.
 */
export function OurFiles() {
  const clientId = useClientId()
  const canWrite = useAuthStore((s) => s.user?.role !== 'viewer')
  const [filters, setFilters] = useState<FileFilters>(NO_FILTERS)
  const [search, setSearch] = useState('')
  const [showFilters, setShowFilters] = useState(true)
  const levers = useLevers()
  useLiveFiles(clientId)
  const files = useFiles(clientId, filters)
  const pendingValidations = usePendingValidations(clientId)
  const [params, setParams] = useSearchParams()
  const inner = params.get(TAB_PARAM) === 'qa' ? 'qa' : 'files'
  const focusId = params.get(FOCUS_PARAM)

  const showTab = useCallback(
    (tab: 'files' | 'qa', focus?: string | null) =>
      setParams(
        (p) => {
          const next = new URLSearchParams(p)
          if (tab === 'qa') next.set(TAB_PARAM, 'qa')
          else next.delete(TAB_PARAM)
          if (focus === undefined) return next
          if (focus) next.set(FOCUS_PARAM, focus)
          else next.delete(FOCUS_PARAM)
          return next
        },
        { replace: true },
      ),
    [setParams],
  )
  const onAnalyse = useCallback((file: { id: string }) => showTab('qa', file.id), [showTab])

  // The name search is debounced; the other filters apply at once.
  useEffect(() => {
    const timer = setTimeout(() => setFilters((f) => (f.q === search ? f : { ...f, q: search })), SEARCH_DEBOUNCE_MS)
    return () => clearTimeout(timer)
  }, [search])

  const set = (patch: Partial<FileFilters>) => setFilters((f) => ({ ...f, ...patch }))
  const clearAll = () => {
    setSearch('')
    setFilters(NO_FILTERS)
  }

  const onRefresh = async () => {
    toast.info('Refreshing files')
    const started = Date.now()
    const result = await files.refetch()
    const wait = Math.max(0, REFRESH_TOAST_MS - (Date.now() - started))
    setTimeout(() => {
      if (result.isError) toast.error('Refresh error', errorMessage(result.error, 'The files could not be loaded.'))
      else toast.success('Files refreshed')
    }, wait)
  }

  if (!clientId) {
    return (
      <div className="space-y-4">
        <ClientSwitcher />
        <p className="text-slate-600">No Client: your account is not linked to a client, so there are no files to show.</p>
      </div>
    )
  }
  const pending = pendingCounts(files.data ?? [], pendingValidations.data ?? 0)
  return (
    <div className="mx-auto max-w-7xl space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold tracking-tight text-slate-900">Our Files</h1>
          <p className="mt-1 text-sm text-slate-500">The files your team uploaded, their levers, savings and processing status.</p>
        </div>
        <ClientSwitcher />
        <div className="flex gap-2">
          <Button variant="outline" onClick={() => void onRefresh()} disabled={files.isFetching}>
            <RefreshCw className={files.isFetching ? 'animate-spin' : undefined} /> Refresh
          </Button>
          <Button variant="outline" aria-expanded={showFilters} onClick={() => setShowFilters((s) => !s)}>
            <Filter /> Filters
          </Button>
        </div>
      </div>

      {showFilters && (
        <FiltersPanel
          filters={filters}
          search={search}
          levers={levers.data ?? []}
          onSearch={setSearch}
          onChange={set}
          onClear={clearAll}
          active={hasFilters(filters) || search.trim() !== ''}
        />
      )}

      {files.isError ? (
        <Alert variant="destructive" className="items-center justify-between">
          <div>
            <p className="font-medium">Error loading files</p>
            <p>{errorMessage(files.error, 'The files could not be loaded.')}</p>
          </div>
          <Button variant="outline" size="sm" onClick={() => void files.refetch()}>
            Retry
          </Button>
        </Alert>
      ) : (
        <Tabs value={inner} onValueChange={(t) => showTab(t === 'qa' ? 'qa' : 'files')}>
          <TabsList aria-label="Files and Q&A">
            <TabsTrigger value="files">Our Files</TabsTrigger>
            <TabsTrigger value="qa">Q&amp;A Agent</TabsTrigger>
          </TabsList>
          <TabsContent value="files">
            <Card>
              <CardHeader className="flex-row items-center justify-between">
                <CardTitle>Our Files</CardTitle>
                {pending.total > 0 && (
                  <TooltipProvider delayDuration={200}>
                    <Tooltip>
                      <TooltipTrigger asChild>
                        <span tabIndex={0} className="rounded-full bg-amber-100 px-2.5 py-0.5 text-xs font-medium text-amber-800">
                          {pending.total} file(s) pending
                        </span>
                      </TooltipTrigger>
                      <TooltipContent>
                        {pending.lever} pending lever assignment, {pending.validation} pending validation
                      </TooltipContent>
                    </Tooltip>
                  </TooltipProvider>
                )}
              </CardHeader>
              <CardContent>
                {files.isPending ? <p className="text-sm text-slate-600">Loading files…</p> : <FilesTable clientId={clientId} canWrite={canWrite} files={files.data} onAnalyse={onAnalyse} />}
              </CardContent>
            </Card>
          </TabsContent>
          <TabsContent value="qa">
            <QaAgent
              clientId={clientId}
              focus={focusId ? { id: focusId, label: focusLabel(files.data, focusId) } : null}
              onClearFocus={() => showTab('qa', null)}
              onClose={() => showTab('files', null)}
            />
          </TabsContent>
        </Tabs>
      )}
    </div>
  )
}

/** The file in focus as the table names it, `File 2 (name.csv)` (not in the filtered list: 'the selected file'). */
function focusLabel(files: { id: string; name: string }[] | undefined, id: string): string {
  const i = files?.findIndex((f) => f.id === id) ?? -1
  if (i < 0 || !files) return 'the selected file'
  return `File ${i + 1} (${files[i]!.name})`
}

type PanelProps = {
  filters: FileFilters
  search: string
  levers: Lever[]
  active: boolean
  onSearch: (value: string) => void
  onChange: (patch: Partial<FileFilters>) => void
  onClear: () => void
}

function FiltersPanel({ filters, search, levers, active, onSearch, onChange, onClear }: PanelProps) {
  const ids = { q: useId(), lever: useId(), type: useId(), processed: useId(), from: useId(), to: useId() }
  return (
    <Card role="region" aria-label="Advanced Search & Filters">
      <CardHeader className="flex-row items-center justify-between pb-3">
        <CardTitle className="text-base">Advanced Search &amp; Filters</CardTitle>
        <Button variant="ghost" size="sm" onClick={onClear} disabled={!active}>
          <X /> Clear All
        </Button>
      </CardHeader>
      <CardContent className="grid gap-4 md:grid-cols-3">
        <div className="space-y-1.5 md:col-span-3">
          <Label htmlFor={ids.q}>Search by file name</Label>
          <div className="relative">
            <Search className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-slate-400" aria-hidden />
            <Input id={ids.q} className="pl-9" placeholder="Search files..." value={search} onChange={(e) => onSearch(e.target.value)} />
          </div>
        </div>
        <div className="space-y-1.5">
          <Label htmlFor={ids.lever}>Lever</Label>
          <Select id={ids.lever} value={filters.lever} onChange={(e) => onChange({ lever: e.target.value })}>
            <option value="">All levers</option>
            <option value="none">No lever assigned</option>
            {levers.map((l) => (
              <option key={l.id} value={l.id}>
                {l.name}
              </option>
            ))}
          </Select>
        </div>
        <div className="space-y-1.5">
          <Label htmlFor={ids.type}>File Type</Label>
          <Select id={ids.type} value={filters.type} onChange={(e) => onChange({ type: e.target.value })}>
            <option value="">All types</option>
            <option value="xlsx">XLSX</option>
            <option value="xls">XLS</option>
            <option value="ods">ODS</option>
            <option value="csv">CSV</option>
            <option value="pdf">PDF</option>
            <option value="txt">TXT</option>
          </Select>
        </div>
        <div className="space-y-1.5">
          <Label htmlFor={ids.processed}>Processing Status</Label>
          <Select id={ids.processed} value={filters.processed} onChange={(e) => onChange({ processed: e.target.value })}>
            <option value="">All</option>
            <option value="true">Processed</option>
            <option value="false">Not processed</option>
          </Select>
        </div>
        <div className="space-y-1.5">
          <Label htmlFor={ids.from}>Date From</Label>
          <Input id={ids.from} type="date" value={filters.from} max={filters.to || undefined} onChange={(e) => onChange({ from: e.target.value })} />
        </div>
        <div className="space-y-1.5">
          <Label htmlFor={ids.to}>Date To</Label>
          <Input id={ids.to} type="date" value={filters.to} min={filters.from || undefined} onChange={(e) => onChange({ to: e.target.value })} />
        </div>
      </CardContent>
    </Card>
  )
}
