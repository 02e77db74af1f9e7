import type { WaitlistResponse } from '@/api/types/WaitlistResponse'

import { ApiError, api } from '@/lib/api-client'

export type WaitlistSource = 'hero' | 'cta'

function isWaitlistResponse(body: unknown): body is WaitlistResponse {
  return (
    body !== null &&
    typeof body === 'object' &&
    typeof (body as WaitlistResponse).success === 'boolean' &&
    typeof (body as WaitlistResponse).code === 'string'
  )
}

/**
 * Adds an address to the waitlist. The server answers with a `WaitlistResponse` body on every
 * status (200 OK or ALREADY_REGISTERED, 429 RATE_LIMITED, 422 INVALID_EMAIL), so the body is read
 * whatever the status; anything else is thrown.
 */
export async function joinWaitlist(email: string, source: WaitlistSource): Promise<WaitlistResponse> {
  try {
    const body = await api.post<unknown>('/api/waitlist', { email, name: null, source })
    if (isWaitlistResponse(body)) return body
    throw new ApiError(200, 'invalid_response', 'Unexpected answer from the server')
  } catch (error) {
    if (error instanceof ApiError && isWaitlistResponse(error.body)) return error.body
    throw error
  }
}
