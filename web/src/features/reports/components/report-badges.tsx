import type { ReportStatus } from '@/api/types/ReportStatus'

import { cn } from '@/lib/cn'

/** Status badge: draft in the secondary style, published in the default style. */
export function StatusBadge({ status }: { status: ReportStatus }) {
  return (
    <span
      className={cn(
        'inline-flex items-center rounded-full px-2 py-0.5 text-xs font-medium',
        status === 'published' ? 'bg-brand-700 text-white' : 'bg-slate-100 text-slate-700',
      )}
    >
      {status === 'published' ? 'Published' : 'Draft'}
    </span>
  )
}

export function TemplateBadge() {
  return <span className="inline-flex items-center rounded-full border border-slate-300 px-2 py-0.5 text-xs text-slate-600">Template</span>
}
