import type { ReactNode } from 'react'
import { Link } from 'react-router'

import { BrandLogo } from '@/components/ui/brand-logo'
import { paths } from '@/config/paths'

type Props = { title: string; description?: ReactNode; children: ReactNode; footer?: ReactNode }

/** The centred card the access screens share. */
export function AuthLayout({ title, description, children, footer }: Props) {
  return (
    <div className="flex min-h-svh flex-col items-center justify-center bg-gradient-to-b from-brand-50 to-slate-100 px-4 py-12">
      <Link to={paths.landing.getHref()} className="mb-8 flex items-center gap-2" aria-label="CapOpt home">
        <BrandLogo className="size-9" />
        <span className="text-xl font-bold text-slate-900">CapOpt</span>
      </Link>
      <main className="w-full max-w-md rounded-2xl border border-slate-200 bg-white p-8 shadow-lg shadow-slate-900/5">
        <div className="mb-6 space-y-2 text-center">
          <h1 className="text-2xl font-bold tracking-tight text-slate-900">{title}</h1>
          {description ? <div className="text-sm text-slate-500">{description}</div> : null}
        </div>
        {children}
      </main>
      {footer ? <div className="mt-6 text-center text-sm text-slate-500">{footer}</div> : null}
    </div>
  )
}
