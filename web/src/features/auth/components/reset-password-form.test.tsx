import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { createMemoryRouter, RouterProvider } from 'react-router'

import { Toaster } from '@/components/ui/toaster'
import { json, mockApi, noContent } from '@/testing/mock-api'

import { ResetPasswordForm } from './reset-password-form'

function renderForm(token: string | null = 'tok-1', invite = false) {
  const router = createMemoryRouter(
    [
      { path: '/reset-password', element: <ResetPasswordForm token={token} invite={invite} /> },
      { path: '/login', element: <p>login page</p> },
    ],
    { initialEntries: ['/reset-password'] },
  )
  render(
    <>
      <RouterProvider router={router} />
      <Toaster />
    </>,
  )
  return router
}

async function submit(password: string, confirm: string) {
  const fields = screen.getAllByLabelText(/password/i, { selector: 'input' })
  if (password) await userEvent.type(fields[0], password)
  if (confirm) await userEvent.type(fields[1], confirm)
  await userEvent.click(screen.getByRole('button', { name: /Password$/ }))
}

afterEach(() => vi.unstubAllGlobals())

describe('ResetPasswordForm validation', () => {
  it.each([
    ['Ab1', 'Password must be at least 8 characters'],
    ['abcdefg1', 'Password must contain at least one uppercase letter'],
    ['ABCDEFG1', 'Password must contain at least one lowercase letter'],
    ['Abcdefgh', 'Password must contain at least one number'],
  ])('rejects %s with "%s"', async (password, message) => {
    const calls = mockApi({})
    renderForm()
    await submit(password, password)
    expect(await screen.findByText(message)).toBeInTheDocument()
    expect(calls).toHaveLength(0)
  })

  it("says 'Passwords must match'", async () => {
    renderForm()
    await submit('Abcdefg1', 'Abcdefg2')
    expect(await screen.findByText('Passwords must match')).toBeInTheDocument()
  })

  it('sets the password and goes to login', async () => {
    const calls = mockApi({ 'POST /api/auth/reset-password': () => noContent() })
    const router = renderForm('tok-1')
    await submit('Abcdefg1', 'Abcdefg1')
    expect(await screen.findByText('login page')).toBeInTheDocument()
    expect(router.state.location.state).toEqual({ notice: 'Your password has been updated. You can now sign in.' })
    expect(calls[0].body).toEqual({ token: 'tok-1', password: 'Abcdefg1' })
  })

  it('shows the invalid-link message from the server', async () => {
    mockApi({
      'POST /api/auth/reset-password': () => json(400, { code: 'invalid_token', message: 'Invalid or expired reset link' }),
    })
    renderForm('old')
    await submit('Abcdefg1', 'Abcdefg1')
    expect(await screen.findByText('Invalid or expired reset link')).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Request a new link' })).toHaveAttribute('href', '/forgot-password')
  })

  it('says the link is invalid when it carries no token', () => {
    renderForm(null)
    expect(screen.getByText('Invalid or expired reset link')).toBeInTheDocument()
  })

  it("shows 'Failed to set password' on other failures", async () => {
    mockApi({ 'POST /api/auth/reset-password': () => json(500, { code: 'internal', message: 'Internal error' }) })
    renderForm()
    await submit('Abcdefg1', 'Abcdefg1')
    expect(await screen.findByText('Failed to set password')).toBeInTheDocument()
  })
})
