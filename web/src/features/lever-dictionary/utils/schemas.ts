import { z } from 'zod'

/** Every category a lever may have (the table's selector and Edit). */
export const CATEGORIES = ['Assets', 'CET1 deductions', 'CRMT', 'Other'] as const
/** The categories offered when adding a lever ('Other' is not selectable there). */
export const NEW_CATEGORIES = ['Assets', 'CET1 deductions', 'CRMT'] as const

/** Add New Optimization Lever: name, category and description are all required. */
export const addLeverSchema = z.object({
  name: z.string().trim().min(1, 'Lever name is required.').max(100, 'Lever name must be at most 100 characters.'),
  category: z.string().refine((c) => (NEW_CATEGORIES as readonly string[]).includes(c), 'Category is required.'),
  description: z.string().trim().min(1, 'Description is required.').max(5000, 'Description must be at most 5000 characters.'),
})

/** Edit Optimization Lever: the name must not be blank. */
export const editLeverSchema = z.object({
  name: z.string().trim().min(1, 'Lever name is required.').max(100, 'Lever name must be at most 100 characters.'),
  category: z.string().refine((c) => (CATEGORIES as readonly string[]).includes(c), 'Category is required.'),
  description: z.string().max(5000, 'Description must be at most 5000 characters.'),
})

export type LeverValues = { name: string; category: string; description: string }
