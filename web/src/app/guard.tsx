import { useEffect } from 'react'
import { Navigate, Outlet, useLocation } from 'react-router'

import { homePathFor } from '@/config/navigation'
import { paths, safeRedirect } from '@/config/paths'
import { useAuthStore } from '@/lib/auth-store'
import { toast } from '@/lib/toast'

/** Message carried to the login page when the session could not be checked. */
export const AUTH_ERROR_REDIRECT_MESSAGE = 'Authentication error occurred'

export type LoginRedirectState = { from?: string; authError?: string; notice?: string }

/**
 * Guards /admin and /client. Anonymous or errored users go to /login carrying the origin path;
 * non-admins on /admin go to /client/home. While the session is being restored nothing renders
 * (the 'Verifying authentication...' overlay is showing).
 */
export function RequireAuth({ area }: { area: 'admin' | 'client' }) {
  const status = useAuthStore((s) => s.status)
  const role = useAuthStore((s) => s.user?.role)
  const location = useLocation()

  if (status === 'initializing') return null
  if (status !== 'authenticated' || !role) {
    const from = `${location.pathname}${location.search}${location.hash}`
    const state: LoginRedirectState = { from }
    if (status === 'error') state.authError = AUTH_ERROR_REDIRECT_MESSAGE
    return <Navigate to={paths.login.getHref(from)} state={state} replace />
  }
  if (area === 'admin' && role !== 'admin') {
    return <NotAnAdmin deniedToast={ADMIN_ONLY_PAGES.includes(location.pathname.replace(/\/+$/, ''))} />
  }
  return <Outlet />
}

/** The admin pages whose refusal a non-admin is told about (spec 000 section 2.2). */
const ADMIN_ONLY_PAGES: string[] = [paths.admin.clients.path, paths.admin.userManagement.path]

function NotAnAdmin({ deniedToast }: { deniedToast: boolean }) {
  useEffect(() => {
    if (deniedToast) toast.error('Access denied')
  }, [deniedToast])
  return <Navigate to={paths.client.home.getHref()} replace />
}

/** The login page for anonymous users only: a signed-in user goes to the requested page or their home. */
export function GuestOnly() {
  const status = useAuthStore((s) => s.status)
  const role = useAuthStore((s) => s.user?.role)
  const location = useLocation()

  if (status === 'authenticated' && role) {
    const requested =
      new URLSearchParams(location.search).get('redirect') ?? (location.state as LoginRedirectState | null)?.from
    return <Navigate to={safeRedirect(requested) ?? homePathFor(role)} replace />
  }
  return <Outlet />
}
