import type { ReportVersion } from '@/api/types/ReportVersion'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import type { ReactNode } from 'react'
import * as Y from 'yjs'

import { Toaster } from '@/components/ui/toaster'
import { resetRealtime, setRealtimeTransport } from '@/lib/realtime-store'
import { FakeEventSocket as FakeSocket } from '@/testing/fake-event-socket'
import { json, mockApi } from '@/testing/mock-api'

import type { ReportMediaContextValue } from '../media/nodes'
import { VersionHistory } from './version-history'

const media: ReportMediaContextValue = { clientId: 'c-1', reportId: 'r-1', editChart: () => {}, editImage: () => {} }

const draft: ReportVersion = {
  id: 'v-1',
  report_id: 'r-1',
  name: 'Sent to the approver',
  kind: 'manual',
  section_count: 1,
  size_bytes: 120,
  created_by: 'u-1',
  created_by_name: 'Ana García',
  created_at: '2026-11-02T10:07:00.000000Z',
}
const automatic: ReportVersion = { ...draft, id: 'v-2', name: 'Before restoring “Sent to the approver”', kind: 'before_restore', created_at: '2026-11-03T09:00:00.000000Z' }

/** The base64 state of a report whose one section says `text`. */
function stateOf(text: string): string {
  const doc = new Y.Doc()
  const entry = new Y.Map<unknown>()
  entry.set('title', 'Executive Summary')
  entry.set('order', 'a0')
  doc.getMap<Y.Map<unknown>>('sections').set('s-1', entry)
  const p = new Y.XmlElement('paragraph')
  p.insert(0, [new Y.XmlText(text)])
  doc.getXmlFragment('section:s-1').insert(0, [p])
  return btoa(String.fromCharCode(...Y.encodeStateAsUpdate(doc)))
}

function wrap(children: ReactNode) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  return render(
    <QueryClientProvider client={client}>
      {children}
      <Toaster />
    </QueryClientProvider>,
  )
}

beforeEach(() => {
  FakeSocket.all = []
  setRealtimeTransport(() => new FakeSocket(), async () => true)
})
afterEach(() => resetRealtime())

