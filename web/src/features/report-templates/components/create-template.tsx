import { ArrowLeft } from 'lucide-react'
import { useState, type FormEvent } from 'react'
import { Link, useNavigate } from 'react-router'

import { Button } from '@/components/ui/button'
import { Card } from '@/components/ui/card'
import { FormField } from '@/components/ui/form-field'
import { Input } from '@/components/ui/input'
import { Select } from '@/components/ui/select'
import { Textarea } from '@/components/ui/textarea'
import { paths } from '@/config/paths'
import { errorMessage } from '@/lib/api-client'
import { toast } from '@/lib/toast'

import { useCreateTemplate } from '../api'
import { TEMPLATE_TYPES } from '../utils/templates'

/**
 * Create template (`/admin/report-generator-templates/create`): name and type are required (the
 * spec's messages in a 'Validation Error' toast and under the fields); the type's default
 * sections are added by the server, and the editor opens on the new template.
 */
export function CreateTemplate() {
  const create = useCreateTemplate()
  const navigate = useNavigate()
  const [name, setName] = useState('')
  const [description, setDescription] = useState('')
  const [type, setType] = useState('')
  const [errors, setErrors] = useState<{ name?: string; type?: string }>({})

  const submit = (event: FormEvent) => {
    event.preventDefault()
    const next = {
      name: name.trim() ? undefined : 'Template name is required',
      type: type ? undefined : 'Template type is required',
    }
    setErrors(next)
    if (next.name || next.type) {
      toast.error('Validation Error', next.name ?? next.type)
      return
    }
    create.mutate(
      { name: name.trim(), description: description.trim(), templateType: type },
      {
        onSuccess: (t) => {
          toast.success('Template created successfully')
          void navigate(paths.admin.templateEdit.getHref(t.id))
        },
        onError: (error) => toast.error('Failed to create template', errorMessage(error, 'Please try again.')),
      },
    )
  }

  return (
    <div className="mx-auto max-w-2xl space-y-6">
      <Link to={paths.admin.templates.getHref()} className="inline-flex items-center gap-1 text-sm text-slate-600 hover:text-slate-900">
        <ArrowLeft className="size-4" /> Back to templates
      </Link>
      <div>
        <h1 className="text-2xl font-bold tracking-tight text-slate-900">Create Template</h1>
        <p className="mt-1 text-sm text-slate-500">Start from the default sections of a template type, then edit them</p>
      </div>
      <Card className="p-6">
        <form className="space-y-4" onSubmit={submit} noValidate>
          <FormField label="Template Name" error={errors.name}>
            {(ids) => <Input {...ids} value={name} onChange={(e) => setName(e.target.value)} maxLength={120} />}
          </FormField>
          <FormField label="Template Type" error={errors.type}>
            {(ids) => (
              <Select {...ids} value={type} onChange={(e) => setType(e.target.value)}>
                <option value="">Select a type</option>
                {TEMPLATE_TYPES.map((t) => (
                  <option key={t.value} value={t.value}>
                    {t.label}
                  </option>
                ))}
              </Select>
            )}
          </FormField>
          <FormField label="Description">
            {(ids) => <Textarea {...ids} value={description} onChange={(e) => setDescription(e.target.value)} rows={3} maxLength={2000} />}
          </FormField>
          <div className="flex justify-end gap-2">
            <Button asChild variant="outline">
              <Link to={paths.admin.templates.getHref()}>Cancel</Link>
            </Button>
            <Button type="submit" disabled={create.isPending}>
              {create.isPending ? 'Creating…' : 'Create Template'}
            </Button>
          </div>
        </form>
      </Card>
    </div>
  )
}
