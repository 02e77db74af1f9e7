import { ColumnConfiguration } from '@/features/admin-columns/components/column-configuration'

export function Component() {
  return <ColumnConfiguration />
}
