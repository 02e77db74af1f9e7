import { zodResolver } from '@hookform/resolvers/zod'
import { useForm, useWatch } from 'react-hook-form'

import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { FormField } from '@/components/ui/form-field'
import { Input } from '@/components/ui/input'

import { nameSchema, type NameValues } from '../utils/schemas'

type Props = { open: boolean; onOpenChange: (open: boolean) => void; onAdd: (name: string) => Promise<boolean> }

/** The Add Column dialog: field Name, Cancel and Add Column. */
export function AddColumnDialog({ open, onOpenChange, onAdd }: Props) {
  const {
    register,
    handleSubmit,
    reset,
    control,
    formState: { errors, isSubmitting },
  } = useForm<NameValues>({ resolver: zodResolver(nameSchema), defaultValues: { name: '' } })
  const blank = useWatch({ control, name: 'name' }).trim() === ''
  const submit = handleSubmit(async ({ name }) => {
    if (await onAdd(name)) {
      reset()
      onOpenChange(false)
    }
  })
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Add Column</DialogTitle>
          <DialogDescription>Columns appear at the right end of the board.</DialogDescription>
        </DialogHeader>
        <form className="space-y-4" onSubmit={submit} noValidate>
          <FormField label="Name" error={errors.name?.message}>
            {(ids) => <Input {...ids} placeholder="Enter column name" autoFocus {...register('name')} />}
          </FormField>
          <DialogFooter>
            <Button variant="outline" onClick={() => onOpenChange(false)}>
              Cancel
            </Button>
            <Button type="submit" disabled={isSubmitting || blank}>
              Add Column
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  )
}
