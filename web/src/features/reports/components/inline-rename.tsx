import { useRef } from 'react'
import { useForm } from 'react-hook-form'

import { Input } from '@/components/ui/input'

import { MAX_NAME, nameSchema, type NameValues } from '../utils/schemas'

const renameSchema = nameSchema('Name is required')

type Props = {
  initial: string
  label: string
  /** Called with the trimmed new name when it is non-empty and changed. */
  onSave: (name: string) => void
  /** Called once when renaming ends; `byKeyboard` is true for Enter and Escape (not for a blur). */
  onDone: (byKeyboard: boolean) => void
}

/**
 * Inline rename: Enter or leaving the field saves, Escape cancels, a name the schema refuses
 * (blank, too long) just cancels.
 */
export function InlineRename({ initial, label, onSave, onDone }: Props) {
  const { register, getValues } = useForm<NameValues>({ defaultValues: { name: initial } })
  // A ref, not state: the blur that follows Enter or Escape may come before the next render.
  const finished = useRef(false)
  const finish = (save: boolean, byKeyboard: boolean) => {
    if (finished.current) return
    finished.current = true
    const parsed = renameSchema.safeParse(getValues())
    if (save && parsed.success && parsed.data.name !== initial) onSave(parsed.data.name)
    onDone(byKeyboard)
  }
  return (
    <Input
      autoFocus
      aria-label={label}
      maxLength={MAX_NAME}
      {...register('name')}
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
