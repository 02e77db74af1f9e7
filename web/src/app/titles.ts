import { useEffect } from 'react'
import { useMatches } from 'react-router'

/** The product name every tab title ends with (and the whole title of the landing page). */
export const APP_TITLE = 'CapOpt'
export const LANDING_TITLE = 'CapOpt · Capital Optimization'

/** What a route table entry may carry in its `handle`. */
export type RouteHandle = { title?: string }

/** `Task Board · CapOpt`, or the landing title when a page has none. */
export function documentTitle(title: string | undefined): string {
  return title ? `${title} · ${APP_TITLE}` : LANDING_TITLE
}

/** Sets the tab title from the deepest matched route whose handle names one. */
export function useRouteTitle(): void {
  const matches = useMatches()
  let title: string | undefined
  for (const match of matches) {
    const handle = match.handle as RouteHandle | undefined
    if (handle?.title) title = handle.title
  }
  useEffect(() => {
    document.title = documentTitle(title)
  }, [title])
}
