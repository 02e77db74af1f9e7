import type { DatasetInfo } from '@/api/types/DatasetInfo'
import type { ReportMedia } from '@/api/types/ReportMedia'
import { useState } from 'react'

import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { Input } from '@/components/ui/input'
import { Spinner } from '@/components/ui/spinner'
import { errorMessage } from '@/lib/api-client'

import { useSourceRows } from './api'
import { ChartFigure } from './chart-figure'
import {
  CHART_FONT_SIZE,
  CHART_FONTS,
  CHART_HEIGHT,
  CHART_PREVIEW_ROWS,
  CHART_TYPE_LABELS,
  CHART_TYPES,
  CHART_WIDTH,
  COLOR_SCHEME_LABELS,
  COLOR_SCHEMES,
  chartReady,
  chartRows,
  numericColumns,
  type ChartConfig,
  type ChartFont,
  type ChartType,
  type ColorScheme,
} from './nodes-model'
import { SourcePicker, sourceKey, sourceOf } from './source-picker'

type Props = {
  clientId: string
  reportId: string
  tables: ReportMedia[]
  datasets: DatasetInfo[]
  /** The chart being edited, or a new chart's starting settings. */
  initial: ChartConfig
  editing: boolean
  onCancel: () => void
  onSubmit: (config: ChartConfig) => void
}

/** Keeps a typed number within bounds once the field is left. */
function clamp(value: number, b: { min: number; max: number; default: number }): number {
  if (!Number.isFinite(value)) return b.default
  return Math.min(b.max, Math.max(b.min, Math.round(value)))
}

function NumberField({ label, value, bounds, onChange }: { label: string; value: number; bounds: { min: number; max: number; default: number }; onChange: (n: number) => void }) {
  const [text, setText] = useState(String(value))
  const [seen, setSeen] = useState(value)
  if (seen !== value) {
    setSeen(value)
    setText(String(value))
  }
  return (
    <label className="block space-y-1">
      <span className="text-xs font-medium text-slate-700">
        {label} ({bounds.min}-{bounds.max})
      </span>
      <Input
        type="number"
        aria-label={label}
        min={bounds.min}
        max={bounds.max}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onBlur={() => {
          const n = clamp(Number(text), bounds)
          setText(String(n))
          onChange(n)
        }}
      />
    </label>
  )
}

/**
 * The chart builder (spec 002): a data source, the chart type, an x column and y columns, size,
 * font, colour scheme, legend and grid, with a preview of the first 20 rows. Non-numeric values
 * count as 0; 'Insert Chart' is disabled until there is something to draw.
 */
