import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import { useAuthStore } from '@/lib/auth-store'
import { queryClient } from '@/lib/query-client'
import { resetRealtime, setRealtimeTransport } from '@/lib/realtime-store'
import { FakeEventSocket } from '@/testing/fake-event-socket'
import { filesHandlers, filesState, makeFile, makeInspection, makeRun, PSE_LEVER, type FilesState } from '@/testing/files-api'
import { json, makeUser, mockApi } from '@/testing/mock-api'
import { renderRoutes } from '@/testing/render-route'

import { FileProcessor } from './file-processor'

function renderProcessor(path: string, state: FilesState, extra: Parameters<typeof mockApi>[0] = {}, role: 'user' | 'viewer' = 'user') {
  FakeEventSocket.all = []
  setRealtimeTransport(() => new FakeEventSocket(), async () => true)
  useAuthStore.setState({ status: 'authenticated', user: makeUser({ role }) })
  const calls = mockApi({ ...filesHandlers(state), ...extra })
  const view = renderRoutes([{ path: '/client/file-processor', element: <FileProcessor /> }], path)
  return { calls, ...view }
}

const csv = (name = 'pse.csv', body = 'nif;plazo;importe;rw\nP2807901D;12;1000000;1\n') => new File([body], name, { type: 'text/csv' })

beforeEach(() => queryClient.clear())
afterEach(() => resetRealtime())

