import type { Me } from '@/api/types/Me'
import { http, HttpResponse, type DefaultBodyType, type PathParams } from 'msw'
import { setupServer } from 'msw/node'

/**
 * The one MSW server of the unit tests (started in `setup.ts`). Every test starts with no
 * handlers; a request nothing handles fails the request and then the test.
 */
export const server = setupServer()

/** What a handler of {@link mockApi} receives. */
export type MockRequest = {
  request: Request
  /** Path parameters of the key (`/api/reports/:id` gives `params.id`). */
  params: PathParams
  /** The query string of the call. */
  query: URLSearchParams
  /** The request body: parsed JSON, else the text, else undefined. */
  body: unknown
}

type Handler = (req: MockRequest) => Response | Promise<Response>

/** One request a test's handlers answered, in the order they arrived. */
export type ApiCall = {
  /** `METHOD /path` as the handler was keyed (path without the query string). */
  key: string
  /** The path with its query string, as requested. */
  url: string
  /** The parsed request body (see {@link MockRequest.body}). */
  body: unknown
  headers: Headers
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const
type Method = (typeof METHODS)[number]

let unhandled: string[] = []

/** Records a request that no handler matched; `setup.ts` fails the test with the list. */
export function recordUnhandled(request: Request) {
  const url = new URL(request.url)
  unhandled.push(`${request.method} ${url.pathname}${url.search}`)
}

/** The unhandled requests since the last call, cleared. */
export function takeUnhandled(): string[] {
  const list = unhandled
  unhandled = []
  return list
}

async function readBody(request: Request): Promise<unknown> {
  if (request.method === 'GET' || request.method === 'HEAD') return undefined
  const text = await request.clone().text()
  if (text === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/**
 * Answers API calls in this test with MSW handlers keyed by `"METHOD /path"` (MSW path syntax:
 * `:id` parameters; the query string is not part of the key, read it from `query`). Handlers
 * added later take precedence over earlier ones. Returns the calls these handlers answered.
 *
 *     const calls = mockApi({ 'GET /api/reports': () => json(200, []) })
 *     expect(calls.map((c) => c.url)).toEqual(['/api/reports?client_id=c-1'])
 */
export function mockApi(handlers: Record<string, Handler>): ApiCall[] {
  const calls: ApiCall[] = []
  const list = Object.entries(handlers).map(([key, handler]) => {
    const [method, path] = key.split(' ') as [Method, string]
    if (!METHODS.includes(method) || !path?.startsWith('/')) throw new Error(`bad mock key "${key}"`)
    const make = http[method.toLowerCase() as Lowercase<Method>]
    return make<PathParams, DefaultBodyType>(path, async ({ request, params }) => {
      const url = new URL(request.url)
      const call: ApiCall = { key, url: url.pathname + url.search, body: undefined, headers: request.headers }
      calls.push(call)
      call.body = await readBody(request)
      return handler({ request, params, query: url.searchParams, body: call.body })
    })
  })
  server.use(...list)
  return calls
}

/** A JSON answer (an empty one when `body` is undefined). */
export function json(status: number, body?: unknown): Response {
  return body === undefined ? new HttpResponse(null, { status }) : HttpResponse.json(body as never, { status })
}

/** A 204 with no body. */
export function noContent(): Response {
  return new HttpResponse(null, { status: 204 })
}

/** A failed connection: fetch rejects with a TypeError, as when the server cannot be reached. */
export function networkError(): Response {
  return HttpResponse.error()
}

export function makeUser(overrides: Partial<Me> = {}): Me {
  return {
    id: 'u-1',
    email: 'user@bank-a.example',
    name: 'Ana',
    last_name: 'García',
    role: 'user',
    company: 'Bank A',
    client: { id: 'c-1', name: 'Bank A' },
    terms_accepted_at: '2026-01-05T10:00:00Z',
    password_changed_at: '2026-01-05T10:00:00Z',
    requires_terms: false,
    requires_password_change: false,
    ...overrides,
  }
}
