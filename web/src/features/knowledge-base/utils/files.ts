/** The lever categories the server accepts for a document (`service::lever_dictionary::CATEGORIES`). */
export const KB_CATEGORIES = ['Assets', 'CET1 deductions', 'CRMT', 'Other'] as const
/** The types the knowledge base reads. */
export const KB_TYPES = ['pdf', 'docx', 'txt'] as const
/** 25 MB each (the server's `MAX_FILE_BYTES`). */
export const MAX_KB_BYTES = 25 * 1024 * 1024
/** At most this many in one upload (the server's `MAX_FILES_PER_UPLOAD`). */
export const MAX_KB_FILES = 20

/** The server's messages, verbatim, so the screen says the same whether it or the server refuses. */
export const SELECT_FILES = 'Please select files and a lever category'
export const UNSUPPORTED = 'Unsupported file type: only PDF, DOCX and TXT documents can be added to the knowledge base.'
export const DOC_REFUSED =
  'Unsupported file type: Word 97-2003 documents (.doc) cannot be read. Save the document as .docx (Word 2007 or later) or PDF and upload it again.'
export const TOO_BIG = 'Files must be smaller than 25MB'
export const TOO_MANY = `Upload at most ${MAX_KB_FILES} files at once.`

/** The extension of a file name, lower-case, without the dot. */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.')
  return dot < 0 ? '' : name.slice(dot + 1).trim().toLowerCase()
}

/** Why the knowledge base would refuse this file (the server's message), or null when it may go. */
export function checkKnowledgeFile(file: File): string | null {
  const ext = extensionOf(file.name)
  if (ext === 'doc') return DOC_REFUSED
  if (!(KB_TYPES as readonly string[]).includes(ext)) return UNSUPPORTED
  if (file.size > MAX_KB_BYTES) return TOO_BIG
  return null
}

/** A size in bytes for people: `512 B`, `12.3 KB`, `4.0 MB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}

/** 'Page 3', 'Pages 3–5', or null when the chunk has no pages. */
export function pageRange(from: number | null, to: number | null): string | null {
  if (from === null && to === null) return null
  const a = from ?? to
  const b = to ?? from
  return a === b ? `Page ${a}` : `Pages ${a}–${b}`
}

export type SnippetPart = { text: string; mark: boolean }

/**
 * A search snippet cut into plain text and highlighted parts. The server's snippet is raw text
 * with `<mark>` and `</mark>` around the hits; any other markup in it is text and stays text.
 */
export function splitSnippet(snippet: string): SnippetPart[] {
  const parts: SnippetPart[] = []
  let mark = false
  for (const piece of snippet.split(/(<mark>|<\/mark>)/)) {
    if (piece === '<mark>') mark = true
    else if (piece === '</mark>') mark = false
    else if (piece !== '') parts.push({ text: piece, mark })
  }
  return parts
}