describe('VersionHistory', () => {
  it('lists versions with who and when, the automatic ones marked', async () => {
    mockApi({ 'GET /api/reports/r-1/versions': () => json(200, [automatic, draft]) })
    wrap(<VersionHistory clientId="c-1" reportId="r-1" canEdit media={media} />)
    const list = await screen.findByRole('list', { name: 'Versions' })
    const items = within(list).getAllByRole('listitem')
    expect(items).toHaveLength(2)
    expect(items[0]).toHaveTextContent('Before restoring “Sent to the approver”')
    expect(items[0]).toHaveTextContent('Automatic')
    expect(items[1]).toHaveTextContent('Sent to the approver')
    expect(items[1]).not.toHaveTextContent('Automatic')
    expect(items[1]).toHaveTextContent('Ana García · Nov 2, 2026')
  })

  it('saves a named version, refusing an empty name without calling the server', async () => {
    let versions: ReportVersion[] = []
    const calls = mockApi({
      'GET /api/reports/r-1/versions': () => json(200, versions),
      'POST /api/reports/r-1/versions': ({ body }) => {
        versions = [{ ...draft, name: (body as { name: string }).name }]
        return json(201, versions[0])
      },
    })
    wrap(<VersionHistory clientId="c-1" reportId="r-1" canEdit media={media} />)
    expect(await screen.findByText('No versions yet.')).toBeInTheDocument()
    const user = userEvent.setup()
    await user.type(screen.getByLabelText('Version name'), '   ')
    await user.click(screen.getByRole('button', { name: 'Save Version' }))
    expect(screen.getByRole('alert')).toHaveTextContent('Version name is required')
    expect(calls.filter((c) => c.key.startsWith('POST'))).toHaveLength(0)

    await user.clear(screen.getByLabelText('Version name'))
    await user.type(screen.getByLabelText('Version name'), ' Q3 final ')
    await user.click(screen.getByRole('button', { name: 'Save Version' }))
    await waitFor(() => expect(calls.filter((c) => c.key.startsWith('POST')).map((c) => c.body)).toEqual([{ name: 'Q3 final' }]))
    expect(await screen.findByText('Version saved')).toBeInTheDocument()
    expect(await screen.findByText('Q3 final')).toBeInTheDocument()
    expect(screen.getByLabelText('Version name')).toHaveValue('')
  })

  it('shows a version read-only and restores it after confirmation', async () => {
    const calls = mockApi({
      'GET /api/reports/r-1/versions': () => json(200, [draft]),
      'GET /api/reports/r-1/versions/v-1': () => json(200, { version: draft, state: stateOf('Savings of 12.5 bps.') }),
      'POST /api/reports/r-1/versions/v-1/restore': () => json(200, automatic),
    })
    wrap(<VersionHistory clientId="c-1" reportId="r-1" canEdit media={media} />)
    const user = userEvent.setup()
    await user.click(await screen.findByRole('button', { name: 'View Sent to the approver' }))
    const dialog = await screen.findByRole('dialog')
    const content = await within(dialog).findByRole('region', { name: 'Executive Summary' })
    await waitFor(() => expect(content).toHaveTextContent('Savings of 12.5 bps.'))
    expect(within(content).getByLabelText('Executive Summary content (read-only)')).toHaveAttribute('contenteditable', 'false')

    await user.click(within(dialog).getByRole('button', { name: 'Restore this version' }))
    const confirm = await screen.findByRole('dialog', { name: 'Restore version' })
    expect(confirm).toHaveTextContent('The current state is kept as a version first.')
    await user.click(within(confirm).getByRole('button', { name: 'Restore' }))
    await waitFor(() => expect(calls.map((c) => c.key)).toContain('POST /api/reports/r-1/versions/v-1/restore'))
    expect(await screen.findByText('Version restored')).toBeInTheDocument()
  })

  it('deletes a version after confirmation', async () => {
    let versions = [automatic, draft]
    const calls = mockApi({
      'GET /api/reports/r-1/versions': () => json(200, versions),
      'DELETE /api/reports/r-1/versions/v-1': () => {
        versions = [automatic]
        return new Response(null, { status: 204 })
      },
    })
    wrap(<VersionHistory clientId="c-1" reportId="r-1" canEdit media={media} />)
    const user = userEvent.setup()
    await user.click(await screen.findByRole('button', { name: 'Delete Sent to the approver' }))
    const confirm = await screen.findByRole('dialog', { name: 'Delete version' })
    expect(confirm).toHaveTextContent("The report's content is not changed.")
    await user.click(within(confirm).getByRole('button', { name: 'Delete' }))
    await waitFor(() => expect(calls.map((c) => c.key)).toContain('DELETE /api/reports/r-1/versions/v-1'))
    expect(await screen.findByText('Version deleted')).toBeInTheDocument()
    await waitFor(() => expect(within(screen.getByRole('list', { name: 'Versions' })).getAllByRole('listitem')).toHaveLength(1))
  })

  it('lets viewers open versions but neither save nor restore them', async () => {
    mockApi({ 'GET /api/reports/r-1/versions': () => json(200, [draft]) })
    wrap(<VersionHistory clientId="c-1" reportId="r-1" canEdit={false} media={media} />)
    expect(await screen.findByRole('button', { name: 'View Sent to the approver' })).toBeInTheDocument()
    expect(screen.queryByLabelText('Version name')).not.toBeInTheDocument()
    expect(screen.queryByRole('button', { name: /Restore/ })).not.toBeInTheDocument()
    expect(screen.queryByRole('button', { name: /Delete/ })).not.toBeInTheDocument()
  })
})
