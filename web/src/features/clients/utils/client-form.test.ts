import { describe, expect, it } from 'vitest'

import { EMPTY_CLIENT_FORM, clientFormValues, toClientInput, validateClientForm, type ClientFormValues } from './client-form'

const valid: ClientFormValues = {
  ...EMPTY_CLIENT_FORM,
  name: ' Bank C ',
  description: 'A bank',
  fromDate: '2024-03-01',
  savingsRwas: '1.234.567,89',
  cet1Capital: '13.000.000.000',
  totalRwas: '100.000.000.000',
}

describe('the Add New Client dialog', () => {
  it('shows the specification’s messages for the required fields', () => {
    expect(validateClientForm(EMPTY_CLIENT_FORM, '2026-11-25')).toEqual({
      name: 'Client name is required',
      description: 'Description is required',
      fromDate: 'From date is required',
    })
  })

  it('offers dates from 2024-01-01 to today only', () => {
    for (const [date, ok] of [
      ['2023-12-31', false],
      ['2024-01-01', true],
      ['2026-11-25', true],
      ['2026-11-26', false],
    ] as const) {
      expect(validateClientForm({ ...valid, fromDate: date }, '2026-11-25').fromDate === undefined, date).toBe(ok)
    }
  })

  it('reads Spanish amounts and sends the ratio as a fraction', () => {
    expect(validateClientForm(valid, '2026-11-25')).toEqual({})
    expect(toClientInput({ ...valid, cet1Ratio: '13,5' }, true)).toEqual({
      name: 'Bank C',
      description: 'A bank',
      fromDate: '2024-03-01',
      cet1SavingsRwas: 1234567.89,
      officialCet1Capital: 13e9,
      officialTotalRwas: 100e9,
      officialCet1Ratio: 0.135,
    })
    // Editing sends no savings (they are edited inline).
    expect('cet1SavingsRwas' in toClientInput(valid, false)).toBe(false)
  })

  it('wants both official figures or neither, capital below the RWAs', () => {
    expect(validateClientForm({ ...valid, totalRwas: '' }, '2026-11-25').totalRwas).toBe('Enter both the official CET1 capital and total RWAs, or neither')
    expect(validateClientForm({ ...valid, cet1Capital: '200.000.000.000' }, '2026-11-25').cet1Capital).toBe('The CET1 capital must be smaller than the total RWAs')
    expect(validateClientForm({ ...valid, cet1Ratio: '130' }, '2026-11-25').cet1Ratio).toBe('The CET1 ratio must be a percentage between 0 and 100')
  })

  it('fills the Edit Client dialog in Spanish notation', () => {
    const v = clientFormValues({
      id: 'c',
      name: 'Bank A',
      description: 'd',
      fromDate: '2024-01-01',
      createdBy: null,
      createdByName: null,
      createdAt: '',
      lastUpdated: '',
      cet1SavingsRwas: 0,
      cet1SavingsBps: 0,
      manualSavingsRwas: null,
      fileSumRwas: 0,
      fileCount: 0,
      memberCount: 1,
      officialCet1Capital: 6530000000,
      officialTotalRwas: 48200000000,
      officialCet1Ratio: 0.1355,
      computedCet1Ratio: 0.1355,
      ratioWarning: null,
    })
    expect(v.cet1Capital).toBe('6.530.000.000')
    expect(v.cet1Ratio).toBe('13,55')
  })
})
