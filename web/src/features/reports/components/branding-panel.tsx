import { ImagePlus, X } from 'lucide-react'
import { useRef, useState } from 'react'
import type * as Y from 'yjs'

import { Button } from '@/components/ui/button'
import { Input } from '@/components/ui/input'
import { Label } from '@/components/ui/label'
import { Select } from '@/components/ui/select'
import { errorMessage } from '@/lib/api-client'
import { normalizeHex } from '@/lib/colour'
import { toast } from '@/lib/toast'

import { useUploadMedia } from '../media/api'
import { IMAGE_ACCEPT, checkImageFile } from '../media/nodes-model'
import { BRANDING_FONTS, FONT_SCALES, mediaUrl, setBranding, type Branding } from '../utils/branding'

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
type PanelProps = { doc: Y.Doc; branding: Branding; canEdit: boolean; clientId: string; reportId: string }

export function BrandingPanel({ doc, branding, canEdit, clientId, reportId }: PanelProps) {
  return (
    <div className="space-y-3 text-sm">
      <LogoField doc={doc} logo={branding.logoMediaId} canEdit={canEdit} clientId={clientId} reportId={reportId} />
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

/**
 * The header's logo: an image uploaded to the report (so it is stored with the report's media
 * and served to its readers only), named in the shared branding so co-editors see it at once.
 * Removing it leaves the image among the report's media.
 */
function LogoField({ doc, logo, canEdit, clientId, reportId }: { doc: Y.Doc; logo: string; canEdit: boolean; clientId: string; reportId: string }) {
  const upload = useUploadMedia(clientId, reportId)
  const input = useRef<HTMLInputElement>(null)
  const pick = (file: File | undefined) => {
    if (input.current) input.current.value = ''
    if (!file) return
    const refusal = checkImageFile(file)
    if (refusal) return toast.error('Upload failed', refusal)
    upload.mutate(file, {
      onSuccess: (m) => {
        setBranding(doc, { logoMediaId: m.id })
        toast.success('Logo uploaded', `${m.name} is the report's logo.`)
      },
      onError: (e) => toast.error('Upload failed', errorMessage(e, 'Failed to upload image. Please try again.')),
    })
  }
  return (
    <div className="space-y-1">
      <Label htmlFor="branding-logo">Logo</Label>
      <div className="flex items-center gap-2">
        {logo ? (
          <img src={mediaUrl(reportId, logo)} alt="Report logo" className="h-10 max-w-24 rounded border border-slate-200 object-contain" />
        ) : (
          <span className="text-xs text-slate-500">No logo</span>
        )}
        {canEdit && (
          <>
            <input id="branding-logo" ref={input} type="file" accept={IMAGE_ACCEPT} className="sr-only" onChange={(e) => pick(e.target.files?.[0])} />
            <Button variant="outline" size="sm" disabled={upload.isPending} onClick={() => input.current?.click()}>
              <ImagePlus /> {upload.isPending ? 'Uploading...' : logo ? 'Change logo' : 'Upload logo'}
            </Button>
            {logo && (
              <Button variant="ghost" size="icon" aria-label="Remove logo" onClick={() => setBranding(doc, { logoMediaId: '' })}>
                <X />
              </Button>
            )}
          </>
        )}
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
