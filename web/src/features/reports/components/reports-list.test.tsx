import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { MemoryRouter, Route, Routes, useLocation } from 'react-router'

import { Toaster } from '@/components/ui/toaster'
import { useAuthStore } from '@/lib/auth-store'
import { resetRealtime, setRealtimeTransport } from '@/lib/realtime-store'
import { toast } from '@/lib/toast'
import { FakeEventSocket } from '@/testing/fake-event-socket'
import { json, makeUser, mockApi } from '@/testing/mock-api'

import { ReportsList } from './reports-list'

const report = {
  id: 'r-1',
  client_id: 'c-1',
  folder_id: null,
  name: 'Q3 Pillar 3 disclosure',
  status: 'draft',
  template_id: null,
  section_count: 3,
  created_by: 'u-1',
  last_edited_by: 'u-1',
  last_edited_by_name: 'Ana García',
  last_saved_at: null,
  created_at: '2026-11-01T10:00:00.000000Z',
  updated_at: '2026-11-02T10:00:00.000000Z',
}

/** Shows where the router is, so tests can read what the URL keeps. */
function LocationText() {
  const location = useLocation()
  return <output aria-label="Location">{location.pathname + location.search}</output>
}

function renderList(
  role: 'user' | 'viewer' | 'admin' = 'user',
  client: { id: string; name: string } | null = { id: 'c-1', name: 'Bank A' },
  path = '/client/report-generator',
) {
  // The live-update subscription goes to a fake event socket that never opens.
  FakeEventSocket.all = []
  setRealtimeTransport(() => new FakeEventSocket(), async () => true)
  useAuthStore.setState({ status: 'authenticated', user: makeUser({ role, client }) })
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route
            path="/client/report-generator"
            element={
              <>
                <ReportsList />
                <LocationText />
              </>
            }
          />
          <Route path="/client/report-generator/edit/:reportId" element={<p>Editor page</p>} />
        </Routes>
      </MemoryRouter>
      <Toaster />
    </QueryClientProvider>,
  )
}

const limit = { draft_count: 7, limit: 100, month_year: '2026-11' }

afterEach(() => {
  resetRealtime()
  vi.restoreAllMocks()
})

const folder = { id: 'f-1', client_id: 'c-1', parent_folder_id: null, name: 'Quarterly', created_by: 'u-1', created_at: report.created_at, updated_at: report.updated_at }

