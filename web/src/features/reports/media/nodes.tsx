/**
 * The Tiptap nodes of a report's charts, images and tables, bound to the Y.Doc through the
 * sections' Collaboration extension like the text, so co-editors see them appear live and
 * concurrent edits converge. Attributes are stored as the contract says (`nodes-model.ts`).
 */
import { mergeAttributes, Node, type Editor } from '@tiptap/core'
import { Table, TableCell, TableHeader, TableRow } from '@tiptap/extension-table'
import { NodeViewWrapper, ReactNodeViewRenderer, type NodeViewProps } from '@tiptap/react'
import { ImageOff, Pencil, Trash2 } from 'lucide-react'
import { createContext, useContext, useState } from 'react'

import { Button } from '@/components/ui/button'
import { toast } from '@/lib/toast'

import { useSourceRows } from './api'
import { ChartFigure } from './chart-figure'
import { chartAttrs, chartRows, isOwnMediaSrc, readChart, readImage, type ChartConfig } from './nodes-model'

/** A node of a section's editor that a builder edits in place. */
export type NodeTarget = { editor: Editor; pos: number }

/** What the node views need from the report editor. */
export type ReportMediaContextValue = {
  clientId: string
  reportId: string
  editChart: (target: NodeTarget, config: ChartConfig) => void
  editImage: (target: NodeTarget) => void
}

export const ReportMediaContext = createContext<ReportMediaContextValue | null>(null)

function stringAttributes(defaults: Record<string, string>) {
  return Object.fromEntries(
    Object.entries(defaults).map(([key, value]) => [
      key,
      {
        default: value,
        parseHTML: (el: HTMLElement) => el.getAttribute(`data-${key.toLowerCase()}`) ?? value,
        renderHTML: (attrs: Record<string, unknown>) => ({ [`data-${key.toLowerCase()}`]: attrs[key] }),
      },
    ]),
  )
}

const CHART_DEFAULTS: Record<string, string> = chartAttrs({
  chartId: '',
  chartType: 'bar',
  title: '',
  xColumn: '',
  yColumns: [],
  rows: [],
  source: null,
  width: 600,
  height: 400,
  fontSize: 12,
  fontFamily: 'Arial',
  colorScheme: 'default',
  showLegend: true,
  showGrid: true,
})

function NodeActions({ label, onEdit, onDelete }: { label: string; onEdit: () => void; onDelete: () => void }) {
  return (
    <div className="report-editor-chrome absolute top-1 right-1 flex gap-1 rounded-md bg-white/90 p-0.5 opacity-0 shadow-sm transition-opacity group-hover/node:opacity-100 group-focus-within/node:opacity-100">
      <Button type="button" variant="ghost" size="icon" aria-label={`Edit ${label}`} onClick={onEdit}>
        <Pencil />
      </Button>
      <Button type="button" variant="ghost" size="icon" aria-label={`Delete ${label}`} onClick={onDelete}>
        <Trash2 />
      </Button>
    </div>
  )
}

function ChartView({ node, editor, getPos, deleteNode }: NodeViewProps) {
  const ctx = useContext(ReportMediaContext)
  const config = readChart(node.attrs)
  // The client's own results are read again, so the chart is always current; the stored rows
  // are the last snapshot, drawn while the dataset loads or when it cannot be read.
  const live = useSourceRows(ctx?.clientId ?? '', ctx?.reportId ?? '', ctx && config.source?.kind === 'client' ? config.source : null)
  const liveRows = live.data ? chartRows(live.data, config.xColumn, config.yColumns) : []
  const rows = liveRows.length > 0 ? liveRows : config.rows
  const label = config.title ? `chart ${config.title}` : 'chart'
  return (
    <NodeViewWrapper className="group/node relative my-3" data-chart-id={config.chartId} data-testid="report-chart" contentEditable={false}>
      {rows.length > 0 && config.xColumn && config.yColumns.length > 0 ? (
        <ChartFigure config={{ ...config, rows }} />
      ) : (
        <p className="rounded-md border border-dashed border-slate-300 p-4 text-sm text-slate-500">This chart has no data to draw.</p>
      )}
      {editor.isEditable && ctx && (
        <NodeActions
          label={label}
          onEdit={() => ctx.editChart({ editor, pos: getPos() ?? 0 }, config)}
          onDelete={() => {
            deleteNode()
            toast.success('Chart deleted')
          }}
        />
      )}
    </NodeViewWrapper>
  )
}

