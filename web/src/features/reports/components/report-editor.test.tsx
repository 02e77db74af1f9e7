import type { ReportSummary } from '@/api/types/ReportSummary'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { createMemoryRouter, RouterProvider } from 'react-router'
import type { WebsocketProvider } from 'y-websocket'
import { Awareness } from 'y-protocols/awareness'
import * as Y from 'yjs'

import { Toaster } from '@/components/ui/toaster'
import { useAuthStore } from '@/lib/auth-store'
import { queryClient } from '@/lib/query-client'
import { toast } from '@/lib/toast'
import type { DocumentConnection } from '@/lib/collab-provider'
import { resetRealtime, setRealtimeTransport } from '@/lib/realtime-store'
import { FakeEventSocket as FakeSocket } from '@/testing/fake-event-socket'
import { json, makeUser, mockApi } from '@/testing/mock-api'

import { readSections } from '../utils/sections'
import { ReportEditorPage } from './report-editor'

// The collaborative document is a local Y.Doc here (the y-websocket side has its own tests); the
// report's metadata and its live events go through the real query cache and event socket store.
const fake = vi.hoisted(() => ({ connection: null as DocumentConnection | null, readOnly: false }))

vi.mock('../hooks/use-report-document', async () => {
  const { useEffect, useState } = await import('react')
  const sections = await import('../utils/sections')
  return {
    useReportDocument: () => {
      const doc = fake.connection!.doc
      const [list, setList] = useState(() => sections.readSections(doc))
      useEffect(() => {
        const map = doc.getMap(sections.SECTIONS_MAP)
        const refresh = () => setList(sections.readSections(doc))
        map.observeDeep(refresh)
        return () => map.unobserveDeep(refresh)
      }, [doc])
      return { connection: fake.connection, status: 'connected', synced: true, refused: null, readOnly: fake.readOnly, sections: list }
    },
  }
})

const TOPIC = 'client:c-1:reports'
const latestSocket = () => FakeSocket.latest()

const base: ReportSummary = {
  id: 'r-1',
  client_id: 'c-1',
  folder_id: null,
  name: 'Q3 Pillar 3 disclosure',
  status: 'draft',
  template_id: null,
  section_count: 1,
  created_by: 'u-1',
  last_edited_by: 'u-1',
  last_edited_by_name: 'Ana García',
  last_saved_at: null,
  created_at: '2026-11-01T10:00:00.000000Z',
  updated_at: '2026-11-02T10:00:00.000000Z',
}

/** The server's copy of the report; tests change it as colleague B would. */
const TEMPLATE = {
  id: 't-1',
  name: 'Pillar 3',
  description: '',
  templateType: 'basel_iii',
  sections: [
    { id: 's-1', title: 'Overview', kind: 'summary', content: '' },
    { id: 's-2', title: 'Capital', kind: 'capital', content: '' },
  ],
  isActive: true,
}

let server: ReportSummary
let patches: unknown[]

function colleagueSaves(change: Partial<ReportSummary>, at: string) {
  server = { ...server, ...change, updated_at: at }
}

function seededDoc(): Y.Doc {
  const doc = new Y.Doc()
  const entry = new Y.Map<unknown>()
  entry.set('title', 'Introduction')
  entry.set('order', 'a0')
  doc.getMap<Y.Map<unknown>>('sections').set('s-1', entry)
  const p = new Y.XmlElement('paragraph')
  p.insert(0, [new Y.XmlText('Opening words.')])
  doc.getXmlFragment('section:s-1').insert(0, [p])
  return doc
}

let gets = 0

