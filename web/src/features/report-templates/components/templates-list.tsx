import { Eye, FileText, FileUp, Pencil, Plus, Trash2 } from 'lucide-react'
import { useState } from 'react'
import { Link } from 'react-router'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card } from '@/components/ui/card'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { Spinner } from '@/components/ui/spinner'
import { paths } from '@/config/paths'
import { errorMessage } from '@/lib/api-client'
import { formatDate } from '@/lib/format'
import { toast } from '@/lib/toast'

import { useDeleteTemplate, useTemplates, type ReportTemplate } from '../api'
import { typeLabel } from '../utils/templates'

/** The report templates (`/admin/report-generator-templates`): cards, live across administrators. */
export function TemplatesList() {
  const templates = useTemplates()
  const remove = useDeleteTemplate()
  const [deleting, setDeleting] = useState<ReportTemplate | null>(null)

  return (
    <div className="mx-auto max-w-6xl space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold tracking-tight text-slate-900">Report Templates</h1>
          <p className="mt-1 text-sm text-slate-500">The templates client teams start their regulatory reports from</p>
        </div>
        <div className="flex gap-2">
          <Button variant="outline" asChild>
            <Link to={paths.admin.templateCreateFromPdf.getHref()}>
              <FileUp /> Create from PDF
            </Link>
          </Button>
          <Button asChild>
            <Link to={paths.admin.templateCreate.getHref()}>
              <Plus /> Create Template
            </Link>
          </Button>
        </div>
      </div>
      {templates.isPending ? (
        <Card className="flex items-center justify-center gap-2 p-10 text-sm text-slate-500">
          <Spinner /> Loading templates…
        </Card>
      ) : templates.isError ? (
        <Alert variant="destructive" className="flex items-center justify-between gap-4">
          <span>Failed to fetch report templates</span>
          <Button variant="outline" size="sm" onClick={() => void templates.refetch()}>
            Retry
          </Button>
        </Alert>
      ) : templates.data.length === 0 ? (
        <Card className="flex flex-col items-center gap-3 p-12 text-center">
          <FileText className="size-10 text-slate-300" aria-hidden />
          <h2 className="text-lg font-semibold text-slate-900">No Templates Found</h2>
          <Button asChild>
            <Link to={paths.admin.templateCreate.getHref()}>Create Your First Template</Link>
          </Button>
        </Card>
      ) : (
        <ul className="grid gap-4 md:grid-cols-2 xl:grid-cols-3" aria-label="Report templates">
          {templates.data.map((t) => (
            <li key={t.id}>
              <TemplateCard template={t} onDelete={() => setDeleting(t)} />
            </li>
          ))}
        </ul>
      )}
      <Dialog open={deleting !== null} onOpenChange={(open) => (open || remove.isPending ? undefined : setDeleting(null))}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Delete template</DialogTitle>
            <DialogDescription>Are you sure you want to delete "{deleting?.name}"? This action cannot be undone.</DialogDescription>
          </DialogHeader>
          <DialogFooter>
            <Button variant="outline" onClick={() => setDeleting(null)} disabled={remove.isPending}>
              Cancel
            </Button>
            <Button
              variant="destructive"
              disabled={remove.isPending}
              onClick={() => {
                const t = deleting
                if (!t) return
                remove.mutate(t.id, {
                  onSuccess: () => {
                    toast.success('Template deleted successfully')
                    setDeleting(null)
                  },
                  onError: (error) => toast.error('Failed to delete template', errorMessage(error, 'Please try again.')),
                })
              }}
            >
              {remove.isPending ? 'Deleting…' : 'Delete'}
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </div>
  )
}

function TemplateCard({ template: t, onDelete }: { template: ReportTemplate; onDelete: () => void }) {
  return (
    <Card className="flex h-full flex-col gap-3 p-5" aria-label={t.name} role="article">
      <div className="flex items-start justify-between gap-2">
        <h2 className="font-semibold text-slate-900">{t.name}</h2>
        <Button variant="ghost" size="icon" className="size-8 shrink-0 text-red-600 hover:text-red-700" aria-label={`Delete ${t.name}`} onClick={onDelete}>
          <Trash2 className="size-4" />
        </Button>
      </div>
      <div className="flex flex-wrap gap-2">
        <span className="inline-flex items-center rounded-full bg-brand-50 px-2 py-0.5 text-xs font-medium text-brand-700">{typeLabel(t.templateType)}</span>
        {!t.isActive && <span className="inline-flex items-center rounded-full border border-slate-300 px-2 py-0.5 text-xs text-slate-600">Inactive</span>}
      </div>
      {t.description && <p className="line-clamp-3 text-sm text-slate-600">{t.description}</p>}
      <p className="text-xs text-slate-500">
        {t.sections.length} {t.sections.length === 1 ? 'section' : 'sections'} · Updated {formatDate(t.updatedAt)}
      </p>
      <ol className="list-inside list-decimal space-y-0.5 text-sm text-slate-700" aria-label={`Sections of ${t.name}`}>
        {t.sections.slice(0, 5).map((s) => (
          <li key={s.id} className="truncate">
            {s.title}
          </li>
        ))}
        {t.sections.length > 5 && <li className="list-none text-xs text-slate-500">+{t.sections.length - 5} more</li>}
      </ol>
      <p className="text-xs text-slate-500">
        {t.branding.fontFamily} · {t.branding.orientation === 'landscape' ? 'Landscape' : 'Portrait'}
      </p>
      <div className="mt-auto flex gap-2 pt-2">
        <Button asChild variant="outline" size="sm">
          <Link to={paths.admin.templatePreview.getHref(t.id)} aria-label={`Preview ${t.name}`}>
            <Eye /> Preview
          </Link>
        </Button>
        <Button asChild size="sm">
          <Link to={paths.admin.templateEdit.getHref(t.id)} aria-label={`Edit ${t.name}`}>
            <Pencil /> Edit
          </Link>
        </Button>
      </div>
    </Card>
  )
}
