import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import type { ReportTemplate } from '../api'
import { useAuthStore } from '@/lib/auth-store'
import { queryClient } from '@/lib/query-client'
import { json, makeUser, mockApi } from '@/testing/mock-api'
import { renderRoutes } from '@/testing/render-route'

import { CreateFromPdf } from './create-from-pdf'

const IMPORTED: ReportTemplate = {
  id: 't-pdf',
  name: 'Pillar 3 disclosure',
  description: 'Imported from pillar3.pdf',
  templateType: 'custom',
  sections: [
    { id: 's-1', title: '1 Introduction', kind: 'introduction', content: 'Text.', level: 1, pageStart: 2, pageEnd: 2 },
    {
      id: 's-2',
      title: '1.1 Scope',
      kind: 'content',
      content: 'Text.',
      level: 2,
      pageStart: 3,
      pageEnd: 4,
      blocks: [{ kind: 'table', caption: 'Table 1', columns: ['A', 'B'], rows: [['1', '2']] }],
    },
  ],
  branding: {
    primaryColor: '#004d99',
    secondaryColor: '#0ea5e9',
    backgroundColor: '#ffffff',
    fontFamily: 'SF Pro Display',
    headingFontFamily: 'SF Pro Display',
    fontScale: 1,
    orientation: 'portrait',
    subtitle: '',
  },
  isActive: true,
  createdAt: '2026-12-01T10:00:00Z',
  updatedAt: '2026-12-01T10:00:00Z',
}

function sse(events: unknown[]): Response {
  const text = events.map((e) => `event: ${(e as { type: string }).type}\ndata: ${JSON.stringify(e)}\n\n`).join('')
  return new Response(text, { status: 200, headers: { 'Content-Type': 'text/event-stream' } })
}

const step = (s: string, state: string, done = 1, total = 1) => ({ type: 'step', step: s, state, done, total })

function setup(answer: () => Response) {
  queryClient.clear()
  useAuthStore.setState({ status: 'authenticated', user: makeUser({ role: 'admin' }) })
  const calls = mockApi({ 'POST /api/admin/report-templates/import': answer })
  renderRoutes([{ path: '/admin/report-generator-templates/create-from-pdf', element: <CreateFromPdf /> }], '/admin/report-generator-templates/create-from-pdf')
  return calls
}

const pdf = () => new File(['%PDF-1.7 test'], 'pillar3.pdf', { type: 'application/pdf' })

describe('create template from PDF', () => {
  it('shows each step as the server reports it, then the sections found; Start Over resets', async () => {
    const calls = setup(() =>
      sse([
        step('upload', 'completed'),
        step('parse', 'processing', 2, 4),
        step('parse', 'completed', 4, 4),
        step('analyze', 'completed'),
        step('extract', 'completed', 2, 2),
        step('generate', 'completed'),
        { type: 'done', template: IMPORTED, summary: { method: 'outline', pages: 4, sections: 2, tables: 1, charts: 0, palette: ['#004d99'] } },
      ]),
    )
    const submit = screen.getByRole('button', { name: 'Process PDF' })
    expect(submit).toBeDisabled()
    await userEvent.upload(screen.getByLabelText('PDF file'), pdf())
    await userEvent.click(screen.getByRole('button', { name: 'Process PDF' }))

    const result = await screen.findByLabelText('Import result')
    expect(result).toHaveTextContent('2 sections from its outline · 4 pages · 1 tables · 0 charts')
    const found = within(result).getByRole('list', { name: 'Sections found' })
    expect(found).toHaveTextContent('1 Introduction')
    expect(found).toHaveTextContent(/1\.1 Scope.*3.*4 · 1 block/)
    expect(within(result).getByRole('link', { name: 'Edit Template' })).toHaveAttribute('href', '/admin/report-generator-templates/edit/t-pdf')
    for (const label of ['Upload', 'Parse', 'Analyze', 'Extract', 'Generate']) {
      expect(screen.getByRole('listitem', { name: `${label}: Completed` })).toBeInTheDocument()
    }
    expect(screen.getByRole('progressbar', { name: 'Import progress' })).toHaveAttribute('aria-valuenow', '100')
    expect(await screen.findByText('Template created successfully')).toBeInTheDocument()
    expect(calls).toHaveLength(1)
    expect(calls[0].headers.get('content-type')).toMatch(/^multipart\/form-data/)

    await userEvent.click(screen.getByRole('button', { name: 'Start Over' }))
    expect(screen.queryByLabelText('Import result')).not.toBeInTheDocument()
    expect(screen.getByRole('listitem', { name: 'Upload: Pending' })).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Process PDF' })).toBeDisabled()
  })

  it('marks the failed step and shows the server message', async () => {
    setup(() =>
      sse([
        step('upload', 'completed'),
        step('parse', 'completed', 3, 3),
        step('analyze', 'processing'),
        { type: 'failed', step: 'analyze', message: 'Too many sections found (max 100).' },
      ]),
    )
    await userEvent.upload(screen.getByLabelText('PDF file'), pdf())
    await userEvent.click(screen.getByRole('button', { name: 'Process PDF' }))
    expect(await screen.findByRole('listitem', { name: 'Analyze: Error' })).toBeInTheDocument()
    expect(screen.getByRole('listitem', { name: 'Extract: Pending' })).toBeInTheDocument()
    expect(screen.getAllByText('Too many sections found (max 100).').length).toBeGreaterThan(0)
  })

  it('refuses a file that is not a PDF before sending anything', async () => {
    const calls = setup(() => json(500, {}))
    await userEvent.upload(screen.getByLabelText('PDF file'), new File(['x'], 'notes.txt', { type: 'text/plain' }), { applyAccept: false })
    expect(await screen.findByText('Please upload a PDF file')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Process PDF' })).toBeDisabled()
    await waitFor(() => expect(calls).toHaveLength(0))
  })
})
