import { z } from 'zod'

// No runtime code generation: the server's Content-Security-Policy forbids eval.
z.config({ jitless: true })

/** The task dialog's fields as the form holds them (selects and dates as strings, '' for none). */
export const taskSchema = z.object({
  title: z.string().trim().min(1, 'Title is required').max(200, 'Title must be at most 200 characters'),
  description: z.string().max(5000, 'Description must be at most 5000 characters'),
  category_id: z.string(),
  priority: z.enum(['', 'low', 'medium', 'high']),
  due_date: z.union([z.literal(''), z.iso.date('Enter a valid date')]),
})
export type TaskValues = z.infer<typeof taskSchema>

/** A column's or a category's name. */
export const nameSchema = z.object({
  name: z.string().trim().min(1, 'Name is required').max(100, 'Name must be at most 100 characters'),
})
export type NameValues = z.infer<typeof nameSchema>
