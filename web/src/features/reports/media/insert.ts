import type { Editor, JSONContent } from '@tiptap/core'
import * as Y from 'yjs'

import { addSection, fragmentName, renameSection } from '../utils/sections'
import type { NodeTarget } from './nodes'

/**
 * The section editor a new chart, table or image goes into: the one being edited (the last
 * focused, still open), else the first section's; `null` when the report has no section.
 */
export function chooseEditor(active: Editor | null, first: Editor | null): Editor | null {
  if (active && !active.isDestroyed) return active
  if (first && !first.isDestroyed) return first
  return null
}

/**
 * Inserts a block: where the cursor of the section being edited is (after the top-level block
 * holding it, never inside a table or a list; an empty paragraph there is replaced), or at the
 * end of the first section when no section holds the cursor.
 */
export function insertBlock(editor: Editor, content: JSONContent, atCursor: boolean): boolean {
  const { $from } = editor.state.selection
  if (!atCursor || $from.depth === 0) return editor.chain().insertContentAt(atCursor ? $from.pos : editor.state.doc.content.size, content).run()
  const top = $from.node(1)
  const range = top.type.name === 'paragraph' && top.content.size === 0 ? { from: $from.before(1), to: $from.after(1) } : $from.after(1)
  return editor.chain().focus().insertContentAt(range, content).run()
}

/** Replaces the node at `target.pos` with `content` (editing a chart, table or image in place). */
export function replaceBlock(target: NodeTarget, content: JSONContent): boolean {
  const node = target.editor.state.doc.nodeAt(target.pos)
  if (!node) return false
  return target.editor
    .chain()
    .insertContentAt({ from: target.pos, to: target.pos + node.nodeSize }, content)
    .run()
}

/** Changes the attributes of the node at `target.pos` (a chart or an image edited in place). */
export function updateAttrs(target: NodeTarget, type: string, attrs: Record<string, string>): boolean {
  const node = target.editor.state.doc.nodeAt(target.pos)
  if (!node || node.type.name !== type) return false
  return target.editor.commands.command(({ tr }) => {
    tr.setNodeMarkup(target.pos, undefined, { ...node.attrs, ...attrs })
    return true
  })
}

/**
 * A report without sections gets one titled 'Images' holding the image (written into the shared
 * document directly, since no section editor exists yet). Returns the new section's id.
 */
export function addImagesSection(doc: Y.Doc, attrs: Record<string, string>): string {
  let id = ''
  doc.transact(() => {
    id = addSection(doc)
    renameSection(doc, id, 'Images')
    const fragment = doc.getXmlFragment(fragmentName(id))
    fragment.delete(0, fragment.length)
    const image = new Y.XmlElement('image')
    for (const [k, v] of Object.entries(attrs)) image.setAttribute(k, v)
    fragment.insert(0, [image, new Y.XmlElement('paragraph')])
  })
  return id
}
