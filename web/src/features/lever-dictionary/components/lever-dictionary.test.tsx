import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import type { LeverEntry, LeverFile } from '../api'
import { useAuthStore } from '@/lib/auth-store'
import { queryClient } from '@/lib/query-client'
import { resetRealtime, setRealtimeTransport } from '@/lib/realtime-store'
import { FakeEventSocket } from '@/testing/fake-event-socket'
import { json, makeUser, mockApi } from '@/testing/mock-api'
import { renderRoutes } from '@/testing/render-route'

import { DESCRIPTION_PREVIEW } from './description-cell'
import { LeverDictionary } from './lever-dictionary'

const LONG = 'Exposures to public sector entities treated as their central, regional or local government, or by the rating of the entity or its sovereign.'

function lever(id: string, name: string, overrides: Partial<LeverEntry> = {}): LeverEntry {
  return { id, code: null, name, description: 'Short', category: 'Assets', fileCount: 0, folder: name.toLowerCase().replace(/\s+/g, '-'), moving: false, ...overrides }
}

beforeEach(() => queryClient.clear())
afterEach(() => resetRealtime())

function setup() {
  FakeEventSocket.all = []
  setRealtimeTransport(() => new FakeEventSocket(), async () => true)
  useAuthStore.setState({ status: 'authenticated', user: makeUser({ role: 'admin' }) })
  let rows = [lever('l-pse', 'Public Sector Entities', { code: 'pse', description: LONG, fileCount: 2 }), lever('l-cb', 'Covered Bonds')]
  const files: LeverFile[] = [
    { id: 'f-1', leverId: 'l-pse', name: 'Q1 exposures.csv', sizeBytes: 2048, uploadedAt: '2026-01-05T10:00:00Z', key: 'levers/x/1.csv' },
    { id: 'f-2', leverId: 'l-pse', name: 'Q2.xlsx', sizeBytes: 3 * 1024 * 1024, uploadedAt: '2026-02-05T10:00:00Z', key: 'levers/x/2.xlsx' },
  ]
  const calls = mockApi({
    'GET /api/admin/levers': () => json(200, rows),
    'POST /api/admin/levers': ({ body }) => {
      const b = body as { name: string; category: string; description: string }
      const l = lever('l-new', b.name, { category: b.category, description: b.description })
      rows = [...rows, l]
      return json(201, l)
    },
    'PUT /api/admin/levers/:id': ({ params, body }) => {
      const b = body as { name: string }
      if (b.name === 'Covered Bonds') return json(409, { code: 'duplicate_lever', message: 'A lever with this name already exists.' })
      rows = rows.map((r) => (r.id === params.id ? { ...r, ...(body as object) } : r))
      return json(200, rows.find((r) => r.id === params.id))
    },
    'PUT /api/admin/levers/:id/category': ({ params, body }) => {
      const { category } = body as { category: string }
      if (category === 'Other') return json(500, { code: 'internal', message: 'An unexpected error occurred. Please try again.' })
      rows = rows.map((r) => (r.id === params.id ? { ...r, category } : r))
      return json(200, rows.find((r) => r.id === params.id))
    },
    'DELETE /api/admin/levers/:id': ({ params }) => {
      if (params.id === 'l-pse')
        return json(409, { code: 'lever_in_use', message: "'Public Sector Entities' cannot be deleted because 3 client files use it." })
      rows = rows.filter((r) => r.id !== params.id)
      return new Response(null, { status: 204 })
    },
    'GET /api/admin/levers/:id/files': () => json(200, files),
    'DELETE /api/admin/lever-files/:id': () => new Response(null, { status: 204 }),
  })
  renderRoutes([{ path: '/admin/lever-dictionary', element: <LeverDictionary /> }], '/admin/lever-dictionary')
  return { calls, setRows: (r: LeverEntry[]) => (rows = r) }
}

