import { ClientSettingsPage } from '@/features/settings/components/settings-pages'

export function Component() {
  return <ClientSettingsPage />
}
