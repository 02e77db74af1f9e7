import { CreateFromPdf } from '@/features/report-templates/components/create-from-pdf'

export function Component() {
  return <CreateFromPdf />
}
