import { FileCheck, Plus } from 'lucide-react'
import { useEffect, useState } from 'react'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card } from '@/components/ui/card'
import { Spinner } from '@/components/ui/spinner'
import { ApiError } from '@/lib/api-client'
import { toast } from '@/lib/toast'

import {
  useCreateJustificationTemplate,
  useDeleteJustificationTemplate,
  useJustificationTemplates,
  useUpdateJustificationTemplate,
  type JustificationTemplate,
} from '../api'
import type { TemplateValues } from '../utils/schemas'
import { PreviewDialog } from './preview-dialog'
import { TemplateCard } from './template-card'
import { TemplateDialog } from './template-dialog'

/** The server's message of a failed call, when it sent one. */
function serverMessage(error: unknown): string | undefined {
  return error instanceof ApiError && error.message ? error.message : undefined
}

/** 'Failed to create template', with the server's reason after it when there is one. */
function failure(what: string, error: unknown): string {
  const message = serverMessage(error)
  return message ? `${what}: ${message}` : what
}

/**
 * Lever Justifications (spec 002): the AI audit report templates, as cards with their category,
 * default flag, the start of their content, creator and last change; create (from the default
 * audit memo if wanted), edit, preview with a memo generated from a real completed run,
 * download as .txt, delete after the browser's confirmation. Live across administrators
 * (`admin:justifications`).
 */
export function LeverJustifications() {
  const templates = useJustificationTemplates()
  const create = useCreateJustificationTemplate()
  const update = useUpdateJustificationTemplate()
  const remove = useDeleteJustificationTemplate()
  const [dialog, setDialog] = useState<{ editing: JustificationTemplate | null } | null>(null)
  const [serverError, setServerError] = useState<string | null>(null)
  const [previewing, setPreviewing] = useState<JustificationTemplate | null>(null)

  const loadFailed = templates.isError
  useEffect(() => {
    if (loadFailed) toast.error('Error', failure('Failed to load templates', templates.error))
  }, [loadFailed, templates.error])

  const openDialog = (editing: JustificationTemplate | null) => {
    setServerError(null)
    setDialog({ editing })
  }

  const onSave = async (values: TemplateValues): Promise<string | null> => {
    const editing = dialog?.editing ?? null
    const input = { name: values.name.trim(), category: values.category, templateContent: values.templateContent, isDefault: values.isDefault }
    setServerError(null)
    try {
      if (editing) {
        await update.mutateAsync({ id: editing.id, input })
        toast.success('Success', 'Template updated successfully')
      } else {
        await create.mutateAsync(input)
        toast.success('Success', 'Template created successfully')
      }
      return null
    } catch (error) {
      const message = serverMessage(error) ?? 'An unexpected error occurred.'
      toast.error('Error', failure(editing ? 'Failed to update template' : 'Failed to create template', error))
      setServerError(message)
      return message
    }
  }

  const onDelete = (t: JustificationTemplate) => {
    if (!window.confirm(`Are you sure you want to delete "${t.name}"? This action cannot be undone.`)) return
    remove.mutate(t.id, {
      onSuccess: () => toast.success('Success', 'Template deleted successfully'),
      onError: (error) => toast.error('Error', failure('Failed to delete template', error)),
    })
  }

  // The preview follows the live list (an edit elsewhere).
  const fresh = (t: JustificationTemplate | null) => (t ? (templates.data?.find((x) => x.id === t.id) ?? t) : null)

  return (
    <div className="mx-auto max-w-6xl space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold tracking-tight text-slate-900">Lever Justifications</h1>
          <p className="mt-1 text-sm text-slate-500">AI audit report templates that justify the risk weights a lever proposes</p>
        </div>
        <Button onClick={() => openDialog(null)}>
          <Plus /> Create Template
        </Button>
      </div>
      {templates.isPending ? (
        <Card className="flex items-center justify-center gap-2 p-10 text-sm text-slate-500">
          <Spinner /> Loading templates…
        </Card>
      ) : templates.isError ? (
        <Alert variant="destructive" className="flex items-center justify-between gap-4">
          <span>Failed to load templates</span>
          <Button variant="outline" size="sm" onClick={() => void templates.refetch()}>
            Retry
          </Button>
        </Alert>
      ) : templates.data.length === 0 ? (
        <Card className="flex flex-col items-center gap-3 p-12 text-center">
          <FileCheck className="size-10 text-slate-300" aria-hidden />
          <h2 className="text-lg font-semibold text-slate-900">No Templates Found</h2>
          <p className="max-w-md text-sm text-slate-500">Create an audit memo template to justify a lever's reclassifications from its processing runs.</p>
          <Button variant="outline" onClick={() => openDialog(null)}>
            Create Your First Template
          </Button>
        </Card>
      ) : (
        <ul className="grid gap-4 md:grid-cols-2 xl:grid-cols-3" aria-label="Justification templates">
          {templates.data.map((t) => (
            <li key={t.id}>
              <TemplateCard
                template={t}
                onPreview={() => setPreviewing(t)}
                onEdit={() => openDialog(t)}
                onDelete={() => onDelete(t)}
                deleting={remove.isPending && remove.variables === t.id}
              />
            </li>
          ))}
        </ul>
      )}
      <TemplateDialog
        open={dialog !== null}
        onOpenChange={(open) => (open ? undefined : setDialog(null))}
        editing={dialog?.editing ?? null}
        onSave={onSave}
        serverError={serverError}
      />
      <PreviewDialog template={fresh(previewing)} onClose={() => setPreviewing(null)} />
    </div>
  )
}

