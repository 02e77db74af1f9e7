import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import type { QaAsk } from '@/api/types/QaAsk'
import type { QaConversation } from '@/api/types/QaConversation'
import type { QaEvent } from '@/api/types/QaEvent'
import { api, apiRequest } from '@/lib/api-client'
import { postEventStream } from '@/lib/event-stream'

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

/**
 * Asks the agent (POST /api/qa/ask) and calls `onEvent` for each event of the answer's stream as
 * it arrives. Rejects with an {@link ApiError} when the question is refused before the stream or
 * the server is not reached.
 */
export async function askQa(clientId: string, ask: QaAsk, onEvent: (e: QaEvent) => void, signal?: AbortSignal): Promise<void> {
  await postEventStream<QaEvent>(
    `/api/qa/ask${query(clientId)}`,
    () => ({ body: JSON.stringify(ask), contentType: 'application/json' }),
    onEvent,
    signal,
  )
}
