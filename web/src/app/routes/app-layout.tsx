import { Outlet } from 'react-router'

import { FirstLoginDialogs } from '@/features/auth/components/first-login-dialogs'
import { ConnectionIndicator } from '@/components/connection-indicator'
import { AppShell } from '@/features/shell/components/app-shell'
import { useAuthStore } from '@/lib/auth-store'
import { useSessionEvents } from '@/lib/realtime'

/**
 * The signed-in layout with the blocking first-login dialogs on top. It keeps the event socket
 * open, so a role change reaches every screen at once (the app loads the caller again).
 */
export function Component() {
  const signedIn = useAuthStore((s) => s.status === 'authenticated')
  useSessionEvents(signedIn)
  return (
    <>
      <AppShell statusSlot={<ConnectionIndicator />}>
        <Outlet />
      </AppShell>
      <FirstLoginDialogs />
    </>
  )
}
