import './editor.css'

import type { ReportStatus } from '@/api/types/ReportStatus'
import type { ReportSummary } from '@/api/types/ReportSummary'
import type { Editor } from '@tiptap/core'
import { ArrowDown, ArrowLeft, ArrowUp, Copy, Palette, FileDown, Pencil, Plus, Save, Trash2 } from 'lucide-react'
import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import { Link, useBlocker, useNavigate, useSearchParams } from 'react-router'
import type * as Y from 'yjs'

import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { Input } from '@/components/ui/input'
import { Popover, PopoverContent, PopoverTrigger } from '@/components/ui/popover'
import { Spinner } from '@/components/ui/spinner'
import { paths } from '@/config/paths'
import { ApiError, errorMessage } from '@/lib/api-client'
import { CLIENT_PARAM, useClientId, withClient } from '@/hooks/use-client-id'
import { cn } from '@/lib/cn'
import { normalizeHex } from '@/lib/colour'
import { useAuthStore } from '@/lib/auth-store'
import { closeMessage } from '@/lib/close-codes'
import type { DocumentConnection } from '@/lib/collab-provider'
import { toast } from '@/lib/toast'

import { usePdfExport } from '@/hooks/use-pdf-export'

import { reportPdfPath, useLiveReport, useReport, useUpdateReport } from '../api'
import { useReportDocument } from '../hooks/use-report-document'
import { applyServer, changedFields, hasUnsaved, initialMeta } from '../utils/report-meta'
import {
  addSection,
  deleteSectionWithUndo,
  duplicateSection,
  moveSection,
  renameSection,
  SECTIONS_MAP,
  SECTION_LAYOUTS,
  setSectionStyle,
  type SectionLayout,
  type Section,
  type SectionDeletion,
} from '../utils/sections'
import { mediaUrl, NAVIGATION, setBranding, useBranding } from '../utils/branding'
import { DataPanel } from '../media/data-panel'
import { ReportMediaContext } from '../media/nodes'
import { useMediaEditing } from '../media/use-media-editing'
import { BrandingPanel } from './branding-panel'
import { EditorToolbar } from './editor-toolbar'
import { InlineRename } from './inline-rename'
import { StatusBadge } from './report-badges'
import { TemplateImport } from './template-import'
import { AssistantDialog } from '../assistant/assistant-dialog'
import { ReportErrorBoundary } from './report-error-boundary'
import { SectionEditor, type CaretUser } from './section-editor'
import { SidePanel } from './side-panel'
import { VersionHistory } from '../versions/version-history'

/** Auto-save of the report's name and status, after changes (the spec's 90 seconds). */
export const AUTO_SAVE_DELAY_MS = 90_000
/** How long the Undo of a section deletion is offered. */
export const UNDO_DELETE_MS = 10_000

/** The report list, in the report's folder and with an administrator's chosen client kept. */
function useDocumentsHref(folderId: string | null): string {
  const [params] = useSearchParams()
  const list = paths.client.reports.getHref()
  return withClient(folderId ? `${list}?folder=${encodeURIComponent(folderId)}` : list, params.get(CLIENT_PARAM))
}

const CARET_COLORS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#db2777', '#4f46e5']

/** A stable caret colour per user. */
export function caretColor(userId: string): string {
  let h = 0
  for (const c of userId) h = (h * 31 + c.charCodeAt(0)) | 0
  return CARET_COLORS[Math.abs(h) % CARET_COLORS.length]
}

export function ReportEditorPage({ reportId }: { reportId: string }) {
  return <ReportErrorBoundary>{(attempt) => <ReportEditor key={attempt} reportId={reportId} />}</ReportErrorBoundary>
}

function LoadError({ message }: { message: string }) {
  const navigate = useNavigate()
  const documents = useDocumentsHref(null)
  return (
    <div role="alert" className="mx-auto max-w-lg space-y-4 rounded-lg border border-slate-200 bg-white p-6 text-center">
      <h2 className="text-lg font-semibold text-slate-900">Error loading report</h2>
      <p className="text-sm text-slate-600">{message}</p>
      <Button onClick={() => navigate(documents)}>
        <ArrowLeft /> Back to Documents
      </Button>
    </div>
  )
}

