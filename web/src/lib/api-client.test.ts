import { http, HttpResponse } from 'msw'

import { json, networkError, noContent, server } from '@/testing/mock-api'

import { ApiError, api, apiDownload, apiRequest, attachmentName, setSessionListener } from './api-client'

type Call = { method: string; url: string; headers: Headers; credentials: RequestCredentials; body: string }

/**
 * Answers every API call with the next of `responses` (in order, whatever the path) and records
 * each call as the server saw it. A call past the end of the queue fails the test.
 */
function mockQueue(...responses: (Response | 'network error')[]): Call[] {
  const calls: Call[] = []
  server.use(
    http.all('/api/*', async ({ request }) => {
      const url = new URL(request.url)
      calls.push({
        method: request.method,
        url: url.pathname,
        headers: request.headers,
        credentials: request.credentials,
        body: await request.clone().text(),
      })
      const next = responses.shift()
      if (next === undefined) throw new Error(`unexpected call to ${url.pathname}`)
      return next === 'network error' ? networkError() : next
    }),
  )
  return calls
}

function header(call: Call, name: string): string | null {
  return call.headers.get(name)
}

beforeEach(() => {
  document.cookie = 'capopt_csrf=tok%2B123; path=/'
  setSessionListener({})
})

afterEach(() => {
  document.cookie = 'capopt_csrf=; path=/; max-age=0'
})

describe('CSRF header', () => {
  it('is sent on non-GET requests with the cookie value', async () => {
    const calls = mockQueue(json(200, { ok: true }))
    await api.post('/api/things', { a: 1 })
    expect(header(calls[0], 'X-CSRF-Token')).toBe('tok+123')
    expect(calls[0].credentials).toBe('same-origin')
    expect(calls[0].body).toBe('{"a":1}')
    expect(header(calls[0], 'Content-Type')).toBe('application/json')
  })

  it('is not sent on GET requests', async () => {
    const calls = mockQueue(json(200, { status: 'ok' }))
    await expect(api.get('/api/health')).resolves.toEqual({ status: 'ok' })
    expect(header(calls[0], 'X-CSRF-Token')).toBeNull()
  })
})

