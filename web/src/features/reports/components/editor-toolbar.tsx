import type { Editor } from '@tiptap/core'
import { useEditorState } from '@tiptap/react'
import { Bold, Heading1, Heading2, Heading3, Italic, List, ListOrdered, Underline } from 'lucide-react'
import type { ReactNode } from 'react'

import { Button } from '@/components/ui/button'
import { cn } from '@/lib/cn'

/** The toolbar's 11 fonts. */
export const TOOLBAR_FONTS = [
  'SF Pro Display',
  'Arial',
  'Helvetica',
  'Times New Roman',
  'Georgia',
  'Calibri',
  'Verdana',
  'Garamond',
  'Courier New',
  'Roboto',
  'Inter',
] as const

/** Font sizes offered, 8 to 72 points. */
export const TOOLBAR_SIZES = [8, 9, 10, 11, 12, 14, 16, 18, 20, 24, 28, 32, 36, 48, 60, 72] as const

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

/** Formatting for the section being edited (the last focused one). */
export function EditorToolbar({ editor }: { editor: Editor | null }) {
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
      <select
        aria-label="Font size"
        disabled={off}
        value={state?.size ?? ''}
        onChange={(e) => (e.target.value ? chain().setFontSize(e.target.value).run() : chain().unsetFontSize().run())}
        className="h-8 rounded-md border border-slate-300 bg-white px-2 text-sm"
      >
        <option value="">Size</option>
        {TOOLBAR_SIZES.map((s) => (
          <option key={s} value={`${s}pt`}>
            {s}
          </option>
        ))}
      </select>
    </div>
  )
}
