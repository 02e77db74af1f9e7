import { useSyncExternalStore } from 'react'

/** Screens narrower than this are treated as mobile. */
export const MOBILE_BREAKPOINT_PX = 768

const query = `(max-width: ${MOBILE_BREAKPOINT_PX - 1}px)`

function subscribe(onChange: () => void) {
  const media = window.matchMedia(query)
  media.addEventListener('change', onChange)
  window.addEventListener('resize', onChange)
  return () => {
    media.removeEventListener('change', onChange)
    window.removeEventListener('resize', onChange)
  }
}

function snapshot() {
  return window.matchMedia(query).matches
}

/** True while the viewport is narrower than 768 px. */
export function useIsMobile(): boolean {
  return useSyncExternalStore(subscribe, snapshot, () => false)
}
