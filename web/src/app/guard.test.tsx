import { act, screen, waitFor } from '@testing-library/react'

import { useAuthStore } from '@/lib/auth-store'
import { dismissToasts } from '@/lib/toast'
import { resetRealtime, setRealtimeTransport } from '@/lib/realtime-store'
import { FakeEventSocket } from '@/testing/fake-event-socket'
import { json, makeUser, mockApi } from '@/testing/mock-api'
import { renderRoutes } from '@/testing/render-route'

import { routes } from './routes'

// What the dashboards and the client home ask for once a signed-in user reaches them.
const metric = { value: 0, previous: 0 }
const dashboardApi = {
  'GET /api/admin/dashboard/metrics': () =>
    json(200, {
      period: 'all',
      since: '2026-10-31',
      capital: { value: 1250000, previous: 1000000 },
      bps: metric,
      levers: metric,
      clients: metric,
    }),
  'GET /api/admin/dashboard/evolution': () => json(200, { view: 'monthly', year: 2026, years: [2026], points: [], hasData: false }),
  'GET /api/admin/dashboard/overview': () => json(200, { window: 'last30Days', categories: [], levers: [] }),
  'GET /api/dashboard': () =>
    json(200, { clientId: 'c-1', clientName: 'Bank A', totalRwas: 0, totalBps: 0, lastUpdated: '', previousMonthRwas: 0, history: [], levers: [] }),
}

function signedInAs(role: 'admin' | 'user' | 'viewer' | 'approver') {
  mockApi({
    'GET /api/auth/session': () => json(200, { user: makeUser({ role, name: role === 'admin' ? 'Alex' : 'Ana' }) }),
    ...dashboardApi,
  })
}

function anonymous() {
  return mockApi({
    'GET /api/auth/session': () => json(200, { user: null }),
    ...dashboardApi,
  })
}

beforeEach(() => {
  // Toasts are global: none from an earlier test is left showing.
  dismissToasts()
  useAuthStore.setState({ status: 'initializing', user: null, error: null })
  // The signed-in shell holds the event socket open: a fake one here.
  FakeEventSocket.all = []
  setRealtimeTransport((url) => new FakeEventSocket(url), async () => true)
})

afterEach(() => {
  resetRealtime()
  vi.unstubAllGlobals()
})

