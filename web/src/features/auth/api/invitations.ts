import type { InvitationInfo } from '@/api/types/InvitationInfo'

import { api } from '@/lib/api-client'
import { normaliseRole } from '@/lib/roles'

export function invitationQueryKey(token: string) {
  return ['invitation', token] as const
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
