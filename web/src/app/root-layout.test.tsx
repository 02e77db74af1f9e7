import { act, render } from '@testing-library/react'
import { createMemoryRouter, RouterProvider } from 'react-router'

import { SESSION_REFRESH_INTERVAL_MS, useAuthStore } from '@/lib/auth-store'
import { json, makeUser, mockApi } from '@/testing/mock-api'

import { RootLayout } from './root-layout'

afterEach(() => {
  vi.useRealTimers()
  vi.unstubAllGlobals()
})

describe('RootLayout', () => {
  it('refreshes the session every 10 minutes while signed in', async () => {
    vi.useFakeTimers()
    useAuthStore.setState({ status: 'authenticated', user: makeUser(), error: null })
    const calls = mockApi({ 'POST /api/auth/refresh': () => json(200, { user: makeUser({ name: 'Renewed' }) }) })
    const router = createMemoryRouter([{ element: <RootLayout />, children: [{ path: '/', element: <p>page</p> }] }])
    render(<RouterProvider router={router} />)

    await act(() => vi.advanceTimersByTimeAsync(SESSION_REFRESH_INTERVAL_MS - 1))
    expect(calls).toHaveLength(0)
    await act(() => vi.advanceTimersByTimeAsync(1))
    expect(calls.map((c) => c.key)).toEqual(['POST /api/auth/refresh'])
    expect(useAuthStore.getState().user?.name).toBe('Renewed')

    // Signed out: no more refreshes.
    act(() => useAuthStore.setState({ status: 'unauthenticated', user: null }))
    await act(() => vi.advanceTimersByTimeAsync(SESSION_REFRESH_INTERVAL_MS * 2))
    expect(calls).toHaveLength(1)
  })
})
