import type { DataTable } from '@/api/types/DataTable'
import type { Editor } from '@tiptap/core'
import { useCallback, useMemo, useRef, useState, type ReactNode } from 'react'
import * as Y from 'yjs'

import { errorMessage } from '@/lib/api-client'
import { toast } from '@/lib/toast'

import { fragmentName, type Section } from '../utils/sections'
import { useDatasets, useLiveReportMedia, useReportMedia, useUploadMedia } from './api'
import { ChartBuilder } from './chart-builder'
import { ImageDialog, type ImageChoice } from './image-dialog'
import { addImagesSection, chooseEditor, insertBlock, replaceBlock, updateAttrs } from './insert'
import type { NodeTarget, ReportMediaContextValue } from './nodes'
import { CHART_FONT_SIZE, CHART_HEIGHT, CHART_WIDTH, TABLE_MAX_ROWS, chartAttrs, readImage, readTable, tableContent, type ChartConfig, type ImageConfig, type TableOptions } from './nodes-model'
import { sourceExists } from './source-picker'
import { TableBuilder } from './table-builder'

type Dialog =
  | { kind: 'chart'; initial: ChartConfig; target: NodeTarget | null }
  | { kind: 'table'; initial: TableOptions; target: NodeTarget | null }
  | { kind: 'image'; initial: ImageConfig | null; target: NodeTarget | null }

function newChart(): ChartConfig {
  return {
    chartId: crypto.randomUUID(),
    chartType: 'bar',
    title: '',
    xColumn: '',
    yColumns: [],
    rows: [],
    source: null,
    width: CHART_WIDTH.default,
    height: CHART_HEIGHT.default,
    fontSize: CHART_FONT_SIZE.default,
    fontFamily: 'Arial',
    colorScheme: 'default',
    showLegend: true,
    showGrid: true,
  }
}

const NEW_TABLE: TableOptions = { maxRows: TABLE_MAX_ROWS.default, fontSize: 12, width: '100%', source: null }

type Options = {
  doc: Y.Doc
  clientId: string
  reportId: string
  sections: Section[]
  /** The section editor holding the cursor (the last focused). */
  active: Editor | null
}

/**
 * Charts, tables and images of the report editor: the builders and the image upload, where
 * they insert (the section being edited, else the first; no section: 'No section available',
 * or for an image a new 'Images' section), editing in place, and the data the node views read.
 */
