/** The analysis files' types (spec: xlsx, xls, csv). */
export const ANALYSIS_TYPES = ['xlsx', 'xls', 'csv'] as const
/** 25 MB each. */
export const MAX_ANALYSIS_BYTES = 25 * 1024 * 1024
/** At most this many in one upload (the server's bound). */
export const MAX_FILES_PER_UPLOAD = 20

export type FileProblem = { title: string; description: string }

/** The extension of a file name, lower-case, without the dot. */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.')
  return dot < 0 ? '' : name.slice(dot + 1).toLowerCase()
}

/**
 * Checks the files chosen for upload before they are sent, with the uploader's messages ('Invalid
 * file type', 'File too large'); `null` when they may go.
 */
export function checkAnalysisFiles(files: readonly File[]): FileProblem | null {
  if (files.length === 0) return { title: 'Upload failed', description: 'Please select at least one file to upload.' }
  if (files.some((f) => !(ANALYSIS_TYPES as readonly string[]).includes(extensionOf(f.name)))) {
    return { title: 'Invalid file type', description: `Please upload only ${ANALYSIS_TYPES.join(', ')} files.` }
  }
  if (files.some((f) => f.size > MAX_ANALYSIS_BYTES)) {
    return { title: 'File too large', description: `Files must be smaller than ${MAX_ANALYSIS_BYTES / (1024 * 1024)}MB` }
  }
  if (files.length > MAX_FILES_PER_UPLOAD) {
    return { title: 'Upload failed', description: `Upload at most ${MAX_FILES_PER_UPLOAD} files at once.` }
  }
  return null
}

/** A size in bytes for people: `512 B`, `12.3 KB`, `4.0 MB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}

/** Adds newly chosen files to a selection, leaving out those already in it (same name and size). */
export function mergeFiles(current: readonly File[], added: readonly File[]): File[] {
  const key = (f: File) => `${f.name}\u0000${f.size}`
  const seen = new Set(current.map(key))
  return [...current, ...added.filter((f) => !seen.has(key(f)))]
}
