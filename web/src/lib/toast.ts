import { toast as sonner, type ExternalToast } from 'sonner'

type Kind = 'success' | 'error' | 'info' | 'message'

function show(kind: Kind, title: string, description?: string, options?: ExternalToast) {
  // One toast at a time: a new one replaces whatever is showing.
  sonner.dismiss()
  const opts = { ...options, description }
  return kind === 'message' ? sonner(title, opts) : sonner[kind](title, opts)
}

/** The product's toasts; only one is ever visible. */
export const toast = {
  success: (title: string, description?: string) => show('success', title, description),
  error: (title: string, description?: string) => show('error', title, description),
  info: (title: string, description?: string) => show('info', title, description),
  message: (title: string, description?: string) => show('message', title, description),
}
