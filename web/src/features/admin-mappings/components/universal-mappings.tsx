import { Brain, CheckCircle2, Layers, Plus, Sparkles, Trash2, TrendingUp } from 'lucide-react'
import { useState, type ComponentType, type FormEvent } from 'react'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card } from '@/components/ui/card'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { errorMessage } from '@/lib/api-client'
import { cn } from '@/lib/cn'
import { formatCount } from '@/lib/format'
import { toast } from '@/lib/toast'

import {
  HIGH_CONFIDENCE,
  useAddSuggestion,
  useDeleteSuggestion,
  useSetGlobalLearning,
  useSetSuggestionEnabled,
  useSuggestions,
  type UniversalSuggestion,
} from '../api'

/** The specification's message for an add without both names. */
export const BOTH_NAMES = 'Please enter both source and target column names'

/**
 * Universal Column Mappings (administrators): the global-learning switch, the figures, the
 * suggestions learnt from confirmed mappings (enable, delete) and the Add Suggestion form.
 */
export function UniversalMappings() {
  const suggestions = useSuggestions()
  const learning = useSetGlobalLearning()
  const toggle = useSetSuggestionEnabled()
  const remove = useDeleteSuggestion()
  const add = useAddSuggestion()
  const [source, setSource] = useState('')
  const [target, setTarget] = useState('')
  const data = suggestions.data

  const onLearning = (enabled: boolean) =>
    learning.mutate(enabled, {
      onSuccess: () =>
        toast.success(
          enabled ? 'Global learning enabled' : 'Global learning disabled',
          enabled
            ? 'Confirmed mappings feed the suggestions and auto-mapping uses them.'
            : 'Confirmed mappings no longer feed the suggestions and auto-mapping ignores them.',
        ),
      onError: (e) => toast.error('Failed to update global learning', errorMessage(e, 'Please try again.')),
    })

  const onToggle = (s: UniversalSuggestion, enabled: boolean) =>
    toggle.mutate(
      { id: s.id, enabled },
      {
        onSuccess: () => toast.success(enabled ? 'Suggestion enabled' : 'Suggestion disabled', `${s.sourceColumnName} → ${s.targetColumnName}`),
        onError: (e) => toast.error('Failed to update suggestion', errorMessage(e, 'Please try again.')),
      },
    )

  const onDelete = (s: UniversalSuggestion) =>
    remove.mutate(s.id, {
      onSuccess: () => toast.success('Suggestion deleted', `${s.sourceColumnName} → ${s.targetColumnName}`),
      onError: (e) => toast.error('Failed to delete suggestion', errorMessage(e, 'Please try again.')),
    })

  const onAdd = (e: FormEvent) => {
    e.preventDefault()
    if (!source.trim() || !target.trim()) {
      toast.error('Missing information', BOTH_NAMES)
      return
    }
    add.mutate(
      { sourceColumnName: source, targetColumnName: target },
      {
        onSuccess: (s) => {
          toast.success('Suggestion added', `${s.sourceColumnName} → ${s.targetColumnName}`)
          setSource('')
          setTarget('')
        },
        onError: (err) => toast.error('Failed to add suggestion', errorMessage(err, 'Please try again.')),
      },
    )
  }

  return (
    <div className="mx-auto max-w-6xl space-y-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight text-slate-900">Universal Column Mappings</h1>
        <p className="mt-1 text-sm text-slate-500">Column names learnt from confirmed mappings across all clients, used by auto-mapping.</p>
      </div>
      {suggestions.isError ? (
        <Alert variant="destructive">
          <p className="font-medium">Failed to load suggestions</p>
          <p>{suggestions.error.message}</p>
        </Alert>
      ) : null}
      <Card className="flex flex-wrap items-center justify-between gap-4 p-5">
        <div className="flex items-start gap-3">
          <Brain className="mt-0.5 size-5 text-brand-700" aria-hidden />
          <div>
            <p className="font-medium text-slate-900" id="global-learning-label">
              Global Learning
            </p>
            <p className="text-sm text-slate-500">
              When on, every confirmed mapping feeds these suggestions and auto-mapping uses the enabled ones. When off, neither happens.
            </p>
          </div>
        </div>
        <Switch
          labelledBy="global-learning-label"
          checked={data?.globalLearning ?? false}
          disabled={!data || learning.isPending}
          onChange={onLearning}
        />
      </Card>
      <section aria-label="Suggestion figures" className="grid gap-4 sm:grid-cols-2 xl:grid-cols-4">
        <Stat icon={Layers} title="Total Suggestions" value={data?.stats.total} />
        <Stat icon={CheckCircle2} title="Enabled" value={data?.stats.enabled} />
        <Stat icon={Sparkles} title="High Confidence" value={data?.stats.highConfidence} detail={`Confidence above ${HIGH_CONFIDENCE}`} />
        <Stat icon={TrendingUp} title="Total Usage" value={data?.stats.totalUsage} />
      </section>
      <Card className="p-5">
        <h2 className="font-semibold text-slate-900">Add Suggestion</h2>
        <form className="mt-3 flex flex-wrap items-end gap-3" onSubmit={onAdd} noValidate>
          <div className="w-64 space-y-1.5">
            <Label htmlFor="suggestion-source">Source Column Name</Label>
            <Input id="suggestion-source" value={source} onChange={(e) => setSource(e.target.value)} placeholder="e.g. Tax ID" />
          </div>
          <div className="w-64 space-y-1.5">
            <Label htmlFor="suggestion-target">Target Column Name</Label>
            <Input id="suggestion-target" value={target} onChange={(e) => setTarget(e.target.value)} placeholder="e.g. NIF" />
          </div>
          <Button type="submit" disabled={add.isPending}>
            <Plus /> Add Suggestion
          </Button>
        </form>
      </Card>
      <div className="overflow-x-auto rounded-lg border border-slate-200">
        <table aria-label="Universal column suggestions" className="w-full border-collapse text-sm">
          <thead className="bg-slate-50 text-left text-slate-600">
            <tr className="border-b border-slate-200">
              <th scope="col" className="px-3 py-2 font-medium">Source Column</th>
              <th scope="col" className="px-3 py-2 font-medium">Target Column</th>
              <th scope="col" className="px-3 py-2 font-medium">Confidence</th>
              <th scope="col" className="px-3 py-2 font-medium">Usage</th>
              <th scope="col" className="px-3 py-2 font-medium">Enabled</th>
              <th scope="col" className="px-3 py-2 font-medium">Actions</th>
            </tr>
          </thead>
          <tbody>
            {!data ? (
              <tr>
                <td colSpan={6} className="px-3 py-8 text-center text-slate-500">
                  Loading suggestions...
                </td>
              </tr>
            ) : data.items.length === 0 ? (
              <tr>
                <td colSpan={6} className="px-3 py-8 text-center text-slate-500">
                  No suggestions yet. They are learnt from confirmed mappings, or added here.
                </td>
              </tr>
            ) : (
              data.items.map((s) => (
                <tr key={s.id} className="border-b border-slate-100 last:border-0" data-testid="suggestion-row">
                  <td className="px-3 py-2 font-medium text-slate-900">{s.sourceColumnName}</td>
                  <td className="px-3 py-2">{s.targetColumnName}</td>
                  <td className="px-3 py-2">
                    <span
                      className={cn(
                        'rounded px-1.5 py-0.5 text-xs font-medium',
                        s.confidenceScore >= 0.8 ? 'bg-emerald-100 text-emerald-800' : s.confidenceScore >= 0.6 ? 'bg-blue-100 text-blue-800' : 'bg-yellow-100 text-yellow-800',
                      )}
                    >
                      {Math.round(s.confidenceScore * 100)}%
                    </span>
                  </td>
                  <td className="px-3 py-2">{formatCount(s.usageCount)}</td>
                  <td className="px-3 py-2">
                    <Switch
                      label={`Enable ${s.sourceColumnName} → ${s.targetColumnName}`}
                      checked={s.enabled}
                      onChange={(enabled) => onToggle(s, enabled)}
                    />
                  </td>
                  <td className="px-3 py-2">
                    <Button variant="ghost" size="sm" onClick={() => onDelete(s)} aria-label={`Delete ${s.sourceColumnName} → ${s.targetColumnName}`}>
                      <Trash2 />
                    </Button>
                  </td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
    </div>
  )
}

function Stat({ icon: Icon, title, value, detail }: { icon: ComponentType<{ className?: string }>; title: string; value: number | undefined; detail?: string }) {
  return (
    <Card className="p-5">
      <div className="flex items-center justify-between">
        <p className="text-sm font-medium text-slate-600">{title}</p>
        <Icon className="size-4 text-slate-400" />
      </div>
      <p className="mt-2 text-2xl font-bold text-slate-900" aria-label={title}>
        {value === undefined ? '…' : formatCount(value)}
      </p>
      {detail ? <p className="mt-1 text-xs text-slate-500">{detail}</p> : null}
    </Card>
  )
}

function Switch({
  checked,
  onChange,
  disabled,
  label,
  labelledBy,
}: {
  checked: boolean
  onChange: (checked: boolean) => void
  disabled?: boolean
  label?: string
  labelledBy?: string
}) {
  return (
    <button
      type="button"
      role="switch"
      aria-checked={checked}
      aria-label={label}
      aria-labelledby={labelledBy}
      disabled={disabled}
      onClick={() => onChange(!checked)}
      className={cn(
        'relative inline-flex h-6 w-11 shrink-0 items-center rounded-full transition-colors focus-visible:ring-2 focus-visible:ring-brand-200 focus-visible:outline-none disabled:opacity-60',
        checked ? 'bg-brand-600' : 'bg-slate-300',
      )}
    >
      <span className={cn('inline-block size-5 rounded-full bg-white shadow transition-transform', checked ? 'translate-x-5' : 'translate-x-0.5')} />
    </button>
  )
}