describe('FileProcessor', () => {
  it('starts at the mode cards with enhanced AI chosen; Continue opens step 2 with the mode in the URL', async () => {
    const { router } = renderProcessor('/client/file-processor', filesState())
    expect(screen.getByRole('radio', { name: /Enhanced AI Processing/ })).toHaveAttribute('aria-checked', 'true')
    expect(screen.getByRole('radio', { name: /Manual Processing/ })).toHaveTextContent('Current')
    expect(screen.getByRole('radio', { name: /Enhanced AI Processing/ })).toHaveTextContent('Recommended')
    expect(screen.getByText(/Enhanced AI classifies the file's lever/)).toBeInTheDocument()
    await userEvent.click(screen.getByRole('radio', { name: /Manual Processing/ }))
    expect(screen.queryByText(/Enhanced AI classifies the file's lever/)).not.toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: 'Continue to Processing' }))
    expect(router.state.location.search).toBe('?mode=manual')
    expect(await screen.findByRole('button', { name: 'Upload & Process' })).toBeDisabled()
    expect(screen.getByText('Core Banking API').parentElement).toHaveTextContent('Coming Soon')

    // Back to Mode Selection: step 1, enhanced AI again.
    await userEvent.click(screen.getByRole('button', { name: 'Back to Mode Selection' }))
    expect(router.state.location.search).toBe('')
    expect(screen.getByRole('radio', { name: /Enhanced AI Processing/ })).toHaveAttribute('aria-checked', 'true')
  })

  it('?mode= preselects the mode and jumps to step 2; another value is ignored', async () => {
    renderProcessor('/client/file-processor?mode=enhanced-ai', filesState())
    expect(await screen.findByRole('button', { name: 'Start Enhanced AI Processing' })).toBeInTheDocument()
    expect(screen.queryByLabelText('Lever')).not.toBeInTheDocument()
  })

  it('ignores an unknown mode', () => {
    renderProcessor('/client/file-processor?mode=turbo', filesState())
    expect(screen.getByRole('button', { name: 'Continue to Processing' })).toBeInTheDocument()
  })

  it("refuses wrong files before sending anything, and shows the server's refusal in the red Error alert", async () => {
    const { calls } = renderProcessor('/client/file-processor?mode=enhanced-ai', filesState(), {
      'POST /api/files': () => json(400, { code: 'unsupported_file', message: 'Please upload only PDF, Excel, or CSV files.' }),
    })
    const input = await screen.findByLabelText('File to upload')
    await userEvent.upload(input, new File(['MZ'], 'tool.exe'), { applyAccept: false })
    const alert = screen.getByRole('alert')
    expect(alert).toHaveTextContent('Error')
    expect(alert).toHaveTextContent('Please upload only PDF, Excel, or CSV files.')
    await userEvent.upload(input, new File([''], 'empty.csv'))
    expect(screen.getByRole('alert')).toHaveTextContent('The uploaded file appears to be empty or invalid.')
    expect(calls).toHaveLength(0)

    // A file that passes the browser's checks but not the server's (a renamed executable).
    await userEvent.upload(input, new File(['MZ\x90\x00'], 'renamed.csv'))
    await userEvent.click(screen.getByRole('button', { name: 'Start Enhanced AI Processing' }))
    await waitFor(() => expect(screen.getAllByRole('alert')[0]).toHaveTextContent('Please upload only PDF, Excel, or CSV files.'))
    expect(calls.map((c) => c.url)).toEqual(['/api/files?client_id=c-1'])
  })

  it('enhanced AI: uploads, follows the run live (subscribe first, then the snapshot, newer events only) and shows the results', async () => {
    const queued = makeRun({ id: 'run-7', fileId: 'f-7', mode: 'enhanced-ai', seq: 1 })
    const state = filesState()
    state.runs = [makeRun({ ...queued, state: 'running', stage: 'evaluating', percent: 40, rowsTotal: 100, rowsDone: 40, seq: 5 })]
    const { calls } = renderProcessor('/client/file-processor?mode=enhanced-ai', state, {
      'POST /api/files': () => json(201, { file: makeFile({ id: 'f-7', name: 'pse.csv', processed: false, status: 'queued' }), run: queued }),
    })
    await userEvent.upload(await screen.findByLabelText('File to upload'), csv())
    await userEvent.click(screen.getByRole('button', { name: 'Start Enhanced AI Processing' }))

    // The upload's options: enhanced AI, no lever, process.
    await screen.findByRole('region', { name: 'Advanced AI Intelligence' })
    const post = calls.find((c) => c.key === 'POST /api/files')!
    expect(post.url).toBe('/api/files?client_id=c-1')
    expect(String(post.body)).toContain('{"mode":"enhanced-ai","leverId":null,"process":true,"mapping":null,"riskWeightFormat":null,"maturityUnit":null}')

    // Subscribed to the run's topic first; the snapshot is read once the subscription is confirmed.
    const socket = FakeEventSocket.latest()
    act(() => socket.open())
    const topic = 'client:c-1:run:run-7'
    await waitFor(() => expect(socket.sent.flatMap((m) => m.topics ?? [])).toContain(topic))
    expect(calls.filter((c) => c.key === 'GET /api/runs/:id')).toHaveLength(0)
    act(() => socket.frame(topic, 10, 'subscribed'))
    await waitFor(() => expect(screen.getByRole('progressbar', { name: 'Processing progress' })).toHaveAttribute('aria-valuenow', '40'))
    expect(screen.getByText('Analysing exposures · 40% · 40 of 100 rows')).toBeInTheDocument()

    // An event older than the snapshot is ignored; a newer one applies.
    act(() => socket.frame(topic, 11, 'run.progress', { ...queued, state: 'running', stage: 'reading', percent: 10, seq: 3 }))
    expect(screen.getByRole('progressbar', { name: 'Processing progress' })).toHaveAttribute('aria-valuenow', '40')
    act(() => socket.frame(topic, 12, 'run.progress', { ...queued, state: 'running', stage: 'writing', percent: 90, seq: 6 }))
    expect(screen.getByRole('progressbar', { name: 'Processing progress' })).toHaveAttribute('aria-valuenow', '90')
    const agents = within(screen.getByRole('list', { name: 'Agents' }))
    expect(agents.getByText('Analysis Engine').parentElement).toHaveTextContent('Done')
    expect(agents.getByText('Output & Checks').parentElement).toHaveTextContent('Working')
    expect(agents.getByText('Record Update').parentElement).toHaveTextContent('Waiting')

    act(() =>
      socket.frame(topic, 13, 'run.progress', {
        ...queued,
        state: 'completed',
        stage: 'done',
        percent: 100,
        seq: 7,
        result: {
          leverId: PSE_LEVER.id,
          leverName: PSE_LEVER.name,
          savingsRwas: 12_345_678,
          savingsBps: 2.567,
          confidence: 0.912,
          rows: 100,
          matched: 80,
          notMatched: 15,
          errors: 5,
          mappedColumns: 4,
          classification: { lever: 'pse', confidence: 0.912, evidence: [{ description: '80 of 100 NIFs found in the PSE list', weight: 2 }], scores: [['pse', 0.912], ['rgla', 0.05]] },
          checks: { errorRows: 5, unreadableValues: 2, flaggedRows: 0, totalsReconciled: true },
        },
      }),
    )
    const results = screen.getByRole('region', { name: 'Results' })
    expect(within(results).getByText('Capital Optimization Results')).toBeInTheDocument()
    expect(within(results).getByTestId('savings-millions').textContent?.replace(/\u00a0/g, ' ')).toBe('12,3 M€')
    expect(within(results).getByTestId('savings-bps').textContent?.replace(/\u00a0/g, ' ')).toBe('2,57 bps of CET1 ratio')
    expect(within(results).getByText('91.2%')).toBeInTheDocument()
    expect(within(results).getByText('Mapped columns: 4')).toBeInTheDocument()
    expect(within(results).getByRole('link', { name: /Download Optimized File/ })).toHaveAttribute('href', '/api/files/f-7/processed')
    expect(screen.getByRole('region', { name: 'Multi-Agent Collaboration' })).toHaveTextContent('80 of 100 NIFs found in the PSE list')
    expect(screen.getByRole('region', { name: 'Self-Monitoring' })).toHaveTextContent('Unreadable values2')
    // No reviewed classifications yet: no 'Continuous Learning' card.
    expect(screen.queryByRole('region', { name: 'Continuous Learning' })).toBeNull()
    expect(await screen.findByText('Processing Complete')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Upload Another File' })).toBeEnabled()
  })

  it('enhanced AI below the confidence threshold: Processing Complete - Pending Validation', async () => {
    const run = makeRun({ id: 'run-8', mode: 'enhanced-ai', state: 'pending_review', stage: 'done', percent: 100, seq: 9 })
    run.result = { leverId: null, leverName: 'Public Sector Entities', savingsRwas: 0, savingsBps: 0, confidence: 0.55, rows: 10, matched: 0, notMatched: 0, errors: 0, mappedColumns: 3, classification: { lever: 'pse', confidence: 0.55, evidence: [], scores: [], learning: { reviewed: 12, approved: 9, accuracy: 0.75, similar: 2, earlierAccuracy: 0.5, recentAccuracy: 1 } }, checks: { errorRows: 0, unreadableValues: 0, flaggedRows: 0, totalsReconciled: true } }
    renderProcessor('/client/file-processor?mode=enhanced-ai', filesState(), {
      'POST /api/files': () => json(201, { file: makeFile({ processed: false, status: 'pending_review' }), run }),
    })
    await userEvent.upload(await screen.findByLabelText('File to upload'), csv())
    await userEvent.click(screen.getByRole('button', { name: 'Start Enhanced AI Processing' }))
    const results = await screen.findByRole('region', { name: 'Results' })
    await waitFor(() => expect(within(results).getByText('Processing Complete - Pending Validation')).toBeInTheDocument())
    expect(within(results).getByText('File processed with 55.0% confidence. Results pending admin validation.')).toBeInTheDocument()
    // Past reviewed classifications, as measured when this file was classified.
    const learning = screen.getByRole('region', { name: 'Continuous Learning' })
    expect(learning).toHaveTextContent('Pattern accuracy75.0% of 12 reviewed')
    expect(learning).toHaveTextContent('Similar files reviewed2')
    expect(learning).toHaveTextContent('Performance improvement+50.0 points')
  })

  it('manual: a lever is required, the mapping dialog opens on the detected columns and confirming uploads with the mapping', async () => {
    const run = makeRun({ id: 'run-9', fileId: 'f-9', state: 'failed', stage: 'evaluating', error: 'No valid column mappings found after sanitization. Please check your column mappings.', seq: 4 })
    const { calls } = renderProcessor('/client/file-processor?mode=manual', filesState(), {
      'POST /api/files/inspect': () => json(200, makeInspection()),
      'POST /api/files': () => json(201, { file: makeFile({ id: 'f-9', processed: false, status: 'failed' }), run }),
    })
    await userEvent.upload(await screen.findByLabelText('File to upload'), csv())
    await userEvent.click(screen.getByRole('button', { name: 'Upload & Process' }))
    expect(screen.getByRole('alert')).toHaveTextContent('Please select a lever before uploading.')

    const lever = screen.getByLabelText('Lever')
    await waitFor(() => expect(lever).toBeEnabled())
    expect([...(lever as HTMLSelectElement).options].map((o) => o.text)).toEqual(['Select a lever', 'To be determined', 'Public Sector Entities (PSE)', 'Multilateral Development Banks (MDB)'])
    await userEvent.selectOptions(lever, PSE_LEVER.id)
    await userEvent.click(screen.getByRole('button', { name: 'Upload & Process' }))
    const dialog = await screen.findByRole('dialog', { name: 'Column Mapping' })
    expect(calls.find((c) => c.key === 'POST /api/files/inspect')!.url).toBe('/api/files/inspect?client_id=c-1')
    expect(screen.getByRole('button', { name: 'Upload & Process', hidden: true })).toBeDisabled()
    const select = (name: string) => within(within(dialog).getByTestId(`target-${name}`)).getByRole('combobox')
    await userEvent.selectOptions(select('Maturity'), 'plazo')
    await userEvent.selectOptions(select('Current_Risk_Weight'), 'rw')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Process File with Mapping' }))

    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    const post = calls.find((c) => c.key === 'POST /api/files')!
    expect(String(post.body)).toContain(
      `{"mode":"manual","leverId":"${PSE_LEVER.id}","process":true,"mapping":{"NIF":"nif","Exposure_Amount":"importe","Maturity":"plazo","Current_Risk_Weight":"rw"},"riskWeightFormat":"decimal","maturityUnit":"months"}`,
    )
    // The run failed: its message is shown.
    const results = await screen.findByRole('region', { name: 'Results' })
    expect(within(results).getByText('Processing Failed')).toBeInTheDocument()
    expect(within(results).getByText('No valid column mappings found after sanitization. Please check your column mappings.')).toBeInTheDocument()
  })

  it("manual with 'To be determined' stores the file for an administrator without processing", async () => {
    const { calls } = renderProcessor('/client/file-processor?mode=manual', filesState(), {
      'POST /api/files': () => json(201, { file: makeFile({ leverId: null, leverName: null, processed: false, status: 'uploaded' }), run: null }),
    })
    await userEvent.upload(await screen.findByLabelText('File to upload'), csv())
    await waitFor(() => expect(screen.getByLabelText('Lever')).toBeEnabled())
    await userEvent.selectOptions(screen.getByLabelText('Lever'), 'tbd')
    await userEvent.click(screen.getByRole('button', { name: 'Upload & Process' }))
    expect((await screen.findAllByText('pse_exposures.csv is stored and waits for an administrator to assign its lever.')).length).toBeGreaterThan(0)
    expect(String(calls.find((c) => c.key === 'POST /api/files')!.body)).toContain('{"mode":"manual","leverId":null,"process":false,"mapping":null')
    expect(within(screen.getByRole('region', { name: 'Results' })).getByText('No results to display yet')).toBeInTheDocument()
  })

  it("disables the lever selector with 'Error loading levers' when levers fail", async () => {
    renderProcessor('/client/file-processor?mode=manual', filesState(), {
      'GET /api/levers': () => json(500, { code: 'internal', message: 'The server could not complete the request. Please try again.' }),
    })
    await waitFor(() => expect((screen.getByLabelText('Lever') as HTMLSelectElement).options[0]!.text).toBe('Error loading levers'))
    expect(screen.getByLabelText('Lever')).toBeDisabled()
    expect(screen.getByText('The server could not complete the request. Please try again.')).toBeInTheDocument()
  })

  it('a viewer cannot upload', async () => {
    renderProcessor('/client/file-processor?mode=enhanced-ai', filesState(), {}, 'viewer')
    expect(await screen.findByText(/Your role is read-only/)).toBeInTheDocument()
    expect(screen.getByLabelText('File to upload')).toBeDisabled()
    expect(screen.getByRole('button', { name: 'Start Enhanced AI Processing' })).toBeDisabled()
  })

  it('cancels the run under way', async () => {
    const queued = makeRun({ id: 'run-5', mode: 'enhanced-ai', seq: 1 })
    const { calls } = renderProcessor('/client/file-processor?mode=enhanced-ai', filesState(), {
      'POST /api/files': () => json(201, { file: makeFile({ processed: false, status: 'queued' }), run: queued }),
      'POST /api/runs/:id/cancel': () => json(200, { ...queued, state: 'cancelled', seq: 2 }),
    })
    await userEvent.upload(await screen.findByLabelText('File to upload'), csv())
    await userEvent.click(screen.getByRole('button', { name: 'Start Enhanced AI Processing' }))
    await userEvent.click(await screen.findByRole('button', { name: 'Cancel Processing' }))
    expect(calls.find((c) => c.key === 'POST /api/runs/:id/cancel')!.url).toBe('/api/runs/run-5/cancel')
    const socket = FakeEventSocket.latest()
    act(() => socket.open())
    const topic = 'client:c-1:run:run-5'
    await waitFor(() => expect(socket.sent.flatMap((m) => m.topics ?? [])).toContain(topic))
    act(() => socket.frame(topic, 1, 'subscribed'))
    act(() => socket.frame(topic, 2, 'run.progress', { ...queued, state: 'cancelled', seq: 3 }))
    expect(await within(screen.getByRole('region', { name: 'Results' })).findByText('Processing Cancelled')).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Cancel Processing' })).not.toBeInTheDocument()
  })
})
