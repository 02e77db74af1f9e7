import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { useParams } from 'react-router'

import type { ReportTemplate } from '../api'
import { useAuthStore } from '@/lib/auth-store'
import { queryClient } from '@/lib/query-client'
import { resetRealtime, setRealtimeTransport } from '@/lib/realtime-store'
import { FakeEventSocket } from '@/testing/fake-event-socket'
import { json, makeUser, mockApi } from '@/testing/mock-api'
import { renderRoutes } from '@/testing/render-route'

import { CreateTemplate } from './create-template'
import { TemplateEditor } from './template-editor'
import { TemplatePreview } from './template-preview'
import { TemplatesList } from './templates-list'

const BRANDING = {
  primaryColor: '#1e3a8a',
  secondaryColor: '#0ea5e9',
  backgroundColor: '#ffffff',
  fontFamily: 'SF Pro Display',
  headingFontFamily: 'SF Pro Display',
  fontScale: 1,
  orientation: 'portrait',
  subtitle: '',
}

function template(id: string, name: string, overrides: Partial<ReportTemplate> = {}): ReportTemplate {
  return {
    id,
    name,
    description: 'Annual disclosure',
    templateType: 'basel_iii',
    sections: [
      { id: `${id}-1`, title: 'Executive Summary', kind: 'summary', content: 'First paragraph.\n\nSecond paragraph.' },
      { id: `${id}-2`, title: 'Capital Adequacy', kind: 'capital', content: '' },
    ],
    branding: { ...BRANDING },
    isActive: true,
    createdAt: '2026-11-01T10:00:00Z',
    updatedAt: '2026-11-20T10:00:00Z',
    ...overrides,
  }
}

beforeEach(() => queryClient.clear())
afterEach(() => resetRealtime())

function setup(initial: ReportTemplate[], route: string) {
  FakeEventSocket.all = []
  setRealtimeTransport(() => new FakeEventSocket(), async () => true)
  useAuthStore.setState({ status: 'authenticated', user: makeUser({ role: 'admin' }) })
  let rows = initial
  const calls = mockApi({
    'GET /api/admin/report-templates': () => json(200, rows),
    'GET /api/admin/report-templates/:id': ({ params }) => {
      const t = rows.find((r) => r.id === params.id)
      return t ? json(200, t) : json(404, { code: 'not_found', message: 'Template Not Found' })
    },
    'POST /api/admin/report-templates': ({ body }) => {
      const b = body as { name: string; templateType: string; description: string }
      const t = template('t-new', b.name, { templateType: b.templateType, description: b.description })
      rows = [...rows, t]
      return json(201, t)
    },
    'PUT /api/admin/report-templates/:id': ({ params, body }) => {
      const b = body as Partial<ReportTemplate>
      if (b.branding?.primaryColor === '#000000') return json(422, { code: 'validation_failed', message: 'Primary colour must be a colour like #1e3a8a.' })
      rows = rows.map((r) => (r.id === params.id ? { ...r, ...b, sections: (b.sections ?? r.sections).map((s, i) => ({ ...s, id: s.id || `gen-${i}` })) } : r))
      return json(200, rows.find((r) => r.id === params.id))
    },
    'DELETE /api/admin/report-templates/:id': ({ params }) => {
      rows = rows.filter((r) => r.id !== params.id)
      return new Response(null, { status: 204 })
    },
  })
  renderRoutes(
    [
      { path: '/admin/report-generator-templates', element: <TemplatesList /> },
      { path: '/admin/report-generator-templates/create', element: <CreateTemplate /> },
      { path: '/admin/report-generator-templates/edit/:templateId', element: <EditRoute /> },
      { path: '/admin/report-generator-templates/preview/:templateId', element: <PreviewRoute /> },
    ],
    route,
  )
  return { calls, rows: () => rows, setRows: (r: ReportTemplate[]) => (rows = r) }
}

function EditRoute() {
  const { templateId = '' } = useParams()
  return <TemplateEditor key={templateId} templateId={templateId} />
}
function PreviewRoute() {
  const { templateId = '' } = useParams()
  return <TemplatePreview templateId={templateId} />
}

