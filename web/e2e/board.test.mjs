// The live task board: two browsers on Bank A's board and one on Bank B's. Changes show live on
// the first pair and never on the third; concurrent moves end in the same order everywhere; a
// viewer sees changes but cannot drag or edit.
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'

import { apiCall, login, newPage, screenshot } from './support/browser.mjs'
import { ACCOUNTS } from './support/server.mjs'
import { useServerAndBrowser } from './support/suite.mjs'

async function openBoard(env, email, options) {
  const page = await newPage(env.browser, env.server.baseUrl, options)
  await login(page, email)
  await page.waitForURL((url) => url.pathname.startsWith('/client/'))
  await page.getByRole('link', { name: 'Task Board' }).click()
  await page.getByRole('heading', { name: 'Task Board' }).waitFor()
  await page.getByTestId('board-column').first().waitFor()
  await page.locator('[data-slot="connection-status"] [data-status="open"]').waitFor()
  return page
}

const column = (page, name) => page.getByRole('region', { name, exact: true })
const titlesIn = (page, name) => column(page, name).getByTestId('task-card').locator('h3').allInnerTexts()

/** Drags with the mouse past the 5 px activation distance, in small steps like a person. */
async function drag(page, from, to) {
  const a = await from.boundingBox()
  const b = await to.boundingBox()
  await page.mouse.move(a.x + a.width / 2, a.y + 10)
  await page.mouse.down()
  await page.mouse.move(a.x + a.width / 2 + 8, a.y + 18, { steps: 4 })
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 15 })
  await page.mouse.up()
}

/** The same, to a point of the page. */
async function dragToPoint(page, from, to) {
  const a = await from.boundingBox()
  await page.mouse.move(a.x + a.width / 2, a.y + 10)
  await page.mouse.down()
  await page.mouse.move(a.x + a.width / 2 + 8, a.y + 18, { steps: 4 })
  await page.mouse.move(to.x, to.y, { steps: 15 })
  await page.mouse.up()
}

