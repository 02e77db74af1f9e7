/**
 * Charts, tables and images of a report's shared document, as they are stored in a section's
 * Y.XmlFragment (the contract with the PDF export): every attribute is a string, structured
 * values are JSON text, booleans `"true"`/`"false"`, numbers decimal text; a missing or malformed
 * attribute reads as its default. Pure functions, shared by the builders and the node views.
 */
import { BRANDING_FONTS } from '@/config/fonts'

import type { DataTable } from '@/api/types/DataTable'

export const CHART_TYPES = ['bar', 'line', 'pie', 'area'] as const
export type ChartType = (typeof CHART_TYPES)[number]
export const CHART_TYPE_LABELS: Record<ChartType, string> = { bar: 'Bar Chart', line: 'Line Chart', pie: 'Pie Chart', area: 'Area Chart' }

/** The chart and table fonts (the branding panel's five). */
export const CHART_FONTS = BRANDING_FONTS
export type ChartFont = (typeof CHART_FONTS)[number]

/** The colour schemes: ten colours each, in the order of the y series (or a pie's slices). */
export const COLOR_SCHEMES = {
  default: ['#3b82f6', '#ef4444', '#10b981', '#f59e0b', '#8b5cf6', '#06b6d4', '#ec4899', '#84cc16', '#f97316', '#6366f1'],
  banking: ['#1e3a8a', '#1e40af', '#0f766e', '#047857', '#b45309', '#7c2d12', '#334155', '#475569', '#0369a1', '#6d28d9'],
} as const
export type ColorScheme = keyof typeof COLOR_SCHEMES
export const COLOR_SCHEME_LABELS: Record<ColorScheme, string> = { default: 'Default', banking: 'Banking' }

export const CHART_WIDTH = { min: 300, max: 1200, default: 600 } as const
export const CHART_HEIGHT = { min: 200, max: 800, default: 400 } as const
export const CHART_FONT_SIZE = { min: 8, max: 24, default: 12 } as const
/** Rows a chart keeps in the document at most. */
export const MAX_CHART_ROWS = 1000
/** Rows the chart builder previews. */
export const CHART_PREVIEW_ROWS = 20

/** Where a chart's or table's data comes from. */
export type DataSource = { kind: 'media'; mediaId: string; sheet: string } | { kind: 'client'; dataset: string }

/** A row a chart draws: the x value and the y columns' numbers. */
export type ChartRow = Record<string, string | number>

export type ChartConfig = {
  chartId: string
  chartType: ChartType
  title: string
  xColumn: string
  yColumns: string[]
  rows: ChartRow[]
  source: DataSource | null
  width: number
  height: number
  fontSize: number
  fontFamily: ChartFont
  colorScheme: ColorScheme
  showLegend: boolean
  showGrid: boolean
}

/** The stored attributes of a chart node (all strings). */
export type ChartAttrs = Record<keyof ChartConfig, string>

function int(text: unknown, bounds: { min: number; max: number; default: number }): number {
  const n = typeof text === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(text) ? Math.round(Number(text)) : NaN
  return Number.isFinite(n) && n >= bounds.min && n <= bounds.max ? n : bounds.default
}

