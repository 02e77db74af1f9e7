import { Toaster as Sonner } from 'sonner'

/** Below the 64 px top bar, so a toast never covers the profile menu. */
const BELOW_TOP_BAR = { top: 72, right: 16 }

/** The one place toasts render; only one is visible at a time. */
export function Toaster() {
  return (
    <Sonner position="top-right" visibleToasts={1} richColors closeButton offset={BELOW_TOP_BAR} mobileOffset={BELOW_TOP_BAR} />
  )
}
