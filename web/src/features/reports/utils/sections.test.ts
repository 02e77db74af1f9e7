import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'

import {
  addSection,
  deleteSection,
  deleteSectionWithUndo,
  duplicateSection,
  fragmentName,
  guessSectionType,
  moveSection,
  readSections,
  renameSection,
  replaceSectionContent,
  sectionText,
  setSectionStyle,
} from './sections'

/** A document like the server's initial content: sections a0, a1, a2 with one paragraph each. */
function seeded(titles: string[]): Y.Doc {
  const doc = new Y.Doc()
  const map = doc.getMap<Y.Map<unknown>>('sections')
  titles.forEach((title, i) => {
    const entry = new Y.Map<unknown>()
    entry.set('title', title)
    entry.set('order', `a${i}`)
    map.set(`s${i}`, entry)
    const p = new Y.XmlElement('paragraph')
    p.insert(0, [new Y.XmlText(`${title} text`)])
    doc.getXmlFragment(fragmentName(`s${i}`)).insert(0, [p])
  })
  return doc
}

const titles = (doc: Y.Doc) => readSections(doc).map((s) => s.title)

describe('report sections in the shared document', () => {
  it("keeps a section's layout and background, reaches a co-editor, and reads anything malformed as the default", () => {
    const doc = seeded(['Intro', 'Capital'])
    expect(readSections(doc)[0]).toMatchObject({ layout: 'single', background: null })
    expect(setSectionStyle(doc, 's1', { layout: 'two-column', background: '#f1f5f9' })).toBe(true)
    const other = new Y.Doc()
    Y.applyUpdate(other, Y.encodeStateAsUpdate(doc))
    expect(readSections(other)[1]).toMatchObject({ layout: 'two-column', background: '#f1f5f9' })
    setSectionStyle(doc, 's1', { background: null })
    expect(readSections(doc)[1]).toMatchObject({ layout: 'two-column', background: null })
    const entry = doc.getMap<Y.Map<unknown>>('sections').get('s0')!
    entry.set('layout', 'spiral')
    entry.set('background', 'javascript:alert(1)')
    expect(readSections(doc)[0]).toMatchObject({ layout: 'single', background: null })
    expect(setSectionStyle(doc, 'gone', { layout: 'hero' })).toBe(false)
  })

  it('reads sections in order-key order', () => {
    expect(titles(seeded(['Executive Summary', 'Overview', 'Capital']))).toEqual(['Executive Summary', 'Overview', 'Capital'])
  })

  it('adds New Section {n} at the end with the default content', () => {
    const doc = seeded(['Intro'])
    const id = addSection(doc)
    expect(titles(doc)).toEqual(['Intro', 'New Section 2'])
    expect(doc.getXmlFragment(fragmentName(id)).toString()).toBe('<paragraph>Enter your content here...</paragraph>')
  })

  it('renames, ignoring empty titles', () => {
    const doc = seeded(['Intro'])
    expect(renameSection(doc, 's0', '  Summary ')).toBe(true)
    expect(renameSection(doc, 's0', '   ')).toBe(false)
    expect(titles(doc)).toEqual(['Summary'])
  })

  it('moves up and down by swapping neighbours, rewriting one key', () => {
    const doc = seeded(['A', 'B', 'C'])
    const before = readSections(doc)
    expect(moveSection(doc, 's2', -1)).toBe(true)
    expect(titles(doc)).toEqual(['A', 'C', 'B'])
    const after = readSections(doc)
    expect(after.filter((s) => before.find((b) => b.id === s.id)?.order !== s.order)).toHaveLength(1)
    expect(moveSection(doc, 's0', 1)).toBe(true)
    expect(titles(doc)).toEqual(['C', 'A', 'B'])
    expect(moveSection(doc, 's1', 1)).toBe(false)
    expect(moveSection(doc, readSections(doc)[0].id, -1)).toBe(false)
  })

  it('duplicates with (Copy) at the end, content included', () => {
    const doc = seeded(['A', 'B'])
    const copy = duplicateSection(doc, 's0')!
    expect(titles(doc)).toEqual(['A', 'B', 'A (Copy)'])
    expect(doc.getXmlFragment(fragmentName(copy)).toString()).toBe('<paragraph>A text</paragraph>')
  })

  it('deletes a section and empties its text', () => {
    const doc = seeded(['A', 'B'])
    expect(deleteSection(doc, 's0')).toBe(true)
    expect(titles(doc)).toEqual(['B'])
    expect(doc.getXmlFragment(fragmentName('s0')).length).toBe(0)
    expect(deleteSection(doc, 's0')).toBe(false)
  })

  it('converges when two editors change the structure at the same time', () => {
    const a = seeded(['A', 'B', 'C'])
    const b = new Y.Doc()
    Y.applyUpdate(b, Y.encodeStateAsUpdate(a))
    moveSection(a, 's2', -1)
    addSection(b)
    renameSection(b, 's0', 'Alpha')
    Y.applyUpdate(a, Y.encodeStateAsUpdate(b))
    Y.applyUpdate(b, Y.encodeStateAsUpdate(a))
    expect(titles(a)).toEqual(titles(b))
    expect(titles(a)).toEqual(['Alpha', 'C', 'B', 'New Section 4'])
  })
})

