import { newPasswordSchema, passwordMessages, passwordProblem } from './password-policy'

describe('password policy', () => {
  it('refuses what reset always refused, and what the password dialog used to accept', () => {
    expect(passwordProblem('abcdef')).toBe(passwordMessages.tooShort)
    expect(passwordProblem('abcdefgh')).toBe(passwordMessages.noUpper)
    expect(passwordProblem('ABCDEFGH')).toBe(passwordMessages.noLower)
    expect(passwordProblem('Abcdefgh')).toBe(passwordMessages.noNumber)
  })

  it('accepts a password with 8 characters, both cases and a digit', () => {
    expect(passwordProblem('Abcdefg1')).toBeNull()
    expect(passwordProblem('Demo-Password-1')).toBeNull()
  })

  it('counts characters and letter case as the server does', () => {
    // Seven characters, eight UTF-16 units: too short.
    expect(passwordProblem('Abcde1😀')).toBe(passwordMessages.tooShort)
    expect(passwordProblem('Ñandúes1')).toBeNull()
    expect(passwordProblem(`Aa1${'x'.repeat(1022)}`)).toBe(passwordMessages.tooLong)
  })

  it('gives the first broken rule as the schema message', () => {
    const result = newPasswordSchema.safeParse('abc')
    expect(result.success).toBe(false)
    expect(result.error?.issues.map((i) => i.message)).toEqual([passwordMessages.tooShort])
  })
})
