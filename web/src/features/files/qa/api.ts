import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import type { QaAsk } from '@/api/types/QaAsk'
import type { QaConversation } from '@/api/types/QaConversation'
import type { QaEvent } from '@/api/types/QaEvent'
import { api, apiRequest, ApiError, CSRF_COOKIE, CSRF_HEADER, recoverSession } from '@/lib/api-client'
import { readCookie } from '@/lib/cookies'

/** The query key of a user's Q&A conversation about a client. */
export const qaConversationKey = (clientId: string) => ['qa-conversation', clientId] as const

const query = (clientId: string) => `?client_id=${encodeURIComponent(clientId)}`

/** The caller's conversation about the client (GET /api/qa/conversation). */
export function useQaConversation(clientId: string) {
  return useQuery({
    queryKey: qaConversationKey(clientId),
    queryFn: ({ signal }) => api.get<QaConversation>(`/api/qa/conversation${query(clientId)}`, { signal }),
  })
}

/** Clears the caller's conversation about the client (DELETE /api/qa/conversation). */
export function useClearQaConversation(clientId: string) {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: () => apiRequest<void>(`/api/qa/conversation${query(clientId)}`, { method: 'DELETE' }),
    onSuccess: () =>
      qc.setQueryData<QaConversation>(qaConversationKey(clientId), (old) => (old ? { ...old, messages: [] } : old)),
  })
}

/** One Server-Sent Event block (`event:` and `data:` lines) parsed into a {@link QaEvent}. */
export function parseSseBlock(block: string): QaEvent | null {
  const data: string[] = []
  for (const line of block.split('\n')) {
    if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5))
  }
  if (data.length === 0) return null // a keep-alive comment, or an event without data
  try {
    return JSON.parse(data.join('\n')) as QaEvent
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
  return new ApiError(
    response.status,
    typeof code === 'string' ? code : `http_${response.status}`,
    typeof message === 'string' && message !== '' ? message : `Request failed (HTTP ${response.status})`,
    body,
  )
}

/**
 * Asks the agent (POST /api/qa/ask) and calls `onEvent` for each event of the answer's stream as
 * it arrives (read with fetch and a ReadableStream: EventSource cannot POST). Rejects with an
 * {@link ApiError} when the question is refused before the stream or the server is not reached.
 */
export async function askQa(clientId: string, ask: QaAsk, onEvent: (e: QaEvent) => void, signal?: AbortSignal): Promise<void> {
  const post = async (): Promise<Response> => {
    const headers: Record<string, string> = { Accept: 'text/event-stream', 'Content-Type': 'application/json' }
    const csrf = readCookie(CSRF_COOKIE)
    if (csrf) headers[CSRF_HEADER] = csrf
    try {
      return await fetch(`/api/qa/ask${query(clientId)}`, {
        method: 'POST',
        headers,
        credentials: 'same-origin',
        body: JSON.stringify(ask),
        signal,
      })
    } catch (error) {
      if (signal?.aborted) throw error
      throw new ApiError(0, 'network_error', 'Unable to reach the server. Check your connection and try again.')
    }
  }
  let response = await post()
  // An expired session is refreshed once, as for every other call (a refused refresh signs out).
  if (response.status === 401 && (await recoverSession())) response = await post()
  if (!response.ok) throw await refusal(response)
  if (!response.body) throw new ApiError(response.status, 'no_stream', 'The answer did not stream.')

  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  for (;;) {
    const { value, done } = await reader.read()
    buffer += (done ? decoder.decode() : decoder.decode(value, { stream: true })).replace(/\r\n?/g, '\n')
    let end = buffer.indexOf('\n\n')
    while (end >= 0) {
      const event = parseSseBlock(buffer.slice(0, end))
      buffer = buffer.slice(end + 2)
      if (event) onEvent(event)
      end = buffer.indexOf('\n\n')
    }
    if (done) break
  }
  const last = parseSseBlock(buffer)
  if (last) onEvent(last)
}
