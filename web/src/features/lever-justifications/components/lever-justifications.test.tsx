import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import type { AdminRun, JustificationDefaults, JustificationMemo, JustificationTemplate } from '../api'
import { useAuthStore } from '@/lib/auth-store'
import { queryClient } from '@/lib/query-client'
import { resetRealtime, setRealtimeTransport } from '@/lib/realtime-store'
import { FakeEventSocket } from '@/testing/fake-event-socket'
import { json, makeUser, mockApi, noContent } from '@/testing/mock-api'
import { renderRoutes } from '@/testing/render-route'

import { PREVIEW_CHARS } from '../utils/templates'
import { LeverJustifications } from './lever-justifications'

const LONG_CONTENT = `AUDIT MEMO\nClient: {{ clientName }}\n${'The reclassification rests on CRR Article 116. '.repeat(8)}`

const DEFAULTS: JustificationDefaults = {
  name: 'Lever justification audit memo',
  category: 'regulatory',
  templateContent: 'AUDIT MEMO: LEVER JUSTIFICATION\nClient: {{ clientName }}\nLever: {{ leverName }}\n',
  placeholders: [
    { name: 'clientName', description: "The run's client" },
    { name: 'leverName', description: 'The lever analysed' },
  ],
}

const UNKNOWN_PLACEHOLDER =
  'Unknown placeholder on line 3. The placeholders are: date, timestamp, clientName, leverName, runId.'

function template(id: string, name: string, overrides: Partial<JustificationTemplate> = {}): JustificationTemplate {
  return {
    id,
    name,
    category: 'internal',
    templateContent: `Memo of {{ runId }} for {{ clientName }}`,
    isDefault: false,
    createdBy: 'Ada Admin',
    createdAt: '2026-01-05T10:00:00Z',
    updatedAt: '2026-02-05T10:00:00Z',
    ...overrides,
  }
}

function adminRun(id: string, clientName: string, fileName: string, finishedAt: string): AdminRun {
  return {
    clientName,
    fileName,
    leverName: 'Public Sector Entities',
    run: {
      id,
      clientId: 'c-1',
      fileId: `f-${id}`,
      mode: 'manual',
      state: 'completed',
      stage: 'done',
      rowsRead: 3,
      rowsTotal: 3,
      rowsDone: 3,
      rowsMatched: 2,
      percent: 100,
      seq: 9,
      attempts: 1,
      error: null,
      createdAt: finishedAt,
      startedAt: finishedAt,
      finishedAt,
      result: null,
    },
  } as AdminRun
}

beforeEach(() => queryClient.clear())
afterEach(() => resetRealtime())

function setup(initial: JustificationTemplate[] = [template('t-pse', 'PSE audit memo', { category: 'regulatory', isDefault: true, templateContent: LONG_CONTENT })]) {
  FakeEventSocket.all = []
  setRealtimeTransport(() => new FakeEventSocket(), async () => true)
  useAuthStore.setState({ status: 'authenticated', user: makeUser({ role: 'admin' }) })
  let rows = initial
  const runs = [adminRun('run-1', 'Bank A', 'hand-pse.csv', '2026-01-31T09:00:00Z'), adminRun('run-2', 'Bank B', 'book.xlsx', '2026-02-02T09:00:00Z')]
  const calls = mockApi({
    'GET /api/admin/justification-templates': () => json(200, rows),
    'GET /api/admin/justification-templates/defaults': () => json(200, DEFAULTS),
    'POST /api/admin/justification-templates': ({ body }) => {
      const b = body as { name: string; category: string; templateContent: string; isDefault: boolean }
      if (b.templateContent.includes('clientNme')) return json(422, { code: 'validation_failed', message: UNKNOWN_PLACEHOLDER })
      const t = template('t-new', b.name, { category: b.category, templateContent: b.templateContent, isDefault: b.isDefault })
      rows = [t, ...rows]
      return json(201, t)
    },
    'PUT /api/admin/justification-templates/:id': ({ params, body }) => {
      const b = body as { name: string; templateContent: string }
      if (b.templateContent.includes('{% for')) {
        return json(422, { code: 'validation_failed', message: 'Template syntax error on line 2: unexpected end of input, expected end of for loop' })
      }
      rows = rows.map((r) => (r.id === params.id ? { ...r, ...(body as object), updatedAt: '2026-03-01T10:00:00Z' } : r))
      return json(200, rows.find((r) => r.id === params.id))
    },
    'DELETE /api/admin/justification-templates/:id': ({ params }) => {
      if (params.id === 't-locked') return json(404, { code: 'not_found', message: 'Template not found' })
      rows = rows.filter((r) => r.id !== params.id)
      return noContent()
    },
    'GET /api/admin/runs': () => json(200, { items: runs, total: 2, page: 1, pageSize: 50 }),
    'POST /api/admin/runs/:runId/justification-memo': ({ params, body }) => {
      const r = runs.find((x) => x.run.id === params.runId)!
      const memo: JustificationMemo = {
        templateId: (body as { templateId?: string }).templateId ?? null,
        templateName: 'PSE audit memo',
        runId: r.run.id,
        clientName: r.clientName,
        fileName: 'pse-audit-memo-run-1.txt',
        text: `AUDIT MEMO\nClient: ${r.clientName}\n- EXP-ADIF-24M: 100% -> 50%\n`,
        classificationsListed: 2,
        classificationsTotal: 2,
      }
      return json(200, memo)
    },
  })
  renderRoutes([{ path: '/admin/lever-justifications', element: <LeverJustifications /> }], '/admin/lever-justifications')
  return { calls, setRows: (r: JustificationTemplate[]) => (rows = r) }
}

