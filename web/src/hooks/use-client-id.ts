import { useSearchParams } from 'react-router'

import { useAuthStore } from '@/lib/auth-store'

/** The query parameter that names the client of a client-scoped screen: `?client=<id>`. */
export const CLIENT_PARAM = 'client'

/**
 * The client a client-scoped screen (board, reports) works on, or null when there is none. Every
 * request and query key of those screens carries it. A user works on their own client; an
 * administrator picks one with the client switcher, carried in the URL (`?client=<id>`), and
 * without a choice works on their first client.
 */
export function useClientId(): string | null {
  const [params] = useSearchParams()
  const user = useAuthStore((s) => s.user)
  if (!user) return null
  if (user.role === 'admin') return params.get(CLIENT_PARAM) || user.client?.id || null
  return user.client?.id ?? null
}

/** `href` with the client of the current screen kept (`?client=<id>`), for links between client screens. */
export function withClient(href: string, clientId: string | null | undefined): string {
  if (!clientId) return href
  const [path, query = ''] = href.split('?')
  const params = new URLSearchParams(query)
  params.set(CLIENT_PARAM, clientId)
  return `${path}?${params.toString()}`
}
