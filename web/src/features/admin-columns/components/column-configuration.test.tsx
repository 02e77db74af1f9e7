import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import type { ColumnDefinition } from '../api'
import { useAuthStore } from '@/lib/auth-store'
import { resetRealtime, setRealtimeTransport } from '@/lib/realtime-store'
import { FakeEventSocket } from '@/testing/fake-event-socket'
import { json, makeUser, mockApi } from '@/testing/mock-api'
import { renderRoutes } from '@/testing/render-route'

import { reorderedIds } from '../utils/order'
import { ColumnConfiguration } from './column-configuration'

const levers = [
  { id: 'lever-pse', code: 'pse', name: 'Public Sector Entities (PSE)', category: 'Assets' },
  { id: 'lever-mdb', code: 'mdb', name: 'Multilateral Development Banks (MDB)', category: 'Assets' },
]

function def(name: string, order: number, overrides: Partial<ColumnDefinition> = {}): ColumnDefinition {
  return {
    id: `d-${name}`,
    leverId: 'lever-pse',
    name,
    dataType: 'text',
    description: `${name} description`,
    isRequired: false,
    category: 'core',
    displayOrder: order,
    ...overrides,
  }
}

afterEach(() => resetRealtime())

function setup() {
  FakeEventSocket.all = []
  setRealtimeTransport(() => new FakeEventSocket(), async () => true)
  useAuthStore.setState({ status: 'authenticated', user: makeUser({ role: 'admin' }) })
  let rows = [def('NIF', 1, { isRequired: true }), def('Maturity', 2, { dataType: 'date' }), def('Country', 3)]
  const calls = mockApi({
    'GET /api/levers': () => json(200, levers),
    'GET /api/levers/:id/column-definitions': () => json(200, rows),
    'POST /api/levers/:id/column-definitions': ({ body }) => {
      const b = body as { name: string; displayOrder: number }
      if (b.name === 'Denied')
        return json(403, { code: 'forbidden', message: 'Access denied: Only administrators can create/update/delete lever column definitions' })
      const d = def(b.name, b.displayOrder)
      rows = [...rows, d]
      return json(201, d)
    },
    'PUT /api/lever-column-definitions/:id': ({ params, body }) => {
      const b = body as ColumnDefinition
      rows = rows.map((r) => (r.id === params.id ? { ...r, ...b } : r))
      return json(200, rows.find((r) => r.id === params.id))
    },
    'DELETE /api/lever-column-definitions/:id': ({ params }) => {
      rows = rows.filter((r) => r.id !== params.id)
      return new Response(null, { status: 204 })
    },
    'PUT /api/levers/:id/column-definitions/order': ({ body }) => {
      const ids = (body as { ids: string[] }).ids
      rows = ids.map((id, i) => ({ ...rows.find((r) => r.id === id)!, displayOrder: i + 1 }))
      return json(200, rows)
    },
  })
  renderRoutes([{ path: '/admin/column-configuration', element: <ColumnConfiguration /> }], '/admin/column-configuration')
  return { calls, rows: () => rows, setRows: (r: ColumnDefinition[]) => (rows = r) }
}

const list = () => screen.getByRole('list', { name: /Column definitions of/ })
const names = () => within(list()).getAllByTestId('column-definition').map((li) => li.querySelector('.font-medium')?.textContent)

