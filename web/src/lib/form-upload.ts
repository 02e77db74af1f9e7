import { ApiError, CSRF_COOKIE, CSRF_HEADER, apiRequest } from './api-client'
import { readCookie } from './cookies'

function statusMessage(status: number): string {
  if (status === 413) return 'File too large'
  if (status === 403) return 'Access denied'
  if (status >= 500) return 'The server could not complete the request. Please try again.'
  return `Upload failed (HTTP ${status})`
}

async function once<T>(path: string, method: 'POST' | 'PUT', form: FormData): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' }
  const csrf = readCookie(CSRF_COOKIE)
  if (csrf) headers[CSRF_HEADER] = csrf
  let response: Response
  try {
    response = await fetch(path, { method, headers, body: form, credentials: 'same-origin' })
  } catch {
    throw new ApiError(0, 'network_error', 'Unable to reach the server. Check your connection and try again.')
  }
  const text = await response.text()
  let body: unknown = undefined
  if (text !== '') {
    try {
      body = JSON.parse(text)
    } catch {
      body = text
    }
  }
  if (response.ok) return body as T
  const { code, message } = (body && typeof body === 'object' ? body : {}) as { code?: unknown; message?: unknown }
  throw new ApiError(
    response.status,
    typeof code === 'string' ? code : `http_${response.status}`,
    typeof message === 'string' && message !== '' ? message : statusMessage(response.status),
    body,
  )
}

/**
 * Sends a multipart form built by `makeForm` (built again for a retry) with the CSRF header; a
 * 401 refreshes the session once through the API client and sends again. Errors are
 * {@link ApiError}s with the server's message.
 */
export async function sendForm<T>(path: string, method: 'POST' | 'PUT', makeForm: () => FormData): Promise<T> {
  try {
    return await once<T>(path, method, makeForm())
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 401) throw error
    await apiRequest('/api/auth/me')
    return once<T>(path, method, makeForm())
  }
}
