import type { ManagedUser, Role, UserEdit } from '../api'

/** The page sizes offered (spec 000 section 9). */
export const USER_PAGE_SIZES = [5, 10, 20, 50] as const

/** 'Showing x - y of n users' for a page (from 1). */
export function rangeText(page: number, pageSize: number, total: number): string {
  if (total === 0) return 'Showing 0 - 0 of 0 users'
  const first = (page - 1) * pageSize + 1
  const last = Math.min(page * pageSize, total)
  return `Showing ${first} - ${last} of ${total} users`
}

/** The Clients column: 'All' for admins, otherwise the client names or a dash. */
export function clientsText(u: Pick<ManagedUser, 'role' | 'clients'>): string {
  if (u.role === 'admin') return 'All'
  return u.clients.length === 0 ? '-' : u.clients.map((c) => c.clientName).join(', ')
}

/** Initials for the avatar. */
export function initials(u: Pick<ManagedUser, 'name' | 'lastName' | 'email'>): string {
  const a = (u.name.trim()[0] ?? '') + (u.lastName.trim()[0] ?? '')
  return (a || u.email[0] || '?').toUpperCase()
}

/** The Edit User Details dialog's fields. */
export type UserForm = { name: string; lastName: string; email: string; company: string; role: Role; clientIds: string[] }

export function userForm(u: ManagedUser): UserForm {
  return {
    name: u.name,
    lastName: u.lastName,
    email: u.email,
    company: u.company ?? '',
    role: u.role,
    clientIds: u.clients.map((c) => c.clientId).sort(),
  }
}

export type UserFormErrors = Partial<Record<'name' | 'email', string>>

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/** The dialog's checks (spec 000 section 5). */
export function validateUserForm(f: UserForm): UserFormErrors {
  const e: UserFormErrors = {}
  if (!f.name.trim()) e.name = 'First name is required'
  if (!f.email.trim()) e.email = 'Email is required'
  else if (!EMAIL.test(f.email.trim())) e.email = 'Email is invalid'
  return e
}

function sameSet(a: string[], b: string[]): boolean {
  return a.length === b.length && [...a].sort().every((x, i) => x === [...b].sort()[i])
}

/** What changed between the user and the form; empty: 'No changes detected'. */
export function changes(before: UserForm, after: UserForm): string[] {
  const out: string[] = []
  if (before.name.trim() !== after.name.trim()) out.push('name')
  if (before.lastName.trim() !== after.lastName.trim()) out.push('lastName')
  if (before.email.trim().toLowerCase() !== after.email.trim().toLowerCase()) out.push('email')
  if (before.company.trim() !== after.company.trim()) out.push('company')
  if (before.role !== after.role) out.push('role')
  if (after.role !== 'admin' && !sameSet(before.clientIds, after.clientIds)) out.push('clients')
  return out
}

/** Changes that need the Confirm Critical Changes dialog: role, email or clients. */
export function criticalChanges(changed: string[]): string[] {
  return changed.filter((c) => c === 'role' || c === 'email' || c === 'clients')
}

export function toUserEdit(f: UserForm): UserEdit {
  return {
    name: f.name.trim(),
    lastName: f.lastName.trim(),
    email: f.email.trim(),
    company: f.company.trim() || null,
    role: f.role,
    clientIds: f.role === 'admin' ? undefined : f.clientIds,
  }
}

/** Role labels. */
export const ROLE_LABELS: Record<Role, string> = { admin: 'Admin', approver: 'Approver', user: 'User', viewer: 'Viewer' }
export const ROLES: Role[] = ['admin', 'approver', 'user', 'viewer']
