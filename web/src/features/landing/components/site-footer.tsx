import { Link } from 'react-router'

import { paths } from '@/config/paths'

import { BrandMark } from './brand-mark'

export function SiteFooter() {
  return (
    <footer className="border-t border-slate-800 bg-slate-950 text-slate-400">
      <div className="mx-auto flex max-w-6xl flex-col gap-6 px-4 py-10 sm:px-6 md:flex-row md:items-center md:justify-between">
        <div className="space-y-2">
          <BrandMark inverted />
          <p className="max-w-sm text-sm">Regulatory capital optimisation for banks and their advisers.</p>
        </div>
        <nav aria-label="Legal" className="flex flex-wrap gap-6 text-sm">
          <Link to={paths.terms.getHref()} className="hover:text-white">
            Terms of Service
          </Link>
          <Link to={paths.privacy.getHref()} className="hover:text-white">
            Privacy Policy
          </Link>
          <Link to={paths.cookies.getHref()} className="hover:text-white">
            Cookie Policy
          </Link>
        </nav>
        <p className="text-sm">© {new Date().getFullYear()} CapOpt. All rights reserved.</p>
      </div>
    </footer>
  )
}
