import { zodResolver } from '@hookform/resolvers/zod'
import { MailCheck } from 'lucide-react'
import { useState } from 'react'
import { useForm } from 'react-hook-form'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { FormField } from '@/components/ui/form-field'
import { Input } from '@/components/ui/input'
import { Spinner } from '@/components/ui/spinner'
import { errorMessage } from '@/lib/api-client'
import { toast } from '@/lib/toast'

import { requestPasswordReset } from '../api'
import { forgotPasswordSchema, type ForgotPasswordValues } from '../utils/schemas'

export function ForgotPasswordForm() {
  const [sentMessage, setSentMessage] = useState<string | null>(null)
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm<ForgotPasswordValues>({ resolver: zodResolver(forgotPasswordSchema), defaultValues: { email: '' } })

  const onSubmit = handleSubmit(async ({ email }) => {
    try {
      setSentMessage(await requestPasswordReset(email.trim()))
    } catch (error) {
      toast.error('Failed to send reset email', errorMessage(error, 'Please try again.'))
    }
  })

  if (sentMessage) {
    return (
      <Alert variant="success">
        <MailCheck />
        <p>{sentMessage}</p>
      </Alert>
    )
  }

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-5">
      <FormField label="Email" error={errors.email?.message}>
        {(ids) => <Input {...ids} type="email" autoComplete="email" placeholder="you@bank.com" {...register('email')} />}
      </FormField>
      <Button type="submit" className="w-full" disabled={isSubmitting}>
        {isSubmitting ? (
          <>
            <Spinner /> Sending...
          </>
        ) : (
          'Send Reset Link'
        )}
      </Button>
    </form>
  )
}
