import { useAuthStore } from '@/lib/auth-store'

import { PasswordChangeDialog } from './password-change-dialog'
import { TermsDialog } from './terms-dialog'

/** The blocking first-login steps: terms first, then the password-age check. */
export function FirstLoginDialogs() {
  const user = useAuthStore((s) => s.user)
  if (!user) return null
  if (user.requires_terms) return <TermsDialog />
  if (user.requires_password_change) return <PasswordChangeDialog required />
  return null
}
