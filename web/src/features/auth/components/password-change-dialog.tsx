import { zodResolver } from '@hookform/resolvers/zod'
import { useState } from 'react'
import { useForm } from 'react-hook-form'

import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { FormField } from '@/components/ui/form-field'
import { Spinner } from '@/components/ui/spinner'
import { ApiError } from '@/lib/api-client'
import { useAuthStore } from '@/lib/auth-store'
import { getMe } from '@/lib/session-api'
import { toast } from '@/lib/toast'

import { changePassword } from '../api'
import { changePasswordSchema, type ChangePasswordValues } from '../utils/schemas'
import { PasswordInput } from './password-input'

type Props = {
  /** The password is over a year old: the dialog blocks, and cancelling signs the user out. */
  required: boolean
  /** Closes the dialog when it is not required. */
  onClose?: () => void
}

/** Change-password dialog; blocking while the password has expired. */
export function PasswordChangeDialog({ required, onClose }: Props) {
  const setUser = useAuthStore((s) => s.setUser)
  const signOut = useAuthStore((s) => s.signOut)
  const [leaving, setLeaving] = useState(false)
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<ChangePasswordValues>({
    resolver: zodResolver(changePasswordSchema),
    defaultValues: { currentPassword: '', newPassword: '', confirmPassword: '' },
  })

  const onSubmit = handleSubmit(async ({ currentPassword, newPassword }) => {
    try {
      await changePassword(currentPassword, newPassword)
      toast.success('Password changed', 'Your password has been updated.')
      setUser(await getMe())
      onClose?.()
    } catch (error) {
      if (error instanceof ApiError && error.code === 'wrong_password') {
        setError('currentPassword', { message: error.message })
      } else if (error instanceof ApiError && error.status === 422) {
        setError('newPassword', { message: error.message })
      } else {
        toast.error('Failed to change password', error instanceof ApiError ? error.message : undefined)
      }
    }
  })

  const cancel = async () => {
    if (!required) {
      onClose?.()
      return
    }
    setLeaving(true)
    try {
      await signOut()
      toast.error('Password change required', 'You must change your password to continue.')
    } catch {
      toast.error('Logout failed')
      setLeaving(false)
    }
  }

  return (
    <Dialog open onOpenChange={(open) => (!open && !required ? onClose?.() : undefined)}>
      <DialogContent blocking={required}>
        <DialogHeader>
          <DialogTitle>{required ? 'Password change required' : 'Change password'}</DialogTitle>
          <DialogDescription>
            {required
              ? 'Your password is more than a year old. Choose a new one to continue.'
              : 'Choose a new password for your account.'}
          </DialogDescription>
        </DialogHeader>
        <form onSubmit={onSubmit} noValidate className="space-y-4">
          <FormField label="Current password" error={errors.currentPassword?.message}>
            {(ids) => <PasswordInput {...ids} autoComplete="current-password" {...register('currentPassword')} />}
          </FormField>
          <FormField label="New password" error={errors.newPassword?.message}>
            {(ids) => <PasswordInput {...ids} autoComplete="new-password" {...register('newPassword')} />}
          </FormField>
          <FormField label="Confirm new password" error={errors.confirmPassword?.message}>
            {(ids) => <PasswordInput {...ids} autoComplete="new-password" {...register('confirmPassword')} />}
          </FormField>
          <DialogFooter className="pt-2">
            <Button variant="outline" onClick={cancel} disabled={isSubmitting || leaving}>
              {leaving ? <Spinner /> : null} Cancel
            </Button>
            <Button type="submit" disabled={isSubmitting || leaving}>
              {isSubmitting ? <Spinner /> : null} Change Password
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  )
}
