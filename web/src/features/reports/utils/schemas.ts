import { z } from 'zod'

// No runtime code generation: the server's Content-Security-Policy forbids eval.
z.config({ jitless: true })

/** The longest report or folder name the forms accept. */
export const MAX_NAME = 200

/** A report's or a folder's name, with the message to show when it is blank. */
export const nameSchema = (requiredMessage: string) =>
  z.object({ name: z.string().trim().min(1, requiredMessage).max(MAX_NAME, `Name must be at most ${MAX_NAME} characters`) })
export type NameValues = { name: string }
