import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import type { KnowledgeDocument, KnowledgeHit, KnowledgeStats } from '../api'
import { useAuthStore } from '@/lib/auth-store'
import { queryClient } from '@/lib/query-client'
import { resetRealtime, setRealtimeTransport } from '@/lib/realtime-store'
import { FakeEventSocket } from '@/testing/fake-event-socket'
import { json, makeUser, mockApi, noContent } from '@/testing/mock-api'
import { renderRoutes } from '@/testing/render-route'

import { DOC_REFUSED, SELECT_FILES, TOO_BIG } from '../utils/files'
import { KnowledgeBase } from './knowledge-base'

function doc(id: string, name: string, overrides: Partial<KnowledgeDocument> = {}): KnowledgeDocument {
  return {
    id,
    name,
    fileType: name.split('.').pop() ?? 'txt',
    sizeBytes: 2048,
    category: 'Assets',
    leverId: null,
    status: 'completed',
    stage: 'done',
    progress: 100,
    error: null,
    pages: 12,
    chunkCount: 30,
    uploadedBy: 'u-admin',
    createdAt: '2026-03-05T10:00:00Z',
    updatedAt: '2026-03-05T10:01:00Z',
    completedAt: '2026-03-05T10:01:00Z',
    chunkWords: 200,
    ...overrides,
  }
}

const STATS: KnowledgeStats = {
  totalDocuments: 6,
  totalChunks: 12345,
  totalUploads: 8,
  processing: 1,
  failed: 1,
  categories: 4,
  byCategory: [{ category: 'Assets', documents: 6 }],
  totalRules: 17,
}

/**
 * A file of the given name whose size is `size` bytes (without allocating them). Node's File, so
 * that the FormData of the test environment (undici's) sends its name and bytes.
 */
function file(name: string, size = 64, text = 'Article 114 Exposures to central governments'): File {
  const f = new NodeFile([text], name, { type: 'text/plain' })
  if (size !== text.length) Object.defineProperty(f, 'size', { value: size })
  return f
}

// jsdom's FormData takes only jsdom's Files, which the test environment's fetch (undici) sends
// without their name or bytes; uploads here use Node's FormData and File, as a browser's are one.
let NodeFormData: typeof FormData
let NodeFile: typeof File
beforeAll(async () => {
  const form = await new Response(new URLSearchParams('a=1')).formData()
  NodeFormData = form.constructor as typeof FormData
  // The test runs in Node; this file's type-check knows only the browser's globals.
  const node = globalThis as unknown as { process: { getBuiltinModule: (id: string) => { File: typeof File } } }
  NodeFile = node.process.getBuiltinModule('node:buffer').File
})
beforeEach(() => {
  queryClient.clear()
  vi.stubGlobal('FormData', NodeFormData)
})
afterEach(() => {
  resetRealtime()
  vi.unstubAllGlobals()
})

function setup(initial?: KnowledgeDocument[]) {
  FakeEventSocket.all = []
  setRealtimeTransport(() => new FakeEventSocket(), async () => true)
  useAuthStore.setState({ status: 'authenticated', user: makeUser({ role: 'admin' }) })
  let rows: KnowledgeDocument[] = initial ?? [
    doc('d-1', 'CRR consolidated.pdf', { status: 'processing', stage: 'extracting', progress: 40, pages: null, chunkCount: 0, completedAt: null }),
    doc('d-2', 'Scanned.pdf', { status: 'failed', stage: 'extracting', error: 'PDF extraction failed: the document has no text layer.', pages: null, chunkCount: 0 }),
    doc('d-3', 'EBA guidelines.docx', { pages: 4, chunkCount: 9 }),
    doc('d-4', 'PSE list.txt', { pages: null, chunkCount: 2 }),
    doc('d-5', 'MDB list.txt'),
    doc('d-6', 'Sixth and oldest.txt'),
  ]
  let stats = STATS
  const hits: KnowledgeHit[] = [
    {
      documentId: 'd-3',
      documentName: 'EBA guidelines.docx',
      chunkId: 'c-1',
      heading: 'Title II > Chapter 2',
      pageFrom: 3,
      pageTo: 4,
      article: 'Article 114, Article 116(2)',
      snippet: 'Exposures <script>alert(1)</script> to <mark>central</mark> <b>governments</b> under <mark>Article</mark> 114',
      rank: 1.5,
    },
  ]
  const calls = mockApi({
    'GET /api/admin/knowledge/documents': () => json(200, rows),
    'GET /api/admin/knowledge/stats': () => json(200, stats),
    'GET /api/admin/knowledge/search': ({ query }) => json(200, query.get('q') === 'nothing' ? [] : hits),
    'POST /api/admin/knowledge/documents': async ({ request }) => {
      const form = await request.formData()
      const f = form.get('files') as File
      if (f.name === 'binary.txt') return json(422, { code: 'unsupported_file_type', message: 'Unsupported file type: binary.txt is not a TXT file.' })
      const added = doc(`d-new-${f.name}`, f.name, {
        category: String(form.get('category')),
        status: 'processing',
        stage: 'queued',
        progress: 0,
        pages: null,
        chunkCount: 0,
        completedAt: null,
      })
      rows = [added, ...rows]
      return json(201, [added])
    },
    'DELETE /api/admin/knowledge/documents/:id': ({ params }) => {
      rows = rows.filter((r) => r.id !== params.id)
      return noContent()
    },
  })
  renderRoutes([{ path: '/admin/knowledge-base', element: <KnowledgeBase /> }], '/admin/knowledge-base')
  return {
    calls,
    setRows: (r: KnowledgeDocument[]) => (rows = r),
    setStats: (s: KnowledgeStats) => (stats = s),
    reads: () => calls.filter((c) => c.key === 'GET /api/admin/knowledge/documents').length,
  }
}

