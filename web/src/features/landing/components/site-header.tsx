import { Link } from 'react-router'

import { Button } from '@/components/ui/button'
import { paths } from '@/config/paths'

import { BrandMark } from './brand-mark'

const anchors = [
  { label: 'About', href: '#about' },
  { label: 'Features', href: '#features' },
  { label: 'Our Approach', href: '#approach' },
  { label: 'Contact', href: '#contact' },
]

/** The public header. On pages other than the landing page the anchors point back to it. */
export function SiteHeader({ onLanding = true }: { onLanding?: boolean }) {
  return (
    <header className="sticky top-0 z-30 border-b border-slate-200/80 bg-white/90 backdrop-blur">
      <div className="mx-auto flex h-16 max-w-6xl items-center justify-between gap-4 px-4 sm:px-6">
        <Link to={paths.landing.getHref()} className="flex items-center gap-2" aria-label="CapOpt home">
          <BrandMark />
        </Link>
        <nav aria-label="Sections" className="hidden items-center gap-7 text-sm font-medium text-slate-600 md:flex">
          {anchors.map((anchor) => (
            <a key={anchor.href} href={onLanding ? anchor.href : `/${anchor.href}`} className="hover:text-brand-700">
              {anchor.label}
            </a>
          ))}
        </nav>
        <Button asChild>
          <Link to={paths.login.getHref()}>Login</Link>
        </Button>
      </div>
    </header>
  )
}
