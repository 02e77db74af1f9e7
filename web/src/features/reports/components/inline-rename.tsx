import { useRef, useState } from 'react'

import { Input } from '@/components/ui/input'

type Props = {
  initial: string
  label: string
  /** Called with the trimmed new name when it is non-empty and changed. */
  onSave: (name: string) => void
  /** Called once when renaming ends; `byKeyboard` is true for Enter and Escape (not for a blur). */
  onDone: (byKeyboard: boolean) => void
}

/** Inline rename: Enter or leaving the field saves, Escape cancels, an empty name just cancels. */
export function InlineRename({ initial, label, onSave, onDone }: Props) {
  const [value, setValue] = useState(initial)
  // A ref, not state: the blur that follows Enter or Escape may come before the next render.
  const finished = useRef(false)
  const finish = (save: boolean, byKeyboard: boolean) => {
    if (finished.current) return
    finished.current = true
    const name = value.trim()
    if (save && name !== '' && name !== initial) onSave(name)
    onDone(byKeyboard)
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
        if (e.key === 'Enter') {
          e.preventDefault()
          finish(true, true)
        }
        if (e.key === 'Escape') {
          e.preventDefault()
          finish(false, true)
        }
      }}
      onBlur={() => finish(true, false)}
      className="h-8"
    />
  )
}
