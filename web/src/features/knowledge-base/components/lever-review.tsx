import { CheckCircle2, Plus, Save, Trash2, X } from 'lucide-react'
import { useId, useState } from 'react'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { FormField } from '@/components/ui/form-field'
import { Input } from '@/components/ui/input'
import { Select } from '@/components/ui/select'
import { Textarea } from '@/components/ui/textarea'
import { errorMessage } from '@/lib/api-client'
import { toast } from '@/lib/toast'

import { useSaveLevers, type ExtractedLever, type ExtractedRule, type LeverExtraction } from '../api'
import { checkLevers, LEVER_CATEGORIES, parseObject, RULE_TYPES, SIMILAR_NAME, similarLever, type LeverProblem } from '../utils/levers'

type Props = {
  extraction: LeverExtraction
  onClose: () => void
}

const emptyRule = (): ExtractedRule => ({
  ruleName: '',
  ruleType: 'condition',
  ruleDescription: '',
  conditions: {},
  actions: {},
  priority: 1,
  isActive: true,
  articleReference: '',
})

/**
 * The review of an extraction (spec 002): each proposed lever and its rules edited, validated
 * with the specification's messages, and saved with 'Save to Knowledge Base' / 'Saving...' /
 * 'Saved' (disabled once saved). A lever named like an existing one is saved onto it.
 */
export function LeverReview({ extraction, onClose }: Props) {
  const [levers, setLevers] = useState<ExtractedLever[]>(() => structuredClone(extraction.levers))
  const [problems, setProblems] = useState<LeverProblem[] | null>(null)
  const [saved, setSaved] = useState(false)
  const save = useSaveLevers()

  const edit = (i: number, change: (l: ExtractedLever) => void) => {
    setLevers((current) =>
      current.map((l, k) => {
        if (k !== i) return l
        const copy = structuredClone(l)
        change(copy)
        return copy
      }),
    )
    if (problems) setProblems(null)
  }
  const ruleCount = levers.reduce((n, l) => n + l.rules.length, 0)

  const validate = () => {
    const found = checkLevers(levers)
    setProblems(found)
    return found
  }

  const submit = () => {
    if (levers.length === 0) {
      toast.error('No Data', 'There are no levers to save.')
      return
    }
    if (validate().length > 0) {
      toast.error('Validation Failed', 'Please fix all validation errors before saving.')
      return
    }
    save.mutate(
      { documentId: extraction.documentId, levers },
      {
        onSuccess: (result) => {
          setSaved(true)
          toast.success('Save Successful', `${result.levers.length} ${result.levers.length === 1 ? 'lever' : 'levers'} saved, 0 items failed`)
        },
        onError: (error) => toast.error('Save Failed', errorMessage(error, 'The levers could not be saved.')),
      },
    )
  }

  const problemOf = (lever: number, field: string, rule: number | null = null) =>
    problems?.find((p) => p.lever === lever && p.field === field && p.rule === rule)?.message

  return (
    <Card role="region" aria-label="Extracted levers">
      <CardHeader className="flex flex-row flex-wrap items-start justify-between gap-4">
        <div>
          <CardTitle>Extracted levers</CardTitle>
          <CardDescription>
            From {extraction.documentName} by the {extraction.engine === 'builtin' ? 'built-in engine' : 'configured model'}: {levers.length}{' '}
            {levers.length === 1 ? 'lever' : 'levers'}, {ruleCount} {ruleCount === 1 ? 'rule' : 'rules'}. Edit, validate, then save.
          </CardDescription>
        </div>
        <div className="flex flex-wrap gap-2">
          <Button variant="outline" onClick={() => validate()} disabled={saved || save.isPending}>
            <CheckCircle2 /> Validate
          </Button>
          <Button onClick={submit} disabled={saved || save.isPending}>
            <Save /> {saved ? 'Saved' : save.isPending ? 'Saving...' : 'Save to Knowledge Base'}
          </Button>
          <Button variant="ghost" size="icon" aria-label="Close the extraction" onClick={onClose} disabled={save.isPending}>
            <X />
          </Button>
        </div>
      </CardHeader>
      <CardContent className="space-y-4">
        {levers.length === 0 ? (
          <p className="py-4 text-center text-sm text-slate-500">No levers or rules were recognised in this document.</p>
        ) : null}
        {problems !== null && problems.length === 0 ? <Alert>All levers and rules are valid.</Alert> : null}
        {problems !== null && problems.length > 0 ? (
          <Alert variant="destructive">
            {problems.length} {problems.length === 1 ? 'problem' : 'problems'} to fix before saving.
          </Alert>
        ) : null}
        {levers.map((l, i) => (
          <LeverCard
            key={i}
            index={i}
            lever={l}
            existing={similarLever(l.leverName, extraction.existingLevers)?.name ?? null}
            problemOf={problemOf}
            disabled={saved || save.isPending}
            onEdit={(change) => edit(i, change)}
            onRemove={() => {
              setLevers((current) => current.filter((_, k) => k !== i))
              setProblems(null)
            }}
          />
        ))}
      </CardContent>
    </Card>
  )
}

