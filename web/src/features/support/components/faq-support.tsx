import { Check, Clock, Copy, LifeBuoy, Mail } from 'lucide-react'
import { useState, type ReactNode } from 'react'

import { Accordion, AccordionContent, AccordionItem, AccordionTrigger } from '@/components/ui/accordion'
import { Button } from '@/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '@/components/ui/card'
import { errorMessage } from '@/lib/api-client'
import { toast } from '@/lib/toast'

import { useSupportContact } from '../api'

type Question = { id: string; question: string; answer: ReactNode }

/** The five questions (spec 002), answered for what the product does today: every screen named here exists. */
export const QUESTIONS: Question[] = [
  {
    id: 'team',
    question: 'How do I add team members?',
    answer: (
      <>
        <p>
          New team members are added by an administrator in User Management with their name, e-mail and role: Viewer (reads only), User (works on files, reports, the
          task board and the calculator) or Approver (also approves validations), linked to your client.
        </p>
        <p className="mt-2">
          Each new member receives an e-mail invitation with a link to create their account and password; the link works once and for 7 days. To
          have someone added, ask your administrator or write to support.
        </p>
      </>
    ),
  },
  {
    id: 'upload',
    question: 'How do I upload files to the Data Room?',
    answer: (
      <>
        <p>
          Open File Processor in the sidebar and choose a mode: Manual (you pick the lever and map the file&apos;s columns) or Enhanced AI (the
          platform recognises the lever from the file itself). Drop a CSV, Excel (XLSX, XLS) or ODS file of up to 20 MB; a PDF is stored and listed
          but not processed.
        </p>
        <p className="mt-2">
          The file is processed on the server and its progress is shown live. Your files, their levers, savings and downloads are listed under Our
          Files, where processed results wait for an approver in the Alerts tab.
        </p>
      </>
    ),
  },
  {
    id: 'settings',
    question: 'How do I change project settings?',
    answer: (
      <>
        <p>
          Open Settings in the sidebar (or Settings in the menu under your name). The Project Settings card shows your client&apos;s name and
          description: change them and press Save Changes, which is enabled once something changed (Cancel puts the saved values back). Members who
          may change the client&apos;s data save; viewers see the settings read-only. Your colleagues&apos; screens show the change at once.
        </p>
        <p className="mt-2">
          The same page holds your own profile (first and last name, photo) and your password. The official CET1 capital and total RWAs that the
          basis points and the calculator use are kept by your administrator: to change them, ask your administrator or write to support.
        </p>
      </>
    ),
  },
  {
    id: 'metrics',
    question: 'Where can I see our optimization metrics?',
    answer: (
      <p>
        Dashboard in the sidebar shows your savings in RWAs and in basis points of CET1 ratio, their change since the end of last month, their
        monthly evolution and each lever&apos;s value against last month, updated live as files are processed. Our Files shows each processed
        file&apos;s lever and savings. The Calculator shows your CET1 capital, total RWAs and ratio, models what a further optimisation would do, and compares saved scenarios with
        your real portfolio (the savings of your processed files). Basis points use your client&apos;s official CET1 capital and total RWAs.
      </p>
    ),
  },
  {
    id: 'export',
    question: 'How do I export reports?',
    answer: (
      <p>
        Open a report in the Report Generator and press Export PDF: the report downloads as a PDF, with its charts, tables, images, branding,
        page numbers and its sections as the PDF&apos;s bookmarks. The Dashboard&apos;s Export button downloads its figures as an Excel (XLSX),
        CSV or PDF file. The results of a processed file (each exposure with its
        proposed risk weight, saving and regulatory basis) download from Our Files.
      </p>
    ),
  },
]

/** FAQ & Support (`/client/support`): the single-open accordion and the contact card. */
export function FaqSupport() {
  const contact = useSupportContact()
  const [copied, setCopied] = useState(false)
  const email = contact.data?.email

  const copy = async () => {
    if (!email) return
    try {
      await navigator.clipboard.writeText(email)
      setCopied(true)
      toast.success('Email copied to clipboard', email)
      setTimeout(() => setCopied(false), 2000)
    } catch {
      toast.error('Copy failed', 'Your browser did not allow copying. Select the address and copy it by hand.')
    }
  }

  return (
    <div className="mx-auto max-w-5xl space-y-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight text-slate-900">FAQ &amp; Support</h1>
        <p className="mt-1 text-sm text-slate-500">Answers to common questions, and how to reach our support team.</p>
      </div>
      <div className="grid gap-6 lg:grid-cols-3">
        <Card className="lg:col-span-2">
          <CardHeader>
            <CardTitle>Frequently Asked Questions</CardTitle>
          </CardHeader>
          <CardContent>
            <Accordion type="single" collapsible>
              {QUESTIONS.map((q) => (
                <AccordionItem key={q.id} value={q.id}>
                  <AccordionTrigger>{q.question}</AccordionTrigger>
                  <AccordionContent>{q.answer}</AccordionContent>
                </AccordionItem>
              ))}
            </Accordion>
          </CardContent>
        </Card>
        <Card className="h-fit">
          <CardHeader>
            <CardTitle className="flex items-center gap-2">
              <LifeBuoy className="size-5 text-brand-700" aria-hidden="true" /> Contact Support
            </CardTitle>
            <CardDescription>Can&apos;t find an answer? Write to us.</CardDescription>
          </CardHeader>
          <CardContent className="space-y-4">
            <div className="flex flex-wrap items-center gap-2 rounded-lg border border-slate-200 bg-slate-50 p-3">
              <Mail className="size-4 shrink-0 text-slate-500" aria-hidden="true" />
              {contact.isError ? (
                <span className="text-sm text-red-700">{errorMessage(contact.error, 'The support address could not be loaded.')}</span>
              ) : (
                <a href={email ? `mailto:${email}` : undefined} className="min-w-0 flex-1 text-sm font-medium break-all text-brand-700 hover:underline" data-testid="support-email">
                  {email ?? 'Loading...'}
                </a>
              )}
              <Button variant="outline" size="sm" onClick={() => void copy()} disabled={!email} aria-label="Copy email address">
                {copied ? <Check /> : <Copy />} {copied ? 'Copied' : 'Copy'}
              </Button>
            </div>
            <p className="flex gap-2 text-sm text-slate-600">
              <Clock className="mt-0.5 size-4 shrink-0 text-slate-500" aria-hidden="true" />
              <span>We typically respond within {contact.data?.responseHours ?? 24} hours on business days.</span>
            </p>
            <p className="text-sm text-slate-600">
              For urgent matters, please include <span className="font-semibold text-slate-900">&quot;Urgent&quot;</span> in the subject line.
            </p>
          </CardContent>
        </Card>
      </div>
    </div>
  )
}
