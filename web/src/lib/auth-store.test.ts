import { delay } from 'msw'

import { json, makeUser, mockApi, networkError, noContent } from '@/testing/mock-api'

import { RESTORE_TIMEOUT_MESSAGE, useAuthStore } from './auth-store'
import { queryClient } from './query-client'

beforeEach(() => useAuthStore.setState({ status: 'initializing', user: null, error: null }))
afterEach(() => {
  vi.useRealTimers()
})

describe('session restore', () => {
  it('becomes authenticated with the user from /api/auth/me', async () => {
    mockApi({ 'GET /api/auth/me': () => json(200, makeUser({ role: 'approver' })) })
    await useAuthStore.getState().restore()
    expect(useAuthStore.getState()).toMatchObject({ status: 'authenticated', user: { role: 'approver' }, error: null })
  })

  it('becomes unauthenticated when there is no session', async () => {
    mockApi({
      'GET /api/auth/me': () => json(401, { code: 'unauthenticated', message: 'Authentication required' }),
      'POST /api/auth/refresh': () => json(401, { code: 'unauthenticated', message: 'Authentication required' }),
    })
    await useAuthStore.getState().restore()
    expect(useAuthStore.getState()).toMatchObject({ status: 'unauthenticated', user: null })
  })

  it('asks the server only once per browser when there is no session (no 401s on later page loads)', async () => {
    const calls = mockApi({
      'GET /api/auth/me': () => json(401, { code: 'unauthenticated', message: 'Authentication required' }),
      'POST /api/auth/refresh': () => json(401, { code: 'unauthenticated', message: 'Authentication required' }),
    })
    await useAuthStore.getState().restore()
    expect(calls).toHaveLength(2)
    // The next page load: no probe; only the CSRF cookie the probe would have brought is fetched
    // (a plain 200), so the visit's first sign-in is not refused.
    const health = mockApi({ 'GET /api/health': () => json(200, { status: 'ok' }) })
    useAuthStore.setState({ status: 'initializing', user: null, error: null })
    await useAuthStore.getState().restore()
    expect(useAuthStore.getState()).toMatchObject({ status: 'unauthenticated', user: null })
    expect(calls).toHaveLength(2)
    expect(health).toHaveLength(1)
    // With the CSRF cookie there, nothing at all.
    document.cookie = 'capopt_csrf=tok; path=/'
    useAuthStore.setState({ status: 'initializing', user: null, error: null })
    await useAuthStore.getState().restore()
    expect(calls).toHaveLength(2)
    expect(health).toHaveLength(1)
  })

  it('asks again once the user signed in, and after signing out stops asking', async () => {
    useAuthStore.getState().clearSession()
    const calls = mockApi({
      'POST /api/auth/login': () => json(200, { user: makeUser() }),
      'GET /api/auth/me': () => json(200, makeUser()),
      'POST /api/auth/logout': () => noContent(),
    })
    await useAuthStore.getState().signIn('user@bank-a.example', 'Demo-Password-1')
    useAuthStore.setState({ status: 'initializing', user: null, error: null })
    await useAuthStore.getState().restore()
    expect(useAuthStore.getState().status).toBe('authenticated')
    expect(calls.map((c) => c.key)).toEqual(['POST /api/auth/login', 'GET /api/auth/me'])

    await useAuthStore.getState().signOut()
    document.cookie = 'capopt_csrf=tok; path=/'
    useAuthStore.setState({ status: 'initializing', user: null, error: null })
    await useAuthStore.getState().restore()
    expect(useAuthStore.getState().status).toBe('unauthenticated')
    expect(calls.map((c) => c.key)).toEqual(['POST /api/auth/login', 'GET /api/auth/me', 'POST /api/auth/logout'])
  })

  it('retries a failing server twice (after 1 s and 2 s) before reporting the error', async () => {
    vi.useFakeTimers()
    const calls = mockApi({ 'GET /api/auth/me': () => json(503, { code: 'unavailable', message: 'Service unavailable' }) })
    const done = useAuthStore.getState().restore()
    await vi.advanceTimersByTimeAsync(999)
    expect(calls).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(calls).toHaveLength(2)
    await vi.advanceTimersByTimeAsync(2000)
    await done
    expect(calls).toHaveLength(3)
    expect(useAuthStore.getState()).toMatchObject({ status: 'error', error: 'Service unavailable' })
  })

  it('recovers when a retry succeeds', async () => {
    vi.useFakeTimers()
    let attempts = 0
    mockApi({
      'GET /api/auth/me': () => (++attempts === 1 ? json(502, {}) : json(200, makeUser())),
    })
    const done = useAuthStore.getState().restore()
    await vi.advanceTimersByTimeAsync(1000)
    await done
    expect(useAuthStore.getState().status).toBe('authenticated')
  })

  it('gives up with the timeout message when the server never answers', async () => {
    vi.useFakeTimers()
    mockApi({
      'GET /api/auth/me': async () => {
        await delay('infinite')
        return json(200, makeUser())
      },
    })
    const done = useAuthStore.getState().restore()
    await vi.advanceTimersByTimeAsync(15_000)
    await done
    expect(useAuthStore.getState()).toMatchObject({ status: 'error', error: RESTORE_TIMEOUT_MESSAGE })
  })
})

describe('signing out', () => {
  it('clears the user and the query cache', async () => {
    useAuthStore.setState({ status: 'authenticated', user: makeUser() })
    queryClient.setQueryData(['secret'], 42)
    mockApi({ 'POST /api/auth/logout': () => noContent() })
    await useAuthStore.getState().signOut()
    expect(useAuthStore.getState()).toMatchObject({ status: 'unauthenticated', user: null })
    expect(queryClient.getQueryData(['secret'])).toBeUndefined()
  })

  it('signs out locally when a call finds the session gone', async () => {
    useAuthStore.setState({ status: 'authenticated', user: makeUser() })
    mockApi({
      'POST /api/auth/refresh': () => json(401, { code: 'unauthenticated', message: 'Authentication required' }),
    })
    await useAuthStore.getState().refreshSession()
    expect(useAuthStore.getState().status).toBe('unauthenticated')
  })

  it('keeps the session when a refresh fails for network reasons', async () => {
    useAuthStore.setState({ status: 'authenticated', user: makeUser() })
    mockApi({ 'POST /api/auth/refresh': () => networkError() })
    await useAuthStore.getState().refreshSession()
    expect(useAuthStore.getState().status).toBe('authenticated')
  })
})
