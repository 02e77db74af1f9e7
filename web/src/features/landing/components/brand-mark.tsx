import { BrandLogo } from '@/components/ui/brand-logo'

/** The product's logo and name. */
export function BrandMark({ inverted = false }: { inverted?: boolean }) {
  return (
    <span className="flex items-center gap-2">
      <BrandLogo inverted={inverted} />
      <span className={inverted ? 'text-lg font-bold text-white' : 'text-lg font-bold text-slate-900'}>CapOpt</span>
    </span>
  )
}
