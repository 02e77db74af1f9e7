import { afterEach, vi } from 'vitest'
import { ApiError } from './api-client'
import { parseSseBlock, postEventStream } from './event-stream'

describe('parseSseBlock', () => {
  it('reads the data lines of a block as JSON', () => {
    expect(parseSseBlock('event: step\ndata: {"step":"parse","done":3}')).toEqual({ step: 'parse', done: 3 })
  })
  it('joins several data lines with new lines', () => {
    expect(parseSseBlock('data: {"a":\ndata: 1}')).toEqual({ a: 1 })
  })
  it('ignores comments, blocks without data and data that is not JSON', () => {
    expect(parseSseBlock(': keep-alive')).toBeNull()
    expect(parseSseBlock('event: done')).toBeNull()
    expect(parseSseBlock('data: not json')).toBeNull()
  })
})

function streamOf(chunks: string[]): Response {
  const encoder = new TextEncoder()
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(encoder.encode(c))
      controller.close()
    },
  })
  return new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } })
}

describe('postEventStream', () => {
  afterEach(() => vi.unstubAllGlobals())

  it('delivers each event once, whatever the chunking, CRLF included', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => streamOf(['data: {"n":1}\r\n\r\nda', 'ta: {"n":2}\n', '\n: ping\n\ndata: {"n":3}'])),
    )
    const seen: unknown[] = []
    await postEventStream<{ n: number }>('/x', () => ({ body: 'b' }), (e) => seen.push(e.n))
    expect(seen).toEqual([1, 2, 3])
  })

  it('rejects a refusal before the stream with the server message', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => new Response(JSON.stringify({ code: 'invalid_file', message: 'Please upload a PDF file' }), { status: 422 })),
    )
    const err = await postEventStream('/x', () => ({ body: 'b' }), () => {}).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect((err as ApiError).message).toBe('Please upload a PDF file')
    expect((err as ApiError).status).toBe(422)
  })

  it('names a refusal for size without a body', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => new Response('', { status: 413 })))
    const err = (await postEventStream('/x', () => ({ body: 'b' }), () => {}).catch((e: unknown) => e)) as ApiError
    expect(err.message).toBe('File too large')
  })
})
