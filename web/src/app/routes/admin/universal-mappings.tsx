import { UniversalMappings } from '@/features/admin-mappings/components/universal-mappings'

export function Component() {
  return <UniversalMappings />
}
