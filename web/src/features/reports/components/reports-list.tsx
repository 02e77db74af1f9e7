import type { ReportFolder } from '@/api/types/ReportFolder'
import type { ReportSummary } from '@/api/types/ReportSummary'
import { ChevronRight, Folder, FolderPlus, LayoutGrid, List, Plus, RefreshCw, Search } from 'lucide-react'
import { useEffect, useMemo, useRef, useState } from 'react'
import { useNavigate, useSearchParams } from 'react-router'

import { ClientSwitcher } from '@/components/client-switcher'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { FormField } from '@/components/ui/form-field'
import { Input } from '@/components/ui/input'
import { Select } from '@/components/ui/select'
import { Spinner } from '@/components/ui/spinner'
import { paths } from '@/config/paths'
import { errorMessage } from '@/lib/api-client'
import { CLIENT_PARAM, useClientId, withClient } from '@/hooks/use-client-id'
import { useAuthStore } from '@/lib/auth-store'
import { cn } from '@/lib/cn'
import { toast } from '@/lib/toast'

import {
  useReportTemplates,
  useCreateFolder,
  useCreateReport,
  useDeleteReport,
  useDraftLimit,
  useFolders,
  useLiveReportList,
  useReports,
  useUpdateReport,
} from '../api'
import { ConfirmDeleteDialog } from './confirm-delete-dialog'
import { NameDialog } from './name-dialog'
import { ReportCard } from './report-card'

export type SortKey = 'date' | 'name' | 'status'

/** The query parameter of the folder being shown (`?folder=<id>`), so a return from the editor lands there. */
export const FOLDER_PARAM = 'folder'

/** Filters (by name, case-insensitive) and sorts reports: Date newest first, Name A-Z, Status drafts first. */
export function filterAndSort(reports: ReportSummary[], search: string, sort: SortKey): ReportSummary[] {
  const q = search.trim().toLowerCase()
  const out = q ? reports.filter((r) => r.name.toLowerCase().includes(q)) : reports.slice()
  const byName = (a: ReportSummary, b: ReportSummary) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' })
  if (sort === 'name') out.sort(byName)
  else if (sort === 'status') out.sort((a, b) => a.status.localeCompare(b.status) || byName(a, b))
  else out.sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : byName(a, b)))
  return out
}

