import { toast as sonner, type ExternalToast } from 'sonner'

type Kind = 'success' | 'error' | 'info' | 'message'

function show(kind: Kind, title: string, description?: string, options?: ExternalToast) {
  // One toast at a time: a new one replaces whatever is showing.
  sonner.dismiss()
  const opts = { ...options, description }
  return kind === 'message' ? sonner(title, opts) : sonner[kind](title, opts)
}

/** A button in a toast (Undo), how long it stays, and what happens when it goes. */
export type ToastOptions = Pick<ExternalToast, 'action' | 'duration' | 'onDismiss' | 'onAutoClose'>

/** The product's toasts; only one is ever visible. */
export const toast = {
  success: (title: string, description?: string, options?: ToastOptions) => show('success', title, description, options),
  error: (title: string, description?: string) => show('error', title, description),
  info: (title: string, description?: string) => show('info', title, description),
  message: (title: string, description?: string) => show('message', title, description),
}

/** Closes whatever toast is showing (a new sign-in starts without the last one's errors). */
export function dismissToasts(): void {
  sonner.dismiss()
}
