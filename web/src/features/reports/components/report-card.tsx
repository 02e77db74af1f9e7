import type { ReportSummary } from '@/api/types/ReportSummary'
import { Copy, FileText, MoreVertical, Pencil, Trash2 } from 'lucide-react'
import { useState } from 'react'

import { Button } from '@/components/ui/button'
import { DropdownMenu, DropdownMenuContent, DropdownMenuItem, DropdownMenuTrigger } from '@/components/ui/dropdown-menu'
import { cn } from '@/lib/cn'
import { formatDate } from '@/lib/format'

import { InlineRename } from './inline-rename'
import { StatusBadge, TemplateBadge } from './report-badges'

type Props = {
  report: ReportSummary
  view: 'grid' | 'list'
  canEdit: boolean
  onOpen: () => void
  onRename: (name: string) => void
  onCopyId: () => void
  onDelete: () => void
}

export function ReportCard({ report, view, canEdit, onOpen, onRename, onCopyId, onDelete }: Props) {
  const [renaming, setRenaming] = useState(false)
  const sections = `${report.section_count} ${report.section_count === 1 ? 'section' : 'sections'}`
  return (
    <article
      aria-label={report.name}
      className={cn(
        'group relative cursor-pointer rounded-lg border border-slate-200 bg-white shadow-sm transition-shadow hover:shadow-md',
        view === 'grid' ? 'flex flex-col gap-3 p-4' : 'flex items-center gap-4 px-4 py-3',
      )}
      onClick={() => !renaming && onOpen()}
    >
      <div className={cn('flex min-w-0 items-start gap-3', view === 'list' && 'flex-1 items-center')}>
        <FileText className="mt-0.5 size-5 shrink-0 text-brand-700" aria-hidden="true" />
        <div className="min-w-0 flex-1">
          {renaming ? (
            <InlineRename initial={report.name} label="Report name" onSave={onRename} onDone={() => setRenaming(false)} />
          ) : (
            <h3 className="truncate font-medium text-slate-900">{report.name}</h3>
          )}
          <p className="mt-1 text-xs text-slate-500">
            {sections} · Updated {formatDate(report.updated_at)}
          </p>
        </div>
      </div>
      <div className="flex items-center gap-2">
        <StatusBadge status={report.status} />
        {report.template_id && <TemplateBadge />}
        <DropdownMenu>
          <DropdownMenuTrigger asChild>
            <Button variant="ghost" size="icon" aria-label={`Actions for ${report.name}`} className="ml-auto" onClick={(e) => e.stopPropagation()}>
              <MoreVertical />
            </Button>
          </DropdownMenuTrigger>
          <DropdownMenuContent align="end" onClick={(e) => e.stopPropagation()}>
            {canEdit && (
              <DropdownMenuItem onSelect={() => setRenaming(true)}>
                <Pencil /> Rename
              </DropdownMenuItem>
            )}
            <DropdownMenuItem onSelect={onCopyId}>
              <Copy /> Copy ID
            </DropdownMenuItem>
            {canEdit && (
              <DropdownMenuItem onSelect={onDelete} className="text-red-700">
                <Trash2 /> Delete
              </DropdownMenuItem>
            )}
          </DropdownMenuContent>
        </DropdownMenu>
      </div>
    </article>
  )
}
