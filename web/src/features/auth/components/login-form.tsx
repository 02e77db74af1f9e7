import { zodResolver } from '@hookform/resolvers/zod'
import { useForm } from 'react-hook-form'
import { Link } from 'react-router'

import { Button } from '@/components/ui/button'
import { FormField } from '@/components/ui/form-field'
import { Input } from '@/components/ui/input'
import { Spinner } from '@/components/ui/spinner'
import { paths } from '@/config/paths'
import { errorMessage } from '@/lib/api-client'
import { useAuthStore } from '@/lib/auth-store'
import { toast } from '@/lib/toast'

import { loginSchema, type LoginValues } from '../utils/schemas'
import { PasswordInput } from './password-input'

/**
 * Email and password sign-in. On success the auth store becomes authenticated and the route
 * guard takes the user to where they were going (or their home).
 */
export function LoginForm() {
  const signIn = useAuthStore((s) => s.signIn)
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm<LoginValues>({ resolver: zodResolver(loginSchema), defaultValues: { email: '', password: '' } })

  const onSubmit = handleSubmit(async ({ email, password }) => {
    try {
      await signIn(email.trim(), password)
    } catch (error) {
      toast.error('Login failed', errorMessage(error, 'Invalid credentials'))
    }
  })

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-5">
      <FormField label="Email" error={errors.email?.message}>
        {(ids) => <Input {...ids} type="email" autoComplete="email" placeholder="you@bank.com" {...register('email')} />}
      </FormField>
      <FormField
        label="Password"
        error={errors.password?.message}
        labelAside={
          <Link to={paths.forgotPassword.getHref()} className="text-sm font-medium text-brand-700 hover:underline">
            Forgot password?
          </Link>
        }
      >
        {(ids) => <PasswordInput {...ids} autoComplete="current-password" {...register('password')} />}
      </FormField>
      <Button type="submit" className="w-full" disabled={isSubmitting}>
        {isSubmitting ? (
          <>
            <Spinner /> Signing in...
          </>
        ) : (
          'Sign In'
        )}
      </Button>
      <p className="rounded-lg bg-slate-50 px-4 py-3 text-center text-sm text-slate-600">
        Access is by administrator-created account only. If you need an account, please contact your administrator.
      </p>
    </form>
  )
}