function ReportEditor({ reportId }: { reportId: string }) {
  const clientId = useClientId()
  const report = useReport(clientId, reportId)
  const document = useReportDocument(reportId)
  // Live on the report list's topic: a rename or status change by a colleague refetches the report.
  useLiveReport(clientId, reportId)
  if (!clientId) return <LoadError message="Your account is not linked to a client, so there are no reports to show." />
  // A failed background refetch keeps the editor (and unsaved edits); a report that is gone does not.
  const gone = report.isError && (!report.data || (report.error instanceof ApiError && (report.error.status === 403 || report.error.status === 404)))
  if (gone) return <LoadError message={errorMessage(report.error, 'Failed to load report')} />
  if (document.refused !== null) return <LoadError message={closeMessage(document.refused)} />
  if (!report.data || !document.connection) {
    return (
      <div className="flex justify-center py-16">
        <Spinner label="Loading report..." />
      </div>
    )
  }
  return (
    <LoadedEditor
      report={report.data.report}
      canEdit={report.data.can_edit && !document.readOnly}
      revoked={report.data.can_edit && document.readOnly}
      connection={document.connection}
      connected={document.status === 'connected'}
      synced={document.synced}
      sections={document.sections}
    />
  )
}

type LoadedProps = {
  report: ReportSummary
  canEdit: boolean
  /** The server stopped accepting this user's edits while the report was open. */
  revoked: boolean
  connection: DocumentConnection
  connected: boolean
  synced: boolean
  sections: Section[]
}

