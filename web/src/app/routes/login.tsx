import { CircleAlert, CircleCheck, RefreshCw } from 'lucide-react'
import { useEffect } from 'react'
import { useLocation } from 'react-router'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { AuthLayout } from '@/features/auth/components/auth-layout'
import { LoginForm } from '@/features/auth/components/login-form'
import { useAuthStore } from '@/lib/auth-store'
import { toast } from '@/lib/toast'

import type { LoginRedirectState } from '../guard'

export function Component() {
  const status = useAuthStore((s) => s.status)
  const error = useAuthStore((s) => s.error)
  const restore = useAuthStore((s) => s.restore)
  const state = useLocation().state as LoginRedirectState | null

  useEffect(() => {
    if (state?.authError) toast.error('Authentication required', state.authError)
  }, [state?.authError])

  return (
    <AuthLayout title="Welcome Back" description="Sign in to your account to continue.">
      <div className="space-y-5">
        {status === 'error' ? (
          <Alert variant="destructive" className="flex-col">
            <div className="flex gap-3">
              <CircleAlert className="mt-0.5 size-4 shrink-0" />
              <p>Authentication error: {error}</p>
            </div>
            <Button variant="outline" size="sm" className="self-start" onClick={() => void restore()}>
              <RefreshCw /> Retry Connection
            </Button>
          </Alert>
        ) : null}
        {state?.notice ? (
          <Alert variant="success">
            <CircleCheck />
            <p>{state.notice}</p>
          </Alert>
        ) : null}
        <LoginForm />
      </div>
    </AuthLayout>
  )
}
