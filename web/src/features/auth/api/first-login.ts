import type { Me } from '@/api/types/Me'

import { api } from '@/lib/api-client'
import { toMe } from '@/lib/session-api'

/** Records that the user accepted the terms; returns the updated user. */
export async function acceptTerms(): Promise<Me> {
  return toMe(await api.post<unknown>('/api/auth/accept-terms'))
}

/** Changes the password of the signed-in user. */
export async function changePassword(currentPassword: string, newPassword: string): Promise<void> {
  await api.post<void>('/api/auth/change-password', {
    current_password: currentPassword,
    new_password: newPassword,
  })
}
