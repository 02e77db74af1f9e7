import { AdminCalculator } from '@/features/calculator/components/admin-calculator'

export function Component() {
  return <AdminCalculator />
}
