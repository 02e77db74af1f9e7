import { zodResolver } from '@hookform/resolvers/zod'
import { useEffect } from 'react'
import { useForm } from 'react-hook-form'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '@/components/ui/card'
import { FormField } from '@/components/ui/form-field'
import { Input } from '@/components/ui/input'
import { Spinner } from '@/components/ui/spinner'
import { Textarea } from '@/components/ui/textarea'
import { getMe } from '@/lib/session-api'
import { useAuthStore } from '@/lib/auth-store'
import { errorMessage } from '@/lib/api-client'
import { toast } from '@/lib/toast'

import { useProjectSettings, useUpdateProjectSettings } from '../api'
import { projectSchema, type ProjectValues } from '../utils/schemas'

/**
 * 'Project Settings' (spec 001 section 2.11): the client's name and description. Save Changes is
 * enabled only after a change; members who may write the client save, viewers read. A colleague's
 * change shows at once (`client:{id}:settings`) unless this form has unsaved edits.
 */
export function ProjectSettingsCard({ clientId }: { clientId: string }) {
  const settings = useProjectSettings(clientId)
  const save = useUpdateProjectSettings(clientId)
  const canEdit = settings.data?.canEdit ?? false
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors, isDirty, isSubmitting },
  } = useForm<ProjectValues>({ resolver: zodResolver(projectSchema), defaultValues: { name: '', description: '' } })

  const name = settings.data?.name
  const description = settings.data?.description
  useEffect(() => {
    if (name !== undefined && description !== undefined) reset({ name, description }, { keepDirtyValues: true })
  }, [name, description, reset])

  const submit = handleSubmit(async (values) => {
    try {
      const saved = await save.mutateAsync({ name: values.name.trim(), description: values.description.trim() })
      reset({ name: saved.name, description: saved.description })
      toast.success('Project settings updated successfully')
      // The shell shows the client's name: load the caller again.
      void getMe()
        .then((me) => useAuthStore.getState().setUser(me))
        .catch(() => undefined)
    } catch (error) {
      toast.error('Failed to update project settings', errorMessage(error, 'Please try again.'))
    }
  })

  return (
    <Card>
      <CardHeader>
        <CardTitle>Project Settings</CardTitle>
        <CardDescription>Your client&apos;s name and description, as every screen of the project shows them.</CardDescription>
      </CardHeader>
      {settings.isPending ? (
        <CardContent className="flex items-center gap-2 text-sm text-slate-500">
          <Spinner /> Loading project settings…
        </CardContent>
      ) : settings.isError ? (
        <CardContent>
          <Alert variant="destructive" className="flex items-center justify-between gap-4">
            <span>Could not load project settings</span>
            <Button variant="outline" size="sm" onClick={() => void settings.refetch()}>
              Retry
            </Button>
          </Alert>
        </CardContent>
      ) : (
        <form onSubmit={submit} noValidate>
          <CardContent className="space-y-4">
            <FormField label="Client Name" error={errors.name?.message}>
              {(ids) => <Input {...ids} {...register('name')} disabled={!canEdit} />}
            </FormField>
            <FormField label="Description" error={errors.description?.message}>
              {(ids) => <Textarea {...ids} {...register('description')} rows={4} disabled={!canEdit} />}
            </FormField>
            {!canEdit ? <p className="text-sm text-slate-500">You have read-only access to this project.</p> : null}
          </CardContent>
          {canEdit ? (
            <CardFooter className="justify-end gap-2">
              <Button
                type="button"
                variant="outline"
                disabled={!isDirty || isSubmitting}
                onClick={() => reset({ name: settings.data.name, description: settings.data.description })}
              >
                Cancel
              </Button>
              <Button type="submit" disabled={!isDirty || isSubmitting}>
                {isSubmitting ? 'Saving...' : 'Save Changes'}
              </Button>
            </CardFooter>
          ) : null}
        </form>
      )}
    </Card>
  )
}
