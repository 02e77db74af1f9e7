import { ApiError, api, apiRequest, setSessionListener } from './api-client'

type Call = { url: string; init: RequestInit }

function jsonResponse(status: number, body?: unknown): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
  })
}

/** Replaces fetch with a queue of canned responses and records every call. */
function mockFetch(...responses: (Response | Error)[]): Call[] {
  const calls: Call[] = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      calls.push({ url, init })
      const next = responses.shift()
      if (next === undefined) throw new Error(`unexpected call to ${url}`)
      if (next instanceof Error) throw next
      return next
    }),
  )
  return calls
}

function header(call: Call, name: string): string | undefined {
  return (call.init.headers as Record<string, string>)[name]
}

beforeEach(() => {
  document.cookie = 'capopt_csrf=tok%2B123; path=/'
  setSessionListener({})
})

afterEach(() => {
  document.cookie = 'capopt_csrf=; path=/; max-age=0'
  vi.unstubAllGlobals()
})

describe('CSRF header', () => {
  it('is sent on non-GET requests with the cookie value', async () => {
    const calls = mockFetch(jsonResponse(200, { ok: true }))
    await api.post('/api/things', { a: 1 })
    expect(header(calls[0], 'X-CSRF-Token')).toBe('tok+123')
    expect(calls[0].init.credentials).toBe('same-origin')
    expect(calls[0].init.body).toBe('{"a":1}')
    expect(header(calls[0], 'Content-Type')).toBe('application/json')
  })

  it('is not sent on GET requests', async () => {
    const calls = mockFetch(jsonResponse(200, { status: 'ok' }))
    await expect(api.get('/api/health')).resolves.toEqual({ status: 'ok' })
    expect(header(calls[0], 'X-CSRF-Token')).toBeUndefined()
  })
})

describe('refresh then retry', () => {
  it('refreshes once on a 401 and retries the call', async () => {
    const refreshed = vi.fn()
    setSessionListener({ onRefreshed: refreshed })
    const calls = mockFetch(
      jsonResponse(401, { code: 'unauthenticated', message: 'Authentication required' }),
      jsonResponse(200, { user: { id: 'u1' } }),
      jsonResponse(200, { value: 42 }),
    )
    await expect(api.get('/api/admin/dashboard/metrics')).resolves.toEqual({ value: 42 })
    expect(calls.map((c) => [c.init.method, c.url])).toEqual([
      ['GET', '/api/admin/dashboard/metrics'],
      ['POST', '/api/auth/refresh'],
      ['GET', '/api/admin/dashboard/metrics'],
    ])
    expect(header(calls[1], 'X-CSRF-Token')).toBe('tok+123')
    expect(refreshed).toHaveBeenCalledWith({ user: { id: 'u1' } })
  })

  it('reports the user signed out when the refresh is refused', async () => {
    const signedOut = vi.fn()
    setSessionListener({ onSignedOut: signedOut })
    const calls = mockFetch(
      jsonResponse(401, { code: 'unauthenticated', message: 'Authentication required' }),
      jsonResponse(401, { code: 'unauthenticated', message: 'Authentication required' }),
    )
    const error = await api.get('/api/auth/me').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect((error as ApiError).status).toBe(401)
    expect(calls).toHaveLength(2)
    expect(signedOut).toHaveBeenCalledTimes(1)
  })

  it('reports the user signed out on a second 401 after a successful refresh', async () => {
    const signedOut = vi.fn()
    setSessionListener({ onSignedOut: signedOut })
    const calls = mockFetch(jsonResponse(401, {}), jsonResponse(200, { user: {} }), jsonResponse(401, {}))
    await expect(api.get('/api/auth/me')).rejects.toMatchObject({ status: 401 })
    expect(calls).toHaveLength(3)
    expect(signedOut).toHaveBeenCalledTimes(1)
  })

  it('never refreshes for a failed login', async () => {
    const calls = mockFetch(jsonResponse(401, { code: 'invalid_credentials', message: 'Invalid credentials' }))
    await expect(api.post('/api/auth/login', { email: 'a@b.co', password: 'x' })).rejects.toMatchObject({
      status: 401,
      code: 'invalid_credentials',
      message: 'Invalid credentials',
    })
    expect(calls).toHaveLength(1)
  })

  it('shares one refresh between calls that fail together', async () => {
    let refreshes = 0
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        if (url === '/api/auth/refresh') {
          refreshes += 1
          await new Promise((r) => setTimeout(r, 10))
          return jsonResponse(200, { user: {} })
        }
        // Each data call fails until the refresh has happened.
        return refreshes === 0 ? jsonResponse(401, {}) : jsonResponse(200, { url })
      }),
    )
    const results = await Promise.all([api.get('/api/a'), api.get('/api/b')])
    expect(results).toEqual([{ url: '/api/a' }, { url: '/api/b' }])
    expect(refreshes).toBe(1)
  })
})

describe('error mapping', () => {
  it('turns the error body into code and message', async () => {
    mockFetch(jsonResponse(429, { code: 'rate_limited', message: 'Too many attempts' }))
    await expect(api.post('/api/auth/login', {})).rejects.toMatchObject({
      name: 'ApiError',
      status: 429,
      code: 'rate_limited',
      message: 'Too many attempts',
    })
  })

  it('keeps the body for endpoints that answer with data on error statuses', async () => {
    const body = { success: false, message: 'Slow down', code: 'RATE_LIMITED' }
    mockFetch(jsonResponse(429, body))
    const error = (await api.post('/api/waitlist', {}).catch((e: unknown) => e)) as ApiError
    expect(error.body).toEqual(body)
  })

  it('gives a generic message when the body is not JSON', async () => {
    mockFetch(new Response('<html>bad gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } }))
    await expect(apiRequest('/api/x')).rejects.toMatchObject({ status: 502, code: 'http_502' })
  })

  it('maps a network failure to status 0', async () => {
    mockFetch(new TypeError('Failed to fetch'))
    await expect(apiRequest('/api/x')).rejects.toMatchObject({ status: 0, code: 'network_error' })
  })

  it('returns undefined for an empty 204', async () => {
    mockFetch(new Response(null, { status: 204 }))
    await expect(api.post('/api/auth/logout')).resolves.toBeUndefined()
  })
})

describe('CSRF cookie not yet set', () => {
  it('retries a refused state-changing call once the refusal has set the cookie', async () => {
    document.cookie = 'capopt_csrf=; path=/; max-age=0'
    let attempt = 0
    const headers: (string | undefined)[] = []
    vi.stubGlobal(
      'fetch',
      vi.fn(async (_url: string, init: RequestInit) => {
        headers.push((init.headers as Record<string, string>)['X-CSRF-Token'])
        attempt += 1
        if (attempt === 1) {
          document.cookie = 'capopt_csrf=fresh; path=/'
          return jsonResponse(403, { code: 'csrf_failed', message: 'Missing or invalid CSRF token.' })
        }
        return jsonResponse(200, { success: true, message: 'ok', code: 'OK' })
      }),
    )
    await expect(api.post('/api/waitlist', {})).resolves.toMatchObject({ code: 'OK' })
    expect(headers).toEqual([undefined, 'fresh'])
  })

  it('does not retry a refusal when the cookie was already there', async () => {
    const calls = mockFetch(jsonResponse(403, { code: 'csrf_failed', message: 'Missing or invalid CSRF token.' }))
    await expect(api.post('/api/waitlist', {})).rejects.toMatchObject({ status: 403, code: 'csrf_failed' })
    expect(calls).toHaveLength(1)
  })
})
