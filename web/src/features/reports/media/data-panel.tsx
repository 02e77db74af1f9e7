import type { ReportMedia } from '@/api/types/ReportMedia'
import { BarChart3, Eye, FileSpreadsheet, Image as ImageIcon, Table2, Trash2, Upload, X } from 'lucide-react'
import { useRef, useState } from 'react'

import { Button } from '@/components/ui/button'
import { Spinner } from '@/components/ui/spinner'
import { errorMessage } from '@/lib/api-client'
import { toast } from '@/lib/toast'

import { useDeleteMedia, useReportMedia, useSourceRows, useUploadMedia } from './api'

/** What the Data & Media upload takes. */
export const DATA_ACCEPT = '.xlsx,.xls,.csv,.png,.jpg,.jpeg'

/** Rows the panel's data preview shows. */
export const DATA_PREVIEW_ROWS = 10

type Failed = { key: string; name: string; message: string }

/** The first rows of an uploaded table, read from the server. */
function DataPreview({ clientId, reportId, media }: { clientId: string; reportId: string; media: ReportMedia }) {
  const data = useSourceRows(clientId, reportId, { kind: 'media', mediaId: media.id, sheet: media.sheet ?? '' })
  if (data.isLoading) return <Spinner label="Loading data..." />
  if (data.isError) return <p className="text-xs text-red-700">{errorMessage(data.error, 'The data could not be read.')}</p>
  if (!data.data) return null
  return (
    <div className="max-h-48 overflow-auto rounded border border-slate-200" aria-label={`Preview of ${media.name}`}>
      <table className="w-full text-left text-xs">
        <thead className="bg-slate-50">
          <tr>
            {data.data.columns.map((c) => (
              <th key={c} className="px-1.5 py-1 font-semibold whitespace-nowrap">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {data.data.rows.slice(0, DATA_PREVIEW_ROWS).map((r, i) => (
            <tr key={i} className="border-t border-slate-100">
              {r.map((v, j) => (
                <td key={j} className="px-1.5 py-0.5 whitespace-nowrap">
                  {v === null ? '' : String(v)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
type Props = {
  clientId: string
  reportId: string
  canEdit: boolean
  onInsertChart: () => void
  onInsertTable: () => void
  /** Whether an image is used in the document (deleting it then says so). */
  imageInUse: (mediaId: string) => boolean
}

function uploadedToast(m: ReportMedia) {
  if (m.kind === 'image') toast.success('Image uploaded', m.name)
  else toast.success(m.kind === 'csv' ? 'CSV file processed' : 'Excel file processed', `Found ${m.rowCount} rows and ${m.columnCount} columns`)
}

/**
 * The side panel's Data & Charts (spec 002): the report's data files and images, stored with the
 * report on the server and the same for everyone editing it; upload (XLSX, XLS, CSV, PNG, JPG),
 * each file processing then processed or refused with the reason; delete; and the chart and
 * table builders.
 */
export function DataPanel({ clientId, reportId, canEdit, onInsertChart, onInsertTable, imageInUse }: Props) {
  const media = useReportMedia(clientId, reportId)
  const upload = useUploadMedia(clientId, reportId)
  const remove = useDeleteMedia(clientId, reportId)
  const input = useRef<HTMLInputElement>(null)
  const [processing, setProcessing] = useState<string[]>([])
  const [failed, setFailed] = useState<Failed[]>([])
  const [confirm, setConfirm] = useState<ReportMedia | null>(null)
  const [previewed, setPreviewed] = useState<string | null>(null)

  const send = async (files: File[]) => {
    for (const file of files) {
      const key = `${file.name}-${Date.now()}-${Math.random()}`
      setProcessing((p) => [...p, file.name])
      try {
        const m = await upload.mutateAsync(file)
        uploadedToast(m)
      } catch (e) {
        const message = errorMessage(e, 'Upload failed')
        setFailed((f) => [...f, { key, name: file.name, message }])
        toast.error('Upload failed', message)
      } finally {
        setProcessing((p) => {
          const i = p.indexOf(file.name)
          return i < 0 ? p : [...p.slice(0, i), ...p.slice(i + 1)]
        })
      }
    }
  }

  const items = media.data ?? []
  const tables = items.filter((m) => m.kind !== 'image')
  return (
    <div className="space-y-3 text-sm">
      {canEdit && (
        <>
          <input
            ref={input}
            type="file"
            multiple
            accept={DATA_ACCEPT}
            aria-label="Upload data or media"
            className="sr-only"
            onChange={(e) => {
              const files = [...(e.target.files ?? [])]
              e.target.value = ''
              void send(files)
            }}
          />
          <Button variant="outline" className="w-full" onClick={() => input.current?.click()}>
            <Upload /> Upload Data or Images
          </Button>
          <p className="text-xs text-slate-500">Excel (.xlsx, .xls), CSV, PNG or JPG. Shared with everyone editing this report.</p>
        </>
      )}
      {media.isLoading && <Spinner label="Loading files..." />}
      {media.isError && (
        <p role="alert" className="text-xs text-red-700">
          {errorMessage(media.error, 'Failed to load the data files')}
        </p>
      )}
      <ul className="space-y-2" aria-label="Data and media">
        {processing.map((name, i) => (
          <li key={`p-${i}`} className="flex items-center gap-2 rounded-md border border-slate-200 p-2" data-status="processing">
            <Spinner className="size-4" />
            <span className="min-w-0 flex-1 truncate">{name}</span>
            <span className="text-xs text-slate-500">Processing...</span>
          </li>
        ))}
        {failed.map((f) => (
          <li key={f.key} className="rounded-md border border-red-200 bg-red-50 p-2" data-status="error">
            <div className="flex items-center gap-2">
              <span className="min-w-0 flex-1 truncate font-medium text-red-800">{f.name}</span>
              <Button variant="ghost" size="icon" aria-label={`Dismiss ${f.name}`} onClick={() => setFailed((all) => all.filter((x) => x.key !== f.key))}>
                <X />
              </Button>
            </div>
            <p className="text-xs text-red-700">{f.message}</p>
          </li>
        ))}
        {items.map((m) => (
          <li key={m.id} className="space-y-2 rounded-md border border-slate-200 p-2" data-status="success">
            <div className="flex items-center gap-2">
              {m.kind === 'image' ? <ImageIcon className="size-4 text-slate-500" aria-hidden="true" /> : <FileSpreadsheet className="size-4 text-emerald-600" aria-hidden="true" />}
              <div className="min-w-0 flex-1">
                <p className="truncate font-medium text-slate-900">{m.name}</p>
                <p className="text-xs text-slate-500">
                  {m.kind === 'image' ? `${Math.max(1, Math.round(m.sizeBytes / 1024))} KB` : `${m.rowCount} rows, ${m.columnCount} columns${m.sheet ? ` (${m.sheet})` : ''}`}
                </p>
              </div>
              {m.kind !== 'image' && (
                <Button
                  variant="ghost"
                  size="icon"
                  aria-label={`Preview ${m.name}`}
                  aria-pressed={previewed === m.id}
                  onClick={() => setPreviewed((p) => (p === m.id ? null : m.id))}
                >
                  <Eye />
                </Button>
              )}
              {canEdit && (
                <Button variant="ghost" size="icon" aria-label={`Delete ${m.name}`} onClick={() => setConfirm(m)}>
                  <Trash2 />
                </Button>
              )}
            </div>
            {previewed === m.id && <DataPreview clientId={clientId} reportId={reportId} media={m} />}
          </li>
        ))}
        {!media.isLoading && items.length === 0 && processing.length === 0 && <li className="text-xs text-slate-500">No files uploaded yet.</li>}
      </ul>
      {confirm && (
        <div role="alertdialog" aria-label={`Delete ${confirm.name}`} className="space-y-2 rounded-md border border-amber-300 bg-amber-50 p-2 text-xs">
          <p>
            Delete "{confirm.name}" for everyone editing this report?
            {confirm.kind === 'image' && imageInUse(confirm.id) ? ' It is shown in the report, which will then show that the image is not available.' : ''}
            {confirm.kind !== 'image' ? ' Charts and tables built from it keep their data but can no longer be edited.' : ''}
          </p>
          <div className="flex justify-end gap-2">
            <Button size="sm" variant="outline" onClick={() => setConfirm(null)}>
              Cancel
            </Button>
            <Button
              size="sm"
              variant="destructive"
              onClick={() => {
                const m = confirm
                setConfirm(null)
                remove.mutate(m.id, {
                  onSuccess: () => toast.success('File deleted', m.name),
                  onError: (e) => toast.error('Delete failed', errorMessage(e, 'The file could not be deleted.')),
                })
              }}
            >
              Delete
            </Button>
          </div>
        </div>
      )}
      {canEdit && (
        <div className="grid grid-cols-2 gap-2">
          <Button variant="outline" onClick={onInsertChart}>
            <BarChart3 /> Insert Chart
          </Button>
          <Button variant="outline" onClick={onInsertTable}>
            <Table2 /> Insert Table
          </Button>
        </div>
      )}
      {canEdit && tables.length === 0 && <p className="text-xs text-slate-500">Charts and tables can also show the client's own savings and processed files.</p>}
    </div>
  )
}
