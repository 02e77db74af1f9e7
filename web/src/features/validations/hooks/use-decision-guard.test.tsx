import { act, renderHook } from '@testing-library/react'

import { useDecisionGuard } from './use-decision-guard'

describe('useDecisionGuard', () => {
  it('ignores a decision within a second of the previous one', async () => {
    let t = 10_000
    const { result } = renderHook(() => useDecisionGuard(() => t))
    const action = vi.fn(async () => {})
    await act(async () => {
      expect(await result.current.run(action)).toBe(true)
    })
    t += 300
    await act(async () => {
      expect(await result.current.run(action)).toBe(false)
    })
    expect(action).toHaveBeenCalledTimes(1)
    t += 1_000
    await act(async () => {
      expect(await result.current.run(action)).toBe(true)
    })
    expect(action).toHaveBeenCalledTimes(2)
  })

  it('refuses a decision while another runs, whatever the time', async () => {
    let t = 10_000
    const { result } = renderHook(() => useDecisionGuard(() => t))
    let release!: () => void
    const slow = vi.fn(() => new Promise<void>((r) => (release = r)))
    let first!: Promise<boolean>
    act(() => {
      first = result.current.run(slow)
    })
    expect(result.current.busy).toBe(true)
    t += 5_000
    const other = vi.fn(async () => {})
    await act(async () => {
      expect(await result.current.run(other)).toBe(false)
    })
    expect(other).not.toHaveBeenCalled()
    await act(async () => {
      release()
      expect(await first).toBe(true)
    })
    expect(result.current.busy).toBe(false)
  })
})
