import { z } from 'zod'

export const DATA_TYPES = ['text', 'numeric', 'date', 'boolean'] as const
export const CATEGORIES = ['core', 'analysis', 'optional'] as const

/** The column definition form (the server checks the same, with its own messages). */
export const definitionSchema = z.object({
  name: z.string().trim().min(1, 'Column name is required').max(100, 'Column name is longer than 100 characters'),
  dataType: z.enum(DATA_TYPES),
  description: z.string().max(1000, 'Description is longer than 1000 characters'),
  isRequired: z.boolean(),
  category: z.enum(CATEGORIES),
  displayOrder: z.number({ error: 'Display order must be a number' }).int('Display order must be a whole number').min(0).max(10000),
})

export type DefinitionValues = z.infer<typeof definitionSchema>
