import { ChevronDown } from 'lucide-react'
import type { ComponentProps } from 'react'

import { cn } from '@/lib/cn'

/**
 * A native `<select>` styled like `Input` (keyboard, screen readers and mobile pickers work as the
 * platform does). Use it with react-hook-form's `register` and inside `FormField`:
 *
 *     <FormField label="Priority" error={errors.priority?.message}>
 *       {(ids) => <Select {...ids} {...register('priority')}><option value="low">Low</option></Select>}
 *     </FormField>
 */
export function Select({ className, children, ...props }: ComponentProps<'select'>) {
  return (
    <div className="relative">
      <select
        className={cn(
          'flex h-10 w-full appearance-none rounded-md border border-slate-300 bg-white py-2 pr-9 pl-3 text-sm text-slate-900 shadow-xs focus-visible:border-brand-500 focus-visible:ring-2 focus-visible:ring-brand-200 focus-visible:outline-none disabled:cursor-not-allowed disabled:opacity-60 aria-invalid:border-red-500 aria-invalid:ring-red-100',
          className,
        )}
        {...props}
      >
        {children}
      </select>
      <ChevronDown aria-hidden className="pointer-events-none absolute top-1/2 right-3 size-4 -translate-y-1/2 text-slate-500" />
    </div>
  )
}
