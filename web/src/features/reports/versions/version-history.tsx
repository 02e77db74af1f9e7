import type { ReportVersion } from '@/api/types/ReportVersion'
import { EditorContent, useEditor } from '@tiptap/react'
import { Eye, History, RotateCcw, Trash2 } from 'lucide-react'
import { useMemo, useState, type FormEvent } from 'react'
import * as Y from 'yjs'

import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { FormField } from '@/components/ui/form-field'
import { Input } from '@/components/ui/input'
import { Spinner } from '@/components/ui/spinner'
import { errorMessage } from '@/lib/api-client'
import { formatDateTime } from '@/lib/format'
import { toast } from '@/lib/toast'

import { sectionExtensions } from '../components/section-editor'
import { ReportMediaContext, type ReportMediaContextValue } from '../media/nodes'
import { readSections } from '../utils/sections'
import { decodeState, useCreateVersion, useDeleteVersion, useLiveVersions, useRestoreVersion, useVersion, useVersions } from './api'

/** Longest version name the server accepts. */
export const MAX_VERSION_NAME = 120

type Props = {
  clientId: string
  reportId: string
  canEdit: boolean
  /** The editor's media context, so a version's charts and images show as in the document. */
  media: ReportMediaContextValue
}

/**
 * The report's version history (side panel): name and keep the current state, the list of
 * versions (who, when; automatic ones marked), a read-only view of one and restore, which
 * every co-editor receives live, and delete. Viewers see and open versions, nothing more.
 */
export function VersionHistory({ clientId, reportId, canEdit, media }: Props) {
  useLiveVersions(clientId, reportId)
  const versions = useVersions(clientId, reportId)
  const create = useCreateVersion(clientId, reportId)
  const restore = useRestoreVersion(clientId, reportId)
  const remove = useDeleteVersion(clientId, reportId)
  const [name, setName] = useState('')
  const [error, setError] = useState<string | undefined>()
  const [viewing, setViewing] = useState<ReportVersion | null>(null)
  const [restoring, setRestoring] = useState<ReportVersion | null>(null)
  const [deleting, setDeleting] = useState<ReportVersion | null>(null)

  const save = (e: FormEvent) => {
    e.preventDefault()
    const trimmed = name.trim()
    if (!trimmed) {
      setError('Version name is required')
      return
    }
    setError(undefined)
    create.mutate(trimmed, {
      onSuccess: (v) => {
        setName('')
        toast.success('Version saved', `"${v.name}" keeps the report as it is now.`)
      },
      onError: (err) => setError(errorMessage(err, 'Unable to save the version. Please try again.')),
    })
  }

  const confirmRestore = () => {
    const version = restoring
    if (!version) return
    restore.mutate(version.id, {
      onSuccess: () => {
        setRestoring(null)
        setViewing(null)
        toast.success('Version restored', `"${version.name}" is back for everyone; the previous state was kept as a version.`)
      },
      onError: (err) => toast.error('Restore failed', errorMessage(err, 'Unable to restore the version. Please try again.')),
    })
  }

  const confirmDelete = () => {
    const version = deleting
    if (!version) return
    remove.mutate(version.id, {
      onSuccess: () => {
        setDeleting(null)
        toast.success('Version deleted', `"${version.name}" was removed; the report itself is unchanged.`)
      },
      onError: (err) => toast.error('Delete failed', errorMessage(err, 'Unable to delete the version. Please try again.')),
    })
  }

  return (
    <div className="space-y-3 text-sm">
      {canEdit && (
        <form onSubmit={save} className="space-y-2" noValidate>
          <FormField label="Version name" error={error}>
            {(ids) => (
              <Input
                {...ids}
                value={name}
                maxLength={MAX_VERSION_NAME}
                placeholder="e.g. Sent to the approver"
                onChange={(e) => setName(e.target.value)}
              />
            )}
          </FormField>
          <Button type="submit" variant="outline" className="w-full" disabled={create.isPending} aria-busy={create.isPending}>
            {create.isPending ? <Spinner /> : <History />} Save Version
          </Button>
        </form>
      )}
      {versions.isPending ? (
        <p className="text-slate-500">Loading versions…</p>
      ) : versions.isError ? (
        <p role="alert" className="text-red-600">
          {errorMessage(versions.error, 'Unable to load the versions.')}
        </p>
      ) : versions.data.length === 0 ? (
        <p className="text-slate-500">No versions yet.</p>
      ) : (
        <ul className="space-y-2" aria-label="Versions">
          {versions.data.map((v) => (
            <li key={v.id} className="rounded-md border border-slate-200 p-2">
              <div className="flex items-start justify-between gap-2">
                <p className="min-w-0 break-words font-medium text-slate-900">{v.name}</p>
                {v.kind !== 'manual' && (
                  <span className="shrink-0 rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-600">Automatic</span>
                )}
              </div>
              <p className="text-xs text-slate-500">
                {v.created_by_name ?? 'Former user'} · {formatDateTime(v.created_at)}
              </p>
              <div className="mt-2 flex gap-2">
                <Button size="sm" variant="outline" onClick={() => setViewing(v)} aria-label={`View ${v.name}`}>
                  <Eye /> View
                </Button>
                {canEdit && (
                  <>
                    <Button size="sm" variant="outline" onClick={() => setRestoring(v)} aria-label={`Restore ${v.name}`}>
                      <RotateCcw /> Restore
                    </Button>
                    <Button size="sm" variant="ghost" onClick={() => setDeleting(v)} aria-label={`Delete ${v.name}`}>
                      <Trash2 />
                    </Button>
                  </>
                )}
              </div>
            </li>
          ))}
        </ul>
      )}

      <Dialog open={viewing !== null} onOpenChange={(open) => !open && setViewing(null)}>
        <DialogContent className="max-h-[85vh] max-w-3xl overflow-y-auto">
          <DialogHeader>
            <DialogTitle>{viewing?.name}</DialogTitle>
            <DialogDescription>
              Read-only. Saved by {viewing?.created_by_name ?? 'a former user'} on {formatDateTime(viewing?.created_at)}.
            </DialogDescription>
          </DialogHeader>
          {viewing && (
            <ReportMediaContext.Provider value={media}>
              <VersionView clientId={clientId} reportId={reportId} versionId={viewing.id} />
            </ReportMediaContext.Provider>
          )}
          {canEdit && viewing && (
            <DialogFooter>
              <Button onClick={() => setRestoring(viewing)}>
                <RotateCcw /> Restore this version
              </Button>
            </DialogFooter>
          )}
        </DialogContent>
      </Dialog>

      <Dialog open={deleting !== null} onOpenChange={(open) => !open && setDeleting(null)}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Delete version</DialogTitle>
            <DialogDescription>{`Delete "${deleting?.name ?? ''}"? The report's content is not changed. This action cannot be undone.`}</DialogDescription>
          </DialogHeader>
          <DialogFooter>
            <Button variant="outline" onClick={() => setDeleting(null)}>
              Cancel
            </Button>
            <Button variant="destructive" onClick={confirmDelete} disabled={remove.isPending} aria-busy={remove.isPending}>
              {remove.isPending ? <Spinner /> : <Trash2 />} Delete
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>

      <Dialog open={restoring !== null} onOpenChange={(open) => !open && setRestoring(null)}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Restore version</DialogTitle>
            <DialogDescription>
              {`Restore "${restoring?.name ?? ''}"? The report's content, sections and branding become that version's for everyone editing it. The current state is kept as a version first.`}
            </DialogDescription>
          </DialogHeader>
          <DialogFooter>
            <Button variant="outline" onClick={() => setRestoring(null)}>
              Cancel
            </Button>
            <Button onClick={confirmRestore} disabled={restore.isPending} aria-busy={restore.isPending}>
              {restore.isPending ? <Spinner /> : <RotateCcw />} Restore
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </div>
  )
}

