import type { Me } from '@/api/types/Me'

type Handler = (init: RequestInit) => Response | Promise<Response>

export function json(status: number, body?: unknown): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
  })
}

/**
 * Replaces fetch with a table of handlers keyed by "METHOD /path". Unknown calls fail the test
 * loudly. Returns the list of calls made.
 */
export function mockApi(handlers: Record<string, Handler>) {
  const calls: { key: string; init: RequestInit }[] = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit = {}) => {
      const key = `${init.method ?? 'GET'} ${url}`
      calls.push({ key, init })
      const handler = handlers[key]
      if (!handler) throw new Error(`no mock for ${key}`)
      return handler(init)
    }),
  )
  return calls
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
