import { ReportsList } from '@/features/reports/components/reports-list'

export function Component() {
  return <ReportsList />
}
