import { ArrowDown, ArrowLeft, ArrowUp, BarChart3, Eye, Plus, Table2, Trash2 } from 'lucide-react'
import { useEffect, useState } from 'react'
import { Link, useNavigate } from 'react-router'

import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card } from '@/components/ui/card'
import { FormField } from '@/components/ui/form-field'
import { Input } from '@/components/ui/input'
import { Select } from '@/components/ui/select'
import { Spinner } from '@/components/ui/spinner'
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs'
import { Textarea } from '@/components/ui/textarea'
import { paths } from '@/config/paths'
import { ApiError, errorMessage } from '@/lib/api-client'
import { normalizeHex } from '@/lib/colour'
import { toast } from '@/lib/toast'

import { useTemplate, useUpdateTemplate, type TemplateBranding, type TemplateEdit, type TemplateSection } from '../api'
import { blockLabel, editOf, MAX_SECTIONS, pageRange, SECTION_KINDS, TEMPLATE_FONTS, typeLabel } from '../utils/templates'
import { TemplateNotFound } from './template-not-found'

/**
 * Edit template (`/admin/report-generator-templates/edit/{templateId}`): tabs Basic Info,
 * Sections (with their count) and Branding over one draft, saved together. The type is shown,
 * never changed. Another administrator's save is not merged into an open draft.
 */