beforeEach(() => {
  server = { ...base }
  patches = []
  gets = 0
  FakeSocket.all = []
  setRealtimeTransport(() => new FakeSocket(), async () => true)
  const doc = seededDoc()
  fake.readOnly = false
  fake.connection = { doc, provider: { awareness: new Awareness(doc) } as unknown as WebsocketProvider, destroy: () => {} }
  useAuthStore.setState({ status: 'authenticated', user: makeUser() })
  mockApi({
    'GET /api/reports/r-1': () => {
      gets++
      return json(200, { report: server, can_edit: true })
    },
    'PATCH /api/reports/r-1': ({ body: sent }) => {
      const body = sent as Partial<ReportSummary>
      patches.push(body)
      colleagueSaves(body, `2026-11-02T10:00:0${patches.length + 5}.000000Z`)
      return json(200, server)
    },
    // The save refetches the report lists too.
    'GET /api/reports': () => json(200, [server]),
    // The Data & Charts panel and the chart builders' sources.
    'GET /api/reports/r-1/media': () => json(200, []),
    'GET /api/reports/r-1/datasets': () => json(200, []),
    // The Version History panel.
    'GET /api/reports/r-1/versions': () => json(200, []),
    // The Structure panel's template list.
    'GET /api/report-templates': () => json(200, [TEMPLATE]),
  })
})

afterEach(() => {
  resetRealtime()
  vi.unstubAllGlobals()
})

function renderEditor(client = new QueryClient({ defaultOptions: { queries: { retry: false } } })) {
  // A data router, as in the app: leaving with unsaved changes is blocked through it.
  const router = createMemoryRouter(
    [
      { path: '/client/report-generator/edit/:reportId', element: <ReportEditorPage reportId="r-1" /> },
      { path: '/client/report-generator', element: <p>Documents page</p> },
    ],
    { initialEntries: ['/client/report-generator/edit/r-1'] },
  )
  render(
    <QueryClientProvider client={client}>
      <RouterProvider router={router} />
      <Toaster />
    </QueryClientProvider>,
  )
  return router
}

/** Opens the event socket and answers the subscription to the reports topic at `seq`. */
async function subscribed(seq: number) {
  await waitFor(() => expect(FakeSocket.all.length).toBeGreaterThan(0))
  const socket = latestSocket()
  socket.open()
  // The report's topic, with the savings and files topics its charts' client data follow.
  await waitFor(() => expect(socket.sent).toContainEqual({ op: 'subscribe', topics: expect.arrayContaining([TOPIC]) }))
  const before = gets
  socket.frame(TOPIC, seq, 'subscribed')
  // Subscribing refetches once, so nothing said before it is missed.
  await waitFor(() => expect(gets).toBe(before + 1))
  return socket
}

