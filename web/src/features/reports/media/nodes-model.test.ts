import { getSchema } from '@tiptap/core'
import StarterKit from '@tiptap/starter-kit'
import { prosemirrorJSONToYXmlFragment, yXmlFragmentToProseMirrorRootNode } from '@tiptap/y-tiptap'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'

import { MEDIA_EXTENSIONS } from './nodes'
import {
  chartAttrs,
  chartReady,
  chartRows,
  checkImageFile,
  defaultMaxRows,
  isOwnMediaSrc,
  numericColumns,
  readChart,
  readImage,
  readTable,
  tableContent,
  toNumber,
  type ChartConfig,
} from './nodes-model'

const table = {
  columns: ['Month', 'Savings', 'Note'],
  rows: [
    ['Jan', 1234.5, 'a'],
    ['Feb', '2000', null],
    ['Mar', 'n/a', 'c'],
  ] as Array<Array<number | string | null>>,
}

const chart: ChartConfig = {
  chartId: 'c1',
  chartType: 'line',
  title: 'Savings <b>',
  xColumn: 'Month',
  yColumns: ['Savings'],
  rows: chartRows(table, 'Month', ['Savings']),
  source: { kind: 'media', mediaId: 'm1', sheet: '' },
  width: 800,
  height: 300,
  fontSize: 14,
  fontFamily: 'Georgia',
  colorScheme: 'banking',
  showLegend: false,
  showGrid: true,
}

describe('the chart builder', () => {
  it('draws the x column as text and counts non-numeric y values as 0', () => {
    expect(chartRows(table, 'Month', ['Savings', 'Note'])).toEqual([
      { Month: 'Jan', Savings: 1234.5, Note: 0 },
      { Month: 'Feb', Savings: 2000, Note: 0 },
      { Month: 'Mar', Savings: 0, Note: 0 },
    ])
    expect(chartRows(table, 'Nope', ['Savings'])).toEqual([])
    expect(chartRows(table, 'Month', [])).toEqual([])
    expect(chartRows(table, 'Month', ['Savings'], 2)).toHaveLength(2)
    expect([toNumber(' 7 '), toNumber(''), toNumber(null), toNumber(Number.NaN), toNumber('1e3')]).toEqual([7, 0, 0, 0, 1000])
    expect(numericColumns(table)).toEqual(['Savings'])
  })

  it('is ready only with an x column, a y column and rows', () => {
    expect(chartReady(chart)).toBe(true)
    expect(chartReady({ ...chart, xColumn: '' })).toBe(false)
    expect(chartReady({ ...chart, yColumns: [] })).toBe(false)
    expect(chartReady({ ...chart, rows: [] })).toBe(false)
  })

  it('stores every attribute as a string and reads it back', () => {
    const attrs = chartAttrs(chart)
    expect(Object.values(attrs).every((v) => typeof v === 'string')).toBe(true)
    expect(attrs).toMatchObject({ yColumns: '["Savings"]', width: '800', showLegend: 'false', source: '{"kind":"media","mediaId":"m1","sheet":""}' })
    expect(readChart(attrs)).toEqual(chart)
  })

  it('reads missing or malformed attributes as the defaults', () => {
    const c = readChart({ chartType: 'radar', width: '5000', height: 'tall', fontSize: '7', fontFamily: 'Comic Sans', colorScheme: 'neon', yColumns: '{', rows: '[1, null, {"a": 1, "b": {}}]', source: '{"kind":"media"}' })
    expect(c).toMatchObject({ chartType: 'bar', width: 600, height: 400, fontSize: 12, fontFamily: 'Arial', colorScheme: 'default', yColumns: [], rows: [{ a: 1 }], source: null, showLegend: true, showGrid: true })
    expect(readChart({ source: '{"kind":"client","dataset":"savings_by_lever"}' }).source).toEqual({ kind: 'client', dataset: 'savings_by_lever' })
  })
})

describe('the table builder', () => {
  it('builds a header row and at most the max rows, with its options as attributes', () => {
    const t = tableContent(table, { maxRows: 2, fontSize: 10, width: '50%', source: { kind: 'client', dataset: 'savings_by_month' } })
    expect(t.attrs).toEqual({ fontSize: '10', width: '50%', sourceMediaId: '', sourceDataset: 'savings_by_month' })
    expect(t.content).toHaveLength(3)
    expect(t.content![0].content!.map((c) => c.type)).toEqual(['tableHeader', 'tableHeader', 'tableHeader'])
    expect(t.content![2].content![1]).toEqual({ type: 'tableCell', content: [{ type: 'paragraph', content: [{ type: 'text', text: '2000' }] }] })
    expect(t.content![2].content![2]).toEqual({ type: 'tableCell', content: [{ type: 'paragraph' }] })
    expect(readTable(t.attrs!, 2)).toEqual({ maxRows: 5, fontSize: 10, width: '50%', source: { kind: 'client', dataset: 'savings_by_month' } })
    expect(readTable({ width: '33%', fontSize: 'x', sourceMediaId: 'm' }, 40)).toEqual({ maxRows: 40, fontSize: 12, width: '100%', source: { kind: 'media', mediaId: 'm', sheet: '' } })
  })

  it('defaults to 20 rows, capped by the data, in steps of 5', () => {
    expect([defaultMaxRows(3), defaultMaxRows(12), defaultMaxRows(20), defaultMaxRows(500)]).toEqual([5, 15, 20, 20])
  })
})

