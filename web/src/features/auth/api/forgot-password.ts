import { api } from '@/lib/api-client'

/** Asks for a reset link. The server always answers 202 with a message, whether or not the address exists. */
export async function requestPasswordReset(email: string): Promise<string> {
  const body = await api.post<{ message?: string } | undefined>('/api/auth/forgot-password', { email })
  return body?.message ?? 'If an account exists for this address, a reset link is on its way.'
}
