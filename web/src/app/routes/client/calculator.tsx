import { ClientCalculator } from '@/features/calculator/components/client-calculator'

export function Component() {
  return <ClientCalculator />
}