export function useMediaEditing({ doc, clientId, reportId, sections, active }: Options) {
  useLiveReportMedia(clientId, reportId)
  const media = useReportMedia(clientId, reportId)
  const datasets = useDatasets(clientId, reportId)
  const upload = useUploadMedia(clientId, reportId)
  const editors = useRef(new Map<string, Editor>())
  const [dialog, setDialog] = useState<Dialog | null>(null)
  const items = useMemo(() => media.data ?? [], [media.data])
  const tables = useMemo(() => items.filter((m) => m.kind !== 'image'), [items])
  const sets = datasets.data ?? []

  const registerEditor = useCallback((sectionId: string, editor: Editor | null) => {
    if (editor) editors.current.set(sectionId, editor)
    else editors.current.delete(sectionId)
  }, [])

  /** Where a new block goes: (editor, at the cursor?), or null with the spec's toast. */
  const target = (): [Editor, boolean] | null => {
    const first = sections.length > 0 ? (editors.current.get(sections[0].id) ?? null) : null
    const ed = chooseEditor(active && sections.some((s) => editors.current.get(s.id) === active) ? active : null, first)
    if (!ed) {
      toast.error('No section available', 'Unable to determine target section for insertion.')
      return null
    }
    return [ed, ed === active]
  }

  const needData = () => {
    if (tables.length === 0 && sets.length === 0) {
      toast.error('No data files available', 'Please upload Excel or CSV files in the Data & Charts panel first.')
      return true
    }
    return false
  }

  const openChart = () => {
    if (needData()) return
    setDialog({ kind: 'chart', initial: newChart(), target: null })
  }
  const openTable = () => {
    if (needData()) return
    setDialog({ kind: 'table', initial: NEW_TABLE, target: null })
  }
  const openImage = () => setDialog({ kind: 'image', initial: null, target: null })

  const editChart = (t: NodeTarget, config: ChartConfig) => {
    if (!sourceExists(config.source, items, sets)) {
      toast.error('Unable to edit chart', 'Cannot find the original data source for this chart. Please upload the data file again.')
      return
    }
    setDialog({ kind: 'chart', initial: config, target: t })
  }
  const editImage = (t: NodeTarget) => {
    const node = t.editor.state.doc.nodeAt(t.pos)
    if (!node) return
    setDialog({ kind: 'image', initial: readImage(node.attrs), target: t })
  }
  /** Edits the table holding the cursor of `editor`. */
  const editTable = (editor: Editor) => {
    const { $from } = editor.state.selection
    for (let d = $from.depth; d > 0; d--) {
      const node = $from.node(d)
      if (node.type.name !== 'table') continue
      const options = readTable(node.attrs, Math.max(0, node.childCount - 1))
      if (!sourceExists(options.source, items, sets)) {
        toast.error('Unable to edit table', 'Cannot find the original data source for this table. Please upload the data file again.')
        return
      }
      setDialog({ kind: 'table', initial: options, target: { editor, pos: $from.before(d) } })
      return
    }
    toast.error('Table not found', 'Unable to locate the table for editing.')
  }
  const deleteTable = (editor: Editor) => {
    if (editor.chain().focus().deleteTable().run()) toast.success('Table deleted')
  }

  const submitChart = (config: ChartConfig, t: NodeTarget | null) => {
    const attrs = chartAttrs(config)
    if (t) {
      if (updateAttrs(t, 'chart', attrs)) toast.success('Chart updated')
      else toast.error('Chart not found', 'Unable to locate the chart for editing.')
    } else {
      const where = target()
      if (!where) return
      if (insertBlock(where[0], { type: 'chart', attrs }, where[1])) toast.success('Chart inserted')
    }
    setDialog(null)
  }

  const submitTable = (table: DataTable, options: TableOptions, t: NodeTarget | null) => {
    const content = tableContent(table, options)
    if (t) {
      if (replaceBlock(t, content)) toast.success('Table updated')
      else toast.error('Table not found', 'Unable to locate the table for editing.')
    } else {
      const where = target()
      if (!where) return
      if (insertBlock(where[0], content, where[1])) toast.success('Table inserted')
    }
    setDialog(null)
  }

  const submitImage = async (choice: ImageChoice, t: NodeTarget | null, initial: ImageConfig | null) => {
    let mediaId = initial?.mediaId ?? ''
    let src = initial?.src ?? ''
    if (choice.file) {
      try {
        const m = await upload.mutateAsync(choice.file)
        mediaId = m.id
        src = m.url
      } catch (e) {
        toast.error('Upload failed', errorMessage(e, 'Failed to upload image. Please try again.'))
        return
      }
    }
    const attrs = { mediaId, src, alt: choice.alt, width: choice.width, align: choice.align, caption: choice.caption }
    if (t) {
      if (updateAttrs(t, 'image', attrs)) toast.success('Image updated')
    } else if (sections.length === 0) {
      addImagesSection(doc, attrs)
      toast.success('Image uploaded')
    } else {
      const where = target()
      if (!where) return
      if (insertBlock(where[0], { type: 'image', attrs }, where[1])) toast.success('Image uploaded')
    }
    setDialog(null)
  }

  /** Whether the document shows the image `mediaId` (in any section). */
  const imageInUse = (mediaId: string): boolean =>
    sections.some((s) => {
      let found = false
      const walk = (el: Y.XmlElement | Y.XmlFragment) => {
        for (const child of el.toArray()) {
          if (found) return
          if (!(child instanceof Y.XmlElement)) continue
          if (child.nodeName === 'image' && child.getAttribute('mediaId') === mediaId) found = true
          else walk(child)
        }
      }
      walk(doc.getXmlFragment(fragmentName(s.id)))
      return found
    })

  const context: ReportMediaContextValue = { clientId, reportId, editChart, editImage }

  let dialogs: ReactNode = null
  if (dialog?.kind === 'chart') {
    const t = dialog.target
    dialogs = (
      <ChartBuilder
        clientId={clientId}
        reportId={reportId}
        tables={tables}
        datasets={sets}
        initial={dialog.initial}
        editing={t !== null}
        onCancel={() => setDialog(null)}
        onSubmit={(c) => submitChart(c, t)}
      />
    )
  } else if (dialog?.kind === 'table') {
    const t = dialog.target
    dialogs = (
      <TableBuilder
        clientId={clientId}
        reportId={reportId}
        tables={tables}
        datasets={sets}
        initial={dialog.initial}
        editing={t !== null}
        onCancel={() => setDialog(null)}
        onSubmit={(table, o) => submitTable(table, o, t)}
      />
    )
  } else if (dialog?.kind === 'image') {
    const { target: t, initial } = dialog
    dialogs = (
      <ImageDialog
        initial={initial}
        busy={upload.isPending}
        onCancel={() => setDialog(null)}
        onRefused={(title, message) => toast.error(title, message)}
        onSubmit={(choice) => void submitImage(choice, t, initial)}
      />
    )
  }

  return { context, dialogs, registerEditor, openChart, openTable, openImage, editTable, deleteTable, imageInUse }
}
