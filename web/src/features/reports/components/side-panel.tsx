import { ChevronDown } from 'lucide-react'
import { useId, useState, type ReactNode } from 'react'

import { cn } from '@/lib/cn'

/** One collapsible part of the report editor's side panel (Structure, Branding, Settings). */
export function SidePanel({ title, defaultOpen = true, children }: { title: string; defaultOpen?: boolean; children: ReactNode }) {
  const [open, setOpen] = useState(defaultOpen)
  const id = useId()
  return (
    <div className="rounded-lg border border-slate-200 bg-white p-4">
      <h2 className="text-sm font-semibold text-slate-900">
        <button
          type="button"
          aria-expanded={open}
          aria-controls={id}
          onClick={() => setOpen((o) => !o)}
          className="flex w-full items-center justify-between gap-2 rounded-md text-left outline-none focus-visible:ring-2 focus-visible:ring-brand-200"
        >
          {title}
          <ChevronDown className={cn('size-4 text-slate-500 transition-transform', !open && '-rotate-90')} aria-hidden="true" />
        </button>
      </h2>
      <div id={id} hidden={!open} className="mt-2">
        {children}
      </div>
    </div>
  )
}
