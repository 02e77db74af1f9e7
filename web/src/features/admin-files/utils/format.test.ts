import { makeRun } from '@/testing/files-api'

import { editorName, fieldLabel, formatSavingsBps, formatSavingsRwas, historyValue, initials, leverCategories, runStateText } from './format'

describe('File Management formatting', () => {
  it('writes field names with spaces, each word capitalised', () => {
    expect(fieldLabel('savings_rwas')).toBe('Savings Rwas')
    expect(fieldLabel('lever')).toBe('Lever')
  })

  it('falls back to Not set and Unknown User', () => {
    expect(historyValue(null)).toBe('Not set')
    expect(historyValue('  ')).toBe('Not set')
    expect(historyValue('PSE')).toBe('PSE')
    expect(historyValue('PSE', 'lever')).toBe('PSE')
  })

  it('writes the savings values of the history to the cent, in Spanish formatting', () => {
    expect(historyValue('226880739185.410004', 'savings_rwas')).toBe('226.880.739.185,41')
    expect(historyValue('0', 'savings_rwas')).toBe('0')
    expect(historyValue('12.5', 'savings_bps')).toBe('12,5')
    expect(historyValue('1000', 'name')).toBe('1000')
    expect(historyValue(null, 'savings_bps')).toBe('Not set')
    expect(editorName({ editorName: null })).toBe('Unknown User')
    expect(initials('Ana María García')).toBe('AG')
    expect(initials('Unknown User')).toBe('UU')
  })

  it('shows - for no savings', () => {
    expect(formatSavingsRwas(0)).toBe('-')
    expect(formatSavingsBps(0)).toBe('-')
    expect(formatSavingsRwas(15000)).toMatch(/^15\.000\s€$/)
    expect(formatSavingsBps(1.234)).toBe('1,23 bps')
  })

  it('says where the latest run is: queued, stage and percent, failed with its message', () => {
    expect(runStateText(null)).toBeNull()
    expect(runStateText(makeRun({ state: 'queued' }))?.text).toBe('Queued')
    expect(runStateText(makeRun({ state: 'running', stage: 'writing', percent: 93.4 }))?.text).toBe('Writing · 93%')
    expect(runStateText(makeRun({ state: 'failed', error: 'No rows' }))).toEqual({ text: 'Failed: No rows', tone: 'red' })
    expect(runStateText(makeRun({ state: 'completed' }))).toBeNull()
  })

  it('lists each category once', () => {
    const l = (category: string) => ({ id: category, code: null, name: category, category })
    expect(leverCategories([l('CRMT'), l('Assets'), l('Assets')])).toEqual(['Assets', 'CRMT'])
  })
})
