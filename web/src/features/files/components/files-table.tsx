import { Download, FileDown, Sparkles, Trash2 } from 'lucide-react'
import { useMemo, useState } from 'react'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { DataTable, dataTableColumns } from '@/components/ui/data-table'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { Spinner } from '@/components/ui/spinner'
import { Tooltip, TooltipContent, TooltipProvider, TooltipTrigger } from '@/components/ui/tooltip'
import { errorMessage } from '@/lib/api-client'
import { cn } from '@/lib/cn'
import { formatDate } from '@/lib/format'
import { toast } from '@/lib/toast'

import { useLiveRunsOfFiles } from '../hooks/use-run'
import { NO_FILTERS, originalHref, processedHref, useDeleteFile, useFiles, type ClientFile, type FileFilters } from '../api'
import { DownloadLink } from './download-link'
import { fileStatusView, formatBpsUnit, formatRwas, type FileStatusView } from '../utils/format'

/** A file as the table shows it: its position in the list names it (File 1, File 2 ...). */
type Row = ClientFile & { label: string }

const NO_ROWS: Row[] = []
const PENDING_LEVER_TIP = 'This file is pending lever assignment by an administrator'

const TONES: Record<FileStatusView['tone'], string> = {
  green: 'bg-emerald-100 text-emerald-800',
  slate: 'bg-slate-100 text-slate-700',
  amber: 'bg-amber-100 text-amber-800',
  blue: 'bg-brand-100 text-brand-800',
  red: 'bg-red-100 text-red-800',
}

function WithTip({ tip, children }: { tip: string | undefined; children: React.ReactNode }) {
  if (!tip) return <>{children}</>
  return (
    <Tooltip>
      <TooltipTrigger asChild>
        <span tabIndex={0} className="cursor-help underline decoration-dotted underline-offset-4">
          {children}
        </span>
      </TooltipTrigger>
      <TooltipContent>{tip}</TooltipContent>
    </Tooltip>
  )
}

function makeColumns(canWrite: boolean, onDelete: (file: Row) => void, onAnalyse?: (file: Row) => void) {
  const col = dataTableColumns<Row>()
  return [
    col.accessor('label', {
      header: 'File Name',
      enableSorting: false,
      cell: (ctx) => <WithTip tip={ctx.row.original.name}>{ctx.row.original.label}</WithTip>,
    }),
    col.accessor('leverName', {
      header: 'Lever',
      cell: (ctx) =>
        ctx.row.original.leverName ? (
          <span>{ctx.row.original.leverName}</span>
        ) : (
          <WithTip tip={PENDING_LEVER_TIP}>To be determined</WithTip>
        ),
    }),
    col.accessor('uploadedAt', { header: 'Uploaded', cell: (ctx) => formatDate(ctx.row.original.uploadedAt) }),
    col.accessor('savingsRwas', { header: 'Savings (RWAs)', cell: (ctx) => <span className="tabular-nums">{formatRwas(ctx.row.original.savingsRwas)}</span> }),
    col.accessor('savingsBps', { header: 'Savings (BPS)', cell: (ctx) => <span className="tabular-nums">{formatBpsUnit(ctx.row.original.savingsBps)}</span> }),
    col.display({
      id: 'status',
      header: 'Status',
      cell: (ctx) => {
        const view = fileStatusView(ctx.row.original)
        return (
          <WithTip tip={view.detail}>
            <span className={cn('rounded-full px-2 py-0.5 text-xs font-medium whitespace-nowrap', TONES[view.tone])}>{view.label}</span>
          </WithTip>
        )
      },
    }),
    col.display({
      id: 'actions',
      header: 'Actions',
      cell: (ctx) => {
        const file = ctx.row.original
        return (
          <div className="flex items-center gap-1">
            <Button asChild variant="ghost" size="icon" title="Download original">
              <DownloadLink href={originalHref(file.id)} aria-label={`Download original of ${file.label}`}>
                <Download />
              </DownloadLink>
            </Button>
            {file.processed && file.hasProcessed && (
              <Button asChild variant="ghost" size="icon" title="Download optimized">
                <DownloadLink href={processedHref(file.id)} aria-label={`Download optimized ${file.label}`}>
                  <FileDown />
                </DownloadLink>
              </Button>
            )}
            {onAnalyse && file.processed && (
              <Button variant="ghost" size="icon" title="Analyse with AI" aria-label={`Analyse ${file.label} with AI`} onClick={() => onAnalyse(file)}>
                <Sparkles className="text-brand-600" />
              </Button>
            )}
            {canWrite && (
              <Button variant="ghost" size="icon" title="Delete" aria-label={`Delete ${file.label}`} onClick={() => onDelete(file)}>
                <Trash2 className="text-red-600" />
              </Button>
            )}
          </div>
        )
      },
    }),
  ]
}

type Props = {
  clientId: string
  canWrite: boolean
  filters?: FileFilters
  /** The rows, when the caller already holds the list query. */
  files?: ClientFile[]
  /** 'Analyse with AI' on a processed file (the Q&A Agent focused on it, with its label). */
  onAnalyse?: (file: ClientFile & { label: string }) => void
}

/** The client's files (spec 2.7): names, levers, savings, live status, downloads and delete. */
export function FilesTable({ clientId, canWrite, filters = NO_FILTERS, files: given, onAnalyse }: Props) {
  const own = useFiles(given ? null : clientId, filters)
  const files = given ?? own.data
  useLiveRunsOfFiles(clientId, files)
  const [toDelete, setToDelete] = useState<Row | null>(null)
  const remove = useDeleteFile(clientId)

  const rows = useMemo(() => (files ? files.map((f, i) => ({ ...f, label: `File ${i + 1}` })) : NO_ROWS), [files])
  const columns = useMemo(() => makeColumns(canWrite, setToDelete, onAnalyse), [canWrite, onAnalyse])

  const onConfirmDelete = () => {
    if (!toDelete) return
    remove.mutate(toDelete.id, {
      onSuccess: () => toast.success('File Deleted', `${toDelete.name} was deleted.`),
      onError: (e) => toast.error('Delete Failed', errorMessage(e, 'Could not delete the file. Please try again later.')),
      onSettled: () => setToDelete(null),
    })
  }

  if (!given && own.isError) {
    return (
      <Alert variant="destructive" className="items-center justify-between">
        <div>
          <p className="font-medium">Error loading files</p>
          <p>{errorMessage(own.error, 'The files could not be loaded.')}</p>
        </div>
        <Button variant="outline" size="sm" onClick={() => void own.refetch()}>
          Retry
        </Button>
      </Alert>
    )
  }
  return (
    <TooltipProvider delayDuration={200}>
      {!given && own.isPending ? (
        <p className="flex items-center gap-2 text-sm text-slate-600">
          <Spinner /> Loading files…
        </p>
      ) : (
        <DataTable label="Files" columns={columns} data={rows} getRowId={(f) => f.id} empty="No files found" />
      )}
      <Dialog open={toDelete !== null} onOpenChange={(open) => !open && setToDelete(null)}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Delete file?</DialogTitle>
            <DialogDescription>
              {toDelete?.name} will be deleted with its processed output and results. This action cannot be undone.
            </DialogDescription>
          </DialogHeader>
          <DialogFooter>
            <Button variant="outline" onClick={() => setToDelete(null)}>
              Cancel
            </Button>
            <Button variant="destructive" onClick={onConfirmDelete} disabled={remove.isPending}>
              {remove.isPending && <Spinner />} Delete
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </TooltipProvider>
  )
}
