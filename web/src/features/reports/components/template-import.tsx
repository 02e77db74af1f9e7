import { Download } from 'lucide-react'
import { useState } from 'react'

import { Button } from '@/components/ui/button'
import { FormField } from '@/components/ui/form-field'
import { Select } from '@/components/ui/select'
import { errorMessage } from '@/lib/api-client'
import { toast } from '@/lib/toast'

import { useReportTemplates } from '../api'
import { useImportTemplateSections } from '../versions/api'

/**
 * The Structure panel's template list: an active template's sections (text, tables, charts) are
 * appended after the report's last, for everyone editing it. The server keeps the report as it
 * was as an automatic version first, so Version History can undo the import.
 */
export function TemplateImport({ clientId, reportId }: { clientId: string; reportId: string }) {
  const templates = useReportTemplates(true)
  const [templateId, setTemplateId] = useState('')
  const run = useImportTemplateSections(clientId, reportId)

  const submit = () => {
    if (!templateId || run.isPending) return
    run.mutate(templateId, {
      onSuccess: (r) => {
        toast.success(
          `Imported ${r.sections} ${r.sections === 1 ? 'section' : 'sections'}`,
          `The report was saved first as the version ${r.version.name}: restore it from Version History to undo the import.`,
        )
        setTemplateId('')
      },
      onError: (error) => toast.error('Import failed', errorMessage(error, 'Please try again.')),
    })
  }

  return (
    <div className="mt-4 space-y-2 border-t border-slate-100 pt-3">
      <FormField label="Import from template" hint={templates.isError ? 'Failed to load report templates' : undefined}>
        {(ids) => (
          <Select {...ids} value={templateId} onChange={(e) => setTemplateId(e.target.value)} disabled={run.isPending}>
            <option value="">Select a template</option>
            {(templates.data ?? []).map((t) => (
              <option key={t.id} value={t.id}>
                {t.name} ({t.sections.length} {t.sections.length === 1 ? 'section' : 'sections'})
              </option>
            ))}
          </Select>
        )}
      </FormField>
      <Button variant="outline" className="w-full" disabled={!templateId || run.isPending} onClick={submit}>
        <Download /> {run.isPending ? 'Importing…' : 'Import Sections'}
      </Button>
    </div>
  )
}
