import { ClientSummary } from '@/features/client-dashboard/components/client-summary'
import { ClientHome } from '@/features/client-home/components/client-home'

export function Component() {
  return <ClientHome summary={<ClientSummary />} />
}
