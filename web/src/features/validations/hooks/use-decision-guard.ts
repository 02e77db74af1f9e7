import { useCallback, useRef, useState } from 'react'

import { toast } from '@/lib/toast'

/** Decisions within this long of the previous one are ignored (spec 001 section 5). */
export const DECISION_DEBOUNCE_MS = 1_000

/**
 * Runs one decision at a time: a second one while the first runs is refused with 'Operation in
 * progress', and one within {@link DECISION_DEBOUNCE_MS} of the previous start is ignored (a double
 * click). `busy` is true while a decision runs.
 */
export function useDecisionGuard(now: () => number = Date.now) {
  const running = useRef(false)
  const last = useRef(-Infinity)
  const [busy, setBusy] = useState(false)
  const run = useCallback(
    async (action: () => Promise<unknown>): Promise<boolean> => {
      if (running.current) {
        toast.error('Operation in progress', 'Please wait for the current operation to finish.')
        return false
      }
      const t = now()
      if (t - last.current < DECISION_DEBOUNCE_MS) return false
      last.current = t
      running.current = true
      setBusy(true)
      try {
        await action()
        return true
      } catch {
        return false
      } finally {
        running.current = false
        setBusy(false)
      }
    },
    [now],
  )
  return { run, busy }
}
