import { useId } from 'react'

import { Label } from '@/components/ui/label'
import { cn } from '@/lib/cn'

type Props = {
  label: string
  value: number
  min: number
  max: number
  step: number
  onChange: (value: number) => void
  /** The value as the label shows it. */
  display: string
  disabled?: boolean
}

/** A labelled range input (keyboard: arrows move by one step, Home and End to the ends). */
export function Slider({ label, value, min, max, step, onChange, display, disabled }: Props) {
  const id = useId()
  return (
    <div className={cn('space-y-2', disabled && 'opacity-60')}>
      <div className="flex items-center justify-between gap-3">
        <Label htmlFor={id}>{label}</Label>
        <span className="text-sm font-semibold text-slate-900 tabular-nums">{display}</span>
      </div>
      <input
        id={id}
        type="range"
        min={min}
        max={max}
        step={step}
        value={Math.min(max, Math.max(min, value))}
        disabled={disabled}
        aria-valuetext={display}
        onChange={(e) => onChange(Number(e.target.value))}
        className="h-2 w-full cursor-pointer accent-brand-700 disabled:cursor-not-allowed"
      />
      <div className="flex justify-between text-xs text-slate-500" aria-hidden="true">
        <span>{min}</span>
        <span>{max}</span>
      </div>
    </div>
  )
}
