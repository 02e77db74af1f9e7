import { confidenceBadge, isLearningOpportunity, shortId, suggestionTone } from './format'

describe('classification training formats', () => {
  it('shows the first 8 characters of an id', () => {
    expect(shortId('0f5c2a9e-1234-4bcd-9def-000000000000')).toBe('0f5c2a9e')
  })

  it('colours list badges at 0.7 and 0.4', () => {
    expect([0.95, 0.7, 0.69, 0.4, 0.39, null].map(confidenceBadge)).toEqual(['default', 'default', 'secondary', 'secondary', 'destructive', 'destructive'])
  })

  it('colours suggestions at 0.8 and 0.6', () => {
    expect([0.8, 0.79, 0.6, 0.59].map(suggestionTone)).toEqual(['green', 'blue', 'blue', 'yellow'])
  })

  it('calls a review below 0.5 a learning opportunity', () => {
    expect([0.49, 0.5, null].map(isLearningOpportunity)).toEqual([true, false, true])
  })
})
