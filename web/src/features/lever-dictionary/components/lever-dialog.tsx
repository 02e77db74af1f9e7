import { zodResolver } from '@hookform/resolvers/zod'
import { Download, Trash2 } from 'lucide-react'
import { useEffect } from 'react'
import { useForm } from 'react-hook-form'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { FormField } from '@/components/ui/form-field'
import { Input } from '@/components/ui/input'
import { Select } from '@/components/ui/select'
import { Spinner } from '@/components/ui/spinner'
import { Textarea } from '@/components/ui/textarea'
import { errorMessage } from '@/lib/api-client'
import { formatDate } from '@/lib/format'
import { toast } from '@/lib/toast'

import { leverFileHref, useDeleteLeverFile, useLeverFiles, type LeverEntry } from '../api'
import { formatSize } from '../utils/files'
import { addLeverSchema, CATEGORIES, editLeverSchema, NEW_CATEGORIES, type LeverValues } from '../utils/schemas'

type Props = {
  open: boolean
  onOpenChange: (open: boolean) => void
  /** The lever edited; null to add one. */
  editing: LeverEntry | null
  /** Saves; resolves true when the dialog may close. */
  onSave: (values: LeverValues) => Promise<boolean>
}

function valuesOf(l: LeverEntry | null): LeverValues {
  return l ? { name: l.name, category: l.category, description: l.description } : { name: '', category: '', description: '' }
}

/** Add New Optimization Lever, or Edit Optimization Lever with the lever's analysis files. */
export function LeverDialog({ open, onOpenChange, editing, onSave }: Props) {
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors, isSubmitting },
  } = useForm<LeverValues>({
    resolver: zodResolver(editing ? editLeverSchema : addLeverSchema),
    defaultValues: valuesOf(editing),
  })
  useEffect(() => {
    if (open) reset(valuesOf(editing))
  }, [open, editing, reset])
  const submit = handleSubmit(async (values) => {
    if (await onSave(values)) onOpenChange(false)
  })
  const categories = editing ? CATEGORIES : NEW_CATEGORIES

  return (
    <Dialog open={open} onOpenChange={(next) => (isSubmitting ? undefined : onOpenChange(next))}>
      <DialogContent className="sm:max-w-xl">
        <DialogHeader>
          <DialogTitle>{editing ? 'Edit Optimization Lever' : 'Add New Optimization Lever'}</DialogTitle>
          <DialogDescription>
            {editing
              ? 'A new name moves the lever’s analysis files to the folder of that name.'
              : 'A lever of the dictionary: its name, category and what it optimises.'}
          </DialogDescription>
        </DialogHeader>
        <form id="lever-form" onSubmit={submit} className="space-y-4" noValidate>
          <FormField label="Lever Name" error={errors.name?.message}>
            {(ids) => <Input {...ids} {...register('name')} placeholder="e.g. Covered bonds" />}
          </FormField>
          <FormField label="Category" error={errors.category?.message}>
            {(ids) => (
              <Select {...ids} {...register('category')}>
                {editing ? null : <option value="">Select a category</option>}
                {categories.map((c) => (
                  <option key={c} value={c}>
                    {c}
                  </option>
                ))}
              </Select>
            )}
          </FormField>
          <FormField label="Description" error={errors.description?.message}>
            {(ids) => <Textarea {...ids} {...register('description')} rows={4} />}
          </FormField>
        </form>
        {editing ? <AnalysisFiles lever={editing} /> : null}
        <DialogFooter>
          <Button variant="outline" onClick={() => onOpenChange(false)} disabled={isSubmitting}>
            Cancel
          </Button>
          <Button type="submit" form="lever-form" disabled={isSubmitting}>
            {isSubmitting ? (editing ? 'Saving...' : 'Adding...') : editing ? 'Save Changes' : 'Add Lever'}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  )
}

/** The lever's analysis files: name, size, date, download and delete. */
function AnalysisFiles({ lever }: { lever: LeverEntry }) {
  const files = useLeverFiles(lever.id)
  const remove = useDeleteLeverFile()
  return (
    <section aria-label="Analysis files" className="space-y-2">
      <h4 className="text-sm font-medium text-slate-900">Analysis Files</h4>
      {files.isPending ? (
        <Spinner label="Loading analysis files" />
      ) : files.isError ? (
        <Alert variant="destructive">Failed to load analysis files.</Alert>
      ) : files.data.length === 0 ? (
        <p className="text-sm text-slate-500">No files</p>
      ) : (
        <ul className="max-h-56 divide-y divide-slate-100 overflow-y-auto rounded-md border border-slate-200" data-testid="lever-files">
          {files.data.map((f) => (
            <li key={f.id} className="flex items-center gap-3 px-3 py-2 text-sm">
              <span className="min-w-0 flex-1">
                <span className="block truncate font-medium text-slate-900">{f.name}</span>
                <span className="block text-xs text-slate-500">
                  {formatSize(f.sizeBytes)} · {formatDate(f.uploadedAt)}
                </span>
              </span>
              <Button asChild variant="ghost" size="icon" className="size-8" aria-label={`Download ${f.name}`}>
                <a href={leverFileHref(f.id)} download>
                  <Download className="size-4" />
                </a>
              </Button>
              <Button
                variant="ghost"
                size="icon"
                className="size-8 text-red-600 hover:text-red-700"
                aria-label={`Delete ${f.name}`}
                disabled={remove.isPending || lever.moving}
                onClick={() =>
                  remove.mutate(f.id, {
                    onSuccess: () => toast.success('File deleted', `${f.name} was removed.`),
                    onError: (error) => toast.error('Failed to delete file.', errorMessage(error, 'Please try again.')),
                  })
                }
              >
                <Trash2 className="size-4" />
              </Button>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
