import { Editor } from '@tiptap/core'
import { FontSize, TextStyle } from '@tiptap/extension-text-style'
import StarterKit from '@tiptap/starter-kit'
import { act, render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'

import { EditorToolbar, FONT_SIZE_ERROR, parseFontSize } from './editor-toolbar'

let editor: Editor

beforeEach(() => {
  editor = new Editor({ extensions: [StarterKit, TextStyle, FontSize], content: '<p>Capital ratios</p>' })
  editor.commands.selectAll()
})

afterEach(() => editor.destroy())

describe('font size', () => {
  it('reads whole sizes from 8 to 72, an empty field as the default, and refuses the rest', () => {
    expect(parseFontSize('8')).toBe(8)
    expect(parseFontSize(' 13 ')).toBe(13)
    expect(parseFontSize('72')).toBe(72)
    expect(parseFontSize('')).toBeNull()
    for (const bad of ['7', '73', '0', '12.5', '-9', 'abc', '12pt', '1e1']) expect(parseFontSize(bad)).toBeUndefined()
  })

  it('applies any whole size typed in the field, not only the quick picks', async () => {
    render(<EditorToolbar editor={editor} />)
    const field = screen.getByRole('combobox', { name: 'Font size' })
    await userEvent.type(field, '13{Enter}')
    expect(editor.getHTML()).toContain('font-size: 13pt')
    await act(async () => {
      editor.commands.selectAll()
    })
    expect(field).toHaveValue('13')
    expect(field).not.toHaveAttribute('aria-invalid')
  })

  it('refuses out-of-range and non-numeric sizes clearly and changes nothing', async () => {
    render(<EditorToolbar editor={editor} />)
    const field = screen.getByRole('combobox', { name: 'Font size' })
    const before = editor.getHTML()

    for (const bad of ['7', '73', 'big', '10.5']) {
      await userEvent.clear(field)
      await userEvent.type(field, `${bad}{Enter}`)
      expect(screen.getByRole('alert')).toHaveTextContent(FONT_SIZE_ERROR)
      expect(field).toHaveAttribute('aria-invalid', 'true')
      expect(field).toHaveAccessibleDescription(FONT_SIZE_ERROR)
      expect(editor.getHTML()).toBe(before)
    }

    // Leaving the field with a refused size puts the current size back, still changing nothing.
    await userEvent.clear(field)
    await userEvent.type(field, '99')
    await userEvent.tab()
    expect(field).toHaveValue('')
    expect(editor.getHTML()).toBe(before)

    // A valid size clears the message.
    await userEvent.type(field, '24{Enter}')
    expect(screen.queryByRole('alert')).not.toBeInTheDocument()
    expect(editor.getHTML()).toContain('font-size: 24pt')
  })

  it('offers the quick picks', () => {
    render(<EditorToolbar editor={editor} />)
    const field = screen.getByRole('combobox', { name: 'Font size' })
    const list = document.getElementById(field.getAttribute('list')!)
    expect([...list!.querySelectorAll('option')].map((o) => o.value)).toEqual(['8', '9', '10', '11', '12', '14', '16', '18', '20', '24', '28', '32', '36', '48', '60', '72'])
  })
})
