import type { Editor } from '@tiptap/core'
import Collaboration from '@tiptap/extension-collaboration'
import CollaborationCaret from '@tiptap/extension-collaboration-caret'
import { FontFamily, FontSize, TextStyle } from '@tiptap/extension-text-style'
import { EditorContent, useEditor } from '@tiptap/react'
import StarterKit from '@tiptap/starter-kit'
import { useEffect } from 'react'
import type { WebsocketProvider } from 'y-websocket'
import type * as Y from 'yjs'

import { MEDIA_EXTENSIONS } from '../media/nodes'
import { fragmentName } from '../utils/sections'

export type CaretUser = { name: string; color: string }

type Props = {
  doc: Y.Doc
  provider: WebsocketProvider
  sectionId: string
  title: string
  editable: boolean
  user: CaretUser
  onFocus: (editor: Editor) => void
  /** Told of the section's editor when it is created and (with null) when it goes. */
  onEditor?: (sectionId: string, editor: Editor | null) => void
}

/**
 * The document's nodes and marks for one section, bound to its XmlFragment (`section:{id}`) of
 * `doc`: what every view of a section reads with (the live editor adds the carets).
 */
export function sectionExtensions(doc: Y.Doc, sectionId: string) {
  return [
    StarterKit.configure({ undoRedo: false }),
    TextStyle,
    FontFamily,
    FontSize,
    ...MEDIA_EXTENSIONS,
    Collaboration.configure({ document: doc, field: fragmentName(sectionId) }),
  ]
}

/** One Tiptap editor bound to the section's XmlFragment (`section:{id}`) of the report's Y.Doc. */
export function SectionEditor({ doc, provider, sectionId, title, editable, user, onFocus, onEditor }: Props) {
  const editor = useEditor(
    {
      extensions: [...sectionExtensions(doc, sectionId), CollaborationCaret.configure({ provider, user })],
      editable,
      editorProps: { attributes: { 'aria-label': `${title} content`, role: 'textbox', 'aria-multiline': 'true' } },
      onFocus: ({ editor }) => onFocus(editor),
    },
    [doc, provider, sectionId],
  )

  useEffect(() => {
    if (editor && editor.isEditable !== editable) editor.setEditable(editable)
  }, [editor, editable])

  useEffect(() => {
    if (!editor || !onEditor) return
    onEditor(sectionId, editor)
    return () => onEditor(sectionId, null)
  }, [editor, onEditor, sectionId])

  return <EditorContent editor={editor} className="report-section-content" />
}
