import type { ReportSummary } from '@/api/types/ReportSummary'
import { describe, expect, it } from 'vitest'

import { applyServer, changedFields, hasUnsaved, initialMeta, type MetaState } from './report-meta'

const report = (name: string, status: 'draft' | 'published', updated_at: string): ReportSummary => ({
  id: 'r-1',
  client_id: 'c-1',
  folder_id: null,
  name,
  status,
  template_id: null,
  section_count: 1,
  created_by: null,
  last_edited_by: null,
  last_edited_by_name: null,
  last_saved_at: null,
  created_at: '2026-11-01T00:00:00.000000Z',
  updated_at,
})

const T1 = '2026-11-02T10:00:00.000000Z'
const T2 = '2026-11-02T10:00:01.000000Z'
const T3 = '2026-11-02T10:00:02.000000Z'

const editName = (s: MetaState, name: string): MetaState => ({ ...s, local: { ...s.local, name } })
const editStatus = (s: MetaState, status: 'draft' | 'published'): MetaState => ({ ...s, local: { ...s.local, status } })

describe('report metadata: local edits against the server baseline', () => {
  it('sends only the fields edited here, the name trimmed', () => {
    const start = initialMeta(report('Q3', 'draft', T1))
    expect(changedFields(start)).toEqual({})
    expect(hasUnsaved(start)).toBe(false)
    expect(changedFields(editStatus(start, 'published'))).toEqual({ status: 'published' })
    expect(changedFields(editName(start, '  Q4 '))).toEqual({ name: 'Q4' })
    expect(changedFields(editName(start, 'Q3  '))).toEqual({})
  })

  it('moves the baseline and the fields not edited here to a newer server snapshot', () => {
    const edited = editStatus(initialMeta(report('Q3', 'draft', T1)), 'published')
    const next = applyServer(edited, report('Renamed by B', 'draft', T2))
    expect(next.saved).toEqual({ name: 'Renamed by B', status: 'draft' })
    expect(next.local).toEqual({ name: 'Renamed by B', status: 'published' })
    expect(changedFields(next)).toEqual({ status: 'published' })
  })

  it('keeps a field edited here, which stays unsaved', () => {
    const edited = editName(initialMeta(report('Q3', 'draft', T1)), 'Mine')
    const next = applyServer(edited, report('Theirs', 'published', T2))
    expect(next.local).toEqual({ name: 'Mine', status: 'published' })
    expect(changedFields(next)).toEqual({ name: 'Mine' })
  })

  it('ignores a snapshot older than the baseline (a slow refetch)', () => {
    const state = applyServer(initialMeta(report('Q3', 'draft', T1)), report('New', 'draft', T3))
    expect(applyServer(state, report('Q3', 'draft', T2))).toBe(state)
  })

  it('after our own save, takes the answer unless the field changed again meanwhile', () => {
    const edited = editName(initialMeta(report('Q3', 'draft', T1)), 'Q4 ')
    const sent = changedFields(edited)
    expect(applyServer(edited, report('Q4', 'draft', T2), sent).local.name).toBe('Q4')

    // Typed on while the save was under way: kept and still unsaved.
    const typedOn = editName(edited, 'Q4 final')
    const after = applyServer(typedOn, report('Q4', 'draft', T2), sent)
    expect(after.local.name).toBe('Q4 final')
    expect(changedFields(after)).toEqual({ name: 'Q4 final' })

    // Changed back to the old name meanwhile: that is a local edit too.
    const reverted = applyServer(editName(edited, 'Q3'), report('Q4', 'draft', T2), sent)
    expect(reverted.local.name).toBe('Q3')
    expect(changedFields(reverted)).toEqual({ name: 'Q3' })
  })
})
