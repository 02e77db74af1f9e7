/** The product's logo and name. */
export function BrandMark({ inverted = false }: { inverted?: boolean }) {
  return (
    <span className="flex items-center gap-2">
      <svg viewBox="0 0 32 32" className="size-8" aria-hidden="true">
        <rect width="32" height="32" rx="7" fill={inverted ? '#ffffff' : '#1c35d6'} />
        <path
          d="M8 22V14M14 22V10M20 22V16M26 22V7"
          stroke={inverted ? '#1c35d6' : '#ffffff'}
          strokeWidth="3"
          strokeLinecap="round"
        />
      </svg>
      <span className={inverted ? 'text-lg font-bold text-white' : 'text-lg font-bold text-slate-900'}>CapOpt</span>
    </span>
  )
}
