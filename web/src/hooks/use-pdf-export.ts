import { useCallback, useRef, useState } from 'react'

import { apiDownload, errorMessage } from '@/lib/api-client'
import { toast } from '@/lib/toast'

/**
 * A PDF the server lays out, downloaded by a button: one export at a time, then 'Export Complete'
 * or 'Export Failed' with the server's message (or `failure`).
 */
export function usePdfExport(failure: string) {
  const [busy, setBusy] = useState(false)
  const running = useRef(false)
  const run = useCallback(
    async (path: string, fallbackName: string) => {
      if (running.current) return
      running.current = true
      setBusy(true)
      try {
        await apiDownload(path, fallbackName)
        toast.success('Export Complete')
      } catch (e) {
        toast.error('Export Failed', errorMessage(e, failure))
      } finally {
        running.current = false
        setBusy(false)
      }
    },
    [failure],
  )
  return { busy, run }
}
