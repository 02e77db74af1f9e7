import { z } from 'zod'

import { newPasswordSchema } from '@/lib/password-policy'

/** The Project Settings card: the client's name is required. */
export const projectSchema = z.object({
  name: z.string().trim().min(1, 'Client name is required').max(200, 'Client name must be at most 200 characters'),
  description: z.string().max(5000, 'Description must be at most 5000 characters'),
})
export type ProjectValues = z.infer<typeof projectSchema>

/** The profile's names. */
export const profileSchema = z.object({
  name: z.string().trim().min(1, 'First name is required').max(100, 'Names must be at most 100 characters'),
  lastName: z.string().trim().min(1, 'Last name is required').max(100, 'Names must be at most 100 characters'),
})
export type ProfileValues = z.infer<typeof profileSchema>

/** A password change: the current password, a new one under the one policy, confirmed. */
export const passwordSchema = z
  .object({
    currentPassword: z.string().min(1, 'Current password is required'),
    newPassword: newPasswordSchema,
    confirmPassword: z.string().min(1, 'Please confirm your password'),
  })
  .refine((v) => v.confirmPassword === '' || v.newPassword === v.confirmPassword, {
    message: "Passwords don't match",
    path: ['confirmPassword'],
  })
export type PasswordValues = z.infer<typeof passwordSchema>

/** Avatars: images of at most 2 MB (the server checks the content too). */
export const AVATAR_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const
export const AVATAR_MAX_BYTES = 2 * 1024 * 1024

/** What is wrong with a chosen avatar image, or null. */
export function avatarProblem(file: File): { title: string; description: string } | null {
  if (!(AVATAR_TYPES as readonly string[]).includes(file.type)) {
    return { title: 'Invalid file type', description: 'Please upload only PNG, JPEG, GIF or WebP images.' }
  }
  if (file.size > AVATAR_MAX_BYTES) return { title: 'File too large', description: 'Images must be smaller than 2MB' }
  return null
}
