import { Download, Sparkles } from 'lucide-react'
import { useState } from 'react'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { FormField } from '@/components/ui/form-field'
import { Select } from '@/components/ui/select'
import { Spinner } from '@/components/ui/spinner'
import { errorMessage } from '@/lib/api-client'

import { useCompletedRuns, useGenerateMemo, type JustificationMemo, type JustificationTemplate } from '../api'
import { downloadText, runLabel, textFileName } from '../utils/templates'

type Props = {
  /** The template previewed; null: closed. */
  template: JustificationTemplate | null
  onClose: () => void
}

/**
 * Preview: the template as plain text, or the memo it writes for a completed processing run
 * (chosen in the list of completed runs); either downloads as a .txt file.
 */
export function PreviewDialog({ template, onClose }: Props) {
  return (
    <Dialog open={template !== null} onOpenChange={(open) => (open ? undefined : onClose())}>
      <DialogContent className="overflow-y-auto sm:max-w-4xl">
        {template ? <PreviewBody key={template.id} template={template} onClose={onClose} /> : null}
      </DialogContent>
    </Dialog>
  )
}

function PreviewBody({ template, onClose }: { template: JustificationTemplate; onClose: () => void }) {
  const runs = useCompletedRuns(true)
  const generate = useGenerateMemo()
  const [runId, setRunId] = useState('')
  const [memo, setMemo] = useState<JustificationMemo | null>(null)
  const [failure, setFailure] = useState<string | null>(null)

  const onGenerate = () => {
    if (!runId) return
    setFailure(null)
    generate.mutate(
      { runId, templateId: template.id },
      {
        onSuccess: (m) => setMemo(m),
        onError: (error) => setFailure(errorMessage(error, 'The memo could not be generated. Please try again.')),
      },
    )
  }
  const onDownload = () =>
    memo ? downloadText(textFileName(template.name, memo.runId), memo.text) : downloadText(textFileName(template.name), template.templateContent)

  const items = runs.data?.items ?? []
  return (
    <>
      <DialogHeader>
        <DialogTitle>{template.name}</DialogTitle>
        <DialogDescription>
          {memo ? `Memo for ${memo.clientName}, processing run ${memo.runId}` : 'Template preview (plain text)'}
        </DialogDescription>
      </DialogHeader>
      <div className="flex flex-wrap items-end gap-3">
        <div className="min-w-72 flex-1">
          <FormField label="Processing run" hint={runs.isSuccess && items.length === 0 ? 'No completed processing runs yet.' : undefined}>
            {(ids) => (
              <Select {...ids} value={runId} onChange={(e) => setRunId(e.target.value)} disabled={!runs.isSuccess || items.length === 0}>
                <option value="">{runs.isPending ? 'Loading runs…' : 'Select a completed run'}</option>
                {items.map((r) => (
                  <option key={r.run.id} value={r.run.id}>
                    {runLabel(r)}
                  </option>
                ))}
              </Select>
            )}
          </FormField>
        </div>
        <Button onClick={onGenerate} disabled={!runId || generate.isPending}>
          {generate.isPending ? <Spinner /> : <Sparkles />} Generate Memo
        </Button>
        {memo ? (
          <Button variant="ghost" onClick={() => setMemo(null)}>
            Show Template
          </Button>
        ) : null}
      </div>
      {runs.isError ? <Alert variant="destructive">Failed to load the completed processing runs.</Alert> : null}
      {failure ? <Alert variant="destructive">{failure}</Alert> : null}
      <pre
        data-testid="preview-text"
        aria-label={memo ? 'Memo' : 'Template content'}
        className="max-h-[55vh] overflow-auto rounded-md border border-slate-200 bg-slate-50 p-4 font-mono text-xs whitespace-pre-wrap text-slate-800"
      >
        {memo ? memo.text : template.templateContent}
      </pre>
      {memo ? (
        <p className="text-sm text-slate-600" data-testid="memo-listed">
          {memo.classificationsListed} of {memo.classificationsTotal} reclassified exposures listed
        </p>
      ) : null}
      <DialogFooter>
        <Button variant="outline" onClick={onClose}>
          Close
        </Button>
        <Button onClick={onDownload}>
          <Download /> Download as .txt
        </Button>
      </DialogFooter>
    </>
  )
}
