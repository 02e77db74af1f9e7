import { readCookie } from './cookies'

/** Name of the readable cookie holding the CSRF token. */
export const CSRF_COOKIE = 'capopt_csrf'
/** Header every state-changing request carries, echoing the CSRF cookie. */
export const CSRF_HEADER = 'X-CSRF-Token'

const REFRESH_PATH = '/api/auth/refresh'
/** Calls whose 401 is an answer in itself, never a reason to refresh the session. */
const NO_REFRESH_PATHS = new Set(['/api/auth/login', REFRESH_PATH, '/api/auth/logout'])

/** A failed API call: the HTTP status (0 when the server was not reached) and the server's error body. */
export class ApiError extends Error {
  readonly status: number
  readonly code: string
  /** The parsed response body, when there was one (some endpoints answer with data on error statuses). */
  readonly body: unknown

  constructor(status: number, code: string, message: string, body?: unknown) {
    super(message)
    this.name = 'ApiError'
    this.status = status
    this.code = code
    this.body = body
  }
}

/** True for an error that means the caller has no valid session. */
export function isUnauthenticated(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401
}

type SessionListener = {
  /** The session is gone (a refresh was refused). */
  onSignedOut?: () => void
  /** A refresh succeeded; receives its JSON body. */
  onRefreshed?: (body: unknown) => void
}

let listener: SessionListener = {}

/** Lets the auth store hear about refreshes and lost sessions without the client importing it. */
export function setSessionListener(next: SessionListener): void {
  listener = next
}

export type RequestOptions = {
  method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** Sent as JSON. */
  body?: unknown
  signal?: AbortSignal
  /** Abort the call after this many milliseconds (status 0, code `timeout`). */
  timeoutMs?: number
}

const NETWORK_ERROR_MESSAGE = 'Unable to reach the server. Check your connection and try again.'
const TIMEOUT_MESSAGE = 'The server took too long to answer. Please try again.'

function statusMessage(status: number): string {
  if (status === 401) return 'Authentication required'
  if (status === 403) return 'Access denied'
  if (status === 404) return 'Not found'
  if (status === 429) return 'Too many requests. Please try again later.'
  if (status >= 500) return 'The server could not complete the request. Please try again.'
  return `Request failed (HTTP ${status})`
}

async function readBody(response: Response): Promise<unknown> {
  if (response.status === 204) return undefined
  const text = await response.text()
  if (text === '') return undefined
  const type = response.headers.get('content-type') ?? ''
  if (type.includes('json')) {
    try {
      return JSON.parse(text)
    } catch {
      return text
    }
  }
  return text
}

function toApiError(status: number, body: unknown): ApiError {
  if (body !== null && typeof body === 'object') {
    const { code, message } = body as { code?: unknown; message?: unknown }
    return new ApiError(
      status,
      typeof code === 'string' && code !== '' ? code : `http_${status}`,
      typeof message === 'string' && message !== '' ? message : statusMessage(status),
      body,
    )
  }
  return new ApiError(status, `http_${status}`, statusMessage(status), body)
}

async function send(path: string, options: RequestOptions): Promise<Response> {
  const method = options.method ?? 'GET'
  const headers: Record<string, string> = { Accept: 'application/json' }
  if (options.body !== undefined) headers['Content-Type'] = 'application/json'
  if (method !== 'GET') {
    const csrf = readCookie(CSRF_COOKIE)
    if (csrf) headers[CSRF_HEADER] = csrf
  }

  const controller = new AbortController()
  const abortFromCaller = () => controller.abort(options.signal?.reason)
  options.signal?.addEventListener('abort', abortFromCaller, { once: true })
  let timedOut = false
  const timer =
    options.timeoutMs !== undefined
      ? setTimeout(() => {
          timedOut = true
          controller.abort()
        }, options.timeoutMs)
      : undefined

  try {
    return await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: controller.signal,
    })
  } catch (error) {
    if (timedOut) throw new ApiError(0, 'timeout', TIMEOUT_MESSAGE)
    if (options.signal?.aborted) throw error
    throw new ApiError(0, 'network_error', NETWORK_ERROR_MESSAGE)
  } finally {
    if (timer !== undefined) clearTimeout(timer)
    options.signal?.removeEventListener('abort', abortFromCaller)
  }
}

