import { FileText, UploadCloud, X } from 'lucide-react'
import { useId, useRef, useState, type DragEvent } from 'react'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { Label } from '@/components/ui/label'
import { Select } from '@/components/ui/select'
import { errorMessage } from '@/lib/api-client'
import { cn } from '@/lib/cn'
import { toast } from '@/lib/toast'

import { useUploadDocuments, type KnowledgeDocument } from '../api'
import { checkKnowledgeFile, formatSize, KB_CATEGORIES, MAX_KB_BYTES, MAX_KB_FILES, SELECT_FILES, TOO_MANY } from '../utils/files'
import { DocumentRow } from './document-row'
import { StatusBadge } from './status-badge'

/** A chosen file and what became of it: refused here, refused by the server, or a document. */
type Item = { key: number; file: File; problem: string | null; error?: string; document?: KnowledgeDocument; at?: number }

type Props = {
  /** Bulk lever doc upload: several files, each sent and answered on its own. */
  multiple: boolean
  /** The live list, for the status and progress of what was uploaded here. */
  documents: KnowledgeDocument[]
  /** When the list was last read (a document uploaded before and missing from it was deleted). */
  documentsUpdatedAt: number
  onDelete: (doc: KnowledgeDocument) => void
  onExtract?: (doc: KnowledgeDocument) => void
  extracting?: string
}

let nextKey = 1

/**
 * Single and Bulk lever doc upload: a lever category and PDF, DOCX or TXT files (25 MB each)
 * dropped or browsed. Files are checked here with the server's messages before anything is sent;
 * then each uploaded document shows its live status and progress.
 */
