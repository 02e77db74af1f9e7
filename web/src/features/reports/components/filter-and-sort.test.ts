import type { ReportSummary } from '@/api/types/ReportSummary'
import { describe, expect, it } from 'vitest'

import { filterAndSort } from './reports-list'

const report = (name: string, status: 'draft' | 'published', updated_at: string): ReportSummary => ({
  id: name,
  client_id: 'c',
  folder_id: null,
  name,
  status,
  template_id: null,
  section_count: 1,
  created_by: null,
  last_edited_by: null,
  last_edited_by_name: null,
  last_saved_at: null,
  created_at: updated_at,
  updated_at,
})

const reports = [
  report('beta', 'published', '2026-11-02T00:00:00.000000Z'),
  report('Alpha', 'draft', '2026-11-01T00:00:00.000000Z'),
  report('gamma', 'draft', '2026-11-03T00:00:00.000000Z'),
]

describe('report list search and sort', () => {
  it('sorts by date (newest first), name and status (drafts first)', () => {
    expect(filterAndSort(reports, '', 'date').map((r) => r.name)).toEqual(['gamma', 'beta', 'Alpha'])
    expect(filterAndSort(reports, '', 'name').map((r) => r.name)).toEqual(['Alpha', 'beta', 'gamma'])
    expect(filterAndSort(reports, '', 'status').map((r) => r.name)).toEqual(['Alpha', 'gamma', 'beta'])
  })

  it('searches names without regard to case', () => {
    expect(filterAndSort(reports, '  ALP ', 'date').map((r) => r.name)).toEqual(['Alpha'])
    expect(filterAndSort(reports, 'zzz', 'date')).toEqual([])
  })
})
