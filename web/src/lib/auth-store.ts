import type { Me } from '@/api/types/Me'
import { create } from 'zustand'

import { api, ApiError, CSRF_COOKIE, isUnauthenticated, setSessionListener } from './api-client'
import { readCookie, writeCookie } from './cookies'
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

/**
 * A readable cookie this app sets when it learns that the browser has no session (a restore found
 * none, or the user signed out) and removes at sign-in. While it is there a page load does not ask
 * the server (which would answer 401 to `/api/auth/me` and to the refresh, two console errors on
 * every anonymous page load); the session cookies themselves are httpOnly and cannot be read.
 */
export const SIGNED_OUT_COOKIE = 'capopt_signed_out'
const SIGNED_OUT_MAX_AGE_S = 365 * 24 * 60 * 60

function rememberSignedOut(signedOut: boolean) {
  if (typeof document === 'undefined') return
  if (signedOut) writeCookie(SIGNED_OUT_COOKIE, '1', SIGNED_OUT_MAX_AGE_S)
  else if (readCookie(SIGNED_OUT_COOKIE) !== null) writeCookie(SIGNED_OUT_COOKIE, '', 0)
}

type AuthState = {
  status: AuthStatus
  user: Me | null
  /** Why the last restore failed (status `error`). */
  error: string | null
  /** Restores the session from the cookies (GET /api/auth/me), retrying transient failures. */
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
      if (readCookie(SIGNED_OUT_COOKIE) === '1') {
        // Known to be signed out: no probe, no 401s.
        set({ status: 'unauthenticated', user: null, error: null })
        // The probe would have brought the CSRF cookie (the server hands it out with any answer);
        // without it the visit's first sign-in or waitlist request would be refused once (403).
        if (readCookie(CSRF_COOKIE) === null) await api.get('/api/health').catch(() => undefined)
        return
      }
      set({ status: 'initializing', error: null })
      const deadline = Date.now() + RESTORE_DEADLINE_MS
      for (let attempt = 0; ; attempt++) {
        const remaining = deadline - Date.now()
        try {
          if (remaining <= 0) throw new ApiError(0, 'timeout', RESTORE_TIMEOUT_MESSAGE)
          const user = await session.getMe({ timeoutMs: remaining })
          set({ status: 'authenticated', user, error: null })
          return
        } catch (error) {
          if (isUnauthenticated(error)) {
            rememberSignedOut(true)
            set({ status: 'unauthenticated', user: null, error: null })
            return
          }
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
    rememberSignedOut(false)
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

  setUser: (user) => {
    rememberSignedOut(false)
    set({ user, status: 'authenticated', error: null })
  },

  clearSession: () => {
    rememberSignedOut(true)
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
