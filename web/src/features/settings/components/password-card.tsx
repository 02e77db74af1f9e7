import { zodResolver } from '@hookform/resolvers/zod'
import { useForm } from 'react-hook-form'

import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '@/components/ui/card'
import { FormField } from '@/components/ui/form-field'
import { Input } from '@/components/ui/input'
import { errorMessage } from '@/lib/api-client'
import { toast } from '@/lib/toast'

import { useChangePassword } from '../api'
import { passwordSchema, type PasswordValues } from '../utils/schemas'

const EMPTY: PasswordValues = { currentPassword: '', newPassword: '', confirmPassword: '' }

/**
 * Password change: the current password is verified by the server, the new one follows the one
 * policy (8+ characters, upper and lower case, a digit); the user's other sessions end.
 */
export function PasswordCard() {
  const change = useChangePassword()
  const {
    register,
    handleSubmit,
    reset,
    formState: { errors, isSubmitting },
  } = useForm<PasswordValues>({ resolver: zodResolver(passwordSchema), defaultValues: EMPTY })
  const submit = handleSubmit(async (values) => {
    try {
      await change.mutateAsync({ current: values.currentPassword, next: values.newPassword })
      reset(EMPTY)
      toast.success('Password changed', 'Your other sessions were signed out.')
    } catch (error) {
      toast.error('Failed to change password', errorMessage(error, 'Please try again.'))
    }
  })
  return (
    <Card>
      <CardHeader>
        <CardTitle>Password</CardTitle>
        <CardDescription>At least 8 characters, with an uppercase letter, a lowercase letter and a number.</CardDescription>
      </CardHeader>
      <form onSubmit={submit} noValidate>
        <CardContent className="grid gap-4 sm:grid-cols-3">
          <FormField label="Current Password" error={errors.currentPassword?.message}>
            {(ids) => <Input {...ids} type="password" autoComplete="current-password" {...register('currentPassword')} />}
          </FormField>
          <FormField label="New Password" error={errors.newPassword?.message}>
            {(ids) => <Input {...ids} type="password" autoComplete="new-password" {...register('newPassword')} />}
          </FormField>
          <FormField label="Confirm New Password" error={errors.confirmPassword?.message}>
            {(ids) => <Input {...ids} type="password" autoComplete="new-password" {...register('confirmPassword')} />}
          </FormField>
        </CardContent>
        <CardFooter className="justify-end">
          <Button type="submit" disabled={isSubmitting}>
            {isSubmitting ? 'Changing...' : 'Change Password'}
          </Button>
        </CardFooter>
      </form>
    </Card>
  )
}
