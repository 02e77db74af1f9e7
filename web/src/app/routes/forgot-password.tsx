import { Link } from 'react-router'

import { paths } from '@/config/paths'
import { AuthLayout } from '@/features/auth/components/auth-layout'
import { ForgotPasswordForm } from '@/features/auth/components/forgot-password-form'

export function Component() {
  return (
    <AuthLayout
      title="Reset your password"
      description="Enter the email address of your account and we will send you a link to set a new password."
      footer={
        <Link to={paths.login.getHref()} className="font-medium text-brand-700 hover:underline">
          Back to login
        </Link>
      }
    >
      <ForgotPasswordForm />
    </AuthLayout>
  )
}