type LeverCardProps = {
  index: number
  lever: ExtractedLever
  existing: string | null
  problemOf: (lever: number, field: string, rule?: number | null) => string | undefined
  disabled: boolean
  onEdit: (change: (l: ExtractedLever) => void) => void
  onRemove: () => void
}

function LeverCard({ index, lever: l, existing, problemOf, disabled, onEdit, onRemove }: LeverCardProps) {
  return (
    <section className="space-y-4 rounded-lg border border-slate-200 p-4" aria-label={`Lever ${index + 1}: ${l.leverName || 'unnamed'}`} data-testid="kb-extracted-lever">
      <div className="flex items-start justify-between gap-2">
        <h3 className="font-semibold text-slate-900">{l.leverName || 'Unnamed lever'}</h3>
        <Button variant="ghost" size="sm" className="text-red-600" onClick={onRemove} disabled={disabled}>
          <Trash2 /> Remove lever
        </Button>
      </div>
      <div className="grid gap-4 md:grid-cols-2">
        <FormField label="Lever name" error={problemOf(index, 'leverName')} hint={existing ? `${SIMILAR_NAME} (${existing})` : 'A new lever of the dictionary'}>
          {(ids) => <Input {...ids} value={l.leverName} disabled={disabled} onChange={(e) => onEdit((x) => {
 x.leverName = e.target.value
})} />}
        </FormField>
        <FormField label="Lever category" error={problemOf(index, 'leverCategory')}>
          {(ids) => (
            <Select {...ids} value={l.leverCategory} disabled={disabled} onChange={(e) => onEdit((x) => {
 x.leverCategory = e.target.value
})}>
              <option value="">Select a category</option>
              {LEVER_CATEGORIES.map((c) => (
                <option key={c} value={c}>
                  {c}
                </option>
              ))}
            </Select>
          )}
        </FormField>
        <FormField label="Article reference">
          {(ids) => <Input {...ids} value={l.articleReference} disabled={disabled} onChange={(e) => onEdit((x) => {
 x.articleReference = e.target.value
})} />}
        </FormField>
        <FormField label="Confidence score" error={problemOf(index, 'confidenceScore')}>
          {(ids) => (
            <Input
              {...ids}
              type="number"
              min={0}
              max={1}
              step={0.01}
              value={l.confidenceScore}
              disabled={disabled}
              onChange={(e) => onEdit((x) => {
 x.confidenceScore = e.target.valueAsNumber
})}
            />
          )}
        </FormField>
      </div>
      <FormField label="Description" error={problemOf(index, 'description')}>
        {(ids) => <Textarea {...ids} rows={2} value={l.description} disabled={disabled} onChange={(e) => onEdit((x) => {
 x.description = e.target.value
})} />}
      </FormField>
      {l.variables.length > 0 ? (
        <div className="space-y-1">
          <p className="text-sm font-medium text-slate-700">Variables</p>
          <ul className="flex flex-wrap gap-2" aria-label="Variables">
            {l.variables.map((v) => (
              <li key={v.name} className="rounded-md bg-slate-100 px-2 py-1 text-xs text-slate-700" title={v.description}>
                <span className="font-mono">{v.name}</span> · {v.type}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <div className="space-y-3">
        <div className="flex items-center justify-between">
          <p className="text-sm font-medium text-slate-700">Rules ({l.rules.length})</p>
          <Button variant="outline" size="sm" disabled={disabled} onClick={() => onEdit((x) => {
 x.rules.push(emptyRule())
})}>
            <Plus /> Add rule
          </Button>
        </div>
        {l.rules.map((r, j) => (
          <RuleEditor
            key={j}
            number={j + 1}
            rule={r}
            problem={(field) => problemOf(index, field, j + 1)}
            disabled={disabled}
            onEdit={(change) => onEdit((x) => change(x.rules[j]!))}
            onRemove={() => onEdit((x) => {
 x.rules.splice(j, 1)
})}
          />
        ))}
      </div>
    </section>
  )
}

type RuleEditorProps = {
  number: number
  rule: ExtractedRule
  problem: (field: string) => string | undefined
  disabled: boolean
  onEdit: (change: (r: ExtractedRule) => void) => void
  onRemove: () => void
}

function RuleEditor({ number, rule: r, problem, disabled, onEdit, onRemove }: RuleEditorProps) {
  const id = useId()
  return (
    <div className="space-y-3 rounded-md border border-slate-200 bg-slate-50 p-3" aria-label={`Rule ${number}: ${r.ruleName || 'unnamed'}`} data-testid="kb-extracted-rule">
      <div className="flex items-center justify-between gap-2">
        <p className="text-sm font-medium text-slate-900">
          Rule {number} {r.articleReference ? <span className="font-normal text-slate-500">· {r.articleReference}</span> : null}
        </p>
        <div className="flex items-center gap-3">
          <label className="flex items-center gap-1.5 text-sm text-slate-700" htmlFor={`${id}-active`}>
            <input id={`${id}-active`} type="checkbox" checked={r.isActive} disabled={disabled} onChange={(e) => onEdit((x) => {
 x.isActive = e.target.checked
})} />
            Active
          </label>
          <Button variant="ghost" size="sm" className="text-red-600" disabled={disabled} onClick={onRemove} aria-label={`Remove rule ${number}`}>
            <Trash2 />
          </Button>
        </div>
      </div>
      <div className="grid gap-3 md:grid-cols-[2fr_1fr_1fr]">
        <FormField label="Name" error={problem('ruleName')}>
          {(ids) => <Input {...ids} value={r.ruleName} disabled={disabled} onChange={(e) => onEdit((x) => {
 x.ruleName = e.target.value
})} />}
        </FormField>
        <FormField label="Type" error={problem('ruleType')}>
          {(ids) => (
            <Select {...ids} value={r.ruleType} disabled={disabled} onChange={(e) => onEdit((x) => {
 x.ruleType = e.target.value
})}>
              <option value="">Select a type</option>
              {RULE_TYPES.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </Select>
          )}
        </FormField>
        <FormField label="Priority" error={problem('priority')}>
          {(ids) => (
            <Input {...ids} type="number" min={1} step={1} value={r.priority} disabled={disabled} onChange={(e) => onEdit((x) => {
 x.priority = e.target.valueAsNumber
})} />
          )}
        </FormField>
      </div>
      <FormField label="Description">
        {(ids) => <Textarea {...ids} rows={2} value={r.ruleDescription} disabled={disabled} onChange={(e) => onEdit((x) => {
 x.ruleDescription = e.target.value
})} />}
      </FormField>
      <div className="grid gap-3 md:grid-cols-2">
        <JsonField label="Conditions" value={r.conditions} error={problem('conditions')} disabled={disabled} onChange={(v) => onEdit((x) => {
 x.conditions = v
})} />
        <JsonField label="Actions" value={r.actions} error={problem('actions')} disabled={disabled} onChange={(v) => onEdit((x) => {
 x.actions = v
})} />
      </div>
    </div>
  )
}

/** A JSON object typed as text: a valid object replaces the value, anything else is ignored (spec 002). */
function JsonField({ label, value, error, disabled, onChange }: { label: string; value: Record<string, unknown>; error?: string; disabled: boolean; onChange: (v: Record<string, unknown>) => void }) {
  const [text, setText] = useState(() => JSON.stringify(value, null, 2))
  const parsed = parseObject(text)
  return (
    <div className="space-y-1">
    <FormField label={label} error={error}>
      {(ids) => (
        <Textarea
          {...ids}
          rows={5}
          className="font-mono text-xs"
          value={text}
          disabled={disabled}
          onChange={(e) => {
            setText(e.target.value)
            const v = parseObject(e.target.value)
            if (v !== null) onChange(v)
          }}
        />
      )}
    </FormField>
      {parsed === null ? <p className="text-xs text-amber-700">Not a JSON object: the last valid value is kept.</p> : null}
    </div>
  )
}