describe('report templates', () => {
  it('lists cards with type, inactive badge, sections, font and orientation; deletes after confirmation; follows other administrators', async () => {
    const { calls, setRows, rows } = setup(
      [template('t-1', 'Basel III Pillar 3'), template('t-2', 'EBA disclosures', { templateType: 'eba', isActive: false, branding: { ...BRANDING, orientation: 'landscape', fontFamily: 'Georgia' } })],
      '/admin/report-generator-templates',
    )
    const card = await screen.findByRole('article', { name: 'Basel III Pillar 3' })
    expect(within(card).getByText('Basel III Standard')).toBeInTheDocument()
    expect(within(card).queryByText('Inactive')).not.toBeInTheDocument()
    expect(within(card).getByRole('list', { name: 'Sections of Basel III Pillar 3' })).toHaveTextContent('Executive SummaryCapital Adequacy')
    expect(within(card).getByText(/2 sections/)).toBeInTheDocument()
    const eba = screen.getByRole('article', { name: 'EBA disclosures' })
    expect(within(eba).getByText('EBA Template Report')).toBeInTheDocument()
    expect(within(eba).getByText('Inactive')).toBeInTheDocument()
    expect(within(eba).getByText('Georgia · Landscape')).toBeInTheDocument()

    await userEvent.click(within(eba).getByRole('button', { name: 'Delete EBA disclosures' }))
    const dialog = screen.getByRole('dialog', { name: 'Delete template' })
    expect(dialog).toHaveTextContent('Are you sure you want to delete "EBA disclosures"? This action cannot be undone.')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Delete' }))
    expect(await screen.findByText('Template deleted successfully')).toBeInTheDocument()
    await waitFor(() => expect(screen.queryByRole('article', { name: 'EBA disclosures' })).not.toBeInTheDocument())
    expect(calls.some((c) => c.key.startsWith('DELETE') && c.url === '/api/admin/report-templates/t-2')).toBe(true)
    expect(rows()).toHaveLength(1)

    // Another administrator deletes the last one: the empty state follows.
    const socket = FakeEventSocket.latest()
    act(() => socket.open())
    await waitFor(() => expect(socket.sent.flatMap((m) => m.topics ?? [])).toContain('admin:templates'))
    act(() => socket.frame('admin:templates', 0, 'subscribed'))
    setRows([])
    act(() => socket.frame('admin:templates', 1, 'templates.changed', { templateId: 't-1' }))
    expect(await screen.findByText('No Templates Found')).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Create Your First Template' })).toHaveAttribute('href', '/admin/report-generator-templates/create')
  })

  it('creates a template: name and type required with the spec messages, then opens the editor', async () => {
    const { calls } = setup([], '/admin/report-generator-templates/create')
    await userEvent.click(await screen.findByRole('button', { name: 'Create Template' }))
    // Under the fields, and the first one in the toast.
    expect(screen.getAllByRole('alert').map((a) => a.textContent)).toEqual(expect.arrayContaining(['Template name is required', 'Template type is required']))
    expect(await screen.findByText('Validation Error')).toBeInTheDocument()
    expect(calls.filter((c) => c.key.startsWith('POST'))).toHaveLength(0)
    await userEvent.type(screen.getByLabelText('Template Name'), 'Pillar 3 FY')
    await userEvent.selectOptions(screen.getByLabelText('Template Type'), 'eba')
    await userEvent.click(screen.getByRole('button', { name: 'Create Template' }))
    expect(await screen.findByRole('heading', { name: 'Edit Template' })).toBeInTheDocument()
    expect(calls.find((c) => c.key.startsWith('POST'))?.body).toEqual({ name: 'Pillar 3 FY', description: '', templateType: 'eba' })
  })

  it('edits sections and branding in tabs and saves them together; the type stays', async () => {
    const { calls } = setup([template('t-1', 'Basel III Pillar 3')], '/admin/report-generator-templates/edit/t-1')
    expect(await screen.findByRole('heading', { name: 'Edit Template' })).toBeInTheDocument()
    expect(screen.getByLabelText('Template Type')).toHaveValue('Basel III Standard')
    expect(screen.getByLabelText('Template Type')).toBeDisabled()
    await userEvent.click(screen.getByRole('tab', { name: 'Sections (2)' }))
    await userEvent.click(screen.getByRole('button', { name: 'Add Section' }))
    expect(screen.getByRole('tab', { name: 'Sections (3)' })).toBeInTheDocument()
    expect(screen.getByLabelText('Section 3 title')).toHaveValue('New Section 3')
    await userEvent.click(screen.getByRole('button', { name: 'Move section 3 up' }))
    expect(screen.getByLabelText('Section 2 title')).toHaveValue('New Section 3')
    await userEvent.clear(screen.getByLabelText('Section 2 title'))
    await userEvent.click(screen.getByRole('button', { name: 'Save Template' }))
    expect(await screen.findByText('Section 2 needs a title.')).toBeInTheDocument()
    await userEvent.type(screen.getByLabelText('Section 2 title'), 'Credit Risk')
    await userEvent.type(screen.getByLabelText('Section 2 starting text'), 'Standardised approach.')
    await userEvent.click(screen.getByRole('tab', { name: 'Branding' }))
    await userEvent.selectOptions(screen.getByLabelText('PDF Orientation'), 'landscape')
    await userEvent.selectOptions(screen.getByLabelText('Body Font'), 'Georgia')
    await userEvent.click(screen.getByRole('button', { name: 'Save Template' }))
    expect(await screen.findByText('Template saved')).toBeInTheDocument()
    const put = calls.find((c) => c.key.startsWith('PUT'))?.body as ReportTemplate
    expect(put.sections.map((s) => s.title)).toEqual(['Executive Summary', 'Credit Risk', 'Capital Adequacy'])
    expect(put.sections[1]).toMatchObject({ kind: 'content', content: 'Standardised approach.' })
    expect(put.branding).toMatchObject({ orientation: 'landscape', fontFamily: 'Georgia' })
    expect(put).not.toHaveProperty('templateType')

    // Not a colour: refused here. Three digits are expanded.
    await userEvent.clear(screen.getByLabelText('Secondary Color'))
    await userEvent.type(screen.getByLabelText('Secondary Color'), 'teal')
    await userEvent.click(screen.getByRole('button', { name: 'Save Template' }))
    expect(await screen.findByText('Colours are hex values like #1e3a8a.')).toBeInTheDocument()
    await userEvent.clear(screen.getByLabelText('Secondary Color'))
    await userEvent.type(screen.getByLabelText('Secondary Color'), 'f0a')

    // A refusal by the server keeps the draft and says why.
    await userEvent.clear(screen.getByLabelText('Primary Color'))
    await userEvent.type(screen.getByLabelText('Primary Color'), '#000000')
    await userEvent.click(screen.getByRole('button', { name: 'Save Template' }))
    expect(await screen.findByText('Save failed')).toBeInTheDocument()
    expect(screen.getByLabelText('Primary Color')).toHaveValue('#000000')
    expect((calls.filter((c) => c.key.startsWith('PUT')).at(-1)?.body as ReportTemplate).branding.secondaryColor).toBe('#ff00aa')
  })

  it('shows Template Not Found for an unknown id, and previews a template with its sections and paragraphs', async () => {
    setup([template('t-1', 'Basel III Pillar 3', { branding: { ...BRANDING, subtitle: 'FY 2026' } })], '/admin/report-generator-templates/edit/nope')
    expect(await screen.findByText('Template Not Found')).toBeInTheDocument()
  })

  it('previews a template as the document a report starts as', async () => {
    setup([template('t-1', 'Basel III Pillar 3', { branding: { ...BRANDING, subtitle: 'FY 2026', orientation: 'landscape' } })], '/admin/report-generator-templates/preview/t-1')
    const doc = await screen.findByRole('article', { name: 'Preview of Basel III Pillar 3' })
    expect(doc).toHaveAttribute('data-orientation', 'landscape')
    expect(within(doc).getByText('FY 2026')).toBeInTheDocument()
    const summary = within(doc).getByRole('region', { name: 'Executive Summary' })
    expect(within(summary).getByText('First paragraph.')).toBeInTheDocument()
    expect(within(summary).getByText('Second paragraph.')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Export Preview' })).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Edit Template' })).toHaveAttribute('href', '/admin/report-generator-templates/edit/t-1')
  })
})
