import { Bot, ChevronDown, ChevronUp, Send, Trash2, X } from 'lucide-react'
import { useEffect, useRef, useState, type FormEvent } from 'react'

import { useQueryClient } from '@tanstack/react-query'

import type { QaConversation } from '@/api/types/QaConversation'
import type { QaMessage } from '@/api/types/QaMessage'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardHeader, CardTitle } from '@/components/ui/card'
import { Input } from '@/components/ui/input'
import { Spinner } from '@/components/ui/spinner'
import { errorMessage } from '@/lib/api-client'
import { cn } from '@/lib/cn'
import { toast } from '@/lib/toast'

import { askQa, qaConversationKey, useClearQaConversation, useQaConversation } from './api'
import { AnswerText } from './answer-text'

/** The suggestion chips under 'Try asking:' (spec 2.8). */
export const SUGGESTIONS = [
  'Total exposures in this file',
  'Summarise key findings',
  'What are the main risk factors?',
  'Show optimisation opportunities',
] as const

/** The assistant's reply when the question could not be asked (spec section 8, Q&A). */
export const ASK_ERROR = 'Sorry, I encountered an error analyzing the files. Please try again.'
/** The toast of a failed answer. */
export const FAILED_TOAST = 'Failed to get AI response'

/** A message on screen: a stored one, or one of the exchange in flight or failed before the stream. */
type ChatMessage = { id: string; role: 'user' | 'assistant'; content: string; streaming?: boolean }

/** The file the questions focus on ('analyse with AI'). */
export type QaFocus = { id: string; label: string }

type Props = {
  clientId: string
  /** The file in focus; none: all the client's files. */
  focus: QaFocus | null
  onClearFocus: () => void
  /** Closes the agent (back to the files). */
  onClose: () => void
}

let localIds = 0
const localId = () => `local-${++localIds}`

const toChat = (m: QaMessage): ChatMessage => ({ id: m.id, role: m.role === 'user' ? 'user' : 'assistant', content: m.content })

