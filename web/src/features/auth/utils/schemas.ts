import { z } from 'zod'

import { newPasswordSchema, passwordMessages } from '@/lib/password-policy'

// No runtime code generation: the server's Content-Security-Policy forbids eval.
z.config({ jitless: true })

/** Validation messages, verbatim from the specification. */
export const messages = {
  loginEmail: 'Invalid email address',
  forgotEmail: 'Please enter a valid email address',
  // Every form that sets a password follows the one policy (lib/password-policy), reset's rule.
  passwordMin8: passwordMessages.tooShort,
  passwordUpper: passwordMessages.noUpper,
  passwordLower: passwordMessages.noLower,
  passwordNumber: passwordMessages.noNumber,
  passwordsMustMatch: 'Passwords must match',
  currentPasswordRequired: 'Current password is required',
  confirmRequired: 'Please confirm your password',
  passwordsDontMatch: "Passwords don't match",
  nameRequired: 'Please enter your first and last name',
  passwordsDoNotMatch: 'Passwords do not match',
} as const

export const loginSchema = z.object({
  email: z.email(messages.loginEmail),
  password: z.string(),
})
export type LoginValues = z.infer<typeof loginSchema>

export const forgotPasswordSchema = z.object({
  email: z.email(messages.forgotEmail),
})
export type ForgotPasswordValues = z.infer<typeof forgotPasswordSchema>

export const resetPasswordSchema = z
  .object({
    password: newPasswordSchema,
    confirmPassword: z.string(),
  })
  .refine((values) => values.password === values.confirmPassword, {
    message: messages.passwordsMustMatch,
    path: ['confirmPassword'],
  })
export type ResetPasswordValues = z.infer<typeof resetPasswordSchema>

export const changePasswordSchema = z
  .object({
    currentPassword: z.string().min(1, messages.currentPasswordRequired),
    newPassword: newPasswordSchema,
    confirmPassword: z.string().min(1, messages.confirmRequired),
  })
  .refine((values) => values.confirmPassword === '' || values.newPassword === values.confirmPassword, {
    message: messages.passwordsDontMatch,
    path: ['confirmPassword'],
  })
export type ChangePasswordValues = z.infer<typeof changePasswordSchema>

const requiredName = z.string().trim().min(1, messages.nameRequired)

export const signupSchema = z
  .object({
    name: requiredName,
    lastName: requiredName,
    password: newPasswordSchema,
    confirmPassword: z.string(),
  })
  .refine((values) => values.password === values.confirmPassword, {
    message: messages.passwordsDoNotMatch,
    path: ['confirmPassword'],
  })
export type SignupValues = z.infer<typeof signupSchema>
