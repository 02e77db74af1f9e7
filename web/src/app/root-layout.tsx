import { useEffect } from 'react'
import { Outlet, ScrollRestoration } from 'react-router'

import { SESSION_REFRESH_INTERVAL_MS, useAuthStore } from '@/lib/auth-store'

import { AuthOverlay } from './auth-overlay'
import { useRouteTitle } from './titles'

/**
 * Restores the session once, keeps it fresh while signed in, shows the auth overlay and sets the
 * tab title of the matched route.
 */
export function RootLayout() {
  const status = useAuthStore((s) => s.status)
  useRouteTitle()

  useEffect(() => {
    if (useAuthStore.getState().status === 'initializing') void useAuthStore.getState().restore()
  }, [])

  useEffect(() => {
    if (status !== 'authenticated') return
    const timer = window.setInterval(() => void useAuthStore.getState().refreshSession(), SESSION_REFRESH_INTERVAL_MS)
    return () => window.clearInterval(timer)
  }, [status])

  return (
    <>
      <Outlet />
      <AuthOverlay />
      <ScrollRestoration />
    </>
  )
}

/** Shown while the first route module loads. */
export function RouteFallback() {
  return <div className="min-h-svh bg-slate-50" aria-busy="true" />
}
