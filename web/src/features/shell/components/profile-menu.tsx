import type { Me } from '@/api/types/Me'
import { LogOut } from 'lucide-react'
import { useState } from 'react'
import { useNavigate } from 'react-router'

import { Button } from '@/components/ui/button'
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from '@/components/ui/dropdown-menu'
import { profileMenuLinks } from '@/config/navigation'
import { paths } from '@/config/paths'
import { errorMessage } from '@/lib/api-client'
import { useAuthStore } from '@/lib/auth-store'
import { roleLabel } from '@/lib/roles'
import { toast } from '@/lib/toast'

function initials(user: Me): string {
  const letters = `${user.name.trim().charAt(0)}${user.last_name.trim().charAt(0)}`
  return (letters || user.email.charAt(0)).toUpperCase()
}

export function ProfileMenu({ user }: { user: Me }) {
  const navigate = useNavigate()
  const signOut = useAuthStore((s) => s.signOut)
  const [signingOut, setSigningOut] = useState(false)
  const links = profileMenuLinks[user.role === 'admin' ? 'admin' : 'other']
  const fullName = `${user.name} ${user.last_name}`.trim() || user.email

  const onSignOut = async () => {
    setSigningOut(true)
    try {
      await signOut()
      navigate(paths.login.getHref(), { replace: true })
    } catch (error) {
      toast.error('Logout failed', errorMessage(error, 'Please try again.'))
    } finally {
      setSigningOut(false)
    }
  }

  return (
    <DropdownMenu>
      <DropdownMenuTrigger asChild>
        <Button variant="ghost" className="h-10 gap-2 px-2" aria-label="Profile menu">
          <span className="flex size-8 items-center justify-center rounded-full bg-brand-700 text-xs font-semibold text-white">
            {initials(user)}
          </span>
          <span className="hidden text-left sm:block">
            <span className="block text-sm leading-tight font-medium text-slate-900">{fullName}</span>
            <span className="block text-xs leading-tight text-slate-500">{roleLabel(user.role)}</span>
          </span>
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent align="end">
        <DropdownMenuLabel>
          <span className="block font-medium text-slate-900">{fullName}</span>
          <span className="block text-xs font-normal text-slate-500">{user.email}</span>
        </DropdownMenuLabel>
        <DropdownMenuSeparator />
        {links.map((link) => (
          <DropdownMenuItem key={link.href} onSelect={() => navigate(link.href)}>
            {link.label}
          </DropdownMenuItem>
        ))}
        {links.length > 0 ? <DropdownMenuSeparator /> : null}
        <DropdownMenuItem onSelect={onSignOut} disabled={signingOut}>
          <LogOut /> Sign out
        </DropdownMenuItem>
      </DropdownMenuContent>
    </DropdownMenu>
  )
}
