import type { ComponentProps } from 'react'

import { Input } from '@/components/ui/input'
import { cleanSpanishAmount, formatSpanishAmount, parseSpanishAmount } from '@/lib/spanish-number'

type Props = Omit<ComponentProps<'input'>, 'value' | 'onChange'> & { value: string; onValueChange: (text: string) => void }

/**
 * An amount typed in Spanish notation (`1.234.567,89`): only digits, dots and one comma stay as
 * it is typed; leaving the field writes it with thousands separators and at most two decimals.
 */
export function AmountInput({ value, onValueChange, onBlur, ...props }: Props) {
  return (
    <Input
      inputMode="decimal"
      autoComplete="off"
      {...props}
      value={value}
      onChange={(e) => onValueChange(cleanSpanishAmount(e.target.value))}
      onBlur={(e) => {
        const n = parseSpanishAmount(value)
        onValueChange(n === null ? '' : formatSpanishAmount(Math.round(n * 100) / 100))
        onBlur?.(e)
      }}
    />
  )
}
