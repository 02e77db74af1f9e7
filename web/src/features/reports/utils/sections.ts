import { generateKeyBetween, generateNKeysBetween } from 'fractional-indexing'
import * as Y from 'yjs'

/**
 * The report document schema (shared with the server, `collab::report`): a root Y.Map `sections`
 * keyed by section id, each a Y.Map {title, order}, where `order` is a fractional index key
 * (sections show in ascending byte order of it, ties broken by id); and one root Y.XmlFragment
 * `section:{id}` per section with its rich text. Every operation here is one transaction, so all
 * editors see the same structure.
 */
export const SECTIONS_MAP = 'sections'
export const NEW_SECTION_CONTENT = 'Enter your content here...'

/** A section's layouts (the image layouts come with images). */
export const SECTION_LAYOUTS = [
  { value: 'single', label: 'Single column' },
  { value: 'two-column', label: 'Two columns' },
  { value: 'hero', label: 'Hero' },
] as const
export type SectionLayout = (typeof SECTION_LAYOUTS)[number]['value']

/**
 * A section: its id, title and order key, and its look (`layout`, `background` as `#rrggbb` or
 * none), kept in the section's entry of the shared map so co-editors see a change at once.
 */
export type Section = {
  id: string
  title: string
  order: string
  layout: SectionLayout
  background: string | null
  /** Its text was last replaced by the AI text assistant. */
  aiGenerated: boolean
}

export function fragmentName(sectionId: string): string {
  return `section:${sectionId}`
}

function sectionsMap(doc: Y.Doc): Y.Map<Y.Map<unknown>> {
  return doc.getMap<Y.Map<unknown>>(SECTIONS_MAP)
}

function byteCompare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** The sections in display order. */
export function readSections(doc: Y.Doc): Section[] {
  const out: Section[] = []
  sectionsMap(doc).forEach((value, id) => {
    if (!(value instanceof Y.Map)) return
    const title = value.get('title')
    const order = value.get('order')
    const layout = SECTION_LAYOUTS.find((l) => l.value === value.get('layout'))?.value ?? 'single'
    const background = value.get('background')
    out.push({
      id,
      title: typeof title === 'string' ? title : '',
      order: typeof order === 'string' ? order : '',
      layout,
      background: typeof background === 'string' && /^#[0-9a-f]{6}$/.test(background) ? background : null,
      aiGenerated: value.get('aiGenerated') === true,
    })
  })
  return out.sort((a, b) => byteCompare(a.order, b.order) || byteCompare(a.id, b.id))
}

function newId(): string {
  return crypto.randomUUID()
}

function keyAfter(last: string | undefined): string {
  try {
    return generateKeyBetween(last || null, null)
  } catch {
    return generateKeyBetween(null, null)
  }
}

function insertSection(doc: Y.Doc, id: string, title: string, order: string) {
  const entry = new Y.Map<unknown>()
  entry.set('title', title)
  entry.set('order', order)
  sectionsMap(doc).set(id, entry)
}

/** Adds 'New Section {n}' at the end, with the default content. Returns its id. */
export function addSection(doc: Y.Doc): string {
  const id = newId()
  doc.transact(() => {
    const sections = readSections(doc)
    insertSection(doc, id, `New Section ${sections.length + 1}`, keyAfter(sections.at(-1)?.order))
    const paragraph = new Y.XmlElement('paragraph')
    paragraph.insert(0, [new Y.XmlText(NEW_SECTION_CONTENT)])
    doc.getXmlFragment(fragmentName(id)).insert(0, [paragraph])
  })
  return id
}

/** Renames a section (an empty title after trimming is ignored). Returns whether it changed. */
export function renameSection(doc: Y.Doc, id: string, title: string): boolean {
  const clean = title.trim()
  const entry = sectionsMap(doc).get(id)
  if (!clean || !(entry instanceof Y.Map) || entry.get('title') === clean) return false
  entry.set('title', clean)
  return true
}

/** Swaps a section with its neighbour above (-1) or below (+1), rewriting one order key. */
export function moveSection(doc: Y.Doc, id: string, direction: -1 | 1): boolean {
  const sections = readSections(doc)
  const index = sections.findIndex((s) => s.id === id)
  const target = index + direction
  if (index < 0 || target < 0 || target >= sections.length) return false
  // The new position lies between the neighbour and the section beyond it.
  const [low, high] =
    direction === -1 ? [sections[target - 1]?.order, sections[target].order] : [sections[target].order, sections[target + 1]?.order]
  doc.transact(() => {
    const map = sectionsMap(doc)
    try {
      map.get(id)?.set('order', generateKeyBetween(low || null, high || null))
    } catch {
      // Equal or missing keys (concurrent inserts): renumber every section in the new order.
      const reordered = sections.slice()
      const [moved] = reordered.splice(index, 1)
      reordered.splice(target, 0, moved)
      const keys = generateNKeysBetween(null, null, reordered.length)
      reordered.forEach((s, i) => map.get(s.id)?.set('order', keys[i]))
    }
  })
  return true
}

