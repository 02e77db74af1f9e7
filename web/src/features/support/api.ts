import { useQuery } from '@tanstack/react-query'

import { api } from '@/lib/api-client'

import type { SupportContact } from '@/api/types/SupportContact'

export type { SupportContact } from '@/api/types/SupportContact'

export const supportKeys = {
  contact: () => ['support', 'contact'] as const,
}

/** `GET /api/support`: the support address of this deployment (`SUPPORT_EMAIL`). */
export const getSupportContact = () => api.get<SupportContact>('/api/support')

export function useSupportContact() {
  return useQuery({ queryKey: supportKeys.contact(), queryFn: getSupportContact, staleTime: Infinity })
}
