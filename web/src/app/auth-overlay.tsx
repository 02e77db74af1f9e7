import { useLocation } from 'react-router'

import { Spinner } from '@/components/ui/spinner'
import { PATHS_WITHOUT_AUTH_OVERLAY } from '@/config/paths'
import { useAuthStore } from '@/lib/auth-store'

/** Full-screen 'Verifying authentication...' while the session is restored (except on / and /login). */
export function AuthOverlay() {
  const status = useAuthStore((s) => s.status)
  const { pathname } = useLocation()
  if (status !== 'initializing' || PATHS_WITHOUT_AUTH_OVERLAY.includes(pathname)) return null
  return (
    <div
      role="status"
      aria-live="polite"
      className="fixed inset-0 z-[60] flex flex-col items-center justify-center gap-3 bg-white/95 text-slate-600"
    >
      <Spinner className="size-8 text-brand-700" />
      <p className="text-sm font-medium">Verifying authentication...</p>
    </div>
  )
}
