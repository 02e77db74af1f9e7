import { useState } from 'react'

import { Input } from '@/components/ui/input'

type Props = {
  initial: string
  label: string
  /** Called with the trimmed new name when it is non-empty and changed. */
  onSave: (name: string) => void
  onDone: () => void
}

/** Inline rename: Enter or leaving the field saves, Escape cancels, an empty name just cancels. */
export function InlineRename({ initial, label, onSave, onDone }: Props) {
  const [value, setValue] = useState(initial)
  const [finished, setFinished] = useState(false)
  const finish = (save: boolean) => {
    if (finished) return
    setFinished(true)
    const name = value.trim()
    if (save && name !== '' && name !== initial) onSave(name)
    onDone()
  }
  return (
    <Input
      autoFocus
      aria-label={label}
      value={value}
      onChange={(e) => setValue(e.target.value)}
      onClick={(e) => e.stopPropagation()}
      onKeyDown={(e) => {
        e.stopPropagation()
        if (e.key === 'Enter') finish(true)
        if (e.key === 'Escape') finish(false)
      }}
      onBlur={() => finish(true)}
      className="h-8"
    />
  )
}