describe('refresh then retry', () => {
  it('refreshes once on a 401 and retries the call', async () => {
    const refreshed = vi.fn()
    setSessionListener({ onRefreshed: refreshed })
    const calls = mockQueue(
      json(401, { code: 'unauthenticated', message: 'Authentication required' }),
      json(200, { user: { id: 'u1' } }),
      json(200, { value: 42 }),
    )
    await expect(api.get('/api/admin/dashboard/metrics')).resolves.toEqual({ value: 42 })
    expect(calls.map((c) => [c.method, c.url])).toEqual([
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
    const calls = mockQueue(
      json(401, { code: 'unauthenticated', message: 'Authentication required' }),
      json(401, { code: 'unauthenticated', message: 'Authentication required' }),
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
    const calls = mockQueue(json(401, {}), json(200, { user: {} }), json(401, {}))
    await expect(api.get('/api/auth/me')).rejects.toMatchObject({ status: 401 })
    expect(calls).toHaveLength(3)
    expect(signedOut).toHaveBeenCalledTimes(1)
  })

  it('never refreshes for a failed login', async () => {
    const calls = mockQueue(json(401, { code: 'invalid_credentials', message: 'Invalid credentials' }))
    await expect(api.post('/api/auth/login', { email: 'a@b.co', password: 'x' })).rejects.toMatchObject({
      status: 401,
      code: 'invalid_credentials',
      message: 'Invalid credentials',
    })
    expect(calls).toHaveLength(1)
  })

  it('shares one refresh between calls that fail together', async () => {
    let refreshes = 0
    server.use(
      http.post('/api/auth/refresh', async () => {
        refreshes += 1
        await new Promise((r) => setTimeout(r, 10))
        return HttpResponse.json({ user: {} })
      }),
      // Each data call fails until the refresh has happened.
      http.get('/api/*', ({ request }) =>
        refreshes === 0 ? json(401, {}) : HttpResponse.json({ url: new URL(request.url).pathname }),
      ),
    )
    const results = await Promise.all([api.get('/api/a'), api.get('/api/b')])
    expect(results).toEqual([{ url: '/api/a' }, { url: '/api/b' }])
    expect(refreshes).toBe(1)
  })
})

describe('error mapping', () => {
  it('turns the error body into code and message', async () => {
    mockQueue(json(429, { code: 'rate_limited', message: 'Too many attempts' }))
    await expect(api.post('/api/auth/login', {})).rejects.toMatchObject({
      name: 'ApiError',
      status: 429,
      code: 'rate_limited',
      message: 'Too many attempts',
    })
  })

  it('keeps the body for endpoints that answer with data on error statuses', async () => {
    const body = { success: false, message: 'Slow down', code: 'RATE_LIMITED' }
    mockQueue(json(429, body))
    const error = (await api.post('/api/waitlist', {}).catch((e: unknown) => e)) as ApiError
    expect(error.body).toEqual(body)
  })

  it('gives a generic message when the body is not JSON', async () => {
    mockQueue(new Response('<html>bad gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } }))
    await expect(apiRequest('/api/x')).rejects.toMatchObject({ status: 502, code: 'http_502' })
  })

  it('maps a network failure to status 0', async () => {
    mockQueue('network error')
    await expect(apiRequest('/api/x')).rejects.toMatchObject({ status: 0, code: 'network_error' })
  })

  it('returns undefined for an empty 204', async () => {
    mockQueue(noContent())
    await expect(api.post('/api/auth/logout')).resolves.toBeUndefined()
  })
})

describe('CSRF cookie not yet set', () => {
  it('retries a refused state-changing call once the refusal has set the cookie', async () => {
    document.cookie = 'capopt_csrf=; path=/; max-age=0'
    let attempt = 0
    const headers: (string | undefined)[] = []
    server.use(
      http.post('/api/waitlist', ({ request }) => {
        headers.push(request.headers.get('X-CSRF-Token') ?? undefined)
        attempt += 1
        if (attempt === 1) {
          document.cookie = 'capopt_csrf=fresh; path=/'
          return json(403, { code: 'csrf_failed', message: 'Missing or invalid CSRF token.' })
        }
        return json(200, { success: true, message: 'ok', code: 'OK' })
      }),
    )
    await expect(api.post('/api/waitlist', {})).resolves.toMatchObject({ code: 'OK' })
    expect(headers).toEqual([undefined, 'fresh'])
  })

  it('does not retry a refusal when the cookie was already there', async () => {
    const calls = mockQueue(json(403, { code: 'csrf_failed', message: 'Missing or invalid CSRF token.' }))
    await expect(api.post('/api/waitlist', {})).rejects.toMatchObject({ status: 403, code: 'csrf_failed' })
    expect(calls).toHaveLength(1)
  })
})

describe('downloads', () => {
  it('reads the file name of an attachment, the UTF-8 one first', () => {
    expect(attachmentName('attachment; filename="Q3 _.pdf"; filename*=UTF-8\'\'Q3%20%C3%A9.pdf')).toBe('Q3 é.pdf')
    expect(attachmentName('attachment; filename="plain.pdf"')).toBe('plain.pdf')
    expect(attachmentName(null)).toBeNull()
  })

  it('saves the answer under the server\'s name after one refresh on a 401', async () => {
    const clicked: string[] = []
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this.download)
    })
    const createUrl = vi.fn(() => 'blob:pdf')
    Object.assign(URL, { createObjectURL: createUrl, revokeObjectURL: vi.fn() })
    const calls = mockQueue(
      json(401, { code: 'unauthenticated', message: 'Authentication required' }),
      json(200, { user: {} }),
      new HttpResponse(new Uint8Array([0x25, 0x50, 0x44, 0x46]), {
        headers: { 'content-type': 'application/pdf', 'content-disposition': 'attachment; filename="r.pdf"; filename*=UTF-8\'\'Report%20A.pdf' },
      }),
    )
    await expect(apiDownload('/api/reports/1/export', 'fallback.pdf')).resolves.toBe('Report A.pdf')
    expect(calls.map((c) => c.url)).toEqual(['/api/reports/1/export', '/api/auth/refresh', '/api/reports/1/export'])
    expect(clicked).toEqual(['Report A.pdf'])
    expect(createUrl).toHaveBeenCalledTimes(1)
    click.mockRestore()
  })

  it('reports a refused export as an ApiError with the server\'s message and saves nothing', async () => {
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click')
    mockQueue(json(404, { code: 'report_not_found', message: 'Report not found' }))
    await expect(apiDownload('/api/reports/x/export', 'x.pdf')).rejects.toMatchObject({ status: 404, message: 'Report not found' })
    expect(click).not.toHaveBeenCalled()
    click.mockRestore()
  })
})