let refreshInFlight: Promise<boolean> | null = null

/**
 * Refreshes the session once for every caller waiting at the same time: the refresh cookie
 * rotates, so two parallel refreshes would invalidate each other.
 */
function refreshSession(): Promise<boolean> {
  refreshInFlight ??= (async () => {
    try {
      const response = await send(REFRESH_PATH, { method: 'POST' })
      const body = await readBody(response)
      if (response.ok) {
        listener.onRefreshed?.(body)
        return true
      }
      return false
    } catch {
      return false
    } finally {
      refreshInFlight = null
    }
  })()
  return refreshInFlight
}

/**
 * After a 401 from a call made outside {@link apiRequest} (a streamed answer): refreshes the
 * session once and says whether it is back; a refused refresh signs the user out.
 */
export async function recoverSession(): Promise<boolean> {
  if (await refreshSession()) return true
  listener.onSignedOut?.()
  return false
}

/** Sends a call with the session handling of {@link apiRequest}: CSRF retry, one refresh on a 401. */
async function sendWithSession(path: string, options: RequestOptions): Promise<Response> {
  const hadCsrfCookie = readCookie(CSRF_COOKIE) !== null
  let response = await send(path, options)
  if (response.status === 403 && !hadCsrfCookie && (options.method ?? 'GET') !== 'GET' && readCookie(CSRF_COOKIE) !== null) {
    // The first state-changing call of a visit can beat the CSRF cookie, which the server hands out
    // with any API response (including this refusal): retry once now that it is set.
    response = await send(path, options)
  }
  if (response.status === 401 && !NO_REFRESH_PATHS.has(path)) {
    if (await refreshSession()) {
      response = await send(path, options)
    }
    if (response.status === 401) {
      listener.onSignedOut?.()
    }
  }
  return response
}

/**
 * Calls the API and returns the parsed JSON body (undefined for an empty body). Non-GET calls
 * carry the CSRF header. A 401 triggers one session refresh and one retry; a second 401 means
 * the user is signed out. Every failure is an {@link ApiError}.
 */
export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const response = await sendWithSession(path, options)
  const body = await readBody(response)
  if (!response.ok) throw toApiError(response.status, body)
  return body as T
}

/** The file name of a `Content-Disposition` header (`filename*` first), or null. */
export function attachmentName(header: string | null): string | null {
  if (!header) return null
  const star = /filename\*=UTF-8''([^;]+)/i.exec(header)
  if (star) {
    try {
      return decodeURIComponent(star[1].trim())
    } catch {
      // fall through to the plain name
    }
  }
  const plain = /filename="([^"]*)"/i.exec(header)
  return plain ? plain[1] : null
}

/**
 * Downloads a file the API makes (a GET answered with an attachment) and saves it under the
 * server's file name (or `fallbackName`), with the session handling of {@link apiRequest}.
 * Every failure is an {@link ApiError}, so the caller says 'Export Failed' with its message.
 */
export async function apiDownload(path: string, fallbackName: string): Promise<string> {
  const response = await sendWithSession(path, { method: 'GET' })
  if (!response.ok) throw toApiError(response.status, await readBody(response))
  const blob = await response.blob()
  const name = attachmentName(response.headers.get('content-disposition')) ?? fallbackName
  saveBlob(blob, name)
  return name
}

/** Saves `blob` as a file named `name` (a link to an object URL, clicked). */
export function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob)
  try {
    const link = document.createElement('a')
    link.href = url
    link.download = name
    link.rel = 'noopener'
    document.body.appendChild(link)
    link.click()
    link.remove()
  } finally {
    // Let the browser start the download before the address goes.
    setTimeout(() => URL.revokeObjectURL(url), 10_000)
  }
}

/** Short forms for the common verbs. */
export const api = {
  get: <T>(path: string, options?: Omit<RequestOptions, 'method' | 'body'>) => apiRequest<T>(path, { ...options, method: 'GET' }),
  post: <T>(path: string, body?: unknown, options?: Omit<RequestOptions, 'method' | 'body'>) =>
    apiRequest<T>(path, { ...options, method: 'POST', body }),
}

/** The message to show for any thrown value. */
export function errorMessage(error: unknown, fallback: string): string {
  if (error instanceof ApiError) return error.message
  return fallback
}
