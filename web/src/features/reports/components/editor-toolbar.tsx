import type { Editor } from '@tiptap/core'
import { useEditorState } from '@tiptap/react'
import { BarChart3, Bold, Heading1, Heading2, Heading3, ImagePlus, Italic, List, ListOrdered, Pencil, Table2, Trash2, Underline } from 'lucide-react'
import { useId, useState, type ReactNode } from 'react'

import { Button } from '@/components/ui/button'
import { TOOLBAR_FONTS } from '@/config/fonts'
import { cn } from '@/lib/cn'

/** The toolbar's 11 fonts (`@/config/fonts`). */
export { TOOLBAR_FONTS } from '@/config/fonts'

/** Smallest and largest font size, in points. */
export const FONT_SIZE_MIN = 8
export const FONT_SIZE_MAX = 72
/** Quick picks of the font size field (any whole size from 8 to 72 may be typed). */
export const TOOLBAR_SIZES = [8, 9, 10, 11, 12, 14, 16, 18, 20, 24, 28, 32, 36, 48, 60, 72] as const
export const FONT_SIZE_ERROR = `Font size must be a whole number from ${FONT_SIZE_MIN} to ${FONT_SIZE_MAX}.`

/**
 * Reads the font size field: a whole number from 8 to 72 is that size, an empty field is the
 * default size (null), anything else is refused (undefined).
 */
export function parseFontSize(text: string): number | null | undefined {
  const clean = text.trim()
  if (clean === '') return null
  if (!/^\d+$/.test(clean)) return undefined
  const size = Number(clean)
  return size >= FONT_SIZE_MIN && size <= FONT_SIZE_MAX ? size : undefined
}

type FontSizeInputProps = {
  /** The selection's size as stored in the text style (`12pt`), or '' for the default. */
  size: string
  disabled: boolean
  /** Applies a size (null: back to the default); `refocus` returns the focus to the text. */
  onApply: (size: number | null, refocus: boolean) => void
}

/**
 * The font size field: type a size and press Enter (or leave the field), or pick a quick size.
 * A refused value changes nothing and says why; Escape restores the current size.
 */
function FontSizeInput({ size, disabled, onApply }: FontSizeInputProps) {
  const current = size === '' ? '' : String(parseFloat(size))
  const [draft, setDraft] = useState<string | null>(null)
  const [refused, setRefused] = useState(false)
  const listId = useId()
  const errorId = useId()
  /** Applies `text` if valid; returns whether it was. */
  const commit = (text: string, refocus: boolean): boolean => {
    const parsed = parseFontSize(text)
    if (parsed === undefined) {
      setRefused(true)
      return false
    }
    setRefused(false)
    setDraft(null)
    if (String(parsed ?? '') !== current) onApply(parsed, refocus)
    return true
  }
  return (
    <>
      <input
        type="text"
        inputMode="numeric"
        aria-label="Font size"
        placeholder="Size"
        list={listId}
        disabled={disabled}
        value={draft ?? current}
        aria-invalid={refused || undefined}
        aria-describedby={refused ? errorId : undefined}
        onChange={(e) => {
          const text = e.target.value
          setDraft(text)
          setRefused(false)
          // A quick pick chosen from the list applies at once; typed digits wait for Enter.
          const inputType = (e.nativeEvent as InputEvent).inputType
          const picked = inputType === undefined || inputType === 'insertReplacementText'
          if (picked && (TOOLBAR_SIZES as readonly number[]).includes(Number(text))) commit(text, true)
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault()
            commit(draft ?? current, true)
          } else if (e.key === 'Escape') {
            setDraft(null)
            setRefused(false)
          }
        }}
        onBlur={() => {
          // Leaving the field applies a valid size; a refused one goes back to the current size.
          if (draft !== null && !commit(draft, false)) setDraft(null)
        }}
        className="h-8 w-16 rounded-md border border-slate-300 bg-white px-2 text-sm aria-invalid:border-red-500"
      />
      <datalist id={listId}>
        {TOOLBAR_SIZES.map((s) => (
          <option key={s} value={s} />
        ))}
      </datalist>
      {refused && (
        <span id={errorId} role="alert" className="text-xs text-red-700">
          {FONT_SIZE_ERROR}
        </span>
      )}
    </>
  )
}

function ToolButton({ label, active, disabled, onClick, children }: { label: string; active: boolean; disabled: boolean; onClick: () => void; children: ReactNode }) {
  return (
    <Button
      variant="ghost"
      size="icon"
      aria-label={label}
      aria-pressed={active}
      disabled={disabled}
      className={cn(active && 'bg-slate-200')}
      onMouseDown={(e) => e.preventDefault()}
      onClick={onClick}
    >
      {children}
    </Button>
  )
}

/** What the toolbar's insert buttons and table actions call (charts, tables and images). */
export type ToolbarMedia = {
  insertChart: () => void
  insertTable: () => void
  insertImage: () => void
  editTable: (editor: Editor) => void
  deleteTable: (editor: Editor) => void
}