export function ReportsList() {
  const navigate = useNavigate()
  const canEdit = useAuthStore((s) => s.user?.role !== 'viewer')
  const clientId = useClientId()
  useLiveReportList(clientId)
  const reports = useReports(clientId)
  const folders = useFolders(clientId)
  const draftLimit = useDraftLimit(clientId)
  const createReport = useCreateReport(clientId ?? '')
  const createFolder = useCreateFolder(clientId ?? '')
  const updateReport = useUpdateReport(clientId ?? '')
  const deleteReport = useDeleteReport(clientId ?? '')

  const [search, setSearch] = useState('')
  const [sort, setSort] = useState<SortKey>('date')
  const [view, setView] = useState<'grid' | 'list'>('grid')
  // The folder shown is part of the URL: the back button and a return from the editor come back to it.
  const [params, setParams] = useSearchParams()
  const folderId = params.get(FOLDER_PARAM)
  const setFolderId = (id: string | null) => {
    const next = new URLSearchParams(params)
    if (id) next.set(FOLDER_PARAM, id)
    else next.delete(FOLDER_PARAM)
    setParams(next)
  }
  // An administrator's chosen client travels with the links to the editor.
  const chosenClient = params.get(CLIENT_PARAM)
  const editorHref = (id: string) => withClient(paths.client.reportEditor.getHref(id), chosenClient)
  const [newReportOpen, setNewReportOpen] = useState(false)
  const [templateId, setTemplateId] = useState('')
  const templates = useReportTemplates(newReportOpen)
  const [newFolderOpen, setNewFolderOpen] = useState(false)
  const [toDelete, setToDelete] = useState<ReportSummary | null>(null)

  const allFolders = useMemo(() => folders.data ?? [], [folders.data])
  const currentFolder = allFolders.find((f) => f.id === folderId) ?? null
  const childFolders = allFolders.filter((f) => (f.parent_folder_id ?? null) === folderId)
  const searching = search.trim() !== ''
  const visible = useMemo(() => {
    const all = reports.data ?? []
    // A search looks through every report; otherwise the current folder is shown.
    const scoped = searching ? all : all.filter((r) => (r.folder_id ?? null) === folderId)
    return filterAndSort(scoped, search, sort)
  }, [reports.data, searching, folderId, search, sort])

  const openReport = (id: string) => navigate(editorHref(id))

  const onCreateReport = (name: string) =>
    createReport.mutate(
      { name, folder_id: folderId ?? undefined, template_id: templateId || undefined },
      {
        onSuccess: (report) => {
          setNewReportOpen(false)
          setTemplateId('')
          toast.success('Report created successfully')
          openReport(report.id)
        },
        onError: (e) => toast.error('Failed to create report', errorMessage(e, 'Please try again.')),
      },
    )
  const onCreateFolder = (name: string) =>
    createFolder.mutate(
      { name, parent_folder_id: folderId ?? undefined },
      {
        onSuccess: () => {
          setNewFolderOpen(false)
          toast.success('Folder created successfully')
        },
        onError: (e) => toast.error('Failed to create folder', errorMessage(e, 'Please try again.')),
      },
    )
  const onRename = (report: ReportSummary, name: string) =>
    updateReport.mutate(
      { id: report.id, body: { name } },
      {
        onSuccess: () => toast.success('Report renamed successfully'),
        onError: (e) => toast.error('Failed to rename report', errorMessage(e, 'Please try again.')),
      },
    )
  const onCopyId = async (report: ReportSummary) => {
    try {
      await navigator.clipboard.writeText(report.id)
      toast.success('Report ID copied to clipboard')
    } catch {
      toast.error('Could not copy the report ID')
    }
  }
  const onConfirmDelete = () => {
    if (!toDelete) return
    deleteReport.mutate(toDelete.id, {
      onSuccess: () => toast.success('Report deleted successfully'),
      onError: (e) => toast.error('Failed to delete report', errorMessage(e, 'Please try again.')),
      onSettled: () => setToDelete(null),
    })
  }

  const loadFailed = reports.isError || folders.isError
  // Besides the banner, each failed load says so once in a toast (a failed Retry is a new failure).
  const failedAt = Math.max(reports.isError ? reports.errorUpdatedAt : 0, folders.isError ? folders.errorUpdatedAt : 0)
  const toastedFailure = useRef(0)
  useEffect(() => {
    if (failedAt === 0 || failedAt === toastedFailure.current) return
    toastedFailure.current = failedAt
    toast.error('Database Error', 'Failed to connect to database. Some features may be limited.')
  }, [failedAt])
  const limit = draftLimit.data
  if (!clientId) {
    return (
      <div className="space-y-4">
        <ClientSwitcher />
        <p className="text-slate-600">No Client: your account is not linked to a client, so there are no reports to show.</p>
      </div>
    )
  }
  return (
    <div className="mx-auto max-w-7xl space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold tracking-tight text-slate-900">Report Generator</h1>
          <p className="mt-1 text-sm text-slate-500" aria-live="polite">
            {limit ? `${limit.draft_count} of ${limit.limit} drafts used this month` : 'Regulatory reports drafted together with your team.'}
          </p>
        </div>
        <ClientSwitcher />
        {canEdit && (
          <div className="flex gap-2">
            <Button variant="outline" onClick={() => setNewFolderOpen(true)}>
              <FolderPlus /> New Folder
            </Button>
            <Button onClick={() => setNewReportOpen(true)}>
              <Plus /> New Report
            </Button>
          </div>
        )}
      </div>

      {loadFailed && (
        <Alert variant="destructive" className="items-center justify-between">
          <div>
            <p className="font-medium">Database Connection Issue</p>
            <p className="text-red-700/80">{errorMessage(reports.error ?? folders.error, 'The reports could not be loaded.')}</p>
          </div>
          <Button
            variant="outline"
            size="sm"
            onClick={() => {
              void reports.refetch()
              void folders.refetch()
              void draftLimit.refetch()
            }}
          >
            <RefreshCw /> Retry
          </Button>
        </Alert>
      )}

      <div className="flex flex-wrap items-center gap-3">
        <div className="relative min-w-60 flex-1">
          <Search className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-slate-400" aria-hidden="true" />
          <Input aria-label="Search reports" placeholder="Search reports..." value={search} onChange={(e) => setSearch(e.target.value)} className="pl-9" />
        </div>
        <label className="flex items-center gap-2 text-sm text-slate-600">
          Sort by
          <select aria-label="Sort by" value={sort} onChange={(e) => setSort(e.target.value as SortKey)} className="h-10 rounded-md border border-slate-300 bg-white px-2 text-sm">
            <option value="date">Date</option>
            <option value="name">Name</option>
            <option value="status">Status</option>
          </select>
        </label>
        <div className="flex rounded-md border border-slate-300" role="group" aria-label="View">
          <Button variant="ghost" size="icon" aria-label="Grid view" aria-pressed={view === 'grid'} className={cn(view === 'grid' && 'bg-slate-100')} onClick={() => setView('grid')}>
            <LayoutGrid />
          </Button>
          <Button variant="ghost" size="icon" aria-label="List view" aria-pressed={view === 'list'} className={cn(view === 'list' && 'bg-slate-100')} onClick={() => setView('list')}>
            <List />
          </Button>
        </div>
      </div>

      {!searching && (
        <FolderBar folders={allFolders} current={currentFolder} childFolders={childFolders} onOpen={setFolderId} />
      )}

      {reports.isPending ? (
        <div className="flex justify-center py-16">
          <Spinner label="Loading reports..." />
        </div>
      ) : visible.length === 0 && !loadFailed ? (
        <EmptyState
          searching={searching}
          inFolder={currentFolder !== null}
          anyReport={(reports.data?.length ?? 0) > 0}
          canEdit={canEdit}
          onCreate={() => setNewReportOpen(true)}
        />
      ) : (
        <div className={cn(view === 'grid' ? 'grid gap-4 sm:grid-cols-2 xl:grid-cols-3' : 'flex flex-col gap-2')}>
          {visible.map((r) => (
            <ReportCard
              key={r.id}
              report={r}
              href={editorHref(r.id)}
              view={view}
              canEdit={canEdit}
              onOpen={() => openReport(r.id)}
              onRename={(name) => onRename(r, name)}
              onCopyId={() => void onCopyId(r)}
              onDelete={() => setToDelete(r)}
            />
          ))}
        </div>
      )}

      <NameDialog
        open={newReportOpen}
        onOpenChange={(open) => {
          setNewReportOpen(open)
          if (!open) setTemplateId('')
        }}
        title="New Report"
        description={
          (currentFolder ? `The report is created in ${currentFolder.name}. ` : '') +
          'It starts from a template\'s sections, or as a draft with an Introduction section.'
        }
        label="Report name"
        placeholder="e.g. Q3 Pillar 3 disclosure"
        submitLabel="Create Report"
        requiredMessage="Report name is required"
        pending={createReport.isPending}
        onSubmit={onCreateReport}
      >
        <FormField label="Template" hint={templates.isError ? 'Failed to load report templates' : undefined}>
          {(ids) => (
            <Select {...ids} value={templateId} onChange={(e) => setTemplateId(e.target.value)}>
              <option value="">No template (custom report)</option>
              {(templates.data ?? []).map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name} ({t.sections.length} {t.sections.length === 1 ? 'section' : 'sections'})
                </option>
              ))}
            </Select>
          )}
        </FormField>
      </NameDialog>
      <NameDialog
        open={newFolderOpen}
        onOpenChange={setNewFolderOpen}
        title="New Folder"
        description={currentFolder ? `The folder is created in ${currentFolder.name}.` : 'Group related reports together.'}
        label="Folder name"
        placeholder="e.g. Quarterly disclosures"
        submitLabel="Create Folder"
        requiredMessage="Folder name is required"
        pending={createFolder.isPending}
        onSubmit={onCreateFolder}
      />
      <ConfirmDeleteDialog name={toDelete?.name ?? null} pending={deleteReport.isPending} onCancel={() => setToDelete(null)} onConfirm={onConfirmDelete} />
    </div>
  )
}

