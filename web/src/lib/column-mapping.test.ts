import { makeInspection, makeTemplate, PSE_COLUMNS } from '@/testing/files-api'

import {
  analysisType,
  applyTemplate,
  bestTemplate,
  cleanMapping,
  columnOverlap,
  filterStandardColumns,
  linkColumns,
  readsAsNumber,
  unlinkColumn,
  validateMapping,
} from './column-mapping'

describe('linkColumns', () => {
  it('a drop removes earlier links of the same standard column and of the same source column', () => {
    const start = { NIF: 'nif', Maturity: 'plazo', Exposure_Amount: 'importe' }
    // 'plazo' moves from Maturity to Current_Risk_Weight: Maturity loses its link.
    expect(linkColumns(start, 'Current_Risk_Weight', 'plazo')).toEqual({ NIF: 'nif', Exposure_Amount: 'importe', Current_Risk_Weight: 'plazo' })
    // NIF gets another source: its old link goes.
    expect(linkColumns(start, 'NIF', 'nombre')).toEqual({ NIF: 'nombre', Maturity: 'plazo', Exposure_Amount: 'importe' })
    // Both at once: NIF <- importe removes NIF <- nif and Exposure_Amount <- importe.
    expect(linkColumns(start, 'NIF', 'importe')).toEqual({ NIF: 'importe', Maturity: 'plazo' })
    // The input is not changed.
    expect(start).toEqual({ NIF: 'nif', Maturity: 'plazo', Exposure_Amount: 'importe' })
  })

  it("'No mapping' removes a link", () => {
    expect(unlinkColumn({ NIF: 'nif', Maturity: 'plazo' }, 'NIF')).toEqual({ Maturity: 'plazo' })
  })

  it('cleaning keeps links to real source columns and known standard columns, each source once', () => {
    expect(cleanMapping({ NIF: 'nif', Maturity: 'gone', Exposure_Amount: '', Other: 'rw', Legal_Name: 'nif' }, ['nif', 'rw'], ['NIF', 'Maturity', 'Exposure_Amount', 'Legal_Name'])).toEqual({
      NIF: 'nif',
    })
  })
})

describe('validateMapping', () => {
  const inspection = makeInspection()

  it('lists the required columns that are not mapped and blocks confirmation', () => {
    const v = validateMapping({ NIF: 'nif' }, PSE_COLUMNS, inspection.columns, inspection.preview)
    expect(v.missing).toEqual(['Maturity', 'Exposure_Amount', 'Current_Risk_Weight'])
    expect(v.mappedCount).toBe(1)
    expect(v.ok).toBe(false)
  })

  it('passes with every required column mapped to readable values', () => {
    const v = validateMapping({ NIF: 'nif', Maturity: 'plazo', Exposure_Amount: 'importe', Current_Risk_Weight: 'rw' }, PSE_COLUMNS, inspection.columns, inspection.preview)
    expect(v).toEqual({ missing: [], typeErrors: [], mappedCount: 4, ok: true })
  })

  it('reports a numeric standard column fed with values without digits, row by row', () => {
    const v = validateMapping({ NIF: 'nif', Maturity: 'plazo', Exposure_Amount: 'nombre', Current_Risk_Weight: 'rw' }, PSE_COLUMNS, inspection.columns, inspection.preview)
    expect(v.typeErrors).toEqual([
      'Row 1: Source column "nombre" contains non-numeric value "Ayuntamiento de Madrid" for expected numeric field "Exposure_Amount"',
      'Row 2: Source column "nombre" contains non-numeric value "Ayuntamiento de Barcelona" for expected numeric field "Exposure_Amount"',
      'Row 3: Source column "nombre" contains non-numeric value "Ayuntamiento de Sevilla" for expected numeric field "Exposure_Amount"',
    ])
    expect(v.ok).toBe(false)
  })

  it('needs at least one mapped column even when nothing is required', () => {
    const optional = PSE_COLUMNS.map((c) => ({ ...c, isRequired: false }))
    expect(validateMapping({}, optional, inspection.columns, inspection.preview).ok).toBe(false)
    expect(validateMapping({ NIF: 'nif' }, optional, inspection.columns, inspection.preview).ok).toBe(true)
  })

  it('reads amounts as the engine does: symbols and separators are stripped, empty cells are not errors', () => {
    expect(readsAsNumber('1.250.000 €')).toBe(true)
    expect(readsAsNumber('20 %')).toBe(true)
    expect(readsAsNumber('')).toBe(true)
    expect(readsAsNumber('n/a')).toBe(false)
  })

  it('names the analysis after the lever', () => {
    expect(analysisType('Public Sector Entities')).toBe('PSE')
    expect(analysisType('pse')).toBe('PSE')
    expect(analysisType('Multilateral Development Banks')).toBe('MDB')
    expect(analysisType('RGLA')).toBe('RGLA')
    expect(analysisType('Corporates')).toBe('standard')
  })
})

describe('templates', () => {
  it('overlap is the share of shared names (case-insensitive) of the larger list', () => {
    expect(columnOverlap(['NIF', 'Plazo', 'Importe'], ['nif', 'plazo', 'importe'])).toBe(1)
    expect(columnOverlap(['a', 'b', 'c', 'd', 'e'], ['A', 'B', 'C'])).toBeCloseTo(0.6)
    expect(columnOverlap([], [])).toBe(0)
  })

  it('auto-matches a template at an overlap of 0.6 or more, the best one first', () => {
    const file = ['a', 'b', 'c', 'd', 'e']
    const atThreshold = makeTemplate({ id: 't-60', sourceColumns: ['a', 'b', 'c'] }) // 3 of 5
    const below = makeTemplate({ id: 't-50', sourceColumns: ['a', 'b', 'x', 'y'] }) // 2 of 5 = 0.4
    const better = makeTemplate({ id: 't-80', sourceColumns: ['a', 'b', 'c', 'd'] }) // 4 of 5
    expect(bestTemplate([below], file)).toBeNull()
    expect(bestTemplate([below, atThreshold], file)?.id).toBe('t-60')
    expect(bestTemplate([atThreshold, better, below], file)?.id).toBe('t-80')
    // 2 shared of 4 (0.5): no match.
    expect(bestTemplate([makeTemplate({ sourceColumns: ['a', 'b', 'p', 'q'] })], ['a', 'b', 'c', 'd'])).toBeNull()
  })

  it('loading a template maps its links onto the file columns by name, ignoring case, and drops the rest', () => {
    const template = makeTemplate({ mapping: { NIF: 'NIF', Maturity: 'Plazo', Exposure_Amount: 'Missing', Other: 'RW' } })
    expect(applyTemplate(template, ['nif', 'plazo', 'importe', 'rw'], PSE_COLUMNS.map((c) => c.name))).toEqual({ NIF: 'nif', Maturity: 'plazo' })
  })
})

describe('filterStandardColumns', () => {
  it('searches names and descriptions and can show only mapped columns', () => {
    const names = (cols: { name: string }[]) => cols.map((c) => c.name)
    expect(names(filterStandardColumns(PSE_COLUMNS, {}, 'tax', false))).toEqual(['NIF'])
    expect(names(filterStandardColumns(PSE_COLUMNS, {}, 'maturity', false))).toEqual(['Maturity'])
    expect(names(filterStandardColumns(PSE_COLUMNS, { NIF: 'nif', Legal_Name: 'nombre' }, '', true))).toEqual(['NIF', 'Legal_Name'])
    expect(names(filterStandardColumns(PSE_COLUMNS, { NIF: 'nif' }, 'name', true))).toEqual([])
  })
})
