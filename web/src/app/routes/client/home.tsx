import { ClientHome } from '@/features/client-home/components/client-home'

export function Component() {
  return <ClientHome />
}
