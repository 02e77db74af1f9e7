/** The largest file the client upload takes (the server's default `MAX_UPLOAD_MB`). */
export const MAX_UPLOAD_BYTES = 20 * 1024 * 1024

/** Extensions the upload accepts: CSV (also delimited text named .txt), Excel and PDF. */
export const ACCEPTED_EXTENSIONS = ['csv', 'txt', 'xlsx', 'xls', 'ods', 'pdf'] as const

/** The `accept` attribute of the file input. */
export const ACCEPT_ATTRIBUTE = ACCEPTED_EXTENSIONS.map((e) => `.${e}`).join(',')

export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.')
  return dot < 0 ? '' : name.slice(dot + 1).toLowerCase()
}

/**
 * The browser's checks before anything is sent (the server checks again, by content): the type,
 * the size, and that the file is not empty. Returns the message to show, or null.
 */
export function checkUpload(file: { name: string; size: number }): string | null {
  if (!(ACCEPTED_EXTENSIONS as readonly string[]).includes(extensionOf(file.name))) return 'Please upload only PDF, Excel, or CSV files.'
  if (file.size === 0) return 'The uploaded file appears to be empty or invalid.'
  if (file.size > MAX_UPLOAD_BYTES) return 'File too large. The maximum size is 20 MB.'
  return null
}

/** Files the engine can process (a PDF is stored and listed only). */
export function isProcessable(name: string): boolean {
  return extensionOf(name) !== 'pdf'
}
