import type { DataTable } from '@/api/types/DataTable'
import type { DatasetInfo } from '@/api/types/DatasetInfo'
import type { ReportMedia } from '@/api/types/ReportMedia'
import { useState } from 'react'

import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { Spinner } from '@/components/ui/spinner'
import { errorMessage } from '@/lib/api-client'

import { useSourceRows } from './api'
import { TABLE_FONT_SIZE, TABLE_MAX_ROWS, TABLE_PREVIEW_ROWS, TABLE_WIDTHS, defaultMaxRows, type TableOptions, type TableWidth } from './nodes-model'
import { SourcePicker, sourceKey, sourceOf } from './source-picker'

type Props = {
  clientId: string
  reportId: string
  tables: ReportMedia[]
  datasets: DatasetInfo[]
  initial: TableOptions
  editing: boolean
  onCancel: () => void
  onSubmit: (table: DataTable, options: TableOptions) => void
}

const MAX_ROW_CHOICES = Array.from({ length: (TABLE_MAX_ROWS.max - TABLE_MAX_ROWS.min) / TABLE_MAX_ROWS.step + 1 }, (_, i) => TABLE_MAX_ROWS.min + i * TABLE_MAX_ROWS.step)
const FONT_SIZES = Array.from({ length: TABLE_FONT_SIZE.max - TABLE_FONT_SIZE.min + 1 }, (_, i) => TABLE_FONT_SIZE.min + i)

/**
 * The table builder (spec 002): a data source, the most rows to show (5 to 100 in steps of 5,
 * 20 by default capped by the data), the font size and the width, with a preview of at most 5
 * rows. The table goes into the document as a standard table of header and data rows.
 */
export function TableBuilder({ clientId, reportId, tables, datasets, initial, editing, onCancel, onSubmit }: Props) {
  const [o, setO] = useState<TableOptions>(initial)
  const [maxRowsChosen, setMaxRowsChosen] = useState(editing)
  const data = useSourceRows(clientId, reportId, o.source)
  const table = data.data
  const maxRows = maxRowsChosen || !table ? o.maxRows : defaultMaxRows(table.totalRows)
  const options = { ...o, maxRows }
  const set = (patch: Partial<TableOptions>) => setO((prev) => ({ ...prev, ...patch }))
  return (
    <Dialog open onOpenChange={(open) => !open && onCancel()}>
      <DialogContent className="max-h-[90vh] max-w-3xl overflow-y-auto">
        <DialogHeader>
          <DialogTitle>{editing ? 'Edit Table' : 'Table Builder'}</DialogTitle>
          <DialogDescription>Choose the data and how much of it to show.</DialogDescription>
        </DialogHeader>
        <div className="grid gap-3 sm:grid-cols-2">
          <SourcePicker
            value={sourceKey(o.source)}
            onChange={(key) => {
              set({ source: sourceOf(key, tables) })
              setMaxRowsChosen(false)
            }}
            tables={tables}
            datasets={datasets}
          />
          <label className="block space-y-1">
            <span className="text-xs font-medium text-slate-700">Max rows</span>
            <select
              aria-label="Max rows"
              value={maxRows}
              onChange={(e) => {
                set({ maxRows: Number(e.target.value) })
                setMaxRowsChosen(true)
              }}
              className="h-9 w-full rounded-md border border-slate-300 bg-white px-2 text-sm"
            >
              {MAX_ROW_CHOICES.map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </label>
          <label className="block space-y-1">
            <span className="text-xs font-medium text-slate-700">Font size</span>
            <select aria-label="Table font size" value={o.fontSize} onChange={(e) => set({ fontSize: Number(e.target.value) })} className="h-9 w-full rounded-md border border-slate-300 bg-white px-2 text-sm">
              {FONT_SIZES.map((n) => (
                <option key={n} value={n}>
                  {n}px
                </option>
              ))}
            </select>
          </label>
          <label className="block space-y-1">
            <span className="text-xs font-medium text-slate-700">Width</span>
            <select aria-label="Table width" value={o.width} onChange={(e) => set({ width: e.target.value as TableWidth })} className="h-9 w-full rounded-md border border-slate-300 bg-white px-2 text-sm">
              {TABLE_WIDTHS.map((w) => (
                <option key={w} value={w}>
                  {w}
                </option>
              ))}
            </select>
          </label>
        </div>
        <div className="space-y-1">
          <h3 className="text-sm font-semibold text-slate-900">Preview</h3>
          <div className="overflow-auto rounded-md border border-slate-200" data-testid="table-preview">
            {data.isLoading ? (
              <Spinner label="Loading data..." />
            ) : data.isError ? (
              <p role="alert" className="p-2 text-sm text-red-700">
                {errorMessage(data.error, 'The data could not be read.')}
              </p>
            ) : table ? (
              <table className="w-full text-left" style={{ fontSize: o.fontSize }}>
                <thead className="bg-slate-50">
                  <tr>
                    {table.columns.map((c) => (
                      <th key={c} className="border-b border-slate-200 px-2 py-1 font-semibold">
                        {c}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {table.rows.slice(0, Math.min(TABLE_PREVIEW_ROWS, maxRows)).map((r, i) => (
                    <tr key={i}>
                      {r.map((v, j) => (
                        <td key={j} className="border-b border-slate-100 px-2 py-1">
                          {v === null ? '' : String(v)}
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <p className="p-2 text-sm text-slate-500">Choose a data source to see the table.</p>
            )}
          </div>
          {table && (
            <p className="text-xs text-slate-500">
              The table shows {Math.min(maxRows, table.rows.length)} of {table.totalRows} rows.
            </p>
          )}
        </div>
        <DialogFooter>
          <Button variant="outline" onClick={onCancel}>
            Cancel
          </Button>
          <Button disabled={!table || table.rows.length === 0} onClick={() => table && onSubmit(table, options)}>
            {editing ? 'Update Table' : 'Insert Table'}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  )
}