export function ChartBuilder({ clientId, reportId, tables, datasets, initial, editing, onCancel, onSubmit }: Props) {
  const [c, setC] = useState<ChartConfig>(initial)
  const data = useSourceRows(clientId, reportId, c.source)
  const columns = data.data?.columns ?? []
  const rows = data.data ? chartRows(data.data, c.xColumn, c.yColumns) : []
  const draft = { ...c, rows }
  const ready = chartReady(draft)
  const set = (patch: Partial<ChartConfig>) => setC((prev) => ({ ...prev, ...patch }))

  const pickSource = (key: string) => {
    const source = sourceOf(key, tables)
    set({ source, xColumn: '', yColumns: [] })
  }
  // A new source's columns: its first text column as x and its first numeric column as y, once loaded.
  const [defaultsFor, setDefaultsFor] = useState<string | null>(editing ? sourceKey(initial.source) : null)
  if (data.data && defaultsFor !== sourceKey(c.source) && c.xColumn === '' && c.yColumns.length === 0) {
    setDefaultsFor(sourceKey(c.source))
    const numeric = numericColumns(data.data)
    const x = data.data.columns.find((col) => !numeric.includes(col)) ?? data.data.columns[0] ?? ''
    set({ xColumn: x, yColumns: numeric.filter((n) => n !== x).slice(0, 1) })
  }

  return (
    <Dialog open onOpenChange={(open) => !open && onCancel()}>
      <DialogContent className="max-h-[90vh] max-w-4xl overflow-y-auto">
        <DialogHeader>
          <DialogTitle>{editing ? 'Edit Chart' : 'Chart Builder'}</DialogTitle>
          <DialogDescription>Choose the data, then how to draw it. The preview shows the first {CHART_PREVIEW_ROWS} rows.</DialogDescription>
        </DialogHeader>
        <div className="grid gap-4 md:grid-cols-[18rem_1fr]">
          <div className="space-y-3">
            <SourcePicker value={sourceKey(c.source)} onChange={pickSource} tables={tables} datasets={datasets} />
            <label className="block space-y-1">
              <span className="text-xs font-medium text-slate-700">Chart type</span>
              <select aria-label="Chart type" value={c.chartType} onChange={(e) => set({ chartType: e.target.value as ChartType })} className="h-9 w-full rounded-md border border-slate-300 bg-white px-2 text-sm">
                {CHART_TYPES.map((t) => (
                  <option key={t} value={t}>
                    {CHART_TYPE_LABELS[t]}
                  </option>
                ))}
              </select>
            </label>
            <label className="block space-y-1">
              <span className="text-xs font-medium text-slate-700">Chart title</span>
              <Input aria-label="Chart title" value={c.title} onChange={(e) => set({ title: e.target.value })} placeholder="Enter chart title" />
            </label>
            <label className="block space-y-1">
              <span className="text-xs font-medium text-slate-700">X axis column</span>
              <select aria-label="X axis column" value={c.xColumn} onChange={(e) => set({ xColumn: e.target.value })} disabled={columns.length === 0} className="h-9 w-full rounded-md border border-slate-300 bg-white px-2 text-sm">
                <option value="">Select column</option>
                {columns.map((col) => (
                  <option key={col} value={col}>
                    {col}
                  </option>
                ))}
              </select>
            </label>
            <fieldset className="space-y-1">
              <legend className="text-xs font-medium text-slate-700">{c.chartType === 'pie' ? 'Value column (the first checked)' : 'Y axis columns'}</legend>
              {columns.length === 0 && <p className="text-xs text-slate-500">Choose a data source first.</p>}
              <div className="max-h-32 space-y-1 overflow-y-auto">
                {columns
                  .filter((col) => col !== c.xColumn)
                  .map((col) => (
                    <label key={col} className="flex items-center gap-2 text-sm">
                      <input
                        type="checkbox"
                        checked={c.yColumns.includes(col)}
                        onChange={(e) => set({ yColumns: e.target.checked ? [...c.yColumns, col] : c.yColumns.filter((y) => y !== col) })}
                      />
                      {col}
                    </label>
                  ))}
              </div>
            </fieldset>
            <div className="grid grid-cols-2 gap-2">
              <NumberField label="Width" value={c.width} bounds={CHART_WIDTH} onChange={(width) => set({ width })} />
              <NumberField label="Height" value={c.height} bounds={CHART_HEIGHT} onChange={(height) => set({ height })} />
              <NumberField label="Font size" value={c.fontSize} bounds={CHART_FONT_SIZE} onChange={(fontSize) => set({ fontSize })} />
              <label className="block space-y-1">
                <span className="text-xs font-medium text-slate-700">Font</span>
                <select aria-label="Chart font" value={c.fontFamily} onChange={(e) => set({ fontFamily: e.target.value as ChartFont })} className="h-9 w-full rounded-md border border-slate-300 bg-white px-2 text-sm">
                  {CHART_FONTS.map((f) => (
                    <option key={f} value={f}>
                      {f}
                    </option>
                  ))}
                </select>
              </label>
            </div>
            <fieldset className="space-y-1">
              <legend className="text-xs font-medium text-slate-700">Colour scheme</legend>
              {(Object.keys(COLOR_SCHEMES) as ColorScheme[]).map((s) => (
                <label key={s} className="flex items-center gap-2 text-sm">
                  <input type="radio" name="chart-colour-scheme" checked={c.colorScheme === s} onChange={() => set({ colorScheme: s })} />
                  {COLOR_SCHEME_LABELS[s]}
                  <span className="flex gap-0.5" aria-hidden="true">
                    {COLOR_SCHEMES[s].slice(0, 6).map((col) => (
                      <span key={col} className="size-3 rounded-sm" style={{ backgroundColor: col }} />
                    ))}
                  </span>
                </label>
              ))}
            </fieldset>
            <div className="flex gap-4 text-sm">
              <label className="flex items-center gap-2">
                <input type="checkbox" checked={c.showLegend} onChange={(e) => set({ showLegend: e.target.checked })} /> Show legend
              </label>
              <label className="flex items-center gap-2">
                <input type="checkbox" checked={c.showGrid} onChange={(e) => set({ showGrid: e.target.checked })} /> Show grid
              </label>
            </div>
          </div>
          <div className="min-w-0 space-y-2">
            <h3 className="text-sm font-semibold text-slate-900">Preview</h3>
            <div className="overflow-auto rounded-md border border-slate-200 p-2" data-testid="chart-preview">
              {data.isLoading ? (
                <Spinner label="Loading data..." />
              ) : data.isError ? (
                <p role="alert" className="text-sm text-red-700">
                  {errorMessage(data.error, 'The data could not be read.')}
                </p>
              ) : ready ? (
                <ChartFigure config={{ ...draft, rows: rows.slice(0, CHART_PREVIEW_ROWS) }} />
              ) : (
                <p className="text-sm text-slate-500">Choose a data source, an x column and at least one y column to see the chart.</p>
              )}
            </div>
            {data.data && data.data.totalRows > rows.length && (
              <p className="text-xs text-slate-500">
                The chart keeps the first {rows.length} of {data.data.totalRows} rows.
              </p>
            )}
          </div>
        </div>
        <DialogFooter>
          <Button variant="outline" onClick={onCancel}>
            Cancel
          </Button>
          <Button disabled={!ready} onClick={() => onSubmit(draft)}>
            {editing ? 'Update Chart' : 'Insert Chart'}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  )
}
