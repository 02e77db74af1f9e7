// Collaborative report documents against the real server, with the stock y-websocket 3.x provider
// and yjs 13: convergence, durability across SIGKILL, read-only viewers and refused strangers.
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'

import * as Y from 'yjs'

import {
  ACCOUNTS,
  Server,
  apiCall,
  createReport,
  openProvider,
  sectionTitles,
  serverCloseCodes,
  signIn,
  sleep,
  synced,
  until,
  webCloseCodes,
} from './support.mjs'

/** A deterministic pseudo-random generator (mulberry32), so failures can be replayed. */
function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A fresh provider's view of the stored document (what a reload would show). */
async function freshView(session, reportId) {
  const p = openProvider(session, reportId)
  await synced(p, 'fresh load')
  const text = p.doc.getText('probe').toString()
  const titles = sectionTitles(p.doc)
  p.destroy()
  return { text, titles }
}

describe('collaborative report documents', () => {
  const server = new Server()
  let user, admin, approver, viewer, other

  before(async () => {
    await server.start()
    user = await signIn(server.baseUrl, ACCOUNTS.userA)
    admin = await signIn(server.baseUrl, ACCOUNTS.admin)
    approver = await signIn(server.baseUrl, ACCOUNTS.approver)
    viewer = await signIn(server.baseUrl, ACCOUNTS.viewer)
    other = await signIn(server.baseUrl, ACCOUNTS.userB)
  })
  after(async () => {
    await server.stop()
  })

  it('shares close codes between the server and the web app', () => {
    const web = webCloseCodes()
    const rust = serverCloseCodes()
    assert.ok(Object.keys(rust).length >= 10)
    assert.deepEqual(web, rust)
  })

  it('serves the initial sections built by the server, once', async () => {
    const id = await createReport(user, 'Initial content')
    for (let i = 0; i < 3; i++) {
      const { titles } = await freshView(user, id)
      assert.deepEqual(titles, ['Introduction'], `load ${i + 1}`)
    }
  })

  it('converges under concurrent edits from several editors', async () => {
    const id = await createReport(user, 'Concurrent')
    const peers = [openProvider(user, id), openProvider(admin, id), openProvider(approver, id)]
    await Promise.all(peers.map((p, i) => synced(p, `peer ${i} sync`)))
    const random = rng(42)
    let inserted = 0
    for (let round = 0; round < 60; round++) {
      for (const [i, p] of peers.entries()) {
        const text = p.doc.getText('probe')
        if (text.length > 0 && random() < 0.25) {
          const at = Math.floor(random() * text.length)
          text.delete(at, 1)
          inserted -= 1
        } else {
          const at = Math.floor(random() * (text.length + 1))
          text.insert(at, String.fromCharCode(97 + i))
          inserted += 1
        }
        if (random() < 0.1) {
          p.doc.getMap('sections').forEach((section) => section.set('title', `Title by ${i} in ${round}`))
        }
      }
      if (round % 10 === 0) await sleep(5)
    }
    const texts = () => peers.map((p) => p.doc.getText('probe').toString())
    await until('every editor to hold the same text', () => new Set(texts()).size === 1)
    // Concurrent deletes of the same character count once, so the length is at most the sum.
    assert.ok(texts()[0].length <= 180 && texts()[0].length >= inserted, `${texts()[0].length} vs ${inserted}`)
    assert.equal(new Set(peers.map((p) => JSON.stringify(sectionTitles(p.doc)))).size, 1)
    const agreed = texts()[0]
    const agreedTitles = sectionTitles(peers[0].doc)
    peers.forEach((p) => p.destroy())
    await until('the store to hold the agreed state', async () => {
      const view = await freshView(admin, id)
      return view.text === agreed && JSON.stringify(view.titles) === JSON.stringify(agreedTitles)
    })
  })

  it('loses nothing across a SIGKILL and restart on the same data directory', async () => {
    const id = await createReport(user, 'Durable')
    const a = openProvider(user, id, { maxBackoffTime: 500 })
    await synced(a)
    const text = a.doc.getText('probe')
    for (let i = 0; i < 30; i++) text.insert(text.length, `${i};`)
    // Kill while the last edits may still be in flight or waiting for their group commit.
    await server.kill()
    for (let i = 30; i < 40; i++) text.insert(text.length, `${i};`)
    await server.start()
    await until('the editor to reconnect and resync', () => a.provider.wsconnected && a.provider.synced, 30_000)
    const expected = Array.from({ length: 40 }, (_, i) => `${i};`).join('')
    assert.equal(text.toString(), expected)
    await until('every edit to be stored', async () => (await freshView(admin, id)).text === expected, 15_000)
    a.destroy()

    // Again, with a second editor typing into the same document across the kill.
    const b1 = openProvider(user, id, { maxBackoffTime: 500 })
    const b2 = openProvider(approver, id, { maxBackoffTime: 500 })
    await Promise.all([synced(b1), synced(b2)])
    b1.doc.getText('probe').insert(0, 'X')
    b2.doc.getText('probe').insert(0, 'Y')
    await sleep(15)
    await server.kill()
    await server.start()
    await until('both editors to resync', () => [b1, b2].every((p) => p.provider.synced && p.doc.getText('probe').length === expected.length + 2), 30_000)
    const final = b1.doc.getText('probe').toString()
    assert.equal(final, b2.doc.getText('probe').toString())
    await until('the store to hold both editors', async () => (await freshView(admin, id)).text === final, 15_000)
    b1.destroy()
    b2.destroy()
  })

  it("never lets a viewer's edits reach the document", async () => {
    const id = await createReport(user, 'Read only')
    const editor = openProvider(user, id)
    const watcher = openProvider(viewer, id)
    await Promise.all([synced(editor), synced(watcher)])
    const denied = []
    const origWarn = console.warn
    console.warn = (...args) => denied.push(args.join(' '))
    try {
      editor.doc.getText('probe').insert(0, 'from the editor')
      await until('the viewer to receive the edit', () => watcher.doc.getText('probe').toString() === 'from the editor')
      watcher.doc.getText('probe').insert(0, 'VIEWER ')
      watcher.doc.getMap('sections').forEach((s) => s.set('title', 'Hijacked'))
      await until('the permission-denied answer', () => denied.some((w) => w.includes('Permission denied')))
    } finally {
      console.warn = origWarn
    }
    await sleep(300)
    assert.equal(editor.doc.getText('probe').toString(), 'from the editor')
    assert.deepEqual(sectionTitles(editor.doc), ['Introduction'])
    const view = await freshView(admin, id)
    assert.equal(view.text, 'from the editor')
    assert.deepEqual(view.titles, ['Introduction'])
    // The REST API refuses the viewer too.
    assert.equal((await apiCall(viewer, 'PATCH', `/api/reports/${id}`, { name: 'x' })).status, 403)
    editor.destroy()
    watcher.destroy()
  })

  it('refuses a client of another bank with the shared close code', async () => {
    const id = await createReport(user, 'Bank A only')
    const codes = webCloseCodes()
    const stranger = openProvider(other, id)
    await until('the refusal', () => stranger.closes.length > 0)
    assert.equal(stranger.closes[0], codes.FORBIDDEN)
    await sleep(500)
    assert.equal(stranger.provider.synced, false)
    assert.equal(stranger.doc.getMap('sections').size, 0, 'nothing of the document was sent')
    stranger.destroy()

    const anonymous = openProvider({ baseUrl: server.baseUrl, cookie: '' }, id)
    await until('the refusal of an anonymous client', () => anonymous.closes.length > 0)
    assert.equal(anonymous.closes[0], codes.UNAUTHENTICATED)
    anonymous.destroy()
  })

  it('keeps the document of a deleted report gone', async () => {
    const id = await createReport(user, 'To delete')
    const p = openProvider(user, id)
    await synced(p)
    assert.equal((await apiCall(user, 'DELETE', `/api/reports/${id}`)).status, 204)
    const again = openProvider(user, id)
    await until('the refusal of a deleted report', () => again.closes.length > 0)
    assert.equal(again.closes[0], webCloseCodes().NOT_FOUND)
    again.destroy()
    p.destroy()
    void Y
  })
})
