import type { Role } from '@/api/types/Role'

const ROLES: readonly Role[] = ['admin', 'approver', 'user', 'viewer']

/** Any role value other than the four known ones counts as `user`. */
export function normaliseRole(value: unknown): Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value) ? (value as Role) : 'user'
}

/** Rank: admin 3, approver 2, user 1, viewer 0. */
export function roleRank(role: Role): number {
  return { admin: 3, approver: 2, user: 1, viewer: 0 }[role]
}

/** The label shown for a role. */
export function roleLabel(role: Role): string {
  return { admin: 'Admin', approver: 'Approver', user: 'User', viewer: 'Viewer' }[role]
}
