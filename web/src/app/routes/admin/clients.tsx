import { ClientsPage } from '@/features/clients/components/clients-page'

export function Component() {
  return <ClientsPage />
}
