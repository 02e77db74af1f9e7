import { useSyncExternalStore } from 'react'
import type * as Y from 'yjs'

/**
 * A report's branding lives in the shared document (root Y.Map `branding`, `collab::report`), so
 * everyone editing the report sees a change at once; a report made from a template starts with
 * the template's. A missing or malformed key takes the default.
 */
export const BRANDING_MAP = 'branding'

export type Branding = {
  primaryColor: string
  secondaryColor: string
  backgroundColor: string
  fontFamily: string
  headingFontFamily: string
  fontScale: number
  orientation: 'portrait' | 'landscape'
  subtitle: string
  /** The header's logo: the id of one of the report's images ('' for none). */
  logoMediaId: string
}

export const DEFAULT_BRANDING: Branding = {
  primaryColor: '#1e3a8a',
  secondaryColor: '#0ea5e9',
  backgroundColor: '#ffffff',
  fontFamily: 'SF Pro Display',
  headingFontFamily: 'SF Pro Display',
  fontScale: 1,
  orientation: 'portrait',
  subtitle: '',
  logoMediaId: '',
}

export { BRANDING_FONTS } from '@/config/fonts'
/** Font scales offered. */
export const FONT_SCALES = [0.8, 0.9, 1, 1.1, 1.2, 1.3, 1.4, 1.5] as const

const HEX = /^#[0-9a-f]{6}$/

function brandingMap(doc: Y.Doc): Y.Map<unknown> {
  return doc.getMap(BRANDING_MAP)
}

/** The branding as stored, each key checked, defaults for the rest. */
export function readBranding(doc: Y.Doc): Branding {
  const map = brandingMap(doc)
  const str = (key: keyof Branding, ok: (v: string) => boolean) => {
    const v = map.get(key)
    return typeof v === 'string' && ok(v) ? v : (DEFAULT_BRANDING[key] as string)
  }
  const scale = map.get('fontScale')
  const orientation = map.get('orientation')
  return {
    primaryColor: str('primaryColor', (v) => HEX.test(v)),
    secondaryColor: str('secondaryColor', (v) => HEX.test(v)),
    backgroundColor: str('backgroundColor', (v) => HEX.test(v)),
    fontFamily: str('fontFamily', (v) => v.length > 0 && v.length <= 60),
    headingFontFamily: str('headingFontFamily', (v) => v.length > 0 && v.length <= 60),
    fontScale: typeof scale === 'number' && scale >= 0.8 && scale <= 1.5 ? scale : DEFAULT_BRANDING.fontScale,
    orientation: orientation === 'landscape' ? 'landscape' : 'portrait',
    subtitle: str('subtitle', (v) => v.length <= 200),
    logoMediaId: str('logoMediaId', (v) => /^[A-Za-z0-9_-]{1,64}$/.test(v)),
  }
}

/** Changes some of the branding for everyone, in one transaction. */
export function setBranding(doc: Y.Doc, patch: Partial<Branding>): void {
  const map = brandingMap(doc)
  doc.transact(() => {
    for (const [key, value] of Object.entries(patch)) {
      if (value !== undefined && map.get(key) !== value) map.set(key, value)
    }
  })
}

/** The branding, live: re-renders when anyone changes it. */
export function useBranding(doc: Y.Doc): Branding {
  const snapshot = useSyncExternalStore(
    (onChange) => {
      const map = brandingMap(doc)
      map.observe(onChange)
      return () => map.unobserve(onChange)
    },
    () => JSON.stringify(readBranding(doc)),
  )
  return JSON.parse(snapshot) as Branding
}

/** Where a report's image is served (to the report's readers only). */
export function mediaUrl(reportId: string, mediaId: string): string {
  return `/api/reports/${encodeURIComponent(reportId)}/media/${encodeURIComponent(mediaId)}`
}

/**
 * The report's fixed navigation (spec: Overview, Capital Requirements, Credit Risk, Market Risk,
 * Operational Risk, Liquidity Coverage), each with the words a section's title is matched on.
 */
export const NAVIGATION: { label: string; words: RegExp }[] = [
  { label: 'Overview', words: /overview|summary|introduction/i },
  { label: 'Capital Requirements', words: /capital|own funds/i },
  { label: 'Credit Risk', words: /credit/i },
  { label: 'Market Risk', words: /market/i },
  { label: 'Operational Risk', words: /operational/i },
  { label: 'Liquidity Coverage', words: /liquidity/i },
]