function json(text: unknown): unknown {
  if (typeof text !== 'string') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function oneOf<T extends string>(value: unknown, options: readonly T[], fallback: T): T {
  return typeof value === 'string' && (options as readonly string[]).includes(value) ? (value as T) : fallback
}

function parseSource(text: unknown): DataSource | null {
  const v = json(text) as { kind?: unknown; mediaId?: unknown; sheet?: unknown; dataset?: unknown } | undefined
  if (!v || typeof v !== 'object') return null
  if (v.kind === 'media' && typeof v.mediaId === 'string' && v.mediaId !== '') {
    return { kind: 'media', mediaId: v.mediaId, sheet: typeof v.sheet === 'string' ? v.sheet : '' }
  }
  if (v.kind === 'client' && typeof v.dataset === 'string' && v.dataset !== '') return { kind: 'client', dataset: v.dataset }
  return null
}

function parseRows(text: unknown): ChartRow[] {
  const v = json(text)
  if (!Array.isArray(v)) return []
  return v
    .filter((r): r is Record<string, unknown> => r !== null && typeof r === 'object' && !Array.isArray(r))
    .slice(0, MAX_CHART_ROWS)
    .map((r) => Object.fromEntries(Object.entries(r).filter(([, x]) => typeof x === 'string' || typeof x === 'number')) as ChartRow)
}

/** A chart node's attributes read with the contract's defaults (never throws). */
export function readChart(attrs: Record<string, unknown>): ChartConfig {
  const ys = json(attrs.yColumns)
  return {
    chartId: typeof attrs.chartId === 'string' ? attrs.chartId : '',
    chartType: oneOf(attrs.chartType, CHART_TYPES, 'bar'),
    title: typeof attrs.title === 'string' ? attrs.title : '',
    xColumn: typeof attrs.xColumn === 'string' ? attrs.xColumn : '',
    yColumns: Array.isArray(ys) ? ys.filter((y): y is string => typeof y === 'string') : [],
    rows: parseRows(attrs.rows),
    source: parseSource(attrs.source),
    width: int(attrs.width, CHART_WIDTH),
    height: int(attrs.height, CHART_HEIGHT),
    fontSize: int(attrs.fontSize, CHART_FONT_SIZE),
    fontFamily: oneOf(attrs.fontFamily, CHART_FONTS, 'Arial'),
    colorScheme: oneOf(attrs.colorScheme, ['default', 'banking'] as const, 'default'),
    showLegend: attrs.showLegend !== 'false',
    showGrid: attrs.showGrid !== 'false',
  }
}

/** A chart's attributes as stored (every value a string). */
export function chartAttrs(c: ChartConfig): ChartAttrs {
  return {
    chartId: c.chartId,
    chartType: c.chartType,
    title: c.title,
    xColumn: c.xColumn,
    yColumns: JSON.stringify(c.yColumns),
    rows: JSON.stringify(c.rows.slice(0, MAX_CHART_ROWS)),
    source: c.source ? JSON.stringify(c.source) : '',
    width: String(c.width),
    height: String(c.height),
    fontSize: String(c.fontSize),
    fontFamily: c.fontFamily,
    colorScheme: c.colorScheme,
    showLegend: String(c.showLegend),
    showGrid: String(c.showGrid),
  }
}

/** A cell as a chart counts it: numbers as they are, numeric text read, anything else 0. */
export function toNumber(value: unknown): number {
  if (typeof value === 'number') return Number.isFinite(value) ? value : 0
  if (typeof value === 'string' && value.trim() !== '') {
    const n = Number(value.trim())
    return Number.isFinite(n) ? n : 0
  }
  return 0
}

/** The rows a chart draws from a table: the x column as text, each y column as a number. */
export function chartRows(table: Pick<DataTable, 'columns' | 'rows'>, xColumn: string, yColumns: string[], limit = MAX_CHART_ROWS): ChartRow[] {
  const xi = table.columns.indexOf(xColumn)
  const yi = yColumns.map((y) => [y, table.columns.indexOf(y)] as const).filter(([, i]) => i >= 0)
  if (xi < 0 || yi.length === 0) return []
  return table.rows.slice(0, limit).map((r) => {
    const row: ChartRow = { [xColumn]: r[xi] === null || r[xi] === undefined ? '' : String(r[xi]) }
    for (const [y, i] of yi) row[y] = toNumber(r[i])
    return row
  })
}

/** Whether a chart can be drawn: an x column, at least one y column and some rows. */
export function chartReady(c: Pick<ChartConfig, 'xColumn' | 'yColumns' | 'rows'>): boolean {
  return c.xColumn !== '' && c.yColumns.length > 0 && c.rows.length > 0
}

/** Columns whose values are mostly numbers (the builder's first pick of y columns). */
export function numericColumns(table: Pick<DataTable, 'columns' | 'rows'>): string[] {
  return table.columns.filter((_, i) => {
    const values = table.rows.slice(0, 50).map((r) => r[i]).filter((v) => v !== null && v !== '')
    const numeric = values.filter((v) => typeof v === 'number' || (typeof v === 'string' && Number.isFinite(Number(v.trim()))))
    return values.length > 0 && numeric.length * 2 >= values.length
  })
}

// Tables ---------------------------------------------------------------------------------------

export const TABLE_MAX_ROWS = { min: 5, max: 100, step: 5, default: 20 } as const
export const TABLE_FONT_SIZE = { min: 8, max: 18, default: 12 } as const
export const TABLE_WIDTHS = ['25%', '50%', '75%', '100%'] as const
export type TableWidth = (typeof TABLE_WIDTHS)[number]
/** Rows the table builder previews. */
export const TABLE_PREVIEW_ROWS = 5

export type TableOptions = { maxRows: number; fontSize: number; width: TableWidth; source: DataSource | null }

/** The default max rows for a table of `rowCount` rows: 20, capped by the data, in steps of 5. */
export function defaultMaxRows(rowCount: number): number {
  const capped = Math.min(TABLE_MAX_ROWS.default, Math.max(TABLE_MAX_ROWS.min, Math.ceil(rowCount / TABLE_MAX_ROWS.step) * TABLE_MAX_ROWS.step))
  return Math.max(TABLE_MAX_ROWS.min, Math.min(TABLE_MAX_ROWS.max, capped))
}

function cellText(v: unknown): string {
  if (v === null || v === undefined) return ''
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Math.round(v * 1e6) / 1e6)
  return String(v)
}

