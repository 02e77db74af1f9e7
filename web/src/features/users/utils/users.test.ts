import { describe, expect, it } from 'vitest'

import type { ManagedUser } from '../api'
import { changes, clientsText, criticalChanges, rangeText, toUserEdit, userForm, validateUserForm } from './users'

const ana: ManagedUser = {
  id: 'u1',
  email: 'user@bank-a.example',
  name: 'Ana',
  lastName: 'García',
  company: 'Bank A',
  role: 'user',
  avatar: null,
  isApprover: false,
  clients: [{ clientId: 'a', clientName: 'Bank A', role: 'member' }],
  createdAt: '2026-01-01T00:00:00.000000Z',
}

describe('User Management', () => {
  it('says which users a page shows', () => {
    expect(rangeText(1, 10, 6)).toBe('Showing 1 - 6 of 6 users')
    expect(rangeText(2, 5, 6)).toBe('Showing 6 - 6 of 6 users')
    expect(rangeText(1, 10, 0)).toBe('Showing 0 - 0 of 0 users')
  })

  it('lists clients, All for admins and a dash for none', () => {
    expect(clientsText(ana)).toBe('Bank A')
    expect(clientsText({ ...ana, role: 'admin' })).toBe('All')
    expect(clientsText({ ...ana, clients: [] })).toBe('-')
  })

  it('detects no change, plain changes and critical ones', () => {
    const before = userForm(ana)
    expect(changes(before, { ...before })).toEqual([])
    expect(changes(before, { ...before, email: 'USER@bank-a.example ' })).toEqual([])
    const renamed = changes(before, { ...before, lastName: 'García Pérez' })
    expect(renamed).toEqual(['lastName'])
    expect(criticalChanges(renamed)).toEqual([])
    const moved = changes(before, { ...before, role: 'viewer', clientIds: ['b'] })
    expect(criticalChanges(moved)).toEqual(['role', 'clients'])
    expect(criticalChanges(changes(before, { ...before, email: 'ana@bank-a.example' }))).toEqual(['email'])
  })

  it('checks the form with the specification’s messages', () => {
    const f = userForm(ana)
    expect(validateUserForm({ ...f, name: ' ' })).toEqual({ name: 'First name is required' })
    expect(validateUserForm({ ...f, email: '' })).toEqual({ email: 'Email is required' })
    expect(validateUserForm({ ...f, email: 'nope' })).toEqual({ email: 'Email is invalid' })
    expect(toUserEdit({ ...f, role: 'admin' }).clientIds).toBeUndefined()
  })
})