/** A chart of the report (block, atom). */
export const ChartNode = Node.create({
  name: 'chart',
  group: 'block',
  atom: true,
  selectable: true,
  draggable: false,
  addAttributes() {
    return stringAttributes(CHART_DEFAULTS)
  },
  parseHTML() {
    return [{ tag: 'div[data-report-chart]' }]
  },
  renderHTML({ HTMLAttributes }) {
    return ['div', mergeAttributes(HTMLAttributes, { 'data-report-chart': '' })]
  },
  addNodeView() {
    return ReactNodeViewRenderer(ChartView)
  },
})

const IMAGE_DEFAULTS: Record<string, string> = { mediaId: '', src: '', alt: '', width: '100%', align: 'center', caption: '' }

function ImageView({ node, editor, getPos, deleteNode }: NodeViewProps) {
  const ctx = useContext(ReportMediaContext)
  const image = readImage(node.attrs)
  const [failed, setFailed] = useState<string | null>(null)
  // Only the report's own media route is ever loaded: an image node cannot make a reader's
  // browser fetch another address.
  const src = ctx && isOwnMediaSrc(image.src, ctx.reportId, image.mediaId) ? image.src : null
  const broken = src === null || failed === src
  return (
    <NodeViewWrapper className="group/node relative my-3" data-testid="report-image" contentEditable={false}>
      <figure style={{ textAlign: image.align }} className="m-0">
        {broken ? (
          <div className="inline-flex items-center gap-2 rounded-md border border-dashed border-slate-300 p-4 text-sm text-slate-500" style={{ width: image.width }}>
            <ImageOff className="size-4" aria-hidden="true" /> Image not available{image.alt ? `: ${image.alt}` : ''}
          </div>
        ) : (
          <img src={src} alt={image.alt} style={{ width: image.width, display: 'inline-block' }} onError={() => setFailed(src)} draggable={false} />
        )}
        {image.caption && <figcaption className="mt-1 text-sm text-slate-600">{image.caption}</figcaption>}
      </figure>
      {editor.isEditable && ctx && (
        <NodeActions
          label={`image ${image.alt}`.trim()}
          onEdit={() => ctx.editImage({ editor, pos: getPos() ?? 0 })}
          onDelete={() => {
            deleteNode()
            toast.success('Image deleted')
          }}
        />
      )}
    </NodeViewWrapper>
  )
}

/** An image of the report's media (block, atom). */
export const ImageNode = Node.create({
  name: 'image',
  group: 'block',
  atom: true,
  selectable: true,
  draggable: false,
  addAttributes() {
    return stringAttributes(IMAGE_DEFAULTS)
  },
  parseHTML() {
    return [{ tag: 'figure[data-report-image]' }]
  },
  renderHTML({ HTMLAttributes }) {
    return ['figure', mergeAttributes(HTMLAttributes, { 'data-report-image': '' })]
  },
  addNodeView() {
    return ReactNodeViewRenderer(ImageView)
  },
})

/**
 * The standard table with the builder's optional attributes: font size, width (25 to 100 %) and
 * the data source it was built from (`sourceMediaId`, or `sourceDataset` for a client dataset).
 */
export const ReportTable = Table.extend({
  addAttributes() {
    return {
      ...this.parent?.(),
      fontSize: {
        default: '',
        parseHTML: (el: HTMLElement) => el.getAttribute('data-font-size') ?? '',
        renderHTML: (attrs: Record<string, unknown>) =>
          attrs.fontSize ? { 'data-font-size': attrs.fontSize, style: `--report-table-font-size: ${Number(attrs.fontSize)}px` } : {},
      },
      width: {
        default: '',
        parseHTML: (el: HTMLElement) => el.getAttribute('data-width') ?? '',
        renderHTML: (attrs: Record<string, unknown>) => (attrs.width ? { 'data-width': attrs.width } : {}),
      },
      sourceMediaId: {
        default: '',
        parseHTML: (el: HTMLElement) => el.getAttribute('data-source-media-id') ?? '',
        renderHTML: (attrs: Record<string, unknown>) => (attrs.sourceMediaId ? { 'data-source-media-id': attrs.sourceMediaId } : {}),
      },
      sourceDataset: {
        default: '',
        parseHTML: (el: HTMLElement) => el.getAttribute('data-source-dataset') ?? '',
        renderHTML: (attrs: Record<string, unknown>) => (attrs.sourceDataset ? { 'data-source-dataset': attrs.sourceDataset } : {}),
      },
    }
  },
}).configure({ resizable: false })

/** Every extension the report's charts, tables and images need in a section's editor. */
export const MEDIA_EXTENSIONS = [ChartNode, ImageNode, ReportTable, TableRow, TableHeader, TableCell]
