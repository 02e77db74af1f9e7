import { Link, useSearchParams } from 'react-router'

import { paths } from '@/config/paths'
import { AuthLayout } from '@/features/auth/components/auth-layout'
import { ResetPasswordForm } from '@/features/auth/components/reset-password-form'

/** type=invite with require_password=true or new_user=true: the link comes from an invitation. */
export function isInvitationLink(params: URLSearchParams): boolean {
  return params.get('type') === 'invite' && (params.get('require_password') === 'true' || params.get('new_user') === 'true')
}

export function Component() {
  const [params] = useSearchParams()
  const invite = isInvitationLink(params)
  return (
    <AuthLayout
      title={invite ? 'Welcome! Set your password' : 'Set a new password'}
      description={
        invite
          ? 'Your account is ready. Choose a password to finish setting it up.'
          : 'Choose a new password for your account.'
      }
      footer={
        <Link to={paths.login.getHref()} className="font-medium text-brand-700 hover:underline">
          Back to login
        </Link>
      }
    >
      <ResetPasswordForm token={params.get('token')} invite={invite} />
    </AuthLayout>
  )
}
