import type { Category } from '@/api/types/Category'
import { Trash2 } from 'lucide-react'
import { zodResolver } from '@hookform/resolvers/zod'
import { useForm, useWatch } from 'react-hook-form'

import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { Input } from '@/components/ui/input'

import { nameSchema, type NameValues } from '../utils/schemas'

type Props = {
  open: boolean
  onOpenChange: (open: boolean) => void
  categories: Category[]
  onCreate: (name: string) => Promise<boolean>
  onDelete: (category: Category) => void
}

/** Manage Categories: the default categories (never deletable) and the client's own. */
export function CategoriesDialog({ open, onOpenChange, categories, onCreate, onDelete }: Props) {
  const { register, handleSubmit, reset, control } = useForm<NameValues>({ resolver: zodResolver(nameSchema), defaultValues: { name: '' } })
  const blank = useWatch({ control, name: 'name' }).trim() === ''
  const submit = handleSubmit(async ({ name }) => {
    if (await onCreate(name)) reset()
  })
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Manage Categories</DialogTitle>
          <DialogDescription>Default categories are shared by every client and cannot be deleted.</DialogDescription>
        </DialogHeader>
        <form className="flex gap-2" onSubmit={submit} noValidate>
          <Input placeholder="New category name" aria-label="New category name" {...register('name')} />
          <Button type="submit" disabled={blank}>
            Add
          </Button>
        </form>
        <ul className="max-h-72 divide-y divide-slate-100 overflow-y-auto">
          {categories.map((c) => (
            <li key={c.id} className="flex items-center justify-between py-2 text-sm">
              <span>
                {c.name}
                {c.is_default ? <span className="ml-2 rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-500">Default</span> : null}
              </span>
              {/* Default categories are shared and cannot be deleted: no button that can only fail. */}
              {c.is_default ? null : (
                <Button variant="ghost" size="icon" className="size-8 text-red-600" aria-label={`Delete category ${c.name}`} onClick={() => onDelete(c)}>
                  <Trash2 />
                </Button>
              )}
            </li>
          ))}
        </ul>
      </DialogContent>
    </Dialog>
  )
}
