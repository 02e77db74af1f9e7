import { AdminProfilePage } from '@/features/settings/components/settings-pages'

export function Component() {
  return <AdminProfilePage />
}
