import { FileText, Sparkles, Trash2 } from 'lucide-react'

import { Button } from '@/components/ui/button'
import { formatDate } from '@/lib/format'

import type { KnowledgeDocument } from '../api'
import { formatSize } from '../utils/files'
import { StatusBadge } from './status-badge'

const STAGES: Record<string, string> = {
  queued: 'Queued',
  reading: 'Reading',
  extracting: 'Extracting text',
  chunking: 'Chunking',
  indexing: 'Indexing',
  done: 'Done',
}

type Props = {
  doc: KnowledgeDocument
  onDelete?: (doc: KnowledgeDocument) => void
  /** Proposes levers and rules from a completed document. */
  onExtract?: (doc: KnowledgeDocument) => void
  /** The document whose extraction is under way. */
  extracting?: string
}

/**
 * One uploaded document: name, category, size, status; progress while processing, pages and
 * chunks once completed (with Extract levers), the error when failed.
 */
export function DocumentRow({ doc, onDelete, onExtract, extracting }: Props) {
  return (
    <li className="flex items-start gap-3 rounded-lg border border-slate-200 px-4 py-3" aria-label={doc.name} data-testid="kb-document">
      <FileText className="mt-0.5 size-5 shrink-0 text-brand-700" aria-hidden />
      <div className="min-w-0 flex-1 space-y-1">
        <div className="flex flex-wrap items-center gap-2">
          <span className="truncate font-medium text-slate-900">{doc.name}</span>
          <StatusBadge status={doc.status} />
        </div>
        <p className="text-xs text-slate-500">
          {[doc.category ?? 'No category', doc.fileType.toUpperCase(), formatSize(doc.sizeBytes), formatDate(doc.createdAt)].join(' · ')}
        </p>
        {doc.status === 'processing' ? (
          <div className="space-y-1">
            <div
              role="progressbar"
              aria-label={`Progress of ${doc.name}`}
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={doc.progress}
              className="h-1.5 w-full max-w-sm overflow-hidden rounded-full bg-slate-100"
            >
              <div className="h-full bg-brand-600 transition-all" style={{ width: `${Math.min(100, Math.max(0, doc.progress))}%` }} />
            </div>
            <p className="text-xs text-slate-500">
              {STAGES[doc.stage] ?? doc.stage} · {doc.progress}%
            </p>
          </div>
        ) : null}
        {doc.status === 'completed' ? (
          <p className="text-xs text-slate-600">
            {doc.pages !== null ? `${doc.pages} ${doc.pages === 1 ? 'page' : 'pages'} · ` : ''}
            {doc.chunkCount} {doc.chunkCount === 1 ? 'chunk' : 'chunks'} indexed
          </p>
        ) : null}
        {doc.status === 'failed' && doc.error ? <p className="text-xs text-red-700">{doc.error}</p> : null}
      </div>
      {onExtract && doc.status === 'completed' ? (
        <Button variant="outline" size="sm" onClick={() => onExtract(doc)} disabled={extracting !== undefined} aria-label={`Extract levers from ${doc.name}`}>
          <Sparkles /> {extracting === doc.id ? 'Extracting...' : 'Extract levers'}
        </Button>
      ) : null}
      {onDelete ? (
        <Button variant="ghost" size="icon" className="size-8 text-red-600 hover:text-red-700" aria-label={`Delete ${doc.name}`} onClick={() => onDelete(doc)}>
          <Trash2 className="size-4" />
        </Button>
      ) : null}
    </li>
  )
}
