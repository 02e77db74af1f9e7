import { Toaster as Sonner } from 'sonner'

/** The one place toasts render; only one is visible at a time. */
export function Toaster() {
  return <Sonner position="top-right" visibleToasts={1} richColors closeButton />
}
