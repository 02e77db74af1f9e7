import { normalizeHex } from './colour'

describe('normalizeHex', () => {
  it('accepts six digits with or without #, expands three, refuses the rest', () => {
    expect(normalizeHex('#1E3A8A')).toBe('#1e3a8a')
    expect(normalizeHex(' 1e3a8a ')).toBe('#1e3a8a')
    expect(normalizeHex('#abc')).toBe('#aabbcc')
    expect(normalizeHex('f0a')).toBe('#ff00aa')
    for (const bad of ['', '#', 'teal', '#12345', '#1234567', 'ggg', 'rgb(0,0,0)']) expect(normalizeHex(bad)).toBeNull()
  })
})
