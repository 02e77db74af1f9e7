import type { Me } from '@/api/types/Me'
import { create } from 'zustand'

import { ApiError, isUnauthenticated, setSessionListener } from './api-client'
import { queryClient } from './query-client'
import * as session from './session-api'
import { dismissToasts } from './toast'

export type AuthStatus = 'initializing' | 'authenticated' | 'unauthenticated' | 'error'

/** Session restore gives up after this long with {@link RESTORE_TIMEOUT_MESSAGE}. */
export const RESTORE_DEADLINE_MS = 15_000
export const RESTORE_TIMEOUT_MESSAGE = 'Authentication timed out. Please try again.'
/** Waits before the automatic retries of a failed restore (network or server errors only). */
export const RESTORE_RETRY_DELAYS_MS = [1000, 2000]
/** The session is refreshed this often while signed in. */
export const SESSION_REFRESH_INTERVAL_MS = 10 * 60_000

type AuthState = {
  status: AuthStatus
  user: Me | null
  /** Why the last restore failed (status `error`). */
  error: string | null
  /** Restores the session from the cookies (GET /api/auth/session), retrying transient failures. */
  restore: () => Promise<void>
  /** Signs in; the store becomes authenticated with the returned user. */
  signIn: (email: string, password: string) => Promise<Me>
  /** Signs out on the server, then forgets the user and every cached query. */
  signOut: () => Promise<void>
  /** Refreshes the session cookies; a refused refresh signs the user out locally. */
  refreshSession: () => Promise<void>
  /** Replaces the signed-in user (after accepting terms, changing the password...). */
  setUser: (user: Me) => void
  /** Forgets the user locally and clears the query cache. */
  clearSession: () => void
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

let restoreInFlight: Promise<void> | null = null

export const useAuthStore = create<AuthState>()((set, get) => ({
  status: 'initializing',
  user: null,
  error: null,

  restore: () => {
    restoreInFlight ??= (async () => {
      set({ status: 'initializing', error: null })
      const deadline = Date.now() + RESTORE_DEADLINE_MS
      for (let attempt = 0; ; attempt++) {
        const remaining = deadline - Date.now()
        try {
          if (remaining <= 0) throw new ApiError(0, 'timeout', RESTORE_TIMEOUT_MESSAGE)
          const user = await session.getSession({ timeoutMs: remaining })
          set(user ? { status: 'authenticated', user, error: null } : { status: 'unauthenticated', user: null, error: null })
          return
        } catch (error) {
          const timedOut = error instanceof ApiError && error.code === 'timeout'
          const delay = RESTORE_RETRY_DELAYS_MS[attempt]
          if (timedOut || delay === undefined || Date.now() + delay >= deadline) {
            const message = timedOut
              ? RESTORE_TIMEOUT_MESSAGE
              : error instanceof Error
                ? error.message
                : 'Unable to restore session.'
            set({ status: 'error', user: null, error: message })
            return
          }
          await sleep(delay)
        }
      }
    })().finally(() => {
      restoreInFlight = null
    })
    return restoreInFlight
  },

  signIn: async (email, password) => {
    const user = await session.login(email, password)
    // The failed attempts' toasts ('Login failed') are over: they must not linger over the app.
    dismissToasts()
    set({ status: 'authenticated', user, error: null })
    return user
  },

  signOut: async () => {
    await session.logout()
    get().clearSession()
  },

  refreshSession: async () => {
    try {
      const user = await session.refresh()
      if (user) set({ user })
    } catch (error) {
      if (isUnauthenticated(error)) get().clearSession()
      // Other failures (network) leave the session as it is; the next call or refresh retries.
    }
  },

  setUser: (user) => set({ user, status: 'authenticated', error: null }),

  clearSession: () => {
    set({ status: 'unauthenticated', user: null, error: null })
    queryClient.clear()
  },
}))

setSessionListener({
  onSignedOut: () => {
    if (useAuthStore.getState().status === 'authenticated') useAuthStore.getState().clearSession()
  },
  onRefreshed: (body) => {
    const user = session.userFromBody(body)
    if (user && useAuthStore.getState().status === 'authenticated') useAuthStore.setState({ user })
  },
})