const stat = (label: string) => within(screen.getByRole('group', { name: label })).getByTestId('kb-stat-value')

describe('KnowledgeBase', () => {
  it('shows the stat cards from the server and the last 5 uploads with their statuses', async () => {
    setup()
    expect(screen.getByRole('heading', { name: 'AI Knowledge Base Management' })).toBeInTheDocument()
    await waitFor(() => expect(stat('Total Documents')).toHaveTextContent('6'))
    expect(stat('Total Uploads')).toHaveTextContent('8')
    expect(stat('Categories')).toHaveTextContent('4')
    expect(stat('Total Rules')).toHaveTextContent('17')
    expect(screen.getByText('12.345 chunks indexed')).toBeInTheDocument()

    const recent = await screen.findByRole('list', { name: 'Recent uploads' })
    expect(within(recent).getAllByTestId('kb-document')).toHaveLength(5)
    expect(within(recent).queryByText('Sixth and oldest.txt')).not.toBeInTheDocument()
    const processing = within(recent).getByRole('listitem', { name: 'CRR consolidated.pdf' })
    expect(within(processing).getByTestId('kb-status')).toHaveTextContent('processing')
    expect(within(processing).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '40')
    expect(within(processing).getByText('Extracting text · 40%')).toBeInTheDocument()
    const failed = within(recent).getByRole('listitem', { name: 'Scanned.pdf' })
    expect(within(failed).getByTestId('kb-status')).toHaveTextContent('failed')
    expect(within(failed).getByText('PDF extraction failed: the document has no text layer.')).toBeInTheDocument()
    const completed = within(recent).getByRole('listitem', { name: 'EBA guidelines.docx' })
    expect(within(completed).getByTestId('kb-status')).toHaveTextContent('completed')
    expect(within(completed).getByText('4 pages · 9 chunks indexed')).toBeInTheDocument()

    await userEvent.click(screen.getByRole('button', { name: 'Show all 6' }))
    expect(within(recent).getByText('Sixth and oldest.txt')).toBeInTheDocument()
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual(['Overview', 'Single lever doc upload', 'Bulk lever doc upload', 'Rules', 'Settings'])
    // Only completed documents offer an extraction.
    expect(within(completed).getByRole('button', { name: 'Extract levers from EBA guidelines.docx' })).toBeInTheDocument()
    expect(within(failed).queryByRole('button', { name: /Extract levers/ })).not.toBeInTheDocument()
    expect(within(processing).queryByRole('button', { name: /Extract levers/ })).not.toBeInTheDocument()
  })

  it('refuses a .doc and an oversized file before sending, then uploads a document that shows its live status', async () => {
    const { calls } = setup([])
    await screen.findByText('No documents uploaded yet.')
    await userEvent.click(screen.getByRole('tab', { name: 'Single lever doc upload' }))
    const input = await screen.findByTestId('kb-single-input')
    await userEvent.upload(input, file('old.doc'), { applyAccept: false })
    expect(await screen.findByText(DOC_REFUSED)).toBeInTheDocument()
    await userEvent.upload(input, file('huge.pdf', 25 * 1024 * 1024 + 1), { applyAccept: false })
    expect(await screen.findByText(TOO_BIG)).toBeInTheDocument()
    await userEvent.upload(input, file('notes.xlsx'), { applyAccept: false })
    expect(await screen.findByText(/only PDF, DOCX and TXT documents/)).toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: 'Upload' }))
    expect(await screen.findByText(SELECT_FILES)).toBeInTheDocument()
    expect(calls.some((c) => c.key === 'POST /api/admin/knowledge/documents')).toBe(false)

    await userEvent.upload(input, file('CRR Article 114.txt'))
    expect(within(screen.getByRole('list', { name: 'Files to upload' })).getByText('CRR Article 114.txt')).toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: 'Upload' }))
    expect(await screen.findByText(SELECT_FILES)).toBeInTheDocument()
    await userEvent.selectOptions(screen.getByLabelText('Lever category'), 'CRMT')
    await userEvent.click(screen.getByRole('button', { name: 'Upload' }))
    expect(await screen.findByText('Upload started')).toBeInTheDocument()
    const uploaded = await screen.findByRole('region', { name: 'Uploaded documents' })
    const row = within(uploaded).getByRole('listitem', { name: 'CRR Article 114.txt' })
    expect(within(row).getByTestId('kb-status')).toHaveTextContent('processing')
    expect(within(row).getByText(/^CRMT · TXT/)).toBeInTheDocument()
  })

  it('uploads several files in bulk, each with its own result', async () => {
    const { calls } = setup([])
    await screen.findByText('No documents uploaded yet.')
    await userEvent.click(screen.getByRole('tab', { name: 'Bulk lever doc upload' }))
    const input = await screen.findByTestId('kb-bulk-input')
    await userEvent.upload(input, [file('a.txt'), file('legacy.doc'), file('binary.txt')], { applyAccept: false })
    const queue = screen.getByRole('list', { name: 'Files to upload' })
    expect(within(queue).getAllByRole('listitem')).toHaveLength(3)
    expect(within(queue).getByText(DOC_REFUSED)).toBeInTheDocument()
    await userEvent.selectOptions(screen.getByLabelText('Lever category'), 'Assets')
    await userEvent.click(screen.getByRole('button', { name: 'Upload 2 files' }))
    const uploaded = await screen.findByRole('region', { name: 'Uploaded documents' })
    await waitFor(() => expect(within(uploaded).getAllByRole('listitem')).toHaveLength(2))
    expect(within(within(uploaded).getByRole('listitem', { name: 'a.txt' })).getByTestId('kb-status')).toHaveTextContent('processing')
    const refused = within(uploaded).getByRole('listitem', { name: 'binary.txt' })
    expect(within(refused).getByText('Unsupported file type: binary.txt is not a TXT file.')).toBeInTheDocument()
    expect(screen.getByText(/^1 error occurred: binary\.txt: Unsupported file type/)).toBeInTheDocument()
    // One request per file sent; the .doc never left the browser.
    expect(calls.filter((c) => c.key === 'POST /api/admin/knowledge/documents')).toHaveLength(2)
    expect(within(screen.getByRole('list', { name: 'Files to upload' })).getByText('legacy.doc')).toBeInTheDocument()
  })

  it("shows the server's refusal of a single upload, and Refresh reads everything again", async () => {
    const { calls } = setup([])
    await screen.findByText('No documents uploaded yet.')
    const count = (key: string) => calls.filter((c) => c.key === key).length
    const lists = count('GET /api/admin/knowledge/documents')
    const stats = count('GET /api/admin/knowledge/stats')
    await userEvent.click(screen.getByRole('button', { name: 'Refresh' }))
    await waitFor(() => expect(count('GET /api/admin/knowledge/documents')).toBeGreaterThan(lists))
    expect(count('GET /api/admin/knowledge/stats')).toBeGreaterThan(stats)

    await userEvent.click(screen.getByRole('tab', { name: 'Single lever doc upload' }))
    await userEvent.upload(await screen.findByTestId('kb-single-input'), file('binary.txt'))
    await userEvent.selectOptions(screen.getByLabelText('Lever category'), 'Other')
    await userEvent.click(screen.getByRole('button', { name: 'Upload' }))
    expect(await screen.findByText('Upload failed')).toBeInTheDocument()
    const message = 'Unsupported file type: binary.txt is not a TXT file.'
    const region = await screen.findByRole('region', { name: 'Uploaded documents' })
    const row = within(region).getByRole('listitem', { name: 'binary.txt' })
    expect(within(row).getByTestId('kb-status')).toHaveTextContent('failed')
    expect(within(row).getByText(message)).toBeInTheDocument()
    expect(screen.getAllByRole('alert').some((a) => a.textContent === message)).toBe(true)
  })

  it('searches and renders highlighted hits as text, never as markup', async () => {
    const { calls } = setup()
    await screen.findByRole('list', { name: 'Recent uploads' })
    await userEvent.type(screen.getByRole('textbox', { name: 'Search the knowledge base' }), 'central article')
    await userEvent.click(screen.getByRole('button', { name: 'Search' }))
    const hit = await screen.findByTestId('kb-hit')
    expect(calls.find((c) => c.key === 'GET /api/admin/knowledge/search')!.url).toBe('/api/admin/knowledge/search?q=central%20article&limit=10')
    expect(within(hit).getByText('EBA guidelines.docx')).toBeInTheDocument()
    expect(within(hit).getByText('Title II > Chapter 2 · Article 114, Article 116(2) · Pages 3–4')).toBeInTheDocument()
    const snippet = within(hit).getByTestId('kb-snippet')
    expect(snippet.textContent).toBe('Exposures <script>alert(1)</script> to central <b>governments</b> under Article 114')
    expect(snippet.querySelector('script')).toBeNull()
    expect(snippet.querySelector('b')).toBeNull()
    expect(Array.from(snippet.querySelectorAll('mark')).map((m) => m.textContent)).toEqual(['central', 'Article'])
    await userEvent.clear(screen.getByRole('textbox', { name: 'Search the knowledge base' }))
    await userEvent.type(screen.getByRole('textbox', { name: 'Search the knowledge base' }), 'nothing')
    await userEvent.click(screen.getByRole('button', { name: 'Search' }))
    expect(await screen.findByText('No results found for “nothing”.')).toBeInTheDocument()
  })

  it('deletes a document after confirmation', async () => {
    const { calls } = setup()
    const recent = await screen.findByRole('list', { name: 'Recent uploads' })
    await userEvent.click(within(recent).getByRole('button', { name: 'Delete PSE list.txt' }))
    const confirm = await screen.findByRole('dialog', { name: 'Delete document' })
    await userEvent.click(within(confirm).getByRole('button', { name: 'Cancel' }))
    expect(calls.some((c) => c.key.startsWith('DELETE'))).toBe(false)
    await userEvent.click(within(recent).getByRole('button', { name: 'Delete PSE list.txt' }))
    await userEvent.click(within(await screen.findByRole('dialog', { name: 'Delete document' })).getByRole('button', { name: 'Delete' }))
    expect(await screen.findByText('Document deleted')).toBeInTheDocument()
    expect(calls.find((c) => c.key.startsWith('DELETE'))!.url).toBe('/api/admin/knowledge/documents/d-4')
    await waitFor(() => expect(within(recent).queryByText('PSE list.txt')).not.toBeInTheDocument())
  })

  it('refetches on knowledge.changed, and polls the list only while a document is processing', async () => {
    const done = [doc('d-3', 'EBA guidelines.docx')]
    const { reads, setRows, setStats, calls } = setup(done)
    await screen.findByRole('list', { name: 'Recent uploads' })
    const socket = FakeEventSocket.latest()
    act(() => socket.open())
    await waitFor(() => expect(socket.sent.flatMap((m) => m.topics ?? [])).toContain('admin:knowledge'))
    act(() => socket.frame('admin:knowledge', 0, 'subscribed'))
    // Nothing processing: no polling.
    await new Promise((r) => setTimeout(r, 300))
    const idle = reads()
    await new Promise((r) => setTimeout(r, 1300))
    expect(reads()).toBe(idle)

    // Another administrator uploads: the event refetches the list and the figures.
    const statReads = () => calls.filter((c) => c.key === 'GET /api/admin/knowledge/stats').length
    const beforeStats = statReads()
    setRows([doc('d-9', 'New upload.pdf', { status: 'processing', stage: 'reading', progress: 10, pages: null, chunkCount: 0 }), ...done])
    setStats({ ...STATS, totalUploads: 9 })
    act(() => socket.frame('admin:knowledge', 1, 'knowledge.changed', { documentId: 'd-9' }))
    const row = await screen.findByRole('listitem', { name: 'New upload.pdf' })
    await waitFor(() => expect(stat('Total Uploads')).toHaveTextContent('9'))
    expect(statReads()).toBeGreaterThan(beforeStats)

    // Progress is not announced: the list is read again while it is processing.
    setRows([doc('d-9', 'New upload.pdf', { status: 'processing', stage: 'indexing', progress: 80, pages: null, chunkCount: 0 }), ...done])
    await waitFor(() => expect(within(row).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '80'), { timeout: 3000 })
    setRows([doc('d-9', 'New upload.pdf', { pages: 2, chunkCount: 3 }), ...done])
    await waitFor(() => expect(within(row).getByTestId('kb-status')).toHaveTextContent('completed'), { timeout: 3000 })
    const after = reads()
    await new Promise((r) => setTimeout(r, 1300))
    expect(reads()).toBe(after)
  }, 15_000)
})