describe('ColumnConfiguration', () => {
  it("follows another administrator's changes to the lever's definitions live", async () => {
    const { calls, setRows } = setup()
    await screen.findByRole('option', { name: /Public Sector Entities/ })
    await userEvent.selectOptions(screen.getByLabelText('Lever'), 'lever-pse')
    await waitFor(() => expect(names()).toEqual(['NIF', 'Maturity', 'Country']))
    const socket = FakeEventSocket.latest()
    act(() => socket.open())
    await waitFor(() => expect(socket.sent.flatMap((m) => m.topics ?? [])).toContain('admin:columns'))
    act(() => socket.frame('admin:columns', 0, 'subscribed'))
    const reads = () => calls.filter((c) => c.key === 'GET /api/levers/:id/column-definitions').length
    await waitFor(() => expect(reads()).toBeGreaterThanOrEqual(1))
    const before = reads()
    // Another lever's change leaves this list alone; this lever's change refetches it.
    act(() => socket.frame('admin:columns', 1, 'definitions.changed', { leverId: 'lever-mdb' }))
    setRows([def('NIF', 1, { isRequired: true }), def('Country', 2), def('Issuer_Group', 3)])
    act(() => socket.frame('admin:columns', 2, 'definitions.changed', { leverId: 'lever-pse' }))
    await waitFor(() => expect(names()).toEqual(['NIF', 'Country', 'Issuer_Group']))
    expect(reads()).toBe(before + 1)
  })

  it("says 'No lever selected' until a lever is picked, then lists its definitions in order", async () => {
    setup()
    expect(screen.getByText('No lever selected')).toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: 'Add Column' }))
    expect(await screen.findAllByText('No lever selected')).toHaveLength(2) // the empty state and the toast
    await screen.findByRole('option', { name: /Public Sector Entities/ })
    await userEvent.selectOptions(screen.getByLabelText('Lever'), 'lever-pse')
    await waitFor(() => expect(names()).toEqual(['NIF', 'Maturity', 'Country']))
    expect(within(list()).getByText('Required')).toBeInTheDocument()
  })

  it('adds, edits and deletes with the specification\'s toasts and confirmation, and shows access denials', async () => {
    const { calls } = setup()
    await screen.findByRole('option', { name: /Public Sector Entities/ })
    await userEvent.selectOptions(screen.getByLabelText('Lever'), 'lever-pse')
    await waitFor(() => expect(names()).toHaveLength(3))

    await userEvent.click(screen.getByRole('button', { name: 'Add Column' }))
    const dialog = await screen.findByRole('dialog', { name: 'Add Column Definition' })
    expect(within(dialog).getByLabelText('Display Order')).toHaveValue(4)
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add Column' }))
    expect(await within(dialog).findByText('Column name is required')).toBeInTheDocument()
    await userEvent.type(within(dialog).getByLabelText('Column Name'), 'SCRA_Grade')
    await userEvent.selectOptions(within(dialog).getByLabelText('Category'), 'optional')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add Column' }))
    expect(await screen.findByText('Column created')).toBeInTheDocument()
    await waitFor(() => expect(names()).toEqual(['NIF', 'Maturity', 'Country', 'SCRA_Grade']))
    const post = calls.find((c) => c.key === 'POST /api/levers/:id/column-definitions')!
    expect(post.body).toEqual({ name: 'SCRA_Grade', dataType: 'text', description: '', isRequired: false, category: 'optional', displayOrder: 4 })

    // A refusal keeps the dialog open with the server's message.
    await userEvent.click(screen.getByRole('button', { name: 'Add Column' }))
    const again = await screen.findByRole('dialog', { name: 'Add Column Definition' })
    await userEvent.type(within(again).getByLabelText('Column Name'), 'Denied')
    await userEvent.click(within(again).getByRole('button', { name: 'Add Column' }))
    expect(await screen.findByText('Error creating column')).toBeInTheDocument()
    expect(screen.getByText('Access denied: Only administrators can create/update/delete lever column definitions')).toBeInTheDocument()
    await userEvent.click(within(again).getByRole('button', { name: 'Cancel' }))

    await userEvent.click(screen.getByRole('button', { name: 'Edit Maturity' }))
    const edit = await screen.findByRole('dialog', { name: 'Edit Column Definition' })
    await userEvent.click(within(edit).getByLabelText('Required'))
    await userEvent.click(within(edit).getByRole('button', { name: 'Save Changes' }))
    expect(await screen.findByText('Column updated')).toBeInTheDocument()
    expect(calls.find((c) => c.key === 'PUT /api/lever-column-definitions/:id')!.body).toMatchObject({ name: 'Maturity', isRequired: true, dataType: 'date' })

    await userEvent.click(screen.getByRole('button', { name: 'Delete Country' }))
    const confirm = await screen.findByRole('dialog', { name: 'Delete Column Definition' })
    await userEvent.click(within(confirm).getByRole('button', { name: 'Delete' }))
    expect(await screen.findByText('Column deleted')).toBeInTheDocument()
    await waitFor(() => expect(names()).toEqual(['NIF', 'Maturity', 'SCRA_Grade']))
  })

  it('computes the whole new order of a drop', () => {
    expect(reorderedIds(['a', 'b', 'c'], 'a', 'b')).toEqual(['b', 'a', 'c'])
    expect(reorderedIds(['a', 'b', 'c'], 'c', 'a')).toEqual(['c', 'a', 'b'])
    expect(reorderedIds(['a', 'b', 'c'], 'a', 'a')).toBeNull()
    expect(reorderedIds(['a', 'b', 'c'], 'a', null)).toBeNull()
    expect(reorderedIds(['a', 'b', 'c'], 'x', 'a')).toBeNull()
  })
})
