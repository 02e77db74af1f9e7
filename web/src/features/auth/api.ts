// The auth area's requests (sign-in and session calls live in lib/session-api.ts). None is about a
// client's data, so none carries a client id; query keys come from `authKeys`.

import type { InvitationInfo } from '@/api/types/InvitationInfo'
import type { Me } from '@/api/types/Me'

import { api } from '@/lib/api-client'
import { normaliseRole } from '@/lib/roles'
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

/** Asks for a reset link. The server always answers 202 with a message, whether or not the address exists. */
export async function requestPasswordReset(email: string): Promise<string> {
  const body = await api.post<{ message?: string } | undefined>('/api/auth/forgot-password', { email })
  return body?.message ?? 'If an account exists for this address, a reset link is on its way.'
}

/** Query keys of the auth area. */
export const authKeys = {
  invitation: (token: string) => ['invitation', token] as const,
}

/** Reads an invitation by its token; 404 `invalid_invitation` when it is unknown, used or expired. */
export async function getInvitation(token: string): Promise<InvitationInfo> {
  const body = await api.get<InvitationInfo>(`/api/invitations/${encodeURIComponent(token)}`)
  return { ...body, role: normaliseRole(body.role) }
}

export type AcceptInvitationInput = { name: string; last_name: string; password: string }

/** Creates the account for an invitation; answers with a message to show. */
export async function acceptInvitation(token: string, input: AcceptInvitationInput): Promise<string | undefined> {
  const body = await api.post<{ message?: string } | undefined>(
    `/api/invitations/${encodeURIComponent(token)}/accept`,
    input,
  )
  return body?.message
}

/** Sets a new password with the token from the reset (or invitation) link. */
export async function resetPassword(token: string, password: string): Promise<void> {
  await api.post<void>('/api/auth/reset-password', { token, password })
}