describe('deleteSectionWithUndo', () => {
  it('deletes a section and undo brings back its title, place and text for every peer', () => {
    const doc = seeded(['Intro', 'Scope', 'Results'])
    const peer = new Y.Doc()
    Y.applyUpdate(peer, Y.encodeStateAsUpdate(doc))
    doc.on('update', (u: Uint8Array) => Y.applyUpdate(peer, u))

    const deletion = deleteSectionWithUndo(doc, 's1')!
    expect(readSections(peer).map((s) => s.title)).toEqual(['Intro', 'Results'])
    expect(peer.getXmlFragment(fragmentName('s1')).toString()).toBe('')

    expect(deletion.undo()).toBe(true)
    expect(readSections(peer).map((s) => s.title)).toEqual(['Intro', 'Scope', 'Results'])
    expect(peer.getXmlFragment(fragmentName('s1')).toString()).toBe('<paragraph>Scope text</paragraph>')
    // Once used, the undo is gone.
    expect(deletion.undo()).toBe(false)
  })

  it('undoes only the deletion: a colleague’s edits made meanwhile stay', () => {
    const doc = seeded(['Intro', 'Scope'])
    const deletion = deleteSectionWithUndo(doc, 's1')!
    // A colleague renames another section, and types into the deleted one's text.
    const colleague = new Y.Doc()
    Y.applyUpdate(colleague, Y.encodeStateAsUpdate(doc))
    ;(colleague.getMap('sections').get('s0') as Y.Map<unknown>).set('title', 'Introduction')
    const p = new Y.XmlElement('paragraph')
    p.insert(0, [new Y.XmlText('late words')])
    colleague.getXmlFragment(fragmentName('s1')).insert(0, [p])
    Y.applyUpdate(doc, Y.encodeStateAsUpdate(colleague))

    expect(deletion.undo()).toBe(true)
    expect(readSections(doc).map((s) => s.title)).toEqual(['Introduction', 'Scope'])
    const text = doc.getXmlFragment(fragmentName('s1')).toString()
    expect(text).toContain('Scope text')
    expect(text).toContain('late words')
  })

  it('offers nothing once released, and nothing for an unknown section', () => {
    const doc = seeded(['Intro'])
    expect(deleteSectionWithUndo(doc, 'nope')).toBeNull()
    const deletion = deleteSectionWithUndo(doc, 's0')!
    deletion.release()
    expect(deletion.undo()).toBe(false)
    expect(readSections(doc)).toEqual([])
  })
})

describe('the AI text assistant on the shared document', () => {
  it('reads a section as plain text and replaces it with paragraphs, marked AI-generated, for a co-editor too', () => {
    const doc = seeded(['Capital'])
    const [s] = readSections(doc)
    expect(s.aiGenerated).toBe(false)
    expect(sectionText(doc, s.id)).toBe('Capital text')

    const peer = new Y.Doc()
    Y.applyUpdate(peer, Y.encodeStateAsUpdate(doc))
    doc.on('update', (u: Uint8Array) => Y.applyUpdate(peer, u))

    expect(replaceSectionContent(doc, s.id, 'First paragraph\nwrapped.\n\nSecond paragraph.\n\n\n')).toBe(true)
    expect(sectionText(doc, s.id)).toBe('First paragraph wrapped.\n\nSecond paragraph.')
    expect(readSections(doc)[0].aiGenerated).toBe(true)
    // The co-editor has the same text and mark.
    expect(sectionText(peer, s.id)).toBe('First paragraph wrapped.\n\nSecond paragraph.')
    expect(readSections(peer)[0].aiGenerated).toBe(true)
    const nodes = peer.getXmlFragment(fragmentName(s.id)).toArray()
    expect(nodes.map((n) => (n as Y.XmlElement).nodeName)).toEqual(['paragraph', 'paragraph'])
  })

  it('changes nothing for a section that is gone', () => {
    const doc = seeded(['Capital'])
    expect(replaceSectionContent(doc, 'missing', 'Text.')).toBe(false)
    expect(doc.getXmlFragment(fragmentName('missing')).length).toBe(0)
  })

  it('guesses the type from the title', () => {
    expect(guessSectionType('Executive Summary')).toBe('summary')
    expect(guessSectionType('Capital Position')).toBe('capital')
    expect(guessSectionType('CRR articles applied')).toBe('regulatory')
    expect(guessSectionType('Conclusion')).toBe('conclusion')
    expect(guessSectionType('Appendix')).toBe('content')
  })
})
