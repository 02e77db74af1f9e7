import { useParams } from 'react-router'

import { TemplateEditor } from '@/features/report-templates/components/template-editor'

export function Component() {
  const { templateId = '' } = useParams()
  // A new editor per template: its draft never carries over to another one.
  return <TemplateEditor key={templateId} templateId={templateId} />
}
