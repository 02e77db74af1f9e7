import { zodResolver } from '@hookform/resolvers/zod'
import { Camera, Trash2 } from 'lucide-react'
import { useEffect, useRef } from 'react'
import { useForm } from 'react-hook-form'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '@/components/ui/card'
import { FormField } from '@/components/ui/form-field'
import { Input } from '@/components/ui/input'
import { Spinner } from '@/components/ui/spinner'
import { errorMessage } from '@/lib/api-client'
import { useAuthStore } from '@/lib/auth-store'
import { normaliseRole, roleLabel } from '@/lib/roles'
import { getMe } from '@/lib/session-api'
import { toast } from '@/lib/toast'

import { useProfile, useRemoveAvatar, useUpdateProfile, useUploadAvatar, type Profile } from '../api'
import { avatarProblem, profileSchema, type ProfileValues } from '../utils/schemas'

/** The shell shows the caller's name: load the caller again after a change. */
function reloadCaller() {
  void getMe()
    .then((me) => useAuthStore.getState().setUser(me))
    .catch(() => undefined)
}

function initials(p: Profile): string {
  return `${p.name.trim().charAt(0)}${p.lastName.trim().charAt(0)}`.toUpperCase() || p.email.charAt(0).toUpperCase()
}

/** The signed-in user's profile: photo, first and last name; e-mail and role shown read-only. */
export function ProfileCard() {
  const profile = useProfile()
  const update = useUpdateProfile()
  const upload = useUploadAvatar()
  const remove = useRemoveAvatar()
  const fileInput = useRef<HTMLInputElement>(null)
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors, isDirty, isSubmitting },
  } = useForm<ProfileValues>({ resolver: zodResolver(profileSchema), defaultValues: { name: '', lastName: '' } })
  const name = profile.data?.name
  const lastName = profile.data?.lastName
  useEffect(() => {
    if (name !== undefined && lastName !== undefined) reset({ name, lastName })
  }, [name, lastName, reset])

  const submit = handleSubmit(async (values) => {
    try {
      await update.mutateAsync({ name: values.name.trim(), lastName: values.lastName.trim() })
      toast.success('Profile updated', 'Your name was saved.')
      reloadCaller()
    } catch (error) {
      toast.error('Update failed', errorMessage(error, 'There was a problem updating the user profile'))
    }
  })

  const onPhoto = (file: File | undefined) => {
    if (!file) return
    const problem = avatarProblem(file)
    if (problem) {
      toast.error(problem.title, problem.description)
      return
    }
    upload.mutate(file, {
      onSuccess: () => toast.success('Photo updated'),
      onError: (error) => toast.error('Upload failed', errorMessage(error, 'Please try again.')),
    })
  }

  return (
    <Card>
      <CardHeader>
        <CardTitle>Profile</CardTitle>
        <CardDescription>How you appear to your colleagues.</CardDescription>
      </CardHeader>
      {profile.isPending ? (
        <CardContent className="flex items-center gap-2 text-sm text-slate-500">
          <Spinner /> Loading your profile…
        </CardContent>
      ) : profile.isError ? (
        <CardContent>
          <Alert variant="destructive">{errorMessage(profile.error, 'Could not load your profile.')}</Alert>
        </CardContent>
      ) : (
        <form onSubmit={submit} noValidate>
          <CardContent className="space-y-5">
            <div className="flex items-center gap-4">
              {profile.data.avatarUrl ? (
                <img src={profile.data.avatarUrl} alt="Your photo" className="size-16 rounded-full object-cover" data-testid="profile-avatar" />
              ) : (
                <span aria-hidden className="flex size-16 items-center justify-center rounded-full bg-brand-700 text-lg font-semibold text-white">
                  {initials(profile.data)}
                </span>
              )}
              <div className="flex flex-wrap gap-2">
                <Button type="button" variant="outline" size="sm" onClick={() => fileInput.current?.click()} disabled={upload.isPending}>
                  <Camera /> {upload.isPending ? 'Uploading...' : profile.data.avatarUrl ? 'Change photo' : 'Upload photo'}
                </Button>
                {profile.data.avatarUrl ? (
                  <Button
                    type="button"
                    variant="ghost"
                    size="sm"
                    disabled={remove.isPending}
                    onClick={() =>
                      remove.mutate(undefined, {
                        onSuccess: () => toast.success('Photo removed'),
                        onError: (error) => toast.error('Update failed', errorMessage(error, 'Please try again.')),
                      })
                    }
                  >
                    <Trash2 /> Remove
                  </Button>
                ) : null}
                <input
                  ref={fileInput}
                  type="file"
                  accept="image/png,image/jpeg,image/gif,image/webp"
                  className="hidden"
                  data-testid="avatar-input"
                  onChange={(e) => {
                    onPhoto(e.target.files?.[0])
                    e.target.value = ''
                  }}
                />
                <p className="w-full text-xs text-slate-500">PNG, JPEG, GIF or WebP, up to 2 MB.</p>
              </div>
            </div>
            <div className="grid gap-4 sm:grid-cols-2">
              <FormField label="First Name" error={errors.name?.message}>
                {(ids) => <Input {...ids} {...register('name')} autoComplete="given-name" />}
              </FormField>
              <FormField label="Last Name" error={errors.lastName?.message}>
                {(ids) => <Input {...ids} {...register('lastName')} autoComplete="family-name" />}
              </FormField>
              <FormField label="Email">{(ids) => <Input {...ids} value={profile.data.email} readOnly disabled />}</FormField>
              <FormField label="Role">{(ids) => <Input {...ids} value={roleLabel(normaliseRole(profile.data.role))} readOnly disabled />}</FormField>
            </div>
          </CardContent>
          <CardFooter className="justify-end gap-2">
            <Button
              type="button"
              variant="outline"
              disabled={!isDirty || isSubmitting}
              onClick={() => reset({ name: profile.data.name, lastName: profile.data.lastName })}
            >
              Cancel
            </Button>
            <Button type="submit" disabled={!isDirty || isSubmitting}>
              {isSubmitting ? 'Saving...' : 'Save Changes'}
            </Button>
          </CardFooter>
        </form>
      )}
    </Card>
  )
}
