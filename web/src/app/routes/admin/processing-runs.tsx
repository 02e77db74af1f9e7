import { AdminRuns } from '@/features/admin-runs/components/admin-runs'

export function Component() {
  return <AdminRuns />
}
