import { zodResolver } from '@hookform/resolvers/zod'
import { FileInput } from 'lucide-react'
import { useEffect, useRef } from 'react'
import { useForm } from 'react-hook-form'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { FormField } from '@/components/ui/form-field'
import { Input } from '@/components/ui/input'
import { Select } from '@/components/ui/select'
import { Spinner } from '@/components/ui/spinner'
import { Textarea } from '@/components/ui/textarea'

import { useJustificationDefaults, type JustificationTemplate } from '../api'
import { templateSchema, type TemplateValues } from '../utils/schemas'
import { CATEGORIES, categoryLabel, type Category } from '../utils/templates'

type Props = {
  open: boolean
  onOpenChange: (open: boolean) => void
  /** The template edited (as it was when the dialog opened); null to create one. */
  editing: JustificationTemplate | null
  /** Saves; resolves null when the dialog may close, else the server's message to show in it. */
  onSave: (values: TemplateValues) => Promise<string | null>
  /** The server's refusal of the last save, shown in the dialog (which stays open). */
  serverError: string | null
}

function valuesOf(t: JustificationTemplate | null): TemplateValues {
  if (!t) return { name: '', category: 'regulatory', templateContent: '', isDefault: false }
  const category = (CATEGORIES as readonly string[]).includes(t.category) ? (t.category as Category) : 'custom'
  return { name: t.name, category, templateContent: t.templateContent, isDefault: t.isDefault }
}

/**
 * Create Template (with Use Default Template, which fills the form with the server's audit memo)
 * or Edit Template: name, category, the content with the placeholders it may use, and the
 * default flag. The server checks the content renders; its message stays in the dialog.
 */
export function TemplateDialog({ open, onOpenChange, editing, onSave, serverError }: Props) {
  const defaults = useJustificationDefaults(open)
  const {
    register,
    handleSubmit,
    reset,
    setValue,
    formState: { errors, isSubmitting },
  } = useForm<TemplateValues>({ resolver: zodResolver(templateSchema), defaultValues: valuesOf(editing) })
  useEffect(() => {
    if (open) reset(valuesOf(editing))
  }, [open, editing, reset])
  // The server's refusal is shown at the top of the form: bring it into view when it comes.
  const errorRef = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (serverError) errorRef.current?.scrollIntoView({ block: 'nearest' })
  }, [serverError])
  const submit = handleSubmit(async (values) => {
    if ((await onSave(values)) === null) onOpenChange(false)
  })
  const fillDefault = () => {
    const d = defaults.data
    if (!d) return
    const category = (CATEGORIES as readonly string[]).includes(d.category) ? (d.category as Category) : 'custom'
    const opts = { shouldDirty: true, shouldValidate: false }
    setValue('name', d.name, opts)
    setValue('category', category, opts)
    setValue('templateContent', d.templateContent, opts)
  }

  return (
    <Dialog open={open} onOpenChange={(next) => (isSubmitting ? undefined : onOpenChange(next))}>
      <DialogContent className="overflow-y-auto sm:max-w-3xl">
        <DialogHeader>
          <DialogTitle>{editing ? 'Edit Template' : 'Create Template'}</DialogTitle>
          <DialogDescription>
            An audit memo template: placeholders such as {'{{ clientName }}'} are filled from a completed processing run.
          </DialogDescription>
        </DialogHeader>
        {editing ? null : (
          <div>
            <Button variant="outline" size="sm" onClick={fillDefault} disabled={!defaults.data}>
              <FileInput /> Use Default Template
            </Button>
          </div>
        )}
        <form id="justification-form" onSubmit={submit} className="space-y-4" noValidate>
          {serverError ? (
            <Alert variant="destructive" data-testid="template-server-error" ref={errorRef}>
              <span className="whitespace-pre-wrap">{serverError}</span>
            </Alert>
          ) : null}
          <div className="grid gap-4 sm:grid-cols-[1fr_12rem]">
            <FormField label="Name" error={errors.name?.message}>
              {(ids) => <Input {...ids} {...register('name')} placeholder="e.g. PSE audit memo" />}
            </FormField>
            <FormField label="Category" error={errors.category?.message}>
              {(ids) => (
                <Select {...ids} {...register('category')}>
                  {CATEGORIES.map((c) => (
                    <option key={c} value={c}>
                      {categoryLabel(c)}
                    </option>
                  ))}
                </Select>
              )}
            </FormField>
          </div>
          <FormField label="Template content" error={errors.templateContent?.message}>
            {(ids) => <Textarea {...ids} {...register('templateContent')} rows={10} spellCheck={false} className="font-mono text-xs" />}
          </FormField>
          <Placeholders state={defaults} />
          <label className="flex items-center gap-2 text-sm text-slate-800">
            <input type="checkbox" className="size-4 accent-brand-700" {...register('isDefault')} />
            Default template
          </label>
        </form>
        <DialogFooter>
          <Button variant="outline" onClick={() => onOpenChange(false)} disabled={isSubmitting}>
            Cancel
          </Button>
          <Button type="submit" form="justification-form" disabled={isSubmitting}>
            {isSubmitting ? 'Saving...' : editing ? 'Save Changes' : 'Create Template'}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  )
}

/** The placeholders a template may use, from the defaults endpoint. */
function Placeholders({ state }: { state: ReturnType<typeof useJustificationDefaults> }) {
  return (
    <section aria-label="Placeholders" className="space-y-2 rounded-md border border-slate-200 bg-slate-50 p-3">
      <h4 className="text-sm font-medium text-slate-900">Placeholders</h4>
      {state.isPending ? (
        <Spinner label="Loading placeholders" />
      ) : state.isError ? (
        <p className="text-sm text-red-700">Failed to load the placeholders.</p>
      ) : (
        <dl className="grid max-h-40 gap-x-4 gap-y-1 overflow-y-auto text-xs sm:grid-cols-[auto_1fr]">
          {state.data.placeholders.map((p) => (
            <div key={p.name} className="contents">
              <dt className="font-mono text-slate-900">{p.name}</dt>
              <dd className="text-slate-600">{p.description}</dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  )
}