export function UploadPanel({ multiple, documents, documentsUpdatedAt, onDelete, onExtract, extracting }: Props) {
  const ids = useId()
  const [category, setCategory] = useState('')
  const [items, setItems] = useState<Item[]>([])
  const [problem, setProblem] = useState<string | null>(null)
  const [dragging, setDragging] = useState(false)
  const [sending, setSending] = useState(false)
  const input = useRef<HTMLInputElement>(null)
  const upload = useUploadDocuments()

  const live = (doc: KnowledgeDocument) => documents.find((d) => d.id === doc.id) ?? doc
  const deleted = (i: Item) => i.document !== undefined && i.at !== undefined && documentsUpdatedAt > i.at && !documents.some((d) => d.id === i.document!.id)
  const pending = items.filter((i) => i.problem === null && !i.document && !i.error)
  const sent = items.filter((i) => (i.document && !deleted(i)) || i.error)

  const add = (added: readonly File[]) => {
    setProblem(null)
    if (added.length === 0) return
    if (!multiple) {
      const file = added[0]!
      const refusal = checkKnowledgeFile(file)
      if (refusal) {
        setProblem(refusal)
        return
      }
      setItems((current) => [...current.filter((i) => i.document || i.error), { key: nextKey++, file, problem: null }])
      return
    }
    const waiting = items.filter((i) => !i.document && !i.error)
    if (waiting.length + added.length > MAX_KB_FILES) {
      setProblem(TOO_MANY)
      return
    }
    setItems((current) => [...current, ...added.map((file) => ({ key: nextKey++, file, problem: checkKnowledgeFile(file) }))])
  }

  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault()
    setDragging(false)
    add(Array.from(event.dataTransfer.files))
  }

  const submit = async () => {
    setProblem(null)
    if (pending.length === 0 || category === '') {
      setProblem(SELECT_FILES)
      return
    }
    setSending(true)
    let ok = 0
    let failed = 0
    // One request per file: each file gets its own answer (the server stores a request all or none).
    for (const item of pending) {
      try {
        const [doc] = await upload.mutateAsync({ files: [item.file], category })
        ok += 1
        setItems((current) => current.map((i) => (i.key === item.key ? { ...i, document: doc, at: Date.now() } : i)))
      } catch (error) {
        failed += 1
        const message = errorMessage(error, 'Upload processing failed')
        setItems((current) => current.map((i) => (i.key === item.key ? { ...i, error: message } : i)))
      }
    }
    setSending(false)
    if (ok > 0 && failed === 0) toast.success('Upload started', ok === 1 ? `${pending[0]!.file.name} is being processed.` : `${ok} documents are being processed.`)
    else if (ok === 0) toast.error('Upload failed', failed === 1 ? undefined : `${failed} errors occurred`)
    else toast.error('Upload partly failed', `${failed} errors occurred`)
  }

  const refused = items.filter((i) => i.problem !== null)
  const errors = items.filter((i) => i.error)

  return (
    <Card>
      <CardHeader>
        <CardTitle>{multiple ? 'Bulk lever doc upload' : 'Single lever doc upload'}</CardTitle>
        <CardDescription>
          {multiple
            ? `Several PDF, DOCX or TXT documents at once (at most ${MAX_KB_FILES}, ${MAX_KB_BYTES / (1024 * 1024)} MB each), each read and indexed on its own.`
            : `One PDF, DOCX or TXT document of at most ${MAX_KB_BYTES / (1024 * 1024)} MB, read and indexed for search.`}
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        <div className="max-w-sm space-y-1.5">
          <Label htmlFor={`${ids}-category`}>Lever category</Label>
          <Select id={`${ids}-category`} value={category} onChange={(e) => setCategory(e.target.value)} disabled={sending}>
            <option value="">Select a lever category</option>
            {KB_CATEGORIES.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </Select>
        </div>
        <div
          role="button"
          tabIndex={0}
          aria-label={multiple ? 'Drop documents here or browse' : 'Drop a document here or browse'}
          data-testid={multiple ? 'kb-bulk-dropzone' : 'kb-single-dropzone'}
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
          <p className="text-sm font-medium text-slate-900">
            {multiple ? 'Drag and drop documents here, or click to browse' : 'Drag and drop a document here, or click to browse'}
          </p>
          <p className="text-xs text-slate-500">PDF, DOCX or TXT. Word 97-2003 (.doc) documents cannot be read.</p>
          <input
            ref={input}
            type="file"
            multiple={multiple}
            accept=".pdf,.docx,.txt"
            className="hidden"
            data-testid={multiple ? 'kb-bulk-input' : 'kb-single-input'}
            onChange={(e) => {
              add(Array.from(e.target.files ?? []))
              e.target.value = ''
            }}
          />
        </div>
        {problem ? <Alert variant="destructive">{problem}</Alert> : null}
        {items.some((i) => !i.document && !i.error) ? (
          <ul className="space-y-1" aria-label="Files to upload">
            {items
              .filter((i) => !i.document && !i.error)
              .map((i) => (
                <li key={i.key} className="flex items-start gap-2 rounded-md border border-slate-200 px-3 py-1.5 text-sm">
                  <FileText className={cn('mt-0.5 size-4 shrink-0', i.problem ? 'text-red-600' : 'text-brand-700')} aria-hidden />
                  <span className="min-w-0 flex-1">
                    <span className="block truncate">{i.file.name}</span>
                    {i.problem ? <span className="block text-xs text-red-700">{i.problem}</span> : null}
                  </span>
                  <span className="text-xs text-slate-500 tabular-nums">{formatSize(i.file.size)}</span>
                  <Button
                    variant="ghost"
                    size="icon"
                    className="size-7"
                    aria-label={`Remove ${i.file.name}`}
                    onClick={() => setItems((current) => current.filter((x) => x.key !== i.key))}
                    disabled={sending}
                  >
                    <X className="size-3.5" />
                  </Button>
                </li>
              ))}
          </ul>
        ) : null}
        {multiple && refused.length > 0 ? (
          <p className="text-xs text-slate-500">Files marked in red are not sent; remove them or choose others.</p>
        ) : null}
        <div className="flex justify-end">
          <Button onClick={() => void submit()} disabled={sending}>
            {sending ? 'Uploading...' : pending.length > 1 ? `Upload ${pending.length} files` : 'Upload'}
          </Button>
        </div>
        {errors.length > 0 ? (
          <Alert variant="destructive">
            {multiple ? `${errors.length} ${errors.length === 1 ? 'error' : 'errors'} occurred: ` : ''}
            {errors.map((i) => (multiple ? `${i.file.name}: ${i.error}` : i.error)).join('; ')}
          </Alert>
        ) : null}
        {sent.length > 0 ? (
          <section aria-label="Uploaded documents" className="space-y-2">
            <h3 className="text-sm font-semibold text-slate-900">Uploaded</h3>
            <ul className="space-y-2">
              {sent.map((i) =>
                i.document ? (
                  <DocumentRow key={i.key} doc={live(i.document)} onDelete={onDelete} onExtract={onExtract} extracting={extracting} />
                ) : (
                  <li key={i.key} className="flex items-start gap-3 rounded-lg border border-red-200 px-4 py-3" aria-label={i.file.name}>
                    <FileText className="mt-0.5 size-5 shrink-0 text-red-600" aria-hidden />
                    <div className="min-w-0 flex-1 space-y-1">
                      <div className="flex flex-wrap items-center gap-2">
                        <span className="truncate font-medium text-slate-900">{i.file.name}</span>
                        <StatusBadge status="failed" />
                      </div>
                      <p className="text-xs text-red-700">{i.error}</p>
                    </div>
                  </li>
                ),
              )}
            </ul>
          </section>
        ) : null}
      </CardContent>
    </Card>
  )
}
