import type { ComponentProps } from 'react'

import { cn } from '@/lib/cn'

/** A multi-line text field styled like `Input`; use it with `register` inside `FormField`. */
export function Textarea({ className, rows = 4, ...props }: ComponentProps<'textarea'>) {
  return (
    <textarea
      rows={rows}
      className={cn(
        'flex min-h-20 w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm text-slate-900 shadow-xs placeholder:text-slate-400 focus-visible:border-brand-500 focus-visible:ring-2 focus-visible:ring-brand-200 focus-visible:outline-none disabled:cursor-not-allowed disabled:opacity-60 read-only:bg-slate-50 aria-invalid:border-red-500 aria-invalid:ring-red-100',
        className,
      )}
      {...props}
    />
  )
}