/** A version's sections, read-only, from its stored state. */
function VersionView({ clientId, reportId, versionId }: { clientId: string; reportId: string; versionId: string }) {
  const version = useVersion(clientId, reportId, versionId)
  const doc = useMemo(() => {
    if (!version.data) return null
    const d = new Y.Doc()
    Y.applyUpdate(d, decodeState(version.data.state))
    return d
  }, [version.data])
  if (version.isPending) return <p className="text-sm text-slate-500">Loading version…</p>
  if (version.isError || !doc)
    return (
      <p role="alert" className="text-sm text-red-600">
        {errorMessage(version.error, 'Unable to load the version.')}
      </p>
    )
  const sections = readSections(doc)
  return (
    <article className="report-document space-y-4" aria-label="Version content">
      {sections.map((s) => (
        <section key={s.id} className="report-section" aria-label={s.title}>
          <h2 className="text-lg font-semibold text-slate-900">{s.title}</h2>
          <ReadOnlySection doc={doc} sectionId={s.id} title={s.title} />
        </section>
      ))}
    </article>
  )
}

function ReadOnlySection({ doc, sectionId, title }: { doc: Y.Doc; sectionId: string; title: string }) {
  const editor = useEditor(
    {
      extensions: sectionExtensions(doc, sectionId),
      editable: false,
      editorProps: { attributes: { 'aria-label': `${title} content (read-only)` } },
    },
    [doc, sectionId],
  )
  return <EditorContent editor={editor} className="report-section-content" />
}