describe('ReportEditor live metadata', () => {
  it('follows a colleague’s rename and saves only the status changed here', async () => {
    renderEditor()
    const name = await screen.findByRole('textbox', { name: 'Report name' })
    expect(name).toHaveValue('Q3 Pillar 3 disclosure')
    const socket = await subscribed(5)
    const user = userEvent.setup()

    await user.selectOptions(screen.getByRole('combobox', { name: 'Status' }), 'published')
    expect(screen.getByText('Unsaved changes')).toBeInTheDocument()

    // Colleague B renames the report while it is open here.
    colleagueSaves({ name: 'Renamed by B' }, '2026-11-02T10:00:01.000000Z')
    socket.frame(TOPIC, 6, 'report.updated', { id: 'r-1' })
    await waitFor(() => expect(name).toHaveValue('Renamed by B'))
    expect(screen.getByRole('combobox', { name: 'Status' })).toHaveValue('published')
    expect(screen.getByText('Unsaved changes')).toBeInTheDocument()

    await user.click(screen.getByRole('button', { name: 'Save Changes' }))
    await screen.findByRole('button', { name: 'Saved' })
    expect(patches).toEqual([{ status: 'published' }])
    expect(name).toHaveValue('Renamed by B')
    expect(screen.getByRole('heading', { level: 1, name: 'Renamed by B' })).toBeInTheDocument()
  })

  it('keeps a name being edited here (still unsaved) when a colleague renames, and saves only it', async () => {
    renderEditor()
    const name = await screen.findByRole('textbox', { name: 'Report name' })
    const socket = await subscribed(5)
    const user = userEvent.setup()
    await user.clear(name)
    await user.type(name, 'My wording')

    colleagueSaves({ name: 'Renamed by B', status: 'published' }, '2026-11-02T10:00:01.000000Z')
    socket.frame(TOPIC, 6, 'report.updated', { id: 'r-1' })
    // The status (not edited here) follows; the name keeps the local value and stays unsaved.
    await waitFor(() => expect(screen.getByRole('combobox', { name: 'Status' })).toHaveValue('published'))
    expect(name).toHaveValue('My wording')
    expect(screen.getByText('Unsaved changes')).toBeInTheDocument()
    expect(screen.getByRole('heading', { level: 1, name: 'Renamed by B' })).toBeInTheDocument()

    await user.click(screen.getByRole('button', { name: 'Save Changes' }))
    await screen.findByRole('button', { name: 'Saved' })
    expect(patches).toEqual([{ name: 'My wording' }])
  })

  it('ignores events about other reports', async () => {
    renderEditor()
    await screen.findByRole('textbox', { name: 'Report name' })
    const socket = await subscribed(5)
    const before = gets
    socket.frame(TOPIC, 6, 'report.updated', { id: 'r-2' })
    socket.frame(TOPIC, 7, 'folder.created', { id: 'f-1' })
    await new Promise((r) => setTimeout(r, 50))
    expect(gets).toBe(before)
  })

  it('refetches after a sequence gap and after a reconnect', async () => {
    renderEditor()
    const name = await screen.findByRole('textbox', { name: 'Report name' })
    const socket = await subscribed(5)

    // Event 6 is lost; 7 reveals the gap.
    colleagueSaves({ name: 'After a gap' }, '2026-11-02T10:00:01.000000Z')
    socket.frame(TOPIC, 7, 'report.updated', { id: 'r-other' })
    await waitFor(() => expect(name).toHaveValue('After a gap'))

    // The socket drops; the change made meanwhile shows once it is back.
    socket.serverClose(1006)
    colleagueSaves({ name: 'While offline' }, '2026-11-02T10:00:02.000000Z')
    await waitFor(() => expect(FakeSocket.all.length).toBe(2), { timeout: 3000 })
    await subscribed(9)
    await waitFor(() => expect(name).toHaveValue('While offline'))
    expect(screen.queryByText('Unsaved changes')).not.toBeInTheDocument()
  })
})

describe('the header: logo and navigation', () => {
  it('uploads a logo to the report and shows it in the header for everyone; the navigation goes to the sections it names', async () => {
    const uploads: string[] = []
    mockApi({
      'POST /api/reports/r-1/media': async ({ request }) => {
        const form = await request.formData()
        uploads.push((form.get('file') as File).name)
        return json(201, { id: 'm-logo', reportId: 'r-1', name: 'bank.png', kind: 'image', fileType: 'png', contentType: 'image/png', sizeBytes: 10, url: '/api/reports/r-1/media/m-logo', sheet: null, headers: [], rowCount: 0, columnCount: 0, uploadedBy: 'u-1', uploadedByName: 'Ana', createdAt: '2026-11-02T10:00:00Z' })
      },
    })
    renderEditor()
    const nav = await screen.findByRole('navigation', { name: 'Report navigation' })
    expect(within(nav).getAllByRole('button').map((b) => b.textContent)).toEqual([
      'Overview',
      'Capital Requirements',
      'Credit Risk',
      'Market Risk',
      'Operational Risk',
      'Liquidity Coverage',
    ])
    // 'Introduction' is the overview; nothing yet about credit risk.
    expect(within(nav).getByRole('button', { name: 'Overview' })).toBeEnabled()
    expect(within(nav).getByRole('button', { name: 'Credit Risk' })).toBeDisabled()

    await userEvent.click(screen.getByRole('button', { name: 'Branding' }))
    const file = new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'bank.png', { type: 'image/png' })
    await userEvent.upload(screen.getByLabelText('Logo'), file)
    await waitFor(() => expect(uploads).toHaveLength(1))
    expect(await screen.findByText('Logo uploaded')).toBeInTheDocument()
    expect(fake.connection!.doc.getMap('branding').get('logoMediaId')).toBe('m-logo')
    expect(within(screen.getByTestId('report-header')).getByRole('img', { name: 'Logo' })).toHaveAttribute('src', '/api/reports/r-1/media/m-logo')

    await userEvent.click(screen.getByRole('button', { name: 'Remove logo' }))
    await waitFor(() => expect(within(screen.getByTestId('report-header')).queryByRole('img')).not.toBeInTheDocument())
  })
})

