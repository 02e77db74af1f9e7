import { z } from 'zod'

// No runtime code generation: the server's Content-Security-Policy forbids eval.
z.config({ jitless: true })

/** Validation messages, verbatim from the specification. */
export const messages = {
  loginEmail: 'Invalid email address',
  forgotEmail: 'Please enter a valid email address',
  passwordMin8: 'Password must be at least 8 characters',
  passwordUpper: 'Password must contain at least one uppercase letter',
  passwordLower: 'Password must contain at least one lowercase letter',
  passwordNumber: 'Password must contain at least one number',
  passwordsMustMatch: 'Passwords must match',
  currentPasswordRequired: 'Current password is required',
  passwordMin6: 'Password must be at least 6 characters',
  confirmRequired: 'Please confirm your password',
  passwordsDontMatch: "Passwords don't match",
  nameRequired: 'Please enter your first and last name',
  signupPasswordMin6: 'Password must be at least 6 characters long',
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
    password: z
      .string()
      .min(8, messages.passwordMin8)
      .regex(/[A-Z]/, messages.passwordUpper)
      .regex(/[a-z]/, messages.passwordLower)
      .regex(/[0-9]/, messages.passwordNumber),
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
    newPassword: z.string().min(6, messages.passwordMin6),
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
    password: z.string().min(6, messages.signupPasswordMin6),
    confirmPassword: z.string(),
  })
  .refine((values) => values.password === values.confirmPassword, {
    message: messages.passwordsDoNotMatch,
    path: ['confirmPassword'],
  })
export type SignupValues = z.infer<typeof signupSchema>