type PmNode = { type: string; attrs?: Record<string, string | number | null>; content?: PmNode[]; text?: string }

function paragraph(text: string): PmNode {
  return text === '' ? { type: 'paragraph' } : { type: 'paragraph', content: [{ type: 'text', text }] }
}

/**
 * The Tiptap JSON of a table built from data: a header row of the column names and at most
 * `maxRows` data rows, with the table's font size, width and source as attributes.
 */
export function tableContent(table: Pick<DataTable, 'columns' | 'rows'>, o: TableOptions): PmNode {
  const header: PmNode = { type: 'tableRow', content: table.columns.map((c) => ({ type: 'tableHeader', content: [paragraph(c)] })) }
  const rows: PmNode[] = table.rows.slice(0, o.maxRows).map((r) => ({
    type: 'tableRow',
    content: table.columns.map((_, i) => ({ type: 'tableCell', content: [paragraph(cellText(r[i]))] })),
  }))
  return {
    type: 'table',
    attrs: {
      fontSize: String(o.fontSize),
      width: o.width,
      sourceMediaId: o.source?.kind === 'media' ? o.source.mediaId : '',
      sourceDataset: o.source?.kind === 'client' ? o.source.dataset : '',
    },
    content: [header, ...rows],
  }
}

/** A table node's options read back (for editing it), with defaults for what is missing. */
export function readTable(attrs: Record<string, unknown>, dataRows: number): TableOptions {
  const media = typeof attrs.sourceMediaId === 'string' ? attrs.sourceMediaId : ''
  const dataset = typeof attrs.sourceDataset === 'string' ? attrs.sourceDataset : ''
  return {
    maxRows: Math.max(TABLE_MAX_ROWS.min, Math.min(TABLE_MAX_ROWS.max, Math.ceil(dataRows / TABLE_MAX_ROWS.step) * TABLE_MAX_ROWS.step)),
    fontSize: int(attrs.fontSize, { ...TABLE_FONT_SIZE, max: 24 }),
    width: oneOf(attrs.width, TABLE_WIDTHS, '100%'),
    source: media ? { kind: 'media', mediaId: media, sheet: '' } : dataset ? { kind: 'client', dataset } : null,
  }
}

// Images ---------------------------------------------------------------------------------------

export const IMAGE_WIDTHS = ['25%', '50%', '75%', '100%'] as const
export type ImageWidth = (typeof IMAGE_WIDTHS)[number]
export const IMAGE_ALIGNS = ['left', 'center', 'right'] as const
export type ImageAlign = (typeof IMAGE_ALIGNS)[number]
/** Largest image (the upload's 10 MB). */
export const IMAGE_MAX_BYTES = 10 * 1024 * 1024
export const IMAGE_ACCEPT = '.png,.jpg,.jpeg,.gif,.webp,image/png,image/jpeg,image/gif,image/webp'

export type ImageConfig = { mediaId: string; src: string; alt: string; width: ImageWidth; align: ImageAlign; caption: string }

/** An image node's attributes read with the contract's defaults. */
export function readImage(attrs: Record<string, unknown>): ImageConfig {
  const s = (v: unknown) => (typeof v === 'string' ? v : '')
  return {
    mediaId: s(attrs.mediaId),
    src: s(attrs.src),
    alt: s(attrs.alt),
    width: oneOf(attrs.width, IMAGE_WIDTHS, '100%'),
    align: oneOf(attrs.align, IMAGE_ALIGNS, 'center'),
    caption: s(attrs.caption),
  }
}

/** Whether an image's `src` is the report's own media route (the only source an image may load). */
export function isOwnMediaSrc(src: string, reportId: string, mediaId: string): boolean {
  return src === `/api/reports/${reportId}/media/${mediaId}`
}

/** Whether a file is an image the upload takes (by name and type), and within 10 MB. */
export function checkImageFile(file: File): string | null {
  const ok = /\.(png|jpe?g|gif|webp)$/i.test(file.name)
  if (!ok) return 'Please select a PNG, JPG, GIF or WebP image.'
  if (file.size > IMAGE_MAX_BYTES) return 'Images must be smaller than 10MB'
  return null
}
