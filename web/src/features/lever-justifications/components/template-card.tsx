import { Download, Eye, Pencil, Trash2 } from 'lucide-react'

import { Button } from '@/components/ui/button'
import { Card } from '@/components/ui/card'
import { formatDate } from '@/lib/format'

import type { JustificationTemplate } from '../api'
import { categoryLabel, contentPreview, downloadText, textFileName } from '../utils/templates'

type Props = {
  template: JustificationTemplate
  onPreview: () => void
  onEdit: () => void
  onDelete: () => void
  deleting: boolean
}

const CATEGORY_STYLE: Record<string, string> = {
  regulatory: 'bg-brand-50 text-brand-700',
  internal: 'bg-amber-50 text-amber-800',
  custom: 'bg-slate-100 text-slate-700',
}

/** One template: name, category, default flag, the start of its content, creator and last change. */
export function TemplateCard({ template: t, onPreview, onEdit, onDelete, deleting }: Props) {
  return (
    <Card className="flex h-full flex-col gap-3 p-5" aria-label={t.name} role="article">
      <div className="flex items-start justify-between gap-2">
        <h2 className="font-semibold break-words text-slate-900">{t.name}</h2>
        <div className="flex shrink-0 flex-wrap justify-end gap-1.5">
          <span
            className={`inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium ${CATEGORY_STYLE[t.category] ?? CATEGORY_STYLE.custom}`}
            data-testid="template-category"
          >
            {categoryLabel(t.category)}
          </span>
          {t.isDefault ? (
            <span className="inline-flex items-center rounded-full bg-emerald-50 px-2 py-0.5 text-xs font-medium text-emerald-800">Default</span>
          ) : null}
        </div>
      </div>
      <p className="font-mono text-xs break-words whitespace-pre-wrap text-slate-600" data-testid="template-preview">
        {contentPreview(t.templateContent)}
      </p>
      <p className="mt-auto text-xs text-slate-500">
        {t.createdBy ? `Created by ${t.createdBy} · ` : ''}Updated {formatDate(t.updatedAt)}
      </p>
      <div className="flex items-center gap-2">
        <Button variant="outline" size="sm" onClick={onPreview} aria-label={`Preview ${t.name}`}>
          <Eye /> Preview
        </Button>
        <Button size="sm" onClick={onEdit} aria-label={`Edit ${t.name}`}>
          <Pencil /> Edit
        </Button>
        <Button
          variant="ghost"
          size="icon"
          className="ml-auto size-8"
          title="Download as .txt"
          aria-label={`Download ${t.name} as .txt`}
          onClick={() => downloadText(textFileName(t.name), t.templateContent)}
        >
          <Download className="size-4" />
        </Button>
        <Button
          variant="ghost"
          size="icon"
          className="size-8 text-red-600 hover:text-red-700"
          title="Delete"
          aria-label={`Delete ${t.name}`}
          onClick={onDelete}
          disabled={deleting}
        >
          <Trash2 className="size-4" />
        </Button>
      </div>
    </Card>
  )
}
