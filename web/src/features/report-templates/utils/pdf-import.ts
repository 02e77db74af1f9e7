import type { ImportStep } from '@/api/types/ImportStep'
import type { StepState } from '@/api/types/StepState'

/** The largest PDF the import takes (the server's bound). */
export const PDF_MAX_BYTES = 50 * 1024 * 1024

/** The steps, in order, as the screen lists them. */
export const IMPORT_STEPS: { step: ImportStep; label: string; description: string }[] = [
  { step: 'upload', label: 'Upload', description: 'Sending the PDF to the server' },
  { step: 'parse', label: 'Parse', description: 'Reading the text of every page' },
  { step: 'analyze', label: 'Analyze', description: 'Finding the sections: outline, table of contents or headings' },
  { step: 'extract', label: 'Extract', description: 'Reading each section’s text, tables and figures' },
  { step: 'generate', label: 'Generate', description: 'Creating the template' },
]

/** A step as shown: its state (pending before the server reports it) and progress. */
export type StepView = { state: StepState | 'pending'; done: number; total: number }

/** The progress line of a step, when it has units to count. */
export function stepDetail(step: ImportStep, v: StepView): string | null {
  if (v.state === 'pending' || v.total === 0) return null
  if (step === 'parse') return `Page ${v.done} of ${v.total}`
  if (step === 'extract') return `Section ${v.done} of ${v.total}`
  return null
}

/** Why a picked file cannot be imported (the spec's texts), or null. */
export function checkPdfFile(f: File): { title: string; message: string } | null {
  const isPdf = f.type === 'application/pdf' || (f.type === '' && /\.pdf$/i.test(f.name))
  if (!isPdf) return { title: 'Invalid file', message: 'Please upload a PDF file' }
  if (f.size > PDF_MAX_BYTES) return { title: 'File too large', message: 'The PDF is larger than 50MB.' }
  return null
}

const METHODS: Record<string, string> = {
  outline: 'its outline',
  table_of_contents: 'its table of contents',
  headings: 'its headings',
  whole_document: 'its text (no structure found)',
}

/** Where the sections came from, for the result line. */
export function methodLabel(method: string): string {
  return METHODS[method] ?? method
}
