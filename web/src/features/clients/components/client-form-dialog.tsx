import { useState, type FormEvent } from 'react'

import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { FormField } from '@/components/ui/form-field'
import { Input } from '@/components/ui/input'
import { Textarea } from '@/components/ui/textarea'
import { ApiError } from '@/lib/api-client'
import { formatBps, formatRatio } from '@/lib/format'
import { parseDecimalInput, parseSpanishAmount } from '@/lib/spanish-number'
import { toast } from '@/lib/toast'

import { useBpsPreview, useCreateClient, useUpdateClient, type AdminClient } from '../api'
import {
  EARLIEST_FROM_DATE,
  EMPTY_CLIENT_FORM,
  clientFormValues,
  toClientInput,
  todayIso,
  validateClientForm,
  type ClientFormErrors,
  type ClientFormValues,
} from '../utils/client-form'
import { AmountInput } from './amount-input'

type Props = {
  open: boolean
  onOpenChange: (open: boolean) => void
  /** The client to edit; absent: the Add New Client dialog. */
  client?: AdminClient
}

/**
 * Add New Client (spec 000 section 2.6): Client Name, Description, From Date (2024-01-01 to
 * today), CET1 Savings (RWAs) in Spanish notation and CET1 Savings (BPS) computed by the server's
 * one bps function from the official figures typed below; 'Adding...' while busy. With a
 * client, the same fields edit its details and official figures (savings are edited inline).
 */
export function ClientFormDialog({ open, onOpenChange, client }: Props) {
  // The form is mounted while the dialog is open, so each opening starts from the client's values.
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      {open ? <ClientFormBody client={client} onClose={() => onOpenChange(false)} /> : null}
    </Dialog>
  )
}