describe('LeverDictionary', () => {
  it('lists the levers with the truncated description, the category selector and the file count', async () => {
    setup()
    expect(screen.getByRole('heading', { name: 'Capital Optimization Levers' })).toBeInTheDocument()
    expect(screen.getByText('Manage the dictionary of optimization levers')).toBeInTheDocument()
    expect(await screen.findByText('2 files')).toBeInTheDocument()
    expect(screen.getByText('No files')).toBeInTheDocument()
    const trigger = screen.getByRole('button', { name: 'Description of Public Sector Entities' })
    expect(trigger.textContent).toBe(`${LONG.slice(0, DESCRIPTION_PREVIEW).trimEnd()}…`)
    await userEvent.click(trigger)
    await userEvent.click(await screen.findByRole('button', { name: 'View full description' }))
    const full = await screen.findByRole('dialog', { name: 'Public Sector Entities' })
    expect(within(full).getByText(LONG)).toBeInTheDocument()
    expect(screen.getByLabelText('Category of Covered Bonds')).toHaveValue('Assets')
  })

  it('adds a lever with the specification\'s validation and offers no Other category', async () => {
    const { calls } = setup()
    await screen.findByText('2 files')
    await userEvent.click(screen.getByRole('button', { name: 'Add Lever' }))
    const dialog = await screen.findByRole('dialog', { name: 'Add New Optimization Lever' })
    const options = within(within(dialog).getByLabelText('Category')).getAllByRole('option').map((o) => o.textContent)
    expect(options).toEqual(['Select a category', 'Assets', 'CET1 deductions', 'CRMT'])
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add Lever' }))
    expect(await within(dialog).findByText('Lever name is required.')).toBeInTheDocument()
    expect(within(dialog).getByText('Category is required.')).toBeInTheDocument()
    expect(within(dialog).getByText('Description is required.')).toBeInTheDocument()
    await userEvent.type(within(dialog).getByLabelText('Lever Name'), 'Guarantees')
    await userEvent.selectOptions(within(dialog).getByLabelText('Category'), 'CRMT')
    await userEvent.type(within(dialog).getByLabelText('Description'), 'Unfunded credit protection')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Add Lever' }))
    expect(await screen.findByText('Lever added')).toBeInTheDocument()
    expect(calls.find((c) => c.key === 'POST /api/admin/levers')!.body).toEqual({
      name: 'Guarantees',
      category: 'CRMT',
      description: 'Unfunded credit protection',
    })
    expect(await screen.findByText('Guarantees')).toBeInTheDocument()
  })

  it("edits a lever, listing its analysis files, and shows the server's refusal", async () => {
    setup()
    await screen.findByText('2 files')
    await userEvent.click(screen.getByRole('button', { name: 'Edit Public Sector Entities' }))
    const dialog = await screen.findByRole('dialog', { name: 'Edit Optimization Lever' })
    const files = await within(dialog).findByTestId('lever-files')
    expect(within(files).getByText('Q1 exposures.csv')).toBeInTheDocument()
    expect(within(files).getByText(/2\.0 KB · Jan 5, 2026/)).toBeInTheDocument()
    expect(within(files).getByText(/3\.0 MB · Feb 5, 2026/)).toBeInTheDocument()
    await userEvent.click(within(files).getByRole('button', { name: 'Delete Q2.xlsx' }))
    expect(await screen.findByText('File deleted')).toBeInTheDocument()
    const name = within(dialog).getByLabelText('Lever Name')
    await userEvent.clear(name)
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save Changes' }))
    expect(await within(dialog).findByText('Lever name is required.')).toBeInTheDocument()
    await userEvent.type(name, 'Covered Bonds')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save Changes' }))
    expect(await screen.findByText('Update failed')).toBeInTheDocument()
    expect(screen.getByText('A lever with this name already exists.')).toBeInTheDocument()
    await userEvent.clear(name)
    await userEvent.type(name, 'PSE exposures')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save Changes' }))
    expect(await screen.findByText('Lever updated successfully.')).toBeInTheDocument()
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    expect(await screen.findByText('PSE exposures')).toBeInTheDocument()
  })

  it('changes a category inline and puts it back when the server refuses', async () => {
    const { calls } = setup()
    await screen.findByText('2 files')
    await userEvent.selectOptions(screen.getByLabelText('Category of Covered Bonds'), 'CRMT')
    expect(await screen.findByText('Category updated')).toBeInTheDocument()
    expect(calls.find((c) => c.key === 'PUT /api/admin/levers/:id/category')!.body).toEqual({ category: 'CRMT' })
    await userEvent.selectOptions(screen.getByLabelText('Category of Covered Bonds'), 'Other')
    expect(await screen.findByText('Failed to update category. Please try again.')).toBeInTheDocument()
    await waitFor(() => expect(screen.getByLabelText('Category of Covered Bonds')).toHaveValue('CRMT'))
  })

  it('deletes after confirmation, and says why a lever in use cannot be deleted', async () => {
    setup()
    await screen.findByText('2 files')
    await userEvent.click(screen.getByRole('button', { name: 'Delete Public Sector Entities' }))
    let confirm = await screen.findByRole('dialog', { name: 'Delete lever' })
    await userEvent.click(within(confirm).getByRole('button', { name: 'Delete' }))
    expect(await screen.findByText("'Public Sector Entities' cannot be deleted because 3 client files use it.")).toBeInTheDocument()
    expect(screen.getByText('Public Sector Entities')).toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: 'Delete Covered Bonds' }))
    confirm = await screen.findByRole('dialog', { name: 'Delete lever' })
    await userEvent.click(within(confirm).getByRole('button', { name: 'Delete' }))
    expect(await screen.findByText('Lever deleted')).toBeInTheDocument()
    await waitFor(() => expect(screen.queryByText('Covered Bonds')).not.toBeInTheDocument())
  })

  it('checks the chosen files before uploading them', async () => {
    setup()
    await screen.findByText('2 files')
    await userEvent.click(screen.getByRole('button', { name: 'Upload analysis files for Covered Bonds' }))
    const dialog = await screen.findByRole('dialog', { name: 'Upload Analysis Files for Covered Bonds' })
    await userEvent.click(within(dialog).getByRole('button', { name: 'Upload' }))
    expect(await screen.findByText('Please select at least one file to upload.')).toBeInTheDocument()
    const input = within(dialog).getByTestId('lever-file-input')
    await userEvent.upload(input, new File(['%PDF'], 'rules.pdf', { type: 'application/pdf' }), { applyAccept: false })
    expect(await screen.findByText('Invalid file type')).toBeInTheDocument()
    expect(screen.getByText('Please upload only xlsx, xls, csv files.')).toBeInTheDocument()
    await userEvent.upload(input, [new File(['a'], 'a.csv'), new File(['b'], 'b.xlsx')])
    expect(within(within(dialog).getByRole('list', { name: 'Files to upload' })).getAllByRole('listitem')).toHaveLength(2)
    expect(within(dialog).getByRole('button', { name: 'Upload 2 files' })).toBeEnabled()
  })

  it("follows another administrator's changes live", async () => {
    const { calls, setRows } = setup()
    await screen.findByText('2 files')
    const socket = FakeEventSocket.latest()
    act(() => socket.open())
    await waitFor(() => expect(socket.sent.flatMap((m) => m.topics ?? [])).toContain('admin:levers'))
    act(() => socket.frame('admin:levers', 0, 'subscribed'))
    const reads = () => calls.filter((c) => c.key === 'GET /api/admin/levers').length
    const before = reads()
    setRows([lever('l-pse', 'Renamed elsewhere', { fileCount: 2 })])
    act(() => socket.frame('admin:levers', 1, 'levers.changed', { leverId: 'l-pse' }))
    expect(await screen.findByText('Renamed elsewhere')).toBeInTheDocument()
    expect(reads()).toBeGreaterThan(before)
  })
})
