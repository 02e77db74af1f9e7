import { Pencil, Plus, Trash2, Upload } from 'lucide-react'
import { useMemo, useState } from 'react'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card } from '@/components/ui/card'
import { DataTable, dataTableColumns } from '@/components/ui/data-table'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { Select } from '@/components/ui/select'
import { Spinner } from '@/components/ui/spinner'
import { errorMessage } from '@/lib/api-client'
import { toast } from '@/lib/toast'

import { useCreateLever, useDeleteLever, useDictionary, useSetCategory, useUpdateLever, type LeverEntry } from '../api'
import { CATEGORIES, type LeverValues } from '../utils/schemas'
import { DescriptionCell } from './description-cell'
import { LeverDialog } from './lever-dialog'
import { UploadDialog } from './upload-dialog'

const NO_ROWS: LeverEntry[] = []

/** 'No files', '1 file', '3 files'. */
export function filesLabel(count: number): string {
  if (count === 0) return 'No files'
  return count === 1 ? '1 file' : `${count} files`
}

/**
 * The lever dictionary (spec 000 section 2.8): the levers with their description, category
 * (changed inline) and analysis files; add, edit (a rename moves the files to the new folder),
 * upload analysis files, delete what nothing uses. Live across administrators (`admin:levers`).
 */
export function LeverDictionary() {
  const levers = useDictionary()
  const create = useCreateLever()
  const update = useUpdateLever()
  const setCategory = useSetCategory()
  const remove = useDeleteLever()
  const [dialog, setDialog] = useState<{ editing: LeverEntry | null } | null>(null)
  const [uploading, setUploading] = useState<LeverEntry | null>(null)
  const [deleting, setDeleting] = useState<LeverEntry | null>(null)

  const onSave = async (values: LeverValues): Promise<boolean> => {
    const editing = dialog?.editing ?? null
    const input = { name: values.name.trim(), category: values.category, description: values.description.trim() }
    try {
      if (editing) {
        await update.mutateAsync({ id: editing.id, input })
        toast.success('Lever updated successfully.')
      } else {
        const added = await create.mutateAsync(input)
        toast.success('Lever added', `${added.name} was added to the dictionary.`)
      }
      return true
    } catch (error) {
      toast.error(editing ? 'Update failed' : 'Failed to add lever', errorMessage(error, 'An unexpected error occurred.'))
      return false
    }
  }

  const columns = useMemo(() => {
    const col = dataTableColumns<LeverEntry>()
    return [
      col.accessor('name', {
        header: 'Lever',
        cell: (ctx) => <span className="font-medium text-slate-900">{ctx.row.original.name}</span>,
      }),
      col.display({
        id: 'description',
        header: 'Description',
        cell: (ctx) => <DescriptionCell lever={ctx.row.original.name} description={ctx.row.original.description} />,
      }),
      col.accessor('category', {
        header: 'Category',
        cell: (ctx) => {
          const l = ctx.row.original
          return (
            <Select
              aria-label={`Category of ${l.name}`}
              className="h-9 min-w-40"
              value={l.category}
              onChange={(e) =>
                setCategory.mutate(
                  { id: l.id, category: e.target.value },
                  {
                    onSuccess: (saved) => toast.success('Category updated', `${saved.name} is now in ${saved.category}.`),
                    onError: () => toast.error('Failed to update category. Please try again.'),
                  },
                )
              }
            >
              {CATEGORIES.map((c) => (
                <option key={c} value={c}>
                  {c}
                </option>
              ))}
            </Select>
          )
        },
      }),
      col.accessor('fileCount', {
        header: 'Analysis Files',
        cell: (ctx) => {
          const l = ctx.row.original
          if (l.moving) return <span className="text-xs text-amber-700">Moving files…</span>
          return <span className={l.fileCount === 0 ? 'text-slate-500' : 'text-slate-900'}>{filesLabel(l.fileCount)}</span>
        },
      }),
      col.display({
        id: 'actions',
        header: 'Actions',
        cell: (ctx) => {
          const l = ctx.row.original
          return (
            <span className="flex items-center gap-1">
              <Button variant="ghost" size="icon" className="size-8" aria-label={`Upload analysis files for ${l.name}`} onClick={() => setUploading(l)}>
                <Upload className="size-4" />
              </Button>
              <Button variant="ghost" size="icon" className="size-8" aria-label={`Edit ${l.name}`} onClick={() => setDialog({ editing: l })}>
                <Pencil className="size-4" />
              </Button>
              <Button
                variant="ghost"
                size="icon"
                className="size-8 text-red-600 hover:text-red-700"
                aria-label={`Delete ${l.name}`}
                onClick={() => setDeleting(l)}
              >
                <Trash2 className="size-4" />
              </Button>
            </span>
          )
        },
      }),
    ]
  }, [setCategory])

  // The dialogs follow the live list (a rename elsewhere, files uploaded).
  const fresh = (l: LeverEntry | null) => (l ? (levers.data?.find((x) => x.id === l.id) ?? l) : null)

  return (
    <div className="mx-auto max-w-6xl space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold tracking-tight text-slate-900">Capital Optimization Levers</h1>
          <p className="mt-1 text-sm text-slate-500">Manage the dictionary of optimization levers</p>
        </div>
        <Button onClick={() => setDialog({ editing: null })}>
          <Plus /> Add Lever
        </Button>
      </div>
      {levers.isPending ? (
        <Card className="flex items-center justify-center gap-2 p-10 text-sm text-slate-500">
          <Spinner /> Loading levers…
        </Card>
      ) : levers.isError ? (
        <Alert variant="destructive" className="flex items-center justify-between gap-4">
          <span>Failed to fetch levers. Please try again.</span>
          <Button variant="outline" size="sm" onClick={() => void levers.refetch()}>
            Retry
          </Button>
        </Alert>
      ) : (
        <DataTable
          label="Optimization levers"
          columns={columns}
          data={levers.data ?? NO_ROWS}
          getRowId={(l) => l.id}
          initialPageSize={20}
          empty={<p className="py-6 text-center text-sm text-slate-500">No levers yet. Add the first one.</p>}
        />
      )}
      <LeverDialog
        open={dialog !== null}
        onOpenChange={(open) => (open ? undefined : setDialog(null))}
        editing={fresh(dialog?.editing ?? null)}
        onSave={onSave}
      />
      <UploadDialog lever={fresh(uploading)} onClose={() => setUploading(null)} />
      <Dialog open={deleting !== null} onOpenChange={(open) => (open || remove.isPending ? undefined : setDeleting(null))}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Delete lever</DialogTitle>
            <DialogDescription>
              Delete <strong>{deleting?.name}</strong>
              {deleting && deleting.fileCount > 0 ? ` and its ${filesLabel(deleting.fileCount).toLowerCase()}` : ''}? This cannot be undone. A
              lever that client files or processing runs use cannot be deleted.
            </DialogDescription>
          </DialogHeader>
          <DialogFooter>
            <Button variant="outline" onClick={() => setDeleting(null)} disabled={remove.isPending}>
              Cancel
            </Button>
            <Button
              variant="destructive"
              disabled={remove.isPending}
              onClick={() => {
                const l = deleting
                if (!l) return
                remove.mutate(l.id, {
                  onSuccess: () => {
                    toast.success('Lever deleted', `${l.name} was removed from the dictionary.`)
                    setDeleting(null)
                  },
                  onError: (error) => {
                    toast.error('Delete failed', errorMessage(error, 'An unexpected error occurred.'))
                    setDeleting(null)
                  },
                })
              }}
            >
              {remove.isPending ? 'Deleting...' : 'Delete'}
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </div>
  )
}