function ClientFormBody({ client, onClose }: { client?: AdminClient; onClose: () => void }) {
  const editing = client !== undefined
  const [values, setValues] = useState<ClientFormValues>(() => (client ? clientFormValues(client) : EMPTY_CLIENT_FORM))
  const [errors, setErrors] = useState<ClientFormErrors>({})
  const create = useCreateClient()
  const update = useUpdateClient(client?.id ?? '')
  const busy = create.isPending || update.isPending
  const onOpenChange = (o: boolean) => {
    if (!o) onClose()
  }

  const set = (field: keyof ClientFormValues) => (text: string) => {
    setValues((v) => ({ ...v, [field]: text }))
    // A field's message goes once it is changed; the next Add Client checks again.
    setErrors((e) => (e[field] ? { ...e, [field]: undefined } : e))
  }
  const capital = parseSpanishAmount(values.cet1Capital)
  const rwas = parseSpanishAmount(values.totalRwas)
  const savings = parseSpanishAmount(values.savingsRwas)
  const preview = useBpsPreview(capital, rwas, editing ? null : savings)
  const computedRatio = capital !== null && rwas !== null && rwas > 0 ? capital / rwas : null
  const typedRatio = values.cet1Ratio.trim() ? parseDecimalInput(values.cet1Ratio.trim()) : null

  const bpsText = editing
    ? ''
    : savings === null || savings === 0
      ? formatBps(0)
      : capital === null || rwas === null
        ? 'Enter the official CET1 capital and total RWAs to compute it'
        : preview.data
          ? formatBps(preview.data.scenarioA.improvementBps)
          : preview.isError
            ? 'Cannot be computed for these figures'
            : 'Computing...'

  const onSubmit = (e: FormEvent) => {
    e.preventDefault()
    const found = validateClientForm(values, todayIso())
    setErrors(found)
    if (Object.keys(found).length > 0) return
    const input = toClientInput(values, !editing)
    if (client) {
      update.mutate(input, {
        onSuccess: (c) => {
          toast.success('Client updated', `Client "${c.name}" has been updated successfully.`)
          onOpenChange(false)
        },
        onError: (error) =>
          toast.error('Update failed', error instanceof ApiError && error.status === 422 ? error.message : 'There was an error updating the client. Please try again.'),
      })
      return
    }
    create.mutate(input, {
      onSuccess: (created) => {
        toast.success('Client added', `Client "${created.client.name}" has been added successfully with all admin users.`)
        onOpenChange(false)
      },
      onError: (error) =>
        toast.error(
          'Error adding client',
          error instanceof ApiError && error.status === 422 ? error.message : 'There was an error adding the client. Please try again.',
        ),
    })
  }

  return (
      <DialogContent
        className="max-w-2xl overflow-y-auto"
        onEscapeKeyDown={(e) => busy && e.preventDefault()}
        onInteractOutside={(e) => busy && e.preventDefault()}
      >
        <DialogHeader>
          <DialogTitle>{editing ? 'Edit Client' : 'Add New Client'}</DialogTitle>
          <DialogDescription>
            {editing
              ? 'Change the client’s details and official figures; its savings in bps are computed again from them.'
              : 'Every administrator is added to the new client.'}
          </DialogDescription>
        </DialogHeader>
        <form className="space-y-4" onSubmit={onSubmit} noValidate aria-label={editing ? 'Edit Client' : 'Add New Client'}>
          <FormField label="Client Name" error={errors.name}>
            {(ids) => <Input {...ids} value={values.name} maxLength={200} onChange={(e) => set('name')(e.target.value)} />}
          </FormField>
          <FormField label="Description" error={errors.description}>
            {(ids) => <Textarea {...ids} rows={3} value={values.description} maxLength={2000} onChange={(e) => set('description')(e.target.value)} />}
          </FormField>
          <FormField label="From Date" error={errors.fromDate}>
            {(ids) => (
              <Input {...ids} type="date" min={EARLIEST_FROM_DATE} max={todayIso()} value={values.fromDate} onChange={(e) => set('fromDate')(e.target.value)} />
            )}
          </FormField>
          {!editing ? (
            <div className="grid gap-4 sm:grid-cols-2">
              <FormField label="CET1 Savings (RWAs)" error={errors.savingsRwas} hint="Optional. Spanish notation: 1.234.567,89">
                {(ids) => <AmountInput {...ids} placeholder="0,00" value={values.savingsRwas} onValueChange={set('savingsRwas')} />}
              </FormField>
              <FormField label="CET1 Savings (BPS)" hint="Calculated from the RWAs and the official figures">
                {(ids) => <Input {...ids} readOnly value={bpsText} className="bg-slate-50 text-slate-600" />}
              </FormField>
            </div>
          ) : null}
          <fieldset className="space-y-3 rounded-lg border border-slate-200 p-4">
            <legend className="px-1 text-sm font-medium text-slate-700">Official figures</legend>
            <div className="grid gap-4 sm:grid-cols-2">
              <FormField label="CET1 Capital" error={errors.cet1Capital}>
                {(ids) => <AmountInput {...ids} placeholder="6.530.000.000" value={values.cet1Capital} onValueChange={set('cet1Capital')} />}
              </FormField>
              <FormField label="Total RWAs" error={errors.totalRwas}>
                {(ids) => <AmountInput {...ids} placeholder="48.200.000.000" value={values.totalRwas} onValueChange={set('totalRwas')} />}
              </FormField>
            </div>
            <FormField
              label="CET1 Ratio (%)"
              error={errors.cet1Ratio}
              hint={computedRatio !== null ? `Capital / RWAs: ${formatRatio(computedRatio)}${typedRatio === null ? ' (used when left empty)' : ''}` : 'As reported; optional'}
            >
              {(ids) => (
                <Input
                  {...ids}
                  inputMode="decimal"
                  value={values.cet1Ratio}
                  onChange={(e) => {
                    const t = e.target.value
                    if (/^\d{0,2}([.,]\d{0,4})?$/.test(t)) set('cet1Ratio')(t)
                  }}
                />
              )}
            </FormField>
          </fieldset>
          <DialogFooter>
            <Button type="button" variant="outline" onClick={() => onOpenChange(false)} disabled={busy}>
              Cancel
            </Button>
            <Button type="submit" disabled={busy}>
              {editing ? (busy ? 'Saving...' : 'Save Changes') : busy ? 'Adding...' : 'Add Client'}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
  )
}
