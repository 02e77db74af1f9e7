import { CreateTemplate } from '@/features/report-templates/components/create-template'

export function Component() {
  return <CreateTemplate />
}
