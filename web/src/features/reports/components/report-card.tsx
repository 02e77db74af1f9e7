import type { ReportSummary } from '@/api/types/ReportSummary'
import { Copy, FileText, MoreVertical, Pencil, Trash2 } from 'lucide-react'
import { useRef, useState } from 'react'
import { Link } from 'react-router'

import { Button } from '@/components/ui/button'
import { DropdownMenu, DropdownMenuContent, DropdownMenuItem, DropdownMenuTrigger } from '@/components/ui/dropdown-menu'
import { cn } from '@/lib/cn'
import { formatDate } from '@/lib/format'

import { InlineRename } from './inline-rename'
import { StatusBadge, TemplateBadge } from './report-badges'

type Props = {
  report: ReportSummary
  /** The editor's address (the card's link). */
  href: string
  view: 'grid' | 'list'
  canEdit: boolean
  onOpen: () => void
  onRename: (name: string) => void
  onCopyId: () => void
  onDelete: () => void
}

/**
 * A report in the list: the whole card opens the editor on click, and its name is a link (Tab
 * reaches it, Enter opens it). The actions menu offers Rename, Copy ID and Delete.
 */
export function ReportCard({ report, href, view, canEdit, onOpen, onRename, onCopyId, onDelete }: Props) {
  const [renaming, setRenaming] = useState(false)
  // Rename starts once the menu has closed: closing hands the focus back to the menu's trigger,
  // which would otherwise take it away from the rename field at once.
  const renameOnClose = useRef(false)
  const trigger = useRef<HTMLButtonElement>(null)
  const sections = `${report.section_count} ${report.section_count === 1 ? 'section' : 'sections'}`
  return (
    <article
      aria-label={report.name}
      className={cn(
        'group relative cursor-pointer rounded-lg border border-slate-200 bg-white shadow-sm transition-shadow hover:shadow-md has-[a:focus-visible]:ring-2 has-[a:focus-visible]:ring-brand-300',
        view === 'grid' ? 'flex flex-col gap-3 p-4' : 'flex items-center gap-4 px-4 py-3',
      )}
      onClick={() => !renaming && onOpen()}
    >
      <div className={cn('flex min-w-0 items-start gap-3', view === 'list' && 'flex-1 items-center')}>
        <FileText className="mt-0.5 size-5 shrink-0 text-brand-700" aria-hidden="true" />
        <div className="min-w-0 flex-1">
          {renaming ? (
            <InlineRename
              initial={report.name}
              label="Report name"
              onSave={onRename}
              onDone={(byKeyboard) => {
                setRenaming(false)
                // Enter or Escape hands the focus back to the menu button the rename came from.
                if (byKeyboard) requestAnimationFrame(() => trigger.current?.focus())
              }}
            />
          ) : (
            <h3 className="truncate font-medium text-slate-900">
              <Link to={href} className="outline-none hover:underline focus-visible:underline" onClick={(e) => e.stopPropagation()}>
                {report.name}
              </Link>
            </h3>
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
            <Button ref={trigger} variant="ghost" size="icon" aria-label={`Actions for ${report.name}`} className="ml-auto" onClick={(e) => e.stopPropagation()}>
              <MoreVertical />
            </Button>
          </DropdownMenuTrigger>
          <DropdownMenuContent
            align="end"
            onClick={(e) => e.stopPropagation()}
            onCloseAutoFocus={(e) => {
              if (!renameOnClose.current) return
              renameOnClose.current = false
              e.preventDefault()
              setRenaming(true)
            }}
          >
            {canEdit && (
              <DropdownMenuItem
                onSelect={() => {
                  renameOnClose.current = true
                }}
              >
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
