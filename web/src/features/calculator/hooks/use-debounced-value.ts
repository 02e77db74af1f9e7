import { useEffect, useState } from 'react'

/**
 * `value` once it has not changed for `ms` (sliders move many times a second; the calculator
 * asks the server once they rest). Values compare by their JSON.
 */
export function useDebouncedValue<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value)
  const key = JSON.stringify(value)
  useEffect(() => {
    const timer = setTimeout(() => setSettled(JSON.parse(key) as T), ms)
    return () => clearTimeout(timer)
  }, [key, ms])
  return settled
}
