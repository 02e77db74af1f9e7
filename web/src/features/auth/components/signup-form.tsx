import { zodResolver } from '@hookform/resolvers/zod'
import { useQuery } from '@tanstack/react-query'
import { CircleAlert } from 'lucide-react'
import { useForm } from 'react-hook-form'
import { Link, useNavigate } from 'react-router'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { FormField } from '@/components/ui/form-field'
import { Input } from '@/components/ui/input'
import { Spinner } from '@/components/ui/spinner'
import { paths } from '@/config/paths'
import { ApiError } from '@/lib/api-client'
import { roleLabel } from '@/lib/roles'
import { toast } from '@/lib/toast'

import { acceptInvitation, authKeys, getInvitation } from '../api'
import { signupSchema, type SignupValues } from '../utils/schemas'
import { PasswordInput } from './password-input'

export const INVALID_INVITATION = 'Invalid invitation link'
export const EXPIRED_INVITATION = 'Invalid or expired invitation link'
export const INVITATION_LOAD_FAILED = 'Failed to load invitation'
const ACCOUNT_CREATED = 'Account created successfully!'
const UNEXPECTED = 'An unexpected error occurred. Please try again.'

/** Registration from an invitation link: name and password; email, company and role come from the invitation. */
export function SignupForm({ token }: { token: string | undefined }) {
  const invitation = useQuery({
    queryKey: authKeys.invitation(token ?? ''),
    queryFn: () => getInvitation(token ?? ''),
    enabled: Boolean(token),
    retry: false,
    staleTime: Infinity,
  })

  if (!token) return <InvitationProblem message={INVALID_INVITATION} />
  if (invitation.isPending) {
    return (
      <p className="flex items-center justify-center gap-2 py-8 text-sm text-slate-500">
        <Spinner /> Loading invitation...
      </p>
    )
  }
  if (invitation.isError) {
    const error = invitation.error
    const message =
      error instanceof ApiError && (error.status === 404 || error.code === 'invalid_invitation')
        ? EXPIRED_INVITATION
        : INVITATION_LOAD_FAILED
    return <InvitationProblem message={message} />
  }
  return <SignupFields token={token} invitation={invitation.data} />
}

function InvitationProblem({ message }: { message: string }) {
  return (
    <div className="space-y-5">
      <Alert variant="destructive">
        <CircleAlert />
        <p>{message}</p>
      </Alert>
      <p className="text-center text-sm text-slate-500">Ask your administrator to send you a new invitation.</p>
      <Button asChild variant="outline" className="w-full">
        <Link to={paths.login.getHref()}>Go to login</Link>
      </Button>
    </div>
  )
}

type Invitation = Awaited<ReturnType<typeof getInvitation>>

function SignupFields({ token, invitation }: { token: string; invitation: Invitation }) {
  const navigate = useNavigate()
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<SignupValues>({
    resolver: zodResolver(signupSchema),
    defaultValues: { name: invitation.name ?? '', lastName: invitation.last_name ?? '', password: '', confirmPassword: '' },
  })

  const onSubmit = handleSubmit(async (values) => {
    try {
      const message = await acceptInvitation(token, {
        name: values.name.trim(),
        last_name: values.lastName.trim(),
        password: values.password,
      })
      const notice =
        message && message !== ACCOUNT_CREATED ? message : 'Your account is ready. Sign in with your email and password.'
      toast.success(ACCOUNT_CREATED, notice)
      navigate(paths.login.getHref(), { replace: true, state: { notice } })
    } catch (error) {
      if (error instanceof ApiError && error.status === 422) {
        setError('password', { message: error.message })
      } else if (error instanceof ApiError && (error.status === 404 || error.code === 'invalid_invitation')) {
        toast.error('Failed to create user account', EXPIRED_INVITATION)
      } else if (error instanceof ApiError) {
        toast.error('Failed to create user account', error.message)
      } else {
        toast.error(UNEXPECTED)
      }
    }
  })

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-4">
      <div className="grid gap-4 sm:grid-cols-2">
        <FormField label="First name" error={errors.name?.message}>
          {(ids) => <Input {...ids} autoComplete="given-name" {...register('name')} />}
        </FormField>
        <FormField label="Last name" error={errors.lastName?.message}>
          {(ids) => <Input {...ids} autoComplete="family-name" {...register('lastName')} />}
        </FormField>
      </div>
      <FormField label="Email">{(ids) => <Input {...ids} value={invitation.email} readOnly />}</FormField>
      <div className="grid gap-4 sm:grid-cols-2">
        <FormField label="Company">{(ids) => <Input {...ids} value={invitation.company ?? '—'} readOnly />}</FormField>
        <FormField label="Role">{(ids) => <Input {...ids} value={roleLabel(invitation.role)} readOnly />}</FormField>
      </div>
      <FormField label="Password" error={errors.password?.message}>
        {(ids) => <PasswordInput {...ids} autoComplete="new-password" {...register('password')} />}
      </FormField>
      <FormField label="Confirm password" error={errors.confirmPassword?.message}>
        {(ids) => <PasswordInput {...ids} autoComplete="new-password" {...register('confirmPassword')} />}
      </FormField>
      <Button type="submit" className="w-full" disabled={isSubmitting}>
        {isSubmitting ? (
          <>
            <Spinner /> Creating account...
          </>
        ) : (
          'Create Account'
        )}
      </Button>
    </form>
  )
}