describe('the AI text assistant', () => {
  it('opens on a double-click, needs a prompt, and replaces the section for everyone with the server’s text', async () => {
    const sent: unknown[] = []
    mockApi({
      'POST /api/reports/r-1/sections/generate': ({ body }) => {
        sent.push(body)
        return json(200, { content: 'The proposed risk weights save EUR 900,000.00.\n\nTwo of three exposures were matched.', provider: 'builtin' })
      },
    })
    renderEditor()
    const section = await screen.findByRole('region', { name: 'Introduction' })
    await userEvent.dblClick(within(section).getByRole('heading', { name: 'Introduction' }))
    const dialog = await screen.findByRole('dialog', { name: 'AI Text Assistant' })
    expect(within(dialog).getByRole('combobox', { name: 'Section type' })).toHaveValue('introduction')
    const prompt = within(dialog).getByRole('textbox', { name: 'What should this section say?' })

    // Blank: refused here, nothing sent.
    await userEvent.type(prompt, '   {Enter}')
    expect(within(dialog).getByText('Please enter a prompt.')).toBeInTheDocument()
    expect(sent).toHaveLength(0)

    // Shift+Enter adds a line; Enter sends.
    await userEvent.clear(prompt)
    await userEvent.type(prompt, 'Summarise the savings{Shift>}{Enter}{/Shift}in two paragraphs{Enter}')
    await waitFor(() => expect(sent).toHaveLength(1))
    expect(sent[0]).toEqual({
      sectionTitle: 'Introduction',
      sectionType: 'introduction',
      content: 'Opening words.',
      prompt: 'Summarise the savings\nin two paragraphs',
    })
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'AI Text Assistant' })).not.toBeInTheDocument())
    const doc = fake.connection!.doc
    const paragraphs = doc.getXmlFragment('section:s-1').toArray().map((n) => (n as Y.XmlElement).toArray().map((t) => t.toString()).join(''))
    expect(paragraphs).toEqual(['The proposed risk weights save EUR 900,000.00.', 'Two of three exposures were matched.'])
    expect(readSections(doc)[0].aiGenerated).toBe(true)
    expect(await within(section).findByText('AI-generated')).toBeInTheDocument()
  })

  it('shows the spec’s toasts when nothing is written or the service fails, and leaves the section alone', async () => {
    let answer = () => json(422, { code: 'no_content', message: 'AI returned empty content. Please try rephrasing your request.' })
    mockApi({ 'POST /api/reports/r-1/sections/generate': () => answer() })
    renderEditor()
    const section = await screen.findByRole('region', { name: 'Introduction' })
    await userEvent.dblClick(within(section).getByRole('heading', { name: 'Introduction' }))
    const prompt = await screen.findByRole('textbox', { name: 'What should this section say?' })
    await userEvent.type(prompt, 'Write it{Enter}')
    expect(await screen.findByText('No Content Generated')).toBeInTheDocument()
    answer = () => json(422, { code: 'generation_failed', message: 'Unable to generate content: Bank A has no processed file with results yet.' })
    await userEvent.click(screen.getByRole('button', { name: 'Generate' }))
    expect(await screen.findByText('Generation Failed')).toBeInTheDocument()
    expect(screen.getByText('Unable to generate content: Bank A has no processed file with results yet.')).toBeInTheDocument()
    expect(readSections(fake.connection!.doc)[0].aiGenerated).toBe(false)
    await userEvent.keyboard('{Escape}')
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'AI Text Assistant' })).not.toBeInTheDocument())
  })
})