describe('images', () => {
  it('read with defaults and load only from the report media route', () => {
    expect(readImage({ mediaId: 'm', src: '/api/reports/r/media/m', width: '10%', align: 'middle' })).toEqual({ mediaId: 'm', src: '/api/reports/r/media/m', alt: '', width: '100%', align: 'center', caption: '' })
    expect(isOwnMediaSrc('/api/reports/r/media/m', 'r', 'm')).toBe(true)
    expect(isOwnMediaSrc('https://tracker.example/p.png', 'r', 'm')).toBe(false)
    expect(isOwnMediaSrc('/api/reports/other/media/m', 'r', 'm')).toBe(false)
  })

  it('takes PNG, JPG, GIF and WebP of up to 10 MB', () => {
    const file = (name: string, size: number) => new File([new Uint8Array(size)], name)
    expect(checkImageFile(file('a.webp', 10))).toBeNull()
    expect(checkImageFile(file('a.JPEG', 10))).toBeNull()
    expect(checkImageFile(file('a.svg', 10))).toMatch(/PNG, JPG, GIF or WebP/)
    expect(checkImageFile(file('a.png', 10 * 1024 * 1024 + 1))).toBe('Images must be smaller than 10MB')
  })
})

describe('the nodes in the shared document', () => {
  it('round-trip through the Y.XmlFragment with every attribute a string, as the export reads them', () => {
    const schema = getSchema([StarterKit, ...MEDIA_EXTENSIONS])
    const content = {
      type: 'doc',
      content: [
        { type: 'paragraph', content: [{ type: 'text', text: 'Before' }] },
        { type: 'chart', attrs: chartAttrs(chart) },
        tableContent(table, { maxRows: 5, fontSize: 12, width: '75%', source: { kind: 'media', mediaId: 'm1', sheet: '' } }),
        { type: 'image', attrs: { mediaId: 'm2', src: '/api/reports/r/media/m2', alt: 'logo.png', width: '50%', align: 'right', caption: 'Our logo' } },
      ],
    }
    const doc = new Y.Doc()
    const fragment = doc.getXmlFragment('section:s1')
    prosemirrorJSONToYXmlFragment(schema, content, fragment)
    // A co-editor's copy of the document.
    const other = new Y.Doc()
    Y.applyUpdate(other, Y.encodeStateAsUpdate(doc))
    const theirs = other.getXmlFragment('section:s1')
    const elements = theirs.toArray().filter((n): n is Y.XmlElement => n instanceof Y.XmlElement)
    expect(elements.map((e) => e.nodeName)).toEqual(['paragraph', 'chart', 'table', 'image'])
    const [, chartEl, tableEl, imageEl] = elements
    expect(Object.values(chartEl.getAttributes()).every((v) => typeof v === 'string')).toBe(true)
    expect(readChart(chartEl.getAttributes())).toEqual(chart)
    expect(tableEl.getAttribute('width')).toBe('75%')
    expect(tableEl.getAttribute('sourceMediaId')).toBe('m1')
    const rows = tableEl.toArray() as Y.XmlElement[]
    expect(rows.map((r) => r.nodeName)).toEqual(['tableRow', 'tableRow', 'tableRow', 'tableRow'])
    expect((rows[0].toArray() as Y.XmlElement[]).map((c) => c.nodeName)).toEqual(['tableHeader', 'tableHeader', 'tableHeader'])
    expect(imageEl.getAttributes()).toMatchObject({ mediaId: 'm2', width: '50%', align: 'right', caption: 'Our logo', alt: 'logo.png' })
    // And back into the editor's schema unchanged.
    const node = yXmlFragmentToProseMirrorRootNode(theirs, schema)
    expect(node.toJSON().content.map((n: { type: string }) => n.type)).toEqual(['paragraph', 'chart', 'table', 'image'])
    expect(node.child(1).attrs.yColumns).toBe('["Savings"]')
  })
})
