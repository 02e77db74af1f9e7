import { describe, expect, it } from 'vitest'

import { PALETTE, barLabel, millionsTick, paletteColor } from './chart'

describe('dashboard chart helpers', () => {
  it('cuts lever names longer than 15 characters to 12 and an ellipsis', () => {
    expect(barLabel('Institutions')).toBe('Institutions')
    expect(barLabel('Fifteen chars!!')).toBe('Fifteen chars!!')
    expect(barLabel('Sixteen chars!!!')).toBe('Sixteen char...')
    expect(barLabel('Public Sector Entities (PSE)')).toBe('Public Secto...')
  })

  it('writes axis ticks in millions of euros, Spanish style', () => {
    expect(millionsTick(0)).toBe('0 M€')
    expect(millionsTick(12_500_000)).toBe('12,5 M€')
    expect(millionsTick(230_000_000)).toBe('230 M€')
  })

  it('assigns the eight colours cyclically', () => {
    expect(paletteColor(0)).toBe(PALETTE[0])
    expect(paletteColor(8)).toBe(PALETTE[0])
    expect(paletteColor(9)).toBe(PALETTE[1])
  })
})
