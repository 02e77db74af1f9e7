import { api } from '@/lib/api-client'

/** Sets a new password with the token from the reset (or invitation) link. */
export async function resetPassword(token: string, password: string): Promise<void> {
  await api.post<void>('/api/auth/reset-password', { token, password })
}