/**
 * Formatting for the section being edited (the last focused one), and the insertion of charts,
 * tables and images (into that section, or the first when none was edited yet).
 */
export function EditorToolbar({ editor, media }: { editor: Editor | null; media?: ToolbarMedia }) {
  const state = useEditorState({
    editor,
    selector: ({ editor: e }) =>
      e
        ? {
            bold: e.isActive('bold'),
            italic: e.isActive('italic'),
            underline: e.isActive('underline'),
            h1: e.isActive('heading', { level: 1 }),
            h2: e.isActive('heading', { level: 2 }),
            h3: e.isActive('heading', { level: 3 }),
            bullet: e.isActive('bulletList'),
            ordered: e.isActive('orderedList'),
            font: (e.getAttributes('textStyle').fontFamily as string | undefined) ?? '',
            size: (e.getAttributes('textStyle').fontSize as string | undefined) ?? '',
            editable: e.isEditable,
            table: e.isActive('table'),
          }
        : null,
  })
  const off = !editor || !state?.editable
  const chain = () => editor!.chain().focus()
  return (
    <div role="toolbar" aria-label="Formatting" className="flex flex-wrap items-center gap-1 rounded-md border border-slate-200 bg-white p-1">
      <ToolButton label="Bold" active={!!state?.bold} disabled={off} onClick={() => chain().toggleBold().run()}>
        <Bold />
      </ToolButton>
      <ToolButton label="Italic" active={!!state?.italic} disabled={off} onClick={() => chain().toggleItalic().run()}>
        <Italic />
      </ToolButton>
      <ToolButton label="Underline" active={!!state?.underline} disabled={off} onClick={() => chain().toggleUnderline().run()}>
        <Underline />
      </ToolButton>
      <span className="mx-1 h-6 w-px bg-slate-200" aria-hidden="true" />
      <ToolButton label="Heading 1" active={!!state?.h1} disabled={off} onClick={() => chain().toggleHeading({ level: 1 }).run()}>
        <Heading1 />
      </ToolButton>
      <ToolButton label="Heading 2" active={!!state?.h2} disabled={off} onClick={() => chain().toggleHeading({ level: 2 }).run()}>
        <Heading2 />
      </ToolButton>
      <ToolButton label="Heading 3" active={!!state?.h3} disabled={off} onClick={() => chain().toggleHeading({ level: 3 }).run()}>
        <Heading3 />
      </ToolButton>
      <ToolButton label="Bullet list" active={!!state?.bullet} disabled={off} onClick={() => chain().toggleBulletList().run()}>
        <List />
      </ToolButton>
      <ToolButton label="Numbered list" active={!!state?.ordered} disabled={off} onClick={() => chain().toggleOrderedList().run()}>
        <ListOrdered />
      </ToolButton>
      <span className="mx-1 h-6 w-px bg-slate-200" aria-hidden="true" />
      <select
        aria-label="Font"
        disabled={off}
        value={state?.font ?? ''}
        onChange={(e) => (e.target.value ? chain().setFontFamily(e.target.value).run() : chain().unsetFontFamily().run())}
        className="h-8 rounded-md border border-slate-300 bg-white px-2 text-sm"
      >
        <option value="">Default font</option>
        {TOOLBAR_FONTS.map((f) => (
          <option key={f} value={f} style={{ fontFamily: f }}>
            {f}
          </option>
        ))}
      </select>
      <FontSizeInput
        size={state?.size ?? ''}
        disabled={off}
        onApply={(size, refocus) => {
          const c = refocus ? chain() : editor!.chain()
          void (size === null ? c.unsetFontSize().run() : c.setFontSize(`${size}pt`).run())
        }}
      />

      {media && (
        <>
          <span className="mx-1 h-6 w-px bg-slate-200" aria-hidden="true" />
          <Button variant="ghost" size="icon" aria-label="Insert chart" onMouseDown={(e) => e.preventDefault()} onClick={media.insertChart}>
            <BarChart3 />
          </Button>
          <Button variant="ghost" size="icon" aria-label="Insert table" onMouseDown={(e) => e.preventDefault()} onClick={media.insertTable}>
            <Table2 />
          </Button>
          <Button variant="ghost" size="icon" aria-label="Insert image" onMouseDown={(e) => e.preventDefault()} onClick={media.insertImage}>
            <ImagePlus />
          </Button>
          {state?.table && editor && (
            <>
              <Button variant="ghost" size="sm" onMouseDown={(e) => e.preventDefault()} onClick={() => media.editTable(editor)}>
                <Pencil /> Edit table
              </Button>
              <Button variant="ghost" size="sm" onMouseDown={(e) => e.preventDefault()} onClick={() => media.deleteTable(editor)}>
                <Trash2 /> Delete table
              </Button>
            </>
          )}
        </>
      )}
    </div>
  )
}
