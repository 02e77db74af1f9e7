import { FaqSupport } from '@/features/support/components/faq-support'

export function Component() {
  return <FaqSupport />
}
