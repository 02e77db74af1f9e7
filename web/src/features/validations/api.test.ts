import type { Validation } from '@/api/types/Validation'
import type { ValidationPage } from '@/api/types/ValidationPage'

import { applyDecision } from './api'
import { numericFilterError, pendingSentence } from './utils/format'

const item = (id: string, status: Validation['status'] = 'pending') => ({ id, status }) as Validation
const page = (items: Validation[], pendingValidations: number): ValidationPage => ({ items, total: items.length, page: 1, pageSize: 10, pendingValidations, canApprove: true })

describe('applyDecision', () => {
  it('moves a decided item out of the pending list and lowers the count', () => {
    const next = applyDecision(page([item('a'), item('b')], 2), 'a', 'approved', 'pending')
    expect(next.items.map((v) => v.id)).toEqual(['b'])
    expect(next.total).toBe(1)
    expect(next.pendingValidations).toBe(1)
  })
  it('never counts below 0 and leaves unknown ids alone', () => {
    expect(applyDecision(page([item('a')], 0), 'a', 'rejected', 'pending').pendingValidations).toBe(0)
    const p = page([item('a')], 1)
    expect(applyDecision(p, 'zz', 'approved', 'pending')).toBe(p)
  })
  it('changes the status in the history and counts a return to pending', () => {
    const next = applyDecision(page([item('a', 'rejected')], 0), 'a', 'pending', 'history')
    expect(next.items[0]!.status).toBe('pending')
    expect(next.pendingValidations).toBe(1)
  })
})

describe('filters and texts', () => {
  it('checks the numeric filters', () => {
    const none = { minRwas: '', maxRwas: '', minBps: '', maxBps: '' }
    expect(numericFilterError(none)).toBeNull()
    expect(numericFilterError({ ...none, minRwas: '5', maxRwas: '1' })).toBe('Min RWAs must not be above Max RWAs')
    expect(numericFilterError({ ...none, minBps: '2', maxBps: '1' })).toBe('Min BPS must not be above Max BPS')
    expect(numericFilterError({ ...none, maxBps: 'x' })).toBe('Max BPS must be a number')
  })
  it('writes the banner sentence', () => {
    expect(pendingSentence(3)).toBe('3 files pending validation.')
  })
})
