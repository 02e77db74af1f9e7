import { Sparkles } from 'lucide-react'
import { useState, type KeyboardEvent } from 'react'
import type * as Y from 'yjs'

import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { FormField } from '@/components/ui/form-field'
import { Select } from '@/components/ui/select'
import { Textarea } from '@/components/ui/textarea'
import { SECTION_KINDS } from '@/config/section-kinds'
import { ApiError, errorMessage } from '@/lib/api-client'
import { toast } from '@/lib/toast'

import { guessSectionType, replaceSectionContent, sectionText, type Section } from '../utils/sections'
import { useGenerateSection } from './api'

type Props = {
  doc: Y.Doc
  clientId: string
  reportId: string
  /** The section the assistant writes (null: closed). */
  section: Section | null
  onClose: () => void
}

/** The toast of a refusal: the spec's titles by the server's code. */
function failureToast(error: unknown) {
  if (error instanceof ApiError && error.code === 'no_content') return toast.error('No Content Generated', error.message)
  if (error instanceof ApiError && error.code === 'ai_unavailable') return toast.error('AI Generation Error', error.message)
  const message = errorMessage(error, 'Please try again.')
  toast.error('Generation Failed', message.startsWith('Unable to generate content') ? message : `Unable to generate content: ${message}`)
}

/**
 * The AI text assistant (opened by double-clicking a section): a required request (Enter
 * submits, Shift+Enter adds a line, Escape closes) and the section's type; the server writes the
 * text from the client's own figures and it replaces the section's content for every
 * co-editor, the section marked AI-generated.
 */
export function AssistantDialog({ doc, clientId, reportId, section, onClose }: Props) {
  const [prompt, setPrompt] = useState('')
  const [kind, setKind] = useState('content')
  const [error, setError] = useState<string | null>(null)
  const [shownFor, setShownFor] = useState<string | null>(null)
  const run = useGenerateSection(clientId, reportId)

  // A newly opened section starts with an empty request and the type its title suggests.
  if (section && shownFor !== section.id) {
    setShownFor(section.id)
    setPrompt('')
    setError(null)
    setKind(guessSectionType(section.title))
  }

  const submit = () => {
    if (!section || run.isPending) return
    const text = prompt.trim()
    if (!text) return setError('Please enter a prompt.')
    setError(null)
    run.mutate(
      { sectionTitle: section.title, sectionType: kind, content: sectionText(doc, section.id), prompt: text },
      {
        onSuccess: (r) => {
          if (!replaceSectionContent(doc, section.id, r.content)) {
            toast.error('Section Not Found', 'The section was deleted while the text was written.')
            return
          }
          toast.success('Content generated', `"${section.title}" was rewritten from your figures.`)
          setShownFor(null)
          onClose()
        },
        onError: failureToast,
      },
    )
  }

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault()
      submit()
    }
  }

  return (
    <Dialog
      open={section !== null}
      onOpenChange={(open) => {
        if (!open) {
          setShownFor(null)
          onClose()
        }
      }}
    >
      <DialogContent>
        <DialogHeader>
          <DialogTitle>AI Text Assistant</DialogTitle>
          <DialogDescription>
            {section ? `Rewrites “${section.title}” from your processed files’ figures. The result replaces the section’s content.` : ''}
          </DialogDescription>
        </DialogHeader>
        <div className="space-y-3">
          <FormField label="Section type">
            {(ids) => (
              <Select {...ids} value={kind} onChange={(e) => setKind(e.target.value)} disabled={run.isPending}>
                {SECTION_KINDS.map((t) => (
                  <option key={t.value} value={t.value}>
                    {t.label}
                  </option>
                ))}
              </Select>
            )}
          </FormField>
          <FormField label="What should this section say?" error={error ?? undefined} hint="Enter to generate, Shift+Enter for a new line.">
            {(ids) => (
              <Textarea
                {...ids}
                autoFocus
                rows={4}
                value={prompt}
                placeholder="e.g. Summarise our capital savings and the articles they rest on"
                onChange={(e) => setPrompt(e.target.value)}
                onKeyDown={onKeyDown}
                disabled={run.isPending}
                maxLength={2000}
              />
            )}
          </FormField>
        </div>
        <DialogFooter>
          <Button variant="outline" onClick={onClose} disabled={run.isPending}>
            Cancel
          </Button>
          <Button onClick={submit} disabled={run.isPending}>
            <Sparkles /> {run.isPending ? 'Generating...' : 'Generate'}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  )
}
