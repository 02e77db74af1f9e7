import { ApiError, CSRF_COOKIE, CSRF_HEADER, recoverSession } from './api-client'
import { readCookie } from './cookies'

/** One Server-Sent Event block (`event:` and `data:` lines): its data parsed as JSON. */
export function parseSseBlock<T>(block: string): T | null {
  const data: string[] = []
  for (const line of block.split('\n')) {
    if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5))
  }
  if (data.length === 0) return null // a keep-alive comment, or an event without data
  try {
    return JSON.parse(data.join('\n')) as T
  } catch {
    return null
  }
}

async function refusal(response: Response): Promise<ApiError> {
  let body: unknown
  try {
    body = await response.json()
  } catch {
    body = undefined
  }
  const { code, message } = (body ?? {}) as { code?: unknown; message?: unknown }
  const fallback = response.status === 413 ? 'File too large' : `Request failed (HTTP ${response.status})`
  return new ApiError(
    response.status,
    typeof code === 'string' ? code : `http_${response.status}`,
    typeof message === 'string' && message !== '' ? message : fallback,
    body,
  )
}

/**
 * POSTs `makeBody()` (built again for a retry) with the CSRF header and calls `onEvent` for each
 * Server-Sent Event of the response as it arrives (read with fetch and a ReadableStream:
 * EventSource cannot POST). An expired session is refreshed once. Rejects with an
 * {@link ApiError} when the request is refused before the stream or the server is not reached.
 */
export async function postEventStream<T>(
  path: string,
  makeBody: () => { body: BodyInit; contentType?: string },
  onEvent: (e: T) => void,
  signal?: AbortSignal,
): Promise<void> {
  const post = async (): Promise<Response> => {
    const { body, contentType } = makeBody()
    const headers: Record<string, string> = { Accept: 'text/event-stream' }
    if (contentType) headers['Content-Type'] = contentType
    const csrf = readCookie(CSRF_COOKIE)
    if (csrf) headers[CSRF_HEADER] = csrf
    try {
      return await fetch(path, { method: 'POST', headers, credentials: 'same-origin', body, signal })
    } catch (error) {
      if (signal?.aborted) throw error
      throw new ApiError(0, 'network_error', 'Unable to reach the server. Check your connection and try again.')
    }
  }
  let response = await post()
  if (response.status === 401 && (await recoverSession())) response = await post()
  if (!response.ok) throw await refusal(response)
  if (!response.body) throw new ApiError(response.status, 'no_stream', 'The response did not stream.')

  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  for (;;) {
    const { value, done } = await reader.read()
    buffer += (done ? decoder.decode() : decoder.decode(value, { stream: true })).replace(/\r\n?/g, '\n')
    let end = buffer.indexOf('\n\n')
    while (end >= 0) {
      const event = parseSseBlock<T>(buffer.slice(0, end))
      buffer = buffer.slice(end + 2)
      if (event) onEvent(event)
      end = buffer.indexOf('\n\n')
    }
    if (done) break
  }
  const last = parseSseBlock<T>(buffer)
  if (last) onEvent(last)
}
