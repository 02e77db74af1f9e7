import { Link } from 'react-router'

import { Button } from '@/components/ui/button'
import { paths } from '@/config/paths'

export function Component() {
  return (
    <main className="flex min-h-svh flex-col items-center justify-center gap-4 bg-slate-50 px-4 text-center">
      <p className="text-7xl font-bold text-brand-700">404</p>
      <h1 className="text-2xl font-semibold text-slate-900">Oops! Page not found</h1>
      <p className="max-w-md text-slate-500">The page you are looking for does not exist or has been moved.</p>
      <Button asChild>
        <Link to={paths.landing.getHref()}>Return to Home</Link>
      </Button>
    </main>
  )
}
