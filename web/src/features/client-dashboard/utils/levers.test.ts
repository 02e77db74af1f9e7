import { describe, expect, it } from 'vitest'

import type { LeverRow } from '../api'
import { activeLevers } from './levers'

const lever = (id: string, value: number, previousValue: number): LeverRow => ({
  id,
  name: id,
  category: 'Assets',
  description: '',
  value,
  previousValue,
  impact: 'low',
})

describe('activeLevers', () => {
  it('keeps levers with savings now or a month ago', () => {
    const rows = [lever('a', 10, 0), lever('b', 0, 5), lever('c', 0, 0)]
    expect(activeLevers(rows).map((l) => l.id)).toEqual(['a', 'b'])
  })
})
