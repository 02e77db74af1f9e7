import { zodResolver } from '@hookform/resolvers/zod'
import { useEffect } from 'react'
import { useForm } from 'react-hook-form'

import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { FormField } from '@/components/ui/form-field'
import { Input } from '@/components/ui/input'
import { Select } from '@/components/ui/select'
import { Textarea } from '@/components/ui/textarea'

import type { ColumnDefinition } from '../api'
import { CATEGORIES, DATA_TYPES, definitionSchema, type DefinitionValues } from '../utils/schemas'

type Props = {
  open: boolean
  onOpenChange: (open: boolean) => void
  /** The definition edited; null to add one. */
  editing: ColumnDefinition | null
  /** The order a new column gets (after the last). */
  nextOrder: number
  /** Saves; resolves true when the dialog may close. */
  onSave: (values: DefinitionValues) => Promise<boolean>
}

const LABEL: Record<string, string> = {
  text: 'Text',
  numeric: 'Numeric',
  date: 'Date',
  boolean: 'Boolean',
  core: 'Core',
  analysis: 'Analysis',
  optional: 'Optional',
}

function valuesOf(d: ColumnDefinition | null, nextOrder: number): DefinitionValues {
  return d
    ? {
        name: d.name,
        dataType: d.dataType,
        description: d.description,
        isRequired: d.isRequired,
        category: d.category,
        displayOrder: d.displayOrder,
      }
    : { name: '', dataType: 'text', description: '', isRequired: false, category: 'optional', displayOrder: nextOrder }
}

/** Add Column / Edit Column: name, type, description, required, category and display order. */
export function DefinitionDialog({ open, onOpenChange, editing, nextOrder, onSave }: Props) {
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors, isSubmitting },
  } = useForm<DefinitionValues>({ resolver: zodResolver(definitionSchema), defaultValues: valuesOf(editing, nextOrder) })
  useEffect(() => {
    if (open) reset(valuesOf(editing, nextOrder))
  }, [open, editing, nextOrder, reset])
  const submit = handleSubmit(async (values) => {
    if (await onSave(values)) onOpenChange(false)
  })
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>{editing ? 'Edit Column Definition' : 'Add Column Definition'}</DialogTitle>
          <DialogDescription>The standard columns a file of this lever is mapped to; required ones must be mapped.</DialogDescription>
        </DialogHeader>
        <form className="space-y-4" onSubmit={submit} noValidate>
          <FormField label="Column Name" error={errors.name?.message}>
            {(ids) => <Input {...ids} placeholder="e.g. Exposure_Amount" autoFocus {...register('name')} />}
          </FormField>
          <div className="grid grid-cols-2 gap-4">
            <FormField label="Column Type" error={errors.dataType?.message}>
              {(ids) => (
                <Select {...ids} {...register('dataType')}>
                  {DATA_TYPES.map((t) => (
                    <option key={t} value={t}>
                      {LABEL[t]}
                    </option>
                  ))}
                </Select>
              )}
            </FormField>
            <FormField label="Category" error={errors.category?.message}>
              {(ids) => (
                <Select {...ids} {...register('category')}>
                  {CATEGORIES.map((c) => (
                    <option key={c} value={c}>
                      {LABEL[c]}
                    </option>
                  ))}
                </Select>
              )}
            </FormField>
          </div>
          <FormField label="Description" error={errors.description?.message}>
            {(ids) => <Textarea {...ids} rows={3} placeholder="What the column holds" {...register('description')} />}
          </FormField>
          <div className="grid grid-cols-2 items-end gap-4">
            <FormField label="Display Order" error={errors.displayOrder?.message}>
              {(ids) => <Input {...ids} type="number" min={0} max={10000} {...register('displayOrder', { valueAsNumber: true })} />}
            </FormField>
            <label className="flex h-10 items-center gap-2 text-sm text-slate-800">
              <input type="checkbox" className="size-4 accent-brand-600" {...register('isRequired')} />
              Required
            </label>
          </div>
          <DialogFooter>
            <Button variant="outline" onClick={() => onOpenChange(false)}>
              Cancel
            </Button>
            <Button type="submit" disabled={isSubmitting}>
              {editing ? 'Save Changes' : 'Add Column'}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  )
}
