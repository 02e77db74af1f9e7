import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { createMemoryRouter, RouterProvider } from 'react-router'

import { Toaster } from '@/components/ui/toaster'
import { json, mockApi } from '@/testing/mock-api'

import { SignupForm } from './signup-form'

const invitation = {
  email: 'new.user@bank-a.example',
  role: 'approver',
  company: 'Bank A',
  name: 'Nora',
  last_name: '',
  expires_at: '2030-01-01T00:00:00Z',
}

function renderSignup(token: string | undefined) {
  const router = createMemoryRouter(
    [
      { path: '/signup', element: <SignupForm token={token} /> },
      { path: '/login', element: <p>login page</p> },
    ],
    { initialEntries: ['/signup'] },
  )
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <RouterProvider router={router} />
      <Toaster />
    </QueryClientProvider>,
  )
  return router
}

afterEach(() => vi.unstubAllGlobals())

describe('SignupForm', () => {
  it('shows the invitation read-only and validates with the spec messages', async () => {
    const calls = mockApi({ 'GET /api/invitations/inv-1': () => json(200, invitation) })
    renderSignup('inv-1')
    expect(await screen.findByDisplayValue('new.user@bank-a.example')).toHaveAttribute('readonly')
    expect(screen.getByDisplayValue('Bank A')).toHaveAttribute('readonly')
    expect(screen.getByDisplayValue('Approver')).toHaveAttribute('readonly')
    expect(screen.getByLabelText('First name')).toHaveValue('Nora')

    await userEvent.type(screen.getByLabelText('Password'), '12345')
    await userEvent.type(screen.getByLabelText('Confirm password'), '12345')
    await userEvent.click(screen.getByRole('button', { name: 'Create Account' }))
    expect(await screen.findByText('Please enter your first and last name')).toBeInTheDocument()
    expect(screen.getByText('Password must be at least 8 characters')).toBeInTheDocument()
    expect(calls).toHaveLength(1)
  })

  it("says 'Passwords do not match'", async () => {
    mockApi({ 'GET /api/invitations/inv-1': () => json(200, invitation) })
    renderSignup('inv-1')
    await userEvent.type(await screen.findByLabelText('Last name'), 'Ruiz')
    await userEvent.type(screen.getByLabelText('Password'), 'secret-1')
    await userEvent.type(screen.getByLabelText('Confirm password'), 'secret-2')
    await userEvent.click(screen.getByRole('button', { name: 'Create Account' }))
    expect(await screen.findByText('Passwords do not match')).toBeInTheDocument()
  })

  it('creates the account and goes to login with the message', async () => {
    const calls = mockApi({
      'GET /api/invitations/inv-1': () => json(200, invitation),
      'POST /api/invitations/inv-1/accept': () => json(201, { message: 'Account created. You can now sign in.' }),
    })
    const router = renderSignup('inv-1')
    await userEvent.type(await screen.findByLabelText('Last name'), ' Ruiz ')
    await userEvent.type(screen.getByLabelText('Password'), 'Secret-Pass-1')
    await userEvent.type(screen.getByLabelText('Confirm password'), 'Secret-Pass-1')
    await userEvent.click(screen.getByRole('button', { name: 'Create Account' }))
    expect(await screen.findByText('login page')).toBeInTheDocument()
    expect(screen.getByText('Account created successfully!')).toBeInTheDocument()
    expect(router.state.location.state).toEqual({ notice: 'Account created. You can now sign in.' })
    expect(calls[1].body).toEqual({ name: 'Nora', last_name: 'Ruiz', password: 'Secret-Pass-1' })
  })

  it('says the invitation is invalid or expired on a 404', async () => {
    mockApi({
      'GET /api/invitations/inv-1': () => json(404, { code: 'invalid_invitation', message: 'Invalid or expired invitation link' }),
    })
    renderSignup('inv-1')
    expect(await screen.findByText('Invalid or expired invitation link')).toBeInTheDocument()
  })

  it("says 'Failed to load invitation' when the server fails", async () => {
    mockApi({ 'GET /api/invitations/inv-1': () => json(500, { code: 'internal', message: 'boom' }) })
    renderSignup('inv-1')
    expect(await screen.findByText('Failed to load invitation')).toBeInTheDocument()
  })

  it("says 'Invalid invitation link' without a token", () => {
    renderSignup(undefined)
    expect(screen.getByText('Invalid invitation link')).toBeInTheDocument()
  })
})

describe('SignupForm success message', () => {
  it('does not repeat the title when the server answers with the same words', async () => {
    mockApi({
      'GET /api/invitations/inv-1': () => json(200, invitation),
      'POST /api/invitations/inv-1/accept': () => json(201, { message: 'Account created successfully!' }),
    })
    const router = renderSignup('inv-1')
    await userEvent.type(await screen.findByLabelText('Last name'), 'Ruiz')
    await userEvent.type(screen.getByLabelText('Password'), 'Secret-Pass-1')
    await userEvent.type(screen.getByLabelText('Confirm password'), 'Secret-Pass-1')
    await userEvent.click(screen.getByRole('button', { name: 'Create Account' }))
    expect(await screen.findByText('login page')).toBeInTheDocument()
    expect(await screen.findByText('Your account is ready. Sign in with your email and password.')).toBeInTheDocument()
    const descriptions = [...document.querySelectorAll('[data-description]')].map((e) => e.textContent)
    expect(descriptions).not.toContain('Account created successfully!')
    expect(router.state.location.state).toEqual({ notice: 'Your account is ready. Sign in with your email and password.' })
  })
})
