import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { MemoryRouter } from 'react-router'

import { useAuthStore } from '@/lib/auth-store'
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

function renderList(role: 'user' | 'viewer' = 'user') {
  // No client link: the live-update subscription stays closed in these tests.
  useAuthStore.setState({ status: 'authenticated', user: makeUser({ role, client: null }) })
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <MemoryRouter>
        <ReportsList />
      </MemoryRouter>
    </QueryClientProvider>,
  )
}

const limit = { draft_count: 7, limit: 100, month_year: '2026-11' }

afterEach(() => vi.unstubAllGlobals())

describe('ReportsList', () => {
  it('shows the cards, the draft counter and No Reports Found for a search without match', async () => {
    mockApi({
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
  })

  it('offers Create Your First Report when there is none', async () => {
    mockApi({
      'GET /api/reports': () => json(200, []),
      'GET /api/reports/folders': () => json(200, []),
      'GET /api/reports/draft-limit': () => json(200, limit),
    })
    renderList()
    expect(await screen.findByRole('button', { name: 'Create Your First Report' })).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'New Report' })).toBeInTheDocument()
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
})
