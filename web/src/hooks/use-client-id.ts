import { useAuthStore } from '@/lib/auth-store'

/**
 * The client a client-scoped screen (board, reports) works on, or null when there is none. Every
 * request and query key of those screens carries it. Today it is the signed-in user's client.
 */
export function useClientId(): string | null {
  return useAuthStore((s) => s.user?.client?.id ?? null)
}
