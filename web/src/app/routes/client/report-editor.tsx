import { useParams } from 'react-router'

import { ReportEditorPage } from '@/features/reports/components/report-editor'

export function Component() {
  const { reportId = '' } = useParams()
  return <ReportEditorPage key={reportId} reportId={reportId} />
}
