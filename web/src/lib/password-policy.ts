import { z } from 'zod'

/**
 * The one password policy of the product, for every form that sets a password (reset, invitation
 * sign-up, the forced password change): at least 8 characters, an uppercase letter, a lowercase
 * letter and a digit, and at most 1024 bytes. The server checks the same rule
 * (`auth::password::check_strong`), with the same messages, in the same order.
 */
export const PASSWORD_MIN_CHARS = 8
export const PASSWORD_MAX_BYTES = 1024

/** The messages of the rule, verbatim from the specification (reset and set password). */
export const passwordMessages = {
  tooShort: 'Password must be at least 8 characters',
  noUpper: 'Password must contain at least one uppercase letter',
  noLower: 'Password must contain at least one lowercase letter',
  noNumber: 'Password must contain at least one number',
  tooLong: 'Password is too long',
} as const

/**
 * The first rule `password` breaks, or null. Characters are counted as the server counts them
 * (code points), and upper and lower case are Unicode's ('Ñ' is an uppercase letter).
 */
export function passwordProblem(password: string): string | null {
  if ([...password].length < PASSWORD_MIN_CHARS) return passwordMessages.tooShort
  if (!/\p{Uppercase}/u.test(password)) return passwordMessages.noUpper
  if (!/\p{Lowercase}/u.test(password)) return passwordMessages.noLower
  if (!/[0-9]/.test(password)) return passwordMessages.noNumber
  if (new TextEncoder().encode(password).length > PASSWORD_MAX_BYTES) return passwordMessages.tooLong
  return null
}

/** A new password under the policy, as a zod schema (the first broken rule is the message). */
export const newPasswordSchema = z.string().superRefine((value, ctx) => {
  const problem = passwordProblem(value)
  if (problem) ctx.addIssue({ code: 'custom', message: problem })
})
