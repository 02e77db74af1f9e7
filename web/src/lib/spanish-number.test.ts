import { cleanDecimalInput, cleanSpanishAmount, digitsOnly, formatSpanishAmount, parseDecimalInput, parseSpanishAmount } from './spanish-number'

describe('Spanish amounts', () => {
  it('drops the thousands dots and reads the comma as the decimal separator', () => {
    expect(parseSpanishAmount('1.234.567,89')).toBe(1234567.89)
    expect(parseSpanishAmount('48.200.000.000')).toBe(48_200_000_000)
    expect(parseSpanishAmount('6530000000')).toBe(6_530_000_000)
    expect(parseSpanishAmount('0,5')).toBe(0.5)
  })
  it('drops anything that is not a digit, a dot or the first comma', () => {
    expect(cleanSpanishAmount('1a.2b34,5,6 €')).toBe('1.234,56')
    expect(parseSpanishAmount('€ 12.000')).toBe(12000)
    expect(parseSpanishAmount('abc')).toBeNull()
    expect(parseSpanishAmount('')).toBeNull()
  })
  it('writes amounts back with dots and a decimal comma', () => {
    expect(formatSpanishAmount(1234567.891)).toBe('1.234.567,89')
    expect(formatSpanishAmount(6530000000)).toBe('6.530.000.000')
    expect(formatSpanishAmount(null)).toBe('')
  })
  it('keeps digits only where the field takes digits only', () => {
    expect(digitsOnly('1.205.000.000 €')).toBe('1205000000')
  })
})

describe('decimal inputs', () => {
  it('takes up to two decimals with a comma or a dot', () => {
    expect(cleanDecimalInput('1,3')).toBe('1,3')
    expect(cleanDecimalInput('1.35')).toBe('1.35')
    expect(cleanDecimalInput('')).toBe('')
    expect(cleanDecimalInput('1,356')).toBeNull()
    expect(cleanDecimalInput('1,3,')).toBeNull()
    expect(cleanDecimalInput('1x')).toBeNull()
    expect(parseDecimalInput('1,35')).toBe(1.35)
    expect(parseDecimalInput('2.')).toBe(2)
    expect(parseDecimalInput(',')).toBeNull()
  })
})
