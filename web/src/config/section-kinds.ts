/** The kinds of report section (spec 002), with labels: a template's sections and the AI text assistant use them. */
export const SECTION_KINDS = [
  { value: 'summary', label: 'Summary' },
  { value: 'introduction', label: 'Introduction' },
  { value: 'regulatory', label: 'Regulatory' },
  { value: 'capital', label: 'Capital' },
  { value: 'conclusion', label: 'Conclusion' },
  { value: 'content', label: 'Content' },
  { value: 'custom', label: 'Custom' },
] as const
