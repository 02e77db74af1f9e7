import { cn } from '@/lib/cn'

const STYLES: Record<string, string> = {
  processing: 'border-amber-200 bg-amber-50 text-amber-800',
  completed: 'border-emerald-200 bg-emerald-50 text-emerald-800',
  failed: 'border-red-200 bg-red-50 text-red-800',
}

/** An upload's status (spec: processing, completed, failed). */
export function StatusBadge({ status }: { status: string }) {
  return (
    <span
      data-testid="kb-status"
      className={cn('inline-flex items-center rounded-full border px-2 py-0.5 text-xs font-medium', STYLES[status] ?? 'border-slate-200 bg-slate-50 text-slate-700')}
    >
      {status}
    </span>
  )
}
