import { describe, expect, it } from 'vitest'

import type { ExtractedLever } from '@/api/types/ExtractedLever'

import { checkLevers, nameKey, parseObject, similarLever } from './levers'

const lever = (): ExtractedLever => ({
  leverName: 'Public Sector Entities (PSE)',
  leverCategory: 'Assets',
  description: 'Article 116',
  articleReference: 'Article 116',
  confidenceScore: 0.9,
  variables: [],
  rules: [{ ruleName: 'Short term', ruleType: 'calculation', ruleDescription: '', conditions: { maturity: 'le_3m_original' }, actions: { riskWeight: 20 }, priority: 90, isActive: true, articleReference: 'Article 116(3)' }],
})

describe('checkLevers', () => {
  it('passes a complete lever', () => {
    expect(checkLevers([lever()])).toEqual([])
  })

  it('gives the specification messages per lever and numbered rule', () => {
    const l = lever()
    l.leverName = ' '
    l.description = ''
    l.leverCategory = ''
    l.rules[0]!.ruleName = ''
    l.rules[0]!.ruleType = ''
    l.rules[0]!.conditions = {}
    l.rules[0]!.priority = 0
    expect(checkLevers([l]).map((p) => p.message)).toEqual([
      'Lever name is required',
      'Lever category is required',
      'Description is required',
      'Rule 1: Name is required',
      'Rule 1: Type is required',
      'Rule 1: Conditions are required',
      'Rule 1: Priority must be at least 1',
    ])
  })
})

describe('the similar-name rule', () => {
  it('compares names lowercased without punctuation', () => {
    expect(nameKey('Public Sector Entities (PSE)')).toBe('publicsectorentitiespse')
    const existing = [{ id: 'lever-pse', name: 'Public Sector Entities (PSE)' }]
    expect(similarLever('public sector entities - pse', existing)?.id).toBe('lever-pse')
    expect(similarLever('Public Sector Entities', existing)).toBeUndefined()
    expect(similarLever('  ', existing)).toBeUndefined()
  })
})

describe('parseObject', () => {
  it('takes objects and ignores anything else', () => {
    expect(parseObject('{"a": 1}')).toEqual({ a: 1 })
    expect(parseObject('[1]')).toBeNull()
    expect(parseObject('{"a": ')).toBeNull()
  })
})