describe('ReportEditor structure panel and section rename', () => {
  it('imports a template’s sections, saying which version undoes it', async () => {
    const sent: unknown[] = []
    mockApi({
      'POST /api/reports/r-1/import-template': ({ body, query }) => {
        sent.push({ body, client: query.get('client_id') })
        return json(200, {
          version: { id: 'v-1', name: 'Before importing “Pillar 3”', kind: 'before_import', createdBy: 'u-1', createdByName: 'Ana', createdAt: '2026-11-02T10:00:00Z' },
          sections: 2,
        })
      },
    })
    renderEditor()
    const pick = await screen.findByRole('combobox', { name: 'Import from template' })
    const run = screen.getByRole('button', { name: 'Import Sections' })
    expect(run).toBeDisabled()
    await waitFor(() => expect(within(pick).getByRole('option', { name: 'Pillar 3 (2 sections)' })).toBeInTheDocument())
    await userEvent.selectOptions(pick, 't-1')
    await userEvent.click(run)
    expect(await screen.findByText('Imported 2 sections')).toBeInTheDocument()
    expect(screen.getByText(/saved first as the version Before importing “Pillar 3”: restore it/)).toBeInTheDocument()
    expect(sent).toEqual([{ body: { templateId: 't-1' }, client: 'c-1' }])
    expect(pick).toHaveValue('')
  })

  it('collapses and expands Structure', async () => {
    renderEditor()
    const toggle = await screen.findByRole('button', { name: 'Structure' })
    expect(toggle).toHaveAttribute('aria-expanded', 'true')
    expect(screen.getByRole('list', { name: 'Sections' })).toHaveTextContent('Introduction')
    expect(screen.getByRole('button', { name: 'Add Custom Section' })).toBeVisible()

    await userEvent.click(toggle)
    expect(toggle).toHaveAttribute('aria-expanded', 'false')
    expect(screen.queryByRole('list', { name: 'Sections' })).not.toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Add Custom Section' })).not.toBeInTheDocument()

    await userEvent.click(toggle)
    expect(toggle).toHaveAttribute('aria-expanded', 'true')
    expect(screen.getByRole('button', { name: 'Add Custom Section' })).toBeVisible()
  })

  it('renames a section from its Rename button by keyboard, not by double-clicking the heading', async () => {
    renderEditor()
    const section = await screen.findByRole('region', { name: 'Introduction' })
    const user = userEvent.setup()

    // A double-click opens the AI text assistant, not a rename.
    await user.dblClick(within(section).getByRole('heading', { name: 'Introduction' }))
    expect(await screen.findByRole('dialog', { name: 'AI Text Assistant' })).toBeInTheDocument()
    expect(screen.queryByRole('textbox', { name: 'Section title' })).not.toBeInTheDocument()
    await user.keyboard('{Escape}')
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'AI Text Assistant' })).not.toBeInTheDocument())

    const rename = within(section).getByRole('button', { name: 'Rename Introduction' })
    rename.focus()
    await user.keyboard('{Enter}')
    const field = screen.getByRole('textbox', { name: 'Section title' })
    expect(field).toHaveFocus()
    await user.clear(field)
    await user.type(field, 'Executive Summary{Enter}')
    expect(readSections(fake.connection!.doc).map((s) => s.title)).toEqual(['Executive Summary'])
    const renamed = await screen.findByRole('button', { name: 'Rename Executive Summary' })
    await waitFor(() => expect(renamed).toHaveFocus())

    // Escape cancels.
    await user.keyboard('{Enter}')
    await user.type(screen.getByRole('textbox', { name: 'Section title' }), ' draft{Escape}')
    expect(readSections(fake.connection!.doc).map((s) => s.title)).toEqual(['Executive Summary'])
  })
})

