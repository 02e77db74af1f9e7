import { EMPTY_VALUE, formatBps, formatCount, formatDate, formatDateTime, formatEur, formatPercent, formatRatio } from './format'

// Intl separates the number and the currency/percent sign with a no-break space.
const nbsp = (s: string) => s.replace(/ /g, '\u00a0')

describe('formatEur', () => {
  it('uses Spanish grouping, the euro sign and no decimals', () => {
    expect(formatEur(1234567.89)).toBe(nbsp('1.234.568 €'))
    expect(formatEur(-25000)).toBe(nbsp('-25.000 €'))
    expect(formatEur(0)).toBe(nbsp('0 €'))
  })
  it('accepts numeric strings and bigints from the wire', () => {
    expect(formatEur('98765')).toBe(nbsp('98.765 €'))
    expect(formatEur(12345678n)).toBe(nbsp('12.345.678 €'))
  })
  it('shows a dash for missing or unreadable values', () => {
    expect(formatEur(null)).toBe(EMPTY_VALUE)
    expect(formatEur(undefined)).toBe(EMPTY_VALUE)
    expect(formatEur('abc')).toBe(EMPTY_VALUE)
    expect(formatEur(Number.NaN)).toBe(EMPTY_VALUE)
  })
})

describe('formatBps', () => {
  it('always shows two decimals with a decimal comma', () => {
    expect(formatBps(12.345)).toBe('12,35')
    expect(formatBps(3)).toBe('3,00')
    expect(formatBps(12345.5)).toBe('12.345,50')
  })
})

describe('percentages', () => {
  it('formats a fraction as a percent with two decimals', () => {
    expect(formatRatio(0.1234)).toBe(nbsp('12,34 %'))
    expect(formatRatio(0.15)).toBe(nbsp('15,00 %'))
  })
  it('writes a ratio and a percent value the same way', () => {
    expect(formatRatio(0.1234)).toBe(formatPercent(12.34))
    expect(formatRatio(-0.025, { signed: true })).toBe(formatPercent(-2.5, { signed: true }))
  })
  it('signs a change: a plus for gains, none for zero', () => {
    expect(formatPercent(25, { signed: true })).toBe(nbsp('+25,00 %'))
    expect(formatPercent(-2.5, { signed: true })).toBe(nbsp('-2,50 %'))
    expect(formatPercent(0, { signed: true })).toBe(nbsp('0,00 %'))
    expect(formatPercent(null, { signed: true })).toBe(EMPTY_VALUE)
  })
  it('formats a value already in percent', () => {
    expect(formatPercent(11.111)).toBe(nbsp('11,11 %'))
    expect(formatPercent(-2.5)).toBe(nbsp('-2,50 %'))
  })
})

describe('formatCount', () => {
  it('groups thousands and drops decimals', () => {
    expect(formatCount(12345)).toBe('12.345')
    expect(formatCount(7)).toBe('7')
  })
})

describe('formatDate', () => {
  it("uses 'MMM d, yyyy'", () => {
    expect(formatDate('2026-01-05T10:00:00')).toBe('Jan 5, 2026')
    expect(formatDate(new Date(2024, 11, 31))).toBe('Dec 31, 2024')
  })
  it('shows a dash for missing or invalid dates', () => {
    expect(formatDate(null)).toBe(EMPTY_VALUE)
    expect(formatDate('not a date')).toBe(EMPTY_VALUE)
  })
})

describe('formatDateTime', () => {
  it('shows the date and the local time', () => {
    expect(formatDateTime('2026-01-05T10:07:00')).toBe('Jan 5, 2026 10:07')
    expect(formatDateTime('not a date')).toBe(EMPTY_VALUE)
    expect(formatDateTime(null)).toBe(EMPTY_VALUE)
  })
})
