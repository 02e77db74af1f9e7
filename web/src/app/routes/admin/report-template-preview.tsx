import { useParams } from 'react-router'

import { TemplatePreview } from '@/features/report-templates/components/template-preview'

export function Component() {
  const { templateId = '' } = useParams()
  return <TemplatePreview templateId={templateId} />
}
