// The live task board: two browsers on Bank A's board and one on Bank B's. Changes show live on
// the first pair and never on the third; concurrent moves end in the same order everywhere; a
// viewer sees changes but cannot drag or edit.
import { expect, test } from '@playwright/test'

import { apiCall, login, newPage, screenshot } from './support/browser.mjs'
import { ACCOUNTS } from './support/server.mjs'
import { useServer } from './support/suite.mjs'

async function openBoard(browser, env, email, options) {
  const page = await newPage(browser, env.server.baseUrl, options)
  await login(page, email)
  await expect(page).toHaveURL(/\/client\//)
  await page.getByRole('link', { name: 'Task Board' }).click()
  await expect(page.getByRole('heading', { name: 'Task Board' })).toBeVisible()
  await expect(page.getByTestId('board-column').first()).toBeVisible()
  await expect(page.locator('[data-slot="connection-status"] [data-status="open"]')).toBeAttached()
  return page
}

const column = (page, name) => page.getByRole('region', { name, exact: true })
/** The card titles of a column, for auto-waiting `toHaveText([...])`. */
const titles = (page, name) => column(page, name).getByTestId('task-card').locator('h3')

/**
 * Creates a task through the API and waits until `page` shows it: the board's events arrive in
 * order, so anything an earlier change would have shown on `page` has arrived by then.
 */
async function barrier(page, columnId, columnName, title) {
  expect((await apiCall(page, 'POST', '/api/board/tasks', { column_id: columnId, title })).status).toBe(201)
  await expect(column(page, columnName).getByText(title)).toBeVisible()
}

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

test.describe('task board', () => {
  const env = useServer()

  test('shows creates, drags, edits and deletes live on the same client only', async ({ browser }) => {
    const a1 = await openBoard(browser, env, ACCOUNTS.userA)
    const a2 = await openBoard(browser, env, ACCOUNTS.approver)
    const b = await openBoard(browser, env, ACCOUNTS.userB)
    for (const p of [a1, a2, b]) {
      await expect(p.getByTestId('board-column').locator('h2')).toHaveText(['To Do', 'In Progress', 'Review', 'Done'])
    }

    // Create in browser 1: the dialog validates, then the card appears in browser 2.
    await column(a1, 'To Do').getByRole('button', { name: 'Add Task' }).click()
    await a1.getByRole('button', { name: 'Create Task' }).click()
    await expect(a1.getByText('Title is required')).toBeVisible()
    await a1.getByLabel('Title').fill('Reconcile PSE list')
    await a1.getByLabel('Priority').selectOption('high')
    await a1.getByRole('button', { name: 'Create Task' }).click()
    await expect(column(a2, 'To Do').getByText('Reconcile PSE list')).toBeVisible()
    await column(a1, 'To Do').getByRole('button', { name: 'Add Task' }).click()
    await a1.getByLabel('Title').fill('Check MDB codes')
    await a1.getByRole('button', { name: 'Create Task' }).click()
    await expect(column(a2, 'To Do').getByText('Check MDB codes')).toBeVisible()

    // Drag in browser 2 onto another column: the task goes to its end, live in browser 1.
    await drag(a2, column(a2, 'To Do').getByText('Reconcile PSE list'), column(a2, 'Review'))
    await expect(column(a1, 'Review').getByText('Reconcile PSE list')).toBeVisible()
    await expect(titles(a1, 'To Do')).toHaveText(['Check MDB codes'])
    await screenshot(a1, 'board-after-drag')

    // Edit in browser 1, shown in browser 2.
    await column(a1, 'Review').getByRole('button', { name: 'Edit Reconcile PSE list' }).click()
    await a1.getByLabel('Title').fill('Reconcile PSE list (done)')
    await a1.getByRole('button', { name: 'Save Changes' }).click()
    await expect(column(a2, 'Review').getByText('Reconcile PSE list (done)')).toBeVisible()

    // Delete in browser 2 (it asks first; Cancel keeps the task), gone in browser 1.
    await column(a2, 'To Do').getByRole('button', { name: 'Delete Check MDB codes' }).click()
    const confirm = a2.getByRole('dialog', { name: 'Delete task' })
    await confirm.getByRole('button', { name: 'Cancel' }).click()
    await expect(confirm).toHaveCount(0)
    await expect(column(a2, 'To Do').getByText('Check MDB codes')).toBeVisible()
    await column(a2, 'To Do').getByRole('button', { name: 'Delete Check MDB codes' }).click()
    await confirm.getByRole('button', { name: 'Delete', exact: true }).click()
    await expect(a2.getByText('Task deleted')).toBeVisible()
    await expect(column(a1, 'To Do').getByText('Check MDB codes')).toHaveCount(0)

    // Bank B's board never showed any of it (checked once a change on its own board has arrived),
    // and its socket refuses Bank A's topic.
    const { body: boardB } = await apiCall(b, 'GET', '/api/board')
    await barrier(b, boardB.columns[0].id, 'To Do', 'Bank B marker')
    await expect(b.getByTestId('task-card')).toHaveText(['Bank B marker'])
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
    expect(denied).toBe('denied')
    for (const p of [a1, a2, b]) {
      expect(p.errors).toEqual([])
      await p.context().close()
    }
  })

  test('ends concurrent moves in the same order everywhere with nothing lost', async ({ browser }) => {
    const a1 = await openBoard(browser, env, ACCOUNTS.userA)
    const a2 = await openBoard(browser, env, ACCOUNTS.approver)
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
    for (const m of await Promise.all(moves)) expect(m.status).toBe(200)
    const { body: final } = await apiCall(a1, 'GET', '/api/board')
    const expected = (colId) => final.tasks.filter((t) => t.column_id === colId).map((t) => t.title)
    for (const page of [a1, a2]) {
      await expect(titles(page, 'To Do')).toHaveText(expected(todo))
      await expect(titles(page, 'In Progress')).toHaveText(expected(doing))
    }
    expect([...expected(todo), ...expected(doing)].sort()).toEqual(['M1', 'M2', 'M3', 'M4', 'M5', 'M6'])
    for (const p of [a1, a2]) await p.context().close()
  })

  test("moves a task dropped on another column's free space to its end, and nothing when dropped on its card", async ({ browser }) => {
    // Wide enough for the four columns to sit clear of the board's auto-scroll edge.
    const wide = { viewport: { width: 1800, height: 900 } }
    const a1 = await openBoard(browser, env, ACCOUNTS.userA, wide)
    const a2 = await openBoard(browser, env, ACCOUNTS.approver, wide)
    const { body: board } = await apiCall(a1, 'GET', '/api/board')
    const [todo, , , done] = board.columns.map((c) => c.id)
    for (const [columnId, title] of [[done, 'Filed'], [todo, 'Drag me'], [todo, 'Stay put']]) {
      expect((await apiCall(a1, 'POST', '/api/board/tasks', { column_id: columnId, title })).status).toBe(201)
    }
    await expect(column(a1, 'To Do').getByText('Stay put')).toBeVisible()
    await expect(column(a2, 'To Do').getByText('Stay put')).toBeVisible()
    const doneBefore = await titles(a1, 'Done').allInnerTexts()
    expect(doneBefore).toContain('Filed')

    // Onto the free space just below Done's last card: the task goes to the end of Done, for
    // everyone (the card is the closest target there, but the pointer is on the column).
    const last = await column(a1, 'Done').getByTestId('task-card').last().boundingBox()
    const into = { x: last.x + last.width / 2, y: last.y + last.height + 30 }
    await dragToPoint(a1, column(a1, 'To Do').getByText('Drag me'), into)
    for (const p of [a1, a2]) {
      await expect(titles(p, 'Done')).toHaveText([...doneBefore, 'Drag me'])
    }

    // Onto another column's card: nothing moves (a move shows at once where it is dropped, and
    // on the other board before any later change does).
    await drag(a1, column(a1, 'To Do').getByText('Stay put'), column(a1, 'Done').getByText('Filed'))
    await expect(column(a1, 'To Do').getByText('Stay put')).toBeVisible()
    await barrier(a2, todo, 'To Do', 'After the drop')
    await expect(column(a2, 'To Do').getByText('Stay put')).toBeVisible()
    await expect(titles(a2, 'Done')).toHaveText([...doneBefore, 'Drag me'])
    await expect(titles(a1, 'Done')).toHaveText([...doneBefore, 'Drag me'])
    for (const p of [a1, a2]) await p.context().close()
  })

  test('lets a viewer watch but not change the board', async ({ browser }) => {
    const user = await openBoard(browser, env, ACCOUNTS.userA)
    const viewer = await openBoard(browser, env, ACCOUNTS.viewer)
    await expect(viewer.getByRole('button', { name: 'Add Column' })).toHaveCount(0)
    await expect(viewer.getByRole('button', { name: 'Add Task' })).toHaveCount(0)
    await expect(viewer.getByRole('button', { name: /^Move column/ })).toHaveCount(0)
    await column(user, 'To Do').getByRole('button', { name: 'Add Task' }).click()
    await user.getByLabel('Title').fill('Seen by the viewer')
    await user.getByRole('button', { name: 'Create Task' }).click()
    const card = column(viewer, 'To Do').getByText('Seen by the viewer')
    await expect(card).toBeVisible()
    // Dragging does nothing for a viewer: no local move, and none on the server (the user's
    // board, which would show a move before any later change, still has the card in To Do).
    await drag(viewer, card, column(viewer, 'Done'))
    await expect(card).toBeVisible()
    await expect(column(viewer, 'Done').getByText('Seen by the viewer')).toHaveCount(0)
    const { body: board } = await apiCall(viewer, 'GET', '/api/board')
    await barrier(user, board.columns[0].id, 'To Do', 'After the viewer drag')
    await expect(column(user, 'To Do').getByText('Seen by the viewer')).toBeVisible()
    const task = board.tasks.find((t) => t.title === 'Seen by the viewer')
    const refused = await apiCall(viewer, 'POST', `/api/board/tasks/${task.id}/move`, { column_id: board.columns[3].id })
    expect(refused.status).toBe(403)
    await screenshot(viewer, 'board-viewer')
    for (const p of [user, viewer]) await p.context().close()
  })

  test('turns read-only at once when an admin makes the user a viewer, and asks before deleting', async ({ browser }) => {
    const pablo = await openBoard(browser, env, ACCOUNTS.approver)
    const admin = await newPage(browser, env.server.baseUrl)
    await login(admin, ACCOUNTS.admin)
    await expect(admin).toHaveURL(/\/admin\/dashboard/)
    const { body: me } = await apiCall(pablo, 'GET', '/api/auth/me')

    // Deleting a task asks first; Cancel keeps it.
    const { body: board } = await apiCall(pablo, 'GET', '/api/board')
    await barrier(pablo, board.columns[0].id, 'To Do', 'Delete me carefully')
    await pablo.getByRole('button', { name: 'Delete Delete me carefully' }).click()
    const confirm = pablo.getByRole('dialog', { name: 'Delete task' })
    await expect(confirm).toBeVisible()
    await confirm.getByRole('button', { name: 'Cancel' }).click()
    await expect(column(pablo, 'To Do').getByText('Delete me carefully')).toBeVisible()
    await pablo.getByRole('button', { name: 'Delete Delete me carefully' }).click()
    await pablo.getByRole('dialog', { name: 'Delete task' }).getByRole('button', { name: 'Delete' }).click()
    await expect(column(pablo, 'To Do').getByText('Delete me carefully')).toHaveCount(0)

    // Demoted while the board is open: the controls go without a reload.
    await expect(pablo.getByRole('button', { name: 'Add Column' })).toBeVisible()
    expect((await apiCall(admin, 'PUT', `/api/admin/users/${me.id}/role`, { role: 'viewer' })).status).toBe(200)
    await expect(pablo.getByRole('button', { name: 'Add Column' })).toHaveCount(0)
    await expect(pablo.getByRole('button', { name: 'Add Task' })).toHaveCount(0)
    await expect(pablo.getByText(/read-only/)).toBeVisible()
    await expect(pablo.getByRole('button', { name: 'Profile menu' })).toContainText('Viewer')

    // And back.
    expect((await apiCall(admin, 'PUT', `/api/admin/users/${me.id}/role`, { role: 'approver' })).status).toBe(200)
    await expect(pablo.getByRole('button', { name: 'Add Column' })).toBeVisible()
    expect(pablo.errors).toEqual([])
    for (const p of [pablo, admin]) await p.context().close()
  })

  test('shows a scroll hint when columns do not fit, and no delete button for default categories', async ({ browser }) => {
    const page = await openBoard(browser, env, ACCOUNTS.userA, { viewport: { width: 1440, height: 900 } })
    const row = page.getByTestId('task-board')
    // Four columns of 300 px do not fit beside the sidebar at 1440 px: the last one is cut off.
    expect(await row.evaluate((el) => el.scrollWidth > el.clientWidth)).toBe(true)
    await expect(page.getByRole('button', { name: 'Scroll to more columns' })).toBeVisible()
    await page.getByRole('button', { name: 'Scroll to more columns' }).click()
    await expect(page.getByRole('button', { name: 'Scroll to earlier columns' })).toBeVisible()
    await page.getByRole('button', { name: 'Manage Categories' }).click()
    const dialog = page.getByRole('dialog', { name: 'Manage Categories' })
    const { body: board } = await apiCall(page, 'GET', '/api/board')
    const defaults = board.categories.filter((c) => c.is_default)
    expect(defaults.length).toBeGreaterThan(0)
    for (const c of defaults) {
      const item = dialog.getByRole('listitem').filter({ hasText: c.name }).filter({ hasText: 'Default' })
      await expect(item.first()).toBeVisible()
      await expect(dialog.getByRole('button', { name: `Delete category ${c.name}`, exact: true })).toHaveCount(0)
    }
    expect(page.errors).toEqual([])
    await page.context().close()
  })

  test('lets an administrator choose the client of the board and the reports, kept in the URL', async ({ browser }) => {
    const admin = await newPage(browser, env.server.baseUrl)
    await login(admin, ACCOUNTS.admin)
    await expect(admin).toHaveURL(/\/admin\/dashboard/)
    const sidebar = admin.getByRole('complementary', { name: 'Admin navigation' })
    await sidebar.getByRole('link', { name: 'Task Board' }).click()
    await expect(admin.getByRole('heading', { name: 'Task Board' })).toBeVisible()
    const { body: clients } = await apiCall(admin, 'GET', '/api/clients')
    expect(clients.map((c) => c.name)).toEqual(['Bank A', 'Bank B'])
    const bankB = clients.find((c) => c.name === 'Bank B')

    const switcher = admin.getByLabel('Client')
    await expect(switcher.locator('option')).toHaveText(['Bank A', 'Bank B'])
    await switcher.selectOption({ label: 'Bank B' })
    await expect(admin).toHaveURL((url) => url.searchParams.get('client') === bankB.id)
    await expect(admin.getByRole('main').getByText('Bank B', { exact: true }).first()).toBeVisible()
    const { body: boardB } = await apiCall(admin, 'GET', `/api/board?client_id=${bankB.id}`)
    await expect(admin.getByTestId('board-column')).toHaveCount(boardB.columns.length)

    // The sidebar keeps the choice on the way to the reports, and a reload keeps it too.
    await sidebar.getByRole('link', { name: 'Report Generator' }).click()
    await expect(admin).toHaveURL((url) => url.pathname === '/client/report-generator' && url.searchParams.get('client') === bankB.id)
    await expect(admin.getByLabel('Client')).toHaveValue(bankB.id)
    await admin.reload()
    await expect(admin.getByLabel('Client')).toHaveValue(bankB.id)
    expect(admin.errors).toEqual([])
    await admin.context().close()
  })
})
