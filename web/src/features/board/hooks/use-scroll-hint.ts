import { useCallback, useEffect, useState, type RefObject } from 'react'

export type ScrollHint = { left: boolean; right: boolean }

/** Less than this many pixels of hidden content counts as none (sub-pixel rounding). */
const SLACK_PX = 2

/** Which sides of a horizontally scrolling element hide content. */
export function scrollHint(el: Pick<HTMLElement, 'scrollLeft' | 'scrollWidth' | 'clientWidth'>): ScrollHint {
  return {
    left: el.scrollLeft > SLACK_PX,
    right: el.scrollLeft + el.clientWidth < el.scrollWidth - SLACK_PX,
  }
}

/**
 * Follows the hidden sides of a horizontally scrolling element (the board's columns) as it
 * scrolls, resizes or gets new content, so the screen can show that there is more to see.
 */
export function useScrollHint(ref: RefObject<HTMLElement | null>, contentKey: unknown): ScrollHint & { update: () => void } {
  const [hint, setHint] = useState<ScrollHint>({ left: false, right: false })
  const update = useCallback(() => {
    const el = ref.current
    if (!el) return
    const next = scrollHint(el)
    setHint((h) => (h.left === next.left && h.right === next.right ? h : next))
  }, [ref])
  useEffect(() => {
    const el = ref.current
    if (!el) return
    update()
    el.addEventListener('scroll', update, { passive: true })
    window.addEventListener('resize', update)
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(update)
    observer?.observe(el)
    return () => {
      el.removeEventListener('scroll', update)
      window.removeEventListener('resize', update)
      observer?.disconnect()
    }
  }, [ref, update, contentKey])
  return { ...hint, update }
}