function LoadedEditor({ report, canEdit, revoked, connection, connected, synced, sections }: LoadedProps) {
  const me = useAuthStore((s) => s.user)
  const user: CaretUser = useMemo(
    () => ({ name: [me?.name, me?.last_name].filter(Boolean).join(' ') || me?.email || 'Anonymous', color: caretColor(me?.id ?? '') }),
    [me],
  )
  const update = useUpdateReport(report.client_id)
  const [meta, setMeta] = useState(() => initialMeta(report))
  // Each new server snapshot (a live change, a refetch) moves the baseline and the fields not
  // being edited here; fields edited here keep their local value.
  const [seen, setSeen] = useState(report)
  if (seen !== report) {
    setSeen(report)
    setMeta((m) => applyServer(m, report))
  }
  const [active, setActive] = useState<Editor | null>(null)
  const [sectionToDelete, setSectionToDelete] = useState<Section | null>(null)
  const [assistantFor, setAssistantFor] = useState<Section | null>(null)
  const lastDeletion = useRef<SectionDeletion | null>(null)
  const documentsHref = useDocumentsHref(report.folder_id)
  const unsaved = hasUnsaved(meta)
  const { name, status } = meta.local

  // One save at a time: confirming a rename by leaving the field and clicking Save at once sends one.
  const saving = useRef(false)
  const save = useCallback(() => {
    const body = changedFields(meta)
    if (body.name === '') {
      toast.error('Save Failed', 'Report name is required')
      return
    }
    if ((body.name === undefined && body.status === undefined) || saving.current) return
    saving.current = true
    update.mutate(
      { id: report.id, body },
      {
        onSettled: () => {
          saving.current = false
        },
        onSuccess: (r) => {
          setMeta((m) => applyServer(m, r, body))
          toast.success('Report Saved')
        },
        onError: (e) => toast.error('Save Failed', errorMessage(e, 'Unable to save the report. Please try again.')),
      },
    )
  }, [meta, report.id, update])

  // Auto-save 90 seconds after the last change while changes are pending.
  const saveRef = useRef(save)
  useEffect(() => {
    saveRef.current = save
  }, [save])
  useEffect(() => {
    if (!unsaved || !canEdit) return
    const timer = setTimeout(() => saveRef.current(), AUTO_SAVE_DELAY_MS)
    return () => clearTimeout(timer)
  }, [unsaved, canEdit, name, status])

  // Leaving with unsaved name or status asks first (links, the back button); closing the tab too.
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) => unsaved && canEdit && currentLocation.pathname !== nextLocation.pathname,
  )
  useEffect(() => {
    // A save that finished while the question was showing (a rename confirmed by leaving the
    // field): nothing is lost any more, so go on.
    if (blocker.state === 'blocked' && !unsaved) blocker.proceed()
  }, [blocker, unsaved])
  useEffect(() => {
    if (!unsaved || !canEdit) return
    const onBeforeUnload = (event: BeforeUnloadEvent) => event.preventDefault()
    window.addEventListener('beforeunload', onBeforeUnload)
    return () => window.removeEventListener('beforeunload', onBeforeUnload)
  }, [unsaved, canEdit])

  const doc = connection.doc
  const branding = useBranding(doc)
  const media = useMediaEditing({ doc, clientId: report.client_id, reportId: report.id, sections, active })

  // A section a colleague deleted does not vanish without a word (its text may have been being
  // typed here); the colleague can still undo it.
  const titles = useRef(new Map<string, string>())
  useEffect(() => {
    for (const s of sections) titles.current.set(s.id, s.title)
  }, [sections])
  useEffect(() => {
    const map = doc.getMap(SECTIONS_MAP)
    const onChange = (event: Y.YMapEvent<unknown>, transaction: Y.Transaction) => {
      if (transaction.local) return
      for (const [id, change] of event.changes.keys) {
        if (change.action !== 'delete') continue
        const title = titles.current.get(id) ?? 'A section'
        toast.info('Section deleted by a colleague', `"${title}" was deleted by someone editing this report.`)
      }
    }
    map.observe(onChange)
    return () => map.unobserve(onChange)
  }, [doc])

  // Deleting a section asks first, then offers Undo (the collaborative undo of this deletion).
  useEffect(() => () => lastDeletion.current?.release(), [])
  const confirmDeleteSection = () => {
    const section = sectionToDelete
    setSectionToDelete(null)
    if (!section) return
    lastDeletion.current?.release()
    const deletion = deleteSectionWithUndo(doc, section.id)
    lastDeletion.current = deletion
    if (!deletion) return
    toast.success('Section deleted', `"${section.title}" was removed for everyone.`, {
      duration: UNDO_DELETE_MS,
      action: {
        label: 'Undo',
        onClick: () => {
          if (deletion.undo()) toast.success('Section restored', `"${section.title}" is back.`)
        },
      },
      onDismiss: () => deletion.release(),
      onAutoClose: () => deletion.release(),
    })
  }

  // The server lays the PDF out from the shared document (every co-editor's latest edits).
  const pdf = usePdfExport('Unable to export the report. Please try again.')
  const exportPdf = () => void pdf.run(reportPdfPath(report.client_id, report.id), `${meta.saved.name || 'report'}.pdf`)

  return (
    <div className="mx-auto flex max-w-7xl flex-col gap-4 lg:flex-row">
      <div className="min-w-0 flex-1 space-y-4">
        <header className="report-editor-chrome space-y-3 rounded-lg border border-slate-200 bg-white p-4">
          <Link to={documentsHref} className="inline-flex items-center gap-1 text-sm font-medium text-brand-700 hover:underline">
            <ArrowLeft className="size-4" aria-hidden="true" /> Back to Documents
          </Link>
          <div className="flex flex-wrap items-center gap-3">
            {canEdit ? (
              <Input
                aria-label="Report name"
                value={name}
                onChange={(e) => {
                  const value = e.target.value
                  setMeta((m) => ({ ...m, local: { ...m.local, name: value } }))
                }}
                // A rename is confirmed with Enter or by leaving the field, and saved then;
                // Escape puts the saved name back.
                onKeyDown={(e) => {
                  if (e.key === 'Enter') {
                    e.preventDefault()
                    save()
                  } else if (e.key === 'Escape') {
                    e.preventDefault()
                    setMeta((m) => ({ ...m, local: { ...m.local, name: m.saved.name } }))
                  }
                }}
                onBlur={() => {
                  if (name !== meta.saved.name && name.trim() !== '') save()
                }}
                className="w-full min-w-0 text-lg font-semibold sm:max-w-md"
              />
            ) : (
              <h1 className="text-xl font-semibold text-slate-900">{meta.saved.name}</h1>
            )}
            <StatusBadge status={status} />
            {unsaved && <span className="text-sm font-medium text-amber-700">Unsaved changes</span>}
          </div>
          <div className="flex flex-wrap items-center gap-3 text-sm text-slate-500">
            <span>{report.template_id ? 'Template-based report' : 'Custom report'}</span>
            <span aria-live="polite" data-testid="connection-status">
              {!connected ? 'Offline: reconnecting...' : synced ? 'Connected: edits are shared live' : 'Syncing...'}
            </span>
            {!canEdit && <span className="rounded bg-slate-100 px-2 py-0.5 text-slate-700">Read-only</span>}
            {revoked && (
              <span role="status" className="text-amber-700">
                Your access to this report has changed: you can read it but no longer edit it.
              </span>
            )}
            <div className="ml-auto flex flex-wrap items-center gap-2">
              {canEdit && (
                <>
                  <select
                    aria-label="Status"
                    value={status}
                    onChange={(e) => {
                      const value = e.target.value as ReportStatus
                      setMeta((m) => ({ ...m, local: { ...m.local, status: value } }))
                    }}
                    className="h-9 rounded-md border border-slate-300 bg-white px-2 text-sm text-slate-900"
                  >
                    <option value="draft">Draft</option>
                    <option value="published">Published</option>
                  </select>
                  <Button onClick={save} disabled={!unsaved || update.isPending}>
                    <Save /> {unsaved ? 'Save Changes' : 'Saved'}
                  </Button>
                </>
              )}
              <Button variant="outline" onClick={exportPdf} disabled={pdf.busy} aria-busy={pdf.busy}>
                {pdf.busy ? <Spinner /> : <FileDown />} Export PDF
              </Button>
            </div>
          </div>
          {canEdit && (
            <EditorToolbar
              editor={active}
              media={{
                insertChart: media.openChart,
                insertTable: media.openTable,
                insertImage: media.openImage,
                editTable: media.editTable,
                deleteTable: media.deleteTable,
              }}
            />
          )}
        </header>

        <ReportMediaContext.Provider value={media.context}>
        <div
          className="report-document overflow-hidden rounded-lg border border-slate-200"
          data-orientation={branding.orientation}
          aria-label="Report document"
          role="document"
          style={{ backgroundColor: branding.backgroundColor, fontFamily: branding.fontFamily, fontSize: `${branding.fontScale}rem` }}
        >
          <div className="flex items-center justify-between gap-4 px-6 py-5 text-white" style={{ backgroundColor: branding.primaryColor }} data-testid="report-header">
            <div className="min-w-0">
              <h1 className="text-2xl font-bold" style={{ fontFamily: branding.headingFontFamily }}>
                {meta.saved.name}
              </h1>
              {branding.subtitle && <p className="mt-1 text-sm opacity-90">{branding.subtitle}</p>}
            </div>
            {branding.logoMediaId && (
              <img src={mediaUrl(report.id, branding.logoMediaId)} alt="Logo" className="h-12 max-w-40 shrink-0 rounded bg-white/90 object-contain p-1" />
            )}
          </div>
          <ReportNavigation sections={sections} />
          <div className="space-y-4 p-6" style={{ ['--report-heading-font' as string]: branding.headingFontFamily, ['--report-accent' as string]: branding.secondaryColor }}>
          {sections.map((s, i) => (
            <section
              key={s.id}
              id={`report-section-${s.id}`}
              aria-label={s.title}
              data-layout={s.layout}
              className={cn('group space-y-2', s.background && '-mx-3 rounded-md px-3 py-2', `report-layout-${s.layout}`)}
              style={s.background ? { backgroundColor: s.background } : undefined}
              onDoubleClick={canEdit ? () => setAssistantFor(s) : undefined}
            >
              <SectionHeading doc={doc} section={s} index={i} count={sections.length} canEdit={canEdit} onDelete={setSectionToDelete} />
              <SectionEditor doc={doc} provider={connection.provider} sectionId={s.id} title={s.title} editable={canEdit} user={user} onFocus={setActive} onEditor={media.registerEditor} />
            </section>
          ))}
          {synced && sections.length === 0 && <p className="text-sm text-slate-500">This report has no sections yet.</p>}
          <AssistantDialog doc={doc} clientId={report.client_id} reportId={report.id} section={assistantFor} onClose={() => setAssistantFor(null)} />
          <p className="report-editor-chrome pt-4 text-center text-xs text-slate-400">Pages are numbered “Page n of m” in the exported PDF.</p>
          </div>
        </div>
        </ReportMediaContext.Provider>
      </div>

      <aside className="report-editor-chrome w-full shrink-0 space-y-3 lg:w-72" aria-label="Report panel">
        <SidePanel title="Structure">
          <ol className="space-y-1 text-sm text-slate-700" aria-label="Sections">
            {sections.map((s) => (
              <li key={s.id} className="truncate">
                {s.title}
              </li>
            ))}
          </ol>
          {canEdit && (
            <Button variant="outline" className="mt-3 w-full" onClick={() => addSection(doc)}>
              <Plus /> Add Custom Section
            </Button>
          )}
          {canEdit && <TemplateImport clientId={report.client_id} reportId={report.id} />}
        </SidePanel>
        <SidePanel title="Branding" defaultOpen={false}>
          <BrandingPanel doc={doc} branding={branding} canEdit={canEdit} clientId={report.client_id} reportId={report.id} />
        </SidePanel>
        <SidePanel title="Data & Charts" defaultOpen={false}>
          <DataPanel
            clientId={report.client_id}
            reportId={report.id}
            canEdit={canEdit}
            onInsertChart={media.openChart}
            onInsertTable={media.openTable}
            imageInUse={media.imageInUse}
          />
        </SidePanel>
        <SidePanel title="Settings" defaultOpen={false}>
          <fieldset className="space-y-2 text-sm text-slate-700" disabled={!canEdit}>
            <legend className="sr-only">PDF orientation</legend>
            {(
              [
                ['portrait', 'Portrait PDF'],
                ['landscape', 'Landscape PDF'],
              ] as const
            ).map(([value, label]) => (
              <label key={value} className="flex items-center gap-2">
                <input
                  type="radio"
                  name="report-orientation"
                  value={value}
                  checked={branding.orientation === value}
                  onChange={() => setBranding(doc, { orientation: value })}
                />
                {label}
              </label>
            ))}
          </fieldset>
        </SidePanel>
        <SidePanel title="Version History" defaultOpen={false}>
          <VersionHistory clientId={report.client_id} reportId={report.id} canEdit={canEdit} media={media.context} />
        </SidePanel>
      </aside>

      {media.dialogs}

      <Dialog open={sectionToDelete !== null} onOpenChange={(open) => !open && setSectionToDelete(null)}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Delete section</DialogTitle>
            <DialogDescription>
              Delete "{sectionToDelete?.title}" and its content for everyone editing this report? You can undo it right after.
            </DialogDescription>
          </DialogHeader>
          <DialogFooter>
            <Button variant="outline" onClick={() => setSectionToDelete(null)}>
              Cancel
            </Button>
            <Button variant="destructive" onClick={confirmDeleteSection}>
              Delete
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>

      <Dialog open={blocker.state === 'blocked'} onOpenChange={(open) => !open && blocker.reset?.()}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Unsaved changes</DialogTitle>
            <DialogDescription>The report's name or status has changes that are not saved. Leave without saving them?</DialogDescription>
          </DialogHeader>
          <DialogFooter>
            <Button variant="outline" onClick={() => blocker.reset?.()}>
              Stay
            </Button>
            <Button variant="outline" onClick={() => blocker.proceed?.()}>
              Leave without saving
            </Button>
            <Button onClick={save} disabled={update.isPending}>
              <Save /> Save and leave
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </div>
  )
}

