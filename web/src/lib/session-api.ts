import type { ClientRef } from '@/api/types/ClientRef'
import type { Me } from '@/api/types/Me'

import { api } from './api-client'
import { normaliseRole } from './roles'

/** Reads a user object from the wire, normalising the role at the boundary. */
export function toMe(raw: unknown): Me {
  const value = (raw ?? {}) as Partial<Me> & Record<string, unknown>
  const client = value.client as ClientRef | null | undefined
  return {
    id: String(value.id ?? ''),
    email: String(value.email ?? ''),
    name: String(value.name ?? ''),
    last_name: String(value.last_name ?? ''),
    role: normaliseRole(value.role),
    company: typeof value.company === 'string' ? value.company : null,
    client: client && typeof client === 'object' ? { id: String(client.id), name: String(client.name) } : null,
    terms_accepted_at: typeof value.terms_accepted_at === 'string' ? value.terms_accepted_at : null,
    password_changed_at: typeof value.password_changed_at === 'string' ? value.password_changed_at : null,
    requires_terms: Boolean(value.requires_terms),
    requires_password_change: Boolean(value.requires_password_change),
  }
}

/** Reads `{user: Me}`. */
export function userFromBody(body: unknown): Me | null {
  if (body && typeof body === 'object' && 'user' in body) {
    return toMe((body as { user: unknown }).user)
  }
  return null
}

export async function getMe(options?: { timeoutMs?: number }): Promise<Me> {
  return toMe(await api.get<unknown>('/api/auth/me', options))
}

/**
 * `GET /api/auth/session`: this browser's user, or null without a session. The server restores an
 * expired access token from the refresh cookie itself, so a page load never meets a 401.
 */
export async function getSession(options?: { timeoutMs?: number }): Promise<Me | null> {
  const body = await api.get<{ user: unknown }>('/api/auth/session', options)
  return body && body.user ? toMe(body.user) : null
}

export async function login(email: string, password: string): Promise<Me> {
  const body = await api.post<unknown>('/api/auth/login', { email, password })
  const user = userFromBody(body)
  if (!user) throw new Error('The server answered the login without a user')
  return user
}

export async function refresh(): Promise<Me | null> {
  return userFromBody(await api.post<unknown>('/api/auth/refresh'))
}

export async function logout(): Promise<void> {
  await api.post<void>('/api/auth/logout')
}