/** Changes a section's layout or background (null takes the background away) for everyone. */
export function setSectionStyle(doc: Y.Doc, id: string, style: { layout?: SectionLayout; background?: string | null }): boolean {
  const entry = sectionsMap(doc).get(id)
  if (!(entry instanceof Y.Map)) return false
  doc.transact(() => {
    if (style.layout !== undefined) entry.set('layout', style.layout)
    if (style.background === null) entry.delete('background')
    else if (style.background !== undefined) entry.set('background', style.background)
  })
  return true
}

/** Copies a section, its title followed by ' (Copy)', to the end. Returns the new id. */
export function duplicateSection(doc: Y.Doc, id: string): string | null {
  const sections = readSections(doc)
  const source = sections.find((s) => s.id === id)
  if (!source) return null
  const copyId = newId()
  doc.transact(() => {
    insertSection(doc, copyId, `${source.title} (Copy)`, keyAfter(sections.at(-1)?.order))
    const from = doc.getXmlFragment(fragmentName(id))
    const to = doc.getXmlFragment(fragmentName(copyId))
    const nodes = from.toArray().map((node) => (node as Y.XmlElement | Y.XmlText).clone())
    if (nodes.length > 0) to.insert(0, nodes)
  })
  return copyId
}

/** Removes a section and empties its text; `origin` names the transaction (see {@link deleteSectionWithUndo}). */
export function deleteSection(doc: Y.Doc, id: string, origin?: unknown): boolean {
  const map = sectionsMap(doc)
  if (!map.has(id)) return false
  doc.transact(() => {
    map.delete(id)
    const fragment = doc.getXmlFragment(fragmentName(id))
    if (fragment.length > 0) fragment.delete(0, fragment.length)
  }, origin)
  return true
}

/** A section deletion that can be taken back. */
export type SectionDeletion = {
  /** Puts the section back (title, place and text), as a collaborative undo; false if nothing was undone. */
  undo: () => boolean
  /** Forgets the undo (call when it is no longer offered). */
  release: () => void
}

/**
 * Deletes a section so that it can be undone: a `Y.UndoManager` scoped to the sections map and the
 * section's text, tracking only this deletion's own origin. Undo restores what this deletion
 * removed and nothing else, so edits colleagues made meanwhile (elsewhere, or text typed into the
 * section after it was deleted) are kept, and everyone sees the section come back.
 */
export function deleteSectionWithUndo(doc: Y.Doc, id: string): SectionDeletion | null {
  const map = sectionsMap(doc)
  if (!map.has(id)) return null
  const origin = { deleteSection: id }
  const manager = new Y.UndoManager([map, doc.getXmlFragment(fragmentName(id))], {
    trackedOrigins: new Set([origin]),
    captureTimeout: 0,
  })
  deleteSection(doc, id, origin)
  let released = false
  const release = () => {
    if (released) return
    released = true
    manager.destroy()
  }
  return {
    undo: () => {
      if (released) return false
      const undone = manager.undo() !== null
      release()
      return undone
    },
    release,
  }
}

/** The plain text of a section (its paragraphs and other blocks, a blank line between them). */
export function sectionText(doc: Y.Doc, id: string): string {
  const blocks: string[] = []
  const textOf = (node: Y.XmlElement | Y.XmlText | Y.XmlHook): string => {
    if (node instanceof Y.XmlText) {
      return (node.toDelta() as { insert: unknown }[]).map((d) => (typeof d.insert === 'string' ? d.insert : '')).join('')
    }
    if (node instanceof Y.XmlElement) return node.toArray().map(textOf).join(node.nodeName === 'tableRow' ? ' | ' : '')
    return ''
  }
  for (const node of doc.getXmlFragment(fragmentName(id)).toArray()) {
    const text = textOf(node).trim()
    if (text) blocks.push(text)
  }
  return blocks.join('\n\n')
}

/**
 * Replaces a section's content with `text` (paragraphs split on blank lines) and marks it
 * AI-generated, in one transaction every co-editor receives. False when the section is gone.
 */
export function replaceSectionContent(doc: Y.Doc, id: string, text: string): boolean {
  const entry = sectionsMap(doc).get(id)
  if (!(entry instanceof Y.Map)) return false
  const paragraphs = text
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s*\n\s*/g, ' ').trim())
    .filter(Boolean)
  doc.transact(() => {
    const fragment = doc.getXmlFragment(fragmentName(id))
    fragment.delete(0, fragment.length)
    fragment.insert(
      0,
      paragraphs.map((p) => {
        const el = new Y.XmlElement('paragraph')
        const t = new Y.XmlText()
        t.insert(0, p)
        el.insert(0, [t])
        return el
      }),
    )
    entry.set('aiGenerated', true)
  })
  return true
}

/** The type a section's title suggests (the user can change it), `content` when none does. */
export function guessSectionType(title: string): string {
  const t = title.toLowerCase()
  if (/summary|overview/.test(t)) return 'summary'
  if (/introduction|background|scope/.test(t)) return 'introduction'
  if (/capital|own funds|cet1|rwa|saving/.test(t)) return 'capital'
  if (/regulat|article|crr|basel|compliance/.test(t)) return 'regulatory'
  if (/conclusion|next steps|outlook/.test(t)) return 'conclusion'
  return 'content'
}
