import { render, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { MemoryRouter } from 'react-router'

import { Toaster } from '@/components/ui/toaster'
import { useAuthStore } from '@/lib/auth-store'
import { json, makeUser, mockApi } from '@/testing/mock-api'

import { LoginForm } from './login-form'

function renderLogin() {
  render(
    <MemoryRouter>
      <LoginForm />
      <Toaster />
    </MemoryRouter>,
  )
}

beforeEach(() => useAuthStore.setState({ status: 'unauthenticated', user: null, error: null }))
afterEach(() => vi.unstubAllGlobals())

describe('LoginForm', () => {
  it("says 'Invalid email address' and does not call the server", async () => {
    const calls = mockApi({})
    renderLogin()
    await userEvent.type(screen.getByLabelText('Email'), 'someone@')
    await userEvent.click(screen.getByRole('button', { name: 'Sign In' }))
    expect(await screen.findByText('Invalid email address')).toBeInTheDocument()
    expect(calls).toHaveLength(0)
  })

  it('has the forgot-password link and the administrator note', () => {
    renderLogin()
    expect(screen.getByRole('link', { name: 'Forgot password?' })).toHaveAttribute('href', '/forgot-password')
    expect(screen.getByText(/administrator-created account/)).toBeInTheDocument()
  })

  it("shows 'Login failed' with the server's message", async () => {
    mockApi({ 'POST /api/auth/login': () => json(401, { code: 'invalid_credentials', message: 'Invalid credentials' }) })
    renderLogin()
    await userEvent.type(screen.getByLabelText('Email'), 'user@bank-a.example')
    await userEvent.type(screen.getByLabelText('Password'), 'wrong')
    await userEvent.click(screen.getByRole('button', { name: 'Sign In' }))
    expect(await screen.findByText('Login failed')).toBeInTheDocument()
    expect(screen.getByText('Invalid credentials')).toBeInTheDocument()
    expect(useAuthStore.getState().status).toBe('unauthenticated')
  })

  it('shows the rate-limit message from the server', async () => {
    mockApi({ 'POST /api/auth/login': () => json(429, { code: 'rate_limited', message: 'Too many login attempts. Try again in a minute.' }) })
    renderLogin()
    await userEvent.type(screen.getByLabelText('Email'), 'user@bank-a.example')
    await userEvent.type(screen.getByLabelText('Password'), 'x')
    await userEvent.click(screen.getByRole('button', { name: 'Sign In' }))
    expect(await screen.findByText('Too many login attempts. Try again in a minute.')).toBeInTheDocument()
  })

  it('signs in and stores the user with a normalised role', async () => {
    const calls = mockApi({ 'POST /api/auth/login': () => json(200, { user: { ...makeUser(), role: 'superuser' } }) })
    renderLogin()
    await userEvent.type(screen.getByLabelText('Email'), ' user@bank-a.example ')
    await userEvent.type(screen.getByLabelText('Password'), 'Demo-Password-1')
    await userEvent.click(screen.getByRole('button', { name: 'Sign In' }))
    await waitFor(() => expect(useAuthStore.getState().status).toBe('authenticated'))
    expect(useAuthStore.getState().user?.role).toBe('user')
    expect(calls[0].body).toEqual({ email: 'user@bank-a.example', password: 'Demo-Password-1' })
  })

  it('clears the failed attempt’s toast when the next sign-in succeeds', async () => {
    mockApi({ 'POST /api/auth/login': () => json(401, { code: 'invalid_credentials', message: 'Invalid email or password' }) })
    renderLogin()
    await userEvent.type(screen.getByLabelText('Email'), 'user@bank-a.example')
    await userEvent.type(screen.getByLabelText('Password'), 'wrong')
    await userEvent.click(screen.getByRole('button', { name: 'Sign In' }))
    expect(await screen.findByText('Login failed')).toBeInTheDocument()

    mockApi({ 'POST /api/auth/login': () => json(200, { user: makeUser() }) })
    await userEvent.click(screen.getByRole('button', { name: 'Sign In' }))
    await waitFor(() => expect(useAuthStore.getState().status).toBe('authenticated'))
    // Gone at once, not when its time (4 s) runs out.
    await waitFor(() => expect(screen.queryByText('Login failed')).not.toBeInTheDocument(), { timeout: 1000 })
  })
})
