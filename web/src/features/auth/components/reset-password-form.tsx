import { zodResolver } from '@hookform/resolvers/zod'
import { CircleAlert } from 'lucide-react'
import { useState } from 'react'
import { useForm } from 'react-hook-form'
import { Link, useNavigate } from 'react-router'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { FormField } from '@/components/ui/form-field'
import { Spinner } from '@/components/ui/spinner'
import { paths } from '@/config/paths'
import { ApiError, errorMessage } from '@/lib/api-client'
import { toast } from '@/lib/toast'

import { resetPassword } from '../api'
import { resetPasswordSchema, type ResetPasswordValues } from '../utils/schemas'
import { PasswordInput } from './password-input'

export const INVALID_RESET_LINK = 'Invalid or expired reset link'

type Props = {
  /** The token from the link; null when the link carries none. */
  token: string | null
  /** The link is an invitation's: the user is setting their first password. */
  invite: boolean
}

export function ResetPasswordForm({ token, invite }: Props) {
  const navigate = useNavigate()
  const [linkError, setLinkError] = useState<string | null>(token ? null : INVALID_RESET_LINK)
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<ResetPasswordValues>({
    resolver: zodResolver(resetPasswordSchema),
    defaultValues: { password: '', confirmPassword: '' },
  })

  const onSubmit = handleSubmit(async ({ password }) => {
    if (!token) return
    try {
      await resetPassword(token, password)
      const notice = invite
        ? 'Your password has been set. Sign in to get started.'
        : 'Your password has been updated. You can now sign in.'
      toast.success(invite ? 'Password set' : 'Password updated', notice)
      navigate(paths.login.getHref(), { replace: true, state: { notice } })
    } catch (error) {
      if (error instanceof ApiError && error.code === 'invalid_token') {
        setLinkError(error.message || INVALID_RESET_LINK)
      } else if (error instanceof ApiError && error.status === 422) {
        setError('password', { message: error.message })
      } else {
        toast.error('Failed to set password', errorMessage(error, 'Please try again.'))
      }
    }
  })

  if (linkError) {
    return (
      <div className="space-y-5">
        <Alert variant="destructive">
          <CircleAlert />
          <p>{linkError}</p>
        </Alert>
        <Button asChild variant="outline" className="w-full">
          <Link to={paths.forgotPassword.getHref()}>Request a new link</Link>
        </Button>
      </div>
    )
  }

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-5">
      <FormField
        label={invite ? 'Password' : 'New password'}
        error={errors.password?.message}
        hint="At least 8 characters, with an uppercase letter, a lowercase letter and a number."
      >
        {(ids) => <PasswordInput {...ids} autoComplete="new-password" {...register('password')} />}
      </FormField>
      <FormField label="Confirm password" error={errors.confirmPassword?.message}>
        {(ids) => <PasswordInput {...ids} autoComplete="new-password" {...register('confirmPassword')} />}
      </FormField>
      <Button type="submit" className="w-full" disabled={isSubmitting}>
        {isSubmitting ? (
          <>
            <Spinner /> Saving...
          </>
        ) : invite ? (
          'Set Password'
        ) : (
          'Update Password'
        )}
      </Button>
    </form>
  )
}