describe('an editor the server stops accepting', () => {
  it('turns read-only and says why', async () => {
    fake.readOnly = true
    renderEditor()
    await screen.findByText(/you can read it but no longer edit it/)
    expect(screen.queryByLabelText('Report name')).toBeNull()
    expect(screen.queryByRole('button', { name: /Save Changes|Saved/ })).toBeNull()
    expect(screen.getByText('Read-only')).toBeInTheDocument()
  })
})

describe('ReportEditor rename and leaving', () => {
  it('saves a rename confirmed with Enter', async () => {
    renderEditor()
    const name = await screen.findByRole('textbox', { name: 'Report name' })
    const user = userEvent.setup()
    await user.clear(name)
    await user.type(name, 'Q3 final{Enter}')
    await screen.findByRole('button', { name: 'Saved' })
    expect(patches).toEqual([{ name: 'Q3 final' }])
    expect(screen.getByRole('heading', { level: 1, name: 'Q3 final' })).toBeInTheDocument()
  })

  it('saves a rename when the field is left, once even when Save is clicked at the same time', async () => {
    renderEditor()
    const name = await screen.findByRole('textbox', { name: 'Report name' })
    const user = userEvent.setup()
    await user.clear(name)
    await user.type(name, 'Q3 left')
    await user.click(screen.getByRole('button', { name: 'Save Changes' }))
    await screen.findByRole('button', { name: 'Saved' })
    expect(patches).toEqual([{ name: 'Q3 left' }])
  })

  it('asks before leaving with an unsaved status, and stays or leaves as told', async () => {
    const router = renderEditor()
    await screen.findByRole('textbox', { name: 'Report name' })
    const user = userEvent.setup()
    await user.selectOptions(screen.getByRole('combobox', { name: 'Status' }), 'published')

    await user.click(screen.getByRole('link', { name: 'Back to Documents' }))
    const dialog = await screen.findByRole('dialog', { name: 'Unsaved changes' })
    await user.click(within(dialog).getByRole('button', { name: 'Stay' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    expect(router.state.location.pathname).toBe('/client/report-generator/edit/r-1')
    expect(screen.getByRole('combobox', { name: 'Status' })).toHaveValue('published')

    await user.click(screen.getByRole('link', { name: 'Back to Documents' }))
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Leave without saving' }))
    expect(await screen.findByText('Documents page')).toBeInTheDocument()
    expect(patches).toEqual([])
  })

  it('saves and leaves when asked to', async () => {
    renderEditor()
    await screen.findByRole('textbox', { name: 'Report name' })
    const user = userEvent.setup()
    await user.selectOptions(screen.getByRole('combobox', { name: 'Status' }), 'published')
    await user.click(screen.getByRole('link', { name: 'Back to Documents' }))
    await user.click(within(await screen.findByRole('dialog')).getByRole('button', { name: 'Save and leave' }))
    expect(await screen.findByText('Documents page')).toBeInTheDocument()
    expect(patches).toEqual([{ status: 'published' }])
  })

  it('leaves without asking when nothing is unsaved, back to the report’s folder', async () => {
    server = { ...base, folder_id: 'f-9' }
    const router = renderEditor()
    const back = await screen.findByRole('link', { name: 'Back to Documents' })
    expect(back).toHaveAttribute('href', '/client/report-generator?folder=f-9')
    await userEvent.click(back)
    expect(await screen.findByText('Documents page')).toBeInTheDocument()
    expect(router.state.location.search).toBe('?folder=f-9')
  })
})

describe('ReportEditor section deletion', () => {
  // The toast's swipe handling captures the pointer, which jsdom lacks.
  beforeAll(() => {
    Element.prototype.setPointerCapture ??= () => {}
  })

  it('asks first, then deletes for everyone and offers Undo', async () => {
    renderEditor()
    const section = await screen.findByRole('region', { name: 'Introduction' })
    const user = userEvent.setup()
    const doc = fake.connection!.doc

    await user.click(within(section).getByRole('button', { name: 'Delete Introduction' }))
    const dialog = await screen.findByRole('dialog', { name: 'Delete section' })
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    expect(readSections(doc).map((s) => s.title)).toEqual(['Introduction'])

    await user.click(within(section).getByRole('button', { name: 'Delete Introduction' }))
    await user.click(within(await screen.findByRole('dialog', { name: 'Delete section' })).getByRole('button', { name: 'Delete' }))
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Introduction' })).not.toBeInTheDocument())
    expect(readSections(doc)).toEqual([])

    await user.click(await screen.findByRole('button', { name: 'Undo' }))
    expect(await screen.findByRole('region', { name: 'Introduction' })).toBeInTheDocument()
    expect(readSections(doc).map((s) => s.title)).toEqual(['Introduction'])
    expect(doc.getXmlFragment('section:s-1').toString()).toContain('Opening words.')
  })
})

describe('a section deleted by a colleague', () => {
  afterEach(() => vi.restoreAllMocks())

  it('says so instead of letting it vanish', async () => {
    renderEditor()
    await screen.findByRole('region', { name: 'Introduction' })
    const doc = fake.connection!.doc
    // The colleague's copy deletes it; the update arrives from the server.
    const colleague = new Y.Doc()
    Y.applyUpdate(colleague, Y.encodeStateAsUpdate(doc))
    colleague.getMap('sections').delete('s-1')
    Y.applyUpdate(doc, Y.encodeStateAsUpdate(colleague))
    expect(await screen.findByText('Section deleted by a colleague')).toBeInTheDocument()
    expect(screen.getByText('"Introduction" was deleted by someone editing this report.')).toBeInTheDocument()
  })

  it('says nothing for a deletion made here', async () => {
    const info = vi.spyOn(toast, 'info')
    renderEditor()
    const section = await screen.findByRole('region', { name: 'Introduction' })
    await userEvent.click(within(section).getByRole('button', { name: 'Delete Introduction' }))
    await userEvent.click(within(await screen.findByRole('dialog', { name: 'Delete section' })).getByRole('button', { name: 'Delete' }))
    expect(await screen.findByText('Section deleted')).toBeInTheDocument()
    expect(info).not.toHaveBeenCalled()
  })
})

describe('a demotion while the report is open', () => {
  afterEach(() => queryClient.clear())

  it('turns the editor read-only on the session event', async () => {
    // The app's own query cache, which the session event refreshes.
    queryClient.setDefaultOptions({ queries: { retry: false } })
    renderEditor(queryClient)
    expect(await screen.findByRole('textbox', { name: 'Report name' })).toBeInTheDocument()
    const socket = await subscribed(5)
    // An administrator made Ana a viewer: the server now says so.
    mockApi({
      'GET /api/auth/me': () => json(200, makeUser({ role: 'viewer' })),
      'GET /api/reports/r-1': () => json(200, { report: server, can_edit: false }),
    })
    socket.frame('', 0, 'session.changed')
    await waitFor(() => expect(screen.queryByRole('textbox', { name: 'Report name' })).not.toBeInTheDocument())
    expect(screen.getByText('Read-only')).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Delete Introduction' })).not.toBeInTheDocument()
    // A viewer's double-click opens no AI text assistant.
    await userEvent.dblClick(screen.getByRole('heading', { name: 'Introduction' }))
    expect(screen.queryByRole('dialog', { name: 'AI Text Assistant' })).not.toBeInTheDocument()
    expect(useAuthStore.getState().user?.role).toBe('viewer')
  })
})
