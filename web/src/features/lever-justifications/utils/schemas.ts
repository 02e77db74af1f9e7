import { z } from 'zod'

import { CATEGORIES } from './templates'

/** Longest name and content the server accepts (service/justifications.rs). */
export const MAX_NAME_CHARS = 120
export const MAX_CONTENT_CHARS = 50_000

/**
 * The template form, with the server's own messages for what can be told before sending; the
 * content's placeholders and syntax are checked by the server, whose message the dialog shows.
 */
export const templateSchema = z.object({
  name: z
    .string()
    .trim()
    .min(1, 'Template name is required')
    .max(MAX_NAME_CHARS, `Template name must be at most ${MAX_NAME_CHARS} characters.`),
  category: z.enum(CATEGORIES),
  templateContent: z
    .string()
    .refine((c) => c.trim() !== '', 'Template content is required')
    .refine((c) => Array.from(c).length <= MAX_CONTENT_CHARS, `Template content must be at most ${MAX_CONTENT_CHARS} characters.`),
  isDefault: z.boolean(),
})

export type TemplateValues = z.infer<typeof templateSchema>
