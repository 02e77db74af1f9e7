import { AdminSettingsPage } from '@/features/settings/components/settings-pages'

export function Component() {
  return <AdminSettingsPage />
}
