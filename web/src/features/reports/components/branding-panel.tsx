import { useState } from 'react'
import type * as Y from 'yjs'

import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { Select } from '@/components/ui/select'
import { normalizeHex } from '@/lib/colour'

import { BRANDING_FONTS, FONT_SCALES, setBranding, type Branding } from '../utils/branding'

type ColourKey = 'primaryColor' | 'secondaryColor' | 'backgroundColor'

const COLOURS: { key: ColourKey; label: string }[] = [
  { key: 'primaryColor', label: 'Primary colour' },
  { key: 'secondaryColor', label: 'Secondary colour' },
  { key: 'backgroundColor', label: 'Document background' },
]

/**
 * The Branding panel: colours (the spec's hex rule: six digits with or without '#', three
 * expanded; anything else stays in the field, unapplied, with a message), fonts, scale and the
 * subtitle, written to the shared document as they change.
 */
export function BrandingPanel({ doc, branding, canEdit }: { doc: Y.Doc; branding: Branding; canEdit: boolean }) {
  return (
    <div className="space-y-3 text-sm">
      {COLOURS.map(({ key, label }) => (
        <ColourField key={`${key}-${branding[key]}`} label={label} value={branding[key]} disabled={!canEdit} onApply={(v) => setBranding(doc, { [key]: v })} />
      ))}
      <div className="space-y-1">
        <Label htmlFor="branding-subtitle">Report subtitle</Label>
        <Input
          id="branding-subtitle"
          value={branding.subtitle}
          maxLength={200}
          disabled={!canEdit}
          onChange={(e) => setBranding(doc, { subtitle: e.target.value })}
        />
      </div>
      {(
        [
          ['fontFamily', 'Font'],
          ['headingFontFamily', 'Heading font'],
        ] as const
      ).map(([key, label]) => (
        <div key={key} className="space-y-1">
          <Label htmlFor={`branding-${key}`}>{label}</Label>
          <Select id={`branding-${key}`} value={branding[key]} disabled={!canEdit} onChange={(e) => setBranding(doc, { [key]: e.target.value })}>
            {/* A template may have chosen a font beyond the panel's five: it stays selectable. */}
            {[...new Set([branding[key], ...BRANDING_FONTS])].map((f) => (
              <option key={f}>{f}</option>
            ))}
          </Select>
        </div>
      ))}
      <div className="space-y-1">
        <Label htmlFor="branding-scale">Font scale</Label>
        <Select id="branding-scale" value={String(branding.fontScale)} disabled={!canEdit} onChange={(e) => setBranding(doc, { fontScale: Number(e.target.value) })}>
          {FONT_SCALES.map((v) => (
            <option key={v} value={String(v)}>
              {Math.round(v * 100)}%
            </option>
          ))}
        </Select>
      </div>
    </div>
  )
}

function ColourField({ label, value, disabled, onApply }: { label: string; value: string; disabled: boolean; onApply: (v: string) => void }) {
  const [text, setText] = useState(value)
  const valid = normalizeHex(text) !== null
  const id = `branding-${label.replace(/\s+/g, '-').toLowerCase()}`
  return (
    <div className="space-y-1">
      <Label htmlFor={id}>{label}</Label>
      <div className="flex items-center gap-2">
        <input
          type="color"
          aria-label={`${label} picker`}
          value={value}
          disabled={disabled}
          onChange={(e) => onApply(e.target.value)}
          className="h-9 w-10 shrink-0 rounded border border-slate-300"
        />
        <Input
          id={id}
          value={text}
          disabled={disabled}
          aria-invalid={!valid}
          aria-describedby={valid ? undefined : `${id}-error`}
          onChange={(e) => {
            setText(e.target.value)
            const hex = normalizeHex(e.target.value)
            if (hex) onApply(hex)
          }}
        />
      </div>
      {!valid && (
        <p id={`${id}-error`} role="alert" className="text-xs text-red-600">
          Enter a colour like #1e3a8a.
        </p>
      )}
    </div>
  )
}
