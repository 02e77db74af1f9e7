import { delay } from 'msw'

import { json, makeUser, mockApi, networkError, noContent } from '@/testing/mock-api'

import { RESTORE_TIMEOUT_MESSAGE, useAuthStore } from './auth-store'
import { queryClient } from './query-client'

beforeEach(() => useAuthStore.setState({ status: 'initializing', user: null, error: null }))
afterEach(() => {
  vi.useRealTimers()
})

describe('session restore', () => {
  it('becomes authenticated with the user of the session', async () => {
    mockApi({ 'GET /api/auth/session': () => json(200, { user: makeUser({ role: 'approver' }) }) })
    await useAuthStore.getState().restore()
    expect(useAuthStore.getState()).toMatchObject({ status: 'authenticated', user: { role: 'approver' }, error: null })
  })

  it('becomes unauthenticated when there is no session, with one call and no 401', async () => {
    const calls = mockApi({ 'GET /api/auth/session': () => json(200, { user: null }) })
    await useAuthStore.getState().restore()
    expect(useAuthStore.getState()).toMatchObject({ status: 'unauthenticated', user: null })
    expect(calls.map((c) => c.key)).toEqual(['GET /api/auth/session'])
  })

  it('asks the server on every page load, so a sign-in made elsewhere is seen', async () => {
    let user: ReturnType<typeof makeUser> | null = null
    const calls = mockApi({ 'GET /api/auth/session': () => json(200, { user }) })
    await useAuthStore.getState().restore()
    expect(useAuthStore.getState().status).toBe('unauthenticated')
    user = makeUser()
    useAuthStore.setState({ status: 'initializing', user: null, error: null })
    await useAuthStore.getState().restore()
    expect(useAuthStore.getState().status).toBe('authenticated')
    expect(calls).toHaveLength(2)
  })

  it('retries a failing server twice (after 1 s and 2 s) before reporting the error', async () => {
    vi.useFakeTimers()
    const calls = mockApi({ 'GET /api/auth/session': () => json(503, { code: 'unavailable', message: 'Service unavailable' }) })
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
      'GET /api/auth/session': () => (++attempts === 1 ? json(502, {}) : json(200, { user: makeUser() })),
    })
    const done = useAuthStore.getState().restore()
    await vi.advanceTimersByTimeAsync(1000)
    await done
    expect(useAuthStore.getState().status).toBe('authenticated')
  })

  it('gives up with the timeout message when the server never answers', async () => {
    vi.useFakeTimers()
    mockApi({
      'GET /api/auth/session': async () => {
        await delay('infinite')
        return json(200, { user: makeUser() })
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