export function TemplateEditor({ templateId }: { templateId: string }) {
  const template = useTemplate(templateId)
  const update = useUpdateTemplate()
  const navigate = useNavigate()
  // The draft starts as the template loaded first (the route keys the editor by template).
  const [edited, setDraft] = useState<TemplateEdit | null>(null)
  const draft = edited ?? (template.data ? editOf(template.data) : null)

  const notFound = template.error instanceof ApiError && template.error.status === 404
  useEffect(() => {
    // A load error other than "not found" goes back to the list.
    if (template.isError && !notFound) {
      toast.error('Failed to load template')
      void navigate(paths.admin.templates.getHref())
    }
  }, [template.isError, notFound, navigate])

  if (notFound) return <TemplateNotFound />
  if (!template.data || !draft) {
    return (
      <Card className="mx-auto flex max-w-4xl items-center justify-center gap-2 p-10 text-sm text-slate-500">
        <Spinner /> Loading template…
      </Card>
    )
  }
  const t = template.data
  const set = (patch: Partial<TemplateEdit>) => setDraft({ ...draft, ...patch })
  const setSection = (i: number, patch: Partial<TemplateSection>) =>
    set({ sections: draft.sections.map((s, j) => (j === i ? { ...s, ...patch } : s)) })
  const move = (i: number, by: -1 | 1) => {
    const sections = [...draft.sections]
    const [s] = sections.splice(i, 1)
    sections.splice(i + by, 0, s)
    set({ sections })
  }
  const setBranding = (patch: Partial<TemplateBranding>) => set({ branding: { ...draft.branding, ...patch } })

  const save = () => {
    if (!draft.name.trim()) {
      toast.error('Validation Error', 'Template name is required')
      return
    }
    const untitled = draft.sections.findIndex((s) => !s.title.trim())
    if (untitled >= 0) {
      toast.error('Validation Error', `Section ${untitled + 1} needs a title.`)
      return
    }
    // The brand colour rule: six hex digits with or without '#', three expanded.
    const colours = {
      primaryColor: normalizeHex(draft.branding.primaryColor),
      secondaryColor: normalizeHex(draft.branding.secondaryColor),
      backgroundColor: normalizeHex(draft.branding.backgroundColor),
    }
    if (Object.values(colours).some((c) => c === null)) {
      toast.error('Validation Error', 'Colours are hex values like #1e3a8a.')
      return
    }
    update.mutate(
      { id: t.id, input: { ...draft, branding: { ...draft.branding, ...(colours as Record<string, string>) } } },
      {
        onSuccess: (saved) => {
          setDraft(editOf(saved))
          toast.success('Template saved')
        },
        onError: (error) => toast.error('Save failed', errorMessage(error, 'Could not save template changes.')),
      },
    )
  }

  return (
    <div className="mx-auto max-w-4xl space-y-6">
      <Link to={paths.admin.templates.getHref()} className="inline-flex items-center gap-1 text-sm text-slate-600 hover:text-slate-900">
        <ArrowLeft className="size-4" /> Back to templates
      </Link>
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold tracking-tight text-slate-900">Edit Template</h1>
          <p className="mt-1 text-sm text-slate-500">
            {t.name} · {typeLabel(t.templateType)}
          </p>
        </div>
        <div className="flex gap-2">
          <Button asChild variant="outline">
            <Link to={paths.admin.templatePreview.getHref(t.id)}>
              <Eye /> Preview
            </Link>
          </Button>
          <Button onClick={save} disabled={update.isPending}>
            {update.isPending ? 'Saving…' : 'Save Template'}
          </Button>
        </div>
      </div>
      <Tabs defaultValue="basic">
        <TabsList>
          <TabsTrigger value="basic">Basic Info</TabsTrigger>
          <TabsTrigger value="sections">Sections ({draft.sections.length})</TabsTrigger>
          <TabsTrigger value="branding">Branding</TabsTrigger>
        </TabsList>
        <TabsContent value="basic">
          <Card className="space-y-4 p-6">
            <FormField label="Template Name">
              {(ids) => <Input {...ids} value={draft.name} onChange={(e) => set({ name: e.target.value })} maxLength={120} />}
            </FormField>
            <FormField label="Description">
              {(ids) => <Textarea {...ids} value={draft.description} onChange={(e) => set({ description: e.target.value })} rows={3} maxLength={2000} />}
            </FormField>
            <FormField label="Template Type" hint="The type is set when the template is created.">
              {(ids) => <Input {...ids} value={typeLabel(t.templateType)} readOnly disabled />}
            </FormField>
            <label className="flex items-center gap-2 text-sm text-slate-700">
              <input type="checkbox" checked={draft.isActive} onChange={(e) => set({ isActive: e.target.checked })} className="size-4" />
              Active (client teams can start reports from it)
            </label>
          </Card>
        </TabsContent>
        <TabsContent value="sections" className="space-y-3">
          {draft.sections.map((s, i) => (
            <Card key={s.id || `new-${i}`} className="space-y-3 p-4" role="group" aria-label={`Section ${i + 1}`}>
              <div className="flex flex-wrap items-end gap-3">
                <div className="min-w-60 flex-1">
                  <FormField label={`Section ${i + 1} title`}>
                    {(ids) => <Input {...ids} value={s.title} onChange={(e) => setSection(i, { title: e.target.value })} maxLength={199} />}
                  </FormField>
                </div>
                <div className="w-44">
                  <FormField label={`Section ${i + 1} type`}>
                    {(ids) => (
                      <Select {...ids} value={s.kind} onChange={(e) => setSection(i, { kind: e.target.value })}>
                        {SECTION_KINDS.map((k) => (
                          <option key={k.value} value={k.value}>
                            {k.label}
                          </option>
                        ))}
                      </Select>
                    )}
                  </FormField>
                </div>
                <div className="flex gap-1">
                  <Button variant="ghost" size="icon" aria-label={`Move section ${i + 1} up`} disabled={i === 0} onClick={() => move(i, -1)}>
                    <ArrowUp className="size-4" />
                  </Button>
                  <Button
                    variant="ghost"
                    size="icon"
                    aria-label={`Move section ${i + 1} down`}
                    disabled={i === draft.sections.length - 1}
                    onClick={() => move(i, 1)}
                  >
                    <ArrowDown className="size-4" />
                  </Button>
                  <Button
                    variant="ghost"
                    size="icon"
                    className="text-red-600"
                    aria-label={`Remove section ${i + 1}`}
                    disabled={draft.sections.length === 1}
                    onClick={() => set({ sections: draft.sections.filter((_, j) => j !== i) })}
                  >
                    <Trash2 className="size-4" />
                  </Button>
                </div>
              </div>
              <FormField label={`Section ${i + 1} starting text`} hint="Written into each new report; a blank line starts a new paragraph.">
                {(ids) => <Textarea {...ids} value={s.content} onChange={(e) => setSection(i, { content: e.target.value })} rows={3} />}
              </FormField>
              {s.pageStart != null && (
                <p className="text-xs text-slate-500">
                  From the PDF: {pageRange(s.pageStart, s.pageEnd)}
                  {s.level != null && ` · level ${s.level}`}
                </p>
              )}
              {s.blocks && s.blocks.length > 0 && (
                <ul className="space-y-1 text-sm text-slate-700" aria-label={`Section ${i + 1} tables and charts`}>
                  {s.blocks.map((b, k) => (
                    <li key={k} className="flex items-center justify-between gap-2 rounded border border-slate-200 px-3 py-1.5">
                      <span className="flex items-center gap-2 truncate">
                        {b.kind === 'table' ? <Table2 className="size-4 shrink-0" aria-hidden /> : <BarChart3 className="size-4 shrink-0" aria-hidden />}
                        {blockLabel(b)}
                      </span>
                      <Button
                        variant="ghost"
                        size="icon"
                        className="text-red-600"
                        aria-label={`Remove ${blockLabel(b)}`}
                        onClick={() => setSection(i, { blocks: (s.blocks ?? []).filter((_, j) => j !== k) })}
                      >
                        <Trash2 className="size-4" />
                      </Button>
                    </li>
                  ))}
                </ul>
              )}
            </Card>
          ))}
          <Button
            variant="outline"
            disabled={draft.sections.length >= MAX_SECTIONS}
            onClick={() =>
              set({
                sections: [...draft.sections, { id: '', title: `New Section ${draft.sections.length + 1}`, kind: 'content', content: '' }],
              })
            }
          >
            <Plus /> Add Section
          </Button>
        </TabsContent>
        <TabsContent value="branding">
          <Card className="grid gap-4 p-6 sm:grid-cols-2">
            {(
              [
                ['primaryColor', 'Primary Color'],
                ['secondaryColor', 'Secondary Color'],
                ['backgroundColor', 'Document Background'],
              ] as const
            ).map(([key, label]) => (
              <FormField key={key} label={label}>
                {(ids) => (
                  <div className="flex items-center gap-2">
                    <input
                      type="color"
                      aria-label={`${label} picker`}
                      value={draft.branding[key]}
                      onChange={(e) => setBranding({ [key]: e.target.value })}
                      className="h-10 w-12 rounded border border-slate-300"
                    />
                    <Input {...ids} value={draft.branding[key]} onChange={(e) => setBranding({ [key]: e.target.value })} maxLength={7} />
                  </div>
                )}
              </FormField>
            ))}
            <FormField label="Report Subtitle">
              {(ids) => <Input {...ids} value={draft.branding.subtitle} onChange={(e) => setBranding({ subtitle: e.target.value })} maxLength={200} />}
            </FormField>
            <FormField label="Body Font">
              {(ids) => (
                <Select {...ids} value={draft.branding.fontFamily} onChange={(e) => setBranding({ fontFamily: e.target.value })}>
                  {TEMPLATE_FONTS.map((f) => (
                    <option key={f}>{f}</option>
                  ))}
                </Select>
              )}
            </FormField>
            <FormField label="Heading Font">
              {(ids) => (
                <Select {...ids} value={draft.branding.headingFontFamily} onChange={(e) => setBranding({ headingFontFamily: e.target.value })}>
                  {TEMPLATE_FONTS.map((f) => (
                    <option key={f}>{f}</option>
                  ))}
                </Select>
              )}
            </FormField>
            <FormField label="Font Scale">
              {(ids) => (
                <Select {...ids} value={String(draft.branding.fontScale)} onChange={(e) => setBranding({ fontScale: Number(e.target.value) })}>
                  {[0.8, 0.9, 1, 1.1, 1.2, 1.3, 1.4, 1.5].map((v) => (
                    <option key={v} value={String(v)}>
                      {Math.round(v * 100)}%
                    </option>
                  ))}
                </Select>
              )}
            </FormField>
            <FormField label="PDF Orientation">
              {(ids) => (
                <Select {...ids} value={draft.branding.orientation} onChange={(e) => setBranding({ orientation: e.target.value })}>
                  <option value="portrait">Portrait</option>
                  <option value="landscape">Landscape</option>
                </Select>
              )}
            </FormField>
          </Card>
        </TabsContent>
      </Tabs>
      {update.isError && <Alert variant="destructive">{errorMessage(update.error, 'Could not save template changes.')}</Alert>}
    </div>
  )
}