type SectionHeadingProps = {
  doc: Y.Doc
  section: Section
  index: number
  count: number
  canEdit: boolean
  /** Asks to delete the section (the editor confirms first). */
  onDelete: (section: Section) => void
}

/**
 * A section's title with its actions. Rename is a button (so it is reachable by keyboard);
 * double-clicking a section opens the AI text assistant.
 */
function SectionHeading({ doc, section: s, index, count, canEdit, onDelete }: SectionHeadingProps) {
  const [renaming, setRenaming] = useState(false)
  const renameButton = useRef<HTMLButtonElement>(null)
  return (
    <div className="flex items-center gap-2">
      {renaming ? (
        <InlineRename
          initial={s.title}
          label="Section title"
          onSave={(t) => renameSection(doc, s.id, t)}
          onDone={(byKeyboard) => {
            setRenaming(false)
            // Enter or Escape hands the focus back to the button that started the rename.
            if (byKeyboard) requestAnimationFrame(() => renameButton.current?.focus())
          }}
        />
      ) : (
        <h2 className="flex flex-1 items-center gap-2 text-lg font-semibold text-slate-900" style={{ fontFamily: 'var(--report-heading-font)' }}>
          {s.title}
          {s.aiGenerated && (
            <span className="report-editor-chrome rounded bg-violet-50 px-1.5 py-0.5 font-sans text-xs font-medium text-violet-700">AI-generated</span>
          )}
        </h2>
      )}
      {canEdit && (
        <div className="report-editor-chrome flex gap-1 opacity-60 group-focus-within:opacity-100 group-hover:opacity-100">
          <Button ref={renameButton} variant="ghost" size="icon" aria-label={`Rename ${s.title}`} disabled={renaming} onClick={() => setRenaming(true)}>
            <Pencil />
          </Button>
          <Button variant="ghost" size="icon" aria-label={`Move ${s.title} up`} disabled={index === 0} onClick={() => moveSection(doc, s.id, -1)}>
            <ArrowUp />
          </Button>
          <Button variant="ghost" size="icon" aria-label={`Move ${s.title} down`} disabled={index === count - 1} onClick={() => moveSection(doc, s.id, 1)}>
            <ArrowDown />
          </Button>
          <SectionStyle doc={doc} section={s} />
          <Button variant="ghost" size="icon" aria-label={`Duplicate ${s.title}`} onClick={() => duplicateSection(doc, s.id)}>
            <Copy />
          </Button>
          <Button variant="ghost" size="icon" aria-label={`Delete ${s.title}`} onClick={() => onDelete(s)}>
            <Trash2 />
          </Button>
        </div>
      )}
    </div>
  )
}

