import { cn } from '@/lib/cn'

/** The product's mark: rising bars on a rounded square. */
export function BrandLogo({ inverted = false, className }: { inverted?: boolean; className?: string }) {
  return (
    <svg viewBox="0 0 32 32" className={cn('size-8 shrink-0', className)} aria-hidden="true">
      <rect width="32" height="32" rx="7" fill={inverted ? '#ffffff' : '#1c35d6'} />
      <path d="M8 22V14M14 22V10M20 22V16M26 22V7" stroke={inverted ? '#1c35d6' : '#ffffff'} strokeWidth="3" strokeLinecap="round" />
    </svg>
  )
}
