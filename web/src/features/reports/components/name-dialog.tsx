import { useState, type FormEvent } from 'react'

import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { FormField } from '@/components/ui/form-field'
import { Input } from '@/components/ui/input'

type Props = {
  open: boolean
  onOpenChange: (open: boolean) => void
  title: string
  description: string
  label: string
  placeholder: string
  submitLabel: string
  /** The message shown when the trimmed name is empty. */
  requiredMessage: string
  pending: boolean
  onSubmit: (name: string) => void
}

/** A dialog asking for one name (New Report, New Folder). */
export function NameDialog({ open, onOpenChange, title, description, label, placeholder, submitLabel, requiredMessage, pending, onSubmit }: Props) {
  const [name, setName] = useState('')
  const [error, setError] = useState<string>()
  const submit = (e: FormEvent) => {
    e.preventDefault()
    const clean = name.trim()
    if (!clean) {
      setError(requiredMessage)
      return
    }
    onSubmit(clean)
  }
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        if (!next) {
          setName('')
          setError(undefined)
        }
        onOpenChange(next)
      }}
    >
      <DialogContent>
        <form onSubmit={submit} className="flex flex-col gap-4">
          <DialogHeader>
            <DialogTitle>{title}</DialogTitle>
            <DialogDescription>{description}</DialogDescription>
          </DialogHeader>
          <FormField label={label} error={error}>
            {(ids) => <Input {...ids} autoFocus value={name} placeholder={placeholder} maxLength={200} onChange={(e) => setName(e.target.value)} />}
          </FormField>
          <DialogFooter>
            <Button type="button" variant="outline" onClick={() => onOpenChange(false)}>
              Cancel
            </Button>
            <Button type="submit" disabled={pending}>
              {submitLabel}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  )
}
