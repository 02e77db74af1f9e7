import { Link } from 'react-router'

import { Button } from '@/components/ui/button'
import { homePathFor } from '@/config/navigation'
import { paths } from '@/config/paths'
import { useAuthStore } from '@/lib/auth-store'

/** 'Return to Home': a signed-in user's home (admin dashboard or client home), else the landing page. */
function useHomeHref(): string {
  const role = useAuthStore((s) => (s.status === 'authenticated' ? s.user?.role : undefined))
  return role ? homePathFor(role) : paths.landing.getHref()
}

function NotFoundContent() {
  const home = useHomeHref()
  return (
    <>
      <p className="text-7xl font-bold text-brand-700">404</p>
      <h1 className="text-2xl font-semibold text-slate-900">Oops! Page not found</h1>
      <p className="max-w-md text-slate-500">The page you are looking for does not exist or has been moved.</p>
      <Button asChild>
        <Link to={home}>Return to Home</Link>
      </Button>
    </>
  )
}

/** An unknown path outside the signed-in areas: a page of its own. */
export function Component() {
  return (
    <main className="flex min-h-svh flex-col items-center justify-center gap-4 bg-slate-50 px-4 text-center">
      <NotFoundContent />
    </main>
  )
}

/** An unknown path under /admin or /client (after the guard let the user in): inside the shell. */
export function InShell() {
  return (
    <div className="flex flex-col items-center justify-center gap-4 py-16 text-center" data-testid="not-found-in-shell">
      <NotFoundContent />
    </div>
  )
}
