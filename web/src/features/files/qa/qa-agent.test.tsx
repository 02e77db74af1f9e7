import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import type { QaEvent } from '@/api/types/QaEvent'
import type { QaMessage } from '@/api/types/QaMessage'
import { queryClient } from '@/lib/query-client'
import { json, mockApi, networkError, noContent, type ApiCall, type MockRequest } from '@/testing/mock-api'
import { renderRoutes } from '@/testing/render-route'

import { AnswerText } from './answer-text'
import { QaAgent, type QaFocus } from './qa-agent'

const ANSWER = '1. Total exposures\n- Scope: all analysed files\n- Exposures: 3\n- Total exposure amount: EUR 1,500,000.00\n'

function message(role: 'user' | 'assistant', content: string, id = `${role}-${content.length}`): QaMessage {
  return { id, role, content, fileId: null, provider: role === 'assistant' ? 'builtin' : null, createdAt: '2026-01-05T10:00:00Z' }
}

const sse = (e: QaEvent) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`

/** A stream of Server-Sent Events the test writes to as it goes. */
function liveStream() {
  let controller!: ReadableStreamDefaultController<Uint8Array>
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) })
  const enc = new TextEncoder()
  return {
    response: () => new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } }),
    send: (e: QaEvent) => controller.enqueue(enc.encode(sse(e))),
    close: () => controller.close(),
  }
}

/** A whole answer at once: started, the text in two deltas, done. */
function answered(question: string, answer: string, failure: 'rate_limited' | 'ungrounded' | 'failed' | null = null): Response {
  const half = Math.floor(answer.length / 2)
  const events: QaEvent[] = [
    { type: 'started', provider: 'builtin' },
    { type: 'delta', text: answer.slice(0, half) },
    { type: 'delta', text: answer.slice(half) },
    { type: 'done', question: message('user', question, 'q-1'), answer: message('assistant', answer, 'a-1'), failure },
  ]
  return new Response(events.map(sse).join(''), { status: 200, headers: { 'Content-Type': 'text/event-stream' } })
}

function renderAgent(ask: (req: MockRequest) => Response, options: { focus?: QaFocus | null; messages?: QaMessage[] } = {}) {
  const onClearFocus = vi.fn()
  const onClose = vi.fn()
  const calls = mockApi({
    'GET /api/qa/conversation': () => json(200, { messages: options.messages ?? [], provider: 'builtin' }),
    'DELETE /api/qa/conversation': () => noContent(),
    'POST /api/qa/ask': ask,
  })
  renderRoutes(
    [{ path: '/', element: <QaAgent clientId="c-1" focus={options.focus ?? null} onClearFocus={onClearFocus} onClose={onClose} /> }],
    '/',
  )
  return { calls, onClearFocus, onClose }
}

const log = () => screen.getByRole('log', { name: 'Conversation' })
const askCalls = (calls: ApiCall[]) => calls.filter((c) => c.key === 'POST /api/qa/ask')

beforeEach(() => queryClient.clear())

describe('QaAgent', () => {
  it('loads the conversation and sends a chip question, the answer rendered from the stream', async () => {
    const { calls } = renderAgent(({ body }) => answered((body as { question: string }).question, ANSWER), {
      messages: [message('user', 'Earlier question', 'm-1'), message('assistant', '- Earlier answer', 'm-2')],
    })
    expect(await within(log()).findByText('Earlier question')).toBeInTheDocument()
    expect(screen.getByText('Try asking:')).toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: 'Total exposures in this file' }))
    expect(await within(log()).findByText('EUR 1,500,000.00')).toBeInTheDocument()
    const asks = askCalls(calls)
    expect(asks).toHaveLength(1)
    expect(asks[0]!.url).toBe('/api/qa/ask?client_id=c-1')
    expect(asks[0]!.body).toEqual({ question: 'Total exposures in this file' })
    expect(within(log()).getByText('Total exposures in this file')).toBeInTheDocument()
    expect(calls.filter((c) => c.key === 'GET /api/qa/conversation').map((c) => c.url)).toEqual([
      '/api/qa/conversation?client_id=c-1',
    ])
  })

  it.each([
    ['Summarise key findings'],
    ['What are the main risk factors?'],
    ['Show optimisation opportunities'],
  ])('the chip %s sends its question', async (chip) => {
    const { calls } = renderAgent(({ body }) => answered((body as { question: string }).question, '- ok'))
    await userEvent.click(screen.getByRole('button', { name: chip }))
    await waitFor(() => expect(askCalls(calls).map((c) => c.body)).toEqual([{ question: chip }]))
  })

  it('sends typed questions with the file in focus, and never an empty or blank one', async () => {
    const { calls } = renderAgent(({ body }) => answered((body as { question: string }).question, '- ok'), {
      focus: { id: 'f-1', label: 'File 1 (madrid.csv)' },
    })
    const box = screen.getByPlaceholderText('Ask a question about your files...')
    const send = screen.getByRole('button', { name: 'Send' })
    expect(send).toBeDisabled()
    await userEvent.type(box, '   ')
    expect(send).toBeDisabled()
    await userEvent.type(box, '{Enter}')
    expect(askCalls(calls)).toHaveLength(0)
    await userEvent.clear(box)
    await userEvent.type(box, '  How many exposures?  {Enter}')
    await waitFor(() => expect(askCalls(calls).map((c) => c.body)).toEqual([{ question: 'How many exposures?', fileId: 'f-1' }]))
    expect(box).toHaveValue('')
    expect(askCalls(calls)[0]!.headers.get('Content-Type')).toBe('application/json')
  })

  it('streams the reply as deltas arrive, showing the loading text and blocking sending until done', async () => {
    const stream = liveStream()
    const { calls } = renderAgent(() => stream.response())
    const box = screen.getByPlaceholderText('Ask a question about your files...')
    await userEvent.type(box, 'Summarise key findings{Enter}')
    expect(await screen.findByText('Analyzing your files...')).toBeInTheDocument()
    stream.send({ type: 'started', provider: 'builtin' })
    stream.send({ type: 'delta', text: '1. Key findings\n- RWA reduction: EUR 900' })
    expect(await within(log()).findByText('EUR 900')).toBeInTheDocument()
    // While loading: Send, the chips and Enter send nothing.
    await userEvent.type(box, 'Another question')
    expect(screen.getByRole('button', { name: 'Send' })).toBeDisabled()
    expect(screen.getByRole('button', { name: 'Summarise key findings' })).toBeDisabled()
    await userEvent.type(box, '{Enter}')
    expect(askCalls(calls)).toHaveLength(1)

    stream.send({ type: 'delta', text: ',000.00\n' })
    expect(await within(log()).findByText('EUR 900,000.00')).toBeInTheDocument()
    const full = '1. Key findings\n- RWA reduction: EUR 900,000.00\n'
    stream.send({ type: 'done', question: message('user', 'Summarise key findings', 'q-9'), answer: message('assistant', full, 'a-9'), failure: null })
    stream.close()
    await waitFor(() => expect(screen.queryByText('Analyzing your files...')).not.toBeInTheDocument())
    expect(screen.getByRole('button', { name: 'Send' })).toBeEnabled()
    expect(within(log()).getAllByText('EUR 900,000.00')).toHaveLength(1)
  })

  it("shows the server's reply and the toast when the answer failed", async () => {
    const reply = '1. Rate limit reached\n- The AI service has reached its rate limit. Please try again in 20s.\n'
    renderAgent(({ body }) => {
      const q = (body as { question: string }).question
      return new Response(
        sse({ type: 'started', provider: 'openai' }) +
          sse({ type: 'done', question: message('user', q, 'q-1'), answer: message('assistant', reply, 'a-1'), failure: 'rate_limited' }),
        { status: 200, headers: { 'Content-Type': 'text/event-stream' } },
      )
    })
    await userEvent.click(screen.getByRole('button', { name: 'Summarise key findings' }))
    expect(await within(log()).findByText('The AI service has reached its rate limit. Please try again in 20s.')).toBeInTheDocument()
    expect(await screen.findByText('Failed to get AI response')).toBeInTheDocument()
  })

  it('says it could not analyse the files when the question is refused or the server not reached', async () => {
    let refuse = true
    renderAgent(() => (refuse ? json(422, { code: 'validation', message: 'The question is too long.' }) : networkError()))
    await userEvent.click(screen.getByRole('button', { name: 'Summarise key findings' }))
    expect(await within(log()).findByText('Sorry, I encountered an error analyzing the files. Please try again.')).toBeInTheDocument()
    expect(await screen.findByText('Failed to get AI response')).toBeInTheDocument()
    refuse = false
    await userEvent.click(screen.getByRole('button', { name: 'Show optimisation opportunities' }))
    await waitFor(() =>
      expect(within(log()).getAllByText('Sorry, I encountered an error analyzing the files. Please try again.')).toHaveLength(2),
    )
  })

  it('refreshes an expired session once and asks again', async () => {
    let asks = 0
    const { calls } = renderAgent(({ body }) => {
      asks += 1
      return asks === 1 ? json(401, { code: 'unauthenticated', message: 'Authentication required' }) : answered((body as { question: string }).question, '- Exposures: 3\n')
    })
    const refreshes = mockApi({ 'POST /api/auth/refresh': () => noContent() })
    await userEvent.click(screen.getByRole('button', { name: 'Total exposures in this file' }))
    expect(await within(log()).findByText('Exposures:')).toBeInTheDocument()
    expect(refreshes).toHaveLength(1)
    expect(askCalls(calls)).toHaveLength(2)
  })

  it('clears the conversation, collapses and closes', async () => {
    const { calls, onClose } = renderAgent(() => json(500), {
      messages: [message('user', 'Earlier question', 'm-1'), message('assistant', '- Earlier answer', 'm-2')],
    })
    expect(await within(log()).findByText('Earlier answer')).toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: 'Clear chat' }))
    await waitFor(() => expect(within(log()).queryByText('Earlier question')).not.toBeInTheDocument())
    expect(calls.filter((c) => c.key === 'DELETE /api/qa/conversation').map((c) => c.url)).toEqual(['/api/qa/conversation?client_id=c-1'])

    await userEvent.click(screen.getByRole('button', { name: 'Collapse chat' }))
    expect(screen.queryByPlaceholderText('Ask a question about your files...')).not.toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: 'Expand chat' }))
    expect(screen.getByPlaceholderText('Ask a question about your files...')).toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: 'Close chat' }))
    expect(onClose).toHaveBeenCalled()
  })

  it('shows the file in focus and clears the focus', async () => {
    const { onClearFocus } = renderAgent(() => json(500), { focus: { id: 'f-2', label: 'File 2 (bilbao.csv)' } })
    expect(screen.getByText('File 2 (bilbao.csv)')).toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: 'Clear file focus and analyze all files' }))
    expect(onClearFocus).toHaveBeenCalled()
  })
})

describe('AnswerText', () => {
  it('renders numbered headers, bullets and key/value lines as elements', () => {
    renderRoutes(
      [{ path: '/', element: <AnswerText text={'1. Total exposures\n- Exposures: 3\n- Plain bullet <b>x</b>\n\n2. Risks\nNote: read me\nJust text'} /> }],
      '/',
    )
    expect(screen.getByRole('heading', { name: '1. Total exposures' })).toBeInTheDocument()
    expect(screen.getByRole('heading', { name: '2. Risks' })).toBeInTheDocument()
    const items = screen.getAllByRole('listitem')
    expect(items.map((i) => i.textContent)).toEqual(['Exposures: 3', 'Plain bullet <b>x</b>'])
    expect(within(items[0]!).getByText('Exposures:')).toHaveClass('font-semibold')
    expect(screen.getByText('Note:')).toHaveClass('font-semibold')
    expect(screen.getByText('Just text')).toBeInTheDocument()
    expect(document.querySelector('b')).toBeNull()
  })
})