/** Captures the .txt downloads: their file name and text. */
function captureDownloads() {
  const saved: { name: string; text: Promise<string> }[] = []
  const blobs = new Map<string, Blob>()
  let n = 0
  Object.defineProperty(URL, 'createObjectURL', {
    configurable: true,
    writable: true,
    value: (blob: Blob) => {
      const url = `blob:test/${++n}`
      blobs.set(url, blob)
      return url
    },
  })
  Object.defineProperty(URL, 'revokeObjectURL', { configurable: true, writable: true, value: () => {} })
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    const blob = blobs.get(this.href)
    if (blob) saved.push({ name: this.download, text: blob.text() })
  })
  return saved
}

describe('LeverJustifications', () => {
  it('shows the empty state', async () => {
    setup([])
    expect(screen.getByRole('heading', { name: 'Lever Justifications' })).toBeInTheDocument()
    expect(await screen.findByText('No Templates Found')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Create Your First Template' })).toBeInTheDocument()
  })

  it('lists a card with the category, the default badge, the first 200 characters, creator and updated date', async () => {
    setup()
    const card = await screen.findByRole('article', { name: 'PSE audit memo' })
    expect(within(card).getByTestId('template-category')).toHaveTextContent('Regulatory')
    expect(within(card).getByText('Default')).toBeInTheDocument()
    expect(within(card).getByTestId('template-preview').textContent).toBe(`${LONG_CONTENT.slice(0, PREVIEW_CHARS).trimEnd()}…`)
    expect(within(card).getByText('Created by Ada Admin · Updated Feb 5, 2026')).toBeInTheDocument()
  })

  it('says when the templates cannot be loaded', async () => {
    useAuthStore.setState({ status: 'authenticated', user: makeUser({ role: 'admin' }) })
    setRealtimeTransport(() => new FakeEventSocket(), async () => true)
    mockApi({ 'GET /api/admin/justification-templates': () => json(500, { code: 'internal', message: 'Database unavailable' }) })
    renderRoutes([{ path: '/', element: <LeverJustifications /> }], '/')
    expect(await screen.findByText('Failed to load templates: Database unavailable')).toBeInTheDocument()
    expect(screen.getByText('Error')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument()
  })

  it('creates a template from the default audit memo, listing the placeholders', async () => {
    const { calls } = setup([])
    await userEvent.click(await screen.findByRole('button', { name: 'Create Template' }))
    const dialog = await screen.findByRole('dialog', { name: 'Create Template' })
    const placeholders = within(dialog).getByRole('region', { name: 'Placeholders' })
    expect(await within(placeholders).findByText('clientName')).toBeInTheDocument()
    expect(within(placeholders).getByText('The lever analysed')).toBeInTheDocument()
    expect(within(within(dialog).getByLabelText('Category')).getAllByRole('option').map((o) => o.getAttribute('value'))).toEqual([
      'regulatory',
      'internal',
      'custom',
    ])
    await userEvent.selectOptions(within(dialog).getByLabelText('Category'), 'custom')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Use Default Template' }))
    expect(within(dialog).getByLabelText('Name')).toHaveValue(DEFAULTS.name)
    expect(within(dialog).getByLabelText('Category')).toHaveValue('regulatory')
    expect(within(dialog).getByLabelText('Template content')).toHaveValue(DEFAULTS.templateContent)
    expect(within(dialog).getByLabelText('Template content')).toHaveClass('font-mono')
    await userEvent.click(within(dialog).getByLabelText('Default template'))
    await userEvent.click(within(dialog).getByRole('button', { name: 'Create Template' }))
    expect(await screen.findByText('Template created successfully')).toBeInTheDocument()
    expect(screen.getByText('Success')).toBeInTheDocument()
    expect(calls.find((c) => c.key === 'POST /api/admin/justification-templates')!.body).toEqual({
      name: DEFAULTS.name,
      category: 'regulatory',
      templateContent: DEFAULTS.templateContent,
      isDefault: true,
    })
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    const card = await screen.findByRole('article', { name: DEFAULTS.name })
    expect(within(card).getByText('Default')).toBeInTheDocument()
  })

  it("keeps the dialog open with the server's validation message", async () => {
    const { calls } = setup([])
    await userEvent.click(await screen.findByRole('button', { name: 'Create Template' }))
    const dialog = await screen.findByRole('dialog', { name: 'Create Template' })
    await userEvent.click(within(dialog).getByRole('button', { name: 'Create Template' }))
    expect(await within(dialog).findByText('Template name is required')).toBeInTheDocument()
    expect(within(dialog).getByText('Template content is required')).toBeInTheDocument()
    expect(calls.some((c) => c.key === 'POST /api/admin/justification-templates')).toBe(false)
    await userEvent.type(within(dialog).getByLabelText('Name'), 'Broken memo')
    await userEvent.type(within(dialog).getByLabelText('Template content'), 'Line one\nLine two\n{{{{ clientNme }}')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Create Template' }))
    expect(await within(dialog).findByTestId('template-server-error')).toHaveTextContent(UNKNOWN_PLACEHOLDER)
    expect(await screen.findByText(`Failed to create template: ${UNKNOWN_PLACEHOLDER}`)).toBeInTheDocument()
    expect(screen.getByRole('dialog', { name: 'Create Template' })).toBeInTheDocument()
    expect(within(dialog).getByLabelText('Name')).toHaveValue('Broken memo')
  })

  it('edits a template, showing a syntax error first', async () => {
    const { calls } = setup()
    const card = await screen.findByRole('article', { name: 'PSE audit memo' })
    await userEvent.click(within(card).getByRole('button', { name: 'Edit PSE audit memo' }))
    const dialog = await screen.findByRole('dialog', { name: 'Edit Template' })
    expect(within(dialog).queryByRole('button', { name: 'Use Default Template' })).not.toBeInTheDocument()
    expect(within(dialog).getByLabelText('Name')).toHaveValue('PSE audit memo')
    expect(within(dialog).getByLabelText('Default template')).toBeChecked()
    const content = within(dialog).getByLabelText('Template content')
    await userEvent.clear(content)
    await userEvent.type(content, 'Memo\n{{% for c in classifications %}')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save Changes' }))
    expect(await within(dialog).findByText(/Template syntax error on line 2/)).toBeInTheDocument()
    expect(await screen.findByText(/^Failed to update template: Template syntax error on line 2/)).toBeInTheDocument()
    await userEvent.clear(content)
    await userEvent.type(content, 'Memo for {{{{ clientName }}')
    await userEvent.clear(within(dialog).getByLabelText('Name'))
    await userEvent.type(within(dialog).getByLabelText('Name'), 'PSE memo v2')
    await userEvent.selectOptions(within(dialog).getByLabelText('Category'), 'internal')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Save Changes' }))
    expect(await screen.findByText('Template updated successfully')).toBeInTheDocument()
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    const puts = calls.filter((c) => c.key === 'PUT /api/admin/justification-templates/:id')
    expect(puts.at(-1)!.url).toBe('/api/admin/justification-templates/t-pse')
    expect(puts.at(-1)!.body).toEqual({ name: 'PSE memo v2', category: 'internal', templateContent: 'Memo for {{ clientName }}', isDefault: true })
    const edited = await screen.findByRole('article', { name: 'PSE memo v2' })
    expect(within(edited).getByTestId('template-category')).toHaveTextContent('Internal')
  })

  it("deletes only after the browser's confirmation, and says when the server refuses", async () => {
    const { calls } = setup([template('t-pse', 'PSE audit memo'), template('t-locked', 'Locked memo')])
    const confirm = vi.spyOn(window, 'confirm').mockReturnValue(false)
    const card = await screen.findByRole('article', { name: 'PSE audit memo' })
    await userEvent.click(within(card).getByRole('button', { name: 'Delete PSE audit memo' }))
    expect(confirm).toHaveBeenCalledWith('Are you sure you want to delete "PSE audit memo"? This action cannot be undone.')
    expect(calls.some((c) => c.key === 'DELETE /api/admin/justification-templates/:id')).toBe(false)
    expect(screen.getByRole('article', { name: 'PSE audit memo' })).toBeInTheDocument()

    confirm.mockReturnValue(true)
    await userEvent.click(within(card).getByRole('button', { name: 'Delete PSE audit memo' }))
    expect(await screen.findByText('Template deleted successfully')).toBeInTheDocument()
    await waitFor(() => expect(screen.queryByRole('article', { name: 'PSE audit memo' })).not.toBeInTheDocument())
    expect(calls.filter((c) => c.key === 'DELETE /api/admin/justification-templates/:id').map((c) => c.url)).toEqual([
      '/api/admin/justification-templates/t-pse',
    ])

    await userEvent.click(screen.getByRole('button', { name: 'Delete Locked memo' }))
    expect(await screen.findByText('Failed to delete template: Template not found')).toBeInTheDocument()
    expect(screen.getByText('Error')).toBeInTheDocument()
  })

  it('previews a template, generates the memo of a completed run and downloads either as .txt', async () => {
    const saved = captureDownloads()
    const { calls } = setup()
    const card = await screen.findByRole('article', { name: 'PSE audit memo' })
    await userEvent.click(within(card).getByRole('button', { name: 'Download PSE audit memo as .txt' }))
    await waitFor(() => expect(saved).toHaveLength(1))
    expect(saved[0]!.name).toBe('PSE audit memo.txt')
    expect(await saved[0]!.text).toBe(LONG_CONTENT)

    await userEvent.click(within(card).getByRole('button', { name: 'Preview PSE audit memo' }))
    const dialog = await screen.findByRole('dialog', { name: 'PSE audit memo' })
    const text = within(dialog).getByTestId('preview-text')
    expect(text.tagName).toBe('PRE')
    expect(text.textContent).toBe(LONG_CONTENT)
    const select = within(dialog).getByLabelText('Processing run')
    await within(select).findByRole('option', { name: 'Bank A · hand-pse.csv · Jan 31, 2026' })
    expect(within(select).getAllByRole('option').map((o) => o.textContent)).toEqual([
      'Select a completed run',
      'Bank A · hand-pse.csv · Jan 31, 2026',
      'Bank B · book.xlsx · Feb 2, 2026',
    ])
    expect(calls.find((c) => c.key === 'GET /api/admin/runs')!.url).toBe('/api/admin/runs?status=completed&page=1&page_size=50')
    const generate = within(dialog).getByRole('button', { name: 'Generate Memo' })
    expect(generate).toBeDisabled()
    await userEvent.selectOptions(select, 'run-1')
    await userEvent.click(generate)
    await waitFor(() => expect(within(dialog).getByTestId('preview-text').textContent).toContain('Client: Bank A'))
    expect(within(dialog).getByText('2 of 2 reclassified exposures listed')).toBeInTheDocument()
    const memoCall = calls.find((c) => c.key === 'POST /api/admin/runs/:runId/justification-memo')!
    expect(memoCall.url).toBe('/api/admin/runs/run-1/justification-memo')
    expect(memoCall.body).toEqual({ templateId: 't-pse' })

    await userEvent.click(within(dialog).getByRole('button', { name: 'Download as .txt' }))
    await waitFor(() => expect(saved).toHaveLength(2))
    expect(saved[1]!.name).toBe('PSE audit memo - run-1.txt')
    expect(await saved[1]!.text).toBe('AUDIT MEMO\nClient: Bank A\n- EXP-ADIF-24M: 100% -> 50%\n')

    // Back to the template: the download is the template again.
    await userEvent.click(within(dialog).getByRole('button', { name: 'Show Template' }))
    expect(within(dialog).getByTestId('preview-text').textContent).toBe(LONG_CONTENT)
    await userEvent.click(within(dialog).getByRole('button', { name: 'Download as .txt' }))
    await waitFor(() => expect(saved).toHaveLength(3))
    expect(saved[2]!.name).toBe('PSE audit memo.txt')
  })

  it("follows another administrator's changes live", async () => {
    const { calls, setRows } = setup()
    await screen.findByRole('article', { name: 'PSE audit memo' })
    const socket = FakeEventSocket.latest()
    act(() => socket.open())
    await waitFor(() => expect(socket.sent.flatMap((m) => m.topics ?? [])).toContain('admin:justifications'))
    act(() => socket.frame('admin:justifications', 0, 'subscribed'))
    const reads = () => calls.filter((c) => c.key === 'GET /api/admin/justification-templates').length
    const before = reads()
    setRows([template('t-pse', 'Renamed elsewhere')])
    act(() => socket.frame('admin:justifications', 1, 'justifications.changed', { templateId: 't-pse' }))
    expect(await screen.findByRole('article', { name: 'Renamed elsewhere' })).toBeInTheDocument()
    expect(reads()).toBeGreaterThan(before)
  })
})
