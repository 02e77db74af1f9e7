import { zodResolver } from '@hookform/resolvers/zod'
import { useMemo, type ReactNode } from 'react'
import { useForm } from 'react-hook-form'

import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { FormField } from '@/components/ui/form-field'
import { Input } from '@/components/ui/input'

import { MAX_NAME, nameSchema, type NameValues } from '../utils/schemas'

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
  /** Further fields under the name (New Report's template). */
  children?: ReactNode
}

/** A dialog asking for one name (New Report, New Folder). */
export function NameDialog({ open, onOpenChange, title, description, label, placeholder, submitLabel, requiredMessage, pending, onSubmit, children }: Props) {
  const schema = useMemo(() => nameSchema(requiredMessage), [requiredMessage])
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors },
  } = useForm<NameValues>({ resolver: zodResolver(schema), defaultValues: { name: '' } })
  const submit = handleSubmit(({ name }) => onSubmit(name))
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        if (!next) reset()
        onOpenChange(next)
      }}
    >
      <DialogContent>
        <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
          <DialogHeader>
            <DialogTitle>{title}</DialogTitle>
            <DialogDescription>{description}</DialogDescription>
          </DialogHeader>
          <FormField label={label} error={errors.name?.message}>
            {(ids) => <Input {...ids} autoFocus placeholder={placeholder} maxLength={MAX_NAME} {...register('name')} />}
          </FormField>
          {children}
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