describe('task board', () => {
  const env = useServerAndBrowser()

  it('shows creates, drags, edits and deletes live on the same client only', async () => {
    const a1 = await openBoard(env, ACCOUNTS.userA)
    const a2 = await openBoard(env, ACCOUNTS.approver)
    const b = await openBoard(env, ACCOUNTS.userB)
    for (const p of [a1, a2, b]) {
      assert.deepEqual(await p.getByTestId('board-column').locator('h2').allInnerTexts(), ['To Do', 'In Progress', 'Review', 'Done'])
    }

    // Create in browser 1: the dialog validates, then the card appears in browser 2.
    await column(a1, 'To Do').getByRole('button', { name: 'Add Task' }).click()
    await a1.getByRole('button', { name: 'Create Task' }).click()
    await a1.getByText('Title is required').waitFor()
    await a1.getByLabel('Title').fill('Reconcile PSE list')
    await a1.getByLabel('Priority').selectOption('high')
    await a1.getByRole('button', { name: 'Create Task' }).click()
    await column(a2, 'To Do').getByText('Reconcile PSE list').waitFor()
    await column(a1, 'To Do').getByRole('button', { name: 'Add Task' }).click()
    await a1.getByLabel('Title').fill('Check MDB codes')
    await a1.getByRole('button', { name: 'Create Task' }).click()
    await column(a2, 'To Do').getByText('Check MDB codes').waitFor()

    // Drag in browser 2 onto another column: the task goes to its end, live in browser 1.
    await drag(a2, column(a2, 'To Do').getByText('Reconcile PSE list'), column(a2, 'Review'))
    await column(a1, 'Review').getByText('Reconcile PSE list').waitFor()
    assert.deepEqual(await titlesIn(a1, 'To Do'), ['Check MDB codes'])
    await screenshot(a1, 'board-after-drag')

    // Edit in browser 1, shown in browser 2.
    await column(a1, 'Review').getByRole('button', { name: 'Edit Reconcile PSE list' }).click()
    await a1.getByLabel('Title').fill('Reconcile PSE list (done)')
    await a1.getByRole('button', { name: 'Save Changes' }).click()
    await column(a2, 'Review').getByText('Reconcile PSE list (done)').waitFor()

    // Delete in browser 2, gone in browser 1.
    await column(a2, 'To Do').getByRole('button', { name: 'Delete Check MDB codes' }).click()
    await a2.getByText('Task deleted').waitFor()
    await column(a1, 'To Do').getByText('Check MDB codes').waitFor({ state: 'detached' })

    // Bank B's board never showed any of it, and its socket refuses Bank A's topic.
    assert.equal(await b.getByTestId('task-card').count(), 0)
    const { body: boardA } = await apiCall(a1, 'GET', '/api/board')
    const denied = await b.evaluate(
      (topic) =>
        new Promise((resolve) => {
          const ws = new WebSocket(`ws://${globalThis.location.host}/api/ws`)
          ws.onopen = () => ws.send(JSON.stringify({ op: 'subscribe', topics: [topic] }))
          ws.onmessage = (ev) => {
            const f = JSON.parse(ev.data)
            if (f.topic === topic) resolve(f.type)
          }
        }),
      `client:${boardA.client_id}:board`,
    )
    assert.equal(denied, 'denied')
    for (const p of [a1, a2, b]) {
      assert.deepEqual(p.errors, [])
      await p.context().close()
    }
  })

  it('ends concurrent moves in the same order everywhere with nothing lost', async () => {
    const a1 = await openBoard(env, ACCOUNTS.userA)
    const a2 = await openBoard(env, ACCOUNTS.approver)
    const { body: board } = await apiCall(a1, 'GET', '/api/board')
    const [todo, doing] = board.columns.map((c) => c.id)
    const ids = []
    for (const title of ['M1', 'M2', 'M3', 'M4', 'M5', 'M6']) {
      const { body } = await apiCall(a1, 'POST', '/api/board/tasks', { column_id: todo, title })
      ids.push(body.id)
    }
    // Both people move the same tasks at the same time through the API their boards use.
    const moves = []
    for (let i = 0; i < 12; i++) {
      const page = i % 2 ? a2 : a1
      const id = ids[(i * 5) % ids.length]
      const target = i % 3 ? doing : todo
      moves.push(apiCall(page, 'POST', `/api/board/tasks/${id}/move`, { column_id: target, after_id: ids[(i + 1) % ids.length] }))
    }
    for (const m of await Promise.all(moves)) assert.equal(m.status, 200)
    const { body: final } = await apiCall(a1, 'GET', '/api/board')
    const expected = (colId) => final.tasks.filter((t) => t.column_id === colId).map((t) => t.title)
    const poll = async (page) => {
      for (let i = 0; i < 50; i++) {
        const todoTitles = await titlesIn(page, 'To Do')
        const doingTitles = await titlesIn(page, 'In Progress')
        if (JSON.stringify([todoTitles, doingTitles]) === JSON.stringify([expected(todo), expected(doing)])) return
        await page.waitForTimeout(100)
      }
      assert.deepEqual([await titlesIn(page, 'To Do'), await titlesIn(page, 'In Progress')], [expected(todo), expected(doing)])
    }
    await poll(a1)
    await poll(a2)
    assert.deepEqual([...expected(todo), ...expected(doing)].sort(), ['M1', 'M2', 'M3', 'M4', 'M5', 'M6'])
    for (const p of [a1, a2]) await p.context().close()
  })

  it("moves a task dropped on another column's free space to its end, and nothing when dropped on its card", async () => {
    // Wide enough for the four columns to sit clear of the board's auto-scroll edge.
    const wide = { viewport: { width: 1800, height: 900 } }
    const a1 = await openBoard(env, ACCOUNTS.userA, wide)
    const a2 = await openBoard(env, ACCOUNTS.approver, wide)
    const { body: board } = await apiCall(a1, 'GET', '/api/board')
    const [todo, , , done] = board.columns.map((c) => c.id)
    for (const [columnId, title] of [[done, 'Filed'], [todo, 'Drag me'], [todo, 'Stay put']]) {
      assert.equal((await apiCall(a1, 'POST', '/api/board/tasks', { column_id: columnId, title })).status, 201)
    }
    await column(a1, 'To Do').getByText('Stay put').waitFor()
    const doneBefore = await titlesIn(a1, 'Done')
    assert.ok(doneBefore.includes('Filed'))

    // Onto the free space just below Done's last card: the task goes to the end of Done, for
    // everyone (the card is the closest target there, but the pointer is on the column).
    const last = await column(a1, 'Done').getByTestId('task-card').last().boundingBox()
    const into = { x: last.x + last.width / 2, y: last.y + last.height + 30 }
    await dragToPoint(a1, column(a1, 'To Do').getByText('Drag me'), into)
    for (const p of [a1, a2]) {
      await column(p, 'Done').getByText('Drag me').waitFor()
      assert.deepEqual(await titlesIn(p, 'Done'), [...doneBefore, 'Drag me'])
    }

    // Onto another column's card: nothing moves.
    await drag(a1, column(a1, 'To Do').getByText('Stay put'), column(a1, 'Done').getByText('Filed'))
    await a1.waitForTimeout(300)
    assert.ok((await titlesIn(a1, 'To Do')).includes('Stay put'))
    assert.deepEqual(await titlesIn(a2, 'Done'), [...doneBefore, 'Drag me'])
    for (const p of [a1, a2]) await p.context().close()
  })

  it('lets a viewer watch but not change the board', async () => {
    const user = await openBoard(env, ACCOUNTS.userA)
    const viewer = await openBoard(env, ACCOUNTS.viewer)
    assert.equal(await viewer.getByRole('button', { name: 'Add Column' }).count(), 0)
    assert.equal(await viewer.getByRole('button', { name: 'Add Task' }).count(), 0)
    assert.equal(await viewer.getByRole('button', { name: /^Move column/ }).count(), 0)
    await column(user, 'To Do').getByRole('button', { name: 'Add Task' }).click()
    await user.getByLabel('Title').fill('Seen by the viewer')
    await user.getByRole('button', { name: 'Create Task' }).click()
    const card = column(viewer, 'To Do').getByText('Seen by the viewer')
    await card.waitFor()
    // Dragging does nothing for a viewer.
    await drag(viewer, card, column(viewer, 'Done'))
    await viewer.waitForTimeout(300)
    assert.ok((await titlesIn(viewer, 'To Do')).includes('Seen by the viewer'))
    const { body: board } = await apiCall(viewer, 'GET', '/api/board')
    const task = board.tasks.find((t) => t.title === 'Seen by the viewer')
    const refused = await apiCall(viewer, 'POST', `/api/board/tasks/${task.id}/move`, { column_id: board.columns[3].id })
    assert.equal(refused.status, 403)
    await screenshot(viewer, 'board-viewer')
    for (const p of [user, viewer]) await p.context().close()
  })
})
