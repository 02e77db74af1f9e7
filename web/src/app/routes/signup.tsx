import { Link, useParams } from 'react-router'

import { paths } from '@/config/paths'
import { AuthLayout } from '@/features/auth/components/auth-layout'
import { SignupForm } from '@/features/auth/components/signup-form'

export function Component() {
  const { token } = useParams()
  return (
    <AuthLayout
      title="Create your account"
      description="You have been invited to CapOpt. Complete your details to get started."
      footer={
        <>
          Already have an account?{' '}
          <Link to={paths.login.getHref()} className="font-medium text-brand-700 hover:underline">
            Log in
          </Link>
        </>
      }
    >
      <SignupForm token={token} />
    </AuthLayout>
  )
}