/** The Q&A Agent (spec 2.8): a chat about the client's files, or the file in focus. */
export function QaAgent({ clientId, focus, onClearFocus, onClose }: Props) {
  const qc = useQueryClient()
  const conversation = useQaConversation(clientId)
  const clear = useClearQaConversation(clientId)
  const [input, setInput] = useState('')
  const [collapsed, setCollapsed] = useState(false)
  const [loading, setLoading] = useState(false)
  /** The exchange in flight, and replies the server never stored (an error before the stream). */
  const [local, setLocal] = useState<ChatMessage[]>([])
  const endRef = useRef<HTMLDivElement>(null)
  const abortRef = useRef<AbortController | null>(null)

  useEffect(() => () => abortRef.current?.abort(), [])

  const messages = [...(conversation.data?.messages ?? []).map(toChat), ...local]
  const last = messages[messages.length - 1]
  useEffect(() => {
    endRef.current?.scrollIntoView?.({ block: 'end' })
  }, [messages.length, last?.content])

  const ask = async (text: string) => {
    const question = text.trim()
    if (question === '' || loading) return
    setInput('')
    setLoading(true)
    const userMsg: ChatMessage = { id: localId(), role: 'user', content: question }
    const reply: ChatMessage = { id: localId(), role: 'assistant', content: '', streaming: true }
    setLocal((l) => [...l, userMsg, reply])
    const setReply = (patch: (m: ChatMessage) => ChatMessage) => setLocal((l) => l.map((m) => (m.id === reply.id ? patch(m) : m)))
    const controller = new AbortController()
    abortRef.current = controller
    try {
      await askQa(
        clientId,
        focus ? { question, fileId: focus.id } : { question },
        (event) => {
          if (event.type === 'delta') setReply((m) => ({ ...m, content: m.content + event.text }))
          else if (event.type === 'done') {
            // The exchange as stored joins the conversation; the local copies go.
            qc.setQueryData<QaConversation>(qaConversationKey(clientId), (old) => ({
              provider: old?.provider ?? '',
              messages: [...(old?.messages ?? []), event.question, event.answer],
            }))
            setLocal((l) => l.filter((m) => m.id !== userMsg.id && m.id !== reply.id))
            if (event.failure) toast.error(FAILED_TOAST)
          }
        },
        controller.signal,
      )
      // A stream that ended without `done` leaves the reply as far as it came.
      setReply((m) => ({ ...m, streaming: false, content: m.content === '' ? ASK_ERROR : m.content }))
    } catch (error) {
      if (controller.signal.aborted) return
      setReply((m) => ({ ...m, streaming: false, content: ASK_ERROR }))
      toast.error(FAILED_TOAST, errorMessage(error, ''))
    } finally {
      if (abortRef.current === controller) abortRef.current = null
      setLoading(false)
    }
  }

  const onSubmit = (e: FormEvent) => {
    e.preventDefault()
    void ask(input)
  }

  const onClear = () => {
    clear.mutate(undefined, {
      onSuccess: () => setLocal([]),
      onError: (e) => toast.error('Clear failed', errorMessage(e, 'The conversation could not be cleared.')),
    })
  }

  return (
    <Card role="region" aria-label="Q&A Agent" className="flex flex-col" style={collapsed ? undefined : { height: 700 }}>
      <CardHeader className="flex-row items-center justify-between gap-2 border-b border-slate-200 pb-3">
        <div className="min-w-0">
          <CardTitle className="flex items-center gap-2 text-base">
            <Bot className="size-5 text-brand-600" aria-hidden /> Q&amp;A Agent
          </CardTitle>
          {focus ? (
            <p className="mt-1 text-xs text-slate-600">
              Focused on <span className="font-medium text-slate-900">{focus.label}</span>.{' '}
              <button type="button" className="text-brand-700 underline underline-offset-2" onClick={onClearFocus}>
                Clear file focus and analyze all files
              </button>
            </p>
          ) : (
            <p className="mt-1 text-xs text-slate-600">Asking about all your files.</p>
          )}
        </div>
        <div className="flex shrink-0 gap-1">
          <Button
            variant="ghost"
            size="icon"
            aria-label={collapsed ? 'Expand chat' : 'Collapse chat'}
            aria-expanded={!collapsed}
            onClick={() => setCollapsed((c) => !c)}
          >
            {collapsed ? <ChevronDown /> : <ChevronUp />}
          </Button>
          <Button
            variant="ghost"
            size="icon"
            aria-label="Clear chat"
            title="Clear chat"
            onClick={onClear}
            disabled={loading || clear.isPending || messages.length === 0}
          >
            <Trash2 />
          </Button>
          <Button variant="ghost" size="icon" aria-label="Close chat" title="Close" onClick={onClose}>
            <X />
          </Button>
        </div>
      </CardHeader>
      {!collapsed && (
        <CardContent className="flex min-h-0 flex-1 flex-col gap-3 pt-4">
          <div className="min-h-0 flex-1 space-y-3 overflow-y-auto pr-1" role="log" aria-label="Conversation" aria-live="polite">
            {conversation.isPending && (
              <p className="flex items-center gap-2 text-sm text-slate-600">
                <Spinner /> Loading conversation…
              </p>
            )}
            {conversation.isError && (
              <Alert variant="destructive" className="items-center justify-between">
                <p>{errorMessage(conversation.error, 'The conversation could not be loaded.')}</p>
                <Button variant="outline" size="sm" onClick={() => void conversation.refetch()}>
                  Retry
                </Button>
              </Alert>
            )}
            {messages.map((m) => (
              <div key={m.id} className={cn('flex', m.role === 'user' ? 'justify-end' : 'justify-start')}>
                <div
                  data-role={m.role}
                  aria-label={m.role === 'user' ? 'Your question' : 'Answer'}
                  className={cn(
                    'max-w-[85%] rounded-lg px-3 py-2 text-sm',
                    m.role === 'user' ? 'bg-brand-600 whitespace-pre-wrap text-white' : 'bg-slate-100 text-slate-800',
                  )}
                >
                  {m.role === 'user' ? m.content : m.content === '' && m.streaming ? null : <AnswerText text={m.content} />}
                  {m.streaming && (
                    <p className="mt-1 flex items-center gap-2 text-xs text-slate-600">
                      <Spinner /> Analyzing your files...
                    </p>
                  )}
                </div>
              </div>
            ))}
            <div ref={endRef} />
          </div>
          <div>
            <p className="mb-1.5 text-xs font-medium text-slate-600">Try asking:</p>
            <div className="flex flex-wrap gap-2">
              {SUGGESTIONS.map((s) => (
                <Button key={s} variant="outline" size="sm" disabled={loading} onClick={() => void ask(s)}>
                  {s}
                </Button>
              ))}
            </div>
          </div>
          <form className="flex gap-2" onSubmit={onSubmit}>
            <Input
              aria-label="Question"
              placeholder="Ask a question about your files..."
              value={input}
              onChange={(e) => setInput(e.target.value)}
            />
            <Button type="submit" disabled={loading || input.trim() === ''}>
              <Send /> Send
            </Button>
          </form>
        </CardContent>
      )}
    </Card>
  )
}
