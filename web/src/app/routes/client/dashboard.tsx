import { ClientDashboard } from '@/features/client-dashboard/components/client-dashboard'

export function Component() {
  return <ClientDashboard />
}
