// Charts, tables and images in a report's shared document (the contract with the PDF export:
// `chart` and `image` elements with string attributes, the standard Tiptap table nodes) against
// the real server with the stock y-websocket provider: a co-editor receives each node as
// written, concurrent insertions converge, the store keeps them, and a viewer's insertion is
// dropped.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'

import * as Y from 'yjs'

import { ACCOUNTS, Server, createReport, openProvider, signIn, sleep, synced, until } from './support.mjs'

/** The first section's fragment of a document. */
function firstFragment(doc) {
  let id = null
  let order = null
  doc.getMap('sections').forEach((v, k) => {
    if (order === null || v.get('order') < order) {
      order = v.get('order')
      id = k
    }
  })
  return doc.getXmlFragment(`section:${id}`)
}

function element(name, attrs, children = []) {
  const el = new Y.XmlElement(name)
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v)
  if (children.length) el.insert(0, children)
  return el
}

function paragraph(text) {
  const p = new Y.XmlElement('paragraph')
  if (text) p.insert(0, [new Y.XmlText(text)])
  return p
}

const chart = (id, title) =>
  element('chart', {
    chartId: id,
    chartType: 'bar',
    title,
    xColumn: 'Lever',
    yColumns: '["RWA savings"]',
    rows: '[{"Lever":"PSE","RWA savings":114000000}]',
    source: '{"kind":"client","dataset":"savings_by_lever"}',
    width: '600',
    height: '400',
    fontSize: '12',
    fontFamily: 'Arial',
    colorScheme: 'banking',
    showLegend: 'true',
    showGrid: 'false',
  })

const table = () =>
  element('table', { fontSize: '12', width: '50%', sourceMediaId: 'm-1', sourceDataset: '' }, [
    element('tableRow', {}, [element('tableHeader', { colspan: '1', rowspan: '1' }, [paragraph('Month')]), element('tableHeader', { colspan: '1', rowspan: '1' }, [paragraph('RWA')])]),
    element('tableRow', {}, [element('tableCell', { colspan: '1', rowspan: '1' }, [paragraph('Jan')]), element('tableCell', { colspan: '1', rowspan: '1' }, [paragraph('10.5')])]),
  ])

const image = (reportId) =>
  element('image', { mediaId: 'm-2', src: `/api/reports/${reportId}/media/m-2`, alt: 'logo.png', width: '50%', align: 'right', caption: 'Our logo' })

/** The fragment as plain data: element names, attributes and children, text as text. */
function shape(node) {
  if (node instanceof Y.XmlText) return node.toString()
  return { name: node.nodeName, attrs: node instanceof Y.XmlElement ? node.getAttributes() : {}, children: node.toArray().map(shape) }
}

describe('charts, tables and images in the shared document', () => {
  const server = new Server()
  let user, approver, viewer

  before(async () => {
    await server.start()
    user = await signIn(server.baseUrl, ACCOUNTS.userA)
    approver = await signIn(server.baseUrl, ACCOUNTS.approver)
    viewer = await signIn(server.baseUrl, ACCOUNTS.viewer)
  })
  after(async () => {
    await server.stop()
  })

  it('reach a co-editor as written, converge when inserted at once and are stored', async () => {
    const id = await createReport(user, 'Nodes')
    const a = openProvider(user, id)
    const b = openProvider(approver, id)
    await Promise.all([synced(a, 'a'), synced(b, 'b')])
    const fa = firstFragment(a.doc)
    a.doc.transact(() => fa.insert(fa.length, [chart('c-1', 'Savings by lever'), table(), image(id), paragraph('After')]))
    const fb = firstFragment(b.doc)
    await until('the co-editor to receive the nodes', () => fb.length === fa.length)
    assert.deepEqual(shape(fb), shape(fa))
    const names = fb.toArray().map((n) => n.nodeName)
    assert.deepEqual(names.slice(-4), ['chart', 'table', 'image', 'paragraph'])
    for (const n of fb.toArray()) {
      if (n instanceof Y.XmlElement) for (const v of Object.values(n.getAttributes())) assert.equal(typeof v, 'string')
    }

    // Both insert a chart at the same place at once, and one changes the other's chart.
    const at = 1
    fa.insert(at, [chart('c-a', 'From A')])
    fb.insert(at, [chart('c-b', 'From B')])
    fb.toArray()
      .find((n) => n.nodeName === 'chart' && n.getAttribute('chartId') === 'c-1')
      .setAttribute('chartType', 'pie')
    const ids = (f) => f.toArray().filter((n) => n.nodeName === 'chart').map((n) => n.getAttribute('chartId'))
    await until('both documents to hold both charts', () => ids(fa).length === 3 && ids(fb).length === 3)
    await until('the documents to converge', () => JSON.stringify(shape(fa)) === JSON.stringify(shape(fb)))
    assert.deepEqual(new Set(ids(fa)), new Set(['c-a', 'c-b', 'c-1']))
    assert.equal(fa.toArray().find((n) => n.getAttribute?.('chartId') === 'c-1').getAttribute('chartType'), 'pie')
    const agreed = JSON.stringify(shape(fa))
    a.destroy()
    b.destroy()

    // A fresh load from the store holds the same nodes.
    await until('the store to hold the agreed document', async () => {
      const c = openProvider(user, id)
      await synced(c, 'fresh load')
      const same = JSON.stringify(shape(firstFragment(c.doc))) === agreed
      c.destroy()
      return same
    })
  })

  it("drops a viewer's chart", async () => {
    const id = await createReport(user, 'Viewer nodes')
    const editor = openProvider(user, id)
    const watcher = openProvider(viewer, id)
    await Promise.all([synced(editor), synced(watcher)])
    const origWarn = console.warn
    console.warn = () => {}
    try {
      const fw = firstFragment(watcher.doc)
      fw.insert(fw.length, [chart('c-viewer', 'Not allowed')])
      await sleep(500)
    } finally {
      console.warn = origWarn
    }
    assert.equal(firstFragment(editor.doc).toArray().filter((n) => n.nodeName === 'chart').length, 0)
    editor.destroy()
    watcher.destroy()
    const fresh = openProvider(user, id)
    await synced(fresh)
    assert.equal(firstFragment(fresh.doc).toArray().filter((n) => n.nodeName === 'chart').length, 0)
    fresh.destroy()
  })
})
