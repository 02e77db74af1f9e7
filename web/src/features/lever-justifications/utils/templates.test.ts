import type { AdminRun } from '@/api/types/AdminRun'

import { categoryLabel, contentPreview, PREVIEW_CHARS, runLabel, textFileName } from './templates'

describe('justification template helpers', () => {
  it('cuts the content at 200 characters with an ellipsis', () => {
    expect(PREVIEW_CHARS).toBe(200)
    expect(contentPreview('short')).toBe('short')
    const exact = 'x'.repeat(200)
    expect(contentPreview(exact)).toBe(exact)
    expect(contentPreview(`${'y'.repeat(200)}z`)).toBe(`${'y'.repeat(200)}…`)
    // Characters, not UTF-16 units: an emoji is never split.
    expect(contentPreview('€'.repeat(150) + '😀'.repeat(100))).toBe(`${'€'.repeat(150)}${'😀'.repeat(50)}…`)
  })

  it('labels the categories, an unknown one as custom', () => {
    expect(['regulatory', 'internal', 'custom', 'other'].map(categoryLabel)).toEqual(['Regulatory', 'Internal', 'Custom', 'Custom'])
  })

  it('names the downloads after the template and the run', () => {
    expect(textFileName('PSE audit memo')).toBe('PSE audit memo.txt')
    expect(textFileName('PSE audit memo', 'run-1')).toBe('PSE audit memo - run-1.txt')
    expect(textFileName('  ')).toBe('template.txt')
  })

  it('labels a run with its client, file and completion day', () => {
    const run = { clientName: 'Bank A', fileName: 'book.csv', run: { finishedAt: '2026-01-31T09:00:00Z', createdAt: '2026-01-30T09:00:00Z' } } as AdminRun
    expect(runLabel(run)).toBe('Bank A · book.csv · Jan 31, 2026')
  })
})
