import { useState } from 'react'

import { Button } from '@/components/ui/button'
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { Input } from '@/components/ui/input'

import { IMAGE_ACCEPT, IMAGE_ALIGNS, IMAGE_WIDTHS, checkImageFile, type ImageAlign, type ImageConfig, type ImageWidth } from './nodes-model'

export type ImageChoice = { file: File | null; width: ImageWidth; align: ImageAlign; caption: string; alt: string }

type Props = {
  /** The image being edited (its file stays unless another is chosen), or null for a new one. */
  initial: ImageConfig | null
  busy: boolean
  onCancel: () => void
  onSubmit: (choice: ImageChoice) => void
  onRefused: (title: string, message: string) => void
}

/**
 * The image upload (spec 002): one PNG, JPG, GIF or WebP file of up to 10 MB, its width (25, 50,
 * 75 or 100 %, 100 by default), alignment (centred by default) and an optional caption.
 */
export function ImageDialog({ initial, busy, onCancel, onSubmit, onRefused }: Props) {
  const [file, setFile] = useState<File | null>(null)
  const [width, setWidth] = useState<ImageWidth>(initial?.width ?? '100%')
  const [align, setAlign] = useState<ImageAlign>(initial?.align ?? 'center')
  const [caption, setCaption] = useState(initial?.caption ?? '')
  const [problem, setProblem] = useState<string | null>(null)
  const submit = () => {
    if (!file && !initial) {
      onRefused('No file selected', 'Please select an image file to upload.')
      return
    }
    if (file) {
      const refusal = checkImageFile(file)
      if (refusal) {
        setProblem(refusal)
        return
      }
    }
    onSubmit({ file, width, align, caption: caption.trim(), alt: file?.name ?? initial?.alt ?? '' })
  }
  return (
    <Dialog open onOpenChange={(open) => !open && onCancel()}>
      <DialogContent className="max-w-lg">
        <DialogHeader>
          <DialogTitle>{initial ? 'Edit Image' : 'Upload Image'}</DialogTitle>
          <DialogDescription>PNG, JPG, GIF or WebP, up to 10MB.</DialogDescription>
        </DialogHeader>
        <div className="space-y-3">
          <label className="block space-y-1">
            <span className="text-xs font-medium text-slate-700">{initial ? 'Replace the image (optional)' : 'Image file'}</span>
            <input
              type="file"
              aria-label="Image file"
              accept={IMAGE_ACCEPT}
              onChange={(e) => {
                const f = e.target.files?.[0] ?? null
                setFile(f)
                setProblem(f ? checkImageFile(f) : null)
              }}
              className="block w-full text-sm"
            />
            {problem && (
              <span role="alert" className="text-xs text-red-700">
                {problem}
              </span>
            )}
          </label>
          <div className="grid grid-cols-2 gap-2">
            <label className="block space-y-1">
              <span className="text-xs font-medium text-slate-700">Width</span>
              <select aria-label="Image width" value={width} onChange={(e) => setWidth(e.target.value as ImageWidth)} className="h-9 w-full rounded-md border border-slate-300 bg-white px-2 text-sm">
                {IMAGE_WIDTHS.map((w) => (
                  <option key={w} value={w}>
                    {w}
                  </option>
                ))}
              </select>
            </label>
            <label className="block space-y-1">
              <span className="text-xs font-medium text-slate-700">Alignment</span>
              <select aria-label="Image alignment" value={align} onChange={(e) => setAlign(e.target.value as ImageAlign)} className="h-9 w-full rounded-md border border-slate-300 bg-white px-2 text-sm">
                {IMAGE_ALIGNS.map((a) => (
                  <option key={a} value={a}>
                    {a[0].toUpperCase() + a.slice(1)}
                  </option>
                ))}
              </select>
            </label>
          </div>
          <label className="block space-y-1">
            <span className="text-xs font-medium text-slate-700">Caption (optional)</span>
            <Input aria-label="Caption" value={caption} onChange={(e) => setCaption(e.target.value)} maxLength={300} />
          </label>
        </div>
        <DialogFooter>
          <Button variant="outline" onClick={onCancel}>
            Cancel
          </Button>
          <Button onClick={submit} disabled={busy}>
            {busy ? 'Uploading...' : initial ? 'Update Image' : 'Upload Image'}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  )
}