describe('route guard', () => {
  it('sends an anonymous visitor of /admin/dashboard to /login with the origin path', async () => {
    anonymous()
    const { router } = renderRoutes(routes, '/admin/dashboard')
    expect(await screen.findByRole('heading', { name: 'Welcome Back' })).toBeInTheDocument()
    expect(router.state.location.pathname).toBe('/login')
    expect(new URLSearchParams(router.state.location.search).get('redirect')).toBe('/admin/dashboard')
    expect(router.state.location.state).toEqual({ from: '/admin/dashboard' })
  })

  it('sends an anonymous visitor of /client/home to /login too', async () => {
    anonymous()
    const { router } = renderRoutes(routes, '/client/home?tab=1')
    await screen.findByRole('heading', { name: 'Welcome Back' })
    expect(new URLSearchParams(router.state.location.search).get('redirect')).toBe('/client/home?tab=1')
  })

  it('shows the verifying overlay while the session is restored on protected paths', async () => {
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    mockApi({
      'GET /api/auth/session': async () => {
        await gate
        return json(200, { user: makeUser() })
      },
      ...dashboardApi,
    })
    renderRoutes(routes, '/client/home')
    expect(await screen.findByText('Verifying authentication...')).toBeInTheDocument()
    release()
    expect(await screen.findByRole('heading', { name: /Welcome, Ana García/ })).toBeInTheDocument()
    expect(screen.queryByText('Verifying authentication...')).not.toBeInTheDocument()
  })

  it('adds the error message and the login alert when the session check fails', async () => {
    useAuthStore.setState({ status: 'error', user: null, error: 'Unable to reach the server.' })
    const { router } = renderRoutes(routes, '/admin/dashboard')
    expect(await screen.findByText('Authentication error: Unable to reach the server.')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Retry Connection' })).toBeInTheDocument()
    expect(router.state.location.state).toEqual({
      from: '/admin/dashboard',
      authError: 'Authentication error occurred',
    })
    expect(await screen.findByText('Authentication required')).toBeInTheDocument()
  })

  it('sends a non-admin from /admin to /client/home', async () => {
    signedInAs('user')
    const { router } = renderRoutes(routes, '/admin/dashboard')
    await waitFor(() => expect(router.state.location.pathname).toBe('/client/home'))
    expect(await screen.findByRole('heading', { name: /Welcome, Ana/ })).toBeInTheDocument()
  })

  it('keeps approvers and viewers out of /admin as well', async () => {
    signedInAs('approver')
    const { router } = renderRoutes(routes, '/admin')
    await waitFor(() => expect(router.state.location.pathname).toBe('/client/home'))
  })

  it('lets an admin into the dashboard and redirects /admin there', async () => {
    signedInAs('admin')
    const { router } = renderRoutes(routes, '/admin')
    expect(await screen.findByRole('heading', { name: 'Admin Dashboard' })).toBeInTheDocument()
    expect(router.state.location.pathname).toBe('/admin/dashboard')
    expect(await screen.findByText('1.250.000 €')).toBeInTheDocument()
  })

  it('redirects /client to /client/home', async () => {
    signedInAs('viewer')
    const { router } = renderRoutes(routes, '/client')
    await waitFor(() => expect(router.state.location.pathname).toBe('/client/home'))
  })

  it('sends a signed-in admin who opens /login to the admin dashboard', async () => {
    signedInAs('admin')
    const { router } = renderRoutes(routes, '/login')
    await waitFor(() => expect(router.state.location.pathname).toBe('/admin/dashboard'))
  })

  it('sends a signed-in user who opens /login to the client home', async () => {
    signedInAs('user')
    const { router } = renderRoutes(routes, '/login')
    await waitFor(() => expect(router.state.location.pathname).toBe('/client/home'))
  })

  it('returns to the origin path after signing in', async () => {
    const { default: userEvent } = await import('@testing-library/user-event')
    anonymous()
    const { router } = renderRoutes(routes, '/client/home')
    await screen.findByRole('heading', { name: 'Welcome Back' })
    mockApi({
      'POST /api/auth/login': () => json(200, { user: makeUser() }),
    })
    await userEvent.type(screen.getByLabelText('Email'), 'user@bank-a.example')
    await userEvent.type(screen.getByLabelText('Password'), 'Demo-Password-1')
    await userEvent.click(screen.getByRole('button', { name: 'Sign In' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/client/home'))
    expect(await screen.findByRole('heading', { name: /Welcome, Ana García/ })).toBeInTheDocument()
  })

  it('ignores a redirect to another site', async () => {
    signedInAs('user')
    const { router } = renderRoutes(routes, '/login?redirect=//evil.example/x')
    await waitFor(() => expect(router.state.location.pathname).toBe('/client/home'))
  })

  it('shows the 404 page for unknown paths', async () => {
    anonymous()
    renderRoutes(routes, '/no/such/page')
    expect(await screen.findByRole('heading', { name: 'Oops! Page not found' })).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Return to Home' })).toHaveAttribute('href', '/')
  })
})

describe('route guard on paths that do not exist', () => {
  it('sends an anonymous visitor of /client/anything to /login with the origin path', async () => {
    anonymous()
    const { router } = renderRoutes(routes, '/client/anything/deeper?x=1')
    expect(await screen.findByRole('heading', { name: 'Welcome Back' })).toBeInTheDocument()
    expect(router.state.location.pathname).toBe('/login')
    expect(new URLSearchParams(router.state.location.search).get('redirect')).toBe('/client/anything/deeper?x=1')
    expect(router.state.location.state).toEqual({ from: '/client/anything/deeper?x=1' })
    expect(screen.queryByText('Oops! Page not found')).not.toBeInTheDocument()
  })

  it('sends an anonymous visitor of /admin/anything to /login with the origin path', async () => {
    anonymous()
    const { router } = renderRoutes(routes, '/admin/anything')
    await screen.findByRole('heading', { name: 'Welcome Back' })
    expect(new URLSearchParams(router.state.location.search).get('redirect')).toBe('/admin/anything')
  })

  it('sends a non-admin on /admin/anything to /client/home', async () => {
    signedInAs('user')
    const { router } = renderRoutes(routes, '/admin/anything')
    await waitFor(() => expect(router.state.location.pathname).toBe('/client/home'))
    expect(await screen.findByRole('heading', { name: /Welcome, Ana/ })).toBeInTheDocument()
    expect(screen.queryByText('Oops! Page not found')).not.toBeInTheDocument()
  })

  it.each(['/admin/clients', '/admin/settings'])('tells a non-admin opening %s that access is denied', async (path) => {
    signedInAs('approver')
    const { router } = renderRoutes(routes, path)
    await waitFor(() => expect(router.state.location.pathname).toBe('/client/home'))
    expect(await screen.findByText('Access denied')).toBeInTheDocument()
  })

  it('sends a non-admin away from other admin pages without the access toast', async () => {
    signedInAs('user')
    const { router } = renderRoutes(routes, '/admin/dashboard')
    await waitFor(() => expect(router.state.location.pathname).toBe('/client/home'))
    await screen.findByRole('heading', { name: /Welcome, Ana/ })
    expect(screen.queryByText('Access denied')).not.toBeInTheDocument()
  })

  it('shows an admin the 404 inside the shell, with a way back to the dashboard', async () => {
    signedInAs('admin')
    const { router } = renderRoutes(routes, '/admin/anything')
    expect(await screen.findByRole('heading', { name: 'Oops! Page not found' })).toBeInTheDocument()
    expect(router.state.location.pathname).toBe('/admin/anything')
    expect(screen.getByTestId('not-found-in-shell')).toBeInTheDocument()
    expect(screen.getByRole('navigation', { name: 'Admin navigation' })).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Return to Home' })).toHaveAttribute('href', '/admin/dashboard')
  })

  it('shows a signed-in user the 404 inside the shell on /client/anything', async () => {
    signedInAs('user')
    renderRoutes(routes, '/client/anything')
    expect(await screen.findByRole('heading', { name: 'Oops! Page not found' })).toBeInTheDocument()
    expect(screen.getByRole('navigation', { name: 'Client navigation' })).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Return to Home' })).toHaveAttribute('href', '/client/home')
  })

  it("takes a signed-in user from the stand-alone 404 to their home, not the landing page", async () => {
    signedInAs('admin')
    renderRoutes(routes, '/no/such/page')
    expect(await screen.findByRole('heading', { name: 'Oops! Page not found' })).toBeInTheDocument()
    await waitFor(() => expect(screen.getByRole('link', { name: 'Return to Home' })).toHaveAttribute('href', '/admin/dashboard'))
  })
})

describe('tab titles', () => {
  it('names the page in the tab title', async () => {
    anonymous()
    const { router } = renderRoutes(routes, '/login')
    await screen.findByRole('heading', { name: 'Welcome Back' })
    await waitFor(() => expect(document.title).toBe('Sign in · CapOpt'))
    await act(() => router.navigate('/no/such/page'))
    await waitFor(() => expect(document.title).toBe('Page not found · CapOpt'))
    await act(() => router.navigate('/'))
    await waitFor(() => expect(document.title).toBe('CapOpt · Capital Optimization'))
  })
})

describe('a role change while the app is open', () => {
  it('reaches the admin dashboard at once: an admin made a user leaves the admin area', async () => {
    let role: 'admin' | 'user' = 'admin'
    mockApi({
      'GET /api/auth/session': () => json(200, { user: makeUser({ role, name: 'Alex' }) }),
      'GET /api/auth/me': () => json(200, makeUser({ role, name: 'Alex' })),
      ...dashboardApi,
    })
    const { router } = renderRoutes(routes, '/admin/dashboard')
    expect(await screen.findByRole('heading', { name: 'Admin Dashboard' })).toBeInTheDocument()
    // The dashboard follows its savings events on the event socket, which carries session events too.
    await waitFor(() => expect(FakeEventSocket.all.length).toBe(1))
    const ws = FakeEventSocket.latest()
    act(() => ws.open())

    role = 'user'
    act(() => ws.frame('', 0, 'session.changed'))
    await waitFor(() => expect(router.state.location.pathname).toBe('/client/home'))
    expect(await screen.findByRole('navigation', { name: 'Client navigation' })).toBeInTheDocument()
  })
})
