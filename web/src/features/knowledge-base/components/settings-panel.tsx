import { RotateCcw, Save } from 'lucide-react'
import { useState, type FormEvent } from 'react'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { FormField } from '@/components/ui/form-field'
import { Input } from '@/components/ui/input'
import { Spinner } from '@/components/ui/spinner'
import { errorMessage } from '@/lib/api-client'
import { formatCount, formatDate } from '@/lib/format'
import { toast } from '@/lib/toast'

import { useKnowledgeSettings, useReindex, useSaveSettings, type KnowledgeSettings } from '../api'

/** '1 document', '3 documents'. */
export function documentsLabel(n: number): string {
  return `${formatCount(n)} ${n === 1 ? 'document' : 'documents'}`
}

/** The chunk size typed, or the message saying why it cannot be saved. */
export function parseChunkWords(text: string, s: Pick<KnowledgeSettings, 'minChunkWords' | 'maxChunkWords'>): number | string {
  const t = text.trim()
  const n = Number(t)
  if (t === '' || !Number.isInteger(n) || n < s.minChunkWords || n > s.maxChunkWords) {
    return `Chunk size must be a whole number of words from ${s.minChunkWords} to ${s.maxChunkWords}.`
  }
  return n
}

type FormProps = {
  settings: KnowledgeSettings
  // Owned by the panel, which stays mounted when a saved value remounts the form, so that the
  // calls' own callbacks still run.
  save: ReturnType<typeof useSaveSettings>
  reindex: ReturnType<typeof useReindex>
}

function SettingsForm({ settings, save, reindex }: FormProps) {
  const [text, setText] = useState(String(settings.chunkWords))
  const [error, setError] = useState<string | undefined>()
  const [confirming, setConfirming] = useState(false)

  const submit = (event: FormEvent) => {
    event.preventDefault()
    const parsed = parseChunkWords(text, settings)
    if (typeof parsed === 'string') {
      setError(parsed)
      return
    }
    setError(undefined)
    save.mutate(
      { chunkWords: parsed },
      {
        onSuccess: (saved) => {
          setText(String(saved.chunkWords))
          toast.success(
            'Settings saved',
            saved.staleDocuments > 0
              ? `New documents are cut into ${saved.chunkWords}-word chunks. Re-index to apply it to the ${documentsLabel(saved.staleDocuments)} indexed before.`
              : `Documents are cut into ${saved.chunkWords}-word chunks.`,
          )
        },
        onError: (e) => setError(errorMessage(e, 'Failed to save the settings.')),
      },
    )
  }

  const runReindex = () =>
    reindex.mutate(undefined, {
      onSuccess: (r) => {
        setConfirming(false)
        toast.success('Re-index started', r.queued === 0 ? 'There is no document to re-index.' : `${documentsLabel(r.queued)} queued for reading and indexing.`)
      },
      onError: (e) => {
        setConfirming(false)
        toast.error('Re-index failed', errorMessage(e, 'An unexpected error occurred.'))
      },
    })

  const dirty = text.trim() !== String(settings.chunkWords)

  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <Card>
        <CardHeader>
          <CardTitle>Indexing</CardTitle>
          <CardDescription>How documents are cut into passages for search and for the Q&amp;A agent's regulatory answers.</CardDescription>
        </CardHeader>
        <CardContent>
          <form className="space-y-4" onSubmit={submit} noValidate>
            <FormField
              label="Words per chunk"
              error={error}
              hint={`From ${settings.minChunkWords} to ${settings.maxChunkWords}. Smaller chunks give more precise passages; larger ones keep more context together. A chunk never spans a heading.`}
            >
              {(ids) => (
                <Input
                  {...ids}
                  type="number"
                  inputMode="numeric"
                  min={settings.minChunkWords}
                  max={settings.maxChunkWords}
                  step={1}
                  value={text}
                  onChange={(e) => setText(e.target.value)}
                  className="max-w-40"
                />
              )}
            </FormField>
            <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
              <dt className="text-slate-500">Search language</dt>
              <dd className="text-slate-900">{settings.searchLanguage} (stemming and stop words of the full-text index)</dd>
              <dt className="text-slate-500">Last changed</dt>
              <dd className="text-slate-900">
                {settings.updatedAt ? `${formatDate(settings.updatedAt)}${settings.updatedBy ? ` by ${settings.updatedBy}` : ''}` : 'Never (default)'}
              </dd>
            </dl>
            <Button type="submit" disabled={save.isPending || !dirty}>
              <Save /> {save.isPending ? 'Saving...' : 'Save Settings'}
            </Button>
          </form>
        </CardContent>
      </Card>

      <Card>
        <CardHeader>
          <CardTitle>Re-index</CardTitle>
          <CardDescription>Read every document again and rebuild its passages with the current settings.</CardDescription>
        </CardHeader>
        <CardContent className="space-y-4">
          <p className="text-sm text-slate-700" data-testid="kb-stale">
            {settings.staleDocuments === 0
              ? 'Every completed document is indexed with the current chunk size.'
              : `${documentsLabel(settings.staleDocuments)} ${settings.staleDocuments === 1 ? 'was' : 'were'} indexed with another chunk size.`}
          </p>
          {settings.processing > 0 ? (
            <p className="flex items-center gap-2 text-sm text-slate-500">
              <Spinner /> {documentsLabel(settings.processing)} being read or indexed.
            </p>
          ) : null}
          <p className="text-xs text-slate-500">Search keeps finding each document's previous passages until its new ones replace them.</p>
          <Button variant="outline" onClick={() => setConfirming(true)} disabled={reindex.isPending}>
            <RotateCcw /> Re-index all documents
          </Button>
        </CardContent>
      </Card>

      <Dialog open={confirming} onOpenChange={(open) => (open || reindex.isPending ? undefined : setConfirming(false))}>
        <DialogContent>
          <DialogHeader>
            <DialogTitle>Re-index the knowledge base</DialogTitle>
            <DialogDescription>
              Every completed or failed document is read and indexed again with {settings.chunkWords}-word chunks. Documents still processing are left to finish.
            </DialogDescription>
          </DialogHeader>
          <DialogFooter>
            <Button variant="outline" onClick={() => setConfirming(false)} disabled={reindex.isPending}>
              Cancel
            </Button>
            <Button onClick={runReindex} disabled={reindex.isPending}>
              {reindex.isPending ? 'Re-indexing...' : 'Re-index'}
            </Button>
          </DialogFooter>
        </DialogContent>
      </Dialog>
    </div>
  )
}

/** The Settings tab: the chunk size, the search language, and re-indexing. */
export function SettingsPanel() {
  const settings = useKnowledgeSettings()
  const save = useSaveSettings()
  const reindex = useReindex()
  if (settings.isPending) {
    return (
      <p className="flex items-center gap-2 text-sm text-slate-500">
        <Spinner /> Loading settings…
      </p>
    )
  }
  if (settings.isError) {
    return (
      <Alert variant="destructive" className="flex items-center justify-between gap-4">
        <span>{errorMessage(settings.error, 'Failed to load the settings.')}</span>
        <Button variant="outline" size="sm" onClick={() => void settings.refetch()}>
          Retry
        </Button>
      </Alert>
    )
  }
  // Keyed by the saved value: another administrator's change resets the field.
  return <SettingsForm key={settings.data.chunkWords} settings={settings.data} save={save} reindex={reindex} />
}
