import type { ReactNode } from 'react'

import { Card } from '@/components/ui/card'

/** The page heading of a calculator, with what sits at its right (the client switcher). */
export function CalculatorHeader({ title, description, aside }: { title: string; description: string; aside?: ReactNode }) {
  return (
    <div className="flex flex-wrap items-end justify-between gap-4">
      <div>
        <h1 className="text-2xl font-bold tracking-tight text-slate-900">{title}</h1>
        <p className="mt-1 text-sm text-slate-500">{description}</p>
      </div>
      {aside}
    </div>
  )
}

/** One figure of the bank (CET1 Capital, Total RWAs, CET1 Ratio, the conversion factor). */
export function FigureCard({ label, children, hint }: { label: string; children: ReactNode; hint?: ReactNode }) {
  return (
    <Card className="p-5">
      <div className="text-sm font-medium text-slate-500">{label}</div>
      <div className="mt-2 text-2xl font-bold tracking-tight text-slate-900">{children}</div>
      {hint ? <div className="mt-1 text-xs text-slate-500">{hint}</div> : null}
    </Card>
  )
}
