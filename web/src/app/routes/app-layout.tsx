import { Outlet } from 'react-router'

import { FirstLoginDialogs } from '@/features/auth/components/first-login-dialogs'
import { ConnectionIndicator } from '@/components/connection-indicator'
import { AppShell } from '@/features/shell/components/app-shell'

/** The signed-in layout with the blocking first-login dialogs on top. */
export function Component() {
  return (
    <>
      <AppShell statusSlot={<ConnectionIndicator />}>
        <Outlet />
      </AppShell>
      <FirstLoginDialogs />
    </>
  )
}
