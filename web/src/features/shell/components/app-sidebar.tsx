import { NavLink, useSearchParams } from 'react-router'

import { BrandLogo } from '@/components/ui/brand-logo'
import { Sidebar, useSidebar, useSidebarExpanded } from '@/components/ui/sidebar'
import { Tooltip, TooltipContent, TooltipTrigger } from '@/components/ui/tooltip'
import type { NavGroup, NavItem } from '@/config/navigation'
import { CLIENT_PARAM, withClient } from '@/hooks/use-client-id'
import { cn } from '@/lib/cn'

type Props = { groups: NavGroup[]; label: string; homeHref: string }

/** The navigation sidebar; groups without entries are not shown. */
export function AppSidebar({ groups, label, homeHref }: Props) {
  const expanded = useSidebarExpanded()
  const visible = groups.filter((group) => group.items.length > 0)
  return (
    <Sidebar label={label}>
      <div className={cn('flex h-16 shrink-0 items-center border-b border-white/10', expanded ? 'px-4' : 'justify-center')}>
        <NavLink to={homeHref} className="flex items-center gap-2" aria-label="CapOpt home">
          <BrandLogo inverted className="size-7" />
          {expanded ? <span className="text-base font-bold text-white">CapOpt</span> : null}
        </NavLink>
      </div>
      <nav aria-label={label} className="flex-1 overflow-y-auto py-3">
        {visible.map((group) => (
          <div key={group.label} className="mb-4">
            {expanded ? (
              <p className="px-4 pb-1.5 text-xs font-semibold tracking-wide text-slate-400 uppercase">{group.label}</p>
            ) : null}
            <ul className={cn('space-y-1', expanded ? 'px-2' : 'px-1.5')}>
              {group.items.map((item) => (
                <li key={item.href}>
                  <SidebarLink item={item} expanded={expanded} />
                </li>
              ))}
            </ul>
          </div>
        ))}
      </nav>
    </Sidebar>
  )
}

function SidebarLink({ item, expanded }: { item: NavItem; expanded: boolean }) {
  const { isMobile, setOpenMobile } = useSidebar()
  const [params] = useSearchParams()
  const Icon = item.icon
  const href = item.clientScoped ? withClient(item.href, params.get(CLIENT_PARAM)) : item.href
  const link = (
    <NavLink
      to={href}
      onClick={() => (isMobile ? setOpenMobile(false) : undefined)}
      aria-label={expanded ? undefined : item.label}
      className={({ isActive }) =>
        cn(
          'flex h-9 items-center gap-3 rounded-md text-sm font-medium transition-colors',
          expanded ? 'px-3' : 'justify-center',
          isActive ? 'bg-white/15 text-white' : 'text-slate-300 hover:bg-white/10 hover:text-white',
        )
      }
    >
      <Icon className="size-4 shrink-0" aria-hidden="true" />
      {expanded ? <span className="truncate">{item.label}</span> : null}
    </NavLink>
  )
  if (expanded) return link
  return (
    <Tooltip>
      <TooltipTrigger asChild>{link}</TooltipTrigger>
      <TooltipContent side="right">{item.label}</TooltipContent>
    </Tooltip>
  )
}
