import { PanelLeft } from 'lucide-react'
import { Dialog as DialogPrimitive } from 'radix-ui'
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useState,
  type ComponentProps,
  type CSSProperties,
  type ReactNode,
} from 'react'

import { useIsMobile } from '@/hooks/use-is-mobile'
import { cn } from '@/lib/cn'
import { readCookie, writeCookie } from '@/lib/cookies'

import { Button } from './button'

/** Cookie remembering whether the sidebar is open. */
export const SIDEBAR_COOKIE = 'sidebar_state'
/** Seven days. */
export const SIDEBAR_COOKIE_MAX_AGE = 60 * 60 * 24 * 7
export const SIDEBAR_WIDTH = '16rem'
export const SIDEBAR_WIDTH_MOBILE = '18rem'
export const SIDEBAR_WIDTH_ICON = '3rem'
/** Ctrl+B (Cmd+B on a Mac) toggles the sidebar. */
export const SIDEBAR_SHORTCUT = 'b'

/**
 * True when the sidebar shortcut should toggle the sidebar: Ctrl/Cmd+B that nothing else handled
 * and that was not typed into an editable element (in the report editor Ctrl+B makes text bold).
 */
export function isSidebarShortcut(event: KeyboardEvent): boolean {
  if (event.key.toLowerCase() !== SIDEBAR_SHORTCUT || !(event.ctrlKey || event.metaKey) || event.altKey) return false
  if (event.defaultPrevented) return false
  const target = event.target
  if (target instanceof HTMLElement) {
    if (target.isContentEditable || target.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"]')) {
      return false
    }
  }
  return true
}

type SidebarContextValue = {
  /** Desktop: expanded (true) or icon mode (false). */
  open: boolean
  setOpen: (open: boolean) => void
  /** Mobile: the drawer is showing. */
  openMobile: boolean
  setOpenMobile: (open: boolean) => void
  isMobile: boolean
  toggle: () => void
}

const SidebarContext = createContext<SidebarContextValue | null>(null)

export function useSidebar(): SidebarContextValue {
  const context = useContext(SidebarContext)
  if (!context) throw new Error('useSidebar must be used inside a SidebarProvider')
  return context
}

function initialOpen(): boolean {
  return readCookie(SIDEBAR_COOKIE) !== 'false'
}

export function SidebarProvider({ children }: { children: ReactNode }) {
  const isMobile = useIsMobile()
  const [open, setOpenState] = useState(initialOpen)
  const [openMobile, setOpenMobile] = useState(false)

  const setOpen = useCallback((value: boolean) => {
    setOpenState(value)
    writeCookie(SIDEBAR_COOKIE, String(value), SIDEBAR_COOKIE_MAX_AGE)
  }, [])

  const toggle = useCallback(() => {
    if (isMobile) setOpenMobile((value) => !value)
    else setOpen(!open)
  }, [isMobile, open, setOpen])

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (isSidebarShortcut(event)) {
        event.preventDefault()
        toggle()
      }
    }
    window.addEventListener('keydown', onKeyDown)
    return () => window.removeEventListener('keydown', onKeyDown)
  }, [toggle])

  const value = useMemo(
    () => ({ open, setOpen, openMobile, setOpenMobile, isMobile, toggle }),
    [open, setOpen, openMobile, isMobile, toggle],
  )

  return (
    <SidebarContext.Provider value={value}>
      <div
        className="flex min-h-svh w-full"
        style={
          {
            '--sidebar-width': SIDEBAR_WIDTH,
            '--sidebar-width-icon': SIDEBAR_WIDTH_ICON,
          } as CSSProperties
        }
      >
        {children}
      </div>
    </SidebarContext.Provider>
  )
}

/**
 * The sidebar: on wide screens a column 16rem wide that collapses to 3rem of icons; below 768 px
 * an off-canvas drawer (18rem) opened by the trigger or the shortcut.
 */
export function Sidebar({ children, label }: { children: ReactNode; label: string }) {
  const { isMobile, open, openMobile, setOpenMobile } = useSidebar()

  if (isMobile) {
    return (
      <DialogPrimitive.Root open={openMobile} onOpenChange={setOpenMobile}>
        <DialogPrimitive.Portal>
          <DialogPrimitive.Overlay className="fixed inset-0 z-40 bg-slate-950/50 animate-fade-in" />
          <DialogPrimitive.Content
            aria-label={label}
            data-sidebar="sidebar"
            data-mobile="true"
            className="fixed inset-y-0 left-0 z-50 flex flex-col bg-slate-900 text-slate-100 shadow-xl animate-fade-in"
            style={{ width: SIDEBAR_WIDTH_MOBILE }}
          >
            <DialogPrimitive.Title className="sr-only">{label}</DialogPrimitive.Title>
            <DialogPrimitive.Description className="sr-only">Main navigation</DialogPrimitive.Description>
            {children}
          </DialogPrimitive.Content>
        </DialogPrimitive.Portal>
      </DialogPrimitive.Root>
    )
  }

  return (
    <aside
      aria-label={label}
      data-sidebar="sidebar"
      data-state={open ? 'expanded' : 'collapsed'}
      className="group/sidebar sticky top-0 flex h-svh shrink-0 flex-col bg-slate-900 text-slate-100 transition-[width] duration-200 ease-linear"
      style={{ width: open ? 'var(--sidebar-width)' : 'var(--sidebar-width-icon)' }}
    >
      {children}
    </aside>
  )
}

/** True when the sidebar shows labels (expanded on desktop, or the mobile drawer). */
export function useSidebarExpanded(): boolean {
  const { isMobile, open } = useSidebar()
  return isMobile || open
}

export function SidebarTrigger({ className, ...props }: ComponentProps<typeof Button>) {
  const { toggle } = useSidebar()
  return (
    <Button
      variant="ghost"
      size="icon"
      aria-label="Toggle sidebar"
      title="Toggle sidebar (Ctrl+B)"
      className={cn('text-slate-600', className)}
      onClick={toggle}
      {...props}
    >
      <PanelLeft />
    </Button>
  )
}
