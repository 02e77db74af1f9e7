import { FileSpreadsheet, UploadCloud, X } from 'lucide-react'
import { useRef, useState, type DragEvent } from 'react'

import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { errorMessage } from '@/lib/api-client'
import { cn } from '@/lib/cn'
import { toast } from '@/lib/toast'

import { useUploadLeverFiles, type LeverEntry } from '../api'
import { ANALYSIS_TYPES, checkAnalysisFiles, formatSize, MAX_ANALYSIS_BYTES, mergeFiles } from '../utils/files'

type Props = {
  /** The lever the files are for; null closes the dialog. */
  lever: LeverEntry | null
  onClose: () => void
}

/** Upload Analysis Files for {lever}: drag and drop or browse, several xlsx, xls or csv files of 25 MB at most. */
export function UploadDialog({ lever, onClose }: Props) {
  const [files, setFiles] = useState<File[]>([])
  const [dragging, setDragging] = useState(false)
  const input = useRef<HTMLInputElement>(null)
  const upload = useUploadLeverFiles()

  const add = (added: readonly File[]) => {
    const next = mergeFiles(files, added)
    const problem = checkAnalysisFiles(next)
    if (problem && next.length > 0) {
      toast.error(problem.title, problem.description)
      return
    }
    setFiles(next)
  }
  const close = () => {
    if (upload.isPending) return
    setFiles([])
    onClose()
  }
  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault()
    setDragging(false)
    add(Array.from(event.dataTransfer.files))
  }
  const submit = () => {
    if (!lever) {
      toast.error('Upload failed', 'No lever selected for file upload.')
      return
    }
    const problem = checkAnalysisFiles(files)
    if (problem) {
      toast.error(problem.title, problem.description)
      return
    }
    upload.mutate(
      { id: lever.id, files },
      {
        onSuccess: (stored) => {
          toast.success('Upload successful', `${stored.length} file(s) uploaded for ${lever.name}.`)
          setFiles([])
          onClose()
        },
        onError: (error) => toast.error('Upload failed', errorMessage(error, 'Please try again.')),
      },
    )
  }

  return (
    <Dialog open={lever !== null} onOpenChange={(open) => (open ? undefined : close())}>
      <DialogContent className="sm:max-w-lg">
        <DialogHeader>
          <DialogTitle>Upload Analysis Files for {lever?.name}</DialogTitle>
          <DialogDescription>
            Excel or CSV files ({ANALYSIS_TYPES.join(', ')}), up to {MAX_ANALYSIS_BYTES / (1024 * 1024)} MB each. They are kept in the lever's
            folder <span className="font-mono text-xs">{lever?.folder}</span>.
          </DialogDescription>
        </DialogHeader>
        <div
          role="button"
          tabIndex={0}
          aria-label="Drop files here or browse"
          data-testid="lever-dropzone"
          onClick={() => input.current?.click()}
          onKeyDown={(e) => {
            if (e.key === 'Enter' || e.key === ' ') {
              e.preventDefault()
              input.current?.click()
            }
          }}
          onDragOver={(e) => {
            e.preventDefault()
            setDragging(true)
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
          className={cn(
            'flex cursor-pointer flex-col items-center justify-center gap-2 rounded-lg border-2 border-dashed p-8 text-center transition-colors focus-visible:ring-2 focus-visible:ring-brand-200 focus-visible:outline-none',
            dragging ? 'border-brand-500 bg-brand-50' : 'border-slate-300 hover:border-brand-400 hover:bg-slate-50',
          )}
        >
          <UploadCloud className="size-8 text-brand-700" aria-hidden />
          <p className="text-sm font-medium text-slate-900">Drag and drop files here, or click to browse</p>
          <p className="text-xs text-slate-500">Several files can be uploaded at once.</p>
          <input
            ref={input}
            type="file"
            multiple
            accept=".xlsx,.xls,.csv"
            className="hidden"
            data-testid="lever-file-input"
            onChange={(e) => {
              add(Array.from(e.target.files ?? []))
              e.target.value = ''
            }}
          />
        </div>
        {files.length > 0 ? (
          <ul className="max-h-48 space-y-1 overflow-y-auto" aria-label="Files to upload">
            {files.map((f) => (
              <li key={`${f.name}-${f.size}`} className="flex items-center gap-2 rounded-md border border-slate-200 px-3 py-1.5 text-sm">
                <FileSpreadsheet className="size-4 shrink-0 text-emerald-700" aria-hidden />
                <span className="min-w-0 flex-1 truncate">{f.name}</span>
                <span className="text-xs text-slate-500 tabular-nums">{formatSize(f.size)}</span>
                <Button
                  variant="ghost"
                  size="icon"
                  className="size-7"
                  aria-label={`Remove ${f.name}`}
                  onClick={() => setFiles(files.filter((x) => x !== f))}
                  disabled={upload.isPending}
                >
                  <X className="size-3.5" />
                </Button>
              </li>
            ))}
          </ul>
        ) : null}
        <DialogFooter>
          <Button variant="outline" onClick={close} disabled={upload.isPending}>
            Cancel
          </Button>
          <Button onClick={submit} disabled={upload.isPending}>
            {upload.isPending ? 'Uploading...' : files.length > 1 ? `Upload ${files.length} files` : 'Upload'}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  )
}