function FolderBar({ folders, current, childFolders, onOpen }: { folders: ReportFolder[]; current: ReportFolder | null; childFolders: ReportFolder[]; onOpen: (id: string | null) => void }) {
  const trail: ReportFolder[] = []
  for (let f = current; f; f = folders.find((p) => p.id === f?.parent_folder_id) ?? null) trail.unshift(f)
  if (!current && childFolders.length === 0) return null
  return (
    <div className="space-y-3">
      <nav aria-label="Folders" className="flex items-center gap-1 text-sm">
        <button type="button" className={cn('hover:underline', current ? 'text-brand-700' : 'font-medium text-slate-900')} onClick={() => onOpen(null)}>
          All reports
        </button>
        {trail.map((f) => (
          <span key={f.id} className="flex items-center gap-1">
            <ChevronRight className="size-4 text-slate-400" aria-hidden="true" />
            <button type="button" className={cn('hover:underline', f.id === current?.id ? 'font-medium text-slate-900' : 'text-brand-700')} onClick={() => onOpen(f.id)}>
              {f.name}
            </button>
          </span>
        ))}
      </nav>
      {childFolders.length > 0 && (
        <div className="flex flex-wrap gap-2">
          {childFolders.map((f) => (
            <Button key={f.id} variant="outline" onClick={() => onOpen(f.id)}>
              <Folder className="text-amber-600" /> {f.name}
            </Button>
          ))}
        </div>
      )}
    </div>
  )
}

/**
 * With no report at all in the company: Create Your First Report (the create button only for those
 * who may create). With reports that the search or the current folder leaves out: No Reports Found.
 */
type EmptyStateProps = { searching: boolean; inFolder: boolean; anyReport: boolean; canEdit: boolean; onCreate: () => void }

function EmptyState({ searching, inFolder, anyReport, canEdit, onCreate }: EmptyStateProps) {
  if (anyReport) {
    const why = searching ? 'No report matches your search.' : inFolder ? 'This folder has no reports yet.' : 'Every report is in a folder: open one above.'
    return (
      <div className="rounded-lg border border-dashed border-slate-300 py-16 text-center">
        <h2 className="font-medium text-slate-900">No Reports Found</h2>
        <p className="mt-1 text-sm text-slate-500">{why}</p>
      </div>
    )
  }
  return (
    <div className="rounded-lg border border-dashed border-slate-300 py-16 text-center">
      <h2 className="font-medium text-slate-900">Create Your First Report</h2>
      <p className="mt-1 text-sm text-slate-500">
        {canEdit ? 'Draft your first regulatory report with your team.' : 'Your team has not drafted any report yet.'}
      </p>
      {canEdit && (
        <Button className="mt-4" onClick={onCreate}>
          <Plus /> Create Report
        </Button>
      )}
    </div>
  )
}
