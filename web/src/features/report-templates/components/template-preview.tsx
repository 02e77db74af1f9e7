import { ArrowLeft, Download, Pencil } from 'lucide-react'
import { Link } from 'react-router'

import { Button } from '@/components/ui/button'
import { Card } from '@/components/ui/card'
import { Spinner } from '@/components/ui/spinner'
import { paths } from '@/config/paths'
import { ApiError } from '@/lib/api-client'
import { formatDate } from '@/lib/format'
import { usePdfExport } from '@/hooks/use-pdf-export'

import { templatePdfPath, useTemplate } from '../api'
import { paragraphsOf, typeLabel } from '../utils/templates'
import { TemplateNotFound } from './template-not-found'

/**
 * Template preview (`/admin/report-generator-templates/preview/{templateId}`): the document a new
 * report starts as, in the template's colours, fonts and orientation. Export Preview downloads the
 * PDF the server lays out from it, as a report's export does.
 */
export function TemplatePreview({ templateId }: { templateId: string }) {
  const template = useTemplate(templateId)
  const pdf = usePdfExport('Unable to export the preview. Please try again.')
  if (template.error instanceof ApiError && template.error.status === 404) return <TemplateNotFound />
  if (template.isError) {
    return (
      <Card className="mx-auto max-w-xl p-10 text-center text-sm text-slate-600">
        Failed to load template. <Link to={paths.admin.templates.getHref()}>Back to templates</Link>
      </Card>
    )
  }
  if (!template.data) {
    return (
      <Card className="mx-auto flex max-w-4xl items-center justify-center gap-2 p-10 text-sm text-slate-500">
        <Spinner /> Loading template…
      </Card>
    )
  }
  const t = template.data
  const b = t.branding
  const landscape = b.orientation === 'landscape'
  return (
    <div className="mx-auto max-w-5xl space-y-6">
      <div className="flex flex-wrap items-center justify-between gap-4 print:hidden">
        <Link to={paths.admin.templates.getHref()} className="inline-flex items-center gap-1 text-sm text-slate-600 hover:text-slate-900">
          <ArrowLeft className="size-4" /> Back to templates
        </Link>
        <div className="flex gap-2">
          <Button variant="outline" disabled={pdf.busy} aria-busy={pdf.busy} onClick={() => void pdf.run(templatePdfPath(t.id), `${t.name}.pdf`)}>
            {pdf.busy ? <Spinner /> : <Download />} Export Preview
          </Button>
          <Button asChild>
            <Link to={paths.admin.templateEdit.getHref(t.id)}>
              <Pencil /> Edit Template
            </Link>
          </Button>
        </div>
      </div>
      <article
        aria-label={`Preview of ${t.name}`}
        data-orientation={b.orientation}
        className={`mx-auto overflow-hidden rounded-lg border border-slate-200 shadow-sm print:border-0 print:shadow-none ${landscape ? 'max-w-5xl' : 'max-w-3xl'}`}
        style={{ backgroundColor: b.backgroundColor, fontFamily: b.fontFamily, fontSize: `${b.fontScale}rem` }}
      >
        <header className="px-10 py-8 text-white" style={{ backgroundColor: b.primaryColor }}>
          <p className="text-xs tracking-wide uppercase opacity-80">{typeLabel(t.templateType)}</p>
          <h1 className="mt-1 text-3xl font-bold" style={{ fontFamily: b.headingFontFamily }}>
            {t.name}
          </h1>
          {b.subtitle && <p className="mt-2 text-base opacity-90">{b.subtitle}</p>}
        </header>
        <div className="space-y-8 px-10 py-8">
          {t.description && <p className="text-slate-600">{t.description}</p>}
          <nav aria-label="Contents">
            <h2 className="text-sm font-semibold tracking-wide uppercase" style={{ color: b.secondaryColor }}>
              Contents
            </h2>
            <ol className="mt-2 list-inside list-decimal space-y-1 text-slate-700">
              {t.sections.map((s) => (
                <li key={s.id}>{s.title}</li>
              ))}
            </ol>
          </nav>
          {t.sections.map((s, i) => {
            const paragraphs = paragraphsOf(s.content)
            return (
              <section key={s.id} aria-label={s.title}>
                <h2 className="border-b pb-1 text-xl font-semibold" style={{ fontFamily: b.headingFontFamily, color: b.primaryColor, borderColor: b.secondaryColor }}>
                  {i + 1}. {s.title}
                </h2>
                {paragraphs.length > 0 ? (
                  paragraphs.map((p, j) => (
                    <p key={j} className="mt-3 whitespace-pre-line text-slate-800">
                      {p}
                    </p>
                  ))
                ) : (
                  <p className="mt-3 text-slate-400 italic print:hidden">No starting text: the report's editors write this section.</p>
                )}
              </section>
            )
          })}
        </div>
        <footer className="flex justify-between border-t border-slate-200 px-10 py-3 text-xs text-slate-500">
          <span>Updated {formatDate(t.updatedAt)}</span>
          <span>{landscape ? 'Landscape' : 'Portrait'} · {b.fontFamily}</span>
        </footer>
      </article>
    </div>
  )
}
