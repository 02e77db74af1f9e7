import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'

import { api, apiRequest } from '@/lib/api-client'
import { useRealtimeTopic } from '@/lib/realtime'

import type { AssignOutcome } from '@/api/types/AssignOutcome'
import type { AssignToClient } from '@/api/types/AssignToClient'
import type { CreatedUser } from '@/api/types/CreatedUser'
import type { EmailAll } from '@/api/types/EmailAll'
import type { EmailAllOutcome } from '@/api/types/EmailAllOutcome'
import type { ManagedUser } from '@/api/types/ManagedUser'
import type { NewUser } from '@/api/types/NewUser'
import type { Role } from '@/api/types/Role'
import type { SyncOutcome } from '@/api/types/SyncOutcome'
import type { UserEdit } from '@/api/types/UserEdit'
import type { UserPage } from '@/api/types/UserPage'

// User Management's wire types are generated from the server (`web/src/api/types`).
export type { CreatedUser } from '@/api/types/CreatedUser'
export type { ManagedUser } from '@/api/types/ManagedUser'
export type { NewUser } from '@/api/types/NewUser'
export type { Role } from '@/api/types/Role'
export type { UserClient } from '@/api/types/UserClient'
export type { UserEdit } from '@/api/types/UserEdit'
export type { UserPage } from '@/api/types/UserPage'

/** The role filter (spec 000 section 2.7): All Roles, Admins, Approvers, Users, Viewers. */
export type RoleFilter = 'all' | Role

/** What a page of the list is. */
export type UserListRequest = { q: string; role: RoleFilter; page: number; pageSize: number }

/** Query keys of User Management (admin-wide). */
export const userKeys = {
  all: ['admin-users'] as const,
  list: (req: UserListRequest) => ['admin-users', 'list', req] as const,
  user: (id: string) => ['admin-users', 'user', id] as const,
}

/** User Management's topic: users created, edited, deleted, their memberships. */
export const ADMIN_USERS_TOPIC = 'admin:users'
/** Client memberships also move with the Clients page's changes. */
export const ADMIN_CLIENTS_TOPIC = 'admin:clients'

const enc = encodeURIComponent

/** The list's search and role filter as query parameters (the export uses the same). */
export function filterParams(q: string, role: RoleFilter): URLSearchParams {
  const p = new URLSearchParams()
  if (q.trim()) p.set('q', q.trim())
  if (role !== 'all') p.set('role', role)
  return p
}

export function listUsers(req: UserListRequest) {
  const p = filterParams(req.q, req.role)
  p.set('page', String(req.page))
  p.set('page_size', String(req.pageSize))
  return api.get<UserPage>(`/api/admin/users?${p.toString()}`)
}
export const exportHref = (q: string, role: RoleFilter) => {
  const s = filterParams(q, role).toString()
  return `/api/admin/users/export${s ? `?${s}` : ''}`
}
export const createUser = (body: NewUser) => api.post<CreatedUser>('/api/admin/users', body)
export const updateUser = (id: string, body: UserEdit) => apiRequest<ManagedUser>(`/api/admin/users/${enc(id)}`, { method: 'PATCH', body })
export const deleteUser = (id: string) => apiRequest<void>(`/api/admin/users/${enc(id)}`, { method: 'DELETE' })
export const setRole = (id: string, role: Role) => apiRequest<unknown>(`/api/admin/users/${enc(id)}/role`, { method: 'PUT', body: { role } })
export const emailAll = (body: EmailAll) => api.post<EmailAllOutcome>('/api/admin/users/email', body)
export const assignToClient = (body: AssignToClient) => api.post<AssignOutcome>('/api/admin/users/assign-client', body)
export const setMember = (clientId: string, userId: string, role: 'member' | 'approver') =>
  apiRequest<void>(`/api/admin/clients/${enc(clientId)}/members/${enc(userId)}`, { method: 'PUT', body: { role } })
export const removeMember = (clientId: string, userId: string) =>
  apiRequest<void>(`/api/admin/clients/${enc(clientId)}/members/${enc(userId)}`, { method: 'DELETE' })
export const syncAdmins = () => api.post<SyncOutcome>('/api/admin/clients/sync-admins')

/** Reads the CSV the server builds from the list's query (the session refreshed if need be). */
export async function downloadUsersCsv(q: string, role: RoleFilter): Promise<Blob> {
  const response = await fetch(exportHref(q, role), { credentials: 'same-origin' })
  if (!response.ok) throw new Error(`Export failed (${response.status})`)
  return response.blob()
}

// Hooks.

export function useUsers(req: UserListRequest) {
  return useQuery({ queryKey: userKeys.list(req), queryFn: () => listUsers(req), placeholderData: keepPreviousData, retry: false })
}

/** Keeps the list live: users and memberships changed by any administrator read it again. */
export function useLiveUsers() {
  const queryClient = useQueryClient()
  const refetch = () => void queryClient.invalidateQueries({ queryKey: userKeys.all })
  useRealtimeTopic(ADMIN_USERS_TOPIC, { onEvent: refetch, onResync: refetch })
  useRealtimeTopic(ADMIN_CLIENTS_TOPIC, { onEvent: refetch, onResync: refetch })
}

function useInvalidate() {
  const queryClient = useQueryClient()
  return () => queryClient.invalidateQueries({ queryKey: userKeys.all })
}

export function useCreateUser() {
  const invalidate = useInvalidate()
  return useMutation({ mutationFn: createUser, onSettled: invalidate })
}

export function useUpdateUser() {
  const invalidate = useInvalidate()
  return useMutation({ mutationFn: ({ id, body }: { id: string; body: UserEdit }) => updateUser(id, body), onSettled: invalidate })
}

export function useDeleteUser() {
  const invalidate = useInvalidate()
  return useMutation({ mutationFn: deleteUser, onSettled: invalidate })
}

export function useSetRole() {
  const invalidate = useInvalidate()
  return useMutation({ mutationFn: ({ id, role }: { id: string; role: Role }) => setRole(id, role), onSettled: invalidate })
}

export function useEmailAll() {
  return useMutation({ mutationFn: emailAll })
}

export function useAssignToClient() {
  const invalidate = useInvalidate()
  return useMutation({ mutationFn: assignToClient, onSettled: invalidate })
}

export function useSetMember() {
  const invalidate = useInvalidate()
  return useMutation({ mutationFn: ({ clientId, userId, role }: { clientId: string; userId: string; role: 'member' | 'approver' }) => setMember(clientId, userId, role), onSettled: invalidate })
}

export function useRemoveMember() {
  const invalidate = useInvalidate()
  return useMutation({ mutationFn: ({ clientId, userId }: { clientId: string; userId: string }) => removeMember(clientId, userId), onSettled: invalidate })
}

export function useSyncAdmins() {
  const invalidate = useInvalidate()
  return useMutation({ mutationFn: syncAdmins, onSettled: invalidate })
}
