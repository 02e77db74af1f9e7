import type { ReactNode } from 'react'

import { SidebarProvider, SidebarTrigger } from '@/components/ui/sidebar'
import { TooltipProvider } from '@/components/ui/tooltip'
import { homePathFor, navigationFor } from '@/config/navigation'
import { useAuthStore } from '@/lib/auth-store'

import { AppSidebar } from './app-sidebar'
import { ProfileMenu } from './profile-menu'

type Props = {
  children: ReactNode
  /** Shown in the top bar beside the profile menu (the live-connection indicator). */
  statusSlot?: ReactNode
}

/** The signed-in layout: the role's sidebar, the top bar and the page. */
export function AppShell({ children, statusSlot }: Props) {
  const user = useAuthStore((s) => s.user)
  if (!user) return null
  const isAdmin = user.role === 'admin'
  return (
    <TooltipProvider delayDuration={200}>
      <SidebarProvider>
        {/* Printing a page (a template's Export Preview) prints its content alone. */}
        <div className="contents print:hidden">
          <AppSidebar
            groups={navigationFor(user.role)}
            label={isAdmin ? 'Admin navigation' : 'Client navigation'}
            homeHref={homePathFor(user.role)}
          />
        </div>
        <div className="flex min-w-0 flex-1 flex-col">
          <header className="sticky top-0 z-20 flex print:hidden h-16 shrink-0 items-center justify-between gap-4 border-b border-slate-200 bg-white/95 px-4 backdrop-blur">
            <SidebarTrigger />
            <div className="flex items-center gap-3">
              {statusSlot ? <div data-slot="connection-status">{statusSlot}</div> : null}
              <ProfileMenu user={user} />
            </div>
          </header>
          <main className="flex-1 p-4 sm:p-6 lg:p-8">{children}</main>
        </div>
      </SidebarProvider>
    </TooltipProvider>
  )
}