describe('ReportsList', () => {
  it('shows the cards, the draft counter and No Reports Found for a search without match', async () => {
    const calls = mockApi({
      'GET /api/reports': () => json(200, [report]),
      'GET /api/reports/folders': () => json(200, []),
      'GET /api/reports/draft-limit': () => json(200, limit),
    })
    renderList()
    const card = await screen.findByRole('article', { name: 'Q3 Pillar 3 disclosure' })
    expect(card).toHaveTextContent('3 sections')
    expect(card).toHaveTextContent('Draft')
    expect(await screen.findByText('7 of 100 drafts used this month')).toBeInTheDocument()
    await userEvent.type(screen.getByLabelText('Search reports'), 'basel')
    expect(await screen.findByText('No Reports Found')).toBeInTheDocument()
    // Every request names the client the screen is about.
    expect(calls.map((c) => c.url).sort()).toEqual([
      '/api/reports/draft-limit?client_id=c-1',
      '/api/reports/folders?client_id=c-1',
      '/api/reports?client_id=c-1',
    ])
  })

  it('says so, and asks nothing, when the account has no client', async () => {
    const calls = mockApi({})
    renderList('user', null)
    expect(await screen.findByText(/No Client/)).toBeInTheDocument()
    expect(calls).toHaveLength(0)
  })

  it('heads an empty company with Create Your First Report, with the create button for editors; a report may start from a template', async () => {
    const calls = mockApi({
      'GET /api/reports': () => json(200, []),
      'GET /api/reports/folders': () => json(200, []),
      'GET /api/reports/draft-limit': () => json(200, limit),
      'GET /api/report-templates': () =>
        json(200, [{ id: 't-1', name: 'Basel III Pillar 3', sections: [{ id: 's', title: 'Scope', kind: 'summary', content: '' }] }]),
      'POST /api/reports': () => json(422, { code: 'limit', message: 'Monthly draft limit reached (100 drafts per month)' }),
    })
    renderList()
    expect(await screen.findByRole('heading', { name: 'Create Your First Report' })).toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: 'Create Report' }))
    const dialog = await screen.findByRole('dialog', { name: 'New Report' })
    await userEvent.type(within(dialog).getByLabelText('Report name'), 'FY disclosure')
    await userEvent.selectOptions(await within(dialog).findByLabelText('Template'), 'Basel III Pillar 3 (1 section)')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Create Report' }))
    await waitFor(() => expect(calls.find((c) => c.key === 'POST /api/reports')?.body).toMatchObject({ name: 'FY disclosure', template_id: 't-1' }))
  })

  it('shows viewers Create Your First Report too, without the create button', async () => {
    mockApi({
      'GET /api/reports': () => json(200, []),
      'GET /api/reports/folders': () => json(200, []),
      'GET /api/reports/draft-limit': () => json(200, limit),
    })
    renderList('viewer')
    expect(await screen.findByRole('heading', { name: 'Create Your First Report' })).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Create Report' })).not.toBeInTheDocument()
    expect(screen.queryByRole('button', { name: /create/i })).not.toBeInTheDocument()
  })

  it('shows No Reports Found when the current folder leaves nothing', async () => {
    mockApi({
      'GET /api/reports': () => json(200, [report]),
      'GET /api/reports/folders': () => json(200, [folder]),
      'GET /api/reports/draft-limit': () => json(200, limit),
    })
    renderList()
    await screen.findByRole('article', { name: 'Q3 Pillar 3 disclosure' })
    await userEvent.click(screen.getByRole('button', { name: 'Quarterly' }))
    expect(await screen.findByRole('heading', { name: 'No Reports Found' })).toBeInTheDocument()
    expect(screen.getByText('This folder has no reports yet.')).toBeInTheDocument()
    expect(screen.queryByRole('heading', { name: 'Create Your First Report' })).not.toBeInTheDocument()
  })

  it('keeps the folder in the URL, so a return from the editor lands in it', async () => {
    mockApi({
      'GET /api/reports': () => json(200, [report, { ...report, id: 'r-2', name: 'Quarterly memo', folder_id: 'f-1' }]),
      'GET /api/reports/folders': () => json(200, [folder]),
      'GET /api/reports/draft-limit': () => json(200, limit),
    })
    renderList('user', { id: 'c-1', name: 'Bank A' }, '/client/report-generator?folder=f-1')
    expect(await screen.findByRole('article', { name: 'Quarterly memo' })).toBeInTheDocument()
    expect(screen.queryByRole('article', { name: 'Q3 Pillar 3 disclosure' })).not.toBeInTheDocument()

    await userEvent.click(screen.getByRole('button', { name: 'All reports' }))
    expect(await screen.findByRole('article', { name: 'Q3 Pillar 3 disclosure' })).toBeInTheDocument()
    expect(screen.getByRole('status', { name: 'Location' })).toHaveTextContent(/^\/client\/report-generator$/)
    await userEvent.click(screen.getByRole('button', { name: 'Quarterly' }))
    expect(screen.getByRole('status', { name: 'Location' })).toHaveTextContent('/client/report-generator?folder=f-1')
  })

  it('lets an administrator choose the client, and the editor links keep it', async () => {
    const calls = mockApi({
      'GET /api/reports': ({ query }) => json(200, query.get('client_id') === 'c-2' ? [{ ...report, id: 'r-b', client_id: 'c-2', name: 'Bank B memo' }] : [report]),
      'GET /api/reports/folders': () => json(200, []),
      'GET /api/reports/draft-limit': () => json(200, limit),
      'GET /api/clients': () => json(200, [{ id: 'c-1', name: 'Bank A' }, { id: 'c-2', name: 'Bank B' }]),
    })
    renderList('admin', { id: 'c-1', name: 'Bank A' })
    expect(await screen.findByRole('article', { name: 'Q3 Pillar 3 disclosure' })).toBeInTheDocument()
    const select = screen.getByLabelText('Client')
    await waitFor(() => expect(within(select).getAllByRole('option')).toHaveLength(2))
    await userEvent.selectOptions(select, 'c-2')
    expect(await screen.findByRole('article', { name: 'Bank B memo' })).toBeInTheDocument()
    expect(screen.getByRole('status', { name: 'Location' })).toHaveTextContent('/client/report-generator?client=c-2')
    expect(calls.filter((c) => c.key === 'GET /api/reports').map((c) => c.url)).toContain('/api/reports?client_id=c-2')
    const card = screen.getByRole('article', { name: 'Bank B memo' })
    expect(within(card).getAllByRole('link')[0]).toHaveAttribute('href', '/client/report-generator/edit/r-b?client=c-2')
  })

  it('opens a card from the keyboard: Tab reaches its link, Enter opens the editor', async () => {
    mockApi({
      'GET /api/reports': () => json(200, [report]),
      'GET /api/reports/folders': () => json(200, []),
      'GET /api/reports/draft-limit': () => json(200, limit),
    })
    renderList()
    const card = await screen.findByRole('article', { name: 'Q3 Pillar 3 disclosure' })
    const link = within(card).getByRole('link', { name: 'Q3 Pillar 3 disclosure' })
    expect(link).toHaveAttribute('href', '/client/report-generator/edit/r-1')
    within(card).getByRole('button', { name: 'Actions for Q3 Pillar 3 disclosure' }).focus()
    await userEvent.tab({ shift: true })
    expect(link).toHaveFocus()
    await userEvent.keyboard('{Enter}')
    expect(await screen.findByText('Editor page')).toBeInTheDocument()
  })

  it('renames from the card menu: the field keeps the focus, Enter saves and Escape cancels', async () => {
    const calls = mockApi({
      'GET /api/reports': () => json(200, [report]),
      'GET /api/reports/folders': () => json(200, []),
      'GET /api/reports/draft-limit': () => json(200, limit),
      'PATCH /api/reports/r-1': () => json(200, { ...report, name: 'Q4 disclosure' }),
    })
    renderList()
    const user = userEvent.setup()
    const menuButton = await screen.findByRole('button', { name: 'Actions for Q3 Pillar 3 disclosure' })

    // Escape cancels: nothing is sent and the name stays.
    menuButton.focus()
    await user.keyboard('{Enter}')
    await user.click(await screen.findByRole('menuitem', { name: 'Rename' }))
    const field = await screen.findByRole('textbox', { name: 'Report name' })
    await waitFor(() => expect(field).toHaveFocus())
    await user.clear(field)
    await user.type(field, 'Discarded{Escape}')
    expect(screen.queryByRole('textbox', { name: 'Report name' })).not.toBeInTheDocument()
    expect(calls.filter((c) => c.key.startsWith('PATCH'))).toHaveLength(0)
    await waitFor(() => expect(menuButton).toHaveFocus())

    // Enter saves the new name.
    await user.keyboard('{Enter}')
    await user.click(await screen.findByRole('menuitem', { name: 'Rename' }))
    const again = await screen.findByRole('textbox', { name: 'Report name' })
    await waitFor(() => expect(again).toHaveFocus())
    // The focus stays in the field after the menu has gone.
    await new Promise((r) => setTimeout(r, 50))
    expect(again).toHaveFocus()
    await user.clear(again)
    await user.type(again, 'Q4 disclosure{Enter}')
    const patch = calls.find((c) => c.key === 'PATCH /api/reports/r-1')
    expect(patch?.body).toEqual({ name: 'Q4 disclosure' })
    expect(await screen.findByText('Report renamed successfully')).toBeInTheDocument()
  })

  it('shows a rename at once and puts the old name back when the server refuses it', async () => {
    let answer!: () => void
    const answered = new Promise<void>((resolve) => (answer = resolve))
    mockApi({
      'GET /api/reports': () => json(200, [report]),
      'GET /api/reports/folders': () => json(200, []),
      'GET /api/reports/draft-limit': () => json(200, limit),
      'PATCH /api/reports/r-1': async () => {
        await answered
        return json(409, { code: 'conflict', message: 'A report with this name exists' })
      },
    })
    renderList()
    const user = userEvent.setup()
    await user.click(await screen.findByRole('button', { name: 'Actions for Q3 Pillar 3 disclosure' }))
    await user.click(await screen.findByRole('menuitem', { name: 'Rename' }))
    const field = await screen.findByRole('textbox', { name: 'Report name' })
    await user.clear(field)
    await user.type(field, 'Q4 disclosure{Enter}')
    // Optimistic: the card has the new name while the server has not answered.
    expect(await screen.findByRole('article', { name: 'Q4 disclosure' })).toBeInTheDocument()
    answer()
    expect(await screen.findByText('Failed to rename report')).toBeInTheDocument()
    expect(await screen.findByRole('article', { name: 'Q3 Pillar 3 disclosure' })).toBeInTheDocument()
    expect(screen.queryByRole('article', { name: 'Q4 disclosure' })).not.toBeInTheDocument()
  })

  it('hides New Report and New Folder from viewers', async () => {
    mockApi({
      'GET /api/reports': () => json(200, [report]),
      'GET /api/reports/folders': () => json(200, []),
      'GET /api/reports/draft-limit': () => json(200, limit),
    })
    renderList('viewer')
    await screen.findByRole('article', { name: 'Q3 Pillar 3 disclosure' })
    expect(screen.queryByRole('button', { name: 'New Report' })).not.toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'New Folder' })).not.toBeInTheDocument()
  })

  it('shows the Database Connection Issue banner with Retry when the list fails', async () => {
    let attempts = 0
    mockApi({
      'GET /api/reports': () => (++attempts === 1 ? json(500, { code: 'internal', message: 'An unexpected error occurred. Please try again.' }) : json(200, [report])),
      'GET /api/reports/folders': () => json(200, []),
      'GET /api/reports/draft-limit': () => json(200, limit),
    })
    renderList()
    expect(await screen.findByText('Database Connection Issue')).toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }))
    expect(await screen.findByRole('article', { name: 'Q3 Pillar 3 disclosure' })).toBeInTheDocument()
    expect(screen.queryByText('Database Connection Issue')).not.toBeInTheDocument()
  })

  it('says Database Error in a toast once per failed load', async () => {
    const errorToast = vi.spyOn(toast, 'error')
    let attempts = 0
    mockApi({
      'GET /api/reports': () => (++attempts <= 2 ? json(500, { code: 'internal', message: 'An unexpected error occurred. Please try again.' }) : json(200, [report])),
      'GET /api/reports/folders': () => json(200, []),
      'GET /api/reports/draft-limit': () => json(200, limit),
    })
    renderList()
    expect(await screen.findByText('Failed to connect to database. Some features may be limited.')).toBeInTheDocument()
    expect(screen.getByText('Database Error')).toBeInTheDocument()
    expect(errorToast).toHaveBeenCalledTimes(1)
    expect(errorToast).toHaveBeenCalledWith('Database Error', 'Failed to connect to database. Some features may be limited.')

    // A Retry that fails again is a new failure; one that works adds nothing.
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }))
    await waitFor(() => expect(errorToast).toHaveBeenCalledTimes(2))
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }))
    expect(await screen.findByRole('article', { name: 'Q3 Pillar 3 disclosure' })).toBeInTheDocument()
    expect(errorToast).toHaveBeenCalledTimes(2)
  })
})
