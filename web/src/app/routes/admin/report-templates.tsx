import { TemplatesList } from '@/features/report-templates/components/templates-list'

export function Component() {
  return <TemplatesList />
}