/** A section's layout and background, shared live (the section's entry in the shared map). */
function SectionStyle({ doc, section: s }: { doc: Y.Doc; section: Section }) {
  const [text, setText] = useState(s.background ?? '')
  const valid = text.trim() === '' || normalizeHex(text) !== null
  return (
    <Popover onOpenChange={(open) => open && setText(s.background ?? '')}>
      <PopoverTrigger asChild>
        <Button variant="ghost" size="icon" aria-label={`Style of ${s.title}`}>
          <Palette />
        </Button>
      </PopoverTrigger>
      <PopoverContent aria-label={`Style of ${s.title}`} className="w-64 space-y-3">
        <label className="block space-y-1">
          <span className="text-xs font-medium text-slate-700">Layout</span>
          <select
            aria-label="Section layout"
            value={s.layout}
            onChange={(e) => setSectionStyle(doc, s.id, { layout: e.target.value as SectionLayout })}
            className="h-9 w-full rounded-md border border-slate-300 bg-white px-2 text-sm"
          >
            {SECTION_LAYOUTS.map((l) => (
              <option key={l.value} value={l.value}>
                {l.label}
              </option>
            ))}
          </select>
        </label>
        <label className="block space-y-1">
          <span className="text-xs font-medium text-slate-700">Section background</span>
          <Input
            aria-label="Section background"
            placeholder="None, or #f1f5f9"
            value={text}
            aria-invalid={!valid}
            onChange={(e) => {
              setText(e.target.value)
              if (e.target.value.trim() === '') setSectionStyle(doc, s.id, { background: null })
              const hex = normalizeHex(e.target.value)
              if (hex) setSectionStyle(doc, s.id, { background: hex })
            }}
          />
          {!valid && (
            <span role="alert" className="text-xs text-red-600">
              Enter a colour like #f1f5f9, or leave it empty.
            </span>
          )}
        </label>
      </PopoverContent>
    </Popover>
  )
}

/**
 * The report's fixed navigation: each item goes to the first section whose title names it, and
 * is disabled while no section does.
 */
function ReportNavigation({ sections }: { sections: Section[] }) {
  return (
    <nav aria-label="Report navigation" className="report-editor-chrome flex flex-wrap gap-1 border-b border-slate-200 px-6 py-2 text-sm">
      {NAVIGATION.map((item) => {
        const target = sections.find((s) => item.words.test(s.title))
        return (
          <button
            key={item.label}
            type="button"
            disabled={!target}
            title={target ? `Go to ${target.title}` : `No section about ${item.label} yet`}
            className="rounded px-2 py-1 text-slate-700 hover:bg-slate-100 disabled:cursor-default disabled:text-slate-400 disabled:hover:bg-transparent"
            onClick={() => target && document.getElementById(`report-section-${target.id}`)?.scrollIntoView({ behavior: 'smooth', block: 'start' })}
          >
            {item.label}
          </button>
        )
      })}
    </nav>
  )
}
